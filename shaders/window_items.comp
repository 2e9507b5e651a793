#version 450
#extension GL_GOOGLE_include_directive : require
// fenns' list fill of lists past one binding, a window a dispatch
// (search_passes.c): before each window's dispatch, the work items whose
// queries' lists start in it (in original order: every item, their lists
// lying anywhere, or none where no list starts in the window: CSR indices
// that run past the lists). In sorted order a query's list starts
// where the one before ends, so a window's lists are those of one run of
// sorted positions, and so of one run of work items (search_work_item
// numbers them in sorted order). This pass finds that run and writes the
// window's dispatches of the fill (prm.window_*dispatch_*: all of them in
// the general search, and the three dispatches of fenns' narrow fill, one
// holding them as the search work list gives the build's workgroups to
// one) and its first item (prm.window_item_base), which the fill's
// workgroups add to their own numbers. Without it every workgroup of the
// build ran in every window, found its item and left: 1.32 ms a window at
// sph50 2^26 (H200, session 51's run RC). One workgroup.
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_OFFSETS
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

void main() {
    // The outputs whose lists start in the window: a run of them, in either
    // order (lists lie in output order).
    uvec2 first = list_window_first();
    uint begin = queries_before(first), end = queries_before(add64(first, pc.list_window_entries));
    uint base = 0u, items = 0u; // none: a window past the lists (CSR indices longer than them)
    if (end > begin) {
        if (pc.sorted_order != 0u) {
            base = item_of(begin);
            items = item_of(end - 1u) + 1u - base;
        } else {
            items = WORK_START(cell_count_with_invalid()); // every item: the queries lie anywhere
        }
    }
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
