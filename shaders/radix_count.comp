#version 450
#extension GL_GOOGLE_include_directive : require
// radix, each pass, step 1: every tile's count of each digit, written digit
// by digit (histogram[digit * tiles + tile], pc.count tiles) so that one
// exclusive scan of the table gives every tile the first place of each
// digit's keys in the pass's output.
#include "header.glsl"
#define USE_RADIX_IN
#define RADIX_KEYS_ONLY
#define USE_RADIX_HISTOGRAM
#define RADIX_HISTOGRAM_ACCESS writeonly
#include "bindings.glsl"

shared uint s_digit_count[FENNS_RADIX_DIGITS];

void main() {
    uint tile = linear_workgroup();
    if (tile >= pc.count) return; // a whole workgroup: a row's spare groups
    uint t = gl_LocalInvocationIndex;
    if (t < FENNS_RADIX_DIGITS) s_digit_count[t] = 0u;
    barrier();
    uint first = tile * radix_tile();
    for (uint r = 0u; r < FENNS_RADIX_ITEMS; ++r) {
        uint e = first + r * gl_WorkGroupSize.x + t;
        if (e < pc.n) atomicAdd(s_digit_count[radix_digit(radix_keys_in[e])], 1u);
    }
    barrier();
    if (t < FENNS_RADIX_DIGITS) radix_histogram[t * pc.count + tile] = s_digit_count[t];
}
