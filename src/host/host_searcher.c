/* The host searcher's lifecycle: its Vulkan objects, and the pipeline and
 * buffers it keeps between runs (re-created only when the configuration
 * changes, grown geometrically when a run needs more). */
#include <string.h>

#include "host_searcher.h"

fenns_result fenns__host_vk_failed(fenns_host_searcher s, VkResult r, const char *call) {
    fenns_result fr = fenns__from_vk(r);
    fenns__log(s->ctx, FENNS_LOG_ERROR, "fenns_host_searcher: %s failed: %s", call, fenns_result_string(fr));
    return fr;
}

static VkDeviceSize align256(VkDeviceSize x) { return (x + 255u) / 256u * 256u; }

fenns_host_readback_layout fenns__host_readback_layout(uint64_t n) {
    fenns_host_readback_layout l;
    l.status = 0;
    l.counts = align256(sizeof(fenns_status));
    l.offsets = l.counts + align256(4u * (VkDeviceSize)n);
    l.size = l.offsets + 8u * ((VkDeviceSize)n + 1u);
    return l;
}

fenns_result fenns_host_searcher_create(fenns_context context, fenns_host_searcher *out_searcher) {
    if (out_searcher) *out_searcher = NULL;
    if (!context || !out_searcher) return FENNS_ERROR_INVALID_ARGUMENT;
    fenns_host_searcher s = fenns__alloc(context, sizeof *s);
    if (!s) {
        fenns__log(context, FENNS_LOG_ERROR, "fenns_host_searcher_create: out of host memory");
        return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    }
    memset(s, 0, sizeof *s);
    s->ctx = context;
    const fenns_vk *vk = &context->vk;
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = context->queue_family_index};
    /* The one object not given the caller's allocator: commands recorded into
     * this pool allocate through it, and Mesa's lavapipe (23.x) crashes in
     * vkCmd* when such an allocation fails instead of failing vkEndCommandBuffer. */
    const char *call = "vkCreateCommandPool";
    VkResult r = vk->vkCreateCommandPool(context->device, &pool, NULL, &s->pool);
    if (r == VK_SUCCESS) {
        VkCommandBufferAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                             .commandPool = s->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                             .commandBufferCount = 1};
        call = "vkAllocateCommandBuffers";
        r = vk->vkAllocateCommandBuffers(context->device, &alloc, &s->cmd);
    }
    if (r == VK_SUCCESS) {
        VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        call = "vkCreateFence";
        r = vk->vkCreateFence(context->device, &fence, context->allocator, &s->fence);
    }
    if (r == VK_SUCCESS && context->timestamp_valid_bits) {
        VkQueryPoolCreateInfo qp = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = FENNS_HOST_TS_COUNT};
        call = "vkCreateQueryPool";
        r = vk->vkCreateQueryPool(context->device, &qp, context->allocator, &s->timestamps);
    }
    if (r != VK_SUCCESS) {
        fenns_result fr = fenns__host_vk_failed(s, r, call);
        fenns_host_searcher_destroy(s);
        return fr;
    }
    /* Descriptor sets where the device has no push descriptors: reset after
     * every wait, so one pool serves every run. */
    fenns_result made = fenns_descriptor_arena_create(context, &s->arena);
    if (made != FENNS_SUCCESS) {
        fenns_host_searcher_destroy(s);
        return made;
    }
    *out_searcher = s;
    return FENNS_SUCCESS;
}

void fenns_host_searcher_destroy(fenns_host_searcher s) {
    if (!s) return;
    fenns_context ctx = s->ctx;
    const fenns_vk *vk = &ctx->vk;
    fenns_host_buffer *buffers[] = {&s->upload,           &s->staged,           &s->positions,
                                    &s->scratch,          &s->counts,           &s->offsets,
                                    &s->indices,          &s->readback,         &s->lists_readback,
                                    &s->values,           &s->values_readback,  &s->candidate_upload,
                                    &s->candidate_staged, &s->candidate_positions, &s->candidate_scratch};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) fenns__host_buffer_destroy(ctx, buffers[i]);
    if (s->timestamps) vk->vkDestroyQueryPool(ctx->device, s->timestamps, ctx->allocator);
    if (s->fence) vk->vkDestroyFence(ctx->device, s->fence, ctx->allocator);
    fenns_descriptor_arena_destroy(s->arena);
    if (s->pool) vk->vkDestroyCommandPool(ctx->device, s->pool, NULL);
    fenns_pipeline_destroy(s->pipeline);
    fenns__free(ctx, s->kernel_code);
    fenns__free(ctx, s);
}

