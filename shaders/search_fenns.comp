#version 450
#extension GL_GOOGLE_include_directive : require
// fenns (default): query-driven search. Each invocation owns one query of its
// coarse cell; the workgroup streams the candidates (the whole cell plus the
// border sections of the 26 neighbours) through a fine local grid in shared
// memory, a batch at a time. Within a fine cell candidates are ordered by
// original index, so every list comes out in the same order on every run.
#include "header.glsl"
layout(constant_id = 1) const uint FINE_CELLS = 1025; // fine_max^3 + 1
layout(constant_id = 2) const uint CANDIDATES = 1024; // workgroup * FENNS_SEARCH_ITEMS
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
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
#include "local_grid_fenns.glsl"

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
