// Buffer declarations of the shared push-descriptor set. An entry file
// defines USE_<NAME> for each buffer it touches before including this, so a
// pipeline statically uses only what its pass reads or writes (that is what
// synchronization validation tracks).
#include "fenns_shared.h"
#include "u64.glsl"

layout(push_constant) uniform Push { fenns_push pc; };

#ifdef USE_POSITIONS
layout(std430, binding = FENNS_BINDING_POSITIONS + 0) readonly buffer Positions0 { vec4 positions0[]; };
layout(std430, binding = FENNS_BINDING_POSITIONS + 1) readonly buffer Positions1 { vec4 positions1[]; };
layout(std430, binding = FENNS_BINDING_POSITIONS + 2) readonly buffer Positions2 { vec4 positions2[]; };
layout(std430, binding = FENNS_BINDING_POSITIONS + 3) readonly buffer Positions3 { vec4 positions3[]; };
// Input particles may exceed maxStorageBufferRange: element i lives in chunk
// i >> chunk_shift16. The branch is uniform for all but one workgroup.
vec3 load_position(uint i) {
    uint c = i >> pc.chunk_shift16, k = i & ((1u << pc.chunk_shift16) - 1u);
    if (c == 0u) return positions0[k].xyz;
    if (c == 1u) return positions1[k].xyz;
    if (c == 2u) return positions2[k].xyz;
    return positions3[k].xyz;
}
#endif

#ifdef USE_SORTED
#ifndef SORTED_ACCESS
#define SORTED_ACCESS readonly
#endif
layout(std430, binding = FENNS_BINDING_SORTED + 0) SORTED_ACCESS buffer Sorted0 { uvec4 sorted0[]; };
layout(std430, binding = FENNS_BINDING_SORTED + 1) SORTED_ACCESS buffer Sorted1 { uvec4 sorted1[]; };
layout(std430, binding = FENNS_BINDING_SORTED + 2) SORTED_ACCESS buffer Sorted2 { uvec4 sorted2[]; };
layout(std430, binding = FENNS_BINDING_SORTED + 3) SORTED_ACCESS buffer Sorted3 { uvec4 sorted3[]; };
// A sorted particle: xyz as float bits, w = its original index (bit casts
// are exact; storing the index in a float could be flushed as a denormal).
// SORTED_CHUNKS 1: the pipeline variant for sorted particles within one
// binding, one load with no branch.
layout(constant_id = 5) const uint SORTED_CHUNKS = FENNS_CHUNKS;
// The body of a load of element i from uvec4 arrays name0..name3 in chunks.
#define LOAD_CHUNKED_(name, i)                                                  \
    if (SORTED_CHUNKS == 1u) return name##0[i];                                 \
    uint c = i >> pc.chunk_shift16, k = i & ((1u << pc.chunk_shift16) - 1u);    \
    if (c == 0u) return name##0[k];                                             \
    if (c == 1u) return name##1[k];                                             \
    if (c == 2u) return name##2[k];                                             \
    return name##3[k];
uvec4 load_sorted(uint i) { LOAD_CHUNKED_(sorted, i) }
#ifdef SORTED_WRITE
void store_sorted(uint i, uvec4 v) {
    uint c = i >> pc.chunk_shift16, k = i & ((1u << pc.chunk_shift16) - 1u);
    if (c == 0u) sorted0[k] = v;
    else if (c == 1u) sorted1[k] = v;
    else if (c == 2u) sorted2[k] = v;
    else sorted3[k] = v;
}
#endif
#endif

#ifdef USE_CANDIDATES
// Point sets: the build whose particles the search tests as candidates
// (fenns_search_info.candidate_scratch, else the searching build itself),
// bound in slots the search leaves free (fenns_shared.h).
layout(std430, binding = FENNS_BINDING_CANDIDATE_SORTED + 0) readonly buffer Candidates0 { uvec4 candidates0[]; };
layout(std430, binding = FENNS_BINDING_CANDIDATE_SORTED + 1) readonly buffer Candidates1 { uvec4 candidates1[]; };
layout(std430, binding = FENNS_BINDING_CANDIDATE_SORTED + 2) readonly buffer Candidates2 { uvec4 candidates2[]; };
layout(std430, binding = FENNS_BINDING_CANDIDATE_SORTED + 3) readonly buffer Candidates3 { uvec4 candidates3[]; };
layout(std430, binding = FENNS_BINDING_CANDIDATE_CELLS) readonly buffer CandidateCells { uint candidate_cells[]; };
layout(std430, binding = FENNS_BINDING_CANDIDATE_PARAMS) readonly buffer CandidateParams { fenns_gpu_params candidate_prm; };
#define CANDIDATE_KEY_START(k) candidate_cells[(k)]
// As load_sorted, from the candidates' build.
uvec4 load_candidate(uint i) { LOAD_CHUNKED_(candidates, i) }
#endif

