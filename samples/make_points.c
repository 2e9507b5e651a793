/* make_points: writes one of the test/benchmark point sets (samples/common/
 * scenes.h) as a raw .f32 file for `fenns neighbors --input`.
 *
 *   make_points uniform N SCENE OUT.f32     docs/benchmarks.md uniform set in [0,SCENE)^3
 *   make_points clusters N SCENE OUT.f32    Gaussian blobs, 100x density contrast
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenes.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: make_points uniform|clusters N SCENE OUT.f32\n");
        return 2;
    }
    char *end = NULL;
    unsigned long n = strtoul(argv[2], &end, 10);
    if (!*argv[2] || *end || n == 0 || n > 0x7FFFFFFFul) {
        fprintf(stderr, "make_points: error: N must be an integer in 1..2^31-1, not '%s'\n", argv[2]);
        return 2;
    }
    float scene = strtof(argv[3], &end);
    if (!*argv[3] || *end || !(scene > 0.0f)) {
        fprintf(stderr, "make_points: error: SCENE must be a positive number, not '%s'\n", argv[3]);
        return 2;
    }
    float *xyz = malloc(12u * (size_t)n);
    if (!xyz) {
        fprintf(stderr, "make_points: error: out of memory for %lu points\n", n);
        return 1;
    }
    if (!strcmp(argv[1], "uniform")) fenns_scene_uniform(xyz, (uint32_t)n, scene);
    else if (!strcmp(argv[1], "clusters")) fenns_scene_clusters(xyz, (uint32_t)n, scene, 1);
    else {
        fprintf(stderr, "make_points: error: unknown scene '%s'\n", argv[1]);
        free(xyz);
        return 2;
    }
    FILE *f = fopen(argv[4], "wb");
    int ok = f && fwrite(xyz, 12u, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(xyz);
    if (!ok) {
        fprintf(stderr, "make_points: error: cannot write %s\n", argv[4]);
        return 1;
    }
    return 0;
}
