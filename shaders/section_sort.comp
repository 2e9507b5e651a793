#version 450
#extension GL_GOOGLE_include_directive : require
// fenns (deterministic) only, after the build's order pass: what it left,
// sorted by (section, original index), and its sorted particles written.
// - By cell (cell_order.comp): the cells of more than its capacity
//   (pc.count) particles, grouped by section (fine cell) but not ordered
//   within one. It lists each run of their sections (RUN_END: as many as
//   hold its capacity, or one that holds more), and one workgroup per
//   listed run bitonic-sorts it in shared memory by (section, original
//   index). (A workgroup per cell, its runs one after another: H200, 16M
//   particles in Gaussian clusters, 0.97 ms.)
// - By section (section_order.comp): the sections of more than
//   FENNS_SMALL_SECTION particles, which it listed. One workgroup per listed
//   section, so the many long sections of a dense cell are sorted side by
//   side (H200, 4M particles in Gaussian clusters: a workgroup per cell,
//   sorting the runs that hold one, spent 0.42 ms here).
// Dispatched indirectly, by the order pass, only when there are some. A
// section larger than SORT_CAPACITY is sorted in SORT_CAPACITY runs merged
// in global memory: ping-ponging between the permutation and the section's
// own slice of the sorted particles, which holds nothing until its gather
// (so the build needs no sort buffer of its own, 4 bytes a particle).
#include "header.glsl"
layout(constant_id = 1) const uint SORT_CAPACITY = 1024; // power of two
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS coherent
#define USE_WORK_LISTS
#define USE_POSITIONS
#define USE_SORTED
#define SORTED_ACCESS coherent
#define SORTED_WRITE
#include "bindings.glsl"
#include "bitonic.glsl"

// The merge's second array: entry i in the x of sorted particle i.
uint tmp_load(uint i) { return load_sorted(i).x; }
void tmp_store(uint i, uint v) { store_sorted(i, uvec4(v, 0u, 0u, 0u)); }

uint log2_ceil(uint v) { return v <= 1u ? 0u : findMSB(v - 1u) + 1u; }

// Loop iterations one invocation runs in sort_section(len): the bitonic runs
// and the merge passes (llvmpipe stops an invocation after pc.loop_limit).
uint sort_section_steps(uint len) {
    uint wg = gl_WorkGroupSize.x, b = log2_ceil(SORT_CAPACITY), runs = (len + SORT_CAPACITY - 1u) / SORT_CAPACITY;
    uint per_run = (b * (b + 1u) / 2u + 2u) * ((SORT_CAPACITY + wg - 1u) / wg + 1u) + b;
    return runs * per_run + log2_ceil(runs) * ((len + wg - 1u) / wg + 1u) * (log2_ceil(len) + 2u) + 4u * len / wg;
}

void sort_section(uint begin, uint len) {
    // Runs of SORT_CAPACITY, each sorted in shared memory.
    for (uint run = 0u; run < len; run += SORT_CAPACITY) {
        uint run_len = min(SORT_CAPACITY, len - run);
        uint padded = next_pow2_at_least_2(run_len);
        for (uint i = gl_LocalInvocationIndex; i < padded; i += gl_WorkGroupSize.x) {
            s_bitonic[i] = i < run_len ? perm[begin + run + i] : 0xFFFFFFFFu;
            s_bitonic_section[i] = i < run_len ? 0u : 0xFFFFFFFFu;
        }
        barrier();
        bitonic_sort_shared(padded);
        for (uint i = gl_LocalInvocationIndex; i < run_len; i += gl_WorkGroupSize.x)
            perm[begin + run + i] = s_bitonic[i];
        barrier();
    }
    if (len <= SORT_CAPACITY) return;

    // Merge pairs of sorted runs, ping-ponging between perm and tmp.
    // Values are distinct, so an element's place is its index in its run plus
    // the number of smaller values in the partner run.
    bool in_perm = true;
    for (uint width = SORT_CAPACITY; width < len; width <<= 1u) {
        memoryBarrierBuffer();
        barrier();
        for (uint i = gl_LocalInvocationIndex; i < len; i += gl_WorkGroupSize.x) {
            uint pair = i / (2u * width) * (2u * width);
            bool left = i - pair < width;
            uint own_begin = left ? pair : pair + width;
            uint other_begin = left ? pair + width : pair;
            uint other_end = left ? min(pair + 2u * width, len) : pair + width;
            if (other_begin >= len) other_begin = other_end = len;
            uint v = in_perm ? perm[begin + i] : tmp_load(begin + i);
            uint lo = other_begin, hi = other_end; // first partner element > v
            while (lo < hi) {
                uint mid = (lo + hi) >> 1u;
                uint w = in_perm ? perm[begin + mid] : tmp_load(begin + mid);
                if (w < v) lo = mid + 1u; else hi = mid;
            }
            uint place = pair + (i - own_begin) + (lo - other_begin);
            if (in_perm) tmp_store(begin + place, v); else perm[begin + place] = v;
        }
        in_perm = !in_perm;
    }
    memoryBarrierBuffer();
    barrier();
    if (!in_perm)
        for (uint i = gl_LocalInvocationIndex; i < len; i += gl_WorkGroupSize.x) perm[begin + i] = tmp_load(begin + i);
    memoryBarrierBuffer();
    barrier();
}

