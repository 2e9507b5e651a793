#version 450
#extension GL_GOOGLE_include_directive : require
// The CSR offsets scan, step 1: exclusive scan of each block of
// FENNS_SCAN_ITEMS * workgroup u32 counts into u64 offsets (pc.mode & 2:
// of the u64 block sums of a lower level, in place); each block's total goes
// to scan_sums when pc.mode & 1 (more than one block).
#include "header.glsl"
#define USE_SCAN64
#include "bindings.glsl"
#include "scan.glsl"

void main() {
    uint block = linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    bool wide_in = (pc.mode & 2u) != 0u;
    uint base = first + gl_LocalInvocationIndex * FENNS_SCAN_ITEMS;
    uvec2 v[FENNS_SCAN_ITEMS];
    uvec2 sum = uvec2(0u);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = base + k;
        v[k] = idx >= pc.count_in ? uvec2(0u) : wide_in ? scan_out[idx] : uvec2(scan_in[idx], 0u);
        sum = add64(sum, v[k]);
    }
    uvec2 total;
    uvec2 run = workgroup_exclusive_scan64(sum, total);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = base + k;
        if (idx < pc.count) scan_out[idx] = run;
        run = add64(run, v[k]);
    }
    if ((pc.mode & 1u) != 0u && gl_LocalInvocationIndex == 0u) scan_sums[block] = total;
}
