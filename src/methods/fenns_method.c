/* The FENNS method: which passes a build and a search record, in which
 * order, for the two variants; and the argument checks of fenns_cmd_*. */
#include "passes/passes.h"

static int range_ok(const fenns_buffer_range *r, VkDeviceSize need) {
    return r->buffer != VK_NULL_HANDLE && r->range >= need && r->range != VK_WHOLE_SIZE;
}

static int aligned(fenns_pipeline p, VkDeviceSize offset) {
    VkDeviceSize a = p->ctx->limits.min_storage_buffer_offset_alignment;
    return a == 0 || offset % a == 0;
}

/* Checks what a build and a search share; logs and returns 0 on a bad argument. */
static int check_common(fenns_pipeline p, uint32_t n, const fenns_buffer_range *positions,
                        const fenns_buffer_range *scratch, const char *who) {
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(p, n, &req);
    const char *bad = NULL;
    if (n > p->plan.max_particles) bad = "particle_count exceeds the pipeline's max_particles";
    else if (n && !range_ok(positions, 16u * (VkDeviceSize)n)) bad = "positions range is null or smaller than 16*n bytes";
    else if (n && !aligned(p, positions->offset)) bad = "positions offset is not a multiple of minStorageBufferOffsetAlignment";
    else if (!range_ok(scratch, req.size)) bad = "scratch range is null or smaller than the scratch requirements";
    else if (scratch->offset % req.alignment) bad = "scratch offset is not aligned to the scratch requirements";
    if (bad) fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: %s; nothing recorded", who, bad);
    return bad == NULL;
}

void fenns_cmd_build(VkCommandBuffer cmd, fenns_pipeline p, const fenns_build_info *info) {
    if (!p) return;
    if (!cmd || !info) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_build: null command buffer or info; nothing recorded");
        return;
    }
    if (!check_common(p, info->particle_count, &info->positions, &info->scratch, "fenns_cmd_build")) return;
    fenns_frame f;
    fenns__frame_init(&f, p, info->particle_count, &info->positions, &info->scratch);
    int deterministic = p->plan.method == FENNS_METHOD_FENNS;

    fenns_profile *prof = info->profile;
    const uint64_t n = info->particle_count, keys = p->plan.section_keys;
    fenns__profile_begin(cmd, p, prof);
    fenns__pass_clear(cmd, p, &f);
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "clear", 4u * (uint64_t)keys);
    if (!p->plan.user_domain) {
        fenns__pass_domain_reduce(cmd, p, &f);
        fenns__barrier(cmd, p);
        fenns__profile_mark(cmd, p, prof, "domain reduce", 16u * n);
    }
    fenns__pass_grid_setup(cmd, p, &f);
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "grid setup", 256u);
    fenns__pass_coarse_count(cmd, p, &f);  /* Algorithm 1 */
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "coarse count", 16u * n + 4u * (uint64_t)keys);
    fenns__pass_cell_scan(cmd, p, &f);
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "cell scan", 8u * (uint64_t)keys);
    fenns__pass_cell_cursors(cmd, p, &f);
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "cell cursors", 12u * (uint64_t)keys);
    fenns__pass_reorder(cmd, p, &f, !deterministic); /* Algorithm 2 */
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "reorder", (deterministic ? 24u : 40u) * n);
    if (deterministic) {
        fenns__pass_section_order(cmd, p, &f);
        fenns__barrier(cmd, p);
        fenns__profile_mark(cmd, p, prof, "section order", 8u * (uint64_t)keys + 44u * n);
        fenns__pass_section_sort(cmd, p, &f); /* long sections only */
        fenns__barrier(cmd, p);
        fenns__profile_mark(cmd, p, prof, "section sort", 4u * (uint64_t)p->plan.cell_capacity);
    }
    fenns__pass_search_work(cmd, p, &f);
    fenns__profile_mark(cmd, p, prof, "search work", 12u * (uint64_t)p->plan.cell_capacity);
}

void fenns_cmd_build_to_search_barrier(VkCommandBuffer cmd, fenns_pipeline p) {
    if (p && cmd) fenns__barrier(cmd, p);
}

