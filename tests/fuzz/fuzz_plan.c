/*
 * libFuzzer target for the create-info validation and the planner: any bytes
 * become device limits and a pipeline create-info. fenns_plan_make must
 * refuse with a named result or produce a plan whose every pipeline fits the
 * shared-memory budget and whose scratch regions do not overlap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fenns_shared.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fenns_plan_limits limits;
    fenns_pipeline_create_info info;
    uint32_t n_scratch = 0;
    if (size < sizeof limits + sizeof info + sizeof n_scratch) return 0;
    memcpy(&limits, data, sizeof limits);
    memcpy(&info, data + sizeof limits, sizeof info);
    memcpy(&n_scratch, data + sizeof limits + sizeof info, sizeof n_scratch);
    /* Keep the budget within what real devices report so plans stay small. */
    limits.shared_memory_budget %= 262144u;
    fenns_plan plan;
    fenns_result r = fenns_plan_make(&limits, &info, &plan);
    if (r != FENNS_SUCCESS) {
        if (r != FENNS_ERROR_INVALID_ARGUMENT && r != FENNS_ERROR_TOO_LARGE && r != FENNS_ERROR_UNSUPPORTED_DEVICE)
            abort();
        return 0;
    }
    if (plan.shared_bytes_max > limits.shared_memory_budget) abort();
    if (plan.workgroup_size > limits.max_workgroup_invocations || plan.fine_max < 3) abort();
    const uint32_t lanes[2] = {plan.query_lanes, plan.kernel_lanes};
    for (int k = 0; k < 2; ++k)
        if (lanes[k] < 1u || (lanes[k] > 1u && (lanes[k] * plan.workgroup_size > limits.max_workgroup_invocations ||
                                                lanes[k] * plan.workgroup_size > limits.max_workgroup_size_x ||
                                                (lanes[k] - 1u) * plan.workgroup_size > (FENNS_LOCAL_DIM_MAX + 1u) * plan.fine_cells)))
            abort();
    if (plan.section_keys != plan.cell_capacity * plan.sections + 1u) abort();
    if (plan.max_particles > plan.max_particles_addressable) abort();
    fenns_scratch_plan s;
    fenns_plan_scratch(&plan, n_scratch % (plan.max_particles + 1u), &s);
    const fenns_region regions[] = {s.params, s.cells, s.perm, s.radix_histogram, s.scan_sums, s.sorted};
    uint64_t end = 0;
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; ++i) {
        if (regions[i].offset < end || regions[i].offset % 256u) abort();
        end = regions[i].offset + regions[i].size;
    }
    if (end > s.size) abort();
    if (plan.user_domain) {
        uint64_t cells = (uint64_t)plan.table_dims[0] * plan.table_dims[1] * plan.table_dims[2];
        if (cells == 0 || cells > plan.cell_capacity) abort();
        for (int a = 0; a < 3; ++a)
            if (plan.table_dims[a] > plan.coarse_dims[a] || (plan.table_dims[a] < plan.coarse_dims[a] && plan.table_dims[a] < 3))
                abort();
    }
    return 0;
}
