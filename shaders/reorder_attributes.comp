#version 450
#extension GL_GOOGLE_include_directive : require
// fenns_cmd_reorder: the caller's per-particle attributes (pc.count 32-bit
// words each) moved by the build's permutation, one invocation per word so
// any stride is coalesced: to the sorted order (pc.mode 0: out[k] =
// in[perm[k]]) or back to the original order (1: out[perm[k]] = in[k]).
// pc.mode 2, for the host path: tightly packed x,y,z in, the vec4 positions
// a build reads out (w = 1), with no permutation (pc.count 4).
#include "header.glsl"
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_ATTRIBUTES
#include "bindings.glsl"

void main() {
    uint idx = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    uint words = pc.count;
    uint k = idx / words, w = idx - k * words;
    if (k >= pc.n) return;
    if (pc.mode == 2u) {
        attributes_out[idx] = w < 3u ? attributes_in[3u * k + w] : floatBitsToUint(1.0);
        return;
    }
    uint from = pc.mode == 0u ? perm[k] : k;
    uint to = pc.mode == 0u ? k : perm[k];
    attributes_out[to * words + w] = attributes_in[from * words + w];
}
