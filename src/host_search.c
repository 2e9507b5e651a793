/* The host convenience call: host positions in, CSR out. It owns every
 * Vulkan object it needs for one call (buffers, pool, fence, query pool) and
 * drives the same fenns_cmd_* an engine records. */
#include <math.h>
#include <string.h>

#include "pipeline.h"

typedef struct host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* host-visible buffers only */
} host_buffer;

typedef struct host_run {
    fenns_context ctx;
    fenns_pipeline pipeline;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool timestamps;
    uint32_t search_end; /* query of the search's last timestamp */
    host_buffer upload, positions, scratch, counts, offsets, indices, readback;
    uint64_t device_bytes;
} host_run;

/* The search's own profile starts at TS_SEARCH_BEGIN: its first pass
 * (reset + counting) ends at TS_COUNTED, its last at TS_SEARCH_BEGIN + passes. */
enum { TS_BUILD_BEGIN, TS_BUILD_END, TS_SEARCH_BEGIN, TS_COUNTED,
       TS_COUNT = TS_SEARCH_BEGIN + FENNS_MAX_PROFILED_PASSES + 1 };

static uint32_t find_memory_type(fenns_context ctx, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
    VkPhysicalDeviceMemoryProperties mem;
    ctx->vk.vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &mem);
    for (int pass = 0; pass < 2; ++pass)
        for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
            VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
            if ((bits & (1u << i)) && (f & want) == want && (pass == 1 || !(f & avoid))) return i;
        }
    return UINT32_MAX;
}

static void buffer_destroy(host_run *run, host_buffer *b) {
    fenns_context ctx = run->ctx;
    if (b->mapped) ctx->vk.vkUnmapMemory(ctx->device, b->memory);
    if (b->buffer) ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, ctx->allocator);
    if (b->memory) ctx->vk.vkFreeMemory(ctx->device, b->memory, ctx->allocator);
    memset(b, 0, sizeof *b);
}

static VkResult buffer_create_(host_run *run, host_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage, int host) {
    fenns_context ctx = run->ctx;
    memset(b, 0, sizeof *b);
    b->size = size ? size : 16u;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = b->size, .usage = usage,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = ctx->vk.vkCreateBuffer(ctx->device, &info, ctx->allocator, &b->buffer);
    if (r != VK_SUCCESS) return r;
    VkMemoryRequirements req;
    ctx->vk.vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    uint32_t type = host ? find_memory_type(ctx, req.memoryTypeBits,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0)
                         : find_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (type == UINT32_MAX && !host) type = find_memory_type(ctx, req.memoryTypeBits, 0, 0);
    if (type == UINT32_MAX) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                  .memoryTypeIndex = type};
    r = ctx->vk.vkAllocateMemory(ctx->device, &alloc, ctx->allocator, &b->memory);
    if (r != VK_SUCCESS) return r;
    r = ctx->vk.vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0);
    if (r == VK_SUCCESS && host) r = ctx->vk.vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
    if (r == VK_SUCCESS) run->device_bytes += req.size;
    return r;
}

/* A buffer named `what` for the message that says which allocation failed. */
static VkResult buffer_create(host_run *run, host_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage, int host,
                              const char *what) {
    VkResult r = buffer_create_(run, b, size, usage, host);
    if (r != VK_SUCCESS)
        fenns__log(run->ctx, FENNS_LOG_ERROR, "fenns_host_search: %s: cannot allocate %.1f MiB of %s memory for %s",
                   fenns_result_string(fenns__from_vk(r)), (double)size / 1048576.0, host ? "host-visible" : "device",
                   what);
    return r;
}

static fenns_buffer_range whole(const host_buffer *b) { return (fenns_buffer_range){b->buffer, 0, b->size}; }

static VkResult begin(host_run *run) {
    VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                     .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    return run->ctx->vk.vkBeginCommandBuffer(run->cmd, &info);
}

static VkResult submit_and_wait(host_run *run) {
    const fenns_vk *vk = &run->ctx->vk;
    VkResult r = vk->vkEndCommandBuffer(run->cmd);
    if (r != VK_SUCCESS) return r;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &run->cmd};
    r = vk->vkResetFences(run->ctx->device, 1, &run->fence);
    if (r == VK_SUCCESS) r = vk->vkQueueSubmit(run->queue, 1, &submit, run->fence);
    if (r == VK_SUCCESS) r = vk->vkWaitForFences(run->ctx->device, 1, &run->fence, VK_TRUE, UINT64_MAX);
    return r;
}

static void stamp(host_run *run, uint32_t which) {
    if (run->timestamps)
        run->ctx->vk.vkCmdWriteTimestamp(run->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, run->timestamps, which);
}

