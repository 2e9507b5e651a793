// The 27-cell walk of a build that leaves each coarse cell as a border and
// an inner section (fenns-paper, counting): a query's candidates are its own
// cell and the border sections of its 26 neighbours (a neighbour in another
// cell lies within the margin of that cell's face; with counting's cells of
// one margin every particle is a border particle). Needs s_neighbour_key and
// NO_CELL (local_grid_fenns.glsl).

// The table keys of the workgroup's cell and its 26 neighbours.
void load_neighbour_keys(uvec3 center) {
    uint t = gl_LocalInvocationIndex;
    if (t < 27u) {
        uint key;
        s_neighbour_key[t] = neighbour_cell(center, t, key) ? key : NO_CELL;
    }
    barrier();
}

// Where the k-th of the 27 cells' candidates lie in the sorted particles.
uvec2 cell_walk_run(uint k) {
    uint key = s_neighbour_key[k];
    if (key == NO_CELL) return uvec2(0u);
    return uvec2(cell_begin(key), k == 13u ? cell_end(key) : KEY_START(key * pc.sections + 1u));
}

// counting: one invocation per sorted particle (a uniform grid leaves about
// one particle a cell, so workgroups per cell would idle), each walking the
// 27 cells around its own (search_work.comp lays the work out that way).
// Needs LOOP_ALLOWANCE.

// The sorted position q this invocation owns, and its kind: 0 none, 1 a
// valid query, 2 an invalid particle (no neighbours; finished as such).
uint particle_work(out uint q) {
    q = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint invalid = cell_begin(pc.cell_capacity);
    return q < invalid ? 1u : q < cell_end(pc.cell_capacity) ? 2u : 0u;
}

// The table cell of a valid particle, as particle_key placed it.
uvec3 table_cell_of(vec3 p) { return coarse_cell(grid_coords(p)) % table_dims(); }

// The k-th of the 27 cells around `center`: where its candidates lie.
uvec2 lane_cell_run(uvec3 center, uint k) {
    uint key;
    if (!neighbour_cell(center, k, key)) return uvec2(0u);
    return uvec2(cell_begin(key), k == 13u ? cell_end(key) : KEY_START(key * pc.sections + 1u));
}

// Whether every lane's walk stays within the driver's loop limit: lanes of
// a subgroup share llvmpipe's loop counter, so each cell's loop costs its
// longest lane's steps (runs of `len` candidates take len / step + extra).
// Called by every lane in uniform control flow; `live` lanes walk.
bool lane_walk_within_loop_limit(uvec3 center, bool live, uint step, uint extra) {
    uint steps = LOOP_ALLOWANCE;
    for (uint k = 0u; k < 27u; ++k) {
        uvec2 r = live ? lane_cell_run(center, k) : uvec2(0u);
        steps += subgroupMax((r.y - r.x) / step) + extra;
    }
    return steps <= pc.loop_limit;
}
