/* Pipeline creation: the plan, and one compute pipeline per pass with the
 * plan's specialization, compiled or taken from the context's store. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "pipeline_store.h"
#include "method_choice.h"
#include "spirv_shared.h"

#include "domain_reduce.spv.h"
#include "grid_setup.spv.h"
#include "coarse_count.spv.h"
#include "density.spv.h"
#include "scan_block.spv.h"
#include "scan_reduce.spv.h"
#include "scan64_block.spv.h"
#include "scan64_reduce.spv.h"
#include "cell_cursors.spv.h"
#include "reorder.spv.h"
#include "section_sort.spv.h"
#include "section_order.spv.h"
#include "cell_order.spv.h"
#include "radix_keys.spv.h"
#include "radix_count.spv.h"
#include "radix_scatter.spv.h"
#include "radix_bounds.spv.h"
#include "radix_gather.spv.h"
#include "search_work.spv.h"
#include "search_fenns.spv.h"
#include "search_fenns_count.spv.h"
#include "search_paper.spv.h"
#include "search_counting.spv.h"
#include "list_sort.spv.h"
#include "count_total.spv.h"
#include "reset_status.spv.h"
#include "reorder_attributes.spv.h"
#include "reorder_ranked.spv.h"
#include "search_work_totals.spv.h"
#include "window_items.spv.h"

/* The host reads fenns_status straight out of the GPU's parameter block. */
_Static_assert(offsetof(fenns_gpu_params, table_x) == sizeof(fenns_status) &&
                   offsetof(fenns_gpu_params, domain_max_z) == offsetof(fenns_status, domain_max[2]) &&
                   offsetof(fenns_gpu_params, incomplete_queries) == offsetof(fenns_status, incomplete_queries) &&
                   offsetof(fenns_gpu_params, fine_split) == offsetof(fenns_status, fine_split) &&
                   offsetof(fenns_gpu_params, requested_count) == offsetof(fenns_status, requested_count) &&
                   offsetof(fenns_gpu_params, grid_mismatch) == offsetof(fenns_status, grid_mismatch),
               "fenns_status must be the first bytes of fenns_gpu_params");

_Static_assert(FENNS_STORE_VALUES == FENNS_SPEC_CONSTANTS, "a store key holds every specialization constant");

typedef struct shader_code {
    const uint32_t *code;
    size_t size;
} shader_code;
#define FENNS_SPV_(name) {fenns_spv_##name, sizeof fenns_spv_##name}

static shader_code code_of(fenns_pass pass, fenns_method method) {
    static const shader_code table[FENNS_PASS_COUNT] = {
        FENNS_SPV_(domain_reduce), FENNS_SPV_(grid_setup), FENNS_SPV_(density), FENNS_SPV_(coarse_count), FENNS_SPV_(scan_block),
        FENNS_SPV_(scan_reduce),      FENNS_SPV_(cell_cursors), FENNS_SPV_(reorder),    FENNS_SPV_(reorder_ranked), FENNS_SPV_(section_sort),
        FENNS_SPV_(section_order), FENNS_SPV_(cell_order), FENNS_SPV_(cell_order), FENNS_SPV_(radix_keys), FENNS_SPV_(radix_count), FENNS_SPV_(radix_scatter),
        FENNS_SPV_(radix_bounds),  FENNS_SPV_(radix_gather), FENNS_SPV_(search_work_totals), FENNS_SPV_(search_work),
        FENNS_SPV_(reset_status),
        FENNS_SPV_(search_fenns),
        FENNS_SPV_(scan64_block),  FENNS_SPV_(scan64_reduce),  FENNS_SPV_(list_sort),
        FENNS_SPV_(search_fenns),  FENNS_SPV_(list_sort),   FENNS_SPV_(search_fenns_count), FENNS_SPV_(search_fenns_count),
        FENNS_SPV_(search_fenns),  FENNS_SPV_(search_fenns), FENNS_SPV_(search_fenns_count),  FENNS_SPV_(search_fenns_count),
        FENNS_SPV_(search_fenns),  FENNS_SPV_(search_fenns), FENNS_SPV_(search_fenns), /* search_windowed and its variants */
        FENNS_SPV_(window_items),
        FENNS_SPV_(count_total),
        {NULL, 0}, {NULL, 0}, {NULL, 0}, /* search_kernel and its variants: the caller's */
        FENNS_SPV_(reorder_attributes),
        FENNS_SPV_(scan_block), FENNS_SPV_(scan64_block), /* their look-back pipelines (LOOKBACK 1) */
    };
    if (fenns__is_search_pass(pass) && method == FENNS_METHOD_FENNS_PAPER)
        return (shader_code)FENNS_SPV_(search_paper);
    if (fenns__is_search_pass(pass) && fenns_plan_walks_particles(method))
        return (shader_code)FENNS_SPV_(search_counting);
    return table[pass];
}

