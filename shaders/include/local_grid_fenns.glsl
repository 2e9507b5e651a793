// The query-driven loop of search_fenns.comp (and search_kernel.comp's).
//
// The build sorted every coarse cell by fine cell (F per axis, x fastest)
// and, within a fine cell, by original index. So the local grid of a
// searching cell -- its own F^3 fine cells and `reach` layers of fine cells
// of each neighbour on every side (the neighbours' border) -- needs no
// binning: every local cell is one section of one cell of the table. The
// workgroup writes the local grid into shared memory (where each local
// cell's particles lie in the sorted array), and
// each invocation walks its query's stencil row by row: along x a row of
// 2*reach+1 local cells crosses at most three coarse cells, each part one
// contiguous run of sorted particles, read through the cache (on an H100
// this beats copying the candidates into shared memory: 12 vs 20 ms for 4M
// particles, measured). Rows are trimmed to the query's sphere and each is
// walked as one loop over its runs (see stencil_row). The visiting order
// (z, y, then x and original index) is fixed, so every list comes out in
// the same order on every run.
//
// Point sets: the candidates may be another build's particles (pc.point_set),
// built on the same grid, so a cell key means the same cell in both builds:
// the queries and work items come from this build, the local grid and the
// candidates from the other (candidate_cells, load_candidate). A query then
// has no "self" to skip.

// The local grid, in one of two forms. Local row (y, z) is row
// z * local_dim + y, its cells x = 0 .. local_dim - 1.
//
// By row (LOCAL_GRID_BY_ROW: the counts search, search_fenns_count.comp):
// a stencil row is two loads and a vector, where by cell it is six loads
// and the runs' bounds. H200, against by cell (run PE): counts sph50 4M
// 1.339 -> 1.257 ms, 16M 5.304 -> 4.967, 1M 0.366 -> 0.353, 131072 0.089
// -> 0.081, s1 4M r=1 0.450 -> 0.424, r=0.2 0.289 -> 0.268, s3 r=0.3 0.277
// -> 0.259, dam the same, but cluster 4M 1.480 -> 1.526 (the driver makes
// it 32 registers, 8 workgroups a multiprocessor, where by cell it took
// 39). The list fill and the kernel searches keep the cells: by row the
// driver gave them fewer registers and spilled some into shared memory
// (the fill: sph50 16M 12.73 -> 13.89 ms, run PC; `fenns-sph`'s force
// kernel 62 -> 48 registers, and `fenns-sph` 1.83 -> 1.94 ms a step, run
// PF), though the bench's density kernel ran 8% faster. Each form is a module of its own:
// a driver allocates every shared array the module's code uses, even code
// its specialization leaves dead, and both in one took the counts search's
// registers up and its speed down (run PD).
#ifdef FENNS_SEARCH_COUNTS
#define LOCAL_GRID_BY_ROW
#endif
#ifdef LOCAL_GRID_BY_ROW
// Each row numbers its candidates as one sequence, x then sorted order, so
// a query's part of a row (cells x0 .. x1) is one range of numbers, read in
// two loads:
// s_local_sequence[row][x] is cell x's first number, entry x + 1 one past
// its last. s_local_rows[row] = (T1, T2, sh0, sh2) maps a number m to its
// sorted position: m + sh0 below T1 (the left coarse cell's part), m -
// ROW_BIAS below T2 (the own column's part), else m + sh2 (the right
// one's). The own part is numbered by sorted position + ROW_BIAS, the left
// part right before it and the right part right after, so each part's
// numbers follow from its own sections and the own part's ends and three
// invocations write a row with no wait on each other. ROW_BIAS keeps every
// number within 32 bits: sorted positions are below 2^29 (the u64 offsets'
// binding bounds n; fenns_plan_make), so numbers lie in [2^30 - 2^29,
// 2^30 + 2^30).
shared uint s_local_sequence[LOCAL_ROWS][FENNS_LOCAL_DIM_MAX + 1];
shared uvec4 s_local_rows[LOCAL_ROWS];
#define ROW_BIAS 0x40000000u
#else
// By cell (the list fill and the kernel searches): where each local
// cell's particles start and end in the sorted array.
shared uint s_local_start[LOCAL_ROWS][FENNS_LOCAL_DIM_MAX];
shared uint s_local_end[LOCAL_ROWS][FENNS_LOCAL_DIM_MAX];
#endif
shared uint s_neighbour_key[27];         // table key of each neighbour cell, or NO_CELL
#define NO_CELL 0xFFFFFFFFu

// COUNT_ONLY 1: the pipeline variant for counts, with no list code; it
// counts the query itself (always within r of itself) and subtracts it once.
layout(constant_id = 4) const uint COUNT_ONLY = 0;

// 1 where the driver stops an invocation after pc.loop_limit loop
// iterations (llvmpipe): only there is each query's walk bounded first
// (within_loop_limit). Compiled out elsewhere, where it had cost the
// searches a branch on the push constant and code they never ran (H100,
// run GL: counts s1 4M r=1 0.537 -> 0.530 ms, s1 r=0.2 0.311 -> 0.310,
// sph50 4M 1.386 -> 1.384, 16M 5.502 -> 5.497; kernel s1 r=1 0.584 ->
// 0.568, sph50 4M 1.477 -> 1.471, dam 1.056 -> 1.051; CSR up to 0.7%).
layout(constant_id = 7) const uint LOOP_LIMITED = 0;

// 1 or 2: the variant of the search for builds of F = FENNS_FINE_SPLIT_MAX
// fine cells a coarse edge and reach FIXED_REACH (local grids of 7^3 and
// 9^3 cells: what grid_sizing.glsl gives every set but the densest, whose
// fine cells it clamps), dispatched for those builds only (search_work's
// local7_dispatch and local9_dispatch), the kernel search's too. With F
// and reach constants the driver lays out the stencil's rows and their
// runs with fixed bounds; it takes a pipeline of its own (one copy of the
// walk per grid inlined into one pipeline kept half the gain and moved the
// others by code shape), and either constant alone kept little of it.
// H100, 4M particles, against one general search (run JG, two barriers a
// search pass included): counts
// sph50 1.386 -> 1.347 ms, 16M 5.501 -> 5.331, dam 0.971 -> 0.952, cluster
// 1.533 -> 1.500, s1 r=0.2 0.311 -> 0.301, s3 r=0.3 0.300 -> 0.286 (s1 r=1
// 0.531 -> 0.536: the barriers); CSR s1 r=1 1.272 -> 1.233, r=0.2 0.582 ->
// 0.550, dam 2.706 -> 2.608, cluster 4.413 -> 4.310, sph50 4.323 -> 4.301;
// kernel searches (run JH) sph50 1.466 -> 1.432, 16M 5.844 -> 5.690, dam
// 1.050 -> 1.042, but s1 r=1 0.568 -> 0.577, r=0.2 0.360 -> 0.364 (its
// walk, two runs a row, gains little at reach 1); fenns-sph 4M 7.29 ->
// 7.18 ms a step. 0: the general search, reach and F read from the build.
layout(constant_id = 8) const uint FIXED_REACH = 0;

