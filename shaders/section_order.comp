#version 450
#extension GL_GOOGLE_include_directive : require
// fenns (deterministic) only: sort every section's slice of the permutation
// by original index, so the sorted layout no longer depends on the order the
// reorder's atomics ran in, and write the sorted particles. One invocation
// per sorted position: it reads its particle (perm, position: consecutive
// invocations read consecutive entries), finds its section from the
// particle's key and its rank there by comparing indices with the section's
// few other entries, and writes its record at begin + rank. (One invocation
// per section instead, looping over its 0-4 entries: H100, 4M particles,
// sph50 0.214 -> 0.164 ms, in frame order 0.143 -> 0.117, dam 0.285 ->
// 0.118; 16M frame order 0.618 -> 0.489.)
//
// The permutation is sorted in place, so each section is written by one
// workgroup, the one whose chunk of positions holds its first entry: its
// invocations read all entries before a barrier and write after it. A
// section that starts in the chunk and runs past it (at most
// FENNS_SMALL_SECTION entries) is finished by the same workgroup: its last
// size / 16 invocations (FENNS_SECTION_ORDER_CHUNK) rank the positions past the
// chunk alongside the others (those of the next chunk's sections place
// nothing), and a tail longer than that is ranked after a barrier. Every
// invocation reads one position before the barrier, so no chain of loads
// runs ahead of the others: an invocation that first found where the
// chunk's own sections begin (the entry at its start, its particle, its
// section's start) cost every workgroup a wait (H100, 4M particles: sph50
// 0.164 -> 0.163 ms, in frame order 0.117 -> 0.106, dam 0.117 -> 0.101;
// 1M 0.038 -> 0.034; run CE). The next chunk skips the entries before
// its first own section, which each invocation tells from its section's
// start. Entries a neighbouring workgroup may read or write meanwhile are
// read and written by atomics: the chunk's first FENNS_SMALL_SECTION
// positions (the previous chunk's last section may run into them, and it
// ranks the first of them ahead) and those past the chunk.
//
// A section of more than FENNS_SMALL_SECTION particles (coincident ones, tight
// clusters) is listed for section_sort.comp, one workgroup a listed section,
// dispatched (indirectly) only when there are some.
//
// In ranked builds on a GPU (fenns_plan.work_list_in_order) the first
// pc.count workgroups run the search work list's second pass instead
// (search_work_list.glsl), which needs only the cell starts and the first
// pass's block totals (recorded beside the reorder): one pass's wait fewer
// a build. In one dispatch, as two beside each other could not be: both
// write the status block, and two dispatches writing one bound range need a
// barrier between them. (H100, build: sph50 65536 0.0583 -> 0.0510 ms,
// 262144 0.0760 -> 0.0683, 1M 0.1353 -> 0.1275, 4M 0.4589 -> 0.4505, in
// frame order 0.2847 -> 0.2777, dam 4M 0.2620 -> 0.2522; run MD. With the
// work list's shared arrays declared for four cells an invocation (8 KiB)
// rather than one, the section order itself slowed, 4M 0.162 -> 0.178 ms:
// run MC.) A CPU driver drains nothing at a barrier, and there the work
// list in this shader, even never taken, slowed the section order (lavapipe,
// sph50 262144: 23 -> 29 ms): its pipeline has WORK_CELLS 0, which compiles
// the work list out, and the work list stays a pass of its own.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS
#define USE_WORK_LISTS
#define FENNS_NO_ORDER_LIST // its binding holds the work list's block totals here
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#define USE_WORK_ITEMS
#define WORK_ITEMS_ACCESS writeonly
#include "bindings.glsl"
#include "grid.glsl"
// The work table, written through an alias of the read-only cell tables.
layout(std430, binding = FENNS_BINDING_CELLS) writeonly buffer WorkTable { uint work_table[]; };
#define WORK_TABLE(c) work_table[pc.work_base + (c)]
#define WORK_LIST_SHARED_CELLS 1 // fenns_plan.work_list_in_order needs work_list_cells 1
#include "search_work_list.glsl"

shared uint s_own_end; // one past its sections' last position (past the chunk: the last one's tail)

// The chunk of positions a workgroup orders (fenns_shared.h).
uint chunk_size() { return FENNS_SECTION_ORDER_CHUNK(gl_WorkGroupSize.x); }
uint ahead() { return gl_WorkGroupSize.x - chunk_size(); }

// One sorted position's particle: where its record goes (NO_PLACE: not
// this workgroup's, or a long section's).
#define NO_PLACE 0xFFFFFFFFu
struct placed {
    uint original;
    vec3 p;
    uint place;
};

// Reads position i's particle and ranks it in its section (reads only):
// placed where the section starts in the chunk [chunk, chunk_end) and is
// short.
placed rank_of(uint i, uint chunk, uint chunk_end, out uint section_end) {
    placed r;
    bool shared_entry = i < chunk + FENNS_SMALL_SECTION || i >= chunk_end; // see above
    r.original = shared_entry ? atomicOr(perm[i], 0u) : perm[i];
    r.p = load_position(r.original);
    uint key = particle_key(r.p);
    uint begin = KEY_START(key), end = KEY_START(key + 1u);
    section_end = end;
    r.place = NO_PLACE;
    // A neighbouring chunk's section. (Its entries may be rewritten
    // meanwhile, but only by others of the same section: any of them
    // gives the same key.)
    if (begin < chunk || begin >= chunk_end) return r;
    if (end - begin > FENNS_SMALL_SECTION) {
        if (i == begin) LIST_FOR(sort_list, sort, key); // once, by its first entry
        return r;
    }
    uint rank = 0u;
    for (uint j = begin; j < end; ++j) rank += perm[j] < r.original ? 1u : 0u;
    r.place = begin + rank;
    return r;
}

// Writes a ranked particle (after the workgroup's reads).
void place(placed r, uint chunk, uint chunk_end) {
    if (r.place == NO_PLACE) return;
    if (r.place >= chunk + ahead() && r.place < chunk_end) perm[r.place] = r.original;
    else atomicExchange(perm[r.place], r.original); // the previous chunk ranks ahead here; the next one reads its head
    store_sorted(r.place, uvec4(floatBitsToUint(r.p), r.original));
}

// Orders the chunk of sorted positions `group`.
void order_chunk(uint group) {
    uint t = gl_LocalInvocationIndex, size = chunk_size(), chunk = group * size;
    uint chunk_end = chunk + size, n = particle_count(), i = chunk + t; // past chunk_end: ranked ahead
    placed mine = placed(0u, vec3(0.0), NO_PLACE);
    uint end = 0u;
    if (i < n) mine = rank_of(i, chunk, chunk_end, end);
    if (t == size - 1u) s_own_end = mine.place != NO_PLACE && end > chunk_end ? end : chunk_end;
    barrier();
    // The rest of a tail longer than the positions ranked ahead.
    placed tail = placed(0u, vec3(0.0), NO_PLACE);
    uint tail_i = chunk_end + ahead() + t;
    if (tail_i < s_own_end && tail_i < n) tail = rank_of(tail_i, chunk, chunk_end, end);
    memoryBarrierBuffer(); // every read of the permutation before any write
    barrier();
    place(mine, chunk, chunk_end);
    place(tail, chunk, chunk_end);
}

void main() {
    uint group = linear_workgroup();
    // WORK_CELLS 0: a pipeline without the work list (CPU drivers), which
    // compiles to the section order alone.
    if (WORK_CELLS != 0u && group < pc.count) search_work_list(group);
    else order_chunk(group - pc.count);
}
