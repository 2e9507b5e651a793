#version 450
#extension GL_GOOGLE_include_directive : require
// Last pass of a build: the search's indirect dispatch, exactly one workgroup
// per work item (no idle workgroups for empty cells).
#include "header.glsl"
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#include "bindings.glsl"

void main() {
    if (gl_LocalInvocationIndex != 0u) return;
    uvec3 rows = workgroup_rows(WORK_START(cell_count_with_invalid()));
    prm.dispatch_x = rows.x;
    prm.dispatch_y = rows.y;
    prm.dispatch_z = rows.z;
}