fenns_plan_limits fenns__plan_limits(fenns_context ctx) {
    fenns_plan_limits l;
    l.shared_memory_budget = ctx->limits.shared_memory_budget;
    l.max_workgroup_invocations = ctx->limits.max_workgroup_invocations;
    l.max_workgroup_size_x = ctx->max_workgroup_size_x;
    l.max_workgroup_count_x = ctx->limits.max_workgroup_count[0] < ctx->limits.max_workgroup_count[1]
                                  ? ctx->limits.max_workgroup_count[0] : ctx->limits.max_workgroup_count[1];
    l.max_storage_buffer_range = ctx->limits.max_storage_buffer_range;
    l.min_storage_buffer_offset_alignment = ctx->limits.min_storage_buffer_offset_alignment;
    return l;
}

/* "fenns: <pass>": the prefixed name debuggers show; logs print the bare one. */
#define FENNS_NAME_PREFIX_ "fenns: "
static const char *const pass_names[FENNS_PASS_COUNT] = {
#define FENNS_PASS_NAME_(name) FENNS_NAME_PREFIX_ #name,
    FENNS_PASS_LIST(FENNS_PASS_NAME_)
#undef FENNS_PASS_NAME_
};

const char *fenns__pass_name(fenns_pass pass) { return pass_names[pass] + sizeof FENNS_NAME_PREFIX_ - 1; }

/* "fenns: <pass>" on each pipeline, for debuggers and validation messages
 * (the context's debug_utils). */
static VkResult name_pipeline(fenns_context ctx, VkPipeline pipeline, fenns_pass pass) {
    VkDebugUtilsObjectNameInfoEXT info = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                                          .objectType = VK_OBJECT_TYPE_PIPELINE,
                                          .objectHandle = (uint64_t)pipeline,
                                          .pObjectName = pass_names[pass]};
    return ctx->vk.vkSetDebugUtilsObjectNameEXT(ctx->device, &info);
}

const uint32_t *fenns__pass_spirv(fenns_pass pass, fenns_method method, size_t *bytes) {
    shader_code code = code_of(pass, method);
    *bytes = code.size;
    return code.code;
}

/* Whether a method's builds run a pass: radix's own passes for radix only,
 * and none of the placement passes its sort replaces (each pipeline made
 * costs time at creation, most on CPU drivers). */
int fenns__method_runs(fenns_method method, fenns_pass pass) {
    if (pass == FENNS_PASS_density || pass == FENNS_PASS_reorder_ranked || pass == FENNS_PASS_window_items ||
        fenns__is_fixed_grid_pass(pass))
        return method == FENNS_METHOD_FENNS;
    /* fenns-paper fills its lists in one dispatch (fenns_plan.list_window_shift 0). */
    if (pass == FENNS_PASS_search_windowed) return method != FENNS_METHOD_FENNS_PAPER;
    if (method == FENNS_METHOD_RADIX)
        return pass != FENNS_PASS_coarse_count && pass != FENNS_PASS_cell_cursors && pass != FENNS_PASS_reorder &&
               pass != FENNS_PASS_section_sort && pass != FENNS_PASS_section_order && pass != FENNS_PASS_cell_order &&
               pass != FENNS_PASS_cell_order_wide;
    return !fenns__is_radix_pass(pass);
}

