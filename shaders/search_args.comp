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
    uint total = WORK_START(cell_count_with_invalid());
    uint x = min(total, 65535u);
    prm.dispatch_x = x;
    prm.dispatch_y = x == 0u ? 0u : (total + x - 1u) / x;
    prm.dispatch_z = 1u;
}
