/* Grow-only buffers with dedicated memory for the host path. */
#include <string.h>

#include "host_buffer.h"

#define HV VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
#define HC VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
#define CACHED VK_MEMORY_PROPERTY_HOST_CACHED_BIT
#define DL VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT

/* Preferences, best first: flags a type must have and flags it must not,
 * and the least size of its heap. */
typedef struct memory_preference {
    VkMemoryPropertyFlags want, avoid;
    VkDeviceSize min_heap;
} memory_preference;

#define LARGE_HEAP ((VkDeviceSize)1 << 31) /* 2 GiB: a resizable BAR, not the classic 256 MiB window */

static const memory_preference device_order[] = {{DL, 0, 0}, {0, 0, 0}};
/* Uploads: the CPU writes once, sequentially. Best into device memory the
 * CPU can map, where the device exposes all of it (resizable BAR): the
 * writes cross the bus once and the copy stays on the device (H100, s1 4M
 * host run: 10.9 ms against 14.6 with write-combined system memory, which
 * the copy engine then reads over the bus). A small such heap (the classic
 * 256 MiB window) is left alone. */
static const memory_preference upload_order[] = {
    {HV | HC | DL, 0, LARGE_HEAP}, {HV | HC, CACHED | DL, 0}, {HV | HC, DL, 0}, {HV | HC, 0, 0}, {HV, 0, 0}};
/* Readback: the caller reads every byte, so cached system memory. */
static const memory_preference readback_order[] = {{HV | HC | CACHED, DL, 0}, {HV | CACHED, DL, 0}, {HV | CACHED, 0, 0},
                                                   {HV | HC, DL, 0}, {HV, 0, 0}};

static uint32_t choose_memory_type(fenns_context ctx, uint32_t bits, fenns_host_memory kind,
                                   VkMemoryPropertyFlags *flags) {
    VkPhysicalDeviceMemoryProperties mem;
    ctx->vk.vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &mem);
    const memory_preference *order = kind == FENNS_HOST_MEMORY_DEVICE   ? device_order
                                     : kind == FENNS_HOST_MEMORY_UPLOAD ? upload_order
                                                                        : readback_order;
    size_t count = kind == FENNS_HOST_MEMORY_DEVICE   ? sizeof device_order / sizeof device_order[0]
                   : kind == FENNS_HOST_MEMORY_UPLOAD ? sizeof upload_order / sizeof upload_order[0]
                                                      : sizeof readback_order / sizeof readback_order[0];
    for (size_t p = 0; p < count; ++p)
        for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
            VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
            VkDeviceSize heap = mem.memoryHeaps[mem.memoryTypes[i].heapIndex].size;
            if ((bits & (1u << i)) && (f & order[p].want) == order[p].want && !(f & order[p].avoid) &&
                heap >= order[p].min_heap) {
                *flags = f;
                return i;
            }
        }
    return UINT32_MAX;
}

void fenns__host_buffer_destroy(fenns_context ctx, fenns_host_buffer *b) {
    if (b->mapped) ctx->vk.vkUnmapMemory(ctx->device, b->memory);
    if (b->buffer) ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, ctx->allocator);
    if (b->memory) ctx->vk.vkFreeMemory(ctx->device, b->memory, ctx->allocator);
    memset(b, 0, sizeof *b);
}

static VkResult create(fenns_context ctx, fenns_host_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage,
                       fenns_host_memory kind) {
    const fenns_vk *vk = &ctx->vk;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vk->vkCreateBuffer(ctx->device, &info, ctx->allocator, &b->buffer);
    if (r != VK_SUCCESS) return r;
    b->size = size;
    VkMemoryRequirements req;
    vk->vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    VkMemoryPropertyFlags flags = 0;
    uint32_t type = choose_memory_type(ctx, req.memoryTypeBits, kind, &flags);
    if (type == UINT32_MAX) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                  .memoryTypeIndex = type};
    r = vk->vkAllocateMemory(ctx->device, &alloc, ctx->allocator, &b->memory);
    if (r != VK_SUCCESS) return r;
    b->allocated = req.size;
    b->coherent = (flags & HC) != 0;
    r = vk->vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0);
    if (r == VK_SUCCESS && kind != FENNS_HOST_MEMORY_DEVICE)
        r = vk->vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
    return r;
}

VkResult fenns__host_buffer_reserve(fenns_context ctx, fenns_host_buffer *b, VkDeviceSize size,
                                    VkBufferUsageFlags usage, fenns_host_memory kind, const char *what) {
    if (size < 16u) size = 16u;
    if (b->buffer && b->size >= size) return VK_SUCCESS;
    fenns__host_buffer_destroy(ctx, b);
    VkResult r = create(ctx, b, size, usage, kind);
    if (r != VK_SUCCESS) {
        fenns__host_buffer_destroy(ctx, b);
        fenns__log(ctx, FENNS_LOG_ERROR, "fenns_host_searcher_run: %s: cannot allocate %.1f MiB of %s memory for %s",
                   fenns_result_string(fenns__from_vk(r)), (double)size / 1048576.0,
                   kind == FENNS_HOST_MEMORY_DEVICE ? "device" : "host-visible", what);
    }
    return r;
}

static VkResult sync_range(fenns_context ctx, const fenns_host_buffer *b, int flush) {
    if (!b->mapped || b->coherent) return VK_SUCCESS;
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = b->memory, .offset = 0,
                                 .size = VK_WHOLE_SIZE};
    return flush ? ctx->vk.vkFlushMappedMemoryRanges(ctx->device, 1, &range)
                 : ctx->vk.vkInvalidateMappedMemoryRanges(ctx->device, 1, &range);
}

VkResult fenns__host_buffer_flush(fenns_context ctx, const fenns_host_buffer *b) { return sync_range(ctx, b, 1); }

VkResult fenns__host_buffer_invalidate(fenns_context ctx, const fenns_host_buffer *b) { return sync_range(ctx, b, 0); }
