// The grid of a build (grid_setup.comp, and density.comp once more with
// the density its sample saw): the coarse and fine grids from the domain,
// the radius, the particle count and the plan (see grid.glsl for why every
// edge is at least the margin). pc.mode: the particles a fenns coarse cell
// aims at; with border/inner sections (fenns-paper, counting, octant) the
// smallest cell edge in margins. With pc.point_set the grid is another
// build's (fenns_build_info.grid_source), taken whole where this
// pipeline's plan can hold it. Needs USE_PARAMS and the grid source's
// binding. setup_grid is called by every invocation of one workgroup
// (uniform control flow): its two searches test many candidates at once;
// invocation 0 writes the results.
#ifndef FENNS_REACH2_DENSITY // particles per margin^3 from which fenns tries half-margin fine cells
#define FENNS_REACH2_DENSITY 4.0
#endif
// The widest fine cell of a sparse set, in margins, and the particles the
// average particle may see in a fine cell past two margins. (H100, fine
// cells up to 8 margins from the average density alone: s1 4M r=0.2 build
// + counts 1.05 -> 0.89 ms, s3 r=0.3 1.04 -> 0.85, but cluster 4M r=0.2
// 1.18 -> 2.09. From the seen density, H200, same run: s1 0.99 -> 0.86,
// s3 0.98 -> 0.85, cluster 1.12 -> 1.13 with 2 seen a cell; 1.5 gave s3
// 0.90, 3 and 6 cluster 1.32 and 1.54.)
#define FENNS_FINE_CAP_SPARSE 8.0
// A set is crowded where its particles see this many times the average
// density (the density pass's sample), and its fine cells then follow the
// density they see.
#define FENNS_CROWDED_SEEN 1.5
#ifndef FENNS_SEEN_PER_CELL
#define FENNS_SEEN_PER_CELL 2.0
#endif
// The density pass's histogram: bins of this many margins (the widest
// fine cell's scale; fewer across a thinner domain), hashed into the
// slots the scratch holds, and a sample of at most FENNS_DENSITY_SAMPLES
// particles.
#define FENNS_DENSITY_BIN_MARGINS FENNS_FINE_CAP_SPARSE
#define FENNS_DENSITY_AXIS_MAX (1u << 20u) // bin coordinates beyond are clamped (huge boxes)
#define FENNS_DENSITY_SAMPLES (1u << 16u)
#define FENNS_DENSITY_PER_INVOCATION 4u // samples (CPU drivers pay per workgroup)

float key_value(uint k) {
    return uintBitsToFloat((k & 0x80000000u) != 0u ? (k & 0x7FFFFFFFu) : ~k);
}

// Coarse dimensions for cell edge h, each axis capped.
uvec3 dims_for(vec3 extent, float h) {
    return uvec3(clamp(floor(extent / h), vec3(1.0), vec3(float(FENNS_MAX_COARSE_DIM))));
}
// Whether d.x * d.y * d.z <= the cell capacity, compared by division so no
// product overflows (each factor may be up to 2^20).
bool fits(uvec3 d) { return d.y <= pc.cell_capacity / d.x && d.z <= pc.cell_capacity / (d.x * d.y); }

// Whether the grid source holds a grid this plan can use (point sets are
// fenns' only): 1..F fine cells per coarse edge, a table that fits the cell
// tables and a local grid that fits shared memory. A source never built, or
// built by a pipeline of another plan, fails it.
bool source_fits() {
    uvec3 dims = uvec3(source.dims_x, source.dims_y, source.dims_z);
    uvec3 table = uvec3(source.table_x, source.table_y, source.table_z);
    uvec3 fine = uvec3(source.fine_x, source.fine_y, source.fine_z);
    bool fenns_grid = pc.sections == FENNS_SECTIONS_FINE && source.fine_split >= 1u &&
                      source.fine_split <= FENNS_FINE_SPLIT_MAX &&
                      all(equal(fine, uvec3(source.fine_split + 2u * source.fine_reach)));
    return fenns_grid && all(greaterThanEqual(table, uvec3(1u))) && all(lessThanEqual(table, dims)) && fits(table) &&
           all(greaterThanEqual(fine, uvec3(1u))) && all(lessThanEqual(fine, uvec3(pc.fine_max))) &&
           source.fine_reach >= 1u && source.fine_reach <= pc.fine_reach &&
           source.fine_split >= 2u * source.fine_reach && source.margin > 0.0;
}

