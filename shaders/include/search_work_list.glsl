// The search work list's second pass (search_work.comp, and the leading
// workgroups of section_order.comp in ranked builds on a GPU): see
// search_work.comp.
// Needs USE_PARAMS (written), USE_CELLS (read) and USE_WORK_ITEMS
// (writeonly); WORK_TABLE(c), where the block's entries' first work items
// go (WORK_START, or an alias of it where the cells are read-only).
#define FENNS_POSTED_SUMS
#include "scan.glsl"
#include "work_items.glsl"
// Each block's total of work items (search_work_totals.comp's, in the
// scratch's scan sums).
layout(std430, binding = FENNS_BINDING_SCAN_SUMS) readonly buffer WorkSums { uint work_sums[]; };

// The block's entries: each one's first work item (past the entries: none)
// and where its particles begin, and where the block's last one's end.
// (Sized for the largest workgroup and WORK_LIST_SHARED_CELLS cells an
// invocation, at most WORK_CELLS: plans count shared memory from the
// SPIR-V's declarations. The section order, which runs this pass only where
// WORK_CELLS is 1, declares 1: sized for 4, its 8 KiB slowed the section
// order's own workgroups by a tenth at 4M, H100 run MC.)
#ifndef WORK_LIST_SHARED_CELLS
#define WORK_LIST_SHARED_CELLS FENNS_WORK_LIST_CELLS
#endif
#define BLOCK_ENTRIES (gl_WorkGroupSize.x * WORK_CELLS)
shared uint s_item_start[FENNS_MAX_WORKGROUP * WORK_LIST_SHARED_CELLS];
shared uint s_bound[FENNS_MAX_WORKGROUP * WORK_LIST_SHARED_CELLS + 1u];

// Writes work items [begin, end), the block's, whose entries start at
// `first`: each invocation a share, finding its item's entry by a binary
// search of the block's item starts.
void list_items(uint first, uint begin, uint end) {
    for (uint id = begin + gl_LocalInvocationIndex; id < end; id += gl_WorkGroupSize.x) {
        uint lo = 0u, hi = BLOCK_ENTRIES; // the last entry whose items start at or before id
        while (hi - lo > 1u) {
            uint mid = (lo + hi) / 2u;
            if (s_item_start[mid] <= id) lo = mid;
            else hi = mid;
        }
        uint query_begin = s_bound[lo] + (id - s_item_start[lo]) * pc.mode;
        WORK_ITEM(id) = uvec4(first + lo, query_begin, s_bound[lo + 1u], 0u);
    }
}

// Block `block` of the list (a workgroup each).
void search_work_list(uint block) {
    uint t = gl_LocalInvocationIndex;
    uint entries = cell_count_with_invalid() + 1u;
    uint first = first_work_entry(block);
    uint b[FENNS_WORK_LIST_CELLS + 1u], items[FENNS_WORK_LIST_CELLS];
    uint sum = entry_items(first, b, items);
    // The blocks before this one, posted before the block's scan (whose
    // barriers make the sum readable; scan.glsl).
    uint before = 0u;
    WORKGROUP_SHARE_OF_SUM(uint, add32, work_sums, block, before)
    post_workgroup_sum(before);
    uint block_total;
    uint run = workgroup_exclusive_scan(sum, block_total);
    uint block_begin = posted_workgroup_sum(); // the items of every block before
    run += block_begin;
    for (uint k = 0u; k < WORK_CELLS; ++k) {
        uint e = first + k;
        if (PARTICLE_WORK == 0u) {
            // The total's entry and those past it have no items: they
            // start none that list_items can find.
            s_item_start[t * WORK_CELLS + k] = e < entries - 1u ? run : 0xFFFFFFFFu;
            s_bound[t * WORK_CELLS + k] = b[k];
        }
        if (e < entries) WORK_TABLE(e) = run;
        if (e == entries - 1u) { // the total's entry: the search's dispatch, the invalid particles
            uvec3 rows = workgroup_rows(run);
            STORE_DISPATCH(dispatch, rows)
            // fenns' narrow searches run on the variant for the build's grid
            // where there is one (local_grid_fenns.glsl's FIXED_REACH), else
            // on the general search: one of the three dispatches gets the
            // workgroups, the others none.
            uint fixed_reach = PARTICLE_WORK == 0u && prm.fine_split == FENNS_FINE_SPLIT_MAX && prm.fine_reach <= 2u
                                   ? prm.fine_reach : 0u;
            uvec3 none = uvec3(0u, 1u, 1u);
            uvec3 general = fixed_reach == 0u ? rows : none;
            uvec3 local7 = fixed_reach == 1u ? rows : none, local9 = fixed_reach == 2u ? rows : none;
            STORE_DISPATCH(general_dispatch, general)
            STORE_DISPATCH(local7_dispatch, local7)
            STORE_DISPATCH(local9_dispatch, local9)
            prm.invalid_count = KEY_START(section_keys()) - KEY_START(section_keys() - 1u);
        }
        run += items[k]; // none from the total's entry on
    }
    if (PARTICLE_WORK == 0u && t == gl_WorkGroupSize.x - 1u) s_bound[BLOCK_ENTRIES] = b[WORK_CELLS];
    if (PARTICLE_WORK == 0u) {
        barrier();
        list_items(block * BLOCK_ENTRIES, block_begin, block_begin + block_total);
    }
}
