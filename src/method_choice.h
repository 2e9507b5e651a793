/* FENNS_METHOD_AUTO's choice: a cost model of each method's build + counts
 * time, fitted to H100 benchmarks (bench/fit_auto.py), evaluated for a
 * pipeline's n, radius and box, among the methods the device can plan.
 * Pure C, no Vulkan calls: unit-tested without a GPU (tests/test_plan.c). */
#ifndef FENNS_METHOD_CHOICE_H
#define FENNS_METHOD_CHOICE_H

#include "plan.h"

/* The expected neighbours of a particle among n spread evenly over the box
 * (each extent taken as at least 2r, the sphere's own), or -1 when info
 * gives no box. */
double fenns_choice_expected_neighbors(const fenns_pipeline_create_info *info);

/* The pick for info (its method is not read) on a device of these limits. */
fenns_result fenns_choice_make(const fenns_plan_limits *limits, const fenns_pipeline_create_info *info,
                               fenns_method_choice *out);

#endif
