#version 450
#extension GL_GOOGLE_include_directive : require
// Paper Algorithm 2 for fenns by section where the coarse count kept ranks
// (fenns_plan_ranked): every particle at its section's start plus the
// place the count's atomic returned, with no atomic and no position of its
// own (bindings.glsl's places_by_cell says more). It reads the cell tables
// only, so the search work list's first pass runs beside it
// (search_work_totals.comp). An invocation per particle: each waits on its
// section's start, and many in flight hide that.
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS readonly
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS writeonly
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#define USE_RANKS
#define RANKS_ACCESS readonly
#include "bindings.glsl"

void main() {
    uint n = particle_count();
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < pc.n; i += stride) {
        if (i >= n) {
            // Absent (past a GPU count): in place at the end of the invalid
            // particles' cell, its record too (reorder.comp says why).
            perm[i] = i;
            store_sorted(i, uvec4(uvec3(0x7FC00000u), i));
            continue;
        }
        uvec2 ranked = ranks[i]; // its key, its place among the key's particles
        perm[KEY_START(ranked.x) + ranked.y] = i;
    }
}