void fenns__pass_specialization(const fenns_plan *plan, fenns_pass pass, uint32_t loop_limit,
                                uint32_t max_workgroup_invocations, uint32_t values[FENNS_SPEC_CONSTANTS]) {
    /* constant_id 0: workgroup size; 1: the pass's shared array size (search
     * work: its cells an invocation); 2: search
     * work by particle, not by cell (counting's and octant's search_work), the
     * octant walk (their search);
     * 3: the index chunks the list writes may touch; 4: 1 for the counting-only
     * search; 5: the chunks the sorted particles may span; 6: the kernel
     * search's walk (0 fenns' local grid, 1 the 27 cells of a fenns-paper
     * build's cell, 2 of counting's particle, 3 octant's 8); 7: 1 where the
     * driver stops a loop after loop_limit iterations, for fenns' searches
     * (local_grid_fenns.glsl's LOOP_LIMITED); 8: the reach of fenns' search
     * variants for fixed grids, 0 elsewhere (local_grid_fenns.glsl's
     * FIXED_REACH); 9: a query's invocations (below); 10: candidates a row
     * step (below); 11: a kernel's part slots (1 here; create_pass sets
     * them where it splits a kernel's queries); 12: 1 for the list fill's
     * windowed variants (bindings.glsl's LIST_WINDOWED). */
    int wide = pass == FENNS_PASS_search_wide || pass == FENNS_PASS_list_sort_wide || pass == FENNS_PASS_search_count_wide;
    uint32_t counting = pass == FENNS_PASS_search_count || pass == FENNS_PASS_search_count_wide ||
                        pass == FENNS_PASS_search_count_local7 || pass == FENNS_PASS_search_count_local9;
    /* Sorted particles in chunks only where the capacity needs them: a wide
     * pass may be wide for its lists alone (H100, sph50 16M). */
    int sorted_chunks = (uint64_t)plan->max_particles > (UINT64_C(1) << plan->chunk_shift16);
    /* Only the kernel search reads constant 6: elsewhere it stays 0, so that
     * a pass every method runs alike (the scans, the grid setup, ...) keeps
     * one key in the pipeline store, not one per method. */
    uint32_t v[FENNS_SPEC_CONSTANTS] = {plan->workgroup_size, 1, 1, wide ? FENNS_INDEX_CHUNKS : 1u, counting,
                                        wide && sorted_chunks ? FENNS_CHUNKS : 1u,
                                        fenns__is_kernel_pass(pass) ? (uint32_t)plan->method : 0u, 0u,
                                        fenns__fixed_reach(pass), 1u, 2u, 1u,
                                        fenns__is_windowed_pass(pass) ? 1u : 0u};
    memcpy(values, v, sizeof v);
    /* 9: the invocations a query of the counts search's general variant
     * takes, each a workgroup_size of them (local_grid_fenns.glsl's
     * QUERY_LANES). */
    if (pass == FENNS_PASS_search_count && plan->query_lanes > 1u) {
        values[0] = plan->workgroup_size * plan->query_lanes;
        values[9] = plan->query_lanes;
    }
    /* The list fill's general variant likewise (fill_lanes). */
    if (pass == FENNS_PASS_search && plan->fill_lanes > 1u) {
        values[0] = plan->workgroup_size * plan->fill_lanes;
        values[9] = plan->fill_lanes;
    }
    /* 10: candidates a step of fenns' rows in its kernel searches and list
     * fills (local_grid_fenns.glsl's ROW_STEP); 2 in every other search. */
    if (plan->method == FENNS_METHOD_FENNS) {
        if (fenns__is_kernel_pass(pass)) values[10] = plan->kernel_row_step;
        if (fenns__is_fill_pass(pass)) values[10] = plan->list_row_step;
    }
    if (pass == FENNS_PASS_search_work || pass == FENNS_PASS_search_work_totals || pass == FENNS_PASS_section_order) {
        /* The section order holds the work list only where it runs it (0:
         * compiled out, fenns_plan.work_list_in_order). */
        values[1] = pass != FENNS_PASS_section_order || plan->work_list_in_order ? plan->work_list_cells : 0u;
        values[2] = fenns_plan_walks_particles(plan->method) ? 1u : 0u;
    }
    if (fenns__is_search_pass(pass)) values[2] = plan->method == FENNS_METHOD_OCTANT ? 1u : 0u; /* radix: counting's walk */
    if (pass == FENNS_PASS_coarse_count) values[1] = plan->shared_histogram ? fenns_plan_count_entries(plan) : 1;
    if (pass == FENNS_PASS_cell_order || pass == FENNS_PASS_cell_order_wide) {
        values[1] = plan->order_capacity;
        values[2] = pass == FENNS_PASS_cell_order ? FENNS_ORDER_ITEMS_NARROW : FENNS_ORDER_ITEMS_WIDE;
    }
    if (pass == FENNS_PASS_section_sort || pass == FENNS_PASS_list_sort || pass == FENNS_PASS_list_sort_wide)
        values[1] = plan->sort_capacity;
    /* Where the driver stops an invocation after a fixed number of loop
     * iterations (llvmpipe), the section sort's long sections (thousands of
     * coincident particles) take 4x fewer per invocation in a workgroup of
     * 1024; elsewhere the plan's size keeps more cells in flight (H100: 0.37
     * vs 0.2 ms for 4M particles). */
    if (pass == FENNS_PASS_section_sort && loop_limit)
        values[0] = max_workgroup_invocations < 1024u ? max_workgroup_invocations : 1024u;
    if (fenns__is_search_pass(pass)) {
        values[1] = plan->fine_cells; /* fenns: local grid rows; fenns-paper: fine cells + 1 */
    }
    if ((fenns__is_search_pass(pass) || fenns__is_kernel_pass(pass)) && plan->method == FENNS_METHOD_FENNS)
        values[7] = loop_limit != 0u ? 1u : 0u;
    /* The scans' one-dispatch pipelines (4: scan_lookback.glsl's LOOKBACK)
     * and their polls (7: LOOKBACK_POLLS), bounded where the driver stops
     * loops, none at all for the tests. Their own pipelines: the look-back
     * compiled into the two-dispatch scans slowed them (H200, the offsets
     * scan of 4M counts 0.044 -> 0.048 ms). */
    if (pass == FENNS_PASS_scan_lookback || pass == FENNS_PASS_scan64_lookback) {
        values[4] = 1u;
        values[7] = plan->scan_lookback == 2u ? 2u : loop_limit != 0u ? 1u : 0u;
    }
    if (fenns__is_kernel_pass(pass)) {
        /* One pipeline for every size: sorted particles in chunks only when
         * the capacity needs them. fenns-paper's walk uses no local grid. */
        values[1] = plan->method == FENNS_METHOD_FENNS ? plan->fine_cells : 1u;
        values[5] = sorted_chunks ? FENNS_CHUNKS : 1u;
    }
}

