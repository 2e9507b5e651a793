/* fenns_cmd_reorder: the caller's attribute buffers moved by the build's
 * permutation (argument checks, the in-place copy, the gather pass). */
#include "methods/arguments.h"
#include "passes/passes.h"

/* What is wrong with a reorder of `bytes` per range, or NULL. */
static const char *problem(fenns_pipeline p, const fenns_reorder_info *info, VkDeviceSize bytes, int in_place) {
    const VkDeviceSize src_end = info->src.offset + bytes, dst_end = info->dst.offset + bytes;
    if (!p->ctx->push_descriptors && !info->descriptors)
        return "descriptors (a fenns_descriptor_arena) is required: the device has no push descriptors";
    if (info->particle_count > p->plan.max_particles) return "particle_count exceeds the pipeline's max_particles";
    const char *scratch = fenns__scratch_problem(p, info->particle_count, &info->scratch);
    if (scratch) return scratch;
    if (info->direction != FENNS_REORDER_TO_SORTED && info->direction != FENNS_REORDER_TO_ORIGINAL)
        return "direction is not a fenns_reorder_direction";
    if (info->stride == 0 || info->stride % 4u) return "stride is 0 or not a multiple of 4";
    if ((uint64_t)info->particle_count * (info->stride / 4u) > UINT32_MAX)
        return "particle_count * stride / 4 exceeds 2^32 words";
    if (!fenns__range_ok(&info->src, bytes) || !fenns__range_ok(&info->dst, bytes))
        return "src or dst range is null or smaller than stride * particle_count bytes";
    if (!fenns__aligned(p, info->src.offset) || !fenns__aligned(p, info->dst.offset))
        return "src or dst offset is not a multiple of minStorageBufferOffsetAlignment";
    if (bytes > p->ctx->limits.max_storage_buffer_range) return "stride * particle_count exceeds maxStorageBufferRange";
    if (!in_place && info->src.buffer == info->dst.buffer && info->src.offset < dst_end && info->dst.offset < src_end)
        return "src and dst overlap without being the same range (in place needs equal offsets)";
    if (in_place && (!fenns__range_ok(&info->temp, bytes) || !fenns__aligned(p, info->temp.offset) ||
                     (info->temp.buffer == info->src.buffer && info->temp.offset < src_end &&
                      info->src.offset < info->temp.offset + bytes)))
        return "in place, temp must be a separate, aligned range of stride * particle_count bytes";
    return NULL;
}

void fenns_cmd_reorder(VkCommandBuffer cmd, fenns_pipeline p, const fenns_reorder_info *info) {
    if (!p) return;
    const char *bad = NULL;
    VkDeviceSize bytes = 0;
    int in_place = 0;
    if (!cmd || !info) {
        bad = "null command buffer or info";
    } else {
        bytes = (VkDeviceSize)info->stride * info->particle_count;
        in_place = info->src.buffer == info->dst.buffer && info->src.offset == info->dst.offset;
        bad = problem(p, info, bytes, in_place);
    }
    if (bad) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_reorder: %s; nothing recorded", bad);
        return;
    }
    if (info->particle_count == 0) return;
    fenns_frame f;
    fenns_buffer_range no_positions = {0};
    fenns__frame_init(&f, p, info->particle_count, &no_positions, &info->scratch);
    f.arena = info->descriptors;
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