shared uint s_bounds[FENNS_SECTIONS_FINE + 1];

// The sorted particles of the cell's slice [begin, begin + len).
void gather(uint begin, uint len) {
    memoryBarrierBuffer(); // the sort's perm writes, before other invocations read them
    barrier();
    for (uint i = gl_LocalInvocationIndex; i < len; i += gl_WorkGroupSize.x) {
        uint v = perm[begin + i];
        store_sorted(begin + i, uvec4(floatBitsToUint(load_position(v)), v));
    }
}

// Sorts the run of sections [s0, s1) (at most SORT_CAPACITY particles) in
// one go by (section, original index): sections are contiguous already, so
// each comes out sorted in place.
void sort_sections(uint s0, uint s1) {
    uint begin = s_bounds[s0], len = s_bounds[s1] - begin;
    uint padded = next_pow2_at_least_2(len);
    for (uint i = gl_LocalInvocationIndex; i < padded; i += gl_WorkGroupSize.x) {
        uint section = 0xFFFFFFFFu;
        if (i < len) { // the last section starting at or before begin + i
            uint lo = s0, hi = s1;
            while (hi - lo > 1u) {
                uint mid = (lo + hi) >> 1u;
                if (s_bounds[mid] <= begin + i) lo = mid; else hi = mid;
            }
            section = lo;
        }
        s_bitonic[i] = i < len ? perm[begin + i] : 0xFFFFFFFFu;
        s_bitonic_section[i] = section;
    }
    barrier();
    bitonic_sort_shared(padded);
    for (uint i = gl_LocalInvocationIndex; i < len; i += gl_WorkGroupSize.x) perm[begin + i] = s_bitonic[i];
    barrier();
}

// The loop iterations of sorting and gathering a slice of `len` whose
// runs sort in `sort_steps` (llvmpipe stops an invocation after
// pc.loop_limit): over the limit, the searches of this build report every
// query incomplete.
bool within_loop_limit(uint len, uint sort_steps) {
    if (pc.loop_limit == 0u || 1024u + len / gl_WorkGroupSize.x + sort_steps <= pc.loop_limit) return true;
    if (gl_LocalInvocationIndex == 0u) atomicAdd(prm.sort_incomplete, 1u);
    return false;
}

// Sorts the sections [s0, s1) of s_bounds by (section, original index) and
// gathers their sorted particles: a slice longer than SORT_CAPACITY (one
// section) by runs merged in global memory, a shorter one in one go.
// extra_steps: the caller's own loop iterations, for the loop limit.
void sort_and_gather(uint s0, uint s1, uint extra_steps) {
    uint begin = s_bounds[s0], len = s_bounds[s1] - begin;
    if (!within_loop_limit(len, sort_section_steps(max(len, 1u)) + extra_steps)) return;
    if (len > SORT_CAPACITY) sort_section(begin, len);
    else if (len > 1u) sort_sections(s0, s1);
    gather(begin, len);
}

// A run of a cell's sections that cell_order.comp listed, by its first
// section's key.
#define S_BOUND(k) s_bounds[(k)]
void sort_run(uint key) {
    uint c = key / pc.sections, s0 = key - c * pc.sections;
    uint sections = c == pc.cell_capacity ? 1u : pc.sections;
    for (uint s = gl_LocalInvocationIndex; s <= sections; s += gl_WorkGroupSize.x)
        s_bounds[s] = KEY_START(c * pc.sections + s);
    barrier();
    uint e;
    RUN_END(S_BOUND, s0, sections, pc.count, e)
    sort_and_gather(s0, e, 2u * sections);
}

// A section that section_order.comp listed.
void sort_long_section(uint key) {
    if (gl_LocalInvocationIndex < 2u) s_bounds[gl_LocalInvocationIndex] = KEY_START(key + gl_LocalInvocationIndex);
    barrier();
    sort_and_gather(0u, 1u, 0u);
}

void main() {
    uint w = linear_workgroup();
    if (w >= prm.sort_list_count) return;
    if (places_by_cell()) sort_run(sort_list[w]);
    else sort_long_section(sort_list[w]);
}
