/* One run of a host searcher: pack, submit 1 (upload, build, count), read
 * the exact list size, submit 2 (lists), hand out the mapped readback. */
#include <math.h>
#include <string.h>

#include "host_pack.h"
#include "host_searcher.h"
#include "method_choice.h"
#include "passes/passes.h"

static fenns_buffer_range whole(const fenns_host_buffer *b) { return (fenns_buffer_range){b->buffer, 0, b->size}; }

static void barrier(VkCommandBuffer cmd, const fenns_vk *vk, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access) {
    VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access, .dstAccessMask = dst_access};
    vk->vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

/* What a submit starts with: the previous submit's (or run's) transfers and
 * compute finished before this one overwrites their buffers, and its writes
 * visible. */
static void barrier_from_earlier_submits(VkCommandBuffer cmd, const fenns_vk *vk) {
    barrier(cmd, vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                VK_ACCESS_TRANSFER_WRITE_BIT);
}

static void copy(fenns_host_searcher s, const fenns_host_buffer *src, VkDeviceSize from, const fenns_host_buffer *dst,
                 VkDeviceSize to, VkDeviceSize bytes) {
    VkBufferCopy region = {from, to, bytes};
    if (bytes) s->ctx->vk.vkCmdCopyBuffer(s->cmd, src->buffer, dst->buffer, 1, &region);
}

static VkResult begin(fenns_host_searcher s) {
    VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                     .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    return s->ctx->vk.vkBeginCommandBuffer(s->cmd, &info);
}

static fenns_result submit_and_wait(fenns_host_searcher s, VkQueue queue) {
    const fenns_vk *vk = &s->ctx->vk;
    VkDevice device = s->ctx->device;
    VkResult r = vk->vkEndCommandBuffer(s->cmd);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkEndCommandBuffer");
    r = vk->vkResetFences(device, 1, &s->fence);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkResetFences");
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &s->cmd};
    r = vk->vkQueueSubmit(queue, 1, &submit, s->fence);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkQueueSubmit");
    r = vk->vkWaitForFences(device, 1, &s->fence, VK_TRUE, UINT64_MAX);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkWaitForFences");
    fenns_descriptor_arena_reset(s->arena); /* the command buffer is done with its sets */
    return FENNS_SUCCESS;
}

/* Whether n particles' vec4 positions fit one binding, as the GPU's
 * widening binds them (else they are packed as vec4 on the CPU). */
static int widens_on_gpu(fenns_host_searcher s, uint32_t n) {
    return 16u * (uint64_t)n <= s->ctx->limits.max_storage_buffer_range;
}

/* The packed positions into the upload, the CPU's part. */
static void pack(fenns_host_searcher s, const float *positions, size_t stride, uint32_t n, float *upload) {
    fenns__host_pack(positions, stride, n, upload, !widens_on_gpu(s, n));
}

/* The upload copied to the vec4 positions a build reads: straight, or
 * through `staged` and the GPU's widening; then visible to compute reads. */
static void record_upload(fenns_host_searcher s, const fenns_host_buffer *upload, const fenns_host_buffer *staged,
                          const fenns_host_buffer *positions, uint32_t n) {
    const fenns_vk *vk = &s->ctx->vk;
    const VkPipelineStageFlags CS = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    if (!widens_on_gpu(s, n)) {
        copy(s, upload, 0, positions, 0, 16u * (VkDeviceSize)n);
        barrier(s->cmd, vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, CS, VK_ACCESS_SHADER_READ_BIT);
        return;
    }
    copy(s, upload, 0, staged, 0, 12u * (VkDeviceSize)n);
    if (n == 0) return;
    barrier(s->cmd, vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, CS, VK_ACCESS_SHADER_READ_BIT);
    fenns_buffer_range xyz = {staged->buffer, 0, 12u * (VkDeviceSize)n}, vec4 = {positions->buffer, 0, 16u * (VkDeviceSize)n};
    fenns__pass_expand_positions(s->cmd, s->pipeline, s->arena, &xyz, &vec4, n);
    barrier(s->cmd, vk, CS, VK_ACCESS_SHADER_WRITE_BIT, CS, VK_ACCESS_SHADER_READ_BIT);
}

