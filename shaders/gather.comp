#version 450
#extension GL_GOOGLE_include_directive : require
// fenns only: write the sorted particles in permutation order.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#include "bindings.glsl"

void main() {
    uint k = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (k >= pc.n) return;
    uint i = perm[k];
    store_sorted(k, uvec4(floatBitsToUint(load_position(i)), i));
}
