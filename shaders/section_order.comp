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
// FENNS_SMALL_SECTION entries) is finished by the chunk's first
// invocations; the next chunk skips the entries before its first own
// section, which it finds from its first entry (an atomic read: the
// previous chunk may be permuting it, and every value it can see lies in
// the same section; those permuting stores past the chunk are atomic too).
//
// A section of more than FENNS_SMALL_SECTION particles (coincident ones, tight
// clusters) is listed for section_sort.comp, one workgroup a listed section,
// dispatched (indirectly) only when there are some.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS
#define USE_WORK_LISTS
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#include "bindings.glsl"
#include "grid.glsl"

shared uint s_own_begin; // the chunk's first position in a section of its own
shared uint s_own_end;   // one past its sections' last position (past the chunk: the last one's tail)

// One sorted position's particle: where its record goes (NO_PLACE: not
// this workgroup's, or a long section's).
#define NO_PLACE 0xFFFFFFFFu
struct placed {
    uint original;
    vec3 p;
    uint place;
};

// Reads position i's particle and ranks it in its section (reads only).
placed rank_of(uint i, uint chunk, out uint section_end) {
    placed r;
    r.original = perm[i];
    r.p = load_position(r.original);
    uint key = particle_key(r.p);
    uint begin = KEY_START(key), end = KEY_START(key + 1u);
    section_end = end;
    r.place = NO_PLACE;
    if (end - begin > FENNS_SMALL_SECTION) {
        if (i == begin) LIST_FOR(sort_list, sort, key); // once, by its first entry
        return r;
    }
    if (begin < chunk) return r; // the previous chunk's section
    uint rank = 0u;
    for (uint j = begin; j < end; ++j) rank += perm[j] < r.original ? 1u : 0u;
    r.place = begin + rank;
    return r;
}

// Writes a ranked particle (after the workgroup's reads).
void place(placed r, uint chunk_end) {
    if (r.place == NO_PLACE) return;
    if (r.place < chunk_end) perm[r.place] = r.original;
    else atomicExchange(perm[r.place], r.original); // the next chunk may read it
    store_sorted(r.place, uvec4(floatBitsToUint(r.p), r.original));
}

void main() {
    uint t = gl_LocalInvocationIndex, chunk = linear_workgroup() * gl_WorkGroupSize.x;
    uint chunk_end = chunk + gl_WorkGroupSize.x, n = particle_count(), i = chunk + t;
    if (t == 0u) {
        uint own = chunk;
        if (chunk > 0u && chunk < n) {
            uint key = particle_key(load_position(atomicOr(perm[chunk], 0u)));
            if (KEY_START(key) < chunk) own = KEY_START(key + 1u);
        }
        s_own_begin = own;
        s_own_end = chunk_end;
    }
    barrier();
    placed mine = placed(0u, vec3(0.0), NO_PLACE);
    if (i >= s_own_begin && i < n) {
        uint end;
        mine = rank_of(i, chunk, end);
        if (t == gl_WorkGroupSize.x - 1u && mine.place != NO_PLACE && end > chunk_end) s_own_end = end;
    }
    barrier();
    // The tail of the chunk's last section, past the chunk.
    placed tail = placed(0u, vec3(0.0), NO_PLACE);
    uint tail_i = chunk_end + t;
    if (tail_i < s_own_end && tail_i < n) {
        uint end;
        tail = rank_of(tail_i, chunk, end);
    }
    memoryBarrierBuffer(); // every read of the permutation before any write
    barrier();
    place(mine, chunk_end);
    place(tail, chunk_end);
}