typedef struct run_state {
    uint32_t n;
    fenns_host_readback_layout layout;
    fenns_buffer_range scratch;
    fenns_profile counts_profile, lists_profile;
    uint32_t queries; /* timestamps written */
    float radius;     /* the run's radius and box, for its build */
    int has_box;
    fenns_domain box;
    uint32_t candidates;           /* point sets: the candidates' count (0 with candidates: none) */
    int has_candidates;
    fenns_buffer_range candidate_scratch;
} run_state;

static fenns_search_info search_info(fenns_host_searcher s, const run_state *rs, fenns_output_flags outputs,
                                     uint64_t entries, fenns_profile *profile) {
    fenns_search_info si = {0};
    si.descriptors = s->arena;
    si.particle_count = rs->n;
    si.positions = (fenns_buffer_range){s->positions.buffer, 0, 16u * (VkDeviceSize)(rs->n ? rs->n : 1u)};
    si.scratch = rs->scratch;
    si.outputs = outputs;
    si.counts = whole(&s->counts);
    si.offsets = whole(&s->offsets);
    si.indices = (fenns_buffer_range){s->indices.buffer, 0, 4u * (VkDeviceSize)(entries ? entries : 1u)};
    si.profile = s->timestamps ? profile : NULL;
    if (rs->has_candidates) {
        si.candidate_count = rs->candidates;
        si.candidate_scratch = rs->candidate_scratch;
    }
    return si;
}

/* Point sets: the candidates' upload and build, on their own grid (the
 * run's radius and box) with cells sized for the larger set; the queries'
 * build then takes that grid. */
static void record_candidate_build(fenns_host_searcher s, const run_state *rs) {
    uint32_t nc = rs->candidates;
    record_upload(s, &s->candidate_upload, &s->candidate_staged, &s->candidate_positions, nc);
    fenns_build_info b = {.particle_count = nc,
                          .positions = {s->candidate_positions.buffer, 0, 16u * (VkDeviceSize)(nc ? nc : 1u)},
                          .scratch = rs->candidate_scratch, .radius = rs->radius,
                          .domain = rs->has_box ? &rs->box : NULL, .descriptors = s->arena,
                          .grid_particle_count = rs->n};
    fenns_cmd_build(s->cmd, s->pipeline, &b);
    fenns_cmd_build_to_search_barrier(s->cmd, s->pipeline);
}

/* Submit 1: upload, build, counting (or kernel) search, status and counts
 * (and the kernel's values) to the readback. */
