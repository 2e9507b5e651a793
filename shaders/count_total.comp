#version 450
#extension GL_GOOGLE_include_directive : require
// The total of a counts search (fenns_status.total_neighbors) and its
// longest list (max_neighbors), from the counts it wrote, after it: each
// workgroup adds FENNS_TOTAL_ITEMS counts an invocation and posts one
// atomic (and one atomicMax where the status holds less), where the
// search's subgroups would each have posted theirs to one word
// (search_common.glsl's add_total says why they do not).
//
// A search that left queries unsearched (fenns_status.incomplete_queries)
// wrote no count for them: its counts are not valid, and it gets no total.
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_COUNTS
#define COUNTS_ACCESS readonly
#include "bindings.glsl"
#define FENNS_POSTED_SUMS64
#include "scan.glsl"

shared uint s_subgroup_longest[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];

void main() {
    if (prm.incomplete_queries != 0u) return; // the same for every invocation: no barrier is skipped by some only
    uint first = linear_workgroup() * gl_WorkGroupSize.x * FENNS_TOTAL_ITEMS;
    uvec2 sum = uvec2(0u);
    uint longest = 0u;
    for (uint k = 0u; k < FENNS_TOTAL_ITEMS; ++k) {
        uint i = first + k * gl_WorkGroupSize.x + gl_LocalInvocationIndex; // consecutive invocations, consecutive counts
        uint c = i < pc.n ? counts[i] : 0u;
        sum = add64(sum, c);
        longest = max(longest, c);
    }
    post_workgroup_sum64(sum);
    longest = subgroupMax(longest);
    if (subgroupElect()) s_subgroup_longest[gl_SubgroupID] = longest;
    barrier();
    if (gl_LocalInvocationIndex != 0u) return;
    uvec2 block = posted_workgroup_sum64();
    for (uint s = 0u; s < gl_NumSubgroups; ++s) longest = max(longest, s_subgroup_longest[s]);
    if (longest > prm.max_neighbors) atomicMax(prm.max_neighbors, longest); // (add_total's skip)
    if (block.x != 0u) {
        uint before = atomicAdd(prm.total_neighbors, block.x);
        if (before + block.x < before) block.y += 1u; // the low word wrapped
    }
    if (block.y != 0u) atomicAdd(prm.total_neighbors_hi, block.y);
}