// The invocations a query's walk is split over, each walking every
// QUERY_LANES-th row of its stencil: the counts search's general variant,
// the list fill's (each part writing from where its counting pass says,
// search_query), and the general kernel search of a kernel that combines
// its states (FENNS_KERNEL_COMBINE), where a GPU's pipeline holds few
// particles (fenns_plan.query_lanes, fill_lanes and kernel_lanes;
// FENNS_QUERY_LANES4_MAX, FENNS_FILL_LANES4_MAX and FENNS_KERNEL_LANES4_MAX
// in src/plan.h say when, and what they gain); 1 elsewhere. The workgroup
// then holds QUERY_LANES invocations a query of its chunk: invocation k
// walks part k / slots of query k % slots, so each subgroup walks one part
// of consecutive queries, and the parts' counts
// (finish_query_lanes) or kernel states (finish_kernel_lanes) meet in
// shared memory.
layout(constant_id = 9) const uint QUERY_LANES = 1;
#ifdef FENNS_KERNEL
uint query_lanes() { return QUERY_LANES; }
#else
uint query_lanes() { return QUERY_LANES; }
#endif
uint query_slots() { return gl_WorkGroupSize.x / query_lanes(); }
uint query_slot() { return gl_LocalInvocationIndex % query_slots(); }
uint query_part() { return gl_LocalInvocationIndex / query_slots(); }

// The table cell, and its section, that local cell (lx, ly, lz) shows.
uint local_section_key(uvec3 l, uint split, uint reach) {
    ivec3 d = ivec3(greaterThanEqual(l, uvec3(reach + split))) - ivec3(lessThan(l, uvec3(reach)));
    uint cell = s_neighbour_key[uint((d.z + 1) * 9 + (d.y + 1) * 3 + (d.x + 1))];
    if (cell == NO_CELL) return NO_CELL;
    uvec3 f = uvec3(ivec3(l) - ivec3(reach) - d * int(split));
    return cell * pc.sections + (f.z * split + f.y) * split + f.x;
}

#ifdef LOCAL_GRID_BY_ROW
// The local grid by row: an invocation a part of a row, g 0 the left
// coarse cell's (x below reach), 1 the own column's, 2 the right one's.
// (Only the counts search reads it, which walks three runs a row.)
void build_local_rows(uint split, uint reach, uint local_dim) {
    uint rows = local_dim * local_dim;
    for (uint k = gl_LocalInvocationIndex; k < 3u * rows; k += gl_WorkGroupSize.x) {
        uint row = k / 3u, g = k % 3u, y = row % local_dim, z = row / local_dim;
        // The own column's cell: none beyond the grid in y or z, and then
        // none on either side.
        uint own_key = local_section_key(uvec3(reach, y, z), split, reach);
        uint x0 = g == 0u ? 0u : g == 1u ? reach : reach + split, cells = g == 1u ? split : reach;
        uint key = g == 1u ? own_key : local_section_key(uvec3(x0, y, z), split, reach);
        // Where the own part starts (g 0, 1) or ends (g 2).
        uint own_at = own_key == NO_CELL ? 0u : CANDIDATE_KEY_START(own_key + (g == 2u ? split : 0u));
        uint first = key == NO_CELL ? own_at : CANDIDATE_KEY_START(key);
        uint end = key == NO_CELL ? own_at : CANDIDATE_KEY_START(key + cells);
        // Number minus sorted position, in this part.
        uint shift = ROW_BIAS + (g == 0u ? own_at - end : g == 1u ? 0u : own_at - first);
        for (uint x = 0u; x < cells; ++x)
            s_local_sequence[row][x0 + x] = (key == NO_CELL ? own_at : CANDIDATE_KEY_START(key + x)) + shift;
        if (g == 0u) {
            s_local_rows[row].x = own_at + ROW_BIAS;
            s_local_rows[row].z = 0u - shift;
        } else if (g == 1u) {
            s_local_rows[row].y = end + ROW_BIAS;
        } else {
            s_local_rows[row].w = 0u - shift;
            s_local_sequence[row][local_dim] = end + shift;
        }
    }
}
#else
// The local grid by cell: an invocation a cell.
void build_local_cells(uint split, uint reach, uint local_dim) {
    for (uint l = gl_LocalInvocationIndex; l < local_dim * local_dim * local_dim; l += gl_WorkGroupSize.x) {
        uint x = l % local_dim, row = l / local_dim;
        uint key = local_section_key(uvec3(x, row % local_dim, row / local_dim), split, reach);
        s_local_start[row][x] = key == NO_CELL ? 0u : CANDIDATE_KEY_START(key);
        s_local_end[row][x] = key == NO_CELL ? 0u : CANDIDATE_KEY_START(key + 1u);
    }
}
#endif

void build_local_grid(uvec3 center, uint split, uint reach, uint local_dim) {
    uint t = gl_LocalInvocationIndex;
    if (t < 27u) {
        uint key;
        s_neighbour_key[t] = neighbour_cell(center, t, key) ? key : NO_CELL;
    }
    barrier();
#ifdef LOCAL_GRID_BY_ROW
    build_local_rows(split, reach, local_dim);
#else
    build_local_cells(split, reach, local_dim);
#endif
    barrier();
}

// One query's search state.
struct query_state {
    vec3 p;
    uint index; // original index
    uint id;    // output_index: where its outputs go
    uint count;
    // prm.radius2, read once: read in the candidate loop, the params
    // buffer's value is loaded again every candidate (the compiler cannot
    // prove the loop's stores leave it alone; H100 sph50 4M counts 1.71 ->
    // 1.56 ms, dam 1.22 -> 1.10, cluster 2.58 -> 2.30).
    float radius2;
    // The query's sorted position, which its walk skips: the query itself
    // (a query of another point set has none: 0xFFFFFFFF). Compared with
    // the candidate's position, which the walk has anyway, rather than its
    // original index with the point-set flag (see search_common.glsl's
    // list_target_of for what the fill gained).
    uint self;
#ifdef FENNS_KERNEL
    fenns_state user; // the user kernel's (search_kernel.comp)
#else
    list_target target;
    uvec4 quad; // the list's last four entries, oldest in x (not yet stored)
    // With several lanes a query of a list fill: the list index of this
    // lane's first entry (the entries of the parts before it come first).
    uint first;
#endif
};

#ifndef FENNS_KERNEL