/* The store keeps fenns' own passes, and a kernel's search unless it is
 * made with a set layout of the caller's (pipeline_store.h): that one is
 * compiled for each pipeline. */
static int kept_in_store(fenns_pipeline p, fenns_pass pass) {
    return !fenns__is_kernel_pass(pass) || p->kernel_layout == VK_NULL_HANDLE;
}

static fenns_result create_pass(fenns_pipeline p, fenns_pass pass, const fenns_kernel_info *kernel) {
    fenns_context ctx = p->ctx;
    if (!fenns__method_runs(p->plan.method, pass)) return FENNS_SUCCESS;
    /* The one-dispatch scans only where the plan looks back (not on CPU drivers). */
    if ((pass == FENNS_PASS_scan_lookback || pass == FENNS_PASS_scan64_lookback) && !p->plan.scan_lookback)
        return FENNS_SUCCESS;
    /* The windowed fill only where the plan's lists may need windows (settle_for_device). */
    if ((fenns__is_windowed_pass(pass) || pass == FENNS_PASS_window_items) && !p->plan.windowed_lists)
        return FENNS_SUCCESS;
    shader_code code = code_of(pass, p->plan.method);
    size_t content_words = 0; /* a kernel's SPIR-V is named by its words, a built-in's by its address */
    if (fenns__is_kernel_pass(pass)) {
        if (!kernel) return FENNS_SUCCESS;
        code = (shader_code){kernel->spirv, kernel->spirv_size};
        content_words = kernel->spirv_size / 4u;
    }
    int keep = kept_in_store(p, pass);
    uint32_t values[FENNS_SPEC_CONSTANTS];
    fenns__pass_specialization(&p->plan, pass, ctx->loop_limit, ctx->limits.max_workgroup_invocations, values);
    /* A fenns kernel that combines its states declares constant 11
     * (shaders/template/fenns_kernel_parts.glsl): its general search then
     * splits each query over plan.kernel_lanes invocations, a workgroup that
     * many times the plan's, the parts' states meeting in the kernel's
     * shared slots, one a query of the chunk. The slots are fenns' choice,
     * so they must fit the budget plans keep to (the context's
     * shared_memory_budget: a mobile GPU's 16 KiB); where they would not,
     * one invocation a query. */
    if (pass == FENNS_PASS_search_kernel && p->plan.kernel_lanes > 1u &&
        fenns__spirv_declares_spec_id(code.code, code.size / 4u, FENNS_KERNEL_PART_SLOTS_ID)) {
        uint32_t split[FENNS_SPEC_CONSTANTS];
        memcpy(split, values, sizeof split);
        split[0] = p->plan.workgroup_size * p->plan.kernel_lanes;
        split[9] = p->plan.kernel_lanes;
        split[FENNS_KERNEL_PART_SLOTS_ID] = p->plan.workgroup_size;
        uint64_t split_shared = fenns__spirv_shared_bytes(code.code, code.size / 4u, split, FENNS_SPEC_CONSTANTS);
        if (split_shared != FENNS_SPIRV_UNKNOWN && split_shared <= ctx->limits.shared_memory_budget)
            memcpy(values, split, sizeof split);
    }
    if (pass == FENNS_PASS_search_kernel) p->kernel_lanes_made = values[9];
    /* A pass another pipeline of this context compiled already (its shared
     * memory was checked then). */
    if (keep && (p->pipelines[pass] = fenns__store_find(ctx, code.code, content_words, values)) != VK_NULL_HANDLE)
        return FENNS_SUCCESS;
    /* The planner keeps fenns' own shaders within the budget; a user kernel
     * may declare shared arrays of its own. Past the device's limit the
     * driver would refuse the pipeline (or worse): refuse it here, by name. */
    uint64_t shared = fenns__spirv_shared_bytes(code.code, code.size / 4u, values, FENNS_SPEC_CONSTANTS);
    if (shared != FENNS_SPIRV_UNKNOWN && shared > ctx->limits.max_shared_memory) {
        fenns__log(ctx, FENNS_LOG_ERROR, "the %s pipeline needs %llu bytes of shared memory; the device has %u%s",
                   fenns__pass_name(pass), (unsigned long long)shared, ctx->limits.max_shared_memory,
                   fenns__is_kernel_pass(pass) ? " (the kernel's own shared arrays count)" : "");
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                            .codeSize = code.size, .pCode = code.code};
    VkShaderModule module;
    VkResult r = ctx->vk.vkCreateShaderModule(ctx->device, &module_info, ctx->allocator, &module);
    if (r != VK_SUCCESS) return fenns__from_vk(r);

    VkSpecializationMapEntry entries[FENNS_SPEC_CONSTANTS];
    for (uint32_t k = 0; k < FENNS_SPEC_CONSTANTS; ++k) entries[k] = (VkSpecializationMapEntry){k, 4u * k, 4u};
    VkSpecializationInfo spec = {FENNS_SPEC_CONSTANTS, entries, sizeof values, values};
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main",
                  .pSpecializationInfo = &spec},
        .layout = fenns__pass_layout(p, pass)};
    if (ctx->vk.vkGetPipelineExecutableStatisticsKHR) info.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkPipeline made = VK_NULL_HANDLE;
    r = ctx->vk.vkCreateComputePipelines(ctx->device, ctx->pipeline_cache, 1, &info, ctx->allocator, &made);
    ctx->vk.vkDestroyShaderModule(ctx->device, module, ctx->allocator);
    if (r == VK_SUCCESS && ctx->vk.vkSetDebugUtilsObjectNameEXT) r = name_pipeline(ctx, made, pass);
    if (r != VK_SUCCESS) {
        if (made) ctx->vk.vkDestroyPipeline(ctx->device, made, ctx->allocator);
        fenns__log(ctx, FENNS_LOG_ERROR, "creating the %s pipeline failed (VkResult %d)", fenns__pass_name(pass), (int)r);
        return fenns__from_vk(r);
    }
    if (!keep) {
        p->pipelines[pass] = made;
        return FENNS_SUCCESS;
    }
    fenns_result kept = fenns__store_keep(ctx, code.code, content_words, values, made, &p->pipelines[pass]);
    if (kept != FENNS_SUCCESS)
        fenns__log(ctx, FENNS_LOG_ERROR, "keeping the %s pipeline: %s", fenns__pass_name(pass), fenns_result_string(kept));
    return kept;
}