// Takes the source's grid: every field of the grid and the local grid, and
// its radius (the searches of both builds then agree on the neighbour test).
void adopt_source() {
    prm.fine_reach = source.fine_reach;
    prm.fine_split = source.fine_split;
    prm.dims_x = source.dims_x; prm.dims_y = source.dims_y; prm.dims_z = source.dims_z;
    prm.table_x = source.table_x; prm.table_y = source.table_y; prm.table_z = source.table_z;
    prm.fine_x = source.fine_x; prm.fine_y = source.fine_y; prm.fine_z = source.fine_z;
    prm.domain_min_x = source.domain_min_x; prm.domain_min_y = source.domain_min_y; prm.domain_min_z = source.domain_min_z;
    prm.domain_max_x = source.domain_max_x; prm.domain_max_y = source.domain_max_y; prm.domain_max_z = source.domain_max_z;
    prm.cell_x = source.cell_x; prm.cell_y = source.cell_y; prm.cell_z = source.cell_z;
    prm.inv_cell_x = source.inv_cell_x; prm.inv_cell_y = source.inv_cell_y; prm.inv_cell_z = source.inv_cell_z;
    prm.border_x = source.border_x; prm.border_y = source.border_y; prm.border_z = source.border_z;
    prm.inv_fine_x = source.inv_fine_x; prm.inv_fine_y = source.inv_fine_y; prm.inv_fine_z = source.inv_fine_z;
    prm.margin = source.margin;
    prm.radius2 = source.radius2;
    prm.radius = source.radius;
}

// Asks for the density pass (its dispatch and histogram; the clear left
// its sums and slots at zero): bins FENNS_DENSITY_BIN_MARGINS margins wide
// (or the domain's width, where it is thinner), every stride-th particle.
void ask_density(vec3 extent, float margin, uint n) {
    vec3 occupied = max(extent, vec3(margin));
    uvec3 bins = uvec3(clamp(floor(occupied / (FENNS_DENSITY_BIN_MARGINS * margin)), vec3(1.0),
                             vec3(float(FENNS_DENSITY_AXIS_MAX))));
    uint stride = (n + FENNS_DENSITY_SAMPLES - 1u) / FENNS_DENSITY_SAMPLES;
    uint sampled = stride == 0u ? 0u : (n + stride - 1u) / stride;
    prm.density_bins_x = bins.x; prm.density_bins_y = bins.y; prm.density_bins_z = bins.z;
    prm.density_stride = max(stride, 1u);
    uint per_group = gl_WorkGroupSize.x * FENNS_DENSITY_PER_INVOCATION;
    prm.density_dispatch_x = (sampled + per_group - 1u) / per_group;
    prm.density_dispatch_y = 1u;
    prm.density_dispatch_z = 1u;
}

// The edge of a density bin, from the grid setup's domain and margin.
vec3 density_bin_edge() {
    vec3 dmin = vec3(prm.domain_min_x, prm.domain_min_y, prm.domain_min_z);
    vec3 dmax = vec3(prm.domain_max_x, prm.domain_max_y, prm.domain_max_z);
    vec3 extent = min(max(dmax - dmin, vec3(0.0)), vec3(FENNS_MAX_EXTENT));
    return max(extent, vec3(prm.margin)) / vec3(prm.density_bins_x, prm.density_bins_y, prm.density_bins_z);
}

bool grid_writer() { return gl_LocalInvocationIndex == 0u; }

// The searches' shared state: a round's tested midpoints and outcomes.
shared float s_grow_mid[FENNS_MAX_WORKGROUP];
shared uint s_grow_state[FENNS_MAX_WORKGROUP]; // GROW_*
shared uint s_table_side;
#define GROW_LOWER 0u // the grid does not fit: the edge grows past the midpoint
#define GROW_UPPER 1u // it fits: the edge is the midpoint or less
#define GROW_STOP 2u  // the midpoint is lo or hi (adjacent floats): nothing changes from here on

