#version 450
#extension GL_GOOGLE_include_directive : require
// fenns (deterministic) only: sort every section of the permutation by
// original index, so the sorted layout no longer depends on the order the
// reorder's atomics happened to run in. One workgroup per cell: a cell of up
// to SORT_CAPACITY particles is bitonic-sorted in shared memory in one go;
// a larger one section by section, in SORT_CAPACITY runs merged in global
// memory.
#include "header.glsl"
layout(constant_id = 1) const uint SORT_CAPACITY = 1024; // power of two
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS coherent
#define USE_SORT_TMP
#include "bindings.glsl"
#include "bitonic.glsl"

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

    // Merge pairs of sorted runs, ping-ponging between perm and sort_tmp.
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
            uint v = in_perm ? perm[begin + i] : sort_tmp[begin + i];
            uint lo = other_begin, hi = other_end; // first partner element > v
            while (lo < hi) {
                uint mid = (lo + hi) >> 1u;
                uint w = in_perm ? perm[begin + mid] : sort_tmp[begin + mid];
                if (w < v) lo = mid + 1u; else hi = mid;
            }
            uint place = pair + (i - own_begin) + (lo - other_begin);
            if (in_perm) sort_tmp[begin + place] = v; else perm[begin + place] = v;
        }
        in_perm = !in_perm;
    }
    memoryBarrierBuffer();
    barrier();
    if (!in_perm)
        for (uint i = gl_LocalInvocationIndex; i < len; i += gl_WorkGroupSize.x) perm[begin + i] = sort_tmp[begin + i];
    memoryBarrierBuffer();
    barrier();
}

shared uint s_bounds[FENNS_SECTIONS_FINE + 1];

void main() {
    uint c = linear_workgroup();
    if (c >= cell_count_with_invalid()) return;
    uint first = c * pc.sections;
    uint sections = c == pc.cell_capacity ? 1u : pc.sections;
    for (uint s = gl_LocalInvocationIndex; s <= sections; s += gl_WorkGroupSize.x) s_bounds[s] = KEY_START(first + s);
    barrier();
    uint begin = s_bounds[0], len = s_bounds[sections] - begin;
    if (len < 2u) return;
    if (len <= SORT_CAPACITY) {
        // The whole cell in one sort by (section, original index): sections
        // are contiguous already, so each comes out sorted in place.
        uint padded = next_pow2_at_least_2(len);
        for (uint i = gl_LocalInvocationIndex; i < padded; i += gl_WorkGroupSize.x) {
            uint section = 0xFFFFFFFFu;
            if (i < len) { // the last section starting at or before begin + i
                uint lo = 0u, hi = sections;
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
        return;
    }
    for (uint s = 0u; s < sections; ++s) {
        uint b = s_bounds[s], e = s_bounds[s + 1u];
        if (e - b >= 2u) sort_section(b, e - b);
    }
}
