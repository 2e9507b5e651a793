#version 450
#extension GL_GOOGLE_include_directive : require
// radix, after the sort: where each key's run starts and ends in the sorted
// keys (Green's cell start/end: a place whose key differs from the one
// before starts a run and ends the one before). Written as each key's
// count, end - start, added by the invocations that see its two ends, into
// the zeroed start table; the cell scan then turns the counts into the same
// section starts counting's histogram gives, empty cells included.
#include "header.glsl"
#define USE_CELLS
#define CELLS_ACCESS
#define USE_RADIX_IN
#define RADIX_KEYS_ONLY
#include "bindings.glsl"

void main() {
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint j = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; j < pc.n; j += stride) {
        uint key = radix_keys_in[j];
        if (j > 0u) {
            uint before = radix_keys_in[j - 1u];
            if (before != key) {
                atomicAdd(KEY_START(before), j);     // its end
                atomicAdd(KEY_START(key), 0u - j);   // its start (wraps; the end adds it back)
            }
        }
        if (j + 1u == pc.n) atomicAdd(KEY_START(key), pc.n);
    }
}
