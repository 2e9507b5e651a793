#version 450
#extension GL_GOOGLE_include_directive : require
// radix, last: the sorted particles, gathered through the permutation the
// sort's values became (sorted -> original). Absent particles (past a GPU
// count) are written as invalid ones, their positions unread.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#include "bindings.glsl"

void main() {
    uint n = particle_count();
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint j = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; j < pc.n; j += stride) {
        uint i = perm[j];
        store_sorted(j, i < n ? uvec4(floatBitsToUint(load_position(i)), i) : uvec4(uvec3(0x7FC00000u), i));
    }
}
