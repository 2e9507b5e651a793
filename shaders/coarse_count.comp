#version 450
#extension GL_GOOGLE_include_directive : require
// Paper Algorithm 1: count the particles of every cell section (fenns by
// coarse cell: of every coarse cell, places_by_cell in bindings.glsl), in a shared histogram
// flushed with one global atomic per non-empty entry (mode 1), or straight
// into global memory when the table outgrows shared memory (mode 0).
//
// Mode 2 (fenns by section where the table outgrows shared memory,
// fenns_plan_ranked): global atomics at the key itself, keeping what each
// returned, the particle's place among its section's, with its key, for the
// reorder (ranks). Then the reorder needs no atomic and no position: H100,
// 4M particles, count + reorder sph50 0.243 -> 0.236 ms, in frame order
// 0.161 -> 0.118, dam 0.128 -> 0.096. (An atomic whose result is used
// waits for it, so this pass runs an invocation per particle, not a grid
// stride.)
#include "header.glsl"
layout(constant_id = 1) const uint HISTOGRAM = 1;
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS readonly
#define USE_CELLS
#define CELLS_ACCESS
#define USE_RANKS
#define RANKS_ACCESS writeonly
#include "bindings.glsl"
#include "grid.glsl"

#include "lookback_states.glsl" // the cell scan's, where it is one dispatch
shared uint s_histogram[HISTOGRAM];

void main() {
    zero_lookback_states();
    bool shared_histogram = pc.mode == 1u, by_cell = places_by_cell();
    uint keys = by_cell ? cell_count_with_invalid() : section_keys();
    if (shared_histogram) {
        for (uint c = gl_LocalInvocationIndex; c < keys; c += gl_WorkGroupSize.x) s_histogram[c] = 0u;
        barrier();
    }
    uint n = particle_count(); // absent particles are in no section (cell_end)
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < n; i += stride) {
        uint key = particle_key(load_position(i));
        if (by_cell) key /= pc.sections; // the invalid key's cell is cell_capacity
        if (pc.mode == 2u) ranks[i] = uvec2(key, atomicAdd(KEY_START(key), 1u));
        else if (shared_histogram) atomicAdd(s_histogram[key], 1u);
        else if (by_cell) atomicAdd(COARSE_START(key + 1u), 1u);
        else atomicAdd(KEY_START(count_slot(key)), 1u);
    }
    if (shared_histogram) {
        barrier();
        for (uint c = gl_LocalInvocationIndex; c < keys; c += gl_WorkGroupSize.x)
            if (s_histogram[c] != 0u) {
                if (by_cell) atomicAdd(COARSE_START(c + 1u), s_histogram[c]);
                else atomicAdd(KEY_START(count_slot(c)), s_histogram[c]);
            }
    }
}