// A list's entries. An invocation writes its own list, so a subgroup's
// stores scatter over as many lists; where lists are long they go out a
// whole aligned quad at a time (4x fewer scattered stores, each a full
// 16-byte piece of a 32-byte sector), the list's first and last partial
// quads entry by entry; also where the lists span several bindings (H100,
// sph50 16M, 3.3 GB of lists: entry by entry there made the fill 7x slower
// than at 4M). Entries shift through the quad so every index is constant (a
// dynamically indexed vector may live in slow local memory). Lists of fewer
// than 8 entries, nearly all in sparse sets, are stored entry by entry
// (H100: the quad bookkeeping cost them more than it saved): fenns walks a
// copy without quads where a whole subgroup's lists are that short
// (search_query), `quads` being a constant in each inlined copy, and its
// quad copy stores every list by quads, short ones too; the single walk of
// counting, octant and radix (search_counting.comp, SHORT_LISTS_BY_ENTRY)
// picks per list. (H100, fenns' quad copy without the per-list test: CSR 0.1-0.5%
// faster, sph50 4M 4.335 -> 4.329 ms, 16M 18.55 -> 18.45, dam 2.728 ->
// 2.720, cluster 4.448 -> 4.431, the sparse sets the same; counting's walk
// in fenns' two copies instead: its counts 1-1.5% slower; runs HB to HD.)
//
// Only the list's first `capacity` entries are stored and every entry is
// counted, and no step tests for that: a list that overflows (fixed
// capacity, CSR sized from the caller's counts, or offsets a frame graph
// changed) has its stores bounded where they happen -- each quad's,
// checked once it completes, and each single entry's. An overflow branch
// every step, with one copy of the append in a loop behind it, had cost
// every list (H100, CSR without it: sph50 4M 4.347 -> 4.332 ms, in frame
// order 3.951 -> 3.899, dam 2.752 -> 2.714, cluster 4.509 -> 4.456, 16M
// 18.93 -> 18.51; counting's fill, sph50 1M, 1.328 -> 1.287; run GP).
#ifdef SHORT_LISTS_BY_ENTRY
bool stores_quads(query_state s, bool quads) { return quads && s.target.capacity >= 8u; }
#else
bool stores_quads(query_state s, bool quads) { return quads; }
#endif

// The list index of the lane's first entry: 0 where each query has one
// lane (a constant there), else its part's (search_query).
uint list_first(query_state s) { return query_lanes() > 1u ? s.first : 0u; }

// Entry k of the list (u64 entry index).
uvec2 list_entry(query_state s, uint k) { return add64(s.target.base, k); }

// Entry k, where the list has room for it.
void store_entry(query_state s, uint k, uint v) {
    if (k < s.target.capacity) store_index(list_entry(s, k), v);
}

// Appends one entry (lists stored entry by entry).
void emit(inout query_state s, uint v) {
    store_entry(s, s.count, v);
    ++s.count;
}

// The entries k - 3 .. k of `quad` one by one: those from the lane's first
// entry on (list_first) and within its capacity.
void store_quad_entries(query_state s, uint k, uvec4 quad) {
    uint first = list_first(s);
    if (k >= first + 3u) store_entry(s, k - 3u, quad.x);
    if (k >= first + 2u) store_entry(s, k - 2u, quad.y);
    if (k >= first + 1u) store_entry(s, k - 1u, quad.z);
    store_entry(s, k, quad.w);
}

// Stores the entries since the list's last complete quad (s.quad's last
// ones), within its capacity.
void flush_list(query_state s, bool quads) {
    if (!stores_quads(s, quads)) return;
    uint pending = min((s.target.base.x + s.count) & 3u, s.count - list_first(s));
    if (pending >= 3u) store_entry(s, s.count - 3u, s.quad.y);
    if (pending >= 2u) store_entry(s, s.count - 2u, s.quad.z);
    if (pending >= 1u) store_entry(s, s.count - 1u, s.quad.w);
}

// A step's two candidates appended together, where the list is stored a
// quad at a time: a subgroup takes the append's branch whenever any of its
// lanes hits, so nearly every candidate; here once a step, the quad shifted
// by selects (at most one quad completes per step); only the copy of the
// walk that stores quads calls it. Against two appends a
// step (H100 CSR): sph50 4M 4.57 -> 4.45, 16M 20.42 -> 19.02, dam 2.925 ->
// 2.892, cluster 6.03 -> 6.00.
void emit_pair(inout query_state s, bool h0, uint v0, bool h1, uint v1) {
    uint h = uint(h0) + uint(h1);
    // A step without hits leaves here: one body for every step instead (its
    // selects keeping the quad, its stores masked by h) ran slower (H200,
    // run QB, fill: sph50 4M 2.490 -> 2.554 ms, dam 1.59 -> 1.77, cluster
    // 2.64 -> 2.83).
    if (h == 0u) return;
    uint a = h0 ? v0 : v1;
    // The shifted quad is kept for lists stored entry by entry too, where
    // nothing reads it: kept only in the quad branch, the fill measured
    // slower (H200, CSR: sph50 4M 4.18 -> 4.36 ms, dam 2.90 -> 2.99,
    // cluster 6.03 -> 6.22).
    uvec4 next = h == 2u ? uvec4(s.quad.zw, v0, v1) : uvec4(s.quad.yzw, a);
    if (stores_quads(s, true)) {
        uint at = s.target.base.x + s.count; // the first new entry's low bits
        bool first_ends = (at & 3u) == 3u, second_ends = h == 2u && (at & 3u) == 2u;
        if (first_ends || second_ends) {
            uvec4 done = second_ends ? next : uvec4(s.quad.yzw, a);
            uint e = s.count + (second_ends ? 1u : 0u); // the list index of done.w
            if (e >= list_first(s) + 3u && e < s.target.capacity)
                store_index_quad(INDEX_CHUNKS == 1u ? uvec2(s.target.base.x + e - 3u, 0u) : list_entry(s, e - 3u), done);
            else // the lane's first quad, or one that runs past its capacity
                store_quad_entries(s, e, done);
        }
    } else {
        store_entry(s, s.count, a);
        if (h == 2u) store_entry(s, s.count + 1u, v1);
    }
    s.quad = next;
    s.count += h;
}

#endif // !FENNS_KERNEL

// One row of a query's stencil: the local cells x0..x1 of local row (y, z),
// up to three runs of sorted particles (one per coarse cell the row
// crosses), walked as one sequence of `len` candidates. One loop over the
// whole row instead of one per run: a subgroup's queries sit in different
// rows, and a loop per run costs the subgroup the longest of its lanes'
// runs once per run (H100, sph50 4M: the loops' control, not the
// candidates' loads or distance tests, took most of the search).
// The row's candidates are numbers first .. end - 1, and each run is kept
// as the sorted position minus the number (mod 2^32), so candidate k is k
// plus one of three values (H100: 2 fewer instructions a candidate, sph50
// 4M counts 1.55 -> 1.45 ms, dam 1.10 -> 1.01, cluster 2.30 -> 2.09). By
// row (LOCAL_GRID_BY_ROW) the numbers are the row's sequence's; by cell they
// count from 0.
//
// Since F >= 2 reach (grid_sizing.glsl) a row crosses at most two coarse
// cells: one that starts on the left ends in the query's own cell (x1 <=
// x0 + 2 reach < reach + F), else it runs from the own cell into the right
// one, or lies in one. The kernel search walks its rows as two runs
// (ROW_RUNS 2: one compare a candidate, four shared loads a row); the
// counts and list searches keep three, which the compiler makes faster
// there (H100, two runs against three: kernel sph50 4M 1.632 -> 1.478 ms,
// 16M 6.49 -> 5.89, dam 1.165 -> 1.055, cluster 1.864 -> 1.697, run EO;
// with two runs in every search, counts sph50 4M 1.386 -> 1.570, s1 r=1
// 0.531 -> 0.587, and lists no faster, run EK).
#ifdef FENNS_KERNEL
#define ROW_RUNS 2u
#else
#define ROW_RUNS 3u
#endif
struct stencil_row {
    uint first, end; // its candidates' numbers: first .. end - 1
    uint t1, t2;     // the numbers where the second and third runs start
    uint sh0, sh1, sh2; // each run's sorted position minus number
};

