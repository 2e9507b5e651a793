/* Deterministic point sets; see scenes.h. */
#include "scenes.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

uint32_t fenns_scene_xorshift32(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

static uint32_t seed_state(uint32_t seed)
{
    return seed ? seed : 0x2545F491u;
}

/* Uniform in [0, 1) with 24 random bits, as the draw of docs/benchmarks.md. */
static float unit01(uint32_t *state)
{
    return (float)(fenns_scene_xorshift32(state) >> 8) * 0x1p-24f;
}

/* Uniform integer in [0, bound) (bound >= 1); 64-bit multiply keeps it unbiased enough. */
static uint32_t below(uint32_t *state, uint32_t bound)
{
    return (uint32_t)(((uint64_t)fenns_scene_xorshift32(state) * bound) >> 32);
}

/* Fisher-Yates over whole points. */
static void shuffle_points(float *xyz, uint32_t n, uint32_t *state)
{
    for (uint32_t i = n; i > 1; --i) {
        uint32_t j = below(state, i);
        for (int a = 0; a < 3; ++a) {
            float t = xyz[3 * (size_t)(i - 1) + (size_t)a];
            xyz[3 * (size_t)(i - 1) + (size_t)a] = xyz[3 * (size_t)j + (size_t)a];
            xyz[3 * (size_t)j + (size_t)a] = t;
        }
    }
}

/* Standard normal deviate (Box-Muller in double). */
static double gaussian(uint32_t *state)
{
    double u1 = ((double)(fenns_scene_xorshift32(state) >> 8) + 0.5) * 0x1p-24;
    double u2 = (double)(fenns_scene_xorshift32(state) >> 8) * 0x1p-24;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Smallest s with s^3 >= n. */
static uint32_t cube_side(uint32_t n)
{
    uint32_t s = (uint32_t)cbrt((double)n);
    while ((uint64_t)s * s * s < n)
        ++s;
    while (s > 1 && (uint64_t)(s - 1) * (s - 1) * (s - 1) >= n)
        --s;
    return s;
}

void fenns_scene_uniform(float *xyz, uint32_t n, float scene)
{
    uint32_t state = 0x9E3779B9u ^ n;
    for (size_t i = 0; i < 3 * (size_t)n; ++i)
        xyz[i] = (float)(fenns_scene_xorshift32(&state) >> 8) * 0x1p-24f * scene;
}

void fenns_scene_lattice(float *xyz, uint32_t n, float spacing, uint32_t seed)
{
    uint32_t state = seed_state(seed);
    uint32_t side = cube_side(n);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t k[3] = {i % side, (i / side) % side, i / side / side};
        for (int a = 0; a < 3; ++a)
            xyz[3 * (size_t)i + (size_t)a] = (float)((double)k[a] * (double)spacing);
    }
    /* Fisher-Yates, so that index order says nothing about position. */
    for (uint32_t i = n; i > 1; --i) {
        uint32_t j = below(&state, i);
        for (int a = 0; a < 3; ++a) {
            float t = xyz[3 * (size_t)(i - 1) + (size_t)a];
            xyz[3 * (size_t)(i - 1) + (size_t)a] = xyz[3 * (size_t)j + (size_t)a];
            xyz[3 * (size_t)j + (size_t)a] = t;
        }
    }
}

void fenns_scene_clusters(float *xyz, uint32_t n, float scene, uint32_t seed)
{
    enum { BLOBS = 8 };
    uint32_t state = seed_state(seed);
    double centre[BLOBS][3];
    uint32_t background = n - n / 2;
    uint32_t per_blob = (n / 2 + BLOBS - 1) / BLOBS;
    /* Peak density of a blob, (n/2/BLOBS) / ((2 pi)^1.5 sigma^3), set to 100x
     * the background density (n/2) / scene^3. */
    double sigma = (double)scene * cbrt(1.0 / (BLOBS * pow(6.283185307179586, 1.5) * 100.0));

    for (int b = 0; b < BLOBS; ++b)
        for (int a = 0; a < 3; ++a)
            centre[b][a] = (0.2 + 0.6 * (double)unit01(&state)) * (double)scene;
    for (uint32_t i = 0; i < n; ++i) {
        float *p = xyz + 3 * (size_t)i;
        if (i < background) {
            for (int a = 0; a < 3; ++a)
                p[a] = unit01(&state) * scene;
        } else {
            uint32_t b = (i - background) / (per_blob ? per_blob : 1);
            if (b >= BLOBS)
                b = BLOBS - 1;
            for (int a = 0; a < 3; ++a)
                p[a] = (float)(centre[b][a] + sigma * gaussian(&state));
        }
    }
}

void fenns_scene_planar(float *xyz, uint32_t n, float scene, float z, uint32_t seed)
{
    uint32_t state = seed_state(seed);
    for (uint32_t i = 0; i < n; ++i) {
        xyz[3 * (size_t)i] = unit01(&state) * scene;
        xyz[3 * (size_t)i + 1] = unit01(&state) * scene;
        xyz[3 * (size_t)i + 2] = z;
    }
}

void fenns_scene_all_in_one(float *xyz, uint32_t n, const float origin[3], float extent,
                            uint32_t seed)
{
    uint32_t state = seed_state(seed);
    for (uint32_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a)
            xyz[3 * (size_t)i + (size_t)a] = origin[a] + unit01(&state) * extent;
}

void fenns_scene_duplicates(float *xyz, uint32_t n, float scene, uint32_t distinct, uint32_t seed)
{
    uint32_t state = seed_state(seed);
    if (n == 0)
        return;
    if (distinct < 1)
        distinct = 1;
    if (distinct > n)
        distinct = n;
    /* The first `distinct` points are the originals; the rest copy one of them. */
    for (uint32_t i = 0; i < distinct; ++i)
        for (int a = 0; a < 3; ++a)
            xyz[3 * (size_t)i + (size_t)a] = unit01(&state) * scene;
    for (uint32_t i = distinct; i < n; ++i) {
        uint32_t src = below(&state, distinct);
        for (int a = 0; a < 3; ++a)
            xyz[3 * (size_t)i + (size_t)a] = xyz[3 * (size_t)src + (size_t)a];
    }
    shuffle_points(xyz, n, &state); /* the copies spread over the index range */
}

uint32_t fenns_scene_coincident_groups(float *xyz, uint32_t largest, float spacing, uint32_t seed)
{
    uint32_t state = seed_state(seed), side = 1, i = 0;
    while (side * side * side < largest)
        ++side;
    for (uint32_t g = 0; g < largest; ++g) {
        /* Off the lattice's round numbers, so no group sits on a cell face. */
        float at[3] = {0.37f + spacing * (float)(g % side), 0.41f + spacing * (float)(g / side % side),
                       0.43f + spacing * (float)(g / (side * side))};
        for (uint32_t k = 0; k <= g; ++k, ++i)
            memcpy(xyz + 3 * (size_t)i, at, sizeof at);
    }
    shuffle_points(xyz, i, &state); /* each group's members spread over the index range */
    return i;
}

void fenns_scene_outside(float *xyz, uint32_t n, const float box_min[3], const float box_max[3],
                         float outside_fraction, uint32_t seed)
{
    uint32_t state = seed_state(seed);
    for (uint32_t i = 0; i < n; ++i) {
        float *p = xyz + 3 * (size_t)i;
        int out = unit01(&state) < outside_fraction;
        for (int a = 0; a < 3; ++a)
            p[a] = box_min[a] + unit01(&state) * (box_max[a] - box_min[a]);
        if (out) {
            /* Push one axis (or more) out: half of them just across a face
             * (within a tenth of the box), half up to four box sizes away. */
            int axis = (int)below(&state, 3);
            for (int a = 0; a < 3; ++a) {
                float size = box_max[a] - box_min[a];
                float reach = (unit01(&state) < 0.5f ? 0.1f : 4.0f) * size;
                float d = unit01(&state) * reach;
                if (a != axis && unit01(&state) < 0.7f)
                    continue;
                if (unit01(&state) < 0.5f) {
                    p[a] = box_min[a] - d;
                    if (!(p[a] < box_min[a]))
                        p[a] = box_min[a] - size * 0x1p-10f;
                } else {
                    p[a] = box_max[a] + d;
                }
            }
        }
    }
}

void fenns_scene_far_offset(float *xyz, uint32_t n, float scene, uint32_t seed)
{
    uint32_t state = seed_state(seed);
    for (size_t i = 0; i < 3 * (size_t)n; ++i)
        xyz[i] = 1.0e6f + unit01(&state) * scene;
}

void fenns_scene_dam(float *xyz, uint32_t n, float r, uint32_t seed, float tank_max[3])
{
    uint32_t state = seed_state(seed);
    uint32_t side = cube_side(n);
    float h = r * 0.5f;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t k[3] = {i % side, (i / side) % side, i / side / side};
        for (int a = 0; a < 3; ++a) {
            float jitter = (unit01(&state) - 0.5f) * 0.1f * h;
            xyz[3 * (size_t)i + (size_t)a] = ((float)k[a] + 0.5f) * h + jitter;
        }
    }
    if (tank_max) {
        float s = (float)(side ? side : 1) * h;
        tank_max[0] = 2.0f * s;
        tank_max[1] = s;
        tank_max[2] = 2.0f * s;
    }
}
