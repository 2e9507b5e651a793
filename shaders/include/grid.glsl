// The coarse grid and the fine local grid (paper §3.1-3.2). Needs USE_PARAMS.
//
// Exactness rests on three conservative choices made by grid_setup.comp:
// every coarse and fine cell edge is at least prm.margin (r plus a rounding
// allowance), so a neighbour lies at most one cell away; the border width is
// the margin too, so a neighbour in another coarse cell is always in that
// cell's border section; and indices are clamped, not rejected, so particles
// outside the domain stay next to their neighbours.

bool is_valid(vec3 p) { return !any(isnan(p)) && !any(isinf(p)); }

vec3 cell_coords(vec3 p) {
    return (p - vec3(prm.domain_min_x, prm.domain_min_y, prm.domain_min_z)) *
           vec3(prm.inv_cell_x, prm.inv_cell_y, prm.inv_cell_z);
}

uvec3 coarse_dims() { return uvec3(prm.dims_x, prm.dims_y, prm.dims_z); }

// Clamped coarse cell of a valid particle (clamping in float first, so huge
// coordinates never reach an undefined float->int conversion).
uvec3 coarse_cell(vec3 u) {
    return uvec3(clamp(floor(u), vec3(0.0), vec3(coarse_dims() - 1u)));
}

uint coarse_key(uvec3 c) { return (c.z * prm.dims_y + c.y) * prm.dims_x + c.x; }

// Border particles lie within the margin of a face of their cell; particles
// clamped in from outside are border particles as well (frac < 0 or > 1).
bool is_border(vec3 u, uvec3 c) {
    vec3 frac = u - vec3(c);
    vec3 b = vec3(prm.border_x, prm.border_y, prm.border_z);
    return any(lessThan(frac, b)) || any(greaterThan(frac, vec3(1.0) - b));
}

// Zone of a particle along each axis: 0 within the margin of the low face
// (or clamped in from below), 2 within the margin of the high face (or from
// above), 1 between. Cells are at least two margins wide when zones are in
// use, so no particle is near both faces.
uvec3 zone_of(vec3 u, uvec3 c) {
    vec3 frac = u - vec3(c);
    vec3 b = vec3(prm.border_x, prm.border_y, prm.border_z);
    return mix(mix(uvec3(1u), uvec3(2u), greaterThan(frac, vec3(1.0) - b)), uvec3(0u), lessThan(frac, b));
}

#ifdef USE_CELLS
// Key of any particle: its cell's section (border/inner or zone), or the
// last key for invalid ones.
uint particle_key(vec3 p) {
    if (!is_valid(p)) return section_keys() - 1u;
    vec3 u = cell_coords(p);
    uvec3 c = coarse_cell(u);
    uint section;
    if (pc.sections == FENNS_SECTIONS_PAPER) {
        section = is_border(u, c) ? 0u : 1u;
    } else {
        uvec3 z = zone_of(u, c);
        section = 9u * z.x + 3u * z.y + z.z;
    }
    return coarse_key(c) * pc.sections + section;
}
#endif

uvec3 cell_of_key(uint key) {
    return uvec3(key % prm.dims_x, (key / prm.dims_x) % prm.dims_y, key / (prm.dims_x * prm.dims_y));
}

// The local grid of coarse cell c covers the cell grown by the margin on
// every side.
vec3 local_origin(uvec3 c) {
    return vec3(prm.domain_min_x, prm.domain_min_y, prm.domain_min_z) +
           vec3(c) * vec3(prm.cell_x, prm.cell_y, prm.cell_z) - vec3(prm.margin);
}
uvec3 fine_dims() { return uvec3(prm.fine_x, prm.fine_y, prm.fine_z); }

uvec3 fine_cell(vec3 p, vec3 origin) {
    vec3 f = floor((p - origin) * vec3(prm.inv_fine_x, prm.inv_fine_y, prm.inv_fine_z));
    return uvec3(clamp(f, vec3(0.0), vec3(fine_dims() - 1u)));
}
uint fine_key(uvec3 f) { return (f.z * prm.fine_y + f.y) * prm.fine_x + f.x; }

// The float32 neighbour test of DESIGN.md §2; `precise` forbids fusing it
// into fma, so the GPU computes exactly the value the definition names.
bool within_radius(vec3 a, vec3 b) {
    precise vec3 d = b - a;
    precise float d2 = d.x * d.x + d.y * d.y + d.z * d.z;
    return d2 <= prm.radius2;
}
