#version 450
#extension GL_GOOGLE_include_directive : require
// Between Algorithms 1 and 2 (fenns-paper, counting, octant): every section
// gets a cursor at its start, where particles are written from the left, and
// one at its end, where the paper's inner particles are written from the
// right (paper Figure 4). fenns needs no cursors (count_slot in bindings.glsl).
#include "header.glsl"
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_CURSORS
#include "bindings.glsl"

void main() {
    uint k = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (k >= section_keys()) return;
    LEFT_CURSOR(k) = KEY_START(k);
    RIGHT_CURSOR(k) = KEY_START(k + 1u);
}