#ifdef LOCAL_GRID_BY_ROW
stencil_row row_of(uint x0, uint x1, uint row, uint split, uint reach) {
    stencil_row r;
    uvec4 map = s_local_rows[row];
    r.first = s_local_sequence[row][x0];
    r.end = s_local_sequence[row][x1 + 1u];
    r.t1 = map.x;
    r.t2 = map.y;
    r.sh0 = map.z;
    r.sh1 = 0u - ROW_BIAS;
    r.sh2 = map.w;
    return r;
}
#else
// Local cells a .. b of the row as a run (its start, its length).
uvec2 local_run(uint row, uint a, uint b) {
    if (a > b) return uvec2(0u);
    uint start = s_local_start[row][a];
    return uvec2(start, s_local_end[row][b] - start);
}

stencil_row row_of(uint x0, uint x1, uint row, uint split, uint reach) {
    // Local x below reach shows the coarse cell on the left, from
    // reach + split on the one on the right.
    stencil_row r;
    r.first = 0u;
    if (ROW_RUNS == 2u) {
        uint second = x0 < reach ? reach : reach + split; // where the second run starts
        uvec2 first = local_run(row, x0, min(x1, second - 1u));
        uvec2 next = local_run(row, max(x0, second), x1);
        r.sh0 = first.x;
        r.sh1 = next.x - first.y;
        r.sh2 = 0u;
        r.t1 = first.y;
        r.t2 = r.end = first.y + next.y;
        return r;
    }
    uvec2 left = local_run(row, x0, min(x1, reach - 1u));
    uvec2 own = local_run(row, max(x0, reach), min(x1, reach + split - 1u));
    uvec2 right = local_run(row, max(x0, reach + split), x1);
    r.sh0 = left.x;
    r.sh1 = own.x - left.y;
    r.sh2 = right.x - (left.y + own.y);
    r.t1 = left.y;
    r.t2 = left.y + own.y;
    r.end = r.t2 + right.y;
    return r;
}
#endif

// Sorted position of the row's candidate numbered k.
uint row_position(stencil_row r, uint k) {
    return k + (k < r.t1 ? r.sh0 : ROW_RUNS == 2u || k < r.t2 ? r.sh1 : r.sh2);
}

#ifndef FENNS_KERNEL
// Whether candidate c, at sorted position j, goes into the query's list:
// within r, and not the query itself.
bool listed(query_state s, uvec4 c, uint j) {
    return within_radius(s.p, uintBitsToFloat(c.xyz), s.radius2) && j != s.self;
}
#endif

// Candidate c at sorted position j, when `valid` (a step's candidates past
// the row's end are loaded again as its last and not visited).
void visit_if(inout query_state s, uvec4 c, uint j, bool valid) {
    vec3 pj = uintBitsToFloat(c.xyz);
#ifdef FENNS_KERNEL
    // The user kernel sees neighbours only, by original index, in the
    // loop's fixed order.
    float d2 = distance2(s.p, pj);
    if (!(valid && j != s.self && d2 <= s.radius2)) return;
    ++s.count;
    fenns_neighbor(s.user, s.index, c.w, s.p, pj, d2);
#else
    if (COUNT_ONLY == 1u) {
        s.count += valid && within_radius(s.p, pj, s.radius2) ? 1u : 0u; // the query itself too: subtracted once at the end
        return;
    }
    if (valid && listed(s, c, j)) emit(s, output_index(c.w, j));
#endif
}

// A step's two candidates, the second when `valid1`: where lists are stored
// a quad at a time, appended together (emit_pair).
void visit_pair(inout query_state s, uvec4 c0, uint j0, uvec4 c1, uint j1, bool valid1, bool quads) {
#ifndef FENNS_KERNEL
    if (COUNT_ONLY == 0u && quads) {
        emit_pair(s, listed(s, c0, j0), output_index(c0.w, j0), valid1 && listed(s, c1, j1), output_index(c1.w, j1));
        return;
    }
#endif
    visit_if(s, c0, j0, true);
    visit_if(s, c1, j1, valid1);
}

// The row's candidates two at a time, the second masked past the row's end
// (H100, sph50 4M counts: steps of 1, 2, 3, 4, 8 candidates took 1.91,
// 1.77, 1.84, 1.87, 2.24 ms; rows hold about 6); or four at a time, all
// four loaded before the first is tested (ROW_STEP 4: the kernel searches
// of a GPU's pipelines that hold few particles, fenns_plan.kernel_row_step;
// FENNS_ROW_STEP4_KERNEL_MAX in src/plan.h says when, what it gains, and
// why the list fill keeps two). A small search leaves most of
// the GPU idle, so each invocation's loads wait with nothing to hide them
// behind; four in flight wait once where two wait twice.
// Both are one loop of pairs: with four a step, the first pair of each four
// loads the second's candidates too, and the second visits them. (A loop
// of its own for four a step, with the pair's visit inlined twice more, had
// made lavapipe compile fenns' pipelines twice as long, where it never runs:
// sph50 1024 with every pipeline made, 1.1 -> 2.5 s.)
layout(constant_id = 10) const uint ROW_STEP = 2;
void visit_row(inout query_state s, stencil_row r, bool quads) {
    uint last = r.end - 1u;
    uvec4 next0 = uvec4(0u), next1 = uvec4(0u); // with four a step: the step's second pair
    for (uint k = r.first; k < r.end; k += 2u) {
        // The second candidate by the loop's own test where the grid is by
        // row: against `last`, the counts search spilled (H200, run PC).
        // By cell the searches keep `last`: by the test, the list fill ran
        // the same or slower (sph50 4M 2.490 -> 2.503 ms, 16M 12.12 ->
        // 12.25; run QB), and the kernel search 3-4% faster with the bench's
        // density kernel (4M 1.413 -> 1.372, cluster 1.667 -> 1.590) but
        // `fenns-sph` 2.4% slower a step (10^6: 1.828 -> 1.871 ms), its
        // force kernel given 59 registers instead of 62 (run QC).
#ifdef LOCAL_GRID_BY_ROW
        uint j0 = row_position(r, k), j1 = row_position(r, k + 1u < r.end ? k + 1u : k);
#else
        uint j0 = row_position(r, k), j1 = row_position(r, min(k + 1u, last));
#endif
        uvec4 c0 = next0, c1 = next1;
        if (ROW_STEP == 2u || ((k - r.first) & 2u) == 0u) {
            c0 = load_candidate(j0);
            c1 = load_candidate(j1);
            if (ROW_STEP == 4u) {
                next0 = load_candidate(row_position(r, min(k + 2u, last)));
                next1 = load_candidate(row_position(r, min(k + 3u, last)));
            }
        }
        visit_pair(s, c0, j0, c1, j1, k + 1u < r.end, quads);
    }
}

