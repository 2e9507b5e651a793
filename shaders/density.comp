#version 450
#extension GL_GOOGLE_include_directive : require
// fenns, where fine cells sized by the average density would be wider than
// a margin (grid setup asks for it): the density the particles see. A
// sample of every prm.density_stride-th particle is counted into a
// histogram of bins as wide as the widest fine cell, hashed into
// pc.count_in slots; the sum over the sampled particles of their slot's
// count (each slot's count squared, from the atomics' returns) over their
// number is the count the average particle sees. The last workgroup to
// finish sizes the grid again with it (grid_sizing.glsl): fine cells grow
// past two margins only where the particles are spread out at that scale,
// and shrink toward the particles' own spacing where they crowd in
// clusters (bins sharing a slot only make the set look more crowded than
// it is).
#include "header.glsl"
#define USE_POSITIONS
#define USE_PARAMS
#define PARAMS_ACCESS
#include "bindings.glsl"
layout(std430, binding = FENNS_BINDING_GRID_SOURCE) readonly buffer GridSource { fenns_gpu_params source; };
// The histogram's slots: the sorted particles' place, unused until the
// reorder (the clear zeroed the pc.count_in slots).
layout(std430, binding = FENNS_BINDING_SCAN_SUMS) buffer DensityBins { uint bins[]; };
#include "grid.glsl"
#include "grid_sizing.glsl"

shared bool s_last;
shared float s_seen_density; // the last workgroup's finding; 0: none (no valid particle)

// The density the average particle sees, from the totals (the last
// workgroup, after every other's atomics); 0 where no particle was sampled.
float seen_density() {
    memoryBarrierBuffer();
    uint samples = atomicAdd(prm.density_samples, 0u);
    if (samples == 0u) return 0.0; // no valid particle
    float sum = float(atomicAdd(prm.density_sum_hi, 0u)) * 4294967296.0 + float(atomicAdd(prm.density_sum, 0u));
    // A sampled particle's slot count is itself, about 1 / stride of the
    // others in its bin, and the samples of other bins hashed there (about
    // samples / slots).
    float mean = sum / float(samples);
    float others = max(mean - 1.0 - float(samples) / float(pc.count_in), 0.0) * float(prm.density_stride);
    vec3 edge = density_bin_edge();
    return (others + 1.0) / (edge.x * edge.y * edge.z);
}

void main() {
    uint t = gl_LocalInvocationIndex;
    uint seen = 0u, sampled = 0u;
    vec3 dmin = vec3(prm.domain_min_x, prm.domain_min_y, prm.domain_min_z), edge = density_bin_edge();
    uvec3 dims = uvec3(prm.density_bins_x, prm.density_bins_y, prm.density_bins_z);
    uint first = linear_workgroup() * gl_WorkGroupSize.x * FENNS_DENSITY_PER_INVOCATION + t;
    for (uint k = 0u; k < FENNS_DENSITY_PER_INVOCATION; ++k) {
        uint i = (first + k * gl_WorkGroupSize.x) * prm.density_stride;
        if (i >= prm.particle_count) break;
        vec3 p = load_position(i);
        if (!is_valid(p)) continue;
        // Clamped as grid coordinates are: particles outside a caller's box count at its faces.
        uvec3 b = uvec3(clamp(floor((p - dmin) / edge), vec3(0.0), vec3(dims - 1u)));
        uint before = atomicAdd(bins[((b.x * 73856093u) ^ (b.y * 19349663u) ^ (b.z * 83492791u)) % pc.count_in], 1u);
        seen += 2u * before + 1u; // (c + 1)^2 - c^2: the squares add up as the bin fills
        sampled += 1u;
    }
    // A subgroup's sums stay far below 2^32 (at most 128 * 4 * 2^19); the u64
    // total carries into its high word.
    uint seen_sum = subgroupAdd(seen), sampled_sum = subgroupAdd(sampled);
    if (subgroupElect() && sampled_sum != 0u) {
        uint before = atomicAdd(prm.density_sum, seen_sum);
        if (before + seen_sum < before) atomicAdd(prm.density_sum_hi, 1u);
        atomicAdd(prm.density_samples, sampled_sum);
    }
    // The last workgroup to finish reads the totals (atomics: every other
    // workgroup's additions came before its count of finished ones).
    memoryBarrierBuffer();
    barrier();
    if (t == 0u) s_last = atomicAdd(prm.density_done, 1u) == gl_NumWorkGroups.x * gl_NumWorkGroups.y - 1u;
    barrier();
    if (!s_last) return;
    if (t == 0u) s_seen_density = seen_density();
    barrier();
    // Its whole workgroup sizes the grid again (setup_grid's searches),
    // where the seen density changes it (the bounds grid setup left).
    float density = s_seen_density;
    if (density > 0.0 && (density < prm.density_resize_below || density > prm.density_resize_above))
        setup_grid(prm.requested_count, density); // the count grid setup read
}
