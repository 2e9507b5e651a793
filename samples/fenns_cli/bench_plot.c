/* `fenns bench --plot F.svg`: time against n, log-log, one line per
 * (method, scenario, radius). A small self-contained SVG writer. */
#include "bench_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

static int same_series(const bench_point *a, const bench_point *b) {
    return strcmp(a->method, b->method) == 0 && strcmp(a->scenario, b->scenario) == 0 && a->radius == b->radius;
}

int bench_plot_write(const char *path, const bench_point *points, size_t count) {
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    double nmin = INFINITY, nmax = -INFINITY, tmin = INFINITY, tmax = -INFINITY;
    for (size_t i = 0; i < count; ++i) {
        if (points[i].n < 1 || !(points[i].ms > 0.0)) continue;
        nmin = fmin(nmin, log10((double)points[i].n));
        nmax = fmax(nmax, log10((double)points[i].n));
        tmin = fmin(tmin, log10(points[i].ms));
        tmax = fmax(tmax, log10(points[i].ms));
    }
    if (!(nmin <= nmax)) nmin = 0, nmax = 1, tmin = -1, tmax = 1;
    nmin = floor(nmin), nmax = fmax(ceil(nmax), nmin + 1);
    tmin = floor(tmin), tmax = fmax(ceil(tmax), tmin + 1);
    const double W = 760, H = 480, L = 70, R = 260, T = 30, B = 50;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"18\">fenns bench: build + counts (solid), build + CSR lists (dashed), GPU ms</text>\n", L);
#define PX(v) (L + ((v) - nmin) / (nmax - nmin) * (W - L - R))
#define PY(v) (H - B - ((v) - tmin) / (tmax - tmin) * (H - T - B))
    for (double e = nmin; e <= nmax + 1e-9; e += 1.0)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"middle\">1e%.0f</text>\n", PX(e), PY(tmin), PX(e), PY(tmax), PX(e), H - B + 18, e);
    for (double e = tmin; e <= tmax + 1e-9; e += 1.0)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"end\">%g ms</text>\n", PX(nmin), PY(e), PX(nmax), PY(e), L - 6, PY(e) + 4, pow(10.0, e));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">particles n</text>\n", PX(0.5 * (nmin + nmax)), H - 12);
    size_t series = 0;
    for (size_t i = 0; i < count; ++i) {
        int first = 1;
        for (size_t j = 0; j < i; ++j) first &= !same_series(&points[j], &points[i]);
        if (!first) continue;
        const char *colour = colours[series % (sizeof colours / sizeof *colours)];
        for (int lists = 0; lists < 2; ++lists) {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", colour,
                    lists ? " stroke-dasharray=\"5,4\"" : "");
            for (size_t j = i; j < count; ++j) {
                double ms = lists ? points[j].ms_lists : points[j].ms;
                if (same_series(&points[j], &points[i]) && points[j].n > 0 && ms > 0.0)
                    fprintf(f, "%.1f,%.1f ", PX(log10((double)points[j].n)), PY(fmax(log10(ms), tmin)));
            }
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s %s r=%g</text>\n", W - R + 12, T + 16.0 * (double)series + 10,
                colour, points[i].method, points[i].scenario, (double)points[i].radius);
        ++series;
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
    return fclose(f) != 0;
}
