// Workgroup-wide exclusive scan on subgroup operations, correct for every
// subgroup size from 4 to 128 (shared totals sized for the worst case).
shared uint s_subgroup_totals[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];

// Must be called by every invocation of the workgroup (uniform control flow).
uint workgroup_exclusive_scan(uint v, out uint total) {
    uint inclusive = subgroupInclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_subgroup_totals[gl_SubgroupID] = inclusive;
    barrier();
    // Hillis-Steele over the (at most 64) subgroup totals.
    uint t = gl_LocalInvocationIndex;
    for (uint offset = 1u; offset < gl_NumSubgroups; offset <<= 1u) {
        uint add = (t < gl_NumSubgroups && t >= offset) ? s_subgroup_totals[t - offset] : 0u;
        barrier();
        if (t < gl_NumSubgroups) s_subgroup_totals[t] += add;
        barrier();
    }
    uint before = gl_SubgroupID > 0u ? s_subgroup_totals[gl_SubgroupID - 1u] : 0u;
    total = s_subgroup_totals[gl_NumSubgroups - 1u];
    barrier(); // the totals are reused by the next call
    return before + inclusive - v;
}

// This invocation's share of the sum of array[0..count) (type T, summed
// with ADD), the workgroup's invocations striding over it with four loads
// in flight each: one at a time, the last blocks of a device-wide scan
// would wait on chains of 32 L2 round trips (scan_block.comp, the work
// list's second pass). `share` holds the start (zero) and the result.
uint add32(uint a, uint b) { return a + b; }
#define WORKGROUP_SHARE_OF_SUM(T, ADD, array, count, share)                              \
    for (uint b0_ = gl_LocalInvocationIndex; b0_ < (count); b0_ += 4u * gl_WorkGroupSize.x) { \
        T v4_[4];                                                                        \
        for (uint k_ = 0u; k_ < 4u; ++k_) v4_[k_] = array[min(b0_ + k_ * gl_WorkGroupSize.x, (count) - 1u)]; \
        for (uint k_ = 0u; k_ < 4u; ++k_)                                                \
            if (b0_ + k_ * gl_WorkGroupSize.x < (count)) share = ADD(share, v4_[k_]);   \
    }

// A workgroup's sum that costs no barrier of its own where one follows
// anyway (a workgroup scan's): each subgroup posts its sum to shared memory
// before the barrier; after it, every invocation adds the posts up (at most
// 64). On a CPU driver each barrier is a switch through all invocations.
// Declared only where asked for (FENNS_POSTED_SUMS, FENNS_POSTED_SUMS64):
// shared arrays count against every includer's budget.
#ifdef FENNS_POSTED_SUMS
shared uint s_posted[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];
void post_workgroup_sum(uint v) {
    uint s = subgroupAdd(v);
    if (subgroupElect()) s_posted[gl_SubgroupID] = s;
}
uint posted_workgroup_sum() {
    uint s = 0u;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) s += s_posted[i];
    return s;
}
#endif
#ifdef FENNS_POSTED_SUMS64
shared uvec2 s_posted64[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];
void post_workgroup_sum64(uvec2 v) {
    uvec2 s = subgroup_add64(v);
    if (subgroupElect()) s_posted64[gl_SubgroupID] = s;
}
uvec2 posted_workgroup_sum64() {
    uvec2 s = uvec2(0u);
    for (uint i = 0u; i < gl_NumSubgroups; ++i) s = add64(s, s_posted64[i]);
    return s;
}
#endif

// Exclusive scan of a shared array of `len` entries in place, each thread
// owning a run of consecutive entries; returns the sum of all entries.
#define SHARED_ARRAY_EXCLUSIVE_SCAN(array, len, result_total)                      \
    {                                                                              \
        uint per_ = ((len) + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;         \
        uint begin_ = min(gl_LocalInvocationIndex * per_, (len));                  \
        uint end_ = min(begin_ + per_, (len));                                     \
        uint sum_ = 0u;                                                            \
        for (uint i_ = begin_; i_ < end_; ++i_) sum_ += array[i_];                 \
        uint run_ = workgroup_exclusive_scan(sum_, result_total);                  \
        for (uint i_ = begin_; i_ < end_; ++i_) {                                  \
            uint v_ = array[i_];                                                   \
            array[i_] = run_;                                                      \
            run_ += v_;                                                            \
        }                                                                          \
        barrier();                                                                 \
    }

// The same over u64 values (uvec2, see u64.glsl). Where every value is
// below 2^23 (no sum of a workgroup's, at most 256 of them, passes 2^31:
// the common case of neighbour counts) one u32 scan; else four scans of
// 16-bit digits, whose sums over a workgroup (< 256 * 2^16) cannot wrap,
// put back together with carries.
uvec2 shifted64(uint x, uint digit) { // x << (16 * digit) as u64
    if (digit == 0u) return uvec2(x, 0u);
    if (digit == 1u) return uvec2(x << 16u, x >> 16u);
    if (digit == 2u) return uvec2(0u, x);
    return uvec2(0u, x << 16u);
}
shared uint s_scan_wide; // nonzero: some value of the workgroup is 2^23 or more
uvec2 workgroup_exclusive_scan64(uvec2 v, out uvec2 total) {
    if (gl_LocalInvocationIndex == 0u) s_scan_wide = 0u;
    barrier();
    if (subgroupBallot(v.y != 0u || v.x >= (1u << 23u)) != uvec4(0u) && subgroupElect()) atomicOr(s_scan_wide, 1u);
    barrier();
    if (s_scan_wide == 0u) { // read before the scan's first barrier, reset after its last
        uint narrow_total;
        uint run = workgroup_exclusive_scan(v.x, narrow_total);
        total = uvec2(narrow_total, 0u);
        return uvec2(run, 0u);
    }
    uvec2 run = uvec2(0u);
    total = uvec2(0u);
    for (uint d = 0u; d < 4u; ++d) {
        uint digit = ((d < 2u ? v.x : v.y) >> (16u * (d & 1u))) & 0xFFFFu;
        uint digit_total;
        uint digit_run = workgroup_exclusive_scan(digit, digit_total);
        run = add64(run, shifted64(digit_run, d));
        total = add64(total, shifted64(digit_total, d));
    }
    return run;
}
