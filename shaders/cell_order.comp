#version 450
#extension GL_GOOGLE_include_directive : require
// fenns only, after the reorder placed every particle in its coarse cell (in
// the order its atomics happened to run): one workgroup per coarse cell (and
// one for the invalid particles) orders the cell's slice of the permutation
// by fine cell (the cell's sections), and within a fine cell by original
// index, so the layout never depends on the atomics. It writes the cell's
// section starts, its slice of the permutation and its sorted particles.
//
// Why by coarse cell: the count and the reorder then touch one counter per
// coarse cell (about a workgroup of particles), a table that stays in the
// L2 cache; counting and placing by fine cell, one counter per particle or
// so, sent their atomics all over a table larger than the L2 once the
// particles pass about 10^7 (H100, 16M in random order: count 0.65 -> 0.38
// ms, reorder 2.12 -> 0.75).
//
// A cell of up to ITEMS particles an invocation is ordered at once: a
// shared histogram of the fine cells (its atomics giving each particle a
// slot in its fine cell; each invocation keeps its particles' original index
// and (fine cell, slot), a register each) becomes the fine cells' starts,
// the original indices go to shared memory grouped by fine cell, and each
// particle's rank in its fine cell is the number of smaller indices there
// (fine cells hold a few particles each); its position is read again to
// write its record (from the cache). Registers bound the occupancy, so the
// pass comes in two pipelines (fenns_shared.h): ITEMS 2 for every cell,
// which leaves the cells of more than 2 particles an invocation, and ITEMS
// 8 (the "wide" pipeline, dispatched indirectly for the cells the narrow
// one listed) for those up to CAPACITY. (H100, sph50 16M in frame order:
// one pipeline of 8 particles an invocation 0.72 ms, of 2 0.47; all of them
// in shared memory instead of registers 1.23.) A larger
// cell (coincident particles, a tight cluster) is only grouped by fine cell
// here, through its slice of the sorted particles' x, and listed for
// section_sort.comp (dispatched indirectly, only when there is such a cell).
#include "header.glsl"
layout(constant_id = 1) const uint CAPACITY = 2048; // the plan's order_capacity
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS
#define USE_PERM
#define PERM_ACCESS
#define USE_SORTED
#define SORTED_ACCESS coherent
#define SORTED_WRITE
#define USE_WORK_LISTS
#include "bindings.glsl"
#include "grid.glsl"
#include "scan.glsl"

layout(constant_id = 2) const uint ITEMS = FENNS_ORDER_ITEMS_WIDE; // particles an invocation holds

shared uint s_start[FENNS_SECTIONS_FINE]; // per fine cell: its count, then its start in the cell
shared uint s_original[CAPACITY];         // the cell's original indices, grouped by fine cell

// The fine cell (section) of a particle of cell c, whose first key is first_key.
uint section_of(vec3 p, uint first_key) { return particle_key(p) - first_key; }

// start[K], the end of the last cell (the invalid particles'), by its workgroup.
void write_last_start(uint c, uint end) {
    if (c == pc.cell_capacity && gl_LocalInvocationIndex == 0u) KEY_START(section_keys()) = end;
}

// The starts of a cell whose sections are all empty (or left unsorted).
void write_empty_starts(uint c, uint first_key, uint sections, uint begin, uint end) {
    for (uint s = gl_LocalInvocationIndex; s < sections; s += gl_WorkGroupSize.x) KEY_START(first_key + s) = begin;
    write_last_start(c, end);
}

// The counts in s_start become starts; writes the cell's section starts.
void write_starts(uint c, uint first_key, uint sections, uint begin, uint end) {
    uint t = gl_LocalInvocationIndex;
    if (gl_WorkGroupSize.x >= FENNS_SECTIONS_FINE) {
        // One section an invocation: a subgroup scan plus the sums of the
        // subgroups before (two barriers where the general scan takes eight).
        uint v = t < sections ? s_start[t] : 0u, inclusive = subgroupInclusiveAdd(v);
        if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_subgroup_totals[gl_SubgroupID] = inclusive;
        barrier();
        if (t < sections) {
            uint start = inclusive - v;
            for (uint g = 0u; g < gl_SubgroupID; ++g) start += s_subgroup_totals[g];
            s_start[t] = start;
            KEY_START(first_key + t) = begin + start;
        }
        barrier();
    } else {
        uint total;
        SHARED_ARRAY_EXCLUSIVE_SCAN(s_start, sections, total)
        for (uint s = t; s < sections; s += gl_WorkGroupSize.x) KEY_START(first_key + s) = begin + s_start[s];
    }
    write_last_start(c, end);
}

