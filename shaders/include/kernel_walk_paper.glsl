// The query-driven walks that run a user kernel on a fenns-paper build (one
// workgroup per chunk of a cell) and on a counting or octant build (one
// invocation per particle).
// Both builds leave each coarse cell as a border and an inner section, so
// a query's candidates are its own cell and the border sections of its 26
// neighbours (a neighbour in another cell lies within the margin of that
// cell's face). Candidates come in the build's order, which the builds'
// atomics vary from run to run: the neighbours are always the same, but a
// kernel's float sums may round differently (fenns gives them bit-identical).
// Needs local_grid_fenns.glsl (begin_query, LOOP_ALLOWANCE) and cell_walk.glsl.

// Candidate c. The user kernel sees neighbours only (the query itself is
// cut out of its run by visit_part), by original index.
void visit(inout query_state s, uvec4 c) {
    vec3 pj = uintBitsToFloat(c.xyz);
    float d2 = distance2(s.p, pj);
    if (!(d2 <= s.radius2)) return;
    ++s.count;
    fenns_neighbor(s.user, s.index, c.w, s.p, pj, d2);
}

// Candidates in steps of VISIT_UNROLL: fewer loop iterations and more loads
// in flight.
#define VISIT_UNROLL 4u
void visit_run(inout query_state s, uint begin, uint end) {
    uint j = begin;
    for (; j + VISIT_UNROLL <= end; j += VISIT_UNROLL) {
        uvec4 c0 = load_sorted(j), c1 = load_sorted(j + 1u), c2 = load_sorted(j + 2u), c3 = load_sorted(j + 3u);
        visit(s, c0);
        visit(s, c1);
        visit(s, c2);
        visit(s, c3);
    }
    for (; j < end; ++j) visit(s, load_sorted(j));
}

// A run of candidates with the query's own sorted position cut out, so no
// candidate needs an index comparison and the kernel's branch is the
// distance test alone.
void visit_part(inout query_state s, uint begin, uint end) {
    if (s.self - begin < end - begin) {
        visit_run(s, begin, s.self);
        visit_run(s, s.self + 1u, end);
        return;
    }
    visit_run(s, begin, end);
}

// Loop iterations of a run of `len` candidates: its steps, its tail and
// the loop around it.
uint run_steps(uint len) { return len / VISIT_UNROLL + VISIT_UNROLL + 2u; }

// As within_loop_limit: each of the 27 cells' candidates as one run.
bool paper_within_loop_limit() {
    uint steps = LOOP_ALLOWANCE;
    for (uint k = 0u; k < 27u; ++k) {
        uvec2 r = cell_walk_run(k);
        steps += run_steps(r.y - r.x);
    }
    return steps <= pc.loop_limit;
}

uint search_query_paper(uint q) {
    query_state s = begin_query(q);
    if (pc.loop_limit != 0u && !paper_within_loop_limit()) {
        atomicAdd(prm.incomplete_queries, 1u);
        return 0u;
    }
    for (uint k = 0u; k < 27u; ++k) {
        uvec2 r = cell_walk_run(k);
        visit_part(s, r.x, r.y);
    }
    finish_kernel(s.id, s.index, s.p, s.count, s.user);
    return s.count;
}

void search_cell_paper(work_item w, uint q) {
    load_neighbour_keys(table_cell_of_key(w.cell));
    uint count = q < w.query_end ? search_query_paper(q) : 0u;
    add_total(count);
}

// counting and octant: the invocation's own particle and the cells its walk
// takes (cell_walk.glsl), in the build's order as above.
void search_particle_kernel() {
    uint q;
    uint kind = particle_work(q);
    if (kind == 2u) finish_invalid_kernel(q);
    // Whole subgroups from here on (the loop bound and the total's sums).
    bool live = kind == 1u && searchable(); // not searchable: a build recorded without all its passes
    if (kind == 1u && !live) atomicAdd(prm.incomplete_queries, 1u);
    query_state s;
    lane_walk walk;
    if (live) {
        s = begin_query(q);
        walk = lane_walk_of(s.p);
    }
    if (pc.loop_limit != 0u && !lane_walk_within_loop_limit(walk, live, VISIT_UNROLL, VISIT_UNROLL + 2u)) {
        if (live) atomicAdd(prm.incomplete_queries, 1u);
        live = false;
    }
    uint count = 0u;
    if (live) {
        for (uint i = 0u; i < lane_walk_cells(); ++i) {
            uvec2 r = lane_walk_run(walk, i);
            visit_part(s, r.x, r.y);
        }
        finish_kernel(s.id, s.index, s.p, s.count, s.user);
        count = s.count;
    }
    add_total(count);
}
