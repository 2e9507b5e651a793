#version 450
#extension GL_GOOGLE_include_directive : require
// Between Algorithms 1 and 2: every section gets a cursor at its start, where
// particles are written from the left, and one at its end, where the paper's
// inner particles are written from the right (paper Figure 4).
#include "header.glsl"
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_CURSORS
#include "bindings.glsl"

void main() {
    uint k = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (k >= section_keys()) return;
    LEFT_CURSOR(k) = KEY_START(k);
    // Only the paper's sections fill from the right; fenns has no right
    // cursors.
    if (pc.sections == FENNS_SECTIONS_PAPER) RIGHT_CURSOR(k) = KEY_START(k + 1u);
}