#ifdef USE_PARAMS
layout(std430, binding = FENNS_BINDING_PARAMS) PARAMS_ACCESS buffer Params { fenns_gpu_params prm; };
#endif
#ifdef USE_GPU_COUNT
// The caller's particle count, written on the GPU (or the status block
// standing in when there is none: pc.gpu_count == 0, never read).
layout(std430, binding = FENNS_BINDING_GPU_COUNT) readonly buffer GpuCount { uint gpu_count_value; };
// The particles the build was asked for (the count buffer may ask for more
// than the n the positions hold: the build takes min(requested, n)).
uint requested_particles() { return pc.gpu_count != 0u ? gpu_count_value : pc.n; }
#endif
#ifdef USE_PARAMS
// The particles of this build: n, or the caller's GPU count capped at n
// (grid setup writes it; particles from there to n are absent).
uint particle_count() { return pc.gpu_count != 0u ? prm.particle_count : pc.n; }
#endif
#ifdef USE_CELLS
layout(std430, binding = FENNS_BINDING_CELLS) CELLS_ACCESS buffer Cells { uint cells[]; };
// Cell tables. A key is a section of a cell, cell * pc.sections + section;
// one extra key after all cells' holds the invalid particles, and the extra
// "cell" pc.cell_capacity stands for them in per-cell tables.
uint section_keys() { return pc.cell_capacity * pc.sections + 1u; }
uint cell_count_with_invalid() { return pc.cell_capacity + 1u; }
#define KEY_START(k) cells[(k)]
#define WORK_START(c) cells[pc.work_base + (c)]
uint cell_begin(uint c) { return KEY_START(c * pc.sections); }
// The invalid particles' "cell" runs to n: it holds the absent particles
// (from a GPU count on) after the invalid ones, as the reorder placed them.
uint cell_end(uint c) {
    return c == pc.cell_capacity ? pc.n : KEY_START((c + 1u) * pc.sections);
}
// fenns places its particles one of two ways (the plan picks by the size of
// the section table, fenns_plan.by_cell):
// - by fine cell (section): the coarse count keeps what each particle's
//   atomic returned, its place among its section's particles, with its key
//   (ranks, below), and counts key k at k, so the scan leaves the start of k
//   there and the reorder places each particle at its section's start plus
//   its place, with no atomic of its own (fenns_plan_ranked). Where the
//   coarse count uses its shared histogram (small tables), whose atomics
//   return no place in the whole section, it counts key k one entry on
//   instead, so the scan leaves the start of k there and the reorder places
//   k's particles with that entry as its cursor, leaving the start of k + 1.
//   Neither needs a cursor array. section_order.comp then orders each
//   section.
// - by coarse cell (places_by_cell): one counter per coarse cell (and one for
//   the invalid particles), kept where the work table goes (free until the
//   search work pass), counted one entry on as above, at COARSE_START(c + 1).
//   cell_order.comp then orders each cell by section and writes the section
//   starts. A table of one counter per particle or so outgrows the L2 cache
//   past about 10^7 particles, and random-order atomics all over it are slow.
// The other methods count in place and place with cursors.
bool places_by_cell() { return pc.by_cell != 0u; }
bool starts_are_cursors() { return pc.sections == FENNS_SECTIONS_FINE && pc.by_cell == 0u; }
uint count_slot(uint k) { return starts_are_cursors() ? k + 1u : k; }
#define COARSE_START(c) cells[pc.work_base + (c)]
#ifdef USE_WORK_ITEMS
#ifndef WORK_ITEMS_ACCESS
#define WORK_ITEMS_ACCESS readonly
#endif
// The search's work items (fenns_shared.h), written by the search work pass.
layout(std430, binding = FENNS_BINDING_CELLS) WORK_ITEMS_ACCESS buffer WorkItems { uvec4 work_items[]; };
#define WORK_ITEM(i) work_items[FENNS_WORK_ITEMS_BASE(pc.work_base, pc.cell_capacity) / 4u + (i)]
#endif
#endif
#ifdef USE_RANKS
// fenns by section (the coarse count with pc.mode 2, reorder_ranked.comp): each
// particle's key and its place among that key's particles.
layout(std430, binding = FENNS_BINDING_RANKS) RANKS_ACCESS buffer Ranks { uvec2 ranks[]; };
#endif
#ifdef USE_CURSORS
// Where the reorder places the next particle of each section (fenns_plan_scratch's cursors).
layout(std430, binding = FENNS_BINDING_CURSORS) buffer Cursors { uint cursors[]; };
#define LEFT_CURSOR(k) cursors[(k)]
#define RIGHT_CURSOR(k) cursors[section_keys() + (k)]
#endif
#ifdef USE_WORK_LISTS
// By coarse cell, the cell order lists each run of a large cell's sections
// for the section sort: from section s as many sections as hold `cap`
// particles (the cell order's capacity), or s alone where it holds more.
// Both passes find the run's end e by this rule from the section starts
// START(k), k <= sections.
#define RUN_END(START, s, sections, cap, e)                                     \
    {                                                                           \
        e = (s) + 1u;                                                           \
        while (e < (sections) && START(e + 1u) - START(s) <= (cap)) ++e;        \
    }