static int same_kernel(fenns_host_searcher s, const fenns_kernel_info *k) {
    if (!k) return s->kernel_code == NULL;
    return s->kernel_code && s->kernel_size == k->spirv_size && !memcmp(s->kernel_code, k->spirv, k->spirv_size);
}

/* The radius and the box go to each build (fenns_build_info), so only the
 * method and the kernel need another pipeline. */
static int same_config(fenns_host_searcher s, const fenns_host_search_info *b) {
    return s->config.method == b->method && same_kernel(s, b->kernel);
}

/* A pipeline for info with room for at least `needed` particles: the old
 * capacity when only the configuration changed, at least 1.5 times it when
 * it was too small. The old pipeline is kept until the new one exists. */
static fenns_result ensure_pipeline(fenns_host_searcher s, const fenns_host_search_info *info) {
    uint32_t needed = info->particle_count > info->candidate_count ? info->particle_count : info->candidate_count;
    if (needed == 0) needed = 1u;
    if (s->pipeline && same_config(s, info) && needed <= s->config.max_particles) return FENNS_SUCCESS;
    uint64_t capacity = needed;
    if (s->pipeline) {
        uint64_t old = s->config.max_particles, grown = old + old / 2u;
        if (needed <= old) capacity = old;
        else if (grown > capacity) capacity = grown < UINT32_MAX ? grown : UINT32_MAX;
    }
    fenns_pipeline_create_info pci = {0};
    pci.method = info->method;
    pci.radius = info->radius;
    pci.max_particles = (uint32_t)capacity;
    pci.kernel = info->kernel; /* no box: a run's box, if any, goes to its build */
    /* The kernel's SPIR-V, kept to tell a later run's kernel from this one. */
    uint32_t *code = NULL;
    if (info->kernel) { /* SPIR-V of at least 20 bytes (fenns_host_searcher_run checked) */
        code = fenns__alloc(s->ctx, info->kernel->spirv_size);
        if (!code) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
        memcpy(code, info->kernel->spirv, info->kernel->spirv_size);
    }
    fenns_pipeline p = NULL;
    fenns_result r = fenns_pipeline_create(s->ctx, &pci, &p);
    if (r == FENNS_ERROR_TOO_LARGE && pci.max_particles > needed) { /* the headroom, not the run, is too large */
        pci.max_particles = needed;
        r = fenns_pipeline_create(s->ctx, &pci, &p);
    }
    if (r != FENNS_SUCCESS) {
        fenns__log(s->ctx, FENNS_LOG_ERROR, "fenns_host_searcher_run: no pipeline for %u particles: %s", needed,
                   fenns_result_string(r));
        fenns__free(s->ctx, code);
        return r;
    }
    fenns_pipeline_destroy(s->pipeline);
    s->pipeline = p;
    s->config = pci;
    s->config.kernel = NULL; /* the caller's; kernel_code is the searcher's copy */
    fenns__free(s->ctx, s->kernel_code);
    s->kernel_code = code;
    s->kernel_size = code ? info->kernel->spirv_size : 0u;
    return FENNS_SUCCESS;
}

