/*
 * Wall time of the host path on the default device, warm, in one process
 * (the job of cuNSearch's find_neighbors): one fenns_host_searcher run
 * `reps` times after 3 warm-up runs, and the one-shot fenns_host_search
 * (which takes the passes the searcher compiled from the context).
 * Prints the median wall time and the GPU timings of the last run; exits
 * non-zero when a run fails or the searcher and the one-shot disagree.
 *
 *   time_host_search [sph50|s1] [n] [reps] [--counts-only]
 *
 * sph50: uniform at density 50/(4/3 pi) per unit^3, r = 1 (about 49
 * neighbours); s1: uniform in [0,180)^3, r = 1 (docs/benchmarks.md).
 * Validation stays off unless FENNS_VALIDATION=1: this measures.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include "scenes.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *scenario = argc > 1 ? argv[1] : "sph50";
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1u << 20;
    int reps = argc > 3 ? atoi(argv[3]) : 10;
    int counts_only = argc > 4 && !strcmp(argv[4], "--counts-only");
    if (reps < 1 || reps > 1000 || n == 0 || (strcmp(scenario, "sph50") && strcmp(scenario, "s1"))) {
        fprintf(stderr, "usage: time_host_search [sph50|s1] [n] [reps] [--counts-only]\n");
        return 2;
    }
    float side = !strcmp(scenario, "s1") ? 180.0f : cbrtf((float)n / (50.0f / (4.0f / 3.0f * 3.14159265f)));
    float *xyz = malloc(3u * sizeof(float) * n);
    if (!xyz) return 1;
    fenns_scene_uniform(xyz, n, side);

    fenns_headless_create_info hci;
    memset(&hci, 0, sizeof hci);
    fenns_headless headless = NULL;
    fenns_context ctx = NULL;
    fenns_context_create_info ci;
    fenns_result r = fenns_headless_create(&hci, &headless);
    if (r == FENNS_SUCCESS) {
        fenns_headless_context_info(headless, &ci);
        r = fenns_context_create(&ci, &ctx);
    }
    fenns_host_searcher searcher = NULL;
    if (r == FENNS_SUCCESS) r = fenns_host_searcher_create(ctx, &searcher);
    fenns_host_search_info info;
    memset(&info, 0, sizeof info);
    info.radius = 1.0f;
    info.positions = xyz;
    info.particle_count = n;
    info.queue = headless ? fenns_headless_queue(headless) : VK_NULL_HANDLE;
    info.counts_only = counts_only;
    double *wall = calloc((size_t)reps, sizeof *wall);
    fenns_host_csr csr;
    memset(&csr, 0, sizeof csr);
    for (int i = -3; i < reps && r == FENNS_SUCCESS && wall; ++i) {
        double t0 = now_ms();
        r = fenns_host_searcher_run(searcher, &info, &csr);
        if (i >= 0) wall[i] = now_ms() - t0;
    }
    int status = r == FENNS_SUCCESS && wall ? 0 : 1;
    if (status == 0) {
        qsort(wall, (size_t)reps, sizeof *wall, by_value);
        fenns_device_limits lim;
        fenns_context_get_limits(ctx, &lim);
        printf("%s n=%u m=%llu (%.1f each)%s on %s\n", scenario, n, (unsigned long long)csr.total,
               (double)csr.total / n, counts_only ? " counts only" : "", lim.device_name);
        printf("  warm searcher: wall median %.3f ms (min %.3f, max %.3f); GPU build %.3f search %.3f (lists %.3f) ms; "
               "%.1f MiB held\n",
               wall[reps / 2], wall[0], wall[reps - 1], csr.build_ms, csr.search_ms, csr.lists_ms,
               (double)csr.gpu_memory_bytes / 1048576.0);
        uint64_t warm_total = csr.total, warm_last = csr.total ? csr.indices ? csr.indices[csr.total - 1] : 0 : 0;
        fenns_host_csr one;
        double t0 = now_ms();
        r = fenns_host_search(ctx, &info, &one);
        double t1 = now_ms();
        if (r == FENNS_SUCCESS) {
            uint64_t last = one.total && one.indices ? one.indices[one.total - 1] : 0;
            printf("  one-shot fenns_host_search (pipeline and buffers made in the call; its passes kept by the "
                   "context since the searcher's): wall %.3f ms\n", t1 - t0);
            if (one.total != warm_total || last != warm_last) {
                fprintf(stderr, "the one-shot search disagrees with the searcher\n");
                status = 1;
            }
        }
        fenns_host_csr_free(ctx, &one);
    }
    if (r != FENNS_SUCCESS) {
        fprintf(stderr, "failed: %s\n", fenns_result_string(r));
        status = 1;
    }
    free(wall);
    fenns_host_searcher_destroy(searcher);
    fenns_context_destroy(ctx);
    fenns_headless_destroy(headless);
    free(xyz);
    return status;
}
