#version 450
#extension GL_GOOGLE_include_directive : require
// One invocation: turns the domain into the coarse and fine grids of this
// build (grid_sizing.glsl), and for a sparse fenns set asks for the
// density pass, which sizes them once more.
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_GPU_COUNT
#include "bindings.glsl"
layout(std430, binding = FENNS_BINDING_GRID_SOURCE) readonly buffer GridSource { fenns_gpu_params source; };
#include "grid_sizing.glsl"

void main() {
    if (gl_LocalInvocationIndex != 0u) return;
    setup_grid(requested_particles(), 0.0);
}
