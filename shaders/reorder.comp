#version 450
#extension GL_GOOGLE_include_directive : require
// Paper Algorithm 2: place every particle in its cell section (paper: border
// particles from the left, inner ones from the right). Writes the permutation
// (sorted -> original); with pc.mode == 1 (fenns-paper) also the sorted
// particles themselves, in the order the atomics happened to give. fenns
// places by coarse cell or by section, in the order the atomics gave, and
// cell_order.comp or section_order.comp orders what it placed; by section
// where the coarse count kept ranks (fenns_plan_ranked), reorder_ranked.comp
// places instead.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS readonly
#define USE_CELLS
#define CELLS_ACCESS
#define USE_CURSORS
#define USE_PERM
#define PERM_ACCESS writeonly
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#include "bindings.glsl"
#include "grid.glsl"

void main() {
    uint n = particle_count();
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < pc.n; i += stride) {
        if (i >= n) {
            // Absent (past a GPU count): in place at the end of the invalid
            // particles' cell, as an invalid particle, its position unread;
            // its record too (no later pass writes it).
            perm[i] = i;
            store_sorted(i, uvec4(uvec3(0x7FC00000u), i));
            continue;
        }
        vec3 p = load_position(i);
        uint key = particle_key(p);
        // fenns fills its coarse cells or its sections from the left with
        // their starts as cursors (places_by_cell, count_slot); the paper's
        // inner sections fill from the right; all else from the left.
        bool from_right = pc.sections == FENNS_SECTIONS_PAPER && key != section_keys() - 1u && (key & 1u) == 1u;
        uint target = places_by_cell()     ? atomicAdd(COARSE_START(key / pc.sections + 1u), 1u)
                      : starts_are_cursors() ? atomicAdd(KEY_START(key + 1u), 1u)
                      : from_right        ? atomicAdd(RIGHT_CURSOR(key), 0xFFFFFFFFu) - 1u
                                          : atomicAdd(LEFT_CURSOR(key), 1u);
        perm[target] = i;
        if (pc.mode == 1u) store_sorted(target, uvec4(floatBitsToUint(p), i));
    }
}
