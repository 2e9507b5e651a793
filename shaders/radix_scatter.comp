#version 450
#extension GL_GOOGLE_include_directive : require
// radix, each pass, step 2 (after the histogram's scan): every key and its
// value to its place in the pass's output, stably. A tile goes in rounds of
// one key per invocation; within a round a key's rank among the same digit
// comes from subgroup ballots (the lanes below it), then from the subgroups
// below it, then from the rounds and tiles before it. Ballots are uvec4, so
// this holds for every subgroup size from 4 to 128. Keys in order of the
// invocation index, subgroup by subgroup, as scan.glsl assumes too.
#include "header.glsl"
#define USE_RADIX_IN
#define USE_RADIX_OUT
#define USE_RADIX_HISTOGRAM
#define RADIX_HISTOGRAM_ACCESS readonly
#include "bindings.glsl"

// The next place of each digit's keys in the output.
shared uint s_place[FENNS_RADIX_DIGITS];
// Per subgroup and digit: its keys of the round, then where they go.
shared uint s_subgroup_place[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP][FENNS_RADIX_DIGITS];

void main() {
    uint tile = linear_workgroup();
    if (tile >= pc.count) return; // a whole workgroup: a row's spare groups
    uint t = gl_LocalInvocationIndex;
    if (t < FENNS_RADIX_DIGITS) s_place[t] = radix_histogram[t * pc.count + tile];
    barrier();
    uint first = tile * radix_tile();
    for (uint r = 0u; r < FENNS_RADIX_ITEMS; ++r) {
        uint e = first + r * gl_WorkGroupSize.x + t;
        bool valid = e < pc.n;
        uint key = valid ? radix_keys_in[e] : 0u;
        uint digit = radix_digit(key);
        uint rank = 0u;
        for (uint d = 0u; d < FENNS_RADIX_DIGITS; ++d) {
            bool mine = valid && digit == d;
            uvec4 ballot = subgroupBallot(mine);
            uint below = subgroupBallotExclusiveBitCount(ballot);
            if (mine) rank = below;
            if (gl_SubgroupInvocationID == 0u) s_subgroup_place[gl_SubgroupID][d] = subgroupBallotBitCount(ballot);
        }
        barrier();
        if (t < FENNS_RADIX_DIGITS) { // each digit's subgroups in order
            uint place = s_place[t];
            for (uint s = 0u; s < gl_NumSubgroups; ++s) {
                uint c = s_subgroup_place[s][t];
                s_subgroup_place[s][t] = place;
                place += c;
            }
            s_place[t] = place;
        }
        barrier();
        if (valid) {
            uint to = s_subgroup_place[gl_SubgroupID][digit] + rank;
            radix_keys_out[to] = key;
            radix_values_out[to] = radix_values_in[e];
        }
        barrier(); // the places are the next round's counts
    }
}
