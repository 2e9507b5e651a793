#version 450
#extension GL_GOOGLE_include_directive : require
// FENNS_OUTPUT_SORTED_LISTS: sort each written CSR list ascending, one
// invocation per list (lists are short; insertion sort stays in cache).
#include "header.glsl"
#define USE_OFFSETS
#define USE_INDICES
#define INDICES_ACCESS
#define INDICES_READ
#include "bindings.glsl"

void main() {
    uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (i >= pc.n) return;
    uint b = offsets[i], e = offsets[i + 1u];
    if (e > pc.capacity) return; // not written: it did not fit
    for (uint k = b + 1u; k < e; ++k) {
        uint v = load_index(k);
        uint j = k;
        while (j > b) {
            uint prev = load_index(j - 1u);
            if (prev <= v) break;
            store_index(j, prev);
            --j;
        }
        store_index(j, v);
    }
}
