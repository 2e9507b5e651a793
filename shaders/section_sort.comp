#version 450
#extension GL_GOOGLE_include_directive : require
// fenns (deterministic) only, after the build's order pass: the cells it
// left, sorted by (section, original index), and their sorted particles
// written. cell_order.comp (a build by coarse cell) leaves the cells of more
// than its capacity (pc.count) particles, grouped by section (fine cell)
// but not ordered within one; section_order.comp (by fine cell) leaves the
// sections of more than SMALL_SECTION particles. One workgroup per cell,
// dispatched (indirectly, by the order pass) only when there are some. Runs
// of sections of up to SORT_CAPACITY particles are bitonic-sorted in shared
// memory in one go; a larger section in SORT_CAPACITY runs merged in global
// memory: ping-ponging between the permutation and the section's own slice
// of the sorted particles, which holds nothing until its gather (so the
// build needs no sort buffer of its own, 4 bytes a particle).
#include "header.glsl"
layout(constant_id = 1) const uint SORT_CAPACITY = 1024; // power of two
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS coherent
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
shared uint s_long_sections;

#define SMALL_SECTION 32u // as in section_order.comp

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

// The end of the run of sections from s that sorts in one go: as many as
// fit SORT_CAPACITY, or s alone when it does not fit by itself.
uint run_end(uint s, uint sections) {
    uint e = s + 1u;
    while (e < sections && s_bounds[e + 1u] - s_bounds[s] <= SORT_CAPACITY) ++e;
    return e;
}

void main() {
    uint c = linear_workgroup();
    if (c >= cell_count_with_invalid()) return;
    uint first = c * pc.sections;
    uint sections = c == pc.cell_capacity ? 1u : pc.sections;
    if (gl_LocalInvocationIndex == 0u) s_long_sections = 0u;
    for (uint s = gl_LocalInvocationIndex; s <= sections; s += gl_WorkGroupSize.x) s_bounds[s] = KEY_START(first + s);
    barrier();
    uint begin = s_bounds[0], len = s_bounds[sections] - begin;
    if (places_by_cell()) {
        if (len <= pc.count) return; // cell_order.comp ordered it (pc.count: its capacity)
    } else {
        uint long_sections = 0u;
        for (uint s = gl_LocalInvocationIndex; s < sections; s += gl_WorkGroupSize.x)
            if (s_bounds[s + 1u] - s_bounds[s] > SMALL_SECTION) ++long_sections;
        if (long_sections != 0u) atomicAdd(s_long_sections, long_sections);
        barrier();
        if (s_long_sections == 0u) return; // section_order.comp ordered every section
    }
    uint steps = 1024u + len / gl_WorkGroupSize.x;
    for (uint s = 0u; s < sections;) {
        uint e = run_end(s, sections), run = s_bounds[e] - s_bounds[s];
        steps += (run > SORT_CAPACITY ? sort_section_steps(run) : sort_section_steps(1u)) + e - s;
        s = e;
    }
    if (pc.loop_limit != 0u && steps > pc.loop_limit) {
        // The searches of this build report every query incomplete.
        if (gl_LocalInvocationIndex == 0u) atomicAdd(prm.sort_incomplete, 1u);
        return;
    }
    for (uint s = 0u; s < sections;) {
        uint e = run_end(s, sections), b = s_bounds[s], run = s_bounds[e] - b;
        if (run > SORT_CAPACITY) sort_section(b, run);
        else if (run > 1u) sort_sections(s, e);
        s = e;
    }
    gather(begin, len);
}