static void memory_barrier(host_run *run, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                           VkAccessFlags dst_access) {
    VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access, .dstAccessMask = dst_access};
    run->ctx->vk.vkCmdPipelineBarrier(run->cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

/* Readback layout: status | counts | offsets | indices, 256-byte aligned. */
typedef struct readback_layout {
    VkDeviceSize status, counts, offsets, indices, size;
} readback_layout;

static readback_layout readback_for(uint32_t n, VkDeviceSize index_bytes) {
    readback_layout l;
    l.status = 0;
    l.counts = 256;
    l.offsets = l.counts + (4u * (VkDeviceSize)n + 255u) / 256u * 256u;
    l.indices = l.offsets + (8u * ((VkDeviceSize)n + 1u) + 255u) / 256u * 256u;
    l.size = l.indices + index_bytes;
    return l;
}

/* Records a search and the copies of its results into the readback buffer. */
static void record_search(host_run *run, uint32_t n, int lists, const readback_layout *rl) {
    const fenns_vk *vk = &run->ctx->vk;
    fenns_search_info s = {0};
    s.particle_count = n;
    s.positions = whole(&run->positions);
    s.scratch = whole(&run->scratch);
    s.outputs = lists ? FENNS_OUTPUT_CSR | FENNS_OUTPUT_SORTED_LISTS : FENNS_OUTPUT_COUNTS;
    s.counts = whole(&run->counts);
    s.offsets = whole(&run->offsets);
    s.indices = whole(&run->indices);
    fenns_profile profile = {run->timestamps, TS_SEARCH_BEGIN, 0, {0}, {0}};
    if (run->timestamps) s.profile = &profile;
    fenns_cmd_search(run->cmd, run->pipeline, &s);
    run->search_end = TS_SEARCH_BEGIN + profile.pass_count;
    memory_barrier(run, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT);
    fenns_scratch_layout sl;
    fenns_pipeline_get_scratch_layout(run->pipeline, n, &sl);
    VkBufferCopy status = {sl.status_offset, rl->status, sizeof(fenns_status)};
    vk->vkCmdCopyBuffer(run->cmd, run->scratch.buffer, run->readback.buffer, 1, &status);
    if (n) {
        VkBufferCopy counts = {0, rl->counts, 4u * (VkDeviceSize)n};
        vk->vkCmdCopyBuffer(run->cmd, run->counts.buffer, run->readback.buffer, 1, &counts);
    }
    if (lists) {
        VkBufferCopy offsets = {0, rl->offsets, 8u * ((VkDeviceSize)n + 1u)};
        vk->vkCmdCopyBuffer(run->cmd, run->offsets.buffer, run->readback.buffer, 1, &offsets);
        VkBufferCopy indices = {0, rl->indices, run->indices.size};
        vk->vkCmdCopyBuffer(run->cmd, run->indices.buffer, run->readback.buffer, 1, &indices);
    }
    memory_barrier(run, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
}

/* The driver's loop limit (llvmpipe) would have cut some queries short:
 * a named error, never a short list. */
static fenns_result driver_limit(fenns_context ctx, const fenns_status *status) {
    fenns__log(ctx, FENNS_LOG_ERROR,
               "fenns_host_search: %u queries need more loop iterations than this driver runs in one shader "
               "invocation (llvmpipe: 65535; e.g. more than ~10^5 coincident particles); use a GPU driver",
               status->incomplete_queries);
    return FENNS_ERROR_DRIVER_LIMIT;
}

static double elapsed_ms(host_run *run, const uint64_t *ts, int a, int b) {
    if (!run->timestamps) return -1.0;
    uint32_t bits = run->ctx->timestamp_valid_bits;
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1u;
    return (double)((ts[b] - ts[a]) & mask) * run->ctx->limits.timestamp_period_ns * 1e-6;
}

static VkResult make_list_buffers(host_run *run, uint32_t n, VkDeviceSize capacity, int lists, readback_layout *rl) {
    VkBufferUsageFlags out_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    buffer_destroy(run, &run->indices);
    buffer_destroy(run, &run->readback);
    VkResult r = buffer_create(run, &run->indices, 4u * capacity, out_usage, 0, "the neighbour lists");
    *rl = readback_for(n, lists ? run->indices.size : 0);
    if (r == VK_SUCCESS)
        r = buffer_create(run, &run->readback, rl->size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 1, "the readback");
    return r;
}

static fenns_result run_search(host_run *run, const fenns_host_search_info *info, fenns_host_csr *out) {
    fenns_context ctx = run->ctx;
    const fenns_vk *vk = &ctx->vk;
    uint32_t n = info->particle_count;
    int lists = !info->counts_only;
    fenns_pipeline_create_info pci = {0};
    pci.method = info->method;
    pci.radius = info->radius;
    pci.max_particles = n ? n : 1u;
    memcpy(pci.domain_min, info->domain_min, sizeof pci.domain_min);
    memcpy(pci.domain_max, info->domain_max, sizeof pci.domain_max);
    fenns_result fr = fenns_pipeline_create(ctx, &pci, &run->pipeline);
    if (fr != FENNS_SUCCESS) return fr;

    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = ctx->queue_family_index};
    /* The one object not given the caller's allocator: commands recorded into
     * this pool allocate through it, and Mesa's lavapipe (23.x) crashes in
     * vkCmd* when such an allocation fails instead of failing vkEndCommandBuffer. */
    VkResult r = vk->vkCreateCommandPool(ctx->device, &pool, NULL, &run->pool);
    if (r == VK_SUCCESS) {
        VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                             .commandPool = run->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                             .commandBufferCount = 1};
        r = vk->vkAllocateCommandBuffers(ctx->device, &alloc, &run->cmd);
    }
    if (r == VK_SUCCESS) {
        VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        r = vk->vkCreateFence(ctx->device, &fence, ctx->allocator, &run->fence);
    }
    if (r == VK_SUCCESS && ctx->timestamp_valid_bits) {
        VkQueryPoolCreateInfo qp = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = TS_COUNT};
        r = vk->vkCreateQueryPool(ctx->device, &qp, ctx->allocator, &run->timestamps);
    }
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(run->pipeline, n, &req);
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBufferUsageFlags out_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    VkDeviceSize pos_bytes = 16u * (VkDeviceSize)n;
    if (r == VK_SUCCESS)
        r = buffer_create(run, &run->upload, pos_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 1, "the position upload");
    if (r == VK_SUCCESS) r = buffer_create(run, &run->positions, pos_bytes, storage, 0, "the positions");
    if (r == VK_SUCCESS)
        r = buffer_create(run, &run->scratch, req.size, req.usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0, "the scratch");
    if (r == VK_SUCCESS) r = buffer_create(run, &run->counts, 4u * (VkDeviceSize)n, out_usage, 0, "the counts");
    if (r == VK_SUCCESS) r = buffer_create(run, &run->offsets, 8u * ((VkDeviceSize)n + 1u), out_usage, 0, "the offsets");
    /* A first guess at the list room; grown to the exact total if short. */
    VkDeviceSize max_capacity = ctx->limits.max_list_entries;
    VkDeviceSize capacity = lists ? 16u * (VkDeviceSize)n + 16u : 1u;
    if (capacity > max_capacity) capacity = max_capacity;
    readback_layout rl;
    if (r == VK_SUCCESS) r = make_list_buffers(run, n, capacity, lists, &rl);
    if (r != VK_SUCCESS) return fenns__from_vk(r);

    size_t stride = info->stride ? info->stride : 3u * sizeof(float);
    float *staged = run->upload.mapped;
    for (uint32_t i = 0; i < n; ++i) {
        const float *p = (const float *)(const void *)((const char *)info->positions + (size_t)i * stride);
        memcpy(staged + 4u * (size_t)i, p, 3u * sizeof(float));
        staged[4u * (size_t)i + 3u] = 1.0f;
    }

    r = begin(run);
    if (r != VK_SUCCESS) return fenns__from_vk(r);
    if (run->timestamps) vk->vkCmdResetQueryPool(run->cmd, run->timestamps, 0, TS_COUNT);
    if (n) {
        VkBufferCopy copy = {0, 0, pos_bytes};
        vk->vkCmdCopyBuffer(run->cmd, run->upload.buffer, run->positions.buffer, 1, &copy);
    }
    memory_barrier(run, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT);
    fenns_build_info b = {n, whole(&run->positions), whole(&run->scratch), NULL};
    stamp(run, TS_BUILD_BEGIN);
    fenns_cmd_build(run->cmd, run->pipeline, &b);
    stamp(run, TS_BUILD_END);
    fenns_cmd_build_to_search_barrier(run->cmd, run->pipeline);
    record_search(run, n, lists, &rl);
    r = submit_and_wait(run);
    if (r != VK_SUCCESS) return fenns__from_vk(r);

    fenns_status status;
    memcpy(&status, (const char *)run->readback.mapped + rl.status, sizeof status);
    if (status.incomplete_queries) return driver_limit(ctx, &status);
    if (lists && status.list_overflow) {
        /* The lists need more room than guessed: search again into exactly
         * enough (the build stays valid). */
        capacity = status.total_neighbors ? status.total_neighbors : 1u;
        if (capacity > max_capacity) {
            fenns__log(ctx, FENNS_LOG_ERROR,
                       "fenns_host_search: the lists need %llu entries (%.1f GiB); this device binds at most %llu",
                       (unsigned long long)capacity, (double)capacity * 4.0 / 1073741824.0,
                       (unsigned long long)max_capacity);
            return FENNS_ERROR_TOO_LARGE;
        }
        r = make_list_buffers(run, n, capacity, lists, &rl);
        if (r == VK_SUCCESS) r = vk->vkResetCommandBuffer(run->cmd, 0);
        if (r == VK_SUCCESS) r = begin(run);
        if (r != VK_SUCCESS) return fenns__from_vk(r);
        if (run->timestamps) vk->vkCmdResetQueryPool(run->cmd, run->timestamps, TS_SEARCH_BEGIN, TS_COUNT - TS_SEARCH_BEGIN);
        memory_barrier(run, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
        record_search(run, n, lists, &rl);
        r = submit_and_wait(run);
        if (r != VK_SUCCESS) return fenns__from_vk(r);
        memcpy(&status, (const char *)run->readback.mapped + rl.status, sizeof status);
        if (status.incomplete_queries) return driver_limit(ctx, &status);
        if (status.list_overflow) return FENNS_ERROR_INCOMPLETE;
    }

    uint64_t ts[TS_COUNT] = {0};
    if (run->timestamps) {
        r = vk->vkGetQueryPoolResults(ctx->device, run->timestamps, 0, run->search_end + 1u, sizeof ts, ts, sizeof ts[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r != VK_SUCCESS) return fenns__from_vk(r);
    }
    out->status = status;
    out->build_ms = elapsed_ms(run, ts, TS_BUILD_BEGIN, TS_BUILD_END);
    out->search_ms = elapsed_ms(run, ts, TS_SEARCH_BEGIN, (int)run->search_end);
    out->lists_ms = lists ? elapsed_ms(run, ts, TS_COUNTED, (int)run->search_end) : 0.0;
    out->gpu_memory_bytes = run->device_bytes;

    out->particle_count = n;
    out->counts = fenns__alloc(ctx, 4u * ((size_t)n + 1u));
    out->offsets = fenns__alloc(ctx, 8u * ((size_t)n + 1u));
    if (!out->counts || !out->offsets) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    if (n) memcpy(out->counts, (const char *)run->readback.mapped + rl.counts, 4u * (size_t)n);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; ++i) {
        out->offsets[i] = total;
        total += out->counts[i];
    }
    out->offsets[n] = total;
    out->total = total;
    if (lists) {
        const uint64_t *gpu_offsets = (const uint64_t *)(const void *)((const char *)run->readback.mapped + rl.offsets);
        for (uint32_t i = 0; i <= n; ++i)
            if (gpu_offsets[i] != out->offsets[i]) { /* the GPU scan disagrees with its own counts */
                fenns__log(ctx, FENNS_LOG_ERROR, "fenns_host_search: GPU offsets disagree with the counts at %u", i);
                return FENNS_ERROR_VULKAN;
            }
        out->indices = fenns__alloc(ctx, 4u * (size_t)(total ? total : 1u));
        if (!out->indices) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
        memcpy(out->indices, (const char *)run->readback.mapped + rl.indices, 4u * (size_t)total);
    }
    return FENNS_SUCCESS;
}

