/* FENNS_METHOD_AUTO (see method_choice.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "method_choice.h"

/* Build + counts in ms = a + b n + c n k (k expected neighbours), on the
 * H100: `python3 bench/fit_auto.py` on bench/results/2026-11-24_h100_bench_
 * {s1_methods,s3_methods,r,m}.csv, uniform sets with n 1024 .. 4194304 and
 * k 10^-4 .. 110 (median error 5-6%, largest 16-42%, at k 110 and n 65536).
 * fenns-paper is no candidate: slower than fenns on every set measured. */
typedef struct method_cost {
    fenns_method method;
    double a, b, c;
} method_cost;

static const method_cost costs[] = {
    {FENNS_METHOD_FENNS, 0.132, 2.771e-07, 5.183e-09},
    {FENNS_METHOD_COUNTING, 0.1362, 4.415e-07, 4.059e-09},
    {FENNS_METHOD_OCTANT, 0.1267, 3.425e-07, 1.71e-08},
    {FENNS_METHOD_RADIX, 0.2367, 4.926e-07, 4.356e-09},
};
#define COST_COUNT (sizeof costs / sizeof costs[0])

double fenns_choice_expected_neighbors(const fenns_pipeline_create_info *info) {
    if (!fenns_plan_domain_given(info->domain_min, info->domain_max) ||
        fenns_plan_domain_problem(info->domain_min, info->domain_max))
        return -1.0;
    double r = info->radius, volume = 1.0;
    for (int a = 0; a < 3; ++a) {
        double extent = (double)info->domain_max[a] - (double)info->domain_min[a];
        volume *= extent > 2.0 * r ? extent : 2.0 * r;
    }
    double k = (double)info->max_particles / volume * (4.0 / 3.0) * 3.14159265358979323846 * r * r * r;
    return isfinite(k) ? k : -1.0;
}

fenns_result fenns_choice_make(const fenns_plan_limits *limits, const fenns_pipeline_create_info *info,
                               fenns_method_choice *out) {
    if (!limits || !info || !out) return FENNS_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    fenns_pipeline_create_info each = *info;
    fenns_plan plan;
    /* The device and the arguments first: fenns' own plan. */
    each.method = FENNS_METHOD_FENNS;
    fenns_result r = fenns_plan_make(limits, &each, &plan);
    if (r != FENNS_SUCCESS) {
        snprintf(out->reason, sizeof out->reason, "no plan: %s", plan.problem ? plan.problem : fenns_result_string(r));
        return r;
    }
    out->method = FENNS_METHOD_FENNS;
    double k = fenns_choice_expected_neighbors(info);
    out->expected_neighbors = (float)k;
    if (k < 0.0) {
        snprintf(out->reason, sizeof out->reason,
                 "no caller's box, so the density is unknown until the GPU computes the box: fenns "
                 "(the fastest on dense sets, within 15%% of the fastest on sparse ones, H100)");
        return FENNS_SUCCESS;
    }
    double n = info->max_particles, best = INFINITY;
    int len = snprintf(out->reason, sizeof out->reason, "n %u, r %g, %.3g expected neighbours: predicted",
                       info->max_particles, (double)info->radius, k);
    for (size_t i = 0; i < COST_COUNT; ++i) {
        each.method = costs[i].method;
        int fits = fenns_plan_make(limits, &each, &plan) == FENNS_SUCCESS;
        double ms = costs[i].a + costs[i].b * n + costs[i].c * n * k;
        if (fits) out->predicted_ms[costs[i].method] = (float)ms;
        if (len >= 0 && (size_t)len < sizeof out->reason)
            len += fits ? snprintf(out->reason + len, sizeof out->reason - (size_t)len, " %s %.3g ms%s",
                                   fenns_method_name(costs[i].method), ms, i + 1 < COST_COUNT ? "," : "")
                        : snprintf(out->reason + len, sizeof out->reason - (size_t)len, " %s (no plan)%s",
                                   fenns_method_name(costs[i].method), i + 1 < COST_COUNT ? "," : "");
        if (fits && ms < best) {
            best = ms;
            out->method = costs[i].method;
        }
    }
    if (len >= 0 && (size_t)len < sizeof out->reason)
        snprintf(out->reason + len, sizeof out->reason - (size_t)len, " (H100 model): %s", fenns_method_name(out->method));
    return FENNS_SUCCESS;
}
