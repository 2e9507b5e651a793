#version 450
#extension GL_GOOGLE_include_directive : require
// Box of the valid particles, as order-preserving uint keys (atomicMin/Max
// on floats is not core Vulkan).
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_GPU_COUNT
#include "bindings.glsl"
#include "grid.glsl"

uint order_key(float f) {
    uint u = floatBitsToUint(f);
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

void main() {
    uvec3 lo = uvec3(0xFFFFFFFFu), hi = uvec3(0u);
    uint n = min(requested_particles(), pc.n); // absent particles hold no position
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < n; i += stride) {
        vec3 p = load_position(i);
        if (!is_valid(p)) continue;
        uvec3 k = uvec3(order_key(p.x), order_key(p.y), order_key(p.z));
        lo = min(lo, k);
        hi = max(hi, k);
    }
    lo = subgroupMin(lo);
    hi = subgroupMax(hi);
    if (subgroupElect()) {
        atomicMin(prm.key_min_x, lo.x); atomicMin(prm.key_min_y, lo.y); atomicMin(prm.key_min_z, lo.z);
        atomicMax(prm.key_max_x, hi.x); atomicMax(prm.key_max_y, hi.y); atomicMax(prm.key_max_z, hi.z);
    }
}
