#version 450
#extension GL_GOOGLE_include_directive : require
// Between Algorithms 1 and 2: every cell gets a cursor at its start, where
// border particles are written from the left, and one at its end, where inner
// particles are written from the right (paper Figure 4).
#include "header.glsl"
#define USE_CELLS
#define CELLS_ACCESS
#include "bindings.glsl"

void main() {
    uint c = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (c >= cell_keys()) return;
    BORDER_CURSOR(c) = CELL_START(c);
    INNER_CURSOR(c) = CELL_START(c + 1u);
}
