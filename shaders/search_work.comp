#version 450
#extension GL_GOOGLE_include_directive : require
// End of the build: the search's work list, one work item per
// workgroup-sized chunk of every coarse cell (so crowded cells are spread
// over several workgroups; work_items.glsl), as each cell's first item
// (WORK_START, scanned: C + 2 entries, the last the total), the search's
// indirect dispatch (one workgroup per item) and the status counts.
//
// The second of two passes over blocks of WORK_CELLS cells an invocation:
// search_work_totals.comp summed each block's items into work_sums; here
// each block starts from the sum of the blocks before it (at most
// FENNS_WORK_LIST_BLOCKS where the plan can keep them so: every workgroup
// adds them itself) and writes its cells' starts; the block holding the
// total writes the dispatch. (The items per cell, a device-wide scan of
// them and the dispatch had taken five dispatches: H100, 4M particles,
// 0.029 ms.)
//
// It also lists the work items themselves (WORK_ITEM: each one's cell and
// queries), so a search workgroup reads its item in one load instead of
// searching the WORK_START table (search_common.glsl's find_work): a
// block's items are consecutive, and its invocations write them together,
// each finding its item's cell among the block's in shared memory. Not with
// PARTICLE_WORK, whose searches take no items.
//
// fenns' ranked builds on a GPU (fenns_plan.work_list_in_order) do not
// dispatch this pass: the first workgroups of their section order run it
// (section_order.comp).
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS
#define USE_WORK_ITEMS
#define WORK_ITEMS_ACCESS writeonly
#include "bindings.glsl"
#define WORK_TABLE(c) WORK_START(c)
#include "search_work_list.glsl"

void main() { search_work_list(linear_workgroup()); }
