/* The point sets the GPU tests share (test_scene.h). */
#include "test_scene.h"

#include "fenns_shared.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scene_init(scene *s, const char *name, uint32_t n) {
    memset(s, 0, sizeof *s);
    s->name = name;
    s->n = n;
    s->xyz = malloc(12u * (size_t)n + 12);
}

void scene_make_invalid(float *xyz, uint32_t n) {
    for (uint32_t i = 0; i < n; i += 7) xyz[3 * i + (i % 3)] = (i % 2) ? NAN : ((i % 4) ? INFINITY : -INFINITY);
}

void scene_tiny(scene *s, uint32_t n) {
    static float few[9] = {0.0f, 0.0f, 0.0f, 0.5f, 0.0f, 0.0f, 3.0f, 3.0f, 3.0f};
    static const char *const names[4] = {"n=0", "n=1", "n=2", "n=3"};
    memset(s, 0, sizeof *s);
    s->name = names[n < 3 ? n : 3];
    s->n = n < 3 ? n : 3;
    s->xyz = few;
    s->radius = 1.0f;
}

uint32_t scene_fixed_reach(const fenns_status *st) {
    uint32_t reach = st->fine_dims[0] > st->fine_split ? (st->fine_dims[0] - st->fine_split) / 2u : 0u;
    return st->fine_split == FENNS_FINE_SPLIT_MAX && reach <= 2u ? reach : 0u;
}
