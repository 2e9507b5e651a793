#version 450
#extension GL_GOOGLE_include_directive : require
// fenns' counts search: the local grid by row (local_grid_fenns.glsl says
// why its own module: a driver allocates every shared array the module's
// code uses). search_fenns_main.glsl is the shader.
#define FENNS_SEARCH_COUNTS
#include "search_fenns_main.glsl"
