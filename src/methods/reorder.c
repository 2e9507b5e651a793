/* fenns_cmd_reorder: the caller's attribute buffers moved by the build's
 * permutation (argument checks, the in-place copy, the gather pass). */
#include "passes/passes.h"

static int fits(const fenns_buffer_range *r, VkDeviceSize bytes) {
    return r->buffer != VK_NULL_HANDLE && r->range != VK_WHOLE_SIZE && r->range >= bytes;
}

void fenns_cmd_reorder(VkCommandBuffer cmd, fenns_pipeline p, const fenns_reorder_info *info) {
    if (!p) return;
    const char *bad = NULL;
    fenns_memory_requirements req = {0};
    VkDeviceSize bytes = 0, align = p->ctx->limits.min_storage_buffer_offset_alignment;
    if (!align) align = 1;
    int in_place = 0;
    if (!cmd || !info) bad = "null command buffer or info";
    else {
        fenns_pipeline_get_scratch_requirements(p, info->particle_count, &req);
        bytes = (VkDeviceSize)info->stride * info->particle_count;
        in_place = info->src.buffer == info->dst.buffer && info->src.offset == info->dst.offset;
        const VkDeviceSize src_end = info->src.offset + bytes, dst_end = info->dst.offset + bytes;
        if (info->particle_count > p->plan.max_particles) bad = "particle_count exceeds the pipeline's max_particles";
        else if (!fits(&info->scratch, req.size) || info->scratch.offset % req.alignment)
            bad = "scratch range is null, misaligned or smaller than the scratch requirements";
        else if (info->direction != FENNS_REORDER_TO_SORTED && info->direction != FENNS_REORDER_TO_ORIGINAL)
            bad = "direction is not a fenns_reorder_direction";
        else if (info->stride == 0 || info->stride % 4u) bad = "stride is 0 or not a multiple of 4";
        else if ((uint64_t)info->particle_count * (info->stride / 4u) > UINT32_MAX)
            bad = "particle_count * stride / 4 exceeds 2^32 words";
        else if (!fits(&info->src, bytes) || !fits(&info->dst, bytes))
            bad = "src or dst range is null or smaller than stride * particle_count bytes";
        else if (info->src.offset % align || info->dst.offset % align)
            bad = "src or dst offset is not a multiple of minStorageBufferOffsetAlignment";
        else if (bytes > p->ctx->limits.max_storage_buffer_range)
            bad = "stride * particle_count exceeds maxStorageBufferRange";
        else if (!in_place && info->src.buffer == info->dst.buffer && info->src.offset < dst_end &&
                 info->dst.offset < src_end)
            bad = "src and dst overlap without being the same range (in place needs equal offsets)";
        else if (in_place && (!fits(&info->temp, bytes) || info->temp.offset % align ||
                              (info->temp.buffer == info->src.buffer && info->temp.offset < src_end &&
                               info->src.offset < info->temp.offset + bytes)))
            bad = "in place, temp must be a separate, aligned range of stride * particle_count bytes";
    }
    if (bad) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_reorder: %s; nothing recorded", bad);
        return;
    }
    if (info->particle_count == 0) return;
    fenns_frame f;
    fenns_buffer_range no_positions = {0};
    fenns__frame_init(&f, p, info->particle_count, &no_positions, &info->scratch);
    fenns_buffer_range in = info->src, out = info->dst;
    in.range = out.range = bytes;
    if (in_place) {
        VkBufferCopy region = {info->src.offset, info->temp.offset, bytes};
        p->ctx->vk.vkCmdCopyBuffer(cmd, info->src.buffer, info->temp.buffer, 1, &region);
        /* The copy's read of src (= dst) and write of temp before the gather. */
        VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                   .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                   .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
        p->ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                        &barrier, 0, NULL, 0, NULL);
        in = info->temp;
        in.range = bytes;
    }
    fenns__pass_reorder_attributes(cmd, p, &f, &in, &out, info->stride / 4u,
                                   info->direction == FENNS_REORDER_TO_ORIGINAL ? 1u : 0u);
}
