/* A pipeline: one plan and the compute pipelines of its passes. */
#ifndef FENNS_PIPELINE_H
#define FENNS_PIPELINE_H

#include "context.h"
#include "plan.h"
#include "fenns_shared.h"

/* Every compute pass, in the order a build and a search run them (radix
 * builds run their own passes in place of the count, the reorder and the
 * sections'; only radix pipelines make them, and radix makes none of those).
 * The
 * passes that write lists come twice: for lists and sorted particles within
 * one binding each (one load or store per element), and _wide for up to
 * FENNS_CHUNKS / FENNS_INDEX_CHUNKS bindings, and the list fill once more,
 * _windowed, for lists past one binding written a window a dispatch, each
 * window's lists bound as one binding (fenns_plan_list_window_entries),
 * fenns' window_items before each (the window's run of work items). The
 * search comes once more, as
 * a counting-only variant that has no list code at all (fewer registers;
 * count_total then sums its counts into the status),
 * and as the user kernel's search when the pipeline has one (its SPIR-V is
 * the caller's; the pipeline is VK_NULL_HANDLE without a kernel). Last,
 * fenns_cmd_reorder's gather of the caller's attributes. fenns' ranked
 * builds place with reorder_ranked in the reorder's place, record the
 * search work list's first pass (search_work_totals) beside it, and on a GPU
 * run its second in the section order's first workgroups (no search_work
 * dispatch: fenns_plan.work_list_in_order). */
#define FENNS_PASS_LIST(X)  \
    X(domain_reduce)        \
    X(grid_setup)           \
    X(density)              \
    X(coarse_count)         \
    X(scan_block)           \
    X(scan_reduce)          \
    X(cell_cursors)         \
    X(reorder)              \
    X(reorder_ranked)       \
    X(section_sort)         \
    X(section_order)        \
    X(cell_order)           \
    X(cell_order_wide)      \
    X(radix_keys)           \
    X(radix_count)          \
    X(radix_scatter)        \
    X(radix_bounds)         \
    X(radix_gather)         \
    X(search_work_totals)   \
    X(search_work)          \
    X(reset_status)         \
    X(search)               \
    X(scan64_block)         \
    X(scan64_reduce)        \
    X(list_sort)            \
    X(search_wide)          \
    X(list_sort_wide)       \
    X(search_count)         \
    X(search_count_wide)    \
    X(search_local7)        \
    X(search_local9)        \
    X(search_count_local7)  \
    X(search_count_local9)  \
    X(search_windowed)      \
    X(search_windowed_local7) \
    X(search_windowed_local9) \
    X(window_items)         \
    X(count_total)          \
    X(search_kernel)        \
    X(search_kernel_local7) \
    X(search_kernel_local9) \
    X(reorder_attributes)   \
    X(scan_lookback)        \
    X(scan64_lookback)

typedef enum fenns_pass {
#define FENNS_PASS_ENUM_(name) FENNS_PASS_##name,
    FENNS_PASS_LIST(FENNS_PASS_ENUM_)
#undef FENNS_PASS_ENUM_
    FENNS_PASS_COUNT
} fenns_pass;

static inline int fenns__is_radix_pass(fenns_pass pass) {
    return pass >= FENNS_PASS_radix_keys && pass <= FENNS_PASS_radix_gather;
}

/* fenns' variants of its narrow searches and of its kernel search for the
 * grids of F = FENNS_FINE_SPLIT_MAX and reach 1 (local grids of 7^3 cells)
 * or 2 (9^3), each dispatched for the builds of its grid
 * (local_grid_fenns.glsl's FIXED_REACH); the reach they are made for, 0 for
 * every other pass. */
static inline uint32_t fenns__fixed_reach(fenns_pass pass) {
    if (pass == FENNS_PASS_search_local7 || pass == FENNS_PASS_search_count_local7 ||
        pass == FENNS_PASS_search_kernel_local7 || pass == FENNS_PASS_search_windowed_local7)
        return 1u;
    if (pass == FENNS_PASS_search_local9 || pass == FENNS_PASS_search_count_local9 ||
        pass == FENNS_PASS_search_kernel_local9 || pass == FENNS_PASS_search_windowed_local9)
        return 2u;
    return 0u;
}
/* The kernel's search and its variants: the caller's SPIR-V. */
static inline int fenns__is_kernel_pass(fenns_pass pass) {
    return pass == FENNS_PASS_search_kernel || pass == FENNS_PASS_search_kernel_local7 ||
           pass == FENNS_PASS_search_kernel_local9;
}
static inline int fenns__is_fixed_grid_pass(fenns_pass pass) { return fenns__fixed_reach(pass) != 0u; }