void fenns_cmd_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_search_info *info) {
    if (!p) return;
    if (!cmd || !info) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_search: null command buffer or info; nothing recorded");
        return;
    }
    if (!check_common(p, info->particle_count, &info->positions, &info->scratch, "fenns_cmd_search")) return;
    uint32_t n = info->particle_count;
    fenns_output_flags out = info->outputs;
    const char *bad = NULL;
    const VkDeviceSize bytes_n = 4u * (VkDeviceSize)(n ? n : 1u);
    const fenns_output_flags known = FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED | FENNS_OUTPUT_SORTED_LISTS |
                                      FENNS_OUTPUT_COUNTS_READY | FENNS_OUTPUT_SORTED_ORDER | FENNS_OUTPUT_KERNEL;
    const int kernel = (out & FENNS_OUTPUT_KERNEL) != 0;
    if (!out || (out & ~known)) bad = "outputs is 0 or has unknown bits";
    else if (kernel && !p->pipelines[FENNS_PASS_search_kernel]) bad = "KERNEL output, but the pipeline has no kernel";
    else if (kernel && (out & ~(fenns_output_flags)(FENNS_OUTPUT_KERNEL | FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_SORTED_ORDER)))
        bad = "KERNEL combines only with COUNTS and SORTED_ORDER";
    else if (kernel && info->kernel_output.buffer &&
             (!range_ok(&info->kernel_output, 16u * (VkDeviceSize)(n ? n : 1u)) || !aligned(p, info->kernel_output.offset)))
        bad = "kernel_output range is misaligned or smaller than 16*n bytes";
    else if (kernel && p->kernel_layout && info->user_set == VK_NULL_HANDLE)
        bad = "user_set is null, but the kernel has a user_set_layout";
    else if ((out & FENNS_OUTPUT_CSR) && (out & FENNS_OUTPUT_FIXED)) bad = "CSR and FIXED outputs are exclusive";
    else if ((out & FENNS_OUTPUT_COUNTS_READY) && !(out & FENNS_OUTPUT_CSR)) bad = "COUNTS_READY needs CSR";
    else if ((!kernel || (out & FENNS_OUTPUT_COUNTS)) && (!range_ok(&info->counts, bytes_n) || !aligned(p, info->counts.offset)))
        bad = "counts range is null, misaligned or smaller than 4*n bytes";
    else if ((out & FENNS_OUTPUT_CSR) && (!range_ok(&info->offsets, 8u * ((VkDeviceSize)n + 1u)) || !aligned(p, info->offsets.offset)))
        bad = "offsets range is null, misaligned or smaller than 8*(n+1) bytes";
    else if ((out & (FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED)) && (!range_ok(&info->indices, 4u) || !aligned(p, info->indices.offset)))
        bad = "indices range is null, misaligned or empty";
    else if ((out & FENNS_OUTPUT_FIXED) && info->fixed_capacity == 0) bad = "fixed_capacity is 0";
    else if ((out & FENNS_OUTPUT_FIXED) && info->indices.range < 4u * (VkDeviceSize)n * info->fixed_capacity)
        bad = "indices range is smaller than 4*n*fixed_capacity bytes";
    else if ((out & (FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED)) && info->indices.range / 4u > p->ctx->limits.max_list_entries)
        bad = "indices range exceeds fenns_device_limits.max_list_entries";
    else if ((out & FENNS_OUTPUT_SORTED_ORDER) && info->sorted_to_original.buffer != VK_NULL_HANDLE &&
             (!range_ok(&info->sorted_to_original, bytes_n) || info->sorted_to_original.offset % 4u))
        bad = "sorted_to_original range is smaller than 4*n bytes or its offset not a multiple of 4";
    if (bad) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_search: %s; nothing recorded", bad);
        return;
    }
    fenns_frame f;
    fenns__frame_init(&f, p, n, &info->positions, &info->scratch);
    fenns_outputs o = {info->counts, info->offsets, info->indices, info->fixed_capacity,
                       (out & FENNS_OUTPUT_SORTED_ORDER) ? 1u : 0u};

    fenns_profile *prof = info->profile;
    const uint64_t entries = (out & FENNS_OUTPUT_CSR) ? info->indices.range / 4u : 0u;
    int counts_ready = (out & FENNS_OUTPUT_CSR) && (out & FENNS_OUTPUT_COUNTS_READY);
    fenns__profile_begin(cmd, p, prof);
    fenns__pass_reset_status(cmd, p, &f, counts_ready);
    fenns__barrier(cmd, p);
    if ((out & FENNS_OUTPUT_SORTED_ORDER) && info->sorted_to_original.buffer != VK_NULL_HANDLE && n)
        fenns__copy_permutation(cmd, p, &f, &info->sorted_to_original);
    if (kernel) {
        fenns_kernel_outputs k = {info->kernel_output, (out & FENNS_OUTPUT_COUNTS) != 0, info->user_set};
        fenns__pass_search_kernel(cmd, p, &f, &o, &k);
        fenns__profile_mark(cmd, p, prof, "search (kernel)", (16u + 16u) * (uint64_t)n);
        return;
    }
    if (out & FENNS_OUTPUT_FIXED) {
        fenns__pass_search(cmd, p, &f, &o, FENNS_MODE_FIXED);
        fenns__profile_mark(cmd, p, prof, "search (fixed lists)", (16u + 4u) * (uint64_t)n);
        return;
    }
    if (!counts_ready) {
        fenns__pass_search(cmd, p, &f, &o, FENNS_MODE_COUNT);
        fenns__profile_mark(cmd, p, prof, "search (counts)", (16u + 4u) * (uint64_t)n);
        if (!(out & FENNS_OUTPUT_CSR)) return;
        fenns__barrier(cmd, p);
    }
    fenns__pass_offsets_scan(cmd, p, &f, &o);
    fenns__barrier(cmd, p);
    fenns__profile_mark(cmd, p, prof, "offsets scan", 12u * (uint64_t)n);
    fenns__pass_search(cmd, p, &f, &o, FENNS_MODE_CSR);
    fenns__profile_mark(cmd, p, prof, "search (fill lists)", (16u + 8u) * (uint64_t)n + 4u * entries);
    if (out & FENNS_OUTPUT_SORTED_LISTS) {
        fenns__barrier(cmd, p);
        fenns__pass_list_sort(cmd, p, &f, &o);
        fenns__profile_mark(cmd, p, prof, "list sort", 8u * entries + 8u * (uint64_t)n);
    }
}
