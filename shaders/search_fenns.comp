#version 450
#extension GL_GOOGLE_include_directive : require
// fenns' list fill (and its searches of lists of fixed capacity): the
// local grid by cell. search_fenns_main.glsl is the shader.
#include "search_fenns_main.glsl"