// Loop iterations a query may take beyond its rows' candidate steps
// (llvmpipe counts every loop iteration of an invocation, and stops it
// after pc.loop_limit of them): the row loops, the bound's own loops.
#define LOOP_ALLOWANCE 1024u

// Whether the query's loops stay within the driver's limit: every row of
// its stencil untrimmed, each walked in ROW_STEP steps plus the row loop.
bool within_loop_limit(uvec3 lo, uint split, uint reach, uint local_dim) {
    uint steps = LOOP_ALLOWANCE;
    for (uint z = lo.z; z <= lo.z + 2u * reach; ++z)
    for (uint y = lo.y; y <= lo.y + 2u * reach; ++y) {
        uint row = z * local_dim + y, len = 0u;
#ifdef LOCAL_GRID_BY_ROW
        len = s_local_sequence[row][lo.x + 2u * reach + 1u] - s_local_sequence[row][lo.x];
#else
        for (uint x = lo.x; x <= lo.x + 2u * reach; ++x) len += s_local_end[row][x] - s_local_start[row][x];
#endif
        steps += len / ROW_STEP + 2u;
    }
    return steps <= pc.loop_limit;
}

// The state of the query at sorted position q before its first candidate:
// with a kernel, fenns_init has run; else its list's place is looked up.
query_state begin_query(uint q) {
    query_state s;
    uvec4 own = load_sorted(q);
    s.p = uintBitsToFloat(own.xyz);
    s.index = own.w;
    s.count = 0u;
    s.radius2 = prm.radius2;
    s.id = output_index(s.index, q);
    s.self = pc.point_set != 0u ? 0xFFFFFFFFu : q;
#ifdef FENNS_KERNEL
    fenns_init(s.user, s.index, s.p);
#else
    // The counting variant runs in FENNS_MODE_COUNT only: no list, and no
    // list bookkeeping live through its loop.
    s.target = COUNT_ONLY == 1u ? list_target(uvec2(0u), 0u) : list_target_of(s.id);
    s.quad = uvec4(0u);
    s.first = 0u;
#endif
    return s;
}

// The stencil trimmed to the query's sphere. Only fine cells that a sphere
// of the trim radius T about the query can reach are visited: a row (y, z)
// whose nearest point is beyond T is skipped, and every other row is cut to
// the x cells its chord spans (sph50: 84 of the 125 cells, 14% fewer rows).
// A trimmed cell holds no neighbour, so lists and kernel calls are the same,
// in the same order. T = r + 2 (margin - r): the margin's rounding allowance
// covers one axis, twice it covers the three of a distance with room to
// spare. Where the margin was clamped below r (radii near FENNS_MAX_EXTENT)
// nothing is trimmed.
struct row_trim {
    vec3 frac;  // the query's place in its fine cell, fine-cell units (0..1)
    vec3 scale; // fine-cell edge / T per axis
};

row_trim trim_of(vec3 fine_coords, uvec3 fine, uint split) {
    row_trim t;
    t.frac = fine_coords - vec3(fine);
    float r = prm.radius;
    float trim_radius = prm.margin >= r ? 2.0 * prm.margin - r : 1.0 / 0.0;
    t.scale = vec3(prm.cell_x, prm.cell_y, prm.cell_z) / (float(split) * trim_radius);
    return t;
}

// Distance, in fine cells, from a query at `frac` in its fine cell to the
// fine cell k steps away along one axis (0 for its own), given
// ahead = k - frac: the cell's near side lies k - frac ahead or, behind the
// query, frac - (k + 1) = -1 - ahead back.
float cell_gap(float ahead) { return max(max(ahead, -1.0 - ahead), 0.0); }

