#version 450
#extension GL_GOOGLE_include_directive : require
// The search work list's first pass (search_work.comp is its second): each
// block's work items, summed into work_sums, so that the second pass starts
// every block from the sum of those before it. It only reads the cell
// starts, so fenns' ranked builds (fenns_plan_ranked), whose starts the
// scan leaves final and whose placement only reads them, record it beside
// the placement (reorder_ranked.comp) with no barrier between: one pass's
// wait fewer a build (H100, build: sph50 1M 0.1407 -> 0.1359 ms, 4M 0.4644
// -> 0.4592, in frame order 0.2887 -> 0.2842, s1 4M r=1 0.4857 -> 0.4817,
// dam 0.2650 -> 0.2616; the search work pass 0.0125 -> 0.0064, the
// reorder beside it 0.1421 -> 0.1426; run LG).
#include "header.glsl"
#define USE_CELLS
#define CELLS_ACCESS readonly
#include "bindings.glsl"
#define FENNS_POSTED_SUMS
#include "scan.glsl"
#include "work_items.glsl"
// Each block's total of work items (the scratch's scan sums).
layout(std430, binding = FENNS_BINDING_SCAN_SUMS) writeonly buffer WorkSums { uint work_sums[]; };

void main() {
    uint b[FENNS_WORK_LIST_CELLS + 1u], items[FENNS_WORK_LIST_CELLS];
    post_workgroup_sum(entry_items(first_work_entry(linear_workgroup()), b, items));
    barrier();
    if (gl_LocalInvocationIndex == 0u) work_sums[linear_workgroup()] = posted_workgroup_sum();
}