// A cell of more than CAPACITY particles: grouped by fine cell (in no
// particular order within one) for section_sort.comp to sort, in runs of
// sections (RUN_END).
#define RUN_START(k) ((k) == 0u ? 0u : s_start[(k) - 1u])
void group_large_cell(uint c, uint first_key, uint sections, uint begin, uint end) {
    uint t = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x, m = end - begin;
    // Three loops over the cell (llvmpipe stops an invocation's loop after
    // pc.loop_limit iterations): past that, the build is marked incomplete
    // and every search of it reports every query incomplete.
    if (pc.loop_limit != 0u && m / wg + 2u + 2u * sections > pc.loop_limit) {
        if (t == 0u) atomicAdd(prm.sort_incomplete, 1u);
        write_empty_starts(c, first_key, sections, begin, end); // consistent, if unsorted
        return;
    }
    for (uint j = t; j < m; j += wg) atomicAdd(s_start[section_of(load_position(perm[begin + j]), first_key)], 1u);
    barrier();
    write_starts(c, first_key, sections, begin, end);
    barrier(); // the starts are read before they serve as cursors
    for (uint j = t; j < m; j += wg) {
        uint original = perm[begin + j];
        uint slot = atomicAdd(s_start[section_of(load_position(original), first_key)], 1u);
        store_sorted(begin + slot, uvec4(original, 0u, 0u, 0u));
    }
    memoryBarrierBuffer();
    barrier();
    for (uint j = t; j < m; j += wg) perm[begin + j] = load_sorted(begin + j).x;
    // Its runs listed for the section sort, by their first sections' keys
    // (s_start[k]: the end of section k in the cell, the start of k + 1).
    if (t == 0u) {
        for (uint s = 0u, e; s < sections; s = e) {
            RUN_END(RUN_START, s, sections, CAPACITY, e)
            if (RUN_START(e) > RUN_START(s)) LIST_FOR(sort_list, sort, first_key + s);
        }
    }
}

void main() {
    // The narrow pipeline: every cell. The wide one: the cells it listed.
    bool wide_pipeline = ITEMS == FENNS_ORDER_ITEMS_WIDE;
    uint w = linear_workgroup();
    if (w >= (wide_pipeline ? prm.order_list_count : cell_count_with_invalid())) return;
    uint c = wide_pipeline ? order_list[w] : w;
    uint t = gl_LocalInvocationIndex, wg = gl_WorkGroupSize.x;
    uint begin = COARSE_START(c), end = COARSE_START(c + 1u), m = end - begin;
    uint first_key = c * pc.sections, sections = c == pc.cell_capacity ? 1u : pc.sections;
    // Which pipeline orders the cell: up to FENNS_ORDER_ITEMS_NARROW
    // particles an invocation the narrow one, up to CAPACITY the wide one
    // (the narrow one lists those cells for it), and larger cells are
    // grouped by the narrow one and listed for the section sort. (A
    // workgroup for every cell of the table instead, most of them leaving at
    // once: H200, 16M particles in Gaussian clusters, wide order 0.265 ms,
    // section sort 1.312.)
    bool wide_cell = m > FENNS_ORDER_ITEMS_NARROW * wg && m <= CAPACITY;
    if (!wide_pipeline && wide_cell) {
        if (t == 0u) LIST_FOR(order_list, order, c);
        return;
    }
    if (m == 0u) { // an empty cell (about half of them): only its starts
        write_empty_starts(c, first_key, sections, begin, end);
        return;
    }
    for (uint s = t; s < sections; s += wg) s_start[s] = 0u;
    barrier();
    if (m > CAPACITY) {
        group_large_cell(c, first_key, sections, begin, end);
        return;
    }
    // Read every particle (and count) before any write: the slice is
    // permuted in place. item: fine cell << 16 | slot in it (< CAPACITY).
    uint item[ITEMS], original[ITEMS];
    for (uint k = 0u; k < ITEMS; ++k) {
        uint j = k * wg + t;
        if (j < m) {
            original[k] = perm[begin + j];
            uint section = section_of(load_position(original[k]), first_key);
            item[k] = section << 16u | atomicAdd(s_start[section], 1u);
        }
    }
    barrier();
    write_starts(c, first_key, sections, begin, end);
    for (uint k = 0u; k < ITEMS; ++k)
        if (k * wg + t < m) s_original[s_start[item[k] >> 16u] + (item[k] & 0xFFFFu)] = original[k];
    barrier();
    for (uint k = 0u; k < ITEMS; ++k) {
        if (k * wg + t >= m) continue;
        uint section = item[k] >> 16u, first = s_start[section];
        uint last = section + 1u < sections ? s_start[section + 1u] : m;
        uint rank = 0u;
        for (uint i = first; i < last; ++i) rank += s_original[i] < original[k] ? 1u : 0u;
        uint place = begin + first + rank;
        perm[place] = original[k];
        store_sorted(place, uvec4(floatBitsToUint(load_position(original[k])), original[k]));
    }
}