// The growth bisection of the coarse edge between lo (the grid does not fit
// the cell tables) and hi (it fits), at most 64 steps, stopping where the
// bounds are adjacent floats -- exactly the serial bisection's steps and
// result (fenns_plan_coarse_dims runs it on the CPU), but `depth` steps a
// round: each invocation 1 .. 2^depth - 1 tests the midpoint of one node of
// the round's tree of possible steps (node k's children: 2k where the grid
// fits, 2k + 1 where it does not), whose bounds it gets by taking the
// steps its path names; then every invocation follows the outcomes from
// the root. (One invocation stepping 64 times took about 0.2 us a step on
// an H100, in every sparse build and twice where the density pass runs.)
void grow_bisection(vec3 extent, inout float lo, inout float hi) {
    uint t = gl_LocalInvocationIndex, depth = uint(findMSB(gl_WorkGroupSize.x));
    for (uint taken = 0u; taken < 64u; taken += depth) {
        if (t >= 1u && t < (1u << depth)) {
            float a = lo, b = hi;
            for (int bit = findMSB(t) - 1; bit >= 0; --bit) {
                float m = 0.5 * (a + b);
                if (((t >> uint(bit)) & 1u) == 0u) b = m; else a = m;
            }
            float mid = 0.5 * (a + b);
            s_grow_mid[t] = mid;
            s_grow_state[t] = mid == a || mid == b ? GROW_STOP : fits(dims_for(extent, mid)) ? GROW_UPPER : GROW_LOWER;
        }
        barrier();
        bool stop = false;
        uint k = 1u;
        for (uint d = 0u; d < depth && taken + d < 64u; ++d) {
            uint state = s_grow_state[k];
            if (state == GROW_STOP) {
                stop = true;
                break;
            }
            if (state == GROW_UPPER) hi = s_grow_mid[k]; else lo = s_grow_mid[k];
            k = 2u * k + (state == GROW_UPPER ? 0u : 1u);
        }
        barrier(); // the next round's tests overwrite what this one read
        if (stop) break;
    }
}

// The largest t in [1, FENNS_MAX_COARSE_DIM) for which min(dims, t) per
// axis fits the cell tables (t = 1 always does; the serial bisection's
// result), as a search testing a workgroup's worth of candidates a round.
#include "kary_search.glsl"
uint table_side(uvec3 dims) {
    uint lo = 1u, hi = FENNS_MAX_COARSE_DIM;
    KARY_SEARCH_LARGEST(lo, hi, s_table_side, probe, fits(min(dims, uvec3(probe))))
    return lo;
}

