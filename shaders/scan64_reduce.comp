#version 450
#extension GL_GOOGLE_include_directive : require
// The CSR offsets scan, step 1 where there is more than one block: each
// block's u64 total of FENNS_SCAN_ITEMS * workgroup u32 counts (pc.mode & 2:
// of the u64 block sums of a lower level, in place), to scan_sums (which
// the next level scans in place; scan64_block then starts each block from
// its scanned total).
#include "header.glsl"
#define USE_SCAN64
#include "bindings.glsl"

shared uvec2 s_subgroup_sums[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];

void main() {
    uint block = linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    bool wide_in = (pc.mode & 2u) != 0u;
    uvec2 sum = uvec2(0u);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = first + k * gl_WorkGroupSize.x + gl_LocalInvocationIndex; // consecutive invocations, consecutive elements
        if (idx < pc.count_in) sum = add64(sum, wide_in ? scan_out[idx] : uvec2(scan_in[idx], 0u));
    }
    uvec2 total = subgroup_add64(sum);
    if (subgroupElect()) s_subgroup_sums[gl_SubgroupID] = total;
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uvec2 block_total = uvec2(0u);
        for (uint s = 0u; s < gl_NumSubgroups; ++s) block_total = add64(block_total, s_subgroup_sums[s]);
        scan_sums[block] = block_total;
    }
}