/* The list fill's windowed variants (LIST_WINDOWED 1). */
static inline int fenns__is_windowed_pass(fenns_pass pass) {
    return pass == FENNS_PASS_search_windowed || pass == FENNS_PASS_search_windowed_local7 ||
           pass == FENNS_PASS_search_windowed_local9;
}

/* The list fill and its variants (list code, ROW_STEP from list_row_step). */
static inline int fenns__is_fill_pass(fenns_pass pass) {
    return pass == FENNS_PASS_search || pass == FENNS_PASS_search_wide || pass == FENNS_PASS_search_local7 ||
           pass == FENNS_PASS_search_local9 || fenns__is_windowed_pass(pass);
}

static inline int fenns__is_search_pass(fenns_pass pass) {
    return fenns__is_fill_pass(pass) || pass == FENNS_PASS_search_count || pass == FENNS_PASS_search_count_wide ||
           pass == FENNS_PASS_search_count_local7 || pass == FENNS_PASS_search_count_local9;
}

/* A pass's name ("search"), for logs; debuggers see it as "fenns: search". */
const char *fenns__pass_name(fenns_pass pass);
/* The SPIR-V of a pass's built-in shader for a method (NULL for
 * search_kernel, the caller's), its size in bytes in *bytes. */
const uint32_t *fenns__pass_spirv(fenns_pass pass, fenns_method method, size_t *bytes);
/* Whether the method's pipelines include the pass. */
int fenns__method_runs(fenns_method method, fenns_pass pass);
/* The specialization constants a pass's pipeline is made with (constant_id
 * k is values[k]), from the plan and the driver's loop limit (0: none). */
#define FENNS_SPEC_CONSTANTS 13
/* The specialization constant a user kernel that combines its states
 * declares: its part slots (shaders/template/fenns_kernel_parts.glsl). */
#define FENNS_KERNEL_PART_SLOTS_ID 11u
void fenns__pass_specialization(const fenns_plan *plan, fenns_pass pass, uint32_t loop_limit,
                                uint32_t max_workgroup_invocations, uint32_t values[FENNS_SPEC_CONSTANTS]);

struct fenns_pipeline_T {
    fenns_context ctx;
    fenns_plan plan;
    VkDescriptorSetLayout set_layout; /* the context's (pipeline_store.h), not this pipeline's */
    VkPipelineLayout layout;          /* the context's, likewise */
    VkPipeline pipelines[FENNS_PASS_COUNT]; /* built-in passes held in the context's store */
    VkPipelineLayout kernel_layout; /* set 0 + the kernel's user set; VK_NULL_HANDLE: p->layout */
    uint32_t kernel_lanes_made;     /* invocations a query the general kernel search was made with:
                                       plan.kernel_lanes where the kernel combines its states and they
                                       fit the shared-memory budget, else 1 (create_pass) */
};

/* The layout a pass's pipeline was made with. */
static inline VkPipelineLayout fenns__pass_layout(const struct fenns_pipeline_T *p, fenns_pass pass) {
    return fenns__is_kernel_pass(pass) && p->kernel_layout ? p->kernel_layout : p->layout;
}

/* A storage-buffer binding for vkCmdPushDescriptorSetKHR. */
typedef struct fenns_binding {
    uint32_t binding;
    VkBuffer buffer;
    VkDeviceSize offset;
    VkDeviceSize range;
} fenns_binding;

#define FENNS_MAX_PUSHED FENNS_BINDING_COUNT

/* The bindings one pass needs, built up before its dispatch, and the
 * recording's arena their descriptor set comes from where the context has
 * no push descriptors. */
typedef struct fenns_bindings {
    fenns_binding items[FENNS_MAX_PUSHED];
    uint32_t count;
    fenns_descriptor_arena arena;
} fenns_bindings;

/* The device limits a plan depends on, from the context. */
fenns_plan_limits fenns__plan_limits(fenns_context ctx);

