#version 450
#extension GL_GOOGLE_include_directive : require
// fenns' list fill of lists past one binding, a window a dispatch
// (search_passes.c): before each window's dispatch, the run of work items
// whose queries' lists start in it, and the fill's dispatches of that run
// (prm.window_*dispatch_*: all of it in the general search, and the three
// dispatches of fenns' narrow fill, one holding it as the search work list
// gives the build's workgroups to one) and its first item
// (prm.window_item_base), which the fill's workgroups add to their own
// numbers. Without it every workgroup of the build ran in every window,
// found its item and left: 1.32 ms a window at sph50 2^26 (H200, session
// 51's run RC). pc.count_in is the step (FENNS_WINDOW_*):
// - sorted order, FENNS_WINDOW_RUN, one workgroup: a query's list starts
//   where the one before ends, so a window's lists are those of one run of
//   sorted positions, and so of one run of work items (search_work_item
//   numbers them in sorted order);
// - original order, three steps with a barrier between: the outputs whose
//   lists start in the window are a run of original indices
//   (FENNS_WINDOW_OUTPUTS, one workgroup); their sorted positions lie
//   anywhere, so every workgroup reads the permutation for the smallest and
//   largest (FENNS_WINDOW_SPAN); the run of items from the one holding the
//   smallest to the one holding the largest (FENNS_WINDOW_SPAN_RUN, one
//   workgroup). Particles that come in the build's order (a solver that
//   reorders them each step) keep each window's span short; in random
//   order it is nearly every item. Items within the run whose queries all
//   write in other windows leave early (gather_window_queries).
// A window where no list starts (CSR indices longer than the lists) gets
// no workgroup.
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_OFFSETS
#define USE_PERM
#define PERM_ACCESS readonly
#include "bindings.glsl"
#include "kary_search.glsl"
#include "list_windows.glsl"

shared uint s_found;

// The outputs (below pc.n) whose lists start before entry x: a prefix of
// them, as their lists start in output order (sorted positions in sorted
// order, original indices in original order).
uint queries_before(uvec2 x) {
    uint lo = 0u, hi = pc.n + 1u;
    KARY_SEARCH_LARGEST(lo, hi, s_found, probe, probe == 0u || !le64(x, list_start(probe - 1u)))
    return lo;
}

// The work item of the query at sorted position q: its cell's first item
// and its chunk of pc.count queries there (search_work_item's inverse).
uint item_of(uint q) {
    uint lo = 0u, hi = cell_count_with_invalid();
    KARY_SEARCH_LARGEST(lo, hi, s_found, probe, cell_begin(probe) <= q)
    return WORK_START(lo) + (q - cell_begin(lo)) / pc.count;
}

// Writes the window's run of `items` work items from `base`.
void store_run(uint base, uint items) {
    if (gl_LocalInvocationIndex != 0u) return;
    prm.window_item_base = base;
    uvec3 rows = workgroup_rows(items), none = uvec3(0u, 1u, 1u);
    uvec3 general = prm.general_dispatch_x != 0u ? rows : none;
    uvec3 local7 = prm.local7_dispatch_x != 0u ? rows : none, local9 = prm.local9_dispatch_x != 0u ? rows : none;
    STORE_DISPATCH(window_dispatch, rows)
    STORE_DISPATCH(window_general_dispatch, general)
    STORE_DISPATCH(window_local7_dispatch, local7)
    STORE_DISPATCH(window_local9_dispatch, local9)
}

// The run of items that holds sorted positions [first, end): from the
// item of `first` to the item of end - 1; none where end <= first.
void store_run_of(uint first, uint end) {
    uint base = 0u, items = 0u;
    if (end > first) {
        base = item_of(first);
        items = item_of(end - 1u) + 1u - base;
    }
    store_run(base, items);
}

shared uint s_span_min, s_span_max;

// FENNS_WINDOW_SPAN: the smallest and largest sorted position whose
// original index is one of the window's outputs, FENNS_WINDOW_SPAN_ITEMS
// positions an invocation, a workgroup's in one atomic each.
void span() {
    uint begin = prm.window_output_begin, end = prm.window_output_end;
    if (gl_LocalInvocationIndex == 0u) {
        s_span_min = 0xffffffffu;
        s_span_max = 0u;
    }
    barrier();
    uint lo = 0xffffffffu, hi = 0u;
    uint first = linear_workgroup() * gl_WorkGroupSize.x * FENNS_WINDOW_SPAN_ITEMS + gl_LocalInvocationIndex;
    for (uint k = 0u; k < FENNS_WINDOW_SPAN_ITEMS; ++k) {
        uint s = first + k * gl_WorkGroupSize.x;
        if (s < pc.n && perm[s] - begin < end - begin) {
            lo = min(lo, s);
            hi = max(hi, s);
        }
    }
    lo = subgroupMin(lo);
    hi = subgroupMax(hi);
    if (subgroupElect() && lo <= hi) {
        atomicMin(s_span_min, lo);
        atomicMax(s_span_max, hi);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_span_min <= s_span_max) {
        atomicMin(prm.window_span_min, s_span_min);
        atomicMax(prm.window_span_max, s_span_max);
    }
}

void main() {
    uint step = pc.count_in;
    if (step == FENNS_WINDOW_SPAN) {
        span();
        return;
    }
    if (step == FENNS_WINDOW_SPAN_RUN) {
        store_run_of(prm.window_span_min, prm.window_span_max + 1u); // none found: [~0, 1)
        return;
    }
    // The outputs whose lists start in the window: a run of them, in either
    // order (lists lie in output order).
    uvec2 first = list_window_first();
    uint begin = queries_before(first), end = queries_before(add64(first, pc.list_window_entries));
    if (step == FENNS_WINDOW_RUN) {
        store_run_of(begin, end);
        return;
    }
    if (gl_LocalInvocationIndex != 0u) return;
    prm.window_output_begin = begin;
    prm.window_output_end = end;
    prm.window_span_min = 0xffffffffu; // none until FENNS_WINDOW_SPAN finds one
    prm.window_span_max = 0u;
}