// fenns: what the order passes left to a later pass, listed in no
// particular order, one workgroup each there. The section sort's
// (prm.sort_list_count): by section, long sections' keys; by cell, the runs
// of large cells' sections, by their first sections' keys. The wide cell
// order's (prm.order_list_count): cells.
layout(std430, binding = FENNS_BINDING_SORT_LIST) buffer SortList { uint sort_list[]; };
#ifndef FENNS_NO_ORDER_LIST
layout(std430, binding = FENNS_BINDING_ORDER_LIST) buffer OrderList { uint order_list[]; };
#endif
// Lists `item` for the pass whose count and dispatch are prm.name_count and
// prm.name_dispatch_*.
#define LIST_FOR(list, name, item)                                              \
    {                                                                           \
        uint slot_ = atomicAdd(prm.name##_list_count, 1u);                      \
        list[slot_] = (item);                                                   \
        ASK_DISPATCH(name##_dispatch, slot_ + 1u);                              \
    }
#endif
#ifdef USE_PERM
layout(std430, binding = FENNS_BINDING_PERM) PERM_ACCESS buffer Perm { uint perm[]; };
#endif
#ifdef USE_ATTRIBUTES // fenns_cmd_reorder: the caller's buffers, in the scan's slots
layout(std430, binding = FENNS_BINDING_SCAN_IN) readonly buffer AttributesIn { uint attributes_in[]; };
layout(std430, binding = FENNS_BINDING_SCAN_OUT) writeonly buffer AttributesOut { uint attributes_out[]; };
#endif
#ifdef USE_SCAN
layout(std430, binding = FENNS_BINDING_SCAN_IN) readonly buffer ScanIn { uint scan_in[]; };
layout(std430, binding = FENNS_BINDING_SCAN_OUT) buffer ScanOut { uint scan_out[]; };
layout(std430, binding = FENNS_BINDING_SCAN_SUMS) buffer ScanSums { uint scan_sums[]; };
#endif
#ifdef USE_COUNTS
#ifndef COUNTS_ACCESS
#define COUNTS_ACCESS writeonly
#endif
layout(std430, binding = FENNS_BINDING_COUNTS) COUNTS_ACCESS buffer Counts { uint counts[]; };
#endif
#ifdef USE_OFFSETS
layout(std430, binding = FENNS_BINDING_OFFSETS) readonly buffer Offsets { uvec2 offsets[]; }; // u64
#endif
#ifdef USE_PART_FIRSTS
// Word (k - 1) * n + i: the list index where part k of the list of query i
// (its output index) starts (k >= 1; part 0 starts at 0), or for k = lanes
// where its last part ends (the list's length).
layout(std430, binding = FENNS_BINDING_PART_FIRSTS) buffer PartFirsts { uint part_firsts[]; };
#endif
#ifdef USE_SCAN64
// The CSR offsets scan: u32 counts in, u64 offsets and block sums out.
layout(std430, binding = FENNS_BINDING_SCAN_IN) readonly buffer ScanIn { uint scan_in[]; };
layout(std430, binding = FENNS_BINDING_SCAN_OUT) buffer ScanOut { uvec2 scan_out[]; };
layout(std430, binding = FENNS_BINDING_SCAN_SUMS) buffer ScanSums { uvec2 scan_sums[]; };
#endif
#ifdef USE_INDICES
// The lists may exceed maxStorageBufferRange many times over: entry i (a
// u64, past 2^32 for the largest searches) lives in chunk i >> chunk_shift4.
// Pipelines come in two variants: INDEX_CHUNKS 1, for lists within one
// binding (one store, the common case; bound whole, up to
// maxStorageBufferRange: fenns_plan_lists_one_binding), and
// FENNS_INDEX_CHUNKS, each chunk the range's largest power of two.
layout(constant_id = 3) const uint INDEX_CHUNKS = FENNS_INDEX_CHUNKS;
// 1 for the windowed one-store searches (INDEX_CHUNKS 1): lists past one
// binding, written a window a dispatch, the window's lists bound as one
// binding from its first entry (list_window_first; search_common.glsl's
// list_target_of). Their own pipelines, so that the one-binding searches
// carry no window test (H100: 1-4% on every set, run BF).
layout(constant_id = 12) const uint LIST_WINDOWED = 0;
#define INDEX_CHUNK_(c) layout(std430, binding = FENNS_BINDING_INDICES + c) INDICES_ACCESS buffer Indices##c { uint indices##c[]; };
INDEX_CHUNK_(0) INDEX_CHUNK_(1) INDEX_CHUNK_(2) INDEX_CHUNK_(3) INDEX_CHUNK_(4) INDEX_CHUNK_(5)
INDEX_CHUNK_(6) INDEX_CHUNK_(7) INDEX_CHUNK_(8) INDEX_CHUNK_(9) INDEX_CHUNK_(10) INDEX_CHUNK_(11)
#undef INDEX_CHUNK_
#ifdef USE_INDEX_QUADS
// The chunks again, as quads of entries (descriptors may alias): lists are
// stored 16 bytes at a time where they can be. A chunk holds a power of two
// entries (>= 2^14), so no aligned quad straddles two.
#define INDEX_QUADS_(c) layout(std430, binding = FENNS_BINDING_INDICES + c) INDICES_ACCESS buffer IndexQuads##c { uvec4 index_quads##c[]; };
INDEX_QUADS_(0) INDEX_QUADS_(1) INDEX_QUADS_(2) INDEX_QUADS_(3) INDEX_QUADS_(4) INDEX_QUADS_(5)
INDEX_QUADS_(6) INDEX_QUADS_(7) INDEX_QUADS_(8) INDEX_QUADS_(9) INDEX_QUADS_(10) INDEX_QUADS_(11)
#undef INDEX_QUADS_
#endif
// Chunk and element of entry i (chunk_shift4 < 32, so the chunk is the
// entry's bits from chunk_shift4 up, taken from both halves).
uvec2 index_place(uvec2 i) {
    uint s = pc.chunk_shift4;
    return uvec2((i.x >> s) | (i.y << (32u - s)), i.x & ((1u << s) - 1u));
}
void store_index(uvec2 i, uint v) {
    if (INDEX_CHUNKS == 1u) {
        indices0[i.x] = v;
        return;
    }
    uvec2 at = index_place(i);
    uint k = at.y;
    switch (at.x) {
    case 0u: indices0[k] = v; break;
    case 1u: indices1[k] = v; break;
    case 2u: indices2[k] = v; break;
    case 3u: indices3[k] = v; break;
    case 4u: indices4[k] = v; break;
    case 5u: indices5[k] = v; break;
    case 6u: indices6[k] = v; break;
    case 7u: indices7[k] = v; break;
    case 8u: indices8[k] = v; break;
    case 9u: indices9[k] = v; break;
    case 10u: indices10[k] = v; break;
    default: indices11[k] = v; break;
    }
}
#ifdef USE_INDEX_QUADS
// Stores entries i..i+3 (i a multiple of 4).
void store_index_quad(uvec2 i, uvec4 v) {
    if (INDEX_CHUNKS == 1u) {
        index_quads0[i.x >> 2u] = v;
        return;
    }
    uvec2 at = index_place(i);
    uint k = at.y >> 2u;
    switch (at.x) {
    case 0u: index_quads0[k] = v; break;
    case 1u: index_quads1[k] = v; break;
    case 2u: index_quads2[k] = v; break;
    case 3u: index_quads3[k] = v; break;
    case 4u: index_quads4[k] = v; break;
    case 5u: index_quads5[k] = v; break;
    case 6u: index_quads6[k] = v; break;
    case 7u: index_quads7[k] = v; break;
    case 8u: index_quads8[k] = v; break;
    case 9u: index_quads9[k] = v; break;
    case 10u: index_quads10[k] = v; break;
    default: index_quads11[k] = v; break;
    }
}
#endif
#ifdef INDICES_READ
uint load_index(uvec2 i) {
    if (INDEX_CHUNKS == 1u) return indices0[i.x];
    uvec2 at = index_place(i);
    uint k = at.y;
    switch (at.x) {
    case 0u: return indices0[k];
    case 1u: return indices1[k];
    case 2u: return indices2[k];
    case 3u: return indices3[k];
    case 4u: return indices4[k];
    case 5u: return indices5[k];
    case 6u: return indices6[k];
    case 7u: return indices7[k];
    case 8u: return indices8[k];
    case 9u: return indices9[k];
    case 10u: return indices10[k];
    default: return indices11[k];
    }
}
#endif
#endif
// radix: the sort's keys (cell sections) and values (particle indices), read
// from one pass's arrays (USE_RADIX_IN) and written to the next's
// (USE_RADIX_OUT); each tile's digit counts (USE_RADIX_HISTOGRAM).
#ifdef USE_RADIX_IN
layout(std430, binding = FENNS_BINDING_RADIX_KEYS_IN) readonly buffer RadixKeysIn { uint radix_keys_in[]; };
#ifndef RADIX_KEYS_ONLY
layout(std430, binding = FENNS_BINDING_RADIX_VALUES_IN) readonly buffer RadixValuesIn { uint radix_values_in[]; };
#endif
#endif
#ifdef USE_RADIX_OUT
layout(std430, binding = FENNS_BINDING_RADIX_KEYS_OUT) writeonly buffer RadixKeysOut { uint radix_keys_out[]; };
layout(std430, binding = FENNS_BINDING_RADIX_VALUES_OUT) writeonly buffer RadixValuesOut { uint radix_values_out[]; };
#endif
#ifdef USE_RADIX_HISTOGRAM
layout(std430, binding = FENNS_BINDING_RADIX_HISTOGRAM) RADIX_HISTOGRAM_ACCESS buffer RadixHistogram { uint radix_histogram[]; };
// Elements a workgroup sorts at once, in FENNS_RADIX_ITEMS rounds, and the
// digit of a key in this pass (pc.mode: the pass's shift).
uint radix_tile() { return gl_WorkGroupSize.x * FENNS_RADIX_ITEMS; }
uint radix_digit(uint key) { return (key >> pc.mode) & (FENNS_RADIX_DIGITS - 1u); }
#endif

// Workgroups of a linear job are laid out in rows (the x count is limited to
// 65535 on many devices); direct and indirect dispatches alike.
uint linear_workgroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
// The VkDispatchIndirectCommand of `groups` such workgroups (fenns__dispatch's rows).
uvec3 workgroup_rows(uint groups) {
    uint x = min(groups, 65535u);
    return uvec3(x, x == 0u ? 0u : (groups + x - 1u) / x, 1u);
}
#ifdef USE_PARAMS
// Sets the indirect dispatch prm.name_x/y/z to `rows` (a uvec3).
#define STORE_DISPATCH(name, rows)                                              \
    {                                                                           \
        uvec3 rows_ = (rows);                                                   \
        prm.name##_x = rows_.x;                                                 \
        prm.name##_y = rows_.y;                                                 \
        prm.name##_z = rows_.z;                                                 \
    }
#endif
#if defined(USE_PARAMS) && defined(USE_CELLS)
// Asks for the indirect dispatch prm.name_x/y/z of at least `groups`
// workgroups (every asker's rows are kept): LIST_FOR's, one per item listed.
#define ASK_DISPATCH(name, groups)                                              \
    {                                                                           \
        uvec3 rows_ = workgroup_rows(groups);                                   \
        atomicMax(prm.name##_x, rows_.x);                                       \
        atomicMax(prm.name##_y, rows_.y);                                       \
        atomicMax(prm.name##_z, rows_.z);                                       \
    }
#endif
