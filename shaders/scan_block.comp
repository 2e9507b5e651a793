#version 450
#extension GL_GOOGLE_include_directive : require
// Device-wide exclusive scan of u32 (reduce, then scan): each block of
// FENNS_SCAN_ITEMS * workgroup elements scanned and written once, from the
// block's start in scan_sums when pc.mode == 1 (more than one block:
// scan_reduce.comp's totals, scanned in place). Reading the input twice
// and writing once beats scanning blocks, then adding their starts (a
// second read and write of the output): H100, the cell scan of 4M keys
// 0.058 -> 0.056 ms, the offsets scan of 4M counts 0.100 -> 0.085, of 2^26
// 1.18 -> 0.93.
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
    uint run = workgroup_exclusive_scan(sum, total) + (pc.mode == 1u ? scan_sums[block] : 0u);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = base + k;
        if (idx < pc.count) scan_out[idx] = run;
        run += v[k];
    }
}
