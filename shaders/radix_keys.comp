#version 450
#extension GL_GOOGLE_include_directive : require
// radix (Green's grid), first pass: every particle's key, the cell section
// the counting grid gives it (grid.glsl), paired with its index for the
// sort. Invalid particles take the invalid key; absent ones (past a GPU
// count) one past it, so the stable sort leaves them in place at the end,
// where the reorder of the other methods puts them.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS readonly
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_RADIX_OUT
#include "bindings.glsl"
#include "grid.glsl"

void main() {
    uint n = particle_count();
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < pc.n; i += stride) {
        radix_keys_out[i] = i < n ? particle_key(load_position(i)) : section_keys();
        radix_values_out[i] = i;
    }
}