/* An environment override that is exactly "0" or "1": that value, else -1. */
static int env_bit(const char *name) {
    const char *v = getenv(name);
    return v && (v[0] == '0' || v[0] == '1') && !v[1] ? v[0] - '0' : -1;
}

/* An environment override that is a decimal number in [least, most]: 1 and
 * *value, else 0. */
static int env_number(const char *name, uint64_t least, uint64_t most, uint64_t *value) {
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end = NULL;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || n < least || n > most) return 0;
    *value = n;
    return 1;
}

/* What a plan leaves to the device it runs on, and the environment's
 * overrides (the tests and the benchmarks use them). */
static void settle_for_device(fenns_plan *plan, fenns_context context) {
    int fenns = plan->method == FENNS_METHOD_FENNS;
    uint64_t v;
    /* FENNS_BUILD_BY_CELL=0 or 1 forces fenns' build flavour (the tests run
     * both on small sets; benchmarks compare them); unset, the plan picks. */
    int by_cell = env_bit("FENNS_BUILD_BY_CELL");
    if (fenns && by_cell >= 0) plan->by_cell = (uint32_t)by_cell;
    /* Small searches on a GPU are one dispatch (FENNS_ONE_SEARCH_DISPATCH_MAX);
     * a CPU driver, whose barriers drain nothing, keeps the three, so the
     * tests run the variants there. FENNS_ONE_SEARCH_DISPATCH_MAX=n in the
     * environment sets the bound (the tests run one dispatch on lavapipe). */
    plan->one_search_dispatch_max = fenns && !context->cpu_device ? FENNS_ONE_SEARCH_DISPATCH_MAX : 0u;
    if (fenns && env_number("FENNS_ONE_SEARCH_DISPATCH_MAX", 0, UINT32_MAX, &v))
        plan->one_search_dispatch_max = (uint32_t)v;
    /* A GPU scans the cell table and the CSR offsets in one dispatch each
     * (scan_lookback.glsl), sparing a launch and a drain and a read of the
     * input. A CPU driver keeps two: its barriers drain nothing, and a
     * waiting workgroup spins on a core (lavapipe, several threads: blocks
     * that had waited wrote nothing and marked nothing, scan_lookback.glsl).
     * FENNS_SCAN_LOOKBACK=0 forces two; 1 asks for one
     * where the driver does not stop loops (never on llvmpipe); 2 makes
     * every look-back give up at once, which no block waits on (the tests'
     * check that a scan that gives up is reported, not silent: test_scan64);
     * builds then scan their cells in two dispatches (build_passes.c's
     * cell_scan_lookback says why). */
    plan->scan_lookback = !context->cpu_device && !context->loop_limit ? 1u : 0u;
    if (env_number("FENNS_SCAN_LOOKBACK", 0, 2, &v) && (v != 1u || !context->loop_limit))
        plan->scan_lookback = (uint32_t)v;
    /* Ranked builds run the search work list's second pass in the section
     * order's first workgroups (section_order.comp), which spares a GPU a
     * pass's draining. A CPU driver drains nothing, and runs the section
     * order's own workgroups slower in that shader (lavapipe, sph50 262144:
     * the pass 23 -> 37 ms), so there the pass stays on its own.
     * FENNS_WORK_LIST_IN_ORDER=0 or 1 forces either where the build is
     * ranked (the tests run both on lavapipe). The section order holds the
     * pass's shared arrays for one cell an invocation: every ranked plan's,
     * but for one forced by section past its size. */
    int can_order = fenns_plan_ranked(plan) && plan->work_list_cells == 1u;
    int in_order = env_bit("FENNS_WORK_LIST_IN_ORDER");
    plan->work_list_in_order = can_order && (in_order >= 0 ? in_order : !context->cpu_device);
    /* FENNS_LIST_WINDOW_LOG2=k (8..30) fills lists in windows of at most
     * 2^k entries, where the plan has windows (the tests run small sets in
     * many; the chunked searches take windows in original order only). */
    if (plan->list_window_shift && env_number("FENNS_LIST_WINDOW_LOG2", 8, FENNS_LIST_WINDOW_SHIFT, &v))
        plan->list_window_shift = (uint32_t)v;
    /* FENNS_LIST_WINDOWED=0 writes lists past one binding with the chunked
     * searches even where the windowed ones could (the tests run both). */
    if (env_bit("FENNS_LIST_WINDOWED") == 0) plan->windowed_lists = 0u;
    /* Nor where no CSR list can pass a window: they hold at most
     * max_particles^2 entries (both builds a search reads are this plan's).
     * The windowed fill's pipelines are made only where they may run (each
     * costs time at creation, most on CPU drivers, and the failure-injection
     * tests make their pipelines at every site); fixed lists of so few
     * particles that pass a window take the chunked fill. */
    uint64_t window_most = plan->one_binding_bytes / 4u;
    if (plan->list_window_shift && (UINT64_C(1) << plan->list_window_shift) < window_most)
        window_most = UINT64_C(1) << plan->list_window_shift;
    if ((uint64_t)plan->max_particles * plan->max_particles <= window_most) plan->windowed_lists = 0u;
    /* On a GPU, small searches keep more of its invocations busy: the counts
     * search splits each query over several (FENNS_QUERY_LANES4_MAX), so does
     * the kernel search of a kernel that combines its states
     * (FENNS_KERNEL_LANES4_MAX), and the kernel search loads four candidates
     * a step (FENNS_ROW_STEP4_KERNEL_MAX).
     * A CPU driver, which runs a workgroup's
     * invocations in turn, keeps one and two (lavapipe, sph50 16384, one
     * dispatch: counts 18.4 / 19.3 -> 34.4 / 36.0 ms over 4 lanes, kernel
     * 18.2 / 19.9 -> 17.8 / 21.2 at 4 a step). FENNS_QUERY_LANES=k (1..8)
     * asks for k lanes where the device allows them, FENNS_KERNEL_LANES=k the
     * same of kernel searches, FENNS_FILL_LANES=k of list fills (the fill
     * splits its queries, FENNS_FILL_LANES4_MAX, like the counts search:
     * lavapipe keeps one lane there too), FENNS_ROW_STEP=2 or 4
     * sets the kernel search's step and the list fill's (the tests run the
     * GPUs' forms, and the fill at four, on lavapipe so). */
    if (context->cpu_device) {
        plan->query_lanes = plan->kernel_lanes = plan->fill_lanes = 1u;
        plan->kernel_row_step = plan->list_row_step = 2u;
    }
    if (fenns && env_number("FENNS_ROW_STEP", 2, 4, &v) && v != 3u)
        plan->kernel_row_step = plan->list_row_step = (uint32_t)v;
    fenns_plan_limits limits = fenns__plan_limits(context);
    if (fenns && env_number("FENNS_KERNEL_LANES", 1, 8, &v))
        plan->kernel_lanes = fenns_plan_kernel_lanes(plan, &limits, (uint32_t)v);
    if (fenns && env_number("FENNS_QUERY_LANES", 1, 8, &v))
        plan->query_lanes = fenns_plan_query_lanes(plan, &limits, (uint32_t)v);
    if (fenns && env_number("FENNS_FILL_LANES", 1, 8, &v))
        plan->fill_lanes = fenns_plan_fill_lanes(plan, &limits, (uint32_t)v);
}

