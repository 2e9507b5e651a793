#version 450
#extension GL_GOOGLE_include_directive : require
// The CSR offsets scan (reduce, then scan; see scan_block.comp): each block
// of FENNS_SCAN_ITEMS * workgroup u32 counts (pc.mode & 2: u64 block sums
// of a lower level, in place) scanned into u64 offsets and written once,
// from the block's start in scan_sums when pc.mode & 1 (more than one
// block: scan64_reduce.comp's totals, scanned in place) or, pc.mode & 4,
// from the sum of the unscanned totals before it (scan_block.comp).
#include "header.glsl"
#define USE_SCAN64
#include "bindings.glsl"
#define FENNS_POSTED_SUMS64
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
    // pc.mode & 4: the totals of the blocks before (scan_block.comp).
    if ((pc.mode & 4u) != 0u) {
        uvec2 before = uvec2(0u);
        WORKGROUP_SHARE_OF_SUM(uvec2, add64, scan_sums, block, before)
        post_workgroup_sum64(before);
    }
    uvec2 total;
    uvec2 run = workgroup_exclusive_scan64(sum, total);
    if ((pc.mode & 4u) != 0u) run = add64(run, posted_workgroup_sum64());
    else if ((pc.mode & 1u) != 0u) run = add64(run, scan_sums[block]);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = base + k;
        if (idx < pc.count) scan_out[idx] = run;
        run = add64(run, v[k]);
    }
}
