#version 450
#extension GL_GOOGLE_include_directive : require
// A search's first pass: the status fields a search accumulates, cleared
// (the total, the longest list and the overflows; with the counts ready,
// pc.count, the overflows alone: the total and the longest list are their
// search's), and incomplete_queries started from the build's
// sort_incomplete (no search of a build that could not sort is whole).
// One invocation, and where a CSR search scans its offsets in one dispatch
// the scan's look-back states zeroed (scan_lookback.glsl; pc.capacity_hi of
// them, an invocation each). A dispatch, not fills and a copy: the barrier
// after transfer commands cost every search call more (H100, run KI: the
// pass 6.7 -> 5.7 us, and the search after it 3-8 us faster).
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#include "bindings.glsl"
#include "lookback_states.glsl" // the offsets scan's, where it is one dispatch

void main() {
    zero_lookback_states();
    if (linear_workgroup() != 0u || gl_LocalInvocationIndex != 0u) return;
    if (pc.count == 0u) {
        prm.total_neighbors = 0u;
        prm.total_neighbors_hi = 0u;
        prm.max_neighbors = 0u;
    }
    prm.list_overflow = 0u;
    prm.grid_mismatch = 0u;
    prm.incomplete_queries = prm.sort_incomplete;
}
