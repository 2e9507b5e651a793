#version 450
#extension GL_GOOGLE_include_directive : require
// Paper Algorithm 2: place every particle in its coarse cell, border
// particles from the left, inner ones from the right. Writes the permutation
// (sorted -> original); with pc.mode == 1 (fenns-paper) also the sorted
// particles themselves, in the order the atomics happened to give.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS readonly
#define USE_CELLS
#define CELLS_ACCESS
#define USE_PERM
#define PERM_ACCESS writeonly
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#include "bindings.glsl"
#include "grid.glsl"

void main() {
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < pc.n; i += stride) {
        vec3 p = load_position(i);
        uint target;
        if (!is_valid(p)) {
            target = atomicAdd(BORDER_CURSOR(pc.cell_capacity), 1u);
        } else {
            vec3 u = cell_coords(p);
            uvec3 c = coarse_cell(u);
            uint key = coarse_key(c);
            if (is_border(u, c)) target = atomicAdd(BORDER_CURSOR(key), 1u);
            else target = atomicAdd(INNER_CURSOR(key), 0xFFFFFFFFu) - 1u;
        }
        perm[target] = i;
        if (pc.mode == 1u) store_sorted(target, uvec4(floatBitsToUint(p), i));
    }
}