fenns_result fenns_pipeline_create(fenns_context context, const fenns_pipeline_create_info *info,
                                   fenns_pipeline *out_pipeline) {
    if (out_pipeline) *out_pipeline = NULL;
    if (!context || !info || !out_pipeline) return FENNS_ERROR_INVALID_ARGUMENT;
    const fenns_kernel_info *kernel = info->kernel;
    if (kernel && !fenns__kernel_spirv_ok(kernel)) {
        fenns__log(context, FENNS_LOG_ERROR, "fenns_pipeline_create: the kernel's SPIR-V is null, short or not SPIR-V");
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    fenns_plan plan;
    fenns_plan_limits limits = fenns__plan_limits(context);
    fenns_pipeline_create_info resolved = *info;
    if (info->method == FENNS_METHOD_AUTO) {
        fenns_method_choice choice;
        fenns_result chosen = fenns_choice_make(&limits, info, &choice);
        if (chosen != FENNS_SUCCESS) {
            fenns__log(context, FENNS_LOG_ERROR, "fenns_pipeline_create: auto: %s", choice.reason);
            return chosen;
        }
        fenns__log(context, FENNS_LOG_INFO, "auto: %s", choice.reason);
        resolved.method = choice.method;
    }
    info = &resolved;
    fenns_result result = fenns_plan_make(&limits, info, &plan);
    if (result != FENNS_SUCCESS) {
        if (result == FENNS_ERROR_TOO_LARGE && !plan.problem)
            fenns__log(context, FENNS_LOG_ERROR, "%u particles exceed the %llu this device can address",
                       info->max_particles, (unsigned long long)plan.max_particles_addressable);
        else
            fenns__log(context, FENNS_LOG_ERROR, "fenns_pipeline_create: %s",
                       plan.problem ? plan.problem : fenns_result_string(result));
        return result;
    }
    struct fenns_pipeline_T *p = fenns__alloc(context, sizeof *p);
    if (!p) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    memset(p, 0, sizeof *p);
    p->ctx = context;
    p->plan = plan;
    settle_for_device(&p->plan, context);

    /* Every built-in pass is made and bound with the context's one layout
     * (pipeline_store.h); a kernel's search adds the caller's set. */
    result = fenns__store_layouts(context, &p->set_layout, &p->layout);
    if (result != FENNS_SUCCESS) {
        fenns_pipeline_destroy(p);
        return result;
    }
    VkResult r = VK_SUCCESS;
    if (kernel && kernel->user_set_layout) {
        VkDescriptorSetLayout sets[2] = {p->set_layout, kernel->user_set_layout};
        r = fenns__make_pipeline_layout(context, sets, 2u, &p->kernel_layout);
    }
    if (r != VK_SUCCESS) {
        fenns__log(context, FENNS_LOG_ERROR, "creating the pipeline layouts failed (VkResult %d)", (int)r);
        fenns_pipeline_destroy(p);
        return fenns__from_vk(r);
    }
    for (int pass = 0; pass < FENNS_PASS_COUNT && result == FENNS_SUCCESS; ++pass)
        result = create_pass(p, (fenns_pass)pass, kernel);
    if (result != FENNS_SUCCESS) {
        fenns_pipeline_destroy(p);
        return result;
    }
    *out_pipeline = p;
    return FENNS_SUCCESS;
}

void fenns_pipeline_destroy(fenns_pipeline p) {
    if (!p) return;
    fenns_context ctx = p->ctx;
    for (int pass = 0; pass < FENNS_PASS_COUNT; ++pass) {
        if (!p->pipelines[pass]) continue;
        if (kept_in_store(p, (fenns_pass)pass))
            fenns__store_release(ctx, p->pipelines[pass]);
        else
            ctx->vk.vkDestroyPipeline(ctx->device, p->pipelines[pass], ctx->allocator);
    }
    if (p->kernel_layout) ctx->vk.vkDestroyPipelineLayout(ctx->device, p->kernel_layout, ctx->allocator);
    fenns__free(ctx, p);
}

void fenns_pipeline_get_plan(fenns_pipeline p, fenns_plan_summary *out) {
    if (!p || !out) return;
    memset(out, 0, sizeof *out);
    out->coarse_cell_capacity = p->plan.cell_capacity;
    memcpy(out->coarse_dims, p->plan.coarse_dims, sizeof out->coarse_dims);
    out->fine_dims_max = p->plan.fine_max;
    out->workgroup_size = p->plan.workgroup_size;
    out->shared_memory_bytes = p->plan.shared_bytes_search;
    out->shared_histogram = p->plan.shared_histogram;
    out->method = p->plan.method;
}

fenns_result fenns_method_choose(fenns_context context, const fenns_pipeline_create_info *info,
                                 fenns_method_choice *out_choice) {
    if (out_choice) memset(out_choice, 0, sizeof *out_choice);
    if (!context || !info || !out_choice) return FENNS_ERROR_INVALID_ARGUMENT;
    fenns_plan_limits limits = fenns__plan_limits(context);
    return fenns_choice_make(&limits, info, out_choice);
}

void fenns_pipeline_get_scratch_requirements(fenns_pipeline p, uint32_t particle_count,
                                             fenns_memory_requirements *out) {
    if (!p || !out) return;
    fenns_scratch_plan s;
    fenns_plan_scratch(&p->plan, particle_count, &s);
    out->size = s.size;
    out->alignment = s.alignment > p->ctx->limits.min_storage_buffer_offset_alignment
                         ? s.alignment : p->ctx->limits.min_storage_buffer_offset_alignment;
    /* TRANSFER_SRC: a SORTED_ORDER search copies the permutation out of it. */
    out->usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
}

void fenns_pipeline_get_scratch_layout(fenns_pipeline p, uint32_t particle_count, fenns_scratch_layout *out) {
    if (!p || !out) return;
    fenns_scratch_plan s;
    fenns_plan_scratch(&p->plan, particle_count, &s);
    out->permutation_offset = s.perm.offset;
    out->status_offset = s.params.offset;
}