/* Whether a kernel's SPIR-V is there and looks like SPIR-V (non-null, at
 * least a header's 20 bytes, whole words, the magic number first): what
 * fenns_pipeline_create and fenns_host_searcher_run check before use. */
static inline int fenns__kernel_spirv_ok(const fenns_kernel_info *kernel) {
    return kernel->spirv && kernel->spirv_size >= 20u && kernel->spirv_size % 4u == 0u &&
           kernel->spirv[0] == 0x07230203u;
}

/* One binding; a binding bound before is replaced. */
void fenns__bind(fenns_bindings *b, uint32_t binding, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range);
/* A buffer that may exceed maxStorageBufferRange, as `chunks` bindings of
 * 2^shift elements of `element` bytes. fenns__bind_chunks: the same, but
 * where `first_whole` the first binding covers the whole buffer (the lists
 * of the one-store searches, fenns_plan_lists_one_binding; the chunked ones
 * read it only up to its chunk's end, as before). */
void fenns__bind_chunks(fenns_bindings *b, uint32_t first_binding, VkBuffer buffer, VkDeviceSize offset,
                        VkDeviceSize bytes, uint32_t shift, uint32_t element, uint32_t chunks, int first_whole);
void fenns__bind_chunked(fenns_bindings *b, uint32_t first_binding, VkBuffer buffer, VkDeviceSize offset,
                         VkDeviceSize bytes, uint32_t shift, uint32_t element, uint32_t chunks);

/* Binds the pass's pipeline, its descriptors (pushed, or a set from
 * b->arena) and constants, dispatches `groups` workgroups laid out in rows
 * of at most 65535. Without a descriptor set (the arena failed, logged)
 * nothing is recorded. */
void fenns__dispatch(VkCommandBuffer cmd, fenns_pipeline p, fenns_pass pass, const fenns_bindings *b,
                     fenns_push *pc, uint64_t groups);

/* Records a dispatch whose workgroup counts the GPU wrote into the scratch
 * (a VkDispatchIndirectCommand at `args_offset`). */
void fenns__dispatch_indirect(VkCommandBuffer cmd, fenns_pipeline p, fenns_pass pass, const fenns_bindings *b,
                              fenns_push *pc, VkBuffer args, VkDeviceSize args_offset);

/* fenns_profile: the first timestamp, then one after each named pass. */
void fenns__profile_begin(VkCommandBuffer cmd, fenns_pipeline p, fenns_profile *profile);
void fenns__profile_mark(VkCommandBuffer cmd, fenns_pipeline p, fenns_profile *profile, const char *pass_name,
                         uint64_t bytes);

/* Compute (and transfer) writes -> compute reads and writes. */
void fenns__barrier(VkCommandBuffer cmd, fenns_pipeline p);

/* Push constants with the fields every pass shares. */
fenns_push fenns__push_base(fenns_pipeline p, uint32_t n);

/* How a scan runs: reduce, then scan (two dispatches or more), or in one
 * dispatch where the pass before it zeroed the look-back's states at the
 * sums (scan_lookback.glsl), a failure of which marks the build's
 * sort_incomplete or the search's incomplete_queries. */
typedef enum fenns_scan_lookback {
    FENNS_SCAN_TWO_DISPATCHES,
    FENNS_SCAN_LOOKBACK_BUILD,
    FENNS_SCAN_LOOKBACK_SEARCH
} fenns_scan_lookback;

/* The scratch a scan keeps its sums (or states) in, its status block, and how it runs. */
typedef struct fenns_scan_place {
    VkBuffer scratch;
    VkDeviceSize params_offset;
    fenns_scan_lookback lookback;
} fenns_scan_place;

/* Device-wide exclusive scan: out[i] = sum of in[0..i) for i < count, with in
 * read as 0 at and beyond count_in. `in` and `out` may be the same range. */
void fenns__record_scan(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena, const fenns_scan_place *at,
                        VkDeviceSize sums_offset, VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer,
                        VkDeviceSize out_offset, uint32_t count_in, uint32_t count);

/* The CSR offsets: u32 counts in, u64 exclusive sums out (count = n + 1
 * entries, the last the total); block sums in the scratch at sums_offset. */
void fenns__record_scan64(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena, const fenns_scan_place *at,
                          VkDeviceSize sums_offset, VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer,
                          VkDeviceSize out_offset, uint32_t count_in, uint32_t count);

#endif
