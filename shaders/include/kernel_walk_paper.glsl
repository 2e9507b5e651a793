// The query-driven walk that runs a user kernel on a fenns-paper build.
// That build leaves each coarse cell as a border and an inner section, so
// a query's candidates are its own cell and the border sections of its 26
// neighbours (a neighbour in another cell lies within the margin of that
// cell's face). Candidates come in the build's order, which fenns-paper's
// atomics vary from run to run: the neighbours are always the same, but a
// kernel's float sums may round differently (fenns gives them bit-identical).
// Needs local_grid_fenns.glsl (begin_query, visit_part, run_steps, s_neighbour_key).

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
