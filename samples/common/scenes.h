/*
 * Deterministic point sets for tests and benchmarks (docs/benchmarks.md).
 *
 * Every generator writes n points as x,y,z float triplets into `xyz`
 * (3*n floats, caller-allocated) and depends only on its arguments: the same
 * call gives bit-identical points on every run and build that uses the same
 * C library. fenns_scene_uniform is specified exactly so other programs can
 * regenerate its sets; the seeded generators draw from xorshift32 started at
 * `seed` (0 is replaced by a fixed nonzero constant) and use libm (sqrt, log,
 * cos) where they need Gaussian numbers.
 *
 * None of them allocates; n = 0 writes nothing.
 */
#ifndef FENNS_SCENES_H
#define FENNS_SCENES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One xorshift32 step (x ^= x << 13; x ^= x >> 17; x ^= x << 5), returned and
 * stored in *state. A zero state stays zero. */
uint32_t fenns_scene_xorshift32(uint32_t *state);

/* Uniform in [0, scene)^3, exactly as docs/benchmarks.md (paper Tables 1-3):
 * state = 0x9E3779B9 ^ n; for each point, for x, y, z in turn:
 *   state = xorshift32(state); coordinate = (float)(state >> 8) * 2^-24 * scene
 * (float arithmetic; the first product is exact). */
void fenns_scene_uniform(float *xyz, uint32_t n, float scene);

/* Points on a cubic lattice: every coordinate is k * spacing for an integer
 * k >= 0 (side ceil(cbrt(n)) points, filled x fastest, then y, then z), and
 * the points are shuffled into a seeded random order. With spacing = r the
 * lattice neighbours sit at exactly distance r, and with the grid aligned to
 * the origin particles lie exactly on cell faces. Choose spacing a power of
 * two (e.g. 0.5, 1, 2) so that every coordinate and every difference is exact
 * in float and the pairs at distance r give dist2 == r*r bit for bit. */
void fenns_scene_lattice(float *xyz, uint32_t n, float spacing, uint32_t seed);

/* Gaussian blobs over a uniform background in [0, scene)^3: half of the
 * points uniform, the other half split over 8 blobs with centres in
 * [0.2, 0.8) * scene and a standard deviation chosen so that a blob's peak
 * density is 100 times the background density. Blob tails may leave the box. */
void fenns_scene_clusters(float *xyz, uint32_t n, float scene, uint32_t seed);

/* Uniform in [0, scene)^2 for x, y; every z equals `z`. */
void fenns_scene_planar(float *xyz, uint32_t n, float scene, float z, uint32_t seed);

/* Everything inside the tiny box [origin, origin + extent)^3, e.g. one cell
 * (extent < r gives every particle all others as neighbours: n*(n-1) pairs). */
void fenns_scene_all_in_one(float *xyz, uint32_t n, const float origin[3], float extent,
                            uint32_t seed);

/* Repeated identical points: `distinct` positions (clamped to 1..n) uniform in
 * [0, scene)^3; every point is a copy of one of them chosen at random, so
 * duplicates have dist2 == 0 and are neighbours of each other. */
void fenns_scene_duplicates(float *xyz, uint32_t n, float scene, uint32_t distinct, uint32_t seed);

/* Coincident groups of every size from 1 to `largest`, one group per point
 * of a cubic lattice of the given spacing, the members shuffled over the
 * index range; xyz holds largest * (largest + 1) / 2 points, the count
 * returned. Spaced wider than the cells, each group fills a fine cell of its
 * own: every section size the build's order passes tell apart. */
uint32_t fenns_scene_coincident_groups(float *xyz, uint32_t largest, float spacing, uint32_t seed);

/* Uniform in the box [box_min, box_max), except that a share `outside_fraction`
 * (0..1) of the points, chosen at random, lies outside the box: each such point
 * has at least one coordinate in [min - 4*size, min) or [max, max + 4*size),
 * some of them far away, others just across a face. For the domain-clamping tests. */
void fenns_scene_outside(float *xyz, uint32_t n, const float box_min[3], const float box_max[3],
                         float outside_fraction, uint32_t seed);

/* Uniform in [1e6, 1e6 + scene)^3: large coordinates where float spacing is
 * 0.0625, so positions are quantised and distances suffer cancellation. */
void fenns_scene_far_offset(float *xyz, uint32_t n, float scene, uint32_t seed);

/* Dam break at rest: a block of fluid on a jittered cubic lattice of spacing
 * r/2 (jitter +-5% of the spacing), side s = ceil(cbrt(n)) particles, filled
 * x fastest, then y, then z (the top layer may be partial). The tank is
 * [0, 2*s*h) x [0, s*h) x [0, 2*s*h) with h = r/2, so the block fills a
 * quarter of it; when tank_max is not NULL it receives the tank's upper
 * corner (the lower one is 0,0,0), to be used as the search domain. */
void fenns_scene_dam(float *xyz, uint32_t n, float r, uint32_t seed, float tank_max[3]);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_SCENES_H */
