#version 450
#extension GL_GOOGLE_include_directive : require
// Device-wide exclusive scan, step 3: add each block's scanned total.
#include "header.glsl"
#define USE_SCAN
#include "bindings.glsl"

void main() {
    uint block = linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    uint add = scan_sums[block];
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = first + k * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
        if (idx < pc.count) scan_out[idx] += add;
    }
}
