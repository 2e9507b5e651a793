#version 450
#extension GL_GOOGLE_include_directive : require
// FENNS_OUTPUT_SORTED_LISTS: sort each written CSR list ascending, one
// invocation per list.
#include "header.glsl"
#define USE_OFFSETS
#define USE_INDICES
#define INDICES_ACCESS
#define INDICES_READ
#include "bindings.glsl"

// Heapsort: O(k log k) and no quadratic worst case for long lists (lavapipe
// also caps a loop at 65535 iterations per invocation).
void sift_down(uint base, uint root, uint len) {
    uint v = load_index(base + root);
    for (uint child = 2u * root + 1u; child < len; child = 2u * root + 1u) {
        uint c = load_index(base + child);
        if (child + 1u < len) {
            uint right = load_index(base + child + 1u);
            if (right > c) {
                c = right;
                ++child;
            }
        }
        if (c <= v) break;
        store_index(base + root, c);
        root = child;
    }
    store_index(base + root, v);
}

// Short lists (the common case) are sorted in private memory, which stays on
// chip; long ones by heapsort in place.
#define PRIVATE_SORT 64u

void main() {
    uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (i >= pc.n) return;
    uint b = offsets[i], e = offsets[i + 1u];
    if (e > pc.capacity) return; // not written: it did not fit
    uint len = e - b;
    if (len <= PRIVATE_SORT) {
        uint v[PRIVATE_SORT];
        for (uint k = 0u; k < len; ++k) {
            uint x = load_index(b + k);
            uint j = k;
            for (; j > 0u && v[j - 1u] > x; --j) v[j] = v[j - 1u];
            v[j] = x;
        }
        for (uint k = 0u; k < len; ++k) store_index(b + k, v[k]);
        return;
    }
    for (uint root = len / 2u; root > 0u; --root) sift_down(b, root - 1u, len);
    for (uint end = len; end > 1u; --end) {
        uint top = load_index(b);
        store_index(b, load_index(b + end - 1u));
        store_index(b + end - 1u, top);
        sift_down(b, 0u, end - 1u);
    }
}
