#version 450
#extension GL_GOOGLE_include_directive : require
// Device-wide exclusive scan, step 1 where there is more than one block:
// each block's total of FENNS_SCAN_ITEMS * workgroup elements, to
// scan_sums (which the next level scans in place; scan_block then starts
// each block from its scanned total).
#include "header.glsl"
#define USE_SCAN
#include "bindings.glsl"

shared uint s_subgroup_sums[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];

void main() {
    uint block = linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    uint sum = 0u;
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = first + k * gl_WorkGroupSize.x + gl_LocalInvocationIndex; // consecutive invocations, consecutive elements
        if (idx < pc.count_in) sum += scan_in[idx];
    }
    sum = subgroupAdd(sum);
    if (subgroupElect()) s_subgroup_sums[gl_SubgroupID] = sum;
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        uint total = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; ++s) total += s_subgroup_sums[s];
        scan_sums[block] = total;
    }
}
