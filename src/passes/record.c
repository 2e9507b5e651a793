/* What every pass does to record itself: push descriptors, push constants,
 * a dispatch in rows, and the barrier between passes. */
#include "descriptor_arena.h"
#include "pipeline.h"

void fenns__bind(fenns_bindings *b, uint32_t binding, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range) {
    /* A binding bound again is replaced (a window's lists, search_passes.c). */
    for (uint32_t i = 0; i < b->count; ++i)
        if (b->items[i].binding == binding) {
            b->items[i] = (fenns_binding){binding, buffer, offset, range};
            return;
        }
    if (b->count >= FENNS_MAX_PUSHED) return;
    b->items[b->count++] = (fenns_binding){binding, buffer, offset, range};
}

void fenns__bind_chunks(fenns_bindings *b, uint32_t first_binding, VkBuffer buffer, VkDeviceSize offset,
                        VkDeviceSize bytes, uint32_t shift, uint32_t element, uint32_t chunks, int first_whole) {
    VkDeviceSize chunk = (VkDeviceSize)element << shift;
    for (uint32_t c = 0; c < chunks; ++c) {
        VkDeviceSize start = (VkDeviceSize)c * chunk;
        /* Chunks past the end repeat the first one: the shader never reads
         * them, but a pushed descriptor must be valid. */
        if (start >= bytes) start = 0;
        VkDeviceSize len = bytes - start < chunk ? bytes - start : chunk;
        if (c == 0 && first_whole) len = bytes;
        fenns__bind(b, first_binding + c, buffer, offset + start, len);
    }
}

void fenns__bind_chunked(fenns_bindings *b, uint32_t first_binding, VkBuffer buffer, VkDeviceSize offset,
                         VkDeviceSize bytes, uint32_t shift, uint32_t element, uint32_t chunks) {
    fenns__bind_chunks(b, first_binding, buffer, offset, bytes, shift, element, chunks, 0);
}

fenns_push fenns__push_base(fenns_pipeline p, uint32_t n) {
    fenns_push pc = {0};
    pc.n = n;
    pc.cell_capacity = p->plan.cell_capacity;
    pc.chunk_shift16 = p->plan.chunk_shift16;
    pc.chunk_shift4 = p->plan.chunk_shift4;
    pc.fine_max = p->plan.fine_max;
    pc.sort_capacity = p->plan.sort_capacity;
    pc.work_base = p->plan.work_base;
    pc.sections = p->plan.sections;
    pc.by_cell = p->plan.by_cell;
    pc.fine_reach = p->plan.fine_reach;
    pc.loop_limit = p->ctx->loop_limit;
    return pc;
}

/* 0 when the pass has no descriptor set (the arena failed): record nothing. */
static int bind_and_push(VkCommandBuffer cmd, fenns_pipeline p, fenns_pass pass, const fenns_bindings *b,
                         const fenns_push *pc) {
    const fenns_vk *vk = &p->ctx->vk;
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (!p->ctx->push_descriptors) {
        set = fenns__arena_set(b->arena, p->set_layout);
        if (set == VK_NULL_HANDLE) return 0;
    }
    VkDescriptorBufferInfo infos[FENNS_MAX_PUSHED];
    VkWriteDescriptorSet writes[FENNS_MAX_PUSHED];
    for (uint32_t i = 0; i < b->count; ++i) {
        infos[i] = (VkDescriptorBufferInfo){b->items[i].buffer, b->items[i].offset, b->items[i].range};
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                           .dstBinding = b->items[i].binding, .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &infos[i]};
    }
    VkPipelineLayout layout = fenns__pass_layout(p, pass);
    vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipelines[pass]);
    if (p->ctx->push_descriptors) {
        vk->vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, b->count, writes);
    } else {
        /* Written once, now, and never again until the caller resets the
         * arena: a set is never changed under a pending command buffer. */
        vk->vkUpdateDescriptorSets(p->ctx->device, b->count, writes, 0, NULL);
        vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
    }
    vk->vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *pc, pc);
    return 1;
}

void fenns__dispatch_indirect(VkCommandBuffer cmd, fenns_pipeline p, fenns_pass pass, const fenns_bindings *b,
                              fenns_push *pc, VkBuffer args, VkDeviceSize args_offset) {
    if (bind_and_push(cmd, p, pass, b, pc)) p->ctx->vk.vkCmdDispatchIndirect(cmd, args, args_offset);
}

void fenns__dispatch(VkCommandBuffer cmd, fenns_pipeline p, fenns_pass pass, const fenns_bindings *b,
                     fenns_push *pc, uint64_t groups) {
    /* Rows of at most 65535 workgroups (the smallest maxComputeWorkGroupCount). */
    uint32_t x = groups > 65535u ? 65535u : (uint32_t)groups;
    uint32_t y = x ? (uint32_t)((groups + x - 1) / x) : 0u;
    if (bind_and_push(cmd, p, pass, b, pc) && x && y) p->ctx->vk.vkCmdDispatch(cmd, x, y, 1);
}

void fenns__barrier(VkCommandBuffer cmd, fenns_pipeline p) {
    /* Transfer is on both sides: builds and searches clear their own
     * scratch with vkCmdFillBuffer after earlier passes wrote it. */
    /* ... the search reads its workgroup counts from the scratch, and a
     * SORTED_ORDER search copies the permutation out of it. */
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                                VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                                                VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
    VkPipelineStageFlags src = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkPipelineStageFlags dst = src | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
    p->ctx->vk.vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* Profiling: a timestamp before the first pass and after every pass, all at
 * BOTTOM_OF_PIPE, so each difference is one pass (passes are separated by
 * barriers). Nothing is recorded without a profile. */
void fenns__profile_begin(VkCommandBuffer cmd, fenns_pipeline p, fenns_profile *profile) {
    if (!profile) return;
    profile->pass_count = 0;
    p->ctx->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, profile->query_pool,
                                   profile->first_query);
}

void fenns__profile_mark(VkCommandBuffer cmd, fenns_pipeline p, fenns_profile *profile, const char *pass_name,
                         uint64_t bytes) {
    if (!profile || profile->pass_count >= FENNS_MAX_PROFILED_PASSES) return;
    profile->pass_names[profile->pass_count] = pass_name;
    profile->pass_bytes[profile->pass_count++] = bytes;
    p->ctx->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, profile->query_pool,
                                   profile->first_query + profile->pass_count);
}
