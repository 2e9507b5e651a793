#version 450
#extension GL_GOOGLE_include_directive : require
// fenns (deterministic) only, one invocation per section (fine cell): sort
// the section's slice of the permutation by original index, so the sorted
// layout no longer depends on the order the reorder's atomics ran in, and
// write the sorted particles. Fine cells hold a few particles, so this is a
// few register moves per particle with every invocation busy; a section of
// more than SMALL_SECTION particles (coincident ones, tight clusters) is
// left to section_sort.comp, dispatched (indirectly) only when there are some.
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define CELLS_ACCESS readonly
#define USE_PERM
#define PERM_ACCESS
#define USE_SORTED
#define SORTED_ACCESS
#define SORTED_WRITE
#include "bindings.glsl"

#define SMALL_SECTION 32u

void main() {
    uint key = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
    if (key >= section_keys()) return;
    // Absent particles (past a GPU count) stay in place after the invalid
    // ones, in no section: their records, invalid with their own index, are
    // written here (the reorder's cursors filled the sorted region until now).
    for (uint i = particle_count() + key; i < pc.n; i += section_keys())
        store_sorted(i, uvec4(uvec3(0x7FC00000u), i));
    uint begin = KEY_START(key), len = KEY_START(key + 1u) - begin;
    if (len > SMALL_SECTION) {
        // The section sort's workgroups, one per cell: nearly every build
        // has no long section, and its indirect dispatch then launches none
        // (H100, 4M particles: 32770 idle workgroups took 0.03 ms).
        uvec3 rows = workgroup_rows(pc.cell_capacity + 1u);
        atomicMax(prm.sort_dispatch_x, rows.x);
        atomicMax(prm.sort_dispatch_y, rows.y);
        atomicMax(prm.sort_dispatch_z, rows.z);
        return;
    }
    if (len <= 4u) {
        // Nearly every section: a sorting network on a register quad, padded
        // with ~0 (constant indices keep it out of local memory).
        uvec4 a = uvec4(0xFFFFFFFFu);
        if (len > 0u) a.x = perm[begin];
        if (len > 1u) a.y = perm[begin + 1u];
        if (len > 2u) a.z = perm[begin + 2u];
        if (len > 3u) a.w = perm[begin + 3u];
        if (len > 1u) {
            uvec4 lo = min(a.xzxy, a.ywzw), hi = max(a.xzxy, a.ywzw); // (x,y), (z,w)
            a = uvec4(lo.x, hi.x, lo.y, hi.y);
            lo = min(a.xyxy, a.zwzw); hi = max(a.xyxy, a.zwzw);        // (x,z), (y,w)
            a = uvec4(lo.x, lo.y, hi.x, hi.y);
            a.yz = uvec2(min(a.y, a.z), max(a.y, a.z));                 // (y,z)
            perm[begin] = a.x;
            perm[begin + 1u] = a.y;
            if (len > 2u) perm[begin + 2u] = a.z;
            if (len > 3u) perm[begin + 3u] = a.w;
        }
        if (len > 0u) store_sorted(begin, uvec4(floatBitsToUint(load_position(a.x)), a.x));
        if (len > 1u) store_sorted(begin + 1u, uvec4(floatBitsToUint(load_position(a.y)), a.y));
        if (len > 2u) store_sorted(begin + 2u, uvec4(floatBitsToUint(load_position(a.z)), a.z));
        if (len > 3u) store_sorted(begin + 3u, uvec4(floatBitsToUint(load_position(a.w)), a.w));
        return;
    }
    uint v[SMALL_SECTION]; // insertion sort
    for (uint i = 0u; i < len; ++i) {
        uint x = perm[begin + i], j = i;
        for (; j > 0u && v[j - 1u] > x; --j) v[j] = v[j - 1u];
        v[j] = x;
    }
    for (uint i = 0u; i < len; ++i) {
        perm[begin + i] = v[i];
        store_sorted(begin + i, uvec4(floatBitsToUint(load_position(v[i])), v[i]));
    }
}
