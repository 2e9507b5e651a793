#version 450
#extension GL_GOOGLE_include_directive : require
// The CSR offsets scan, step 3: add each block's scanned u64 total.
#include "header.glsl"
#define USE_SCAN64
#include "bindings.glsl"

void main() {
    uint block = linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    uvec2 add = scan_sums[block];
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = first + k * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
        if (idx < pc.count) scan_out[idx] = add64(scan_out[idx], add);
    }
}
