// What both passes of the search work list count (search_work_totals.comp,
// search_work.comp): the work items of each entry -- a coarse cell, the
// invalid particles, the total's entry (none) -- one per workgroup-sized
// chunk of its particles (pc.mode: the search's workgroup size), WORK_CELLS
// entries an invocation. Needs USE_CELLS.

// Entries an invocation takes (fenns_plan.work_list_cells: 1 or 4).
layout(constant_id = 1) const uint WORK_CELLS = 1;
// 1: one work item per workgroup-sized chunk of all the sorted particles
// (counting, octant: cell_walk.glsl's particle_work), all counted at entry 0.
layout(constant_id = 2) const uint PARTICLE_WORK = 0;

// Where entry e's particles begin: cell e's first sorted position, the
// invalid particles' (e == pc.cell_capacity), or n (the total's entry, and
// past it).
uint bound(uint e) { return e <= pc.cell_capacity ? cell_begin(e) : pc.n; }

// The first of the WORK_CELLS entries this invocation takes.
uint first_work_entry(uint block) { return (block * gl_WorkGroupSize.x + gl_LocalInvocationIndex) * WORK_CELLS; }

// The work items of the invocation's entries from `first` (items[k]) and
// their bounds (b[k], b[WORK_CELLS] where the last one ends); returns their
// sum. Each bound is loaded once, all of them before any is used. (Arrays
// of the most cells, indexed only by unrolled loops of WORK_CELLS:
// registers.)
uint entry_items(uint first, out uint b[FENNS_WORK_LIST_CELLS + 1u], out uint items[FENNS_WORK_LIST_CELLS]) {
    uint entries = cell_count_with_invalid() + 1u;
    for (uint k = 0u; k <= WORK_CELLS; ++k) b[k] = bound(first + k);
    uint sum = 0u;
    for (uint k = 0u; k < WORK_CELLS; ++k) {
        uint e = first + k, len = PARTICLE_WORK == 0u ? b[k + 1u] - b[k] : e == 0u ? pc.n : 0u;
        items[k] = e < entries - 1u ? (len + pc.mode - 1u) / pc.mode : 0u;
        sum += items[k];
    }
    return sum;
}