fenns_result fenns_host_search(fenns_context context, const fenns_host_search_info *info, fenns_host_csr *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!context || !info || !out) return FENNS_ERROR_INVALID_ARGUMENT;
    if (!info->queue || (info->particle_count && !info->positions) ||
        (info->stride && info->stride < 3u * sizeof(float))) {
        fenns__log(context, FENNS_LOG_ERROR, "fenns_host_search: null queue or positions, or stride < 12 bytes");
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    host_run run;
    memset(&run, 0, sizeof run);
    run.ctx = context;
    run.queue = info->queue;
    fenns_result result = run_search(&run, info, out);
    const fenns_vk *vk = &context->vk;
    host_buffer *buffers[] = {&run.upload, &run.positions, &run.scratch, &run.counts, &run.offsets, &run.indices, &run.readback};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) buffer_destroy(&run, buffers[i]);
    if (run.timestamps) vk->vkDestroyQueryPool(context->device, run.timestamps, context->allocator);
    if (run.fence) vk->vkDestroyFence(context->device, run.fence, context->allocator);
    if (run.pool) vk->vkDestroyCommandPool(context->device, run.pool, NULL);
    fenns_pipeline_destroy(run.pipeline);
    if (result != FENNS_SUCCESS) {
        if (result == FENNS_ERROR_DEVICE_LOST || result == FENNS_ERROR_OUT_OF_DEVICE_MEMORY)
            fenns__log(context, FENNS_LOG_ERROR, "fenns_host_search: %s", fenns_result_string(result));
        fenns_host_csr_free(context, out);
    }
    return result;
}

void fenns_host_csr_free(fenns_context context, fenns_host_csr *csr) {
    if (!csr) return;
    fenns__free(context, csr->offsets);
    fenns__free(context, csr->indices);
    fenns__free(context, csr->counts);
    memset(csr, 0, sizeof *csr);
}
