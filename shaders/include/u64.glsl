// 64-bit unsigned integers as uvec2 (x: low 32 bits, y: high), the layout a
// u64 has in a little-endian buffer. List offsets and totals pass 2^32 for
// large searches; this keeps the shaders free of shaderInt64, which not
// every mobile GPU has.

uvec2 add64(uvec2 a, uint b) {
    uint lo = a.x + b;
    return uvec2(lo, a.y + (lo < b ? 1u : 0u));
}
uvec2 add64(uvec2 a, uvec2 b) {
    uint lo = a.x + b.x;
    return uvec2(lo, a.y + b.y + (lo < b.x ? 1u : 0u));
}
// a - b for a >= b.
uvec2 sub64(uvec2 a, uvec2 b) {
    return uvec2(a.x - b.x, a.y - b.y - (a.x < b.x ? 1u : 0u));
}
bool le64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x <= b.x); }
uvec2 min64(uvec2 a, uvec2 b) { return le64(a, b) ? a : b; }
uvec2 max64(uvec2 a, uvec2 b) { return le64(a, b) ? b : a; }
uvec2 mul64(uint a, uint b) {
    uvec2 r;
    umulExtended(a, b, r.y, r.x);
    return r;
}

// A subgroup's u64 sum from three u32 sums that cannot wrap: the low words'
// 16-bit halves (at most 128 lanes * 2^16 each) and the high words (their
// sum is at most the whole sum's high word). Every lane must call it.
uvec2 subgroup_add64(uvec2 v) {
    uint low = subgroupAdd(v.x & 0xFFFFu), high16 = subgroupAdd(v.x >> 16u), high = subgroupAdd(v.y);
    return add64(uvec2(low, high), uvec2(high16 << 16u, high16 >> 16u));
}
