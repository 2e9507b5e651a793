// fenns (default): query-driven search, the body of search_fenns.comp (the
// list fill) and search_fenns_count.comp (the counts search: the same with
// FENNS_SEARCH_COUNTS, its local grid by row). Each invocation owns one query
// of its coarse cell; the workgroup writes the local grid (the cell's fine
// cells and the facing fine-cell layers of its 26 neighbours, already sorted
// by fine cell and original index in the build) into shared memory, and
// every query walks the rows of its stencil. See local_grid_fenns.glsl.
#include "header.glsl"
layout(constant_id = 1) const uint LOCAL_ROWS = 81; // FENNS_LOCAL_DIM_MAX^2: the local grid's rows
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define USE_WORK_ITEMS
#define SEARCH_WORK_ITEM
#define CELLS_ACCESS readonly
#define USE_SORTED
#define USE_CANDIDATES
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_COUNTS
#define USE_OFFSETS
#define USE_PART_FIRSTS
#define USE_INDICES
#define USE_INDEX_QUADS
#define INDICES_ACCESS writeonly
#include "bindings.glsl"
#include "grid.glsl"
#include "scan.glsl"
#include "search_common.glsl"
#include "local_grid_fenns.glsl"

void main() {
    work_item w;
    // The list fill finds its item itself (search_work_item says why).
    bool found;
    if (COUNT_ONLY == 1u) found = find_work(w);
    else found = search_work_item(query_slots(), w);
    if (!found) return;
    uint q = w.query_begin + query_slot();
    if (w.cell == pc.cell_capacity) {
        if (q < w.query_end && query_part() == 0u) finish_invalid(q);
        return;
    }
    search_cell(w, q);
}
