#version 450
#extension GL_GOOGLE_include_directive : require
// A search's total (fenns_status.total_neighbors), after it, where its
// subgroups post none to the status's one word (search_common.glsl's
// add_total says why), from what it wrote:
// - pc.mode 0, a counts search: its counts, FENNS_TOTAL_ITEMS an invocation,
//   one atomic a workgroup; and its longest list (max_neighbors), one
//   atomicMax a workgroup where the status holds less. A search that left
//   queries unsearched (fenns_status.incomplete_queries) wrote no count for
//   them: its counts are not valid, and it gets no total.
// - pc.mode 1, fenns' kernel search: the sums its workgroups added to
//   their work items (the items' last words, whose wraps are carried
//   already), cleared for the next search. The kernel search keeps its
//   longest list itself.
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_COUNTS
#define COUNTS_ACCESS readonly
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_WORK_ITEMS
#define WORK_ITEMS_ACCESS
#include "bindings.glsl"
#define FENNS_POSTED_SUMS64
#include "scan.glsl"

shared uint s_subgroup_longest[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];

void main() {
    bool items = pc.mode == 1u;
    if (!items && prm.incomplete_queries != 0u) return; // the same for every invocation: no barrier is skipped by some only
    // The work items the build listed (WORK_START's total entry).
    uint count = items ? WORK_START(cell_count_with_invalid()) : pc.n;
    uint first = linear_workgroup() * gl_WorkGroupSize.x * FENNS_TOTAL_ITEMS;
    uvec2 sum = uvec2(0u);
    uint longest = 0u;
    for (uint k = 0u; k < FENNS_TOTAL_ITEMS; ++k) {
        uint i = first + k * gl_WorkGroupSize.x + gl_LocalInvocationIndex; // consecutive invocations, consecutive entries
        if (i >= count) continue;
        uint c;
        if (items) {
            c = WORK_ITEM(i).w;
            if (c != 0u) WORK_ITEM(i).w = 0u;
        } else {
            c = counts[i];
        }
        sum = add64(sum, c);
        longest = max(longest, c);
    }
    post_workgroup_sum64(sum);
    longest = subgroupMax(longest);
    if (subgroupElect()) s_subgroup_longest[gl_SubgroupID] = longest;
    barrier();
    if (gl_LocalInvocationIndex != 0u) return;
    uvec2 block = posted_workgroup_sum64();
    if (!items) {
        for (uint s = 0u; s < gl_NumSubgroups; ++s) longest = max(longest, s_subgroup_longest[s]);
        if (longest > prm.max_neighbors) atomicMax(prm.max_neighbors, longest); // (add_total's skip)
    }
    if (block.x != 0u) {
        uint before = atomicAdd(prm.total_neighbors, block.x);
        if (before + block.x < before) block.y += 1u; // the low word wrapped
    }
    if (block.y != 0u) atomicAdd(prm.total_neighbors_hi, block.y);
}
