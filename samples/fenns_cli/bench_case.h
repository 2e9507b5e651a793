/*
 * One benchmark case of `fenns bench` / `fenns profile`, measured the way an
 * engine runs fenns: pipeline and buffers made once, then warm-up iterations
 * and `reps` measured iterations recorded back to back into one command
 * buffer (build, counts search, CSR search, and a search running the
 * built-in SPH density kernel, samples/kernels/sph_density.glsl), GPU
 * timestamps between passes (fenns_profile), medians.
 */
#ifndef FENNS_BENCH_CASE_H
#define FENNS_BENCH_CASE_H

#include <stdint.h>
#include <stdio.h>

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

/* The recorded calls of one iteration. */
enum { BENCH_BUILD, BENCH_COUNTS, BENCH_CSR, BENCH_KERNEL, BENCH_CALLS };
extern const char *const bench_call_names[BENCH_CALLS]; /* "build", "counts", "csr", "kernel" */

typedef struct bench_case {
    fenns_method method;
    const float *xyz;   /* n points, 3 floats each */
    uint32_t n;
    float radius;
    float domain_min[3], domain_max[3]; /* the caller's box */
    uint32_t reps;      /* measured iterations (>= 1) */
    int host;           /* also time fenns_host_search */
    int sorted_order;   /* GPU searches with FENNS_OUTPUT_SORTED_ORDER */
    uint32_t grid_size; /* fenns_pipeline_create_info.grid_size (counting, octant, radix); 0: none */
    FILE *pipeline_statistics; /* 0: none; else after the run, what the driver compiled each of the
                                  pipeline's passes into, a line a pass (fenns_pipeline_statistics:
                                  the context needs pipeline_statistics) */
} bench_case;

typedef struct bench_result {
    double total_neighbors;
    double call_ms[BENCH_CALLS];                  /* medians of the calls' sums of passes */
    uint32_t pass_count[BENCH_CALLS];
    const char *pass_names[BENCH_CALLS][FENNS_MAX_PROFILED_PASSES];
    double pass_ms[BENCH_CALLS][FENNS_MAX_PROFILED_PASSES]; /* medians */
    uint64_t pass_bytes[BENCH_CALLS][FENNS_MAX_PROFILED_PASSES];
    double host_ms;                               /* median wall time; -1 when not measured */
    uint64_t gpu_mem_bytes;                       /* scratch + counts + offsets + lists */
    fenns_status status;
} bench_result;

/* Runs the case on the headless device. Returns 0 on success; otherwise
 * writes a one-line reason into `why` (the caller decides whether to skip). */
int bench_case_run(fenns_headless headless, fenns_context context, const bench_case *c, bench_result *out,
                   char *why, size_t why_size);

#endif
