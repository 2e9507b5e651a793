/*
 * A named point set as the GPU tests search it (test_search, test_kernel):
 * its points, radius and optional caller's box, and the sets both build the
 * same way.
 */
#ifndef FENNS_TEST_SCENE_H
#define FENNS_TEST_SCENE_H

#include <stdint.h>

#include "fenns/fenns.h"

typedef struct scene {
    const char *name;
    float *xyz; /* n points, 3 floats each */
    uint32_t n;
    float radius;
    int user_domain; /* 1: domain_min/max are the caller's box */
    float domain_min[3], domain_max[3];
    int exact;       /* 1: integer coordinates and radius, so every dist2 is exact and a pair
                        at exactly r is a neighbour, never a rounding tolerance */
} scene;

/* Room for n points (the caller fills and frees s->xyz), everything else 0. */
void scene_init(scene *s, const char *name, uint32_t n);

/* Every 7th point gets one NaN, +Inf or -Inf coordinate. */
void scene_make_invalid(float *xyz, uint32_t n);

/* The tiny sets n = 0..3 (radius 1; two points 0.5 apart, one far away):
 * s->xyz points at static storage, not to be freed. */
void scene_tiny(scene *s, uint32_t n);

/* fenns: which of its search pipelines a build's status says its searches
 * ran: the reach of the variant for its grid (F = FENNS_FINE_SPLIT_MAX fine
 * cells a coarse edge and reach 1 or 2, local grids of 7^3 and 9^3 cells;
 * local_grid_fenns.glsl's FIXED_REACH), 0 for the general search. */
uint32_t scene_fixed_reach(const fenns_status *st);

#endif
