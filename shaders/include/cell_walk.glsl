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

// counting and octant: one invocation per sorted particle (a uniform grid
// leaves a few particles a cell, so workgroups per cell would idle), each
// walking the cells around its own (search_work.comp lays the work out that
// way). Needs LOOP_ALLOWANCE and WALK_OCTANT (true for the octant walk).

// The sorted position q this invocation owns, and its kind: 0 none, 1 a
// valid query, 2 an invalid particle (no neighbours; finished as such).
uint particle_work(out uint q) {
    q = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint invalid = cell_begin(pc.cell_capacity);
    return q < invalid ? 1u : q < cell_end(pc.cell_capacity) ? 2u : 0u;
}

// The cells one particle walks: its table cell and, per axis, the offsets
// lo..hi of the cells around it (counting: -1..1, 27 cells). Octant
// (Morillo et al.): cells of two margins, split by secant planes at their
// middle into octants; a particle in the lower half of an axis walks the
// cell below and its own, in the upper half its own and the one above, and
// exactly on the secant its own alone (the paper's intersection case): the
// margin exceeds r, so its sphere stays inside the cell along that axis.
struct lane_walk {
    uvec3 center;
    ivec3 lo, hi;
};

lane_walk lane_walk_of(vec3 p) {
    vec3 u = grid_coords(p);
    uvec3 c = coarse_cell(u);
    lane_walk w;
    w.center = c % table_dims();
    w.lo = ivec3(-1);
    w.hi = ivec3(1);
    if (WALK_OCTANT) {
        vec3 frac = u - vec3(c);
        w.lo = -ivec3(lessThan(frac, vec3(0.5)));
        w.hi = ivec3(greaterThan(frac, vec3(0.5)));
    }
    return w;
}

// Cells a walk steps through (a bound the same for every lane).
uint lane_walk_cells() { return WALK_OCTANT ? 8u : 27u; }

// The i-th cell of the walk: where its candidates lie (empty outside the
// grid, and octant's steps beyond hi). The own cell whole, the others'
// border sections (all their particles but those at the exact middle of an
// octant cell, which are a margin from every face).
uvec2 lane_walk_run(lane_walk w, uint i) {
    ivec3 d = WALK_OCTANT ? w.lo + ivec3(i & 1u, (i >> 1u) & 1u, i >> 2u) : neighbour_offset(i);
    if (any(greaterThan(d, w.hi))) return uvec2(0u);
    uint k = uint((d.z + 1) * 9 + (d.y + 1) * 3 + (d.x + 1)), key;
    if (!neighbour_cell(w.center, k, key)) return uvec2(0u);
    return uvec2(cell_begin(key), k == 13u ? cell_end(key) : KEY_START(key * pc.sections + 1u));
}

// Whether every lane's walk stays within the driver's loop limit: lanes of
// a subgroup share llvmpipe's loop counter, so each cell's loop costs its
// longest lane's steps (runs of `len` candidates take len / step + extra).
// Called by every lane in uniform control flow; `live` lanes walk.
bool lane_walk_within_loop_limit(lane_walk w, bool live, uint step, uint extra) {
    uint steps = LOOP_ALLOWANCE;
    for (uint i = 0u; i < lane_walk_cells(); ++i) {
        uvec2 r = live ? lane_walk_run(w, i) : uvec2(0u);
        steps += subgroupMax((r.y - r.x) / step) + extra;
    }
    return steps <= pc.loop_limit;
}
