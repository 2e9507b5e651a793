// The query-driven walk that runs a user kernel on a fenns-paper build.
// That build leaves each coarse cell as a border and an inner section, so
// a query's candidates are its own cell and the border sections of its 26
// neighbours (a neighbour in another cell lies within the margin of that
// cell's face). Candidates come in the build's order, which fenns-paper's
// atomics vary from run to run: the neighbours are always the same, but a
// kernel's float sums may round differently (fenns gives them bit-identical).
// Needs local_grid_fenns.glsl (begin_query, s_neighbour_key, LOOP_ALLOWANCE).

// Candidate c. The user kernel sees neighbours only (the query itself is
// cut out of its run by visit_part), by original index.
void visit(inout query_state s, uvec4 c) {
    vec3 pj = uintBitsToFloat(c.xyz);
    float d2 = distance2(s.p, pj);
    if (!(d2 <= prm.radius2)) return;
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

// Where the k-th of the 27 cells' candidates lie in the sorted particles.
uvec2 paper_candidates(uint k) {
    uint key = s_neighbour_key[k];
    if (key == NO_CELL) return uvec2(0u);
    return uvec2(cell_begin(key), k == 13u ? cell_end(key) : KEY_START(key * pc.sections + 1u));
}

// As within_loop_limit: each of the 27 cells' candidates as one run.
bool paper_within_loop_limit() {
    uint steps = LOOP_ALLOWANCE;
    for (uint k = 0u; k < 27u; ++k) {
        uvec2 r = paper_candidates(k);
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
        uvec2 r = paper_candidates(k);
        visit_part(s, r.x, r.y);
    }
    finish_kernel(s.id, s.index, s.p, s.count, s.user);
    return s.count;
}

void search_cell_paper(work_item w, uint q) {
    uvec3 center = table_cell_of_key(w.cell);
    uint t = gl_LocalInvocationIndex;
    if (t < 27u) {
        uint key;
        s_neighbour_key[t] = neighbour_cell(center, t, key) ? key : NO_CELL;
    }
    barrier();
    uint count = q < w.query_end ? search_query_paper(q) : 0u;
    add_total(count);
}
