#version 450
#extension GL_GOOGLE_include_directive : require
// Turns the domain into the coarse and fine grids of this build
// (grid_sizing.glsl; the first workgroup), and for a fenns set whose fine
// cells would be wider than a margin asks for the density pass, which
// sizes them once more. Every invocation also
// zeroes the entries the coarse count counts into (the cell tables, or
// fenns' coarse-cell counters where it places by coarse cell) and the
// density pass's histogram: here rather than as fills of their own, they
// cost no pass (H100, 4M particles: the clear 0.018 -> 0.005 ms, grid
// setup 0.011 -> 0.014).
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_GPU_COUNT
#define USE_CELLS
#define CELLS_ACCESS
#include "bindings.glsl"
layout(std430, binding = FENNS_BINDING_GRID_SOURCE) readonly buffer GridSource { fenns_gpu_params source; };
// The cell tables again, four entries at a time (16-byte stores).
layout(std430, binding = FENNS_BINDING_CELLS) writeonly buffer CellQuads { uvec4 cell_quads[]; };
// fenns' density histogram, pc.count_in slots (a multiple of four), where
// the build may run the density pass; bound in the grid source's place
// (a build with a grid source has none).
layout(std430, binding = FENNS_BINDING_GRID_SOURCE) writeonly buffer DensitySlots { uvec4 density_slot_quads[]; };
// The status block word by word, for its first values.
layout(std430, binding = FENNS_BINDING_PARAMS) writeonly buffer ParamWords { uint param_words[]; };
#include "grid_sizing.glsl"

// pc.capacity: the build recorded no clear (no domain reduce comes before
// this pass), and the first workgroup writes what the clear would have
// (fenns__pass_clear): zeros, the min keys at their largest value (a grid
// source this plan cannot use reads them as "no valid particle").
void clear_status() {
    uint t = gl_LocalInvocationIndex;
    for (uint w = t; w < param_words.length(); w += gl_WorkGroupSize.x) param_words[w] = 0u;
    memoryBarrierBuffer();
    barrier();
    if (t == 0u) {
        prm.key_min_x = 0xFFFFFFFFu;
        prm.key_min_y = 0xFFFFFFFFu;
        prm.key_min_z = 0xFFFFFFFFu;
    }
    memoryBarrierBuffer();
    barrier();
}

void main() {
    uint t = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (linear_workgroup() == 0u) {
        if (pc.capacity != 0u) clear_status();
        setup_grid(requested_particles(), 0.0); // the whole workgroup: its searches
    }
    // The counted entries (fenns_plan_count_entries) and the one past them;
    // both starts are multiples of four (the work table is 256-byte aligned).
    uint first = places_by_cell() ? pc.work_base : 0u;
    uint end = places_by_cell() ? pc.work_base + cell_count_with_invalid() + 1u : section_keys() + 1u;
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = first / 4u + t; i < end / 4u; i += stride) cell_quads[i] = uvec4(0u);
    if (t < (end & 3u)) cells[(end & ~3u) + t] = 0u; // the last, partial quad
    for (uint i = t; i < pc.count_in / 4u; i += stride) density_slot_quads[i] = uvec4(0u);
}