// The query's stencil rows, trimmed to its sphere (see above); `quads`:
// whether its list may be stored a quad at a time (a constant in each
// inlined copy).
// Split over `lanes` (query_lanes(), or 1: a constant in each inlined
// copy), lane `part` walks the rows part, part + lanes, ... (numbered
// z-major), skipping the others'; with 1, part is 0 and every row is
// walked. (One walk for both: a copy of its own for the lanes had made
// lavapipe compile the counts search a third longer.)
void walk_rows(inout query_state s, row_trim t, uvec3 lo, uint split, uint reach, uint local_dim, bool quads, uint part,
               uint lanes) {
    float side = float(reach);
    // Per row only what changes with it: the y gap, its `ahead` one cell
    // more each row rather than recomputed, and the chord, a product
    // rather than a division (H100, sph50 4M counts 1.450 -> 1.416 ms, 1M
    // 0.388 -> 0.378, s1 r=0.2 0.491 -> 0.482).
    float inv_scale_x = 1.0 / t.scale.x, shifted_x = t.frac.x + side, width = 2.0 * side;
    uint row = 0u;
#ifdef FENNS_KERNEL
    // The kernel search steps each row from the last (one a row, a plane's
    // rest a plane) and counts its rows from 0,
    // so the stencil's y and z corner are not kept through the walk (H200,
    // runs VB and VC: kernel sph50 4M 1.435 -> 1.420 ms, 16M 5.711 ->
    // 5.647, dam 1.038 -> 1.030, s1 r=1 0.555 -> 0.551; `fenns-sph` 10^6
    // 1.849 -> 1.831 ms a step). The counts and list searches keep the
    // rows by y and z: stepped, the driver fits the counts search into 32
    // registers (39 now, VK_KHR_pipeline_executable_properties: 8
    // workgroups a multiprocessor rather than 6), and it ran 4% slower
    // (sph50 4M 1.340 -> 1.396 ms, dam 0.948 -> 1.001, run VB).
    uint local_row = lo.z * local_dim + lo.y, plane_step = local_dim - 2u * reach - 1u;
    for (uint dz = 0u; dz <= 2u * reach; ++dz, local_row += plane_step) {
        float gz = cell_gap(float(int(dz) - int(reach)) - t.frac.z) * t.scale.z;
        float ahead = -side - t.frac.y; // for the row k = -reach
        for (uint dy = 0u; dy <= 2u * reach; ++dy, ahead += 1.0, ++local_row) {
#else
    for (uint z = lo.z; z <= lo.z + 2u * reach; ++z) {
        float gz = cell_gap(float(int(z - lo.z) - int(reach)) - t.frac.z) * t.scale.z;
        float ahead = -side - t.frac.y; // for the row k = -reach
        for (uint y = lo.y; y <= lo.y + 2u * reach; ++y, ahead += 1.0) {
            uint local_row = z * local_dim + y;
#endif
            if (lanes > 1u && row++ % lanes != part) continue;
            float gy = cell_gap(ahead) * t.scale.y;
#ifdef FENNS_TRIM_BOX
            // Experiment (-DFENNS_SHADER_DEFINES=-DFENNS_TRIM_BOX): Morillo's
            // octant choice made per axis, i.e. every cell of the sphere's
            // bounding box; the chords above visit a subset of it.
            float rest = gz <= 1.0 && gy <= 1.0 ? 1.0 : -1.0;
#else
            float rest = 1.0 - gz * gz - gy * gy;
#endif
            if (rest < 0.0) continue;
            float chord = sqrt(rest) * inv_scale_x; // half the row's reach, in fine cells
            uint x0 = lo.x + uint(clamp(floor(shifted_x - chord), 0.0, width));
            uint x1 = lo.x + uint(clamp(floor(shifted_x + chord), 0.0, width));
            visit_row(s, row_of(x0, x1, local_row, split, reach), quads);
        }
    }
}

// The counts search's end of a query: its count, which the walk took with
// the query itself in it (another point set's query is not among the
// candidates).
void store_query_count(uint id, uint count) {
    counts[id] = pc.point_set == 0u ? count - 1u : count;
}

#ifdef FENNS_KERNEL
// With several lanes a query: this lane's part of it, for
// finish_kernel_lanes (a kernel's state is the user's type, so it is kept
// here rather than handed back).
query_state lane_query;
#endif

// The query at sorted position q set up for its walk: its state, its
// stencil's low corner and its trim. False where it is not walked, which
// this settles: its list in another window, none to find, or (where the
// driver limits loops) too long a walk.
bool prepare_walk(uint q, uint split, uint reach, uint local_dim, uint part, out query_state s, out row_trim t,
                  out uvec3 lo) {
    s = begin_query(q);
    vec3 u = grid_coords(s.p);
    // The query's local cell is its fine cell + reach, so its stencil's low
    // corner is its fine cell.
    uvec3 c = coarse_cell(u);
    vec3 fine_coords = (u - vec3(c)) * float(split); // as fine_in_cell
    lo = min(uvec3(fine_coords), uvec3(split - 1u));
    t = trim_of(fine_coords, lo, split);
#ifndef FENNS_KERNEL
    // A list of another window is another dispatch's (FENNS_LIST_WINDOW_SHIFT).
    // Here, not right after begin_query: both skips moved up there left
    // 2^26's four windows as they were (CSR 164.7 / 164.8 ms: the compiler
    // sinks the arithmetic already) and the one-window fills 1.5-3.6%
    // slower (H100, run BH).
    if (COUNT_ONLY == 0u && !in_list_window(s.target.base)) return false;
    // CSR lists sized by this search's own counting pass (pc.count): where
    // it found no neighbour there is none, and the query is not walked
    // again (H100, where most queries have none: the fill of s1 4M r=0.2
    // 0.413 -> 0.252 ms, s3 r=0.3 0.430 -> 0.255, cluster r=0.2 0.845 ->
    // 0.627; sph50 4M 3.095 -> 3.100, s1 r=1 0.806 -> 0.811). Lists sized
    // from the caller's counts (COUNTS_READY) are walked whatever they say,
    // so a wrong count still reads as an overflow.
    if (COUNT_ONLY == 0u && pc.mode == FENNS_MODE_CSR && pc.count != 0u && all(equal(offsets[s.id], offsets[s.id + 1u]))) {
        finish_query(s.id, 0u, s.target);
        return false;
    }
#endif
    if (LOOP_LIMITED != 0u && !within_loop_limit(lo, split, reach, local_dim)) {
        if (part == 0u) atomicAdd(prm.incomplete_queries, 1u);
        return false;
    }
    return true;
}

// The query at sorted position q: its count (with several lanes a query,
// this lane's part of it, the query itself included; `walked` says whether
// it was walked, `id` where its count goes).
uint search_query(uint q, uint split, uint reach, uint local_dim, uint part, out bool walked, out uint id) {
    query_state s;
    row_trim t;
    uvec3 lo;
    walked = prepare_walk(q, split, reach, local_dim, part, s, t, lo);
    id = s.id;
    if (!walked) return 0u;
#ifdef FENNS_KERNEL
    walk_rows(s, t, lo, split, reach, local_dim, false, part, query_lanes());
    if (query_lanes() > 1u) { // the parts meet in finish_kernel_lanes
        lane_query = s;
        return s.count;
    }
#else
    // The rows walked: `parts` of the query's parts from `part` on, each
    // every `lanes`-th row (walk_rows). The counts search walks its part of
    // its lanes, a list fill of one lane a query every row.
    uint lanes = COUNT_ONLY == 1u ? query_lanes() : 1u, parts = 1u;
#ifdef USE_PART_FIRSTS
    if (COUNT_ONLY == 0u && query_lanes() > 1u) {
        // A list fill of several lanes a query (fenns_plan.fill_lanes).
        // Where this CSR search's counting pass split its queries alike,
        // it left where each part's neighbours start in the list
        // (finish_query_lanes): each part writes its rows' neighbours from
        // there. Otherwise (fixed lists, the caller's counts) part 0 walks
        // the parts one after another (search_cell), the others idle.
        // Either way the list holds part 0's rows' neighbours, then part
        // 1's, and so on: the same on every run. (One call of the walk for
        // every form: fill_part_idle says why.)
        lanes = query_lanes();
        if (pc.part_firsts != 0u) {
            s.first = part == 0u ? 0u : part_firsts[(part - 1u) * pc.n + s.id];
            s.count = s.first;
            parts = part_firsts[part * pc.n + s.id] != s.first ? 1u : 0u; // none of its own: no walk
        } else {
            parts = lanes;
        }
    }
#endif
    // A subgroup whose lists are all short (stored entry by entry anyway)
    // walks a copy without the quad bookkeeping (H100, CSR: cluster 4M
    // 6.22 -> 6.12 ms, sph50 4M in frame order 4.43 -> 4.37, dam 3.01 ->
    // 2.98, 16M frame order 19.66 -> 19.52).
    bool quads = COUNT_ONLY == 0u && subgroupBallot(s.target.capacity >= 8u) != uvec4(0u);
    for (uint k = 0u; k < parts; ++k) {
        if (quads) walk_rows(s, t, lo, split, reach, local_dim, true, part + k, lanes);
        else walk_rows(s, t, lo, split, reach, local_dim, false, part + k, lanes);
    }
    if (COUNT_ONLY == 1u && query_lanes() > 1u) return s.count; // the lanes' sum: finish_query_lanes
#endif
#ifdef FENNS_KERNEL
    finish_kernel(s.id, s.index, s.p, s.count, s.user);
#else
    if (COUNT_ONLY == 1u) {
        store_query_count(s.id, s.count);
        return s.count;
    }
    flush_list(s, quads);
#ifdef USE_PART_FIRSTS
    if (COUNT_ONLY == 0u && query_lanes() > 1u && pc.part_firsts != 0u) {
        if (part != 0u) return 0u; // part 0 finishes the query, with the count its counting pass found
        s.count = part_firsts[(query_lanes() - 1u) * pc.n + s.id];
    }
#endif
    finish_query(s.id, s.count, s.target);
#endif
    return s.count;
}

// Point sets: whether the candidates' build shares this build's grid (it
// took this build's grid, this build took its, or both a third's), so that
// cell keys and fine cells mean the same in both. Floats compared by bits.
bool same_grid() {
#define SAME_(f) (prm.f == candidate_prm.f)
#define SAME_BITS_(f) (floatBitsToUint(prm.f) == floatBitsToUint(candidate_prm.f))
    return SAME_(dims_x) && SAME_(dims_y) && SAME_(dims_z) && SAME_(table_x) && SAME_(table_y) && SAME_(table_z) &&
           SAME_(fine_split) && SAME_(fine_reach) && SAME_BITS_(domain_min_x) && SAME_BITS_(domain_min_y) &&
           SAME_BITS_(domain_min_z) && SAME_BITS_(cell_x) && SAME_BITS_(cell_y) && SAME_BITS_(cell_z) &&
           SAME_BITS_(margin) && SAME_BITS_(radius2) && SAME_BITS_(radius);
#undef SAME_
#undef SAME_BITS_
}

// Whether the workgroup's queries can be searched: both builds sorted
// within the driver's loop limit (sort_incomplete is also the mark of a
// build recorded without all its passes), on one grid.
bool searchable() {
    if (pc.loop_limit != 0u && prm.sort_incomplete != 0u) return false;
    if (pc.point_set == 0u) return true;
    if (!same_grid()) {
        prm.grid_mismatch = 1u;
        return false;
    }
    return candidate_prm.sort_incomplete == 0u;
}

// Where lane sum k goes (the counts search's lanes, and the kernel
// searches' counts): the local grid's arrays, free once every walk is done
// (QUERY_LANES - 1 sums a query fit there where the host asks for several
// lanes: by row LOCAL_ROWS * (FENNS_LOCAL_DIM_MAX + 1) words, which
// fenns_plan's lanes_for holds them to; by cell twice LOCAL_ROWS *
// FENNS_LOCAL_DIM_MAX).
#ifdef LOCAL_GRID_BY_ROW
void store_lane_sum(uint k, uint v) { s_local_sequence[k / (FENNS_LOCAL_DIM_MAX + 1u)][k % (FENNS_LOCAL_DIM_MAX + 1u)] = v; }
uint lane_sum(uint k) { return s_local_sequence[k / (FENNS_LOCAL_DIM_MAX + 1u)][k % (FENNS_LOCAL_DIM_MAX + 1u)]; }
#else
void store_lane_sum(uint k, uint v) {
    uint c = k % (LOCAL_ROWS * FENNS_LOCAL_DIM_MAX);
    if (k < LOCAL_ROWS * FENNS_LOCAL_DIM_MAX) s_local_start[c / FENNS_LOCAL_DIM_MAX][c % FENNS_LOCAL_DIM_MAX] = v;
    else s_local_end[c / FENNS_LOCAL_DIM_MAX][c % FENNS_LOCAL_DIM_MAX] = v;
}
uint lane_sum(uint k) {
    uint c = k % (LOCAL_ROWS * FENNS_LOCAL_DIM_MAX);
    return k < LOCAL_ROWS * FENNS_LOCAL_DIM_MAX ? s_local_start[c / FENNS_LOCAL_DIM_MAX][c % FENNS_LOCAL_DIM_MAX]
                                                : s_local_end[c / FENNS_LOCAL_DIM_MAX][c % FENNS_LOCAL_DIM_MAX];
}
#endif

// The part of a query's walk that holds the query itself (its own fine
// cell's row, numbered as walk_rows numbers them), where it is among the
// candidates; else none (query_lanes()). The reach read again here rather
// than kept through the walk (a register live through it slowed the
// counts search).
uint self_part() {
    uint reach = FIXED_REACH != 0u ? FIXED_REACH : prm.fine_reach;
    return pc.point_set == 0u ? (reach * (2u * reach + 1u) + reach) % query_lanes() : query_lanes();
}

// Several lanes a query: part 0 adds the others' counts and stores the
// query's. Where the CSR fill splits its queries alike (pc.part_firsts), it
// also leaves where each part's neighbours start in the list of the query
// whose outputs go to `id` (the query itself, which the list leaves out,
// taken out of its part). Every invocation of the workgroup calls it
// (barriers).
void finish_query_lanes(uint count, bool walked, uint id) {
    uint slots = query_slots(), slot = query_slot(), part = query_part();
    barrier(); // every walk is done with the local grid
    if (part > 0u) store_lane_sum((part - 1u) * slots + slot, count);
    barrier();
    if (part != 0u || !walked) return;
#ifdef USE_PART_FIRSTS
    if (pc.part_firsts != 0u) {
        uint own_part = self_part(), first = count - (own_part == 0u ? 1u : 0u);
        for (uint k = 1u; k < query_lanes(); ++k) {
            part_firsts[(k - 1u) * pc.n + id] = first;
            first += lane_sum((k - 1u) * slots + slot) - (own_part == k ? 1u : 0u);
        }
        part_firsts[(query_lanes() - 1u) * pc.n + id] = first; // the list's length
    }
#endif
    for (uint k = 1u; k < query_lanes(); ++k) count += lane_sum((k - 1u) * slots + slot);
    store_query_count(id, count);
}

#ifdef FENNS_KERNEL
// Several lanes a query of a kernel search: part 0 takes each other part's
// state in turn (part 1 first, then 2, ...: a fixed order, so the outputs
// are the same run to run) through the kernel's fenns_combine, adds their
// counts, and finishes the query. The states meet in the kernel's shared
// slots (fenns_kernel_parts.glsl), one part a round; the counts in the local
// grid's arrays. Returns the query's count in part 0, else 0. Every
// invocation of the workgroup calls it (barriers).
uint finish_kernel_lanes(uint count, bool walked) {
    uint slot = query_slot(), part = query_part();
    barrier(); // every walk is done with the local grid
    for (uint k = 1u; k < query_lanes(); ++k) {
        if (part == k && walked) {
            fenns_store_part_(slot, lane_query.user);
            store_lane_sum(slot, count);
        }
        barrier();
        if (part == 0u && walked) {
            fenns_combine_part_(lane_query.user, slot);
            count += lane_sum(slot);
        }
        barrier(); // the next round's part overwrites the slots
    }
    if (part != 0u || !walked) return 0u;
    finish_kernel(lane_query.id, lane_query.index, lane_query.p, count, lane_query.user);
    return count;
}
#endif

// Whether `part` of a list fill of several lanes a query has nothing to
// do: with no parts' starts from a counting pass, part 0 walks the whole
// query (search_query). (A condition rather than a call of its own: each
// call of the walk is compiled in full before the driver drops what the
// specialization leaves dead, and a second had cost lavapipe a tenth more
// time for every search pipeline.)
bool fill_part_idle(uint part) {
#ifdef FENNS_KERNEL
    return false;
#else
    return COUNT_ONLY == 0u && query_lanes() > 1u && pc.part_firsts == 0u && part != 0u;
#endif
}

#if defined(USE_INDICES) && defined(SEARCH_WORK_ITEM) && !defined(LOCAL_GRID_BY_ROW)
// A window's dispatch of lists in original order (lists past one binding):
// a workgroup's lists lie anywhere, so only some of its queries write in
// this window, and a subgroup walks as long with a few of its lanes busy as
// with all. The workgroup gathers the queries whose lists start in the
// window into its first invocations (before its grid's build, in the grid's
// arrays and the work item's word, free then), so fewer subgroups walk,
// each with more lanes busy (H200, sph50 2^26 in random order, four
// windows: fill 113.8 -> 85.5 ms, run RD). Returns the query this
// invocation walks (w.query_end: none), and in `none` whether the
// workgroup has none, so that it skips its build (particles handed over
// in frame order, whose lists lie nearly in query order: sph50 2^26 fill
// 45.37 -> 42.82 ms, in random order, where none skips, the same; runs
// RE, RH: a return there instead made it 42.56 and 86.81 against 86.04).
// Whole workgroups (barriers).
bool gathers_window_queries(bool searched) {
    return COUNT_ONLY == 0u && !(INDEX_CHUNKS == 1u && LIST_WINDOWED == 0u) && query_lanes() == 1u && searched &&
           LOCAL_ROWS * FENNS_LOCAL_DIM_MAX >= gl_WorkGroupSize.x && pc.list_window_entries != 0u && pc.sorted_order == 0u;
}
// Whether the query of original index i writes its list in this window:
// in the windowed pipelines, one of the window's outputs, which
// window_items.comp found (prm.window_output_*: the same outputs whose
// lists start in the window, with no load of the list's start, a scattered
// one, on the way to the grid's build); in the chunked ones, its list's
// start.
bool window_output(uint i) {
    if (LIST_WINDOWED != 0u) return i - prm.window_output_begin < prm.window_output_end - prm.window_output_begin;
    return in_list_window(list_target_of(i).base);
}
uint gather_window_queries(work_item w, uint q, out bool none) {
    if (gl_LocalInvocationIndex == 0u) s_work_cell = 0u;
    barrier();
    if (q < w.query_end && window_output(load_sorted(q).w)) {
        uint k = atomicAdd(s_work_cell, 1u);
        s_local_start[k / FENNS_LOCAL_DIM_MAX][k % FENNS_LOCAL_DIM_MAX] = q;
    }
    barrier();
    uint k = gl_LocalInvocationIndex, gathered = s_work_cell;
    uint mine = k < gathered ? s_local_start[k / FENNS_LOCAL_DIM_MAX][k % FENNS_LOCAL_DIM_MAX] : w.query_end;
    none = gathered == 0u;
    barrier(); // before the grid's build writes those arrays
    return mine;
}
#endif

// Whether this dispatch counts the query at sorted position q as not
// searched (incomplete_queries), so that each counts once: the counts
// search (or a CSR search's counting pass) counts it; a fill of windows in
// the window where its list starts (fenns' windows launch only the items
// of their own queries' lists, window_items.comp), and a CSR fill after its
// search's own counting pass not at all. The counts search (COUNT_ONLY)
// keeps the test it had, first_list_window(), true there: returning true
// the driver made it 0.25% slower (H200, sph50 4M, 1.2531 -> 1.2561 ms,
// three rounds; session 53's run TC).
bool counts_unsearched(uint q) {
    if (COUNT_ONLY == 1u) return first_list_window();
#ifdef USE_INDICES
    if (pc.mode == FENNS_MODE_CSR && pc.count != 0u) return false;
    return in_list_window(list_target_of(output_index(load_sorted(q).w, q)).base);
#else
    return true;
#endif
}

void search_cell(work_item w, uint q) {
    uvec3 center = table_cell_of_key(w.cell);
    uint split = FIXED_REACH != 0u ? FENNS_FINE_SPLIT_MAX : prm.fine_split;
    uint reach = FIXED_REACH != 0u ? FIXED_REACH : prm.fine_reach, local_dim = split + 2u * reach;
    // Rows of two runs (ROW_RUNS) need F >= 2 reach, which grid_sizing.glsl
    // always makes and a grid source must have: tested all the same, so
    // that no row is ever cut short.
    bool searched = searchable() && (ROW_RUNS == 3u || split >= 2u * reach);
    // The queries' states are taken after the grid's build: taken before,
    // so that their loads overlapped the build's, every search ran slower
    // (H200, run QF: counts sph50 4M 1.258 -> 1.268 ms, s1 r=0.2 0.267 ->
    // 0.272; CSR 3.783 -> 3.802; `fenns-sph` 1.829 -> 1.854 ms a step).
    // Without its walk the counts search takes 0.13 ms of sph50 4M's 1.25,
    // and 0.13 of s1 r=0.2's 0.26 (run QE).
#ifdef USE_INDICES
    // A window's dispatch of lists past one binding: in sorted order a
    // workgroup none of whose lists start in its window leaves before its
    // build (the whole workgroup: w is the same for all its invocations).
    uint slots_end = min(w.query_end, w.query_begin + query_slots());
    if (COUNT_ONLY == 0u && searched && slots_end > w.query_begin && !window_holds_lists(w.query_begin, slots_end))
        return;
#endif
#if defined(USE_INDICES) && defined(SEARCH_WORK_ITEM) && !defined(LOCAL_GRID_BY_ROW)
    if (gathers_window_queries(searched)) {
        bool none;
        q = gather_window_queries(w, q, none);
        searched = !none; // its invocations' q is w.query_end: no build, no walk, nothing counted
    }
#endif
    if (searched) build_local_grid(center, split, reach, local_dim);
    uint count = 0u, id = 0u, part = query_part();
    bool walked = false;
    if (!searched) {
        // No query of this build is searched: each counts as incomplete, once.
        if (part == 0u && q < w.query_end && counts_unsearched(q)) atomicAdd(prm.incomplete_queries, 1u);
    } else if (q < w.query_end && !fill_part_idle(part)) {
        count = search_query(q, split, reach, local_dim, part, walked, id);
    }
#ifdef FENNS_KERNEL
    if (query_lanes() > 1u && searched) count = finish_kernel_lanes(count, walked);
#else
    if (COUNT_ONLY == 1u && query_lanes() > 1u && searched) finish_query_lanes(count, walked, id);
#endif
    add_total(count); // every invocation: the subgroup sums need them all
}
