// The coarse grid and the fine local grid (paper §3.1-3.2). Needs USE_PARAMS.
//
// Exactness rests on three conservative choices made by grid_setup.comp:
// every coarse and fine cell edge is at least prm.margin (r plus a rounding
// allowance), so a neighbour lies at most one cell away; the border width is
// the margin too, so a neighbour in another coarse cell is always in that
// cell's border section; and coordinates are clamped, not rejected, so
// particles outside the domain stay next to their neighbours.

bool is_valid(vec3 p) { return !any(isnan(p)) && !any(isinf(p)); }

// The coarse grid: cells of bounded size (a few margins) however large the
// domain. When it has more cells than the cell tables hold, it folds onto
// them: grid cell c lives in table cell c mod table_dims, like a spatial
// hash whose neighbouring buckets are neighbouring cells. Particles of cells
// that share a table cell only cost distance tests.
uvec3 coarse_dims() { return uvec3(prm.dims_x, prm.dims_y, prm.dims_z); }
uvec3 table_dims() { return uvec3(prm.table_x, prm.table_y, prm.table_z); }

// Grid coordinates of a valid particle, clamped into the grid (in float
// first, so huge coordinates never reach an undefined float->int
// conversion). Clamping moves no two particles further apart, so particles
// outside the domain stay next to their neighbours.
vec3 grid_coords(vec3 p) {
    vec3 u = (p - vec3(prm.domain_min_x, prm.domain_min_y, prm.domain_min_z)) *
             vec3(prm.inv_cell_x, prm.inv_cell_y, prm.inv_cell_z);
    return clamp(u, vec3(0.0), vec3(coarse_dims()));
}

uvec3 coarse_cell(vec3 u) { return min(uvec3(u), coarse_dims() - 1u); }

uint table_key(uvec3 t) { return (t.z * prm.table_y + t.y) * prm.table_x + t.x; }
uint coarse_key(uvec3 c) { return table_key(c % table_dims()); }

// Border particles lie within the margin of a face of their cell.
bool is_border(vec3 u, uvec3 c) {
    vec3 frac = u - vec3(c);
    vec3 b = vec3(prm.border_x, prm.border_y, prm.border_z);
    return any(lessThan(frac, b)) || any(greaterThan(frac, vec3(1.0) - b));
}

// fenns: a particle's fine cell within its coarse cell, F = prm.fine_split
// per axis (every fine edge is at least margin / prm.fine_reach).
uvec3 fine_in_cell(vec3 u, uvec3 c) {
    uint split = prm.fine_split;
    return min(uvec3((u - vec3(c)) * float(split)), uvec3(split - 1u));
}
uint fine_section(uvec3 f) { return (f.z * prm.fine_split + f.y) * prm.fine_split + f.x; }

#ifdef USE_CELLS
// Key of any particle: its table cell's section (border/inner or fine cell), or
// the last key for invalid ones.
uint particle_key(vec3 p) {
    if (!is_valid(p)) return section_keys() - 1u;
    vec3 u = grid_coords(p);
    uvec3 c = coarse_cell(u);
    uint section = pc.sections == FENNS_SECTIONS_PAPER ? (is_border(u, c) ? 0u : 1u) : fine_section(fine_in_cell(u, c));
    return coarse_key(c) * pc.sections + section;
}
#endif

// Table coordinates of a cell-table key.
uvec3 table_cell_of_key(uint key) {
    return uvec3(key % prm.table_x, (key / prm.table_x) % prm.table_y, key / (prm.table_x * prm.table_y));
}

// The local grid covers a searching cell grown by the margin on every side.
// A particle's place in it is found from its own grid cell, which lies at
// offset d (-1..1 per axis) from the searching one; this way particles of
// every grid cell folded onto one table cell share one local grid.
vec3 local_position(vec3 p, ivec3 d) {
    vec3 u = grid_coords(p);
    vec3 frac = u - vec3(coarse_cell(u));
    return (frac + vec3(d)) * vec3(prm.cell_x, prm.cell_y, prm.cell_z) + vec3(prm.margin);
}

// Whether a local position lies in the searching cell grown by the margin:
// nothing outside can be within r of a query inside.
bool in_local_box(vec3 l) {
    vec3 hi = vec3(prm.cell_x, prm.cell_y, prm.cell_z) + vec3(2.0 * prm.margin);
    return all(greaterThanEqual(l, vec3(0.0))) && all(lessThanEqual(l, hi));
}

uvec3 fine_dims() { return uvec3(prm.fine_x, prm.fine_y, prm.fine_z); }

uvec3 fine_cell(vec3 local) {
    vec3 f = floor(local * vec3(prm.inv_fine_x, prm.inv_fine_y, prm.inv_fine_z));
    return uvec3(clamp(f, vec3(0.0), vec3(fine_dims() - 1u)));
}
uint fine_key(uvec3 f) { return (f.z * prm.fine_y + f.y) * prm.fine_x + f.x; }

// The neighbour test's float32 value dx*dx+dy*dy+dz*dz, d = b - a (the
// definition in fenns.h); `precise` forbids fusing it into fma, so the GPU
// computes exactly the value the definition names.
float distance2(vec3 a, vec3 b) {
    precise vec3 d = b - a;
    precise float d2 = d.x * d.x + d.y * d.y + d.z * d.z;
    return d2;
}
// radius2: prm.radius2, read by the caller before its candidate loop (a
// params read inside the loop is repeated every candidate).
bool within_radius(vec3 a, vec3 b, float radius2) { return distance2(a, b) <= radius2; }