// requested: the particles the build was asked for (the caller's GPU count,
// else n); seen_density: particles per unit volume around the average
// particle (the density pass's), or 0 where not known.
void setup_grid(uint requested, float seen_density) {
    uint n = min(requested, pc.n), particle_count_value = n;
    if (grid_writer()) {
        prm.particle_count = n;
        prm.requested_count = requested;
    }
    if (pc.point_set != 0u && source_fits()) {
        if (grid_writer()) adopt_source();
        return;
    }
    // (A grid source this plan cannot use: the build sizes its own grid, as
    // exact as any; a search between it and the source's build then finds
    // the grids differ and says so.)
    vec3 dmin, dmax;
    if (pc.user_domain != 0u) {
        dmin = vec3(pc.domain_min_x, pc.domain_min_y, pc.domain_min_z);
        dmax = vec3(pc.domain_max_x, pc.domain_max_y, pc.domain_max_z);
    } else if (prm.key_min_x == 0xFFFFFFFFu) { // no valid particle
        dmin = vec3(0.0);
        dmax = vec3(1.0);
    } else {
        dmin = vec3(key_value(prm.key_min_x), key_value(prm.key_min_y), key_value(prm.key_min_z));
        dmax = vec3(key_value(prm.key_max_x), key_value(prm.key_max_y), key_value(prm.key_max_z));
    }
    vec3 extent = min(max(dmax - dmin, vec3(0.0)), vec3(FENNS_MAX_EXTENT)); // inf for a +-3e38 box
    float r = pc.radius;
    // Allowance for float rounding of coordinates relative to the grid: a
    // relative part for r and a few ulps of the largest coordinate and cell
    // coordinate in play. A larger margin only adds border particles.
    float largest = max(max(max(abs(dmin.x), abs(dmax.x)), max(abs(dmin.y), abs(dmax.y))),
                        max(max(abs(dmin.z), abs(dmax.z)), max(extent.x, max(extent.y, extent.z))));
    float margin = min(r * (1.0 + 1.0 / 1024.0) + largest * (1.0 / 1048576.0), FENNS_MAX_EXTENT);

    vec3 occupied = max(extent, vec3(margin));
    // pc.count: the particles the grid is sized for, when the caller names
    // more than this build holds (a static set lending its grid to a denser one).
    float density = float(max(n, pc.count)) / (occupied.x * occupied.y * occupied.z);
    float h;       // smallest coarse cell edge
    float widest;  // the bound that keeps the search's cost proportional to its
                   // output: a cell never outgrows what its local grid resolves,
                   // whatever the domain (a far outlier, a huge box)
    uint reach = 1u, split = 1u;
    if (pc.sections == FENNS_SECTIONS_PAPER) {
        // The paper's rule: the largest grid that fits the cell tables, of
        // cells at least one margin wide (octant: two, Morillo's 2R).
        h = float(max(pc.mode, 1u)) * margin;
        // grid_size: the caller's cell count along the longest axis (the
        // paper's baseline grids), never below the method's own edge. The
        // edge is a hair (2^-20) under the axis over grid_size, so that
        // dims_for's division gives grid_size however it rounds: NVIDIA's
        // approximate division made 1.2 / (1.2 / 6) 5.99999, 5 cells
        // (test_per_frame). fenns_plan_coarse_dims does the same.
        if (pc.grid_size != 0u)
            h = max(h, max(extent.x, max(extent.y, extent.z)) / float(pc.grid_size) * (1.0 - 1.0 / 1048576.0));
        // Half-margin fine cells pay off only where a margin^3 holds several particles.
        reach = density * margin * margin * margin >= 4.0 ? pc.fine_reach : 1u;
        widest = max(h, (float(pc.fine_max) / float(reach) - 2.0) * margin);
    } else {
        // fenns: fine cells of at least margin / reach (a query looks `reach`
        // cells out), and not much finer than the particles are spaced
        // (about 1.5 a cell), so a query tests few empty cells; a half-margin
        // grid only where it beats full-margin cells' 3^3 stencil.
        reach = density * margin * margin * margin >= FENNS_REACH2_DENSITY ? min(pc.fine_reach, 2u) : 1u;
        // Sparse sets: the spacing outgrows two margins. Fine cells that wide
        // would, in a set whose particles crowd together, hold the crowds'
        // many; so they grow past two margins only while the average
        // particle would see at most FENNS_SEEN_PER_CELL in one (the density
        // a sample's histogram saw: density.comp, which runs this again with
        // it), and to FENNS_FINE_CAP_SPARSE margins at most. Wider cells make
        // fewer coarse cells, which the table then holds without folding
        // (sph50-sized tables fold a sparse 4M set's 2-margin grid 21 times
        // over: every query tests the particles of 21 places).
        float spacing = pow(FENNS_FINE_SPACING_PARTICLES / max(density, 1e-30), 1.0 / 3.0);
        float cap = 2.0 * margin;
        bool sparse = spacing > cap; // by the average density
        // Crowded sets (clusters in a large box) whose average spacing is
        // between one and two margins: where the particles see
        // FENNS_CROWDED_SEEN times the average density or more, fine cells
        // as their own spacing (H100, cluster 4M r=1: build + counts 2.59
        // -> 2.05 ms; uniform sets, which see about the average, keep
        // theirs). Past two margins the cap below does it (there a bin holds
        // few particles, and the particle itself, which the seen density
        // counts, makes even a uniform set look crowded).
        if (!sparse && seen_density > FENNS_CROWDED_SEEN * density)
            spacing = min(spacing, pow(FENNS_FINE_SPACING_PARTICLES / seen_density, 1.0 / 3.0));
        if (seen_density > 0.0)
            cap = clamp(pow(FENNS_SEEN_PER_CELL / seen_density, 1.0 / 3.0), cap, FENNS_FINE_CAP_SPARSE * margin);
        else if (spacing > margin && pc.count_in != 0u && pc.point_set == 0u && grid_writer()) {
            // Fine cells past a margin: how crowded is the set? The pass
            // sizes the grid again only where what it sees changes it
            // (the cap past two margins, the spacing of crowds below):
            // elsewhere this grid stands, and the pass costs its sample
            // only (H100, s1 4M r=1: 0.023 -> 0.018 ms).
            ask_density(extent, margin, particle_count_value);
            // (Below it the seen density's cap passes two margins.)
            prm.density_resize_below = sparse ? FENNS_SEEN_PER_CELL / (cap * cap * cap) : 0.0;
            prm.density_resize_above = sparse ? 3.0e38 : FENNS_CROWDED_SEEN * density;
        }
        float fine = max(margin / float(reach), min(spacing, cap));
        if (reach == 2u && fine > 0.6 * margin) {
            reach = 1u;
            fine = max(fine, margin);
        }
        // F fine cells per coarse axis, so a coarse cell holds about pc.mode
        // particles (one search workgroup); F >= 2 reach keeps every row of
        // a query's stencil within two adjacent coarse cells, so a row is
        // at most two runs of sorted particles (local_grid_fenns.glsl's
        // stencil_row). Only sets of more than about 9 particles a
        // half-margin cell would take fewer: their coarse cells grow, their
        // fine cells and stencils stay.
        float f = round(pow(float(pc.mode) / max(density * fine * fine * fine, 1e-30), 1.0 / 3.0));
        split = uint(clamp(f, float(2u * reach), float(FENNS_FINE_SPLIT_MAX)));
        h = float(split) * fine;
        widest = float(FENNS_FINE_SPLIT_MAX) * cap;
    }
    // Grown until the grid fits the cell tables, but never past the bound;
    // a grid still too large folds onto the tables.
    if (!fits(dims_for(extent, h))) {
        float lo = h, hi = min(max(max(extent.x, max(extent.y, extent.z)), h) * 2.0, 2.0 * FENNS_MAX_EXTENT);
        grow_bisection(extent, lo, hi);
        h = max(h, min(hi, widest));
    }
    uvec3 dims = dims_for(extent, h);
    vec3 cell = max(extent / vec3(dims), vec3(h));
    vec3 inv_cell = vec3(1.0) / cell;
    if (pc.sections != FENNS_SECTIONS_PAPER && min(cell.x, min(cell.y, cell.z)) >= float(split) * margin)
        reach = 1u; // fine cells grew to a margin or more: the 3^3 stencil suffices

    // Table: the grid itself when it fits, else min(dims, t) per axis for the
    // largest t that fits (t >= 5: plans hold at least 125 cells, so a folded axis has at
    // least 3 table cells and its -1, 0, +1 neighbours stay distinct).
    uvec3 table = dims;
    if (!fits(dims)) table = min(dims, uvec3(table_side(dims)));

    uvec3 fine;
    vec3 inv_fine;
    if (pc.sections == FENNS_SECTIONS_PAPER) {
        // The paper's local grid: the cell grown by the margin, in fine cells
        // at least margin / reach wide.
        vec3 local_extent = cell + vec3(2.0 * margin);
        float fine_min = margin / float(reach);
        fine = uvec3(clamp(floor(local_extent / (fine_min * (1.0 + 1.0 / 65536.0))), vec3(1.0),
                           vec3(float(pc.fine_max))));
        inv_fine = vec3(fine) / local_extent;
    } else {
        // fenns: the cell's own F^3 fine cells and `reach` layers of its
        // neighbours' on every side.
        fine = uvec3(split + 2u * reach);
        inv_fine = vec3(float(split)); // fine cells per coarse cell edge
    }
    if (!grid_writer()) return;
    prm.fine_reach = reach;
    prm.fine_split = split;
    prm.dims_x = dims.x; prm.dims_y = dims.y; prm.dims_z = dims.z;
    prm.table_x = table.x; prm.table_y = table.y; prm.table_z = table.z;
    prm.fine_x = fine.x; prm.fine_y = fine.y; prm.fine_z = fine.z;
    prm.domain_min_x = dmin.x; prm.domain_min_y = dmin.y; prm.domain_min_z = dmin.z;
    prm.domain_max_x = dmax.x; prm.domain_max_y = dmax.y; prm.domain_max_z = dmax.z;
    prm.cell_x = cell.x; prm.cell_y = cell.y; prm.cell_z = cell.z;
    prm.inv_cell_x = inv_cell.x; prm.inv_cell_y = inv_cell.y; prm.inv_cell_z = inv_cell.z;
    prm.border_x = margin * inv_cell.x; prm.border_y = margin * inv_cell.y; prm.border_z = margin * inv_cell.z;
    prm.inv_fine_x = inv_fine.x; prm.inv_fine_y = inv_fine.y; prm.inv_fine_z = inv_fine.z;
    prm.margin = margin;
    prm.radius2 = r * r;
    prm.radius = r;
}
