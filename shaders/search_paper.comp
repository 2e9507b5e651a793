#version 450
#extension GL_GOOGLE_include_directive : require
// fenns-paper: the published search loop (paper Algorithms 3-4). A chunk of
// the cell's particles is sorted into the fine local grid in shared memory;
// then every particle of the cell, and every border particle of the 26
// neighbours (one subgroup per neighbouring cell), looks up the queries near
// it. Queries are found by many invocations at once, so list slots come from
// shared atomics and list order varies between runs.
#include "header.glsl"
layout(constant_id = 1) const uint FINE_CELLS = 1025; // fine_max^3 + 1
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define USE_WORK_ITEMS
#define CELLS_ACCESS readonly
#define USE_SORTED
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_COUNTS
#define USE_OFFSETS
#define USE_INDICES
#define INDICES_ACCESS writeonly
#include "bindings.glsl"
#include "grid.glsl"
#include "scan.glsl"
#include "search_common.glsl"
#include "local_grid_paper.glsl"

void main() {
    work_item w;
    if (!find_work(w)) return;
    uint q = w.query_begin + gl_LocalInvocationIndex;
    if (w.cell == pc.cell_capacity) {
        if (q < w.query_end) finish_invalid(q);
        return;
    }
    search_cell(w, q);
}