fenns_result fenns__host_searcher_prepare(fenns_host_searcher s, const fenns_host_search_info *info) {
    fenns_result fr = ensure_pipeline(s, info);
    if (fr != FENNS_SUCCESS) return fr;
    fenns_context ctx = s->ctx;
    uint64_t capacity = s->config.max_particles;
    fenns_memory_requirements scratch;
    fenns_pipeline_get_scratch_requirements(s->pipeline, (uint32_t)capacity, &scratch);
    const VkBufferUsageFlags out = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    VkResult r = fenns__host_buffer_reserve(ctx, &s->upload, 16u * capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                            FENNS_HOST_MEMORY_UPLOAD, "the position upload");
    const VkBufferUsageFlags in = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (r == VK_SUCCESS) r = fenns__host_buffer_reserve(ctx, &s->staged, 12u * capacity, in, FENNS_HOST_MEMORY_DEVICE, "the staged positions");
    if (r == VK_SUCCESS)
        r = fenns__host_buffer_reserve(ctx, &s->positions, 16u * capacity, in, FENNS_HOST_MEMORY_DEVICE, "the positions");
    if (r == VK_SUCCESS)
        r = fenns__host_buffer_reserve(ctx, &s->scratch, scratch.size, scratch.usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                       FENNS_HOST_MEMORY_DEVICE, "the scratch");
    if (r == VK_SUCCESS)
        r = fenns__host_buffer_reserve(ctx, &s->counts, 4u * capacity, out, FENNS_HOST_MEMORY_DEVICE, "the counts");
    if (r == VK_SUCCESS)
        r = fenns__host_buffer_reserve(ctx, &s->offsets, 8u * (capacity + 1u), out, FENNS_HOST_MEMORY_DEVICE,
                                       "the offsets");
    if (r == VK_SUCCESS)
        r = fenns__host_buffer_reserve(ctx, &s->readback, fenns__host_readback_layout(capacity).size,
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT, FENNS_HOST_MEMORY_READBACK, "the readback");
    if (r == VK_SUCCESS && info->kernel)
        r = fenns__host_buffer_reserve(ctx, &s->values, 16u * capacity, out, FENNS_HOST_MEMORY_DEVICE,
                                       "the kernel values");
    if (r == VK_SUCCESS && info->kernel)
        r = fenns__host_buffer_reserve(ctx, &s->values_readback, 16u * capacity, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       FENNS_HOST_MEMORY_READBACK, "the kernel value readback");
    if (r == VK_SUCCESS && info->candidate_positions)
        r = fenns__host_buffer_reserve(ctx, &s->candidate_upload, 16u * capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                       FENNS_HOST_MEMORY_UPLOAD, "the candidates' upload");
    if (r == VK_SUCCESS && info->candidate_positions)
        r = fenns__host_buffer_reserve(ctx, &s->candidate_staged, 12u * capacity, in, FENNS_HOST_MEMORY_DEVICE,
                                       "the candidates' staged positions");
    if (r == VK_SUCCESS && info->candidate_positions)
        r = fenns__host_buffer_reserve(ctx, &s->candidate_positions, 16u * capacity, in, FENNS_HOST_MEMORY_DEVICE,
                                       "the candidates' positions");
    if (r == VK_SUCCESS && info->candidate_positions)
        r = fenns__host_buffer_reserve(ctx, &s->candidate_scratch, scratch.size, scratch.usage,
                                       FENNS_HOST_MEMORY_DEVICE, "the candidates' scratch");
    return fenns__from_vk(r);
}

fenns_result fenns__host_searcher_reserve_lists(fenns_host_searcher s, uint64_t entries) {
    fenns_context ctx = s->ctx;
    uint64_t limit = ctx->limits.max_list_entries;
    if (entries > limit) {
        fenns__log(ctx, FENNS_LOG_ERROR,
                   "fenns_host_searcher_run: the lists need %llu entries (%.1f GiB); this device binds at most %llu",
                   (unsigned long long)entries, (double)entries * 4.0 / 1073741824.0, (unsigned long long)limit);
        return FENNS_ERROR_TOO_LARGE;
    }
    if (entries == 0) entries = 1;
    uint64_t held = s->indices.size < s->lists_readback.size ? s->indices.size / 4u : s->lists_readback.size / 4u;
    if (entries <= held) return FENNS_SUCCESS;
    /* A quarter of headroom, so lists that grow slowly frame by frame do
     * not reallocate every frame. */
    uint64_t grown = held + held / 4u;
    if (held && grown > entries) entries = grown < limit ? grown : limit;
    const VkBufferUsageFlags out = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    VkResult r = fenns__host_buffer_reserve(ctx, &s->indices, 4u * entries, out, FENNS_HOST_MEMORY_DEVICE,
                                            "the neighbour lists");
    if (r == VK_SUCCESS)
        r = fenns__host_buffer_reserve(ctx, &s->lists_readback, 4u * entries, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       FENNS_HOST_MEMORY_READBACK, "the list readback");
    return fenns__from_vk(r);
}

uint64_t fenns__host_searcher_memory(fenns_host_searcher s) {
    return s->upload.allocated + s->staged.allocated + s->positions.allocated + s->scratch.allocated +
           s->counts.allocated + s->offsets.allocated + s->indices.allocated + s->readback.allocated +
           s->lists_readback.allocated + s->values.allocated + s->values_readback.allocated +
           s->candidate_upload.allocated + s->candidate_staged.allocated + s->candidate_positions.allocated +
           s->candidate_scratch.allocated;
}
