#version 450
#extension GL_GOOGLE_include_directive : require
// counting (Hoetzlein's grid, the papers' baseline) and octant (Morillo et
// al.): one invocation per sorted particle walks its own cell and the 26
// around it, or the 8 toward its octant (cell_walk.glsl), two candidates a
// step, in the build's order. The build scattered the particles with
// atomics, so list order varies between runs. Lists and counts are written
// by fenns' own code (local_grid_fenns.glsl: quads of entries, the
// counting-only variant), whose local grid is one unused cell.
#include "header.glsl"
layout(constant_id = 1) const uint LOCAL_ROWS = 1; // local_grid_fenns.glsl's arrays, unused here
layout(constant_id = 2) const uint OCTANT = 0; // 1: octant's walk
#define WALK_OCTANT (OCTANT != 0u)
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_SORTED
#define USE_CANDIDATES
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_COUNTS
#define USE_OFFSETS
#define USE_INDICES
#define USE_INDEX_QUADS
#define INDICES_ACCESS writeonly
#include "bindings.glsl"
#include "grid.glsl"
#include "scan.glsl"
#include "search_common.glsl"
#define SHORT_LISTS_BY_ENTRY // one walk for every list: each list of fewer than 8 entries stored entry by entry
#include "local_grid_fenns.glsl"
#include "cell_walk.glsl"

// A run of candidates two per step, the second masked past the run's end.
void visit_cell(inout query_state s, uvec2 run) {
    for (uint j = run.x; j < run.y; j += 2u) {
        uint j1 = min(j + 1u, run.y - 1u);
        uvec4 c0 = load_sorted(j), c1 = load_sorted(j1);
        visit_pair(s, c0, j, c1, j1, j + 1u < run.y, true);
    }
}

void main() {
    uint q;
    uint kind = particle_work(q);
    if (kind == 2u) finish_invalid(q);
    // Whole subgroups from here on (the loop bound and the total's sums).
    bool live = kind == 1u && searchable(); // not searchable: a build recorded without all its passes
    if (kind == 1u && !live && first_list_window()) atomicAdd(prm.incomplete_queries, 1u);
    query_state s;
    lane_walk walk;
    if (live) {
        s = begin_query(q);
        walk = lane_walk_of(s.p);
        // A list of another window is another dispatch's (FENNS_LIST_WINDOW_SHIFT).
        live = COUNT_ONLY == 1u || in_list_window(s.target.base);
    }
    if (pc.loop_limit != 0u && !lane_walk_within_loop_limit(walk, live, 2u, 2u)) {
        if (live) atomicAdd(prm.incomplete_queries, 1u);
        live = false;
    }
    uint count = 0u;
    if (live) {
        for (uint i = 0u; i < lane_walk_cells(); ++i) visit_cell(s, lane_walk_run(walk, i));
        if (COUNT_ONLY == 1u) s.count -= 1u; // the query itself
        else flush_list(s, true);
        finish_query(s.id, s.count, s.target);
        count = s.count;
    }
    add_total(count);
}
