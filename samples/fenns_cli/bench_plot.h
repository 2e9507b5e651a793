/* `fenns bench --plot`: an SVG of GPU time against n (log-log). */
#ifndef FENNS_BENCH_PLOT_H
#define FENNS_BENCH_PLOT_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_point {
    const char *method, *scenario;
    float radius;
    uint32_t n;
    double ms;       /* build + counts */
    double ms_lists; /* build + CSR lists */
} bench_point;

/* Returns 0 on success, nonzero when the file cannot be written. */
int bench_plot_write(const char *path, const bench_point *points, size_t count);

#endif
