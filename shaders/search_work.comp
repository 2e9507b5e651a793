#version 450
#extension GL_GOOGLE_include_directive : require
// End of the build: one search work item per workgroup-sized chunk of every
// coarse cell (so crowded cells are spread over several workgroups), and the
// status counts. The work starts are scanned afterwards. PARTICLE_WORK
// (counting, octant): one work item per workgroup-sized chunk of all the sorted
// particles instead, all counted at cell 0 (cell_walk.glsl's particle_work).
#include "header.glsl"
layout(constant_id = 2) const uint PARTICLE_WORK = 0;
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS
#include "bindings.glsl"

void main() {
    uint c = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint cell_total = cell_count_with_invalid();
    if (c < cell_total) {
        uint len = PARTICLE_WORK == 0u ? cell_end(c) - cell_begin(c) : c == 0u ? cell_end(pc.cell_capacity) : 0u;
        WORK_START(c) = (len + pc.mode - 1u) / pc.mode; // pc.mode = search workgroup size
    } else if (c == cell_total) {
        WORK_START(c) = 0u;
        prm.invalid_count = KEY_START(section_keys()) - KEY_START(section_keys() - 1u);
    }
}