static fenns_result record_counts(fenns_host_searcher s, run_state *rs, int kernel) {
    const fenns_vk *vk = &s->ctx->vk;
    VkResult r = begin(s);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkBeginCommandBuffer");
    uint32_t n = rs->n;
    if (s->timestamps) vk->vkCmdResetQueryPool(s->cmd, s->timestamps, 0, FENNS_HOST_TS_COUNT);
    barrier_from_earlier_submits(s->cmd, vk);
    record_upload(s, &s->upload, &s->staged, &s->positions, n);
    rs->counts_profile = (fenns_profile){s->timestamps, FENNS_HOST_TS_COUNTS_BEGIN, 0, {0}, {0}};
    fenns_search_info si = search_info(s, rs, kernel ? FENNS_OUTPUT_KERNEL | FENNS_OUTPUT_COUNTS : FENNS_OUTPUT_COUNTS,
                                       0, &rs->counts_profile);
    if (kernel) si.kernel_output = (fenns_buffer_range){s->values.buffer, 0, 16u * (VkDeviceSize)(n ? n : 1u)};
    fenns_build_info b = {.particle_count = n, .positions = si.positions, .scratch = rs->scratch, .radius = rs->radius,
                          .domain = rs->has_box ? &rs->box : NULL, .descriptors = s->arena};
    if (s->timestamps)
        vk->vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->timestamps, FENNS_HOST_TS_BUILD_BEGIN);
    if (rs->has_candidates) { /* the queries take the candidates' grid */
        record_candidate_build(s, rs);
        b.radius = 0.0f;
        b.domain = NULL;
        b.grid_source = rs->candidate_scratch;
    }
    fenns_cmd_build(s->cmd, s->pipeline, &b);
    if (s->timestamps)
        vk->vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s->timestamps, FENNS_HOST_TS_BUILD_END);
    fenns_cmd_build_to_search_barrier(s->cmd, s->pipeline);
    fenns_cmd_search(s->cmd, s->pipeline, &si);
    rs->queries = FENNS_HOST_TS_COUNTS_BEGIN + rs->counts_profile.pass_count + 1u;
    /* The counts and status go to the readback now and to the list search of
     * submit 2 (COUNTS_READY reads them: this barrier covers it, as later
     * submissions to the queue are in its second scope). */
    barrier(s->cmd, vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
    fenns_scratch_layout sl;
    fenns_pipeline_get_scratch_layout(s->pipeline, n, &sl);
    copy(s, &s->scratch, sl.status_offset, &s->readback, rs->layout.status, sizeof(fenns_status));
    copy(s, &s->counts, 0, &s->readback, rs->layout.counts, 4u * (VkDeviceSize)n);
    if (kernel) copy(s, &s->values, 0, &s->values_readback, 0, 16u * (VkDeviceSize)n);
    barrier(s->cmd, vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    return FENNS_SUCCESS;
}

/* Submit 2: the lists into exactly `entries`, sorted; offsets, indices and
 * status to the readback. */
static fenns_result record_lists(fenns_host_searcher s, run_state *rs, uint64_t entries) {
    const fenns_vk *vk = &s->ctx->vk;
    VkResult r = begin(s);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkBeginCommandBuffer");
    barrier_from_earlier_submits(s->cmd, vk);
    rs->lists_profile = (fenns_profile){s->timestamps, rs->queries, 0, {0}, {0}};
    fenns_search_info si = search_info(s, rs, FENNS_OUTPUT_CSR | FENNS_OUTPUT_COUNTS_READY | FENNS_OUTPUT_SORTED_LISTS,
                                       entries, &rs->lists_profile);
    /* Counts of submit 1, by this pipeline on this build, checked complete
     * (read_status): the fill skips the queries with none. */
    fenns__cmd_search_own_counts(s->cmd, s->pipeline, &si);
    rs->queries += rs->lists_profile.pass_count + 1u;
    barrier(s->cmd, vk, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    fenns_scratch_layout sl;
    fenns_pipeline_get_scratch_layout(s->pipeline, rs->n, &sl);
    copy(s, &s->scratch, sl.status_offset, &s->readback, rs->layout.status, sizeof(fenns_status));
    copy(s, &s->offsets, 0, &s->readback, rs->layout.offsets, 8u * ((VkDeviceSize)rs->n + 1u));
    copy(s, &s->indices, 0, &s->lists_readback, 0, 4u * (VkDeviceSize)entries);
    barrier(s->cmd, vk, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    return FENNS_SUCCESS;
}

static fenns_result read_status(fenns_host_searcher s, const run_state *rs, fenns_status *status) {
    VkResult r = fenns__host_buffer_invalidate(s->ctx, &s->readback);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkInvalidateMappedMemoryRanges");
    memcpy(status, (const char *)s->readback.mapped + rs->layout.status, sizeof *status);
    if (status->grid_mismatch) { /* the queries' build did not take the candidates' grid: never expected */
        fenns__log(s->ctx, FENNS_LOG_ERROR, "fenns_host_search: the candidates' build has another grid; nothing searched");
        return FENNS_ERROR_INCOMPLETE;
    }
    if (status->incomplete_queries) {
        /* The driver's loop limit (llvmpipe) would have cut these queries
         * short: a named error, never a short list. */
        fenns__log(s->ctx, FENNS_LOG_ERROR,
                   "fenns_host_search: %u queries need more loop iterations than this driver runs in one shader "
                   "invocation (llvmpipe: 65535; e.g. more than ~10^5 coincident particles); use a GPU driver",
                   status->incomplete_queries);
        return FENNS_ERROR_DRIVER_LIMIT;
    }
    return FENNS_SUCCESS;
}

static double elapsed_ms(fenns_host_searcher s, const uint64_t *ts, uint32_t a, uint32_t b) {
    uint32_t bits = s->ctx->timestamp_valid_bits;
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1u;
    return (double)((ts[b] - ts[a]) & mask) * s->ctx->limits.timestamp_period_ns * 1e-6;
}

static fenns_result read_timings(fenns_host_searcher s, const run_state *rs, int lists, fenns_host_csr *out) {
    out->build_ms = out->search_ms = out->lists_ms = -1.0;
    if (!s->timestamps) return FENNS_SUCCESS;
    uint64_t ts[FENNS_HOST_TS_COUNT] = {0};
    /* No WAIT_BIT: after the fence every timestamp written is available,
     * and one that was not written must not hang the call. */
    VkResult r = s->ctx->vk.vkGetQueryPoolResults(s->ctx->device, s->timestamps, 0, rs->queries, sizeof ts, ts,
                                                  sizeof ts[0], VK_QUERY_RESULT_64_BIT);
    if (r == VK_NOT_READY) return FENNS_SUCCESS; /* timings stay -1 */
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkGetQueryPoolResults");
    uint32_t counts_end = FENNS_HOST_TS_COUNTS_BEGIN + rs->counts_profile.pass_count;
    out->build_ms = elapsed_ms(s, ts, FENNS_HOST_TS_BUILD_BEGIN, FENNS_HOST_TS_BUILD_END);
    out->search_ms = elapsed_ms(s, ts, FENNS_HOST_TS_COUNTS_BEGIN, counts_end);
    out->lists_ms = 0.0;
    if (lists) {
        uint32_t first = rs->lists_profile.first_query;
        out->lists_ms = elapsed_ms(s, ts, first, first + rs->lists_profile.pass_count);
        out->search_ms += out->lists_ms;
    }
    return FENNS_SUCCESS;
}

static fenns_result run(fenns_host_searcher s, const fenns_host_search_info *info, fenns_host_csr *out) {
    fenns_result fr = fenns__host_searcher_prepare(s, info);
    if (fr != FENNS_SUCCESS) return fr;
    run_state rs;
    memset(&rs, 0, sizeof rs);
    rs.n = info->particle_count;
    rs.radius = info->radius;
    rs.has_box = fenns_plan_domain_given(info->domain_min, info->domain_max);
    memcpy(rs.box.min, info->domain_min, sizeof rs.box.min);
    memcpy(rs.box.max, info->domain_max, sizeof rs.box.max);
    rs.layout = fenns__host_readback_layout(rs.n);
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(s->pipeline, rs.n, &req);
    rs.scratch = (fenns_buffer_range){s->scratch.buffer, 0, req.size};
    int kernel = info->kernel != NULL, lists = !info->counts_only && !kernel;

    pack(s, info->positions, info->stride, rs.n, s->upload.mapped);
    VkResult r = fenns__host_buffer_flush(s->ctx, &s->upload);
    if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkFlushMappedMemoryRanges");
    if (info->candidate_positions) {
        rs.has_candidates = 1;
        rs.candidates = info->candidate_count;
        fenns_pipeline_get_scratch_requirements(s->pipeline, rs.candidates, &req);
        rs.candidate_scratch = (fenns_buffer_range){s->candidate_scratch.buffer, 0, req.size};
        pack(s, info->candidate_positions, info->candidate_stride, rs.candidates, s->candidate_upload.mapped);
        r = fenns__host_buffer_flush(s->ctx, &s->candidate_upload);
        if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkFlushMappedMemoryRanges");
    }
    fr = record_counts(s, &rs, kernel);
    if (fr == FENNS_SUCCESS) fr = submit_and_wait(s, info->queue);
    fenns_status status;
    if (fr == FENNS_SUCCESS) fr = read_status(s, &rs, &status);
    if (fr != FENNS_SUCCESS) return fr;

    char *readback = s->readback.mapped;
    uint64_t *offsets = (uint64_t *)(void *)(readback + rs.layout.offsets);
    const uint32_t *counts = (const uint32_t *)(const void *)(readback + rs.layout.counts);
    uint64_t total = status.total_neighbors;
    if (lists) {
        fr = fenns__host_searcher_reserve_lists(s, total);
        if (fr == FENNS_SUCCESS) fr = record_lists(s, &rs, total);
        if (fr == FENNS_SUCCESS) fr = submit_and_wait(s, info->queue);
        if (fr == FENNS_SUCCESS) fr = read_status(s, &rs, &status);
        if (fr != FENNS_SUCCESS) return fr;
        r = fenns__host_buffer_invalidate(s->ctx, &s->lists_readback);
        if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkInvalidateMappedMemoryRanges");
        if (status.list_overflow || status.total_neighbors != total || offsets[0] != 0 || offsets[rs.n] != total) {
            fenns__log(s->ctx, FENNS_LOG_ERROR,
                       "fenns_host_searcher_run: the list search disagrees with the count (%u lists overflowed, "
                       "total %llu then %llu, offsets end at %llu)",
                       status.list_overflow, (unsigned long long)total, (unsigned long long)status.total_neighbors,
                       (unsigned long long)offsets[rs.n]);
            return FENNS_ERROR_INCOMPLETE;
        }
    } else {
        /* Counts only: the offsets from the counts, here rather than in a
         * second submission. */
        uint64_t sum = 0;
        for (uint32_t i = 0; i < rs.n; ++i) {
            offsets[i] = sum;
            sum += counts[i];
        }
        offsets[rs.n] = sum;
        if (sum != total) {
            fenns__log(s->ctx, FENNS_LOG_ERROR, "fenns_host_searcher_run: counts sum to %llu, the status says %llu",
                       (unsigned long long)sum, (unsigned long long)total);
            return FENNS_ERROR_VULKAN;
        }
    }
    fr = read_timings(s, &rs, lists, out);
    if (fr != FENNS_SUCCESS) return fr;
    if (kernel) {
        r = fenns__host_buffer_invalidate(s->ctx, &s->values_readback);
        if (r != VK_SUCCESS) return fenns__host_vk_failed(s, r, "vkInvalidateMappedMemoryRanges");
        out->kernel_values = s->values_readback.mapped;
    }
    out->particle_count = rs.n;
    out->total = total;
    out->offsets = offsets;
    out->indices = lists ? s->lists_readback.mapped : NULL;
    out->counts = (uint32_t *)(void *)(readback + rs.layout.counts);
    out->status = status;
    out->gpu_memory_bytes = fenns__host_searcher_memory(s);
    out->method = info->method;
    return FENNS_SUCCESS;
}

/* FENNS_METHOD_AUTO on the host path: the choice for this run's count,
 * radius and box, the box taken from the positions themselves where the
 * caller gives none (the host has them, a pipeline does not). Point sets
 * take fenns, the one method that has them. */
static fenns_method host_auto_method(fenns_host_searcher s, const fenns_host_search_info *info) {
    if (info->candidate_positions) return FENNS_METHOD_FENNS;
    fenns_pipeline_create_info pci = {0};
    pci.method = FENNS_METHOD_AUTO;
    pci.radius = info->radius;
    pci.max_particles = info->particle_count ? info->particle_count : 1u;
    if (fenns_plan_domain_given(info->domain_min, info->domain_max)) {
        memcpy(pci.domain_min, info->domain_min, sizeof pci.domain_min);
        memcpy(pci.domain_max, info->domain_max, sizeof pci.domain_max);
    } else {
        size_t stride = info->stride ? info->stride : 3u * sizeof(float);
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = 0; i < info->particle_count; ++i) {
            float p[3];
            memcpy(p, (const char *)info->positions + (size_t)i * stride, sizeof p);
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
            for (int a = 0; a < 3; ++a) {
                lo[a] = fminf(lo[a], p[a]);
                hi[a] = fmaxf(hi[a], p[a]);
            }
        }
        for (int a = 0; a < 3; ++a) { /* a flat or empty axis: the sphere's own extent */
            if (!(lo[a] <= hi[a])) lo[a] = hi[a] = 0.0f;
            pci.domain_min[a] = lo[a];
            pci.domain_max[a] = hi[a] > lo[a] ? hi[a] : lo[a] + 2.0f * info->radius;
        }
    }
    fenns_plan_limits limits = fenns__plan_limits(s->ctx);
    fenns_method_choice choice;
    if (fenns_choice_make(&limits, &pci, &choice) != FENNS_SUCCESS) return FENNS_METHOD_FENNS; /* the run names the error */
    fenns__log(s->ctx, FENNS_LOG_INFO, "auto: %s", choice.reason);
    return choice.method;
}

fenns_result fenns_host_searcher_run(fenns_host_searcher searcher, const fenns_host_search_info *info,
                                     fenns_host_csr *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!searcher || !info || !out) return FENNS_ERROR_INVALID_ARGUMENT;
    if (!info->queue || (info->particle_count && !info->positions) ||
        (info->stride && info->stride < 3u * sizeof(float))) {
        fenns__log(searcher->ctx, FENNS_LOG_ERROR,
                   "fenns_host_searcher_run: null queue or positions, or stride < 12 bytes");
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    /* The kernel too on every run, a kept pipeline or not: a warm run
     * compares its words with the kept copy. */
    const char *bad_input = !info->candidate_positions && info->candidate_count
                              ? "candidate_count is set but candidate_positions is null"
                          : info->candidate_positions && info->candidate_stride && info->candidate_stride < 3u * sizeof(float)
                              ? "candidate_stride < 12 bytes"
                          : info->candidate_positions && info->method != FENNS_METHOD_FENNS &&
                                    info->method != FENNS_METHOD_AUTO
                              ? "candidate_positions (point sets) need the fenns method (or auto, which then picks it)"
                          : info->kernel && !fenns__kernel_spirv_ok(info->kernel)
                              ? "the kernel's SPIR-V is null, short or not SPIR-V"
                          : info->kernel && info->kernel->user_set_layout
                              ? "a kernel with a user_set_layout needs the recording API (the host search binds no set "
                                "of the caller's)"
                              : NULL;
    if (bad_input) {
        fenns__log(searcher->ctx, FENNS_LOG_ERROR, "fenns_host_searcher_run: %s", bad_input);
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    /* Checked here, not by a pipeline creation: the kept pipeline serves
     * every radius and box. */
    const char *bad = !fenns_plan_radius_ok(info->radius) ? "radius must be finite and > 0"
                      : fenns_plan_domain_given(info->domain_min, info->domain_max)
                          ? fenns_plan_domain_problem(info->domain_min, info->domain_max)
                          : NULL;
    if (bad) {
        fenns__log(searcher->ctx, FENNS_LOG_ERROR, "fenns_host_searcher_run: %s", bad);
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    fenns_host_search_info resolved = *info;
    if (info->method == FENNS_METHOD_AUTO) resolved.method = host_auto_method(searcher, info);
    fenns_result r = run(searcher, &resolved, out);
    if (r != FENNS_SUCCESS) memset(out, 0, sizeof *out);
    return r;
}
