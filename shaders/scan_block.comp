#version 450
#extension GL_GOOGLE_include_directive : require
// Device-wide exclusive scan, step 1: scan each block of
// FENNS_SCAN_ITEMS * workgroup elements; write each block's total to
// scan_sums when pc.mode == 1 (more than one block).
#include "header.glsl"
#define USE_SCAN
#include "bindings.glsl"
#include "scan.glsl"

void main() {
    uint block = linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    uint base = first + gl_LocalInvocationIndex * FENNS_SCAN_ITEMS;
    uint v[FENNS_SCAN_ITEMS];
    uint sum = 0u;
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = base + k;
        v[k] = idx < pc.count_in ? scan_in[idx] : 0u;
        sum += v[k];
    }
    uint total;
    uint run = workgroup_exclusive_scan(sum, total);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = base + k;
        if (idx < pc.count) scan_out[idx] = run;
        run += v[k];
    }
    if (pc.mode == 1u && gl_LocalInvocationIndex == 0u) scan_sums[block] = total;
}
