/* fenns_descriptor_arena: a list of descriptor pools, each with room for
 * SETS_PER_POOL pass sets. Sets are never freed one by one; a reset returns
 * every pool at once, which is what lets a recording write each set once and
 * never touch it while a command buffer may still use it. */
#include <string.h>

#include "descriptor_arena.h"
#include "fenns_shared.h"

/* About ten frames of one build and one search (~25 dispatches each). */
#define SETS_PER_POOL 256u

struct fenns_descriptor_arena_T {
    fenns_context ctx;
    VkDescriptorPool *pools;
    uint32_t pool_count, pool_capacity;
    uint32_t current; /* the pool sets come from; earlier ones are full */
    uint64_t failures;
    int failure_logged; /* since the last reset: one message, not one per pass */
};

static VkResult add_pool(fenns_descriptor_arena a) {
    void *pools = a->pools;
    if (!fenns__grow(a->ctx, &pools, a->pool_count, &a->pool_capacity, sizeof *a->pools, 4u))
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    a->pools = pools;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SETS_PER_POOL * FENNS_BINDING_COUNT};
    VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = SETS_PER_POOL, .poolSizeCount = 1, .pPoolSizes = &size};
    VkResult r = a->ctx->vk.vkCreateDescriptorPool(a->ctx->device, &info, a->ctx->allocator, &a->pools[a->pool_count]);
    if (r == VK_SUCCESS) a->pool_count++;
    return r;
}

fenns_result fenns_descriptor_arena_create(fenns_context context, fenns_descriptor_arena *out_arena) {
    if (out_arena) *out_arena = NULL;
    if (!context || !out_arena) return FENNS_ERROR_INVALID_ARGUMENT;
    fenns_descriptor_arena a = fenns__alloc(context, sizeof *a);
    if (!a) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    memset(a, 0, sizeof *a);
    a->ctx = context;
    /* With push descriptors the arena stays empty: nothing will draw on it. */
    VkResult r = context->push_descriptors ? VK_SUCCESS : add_pool(a);
    if (r != VK_SUCCESS) {
        fenns__log(context, FENNS_LOG_ERROR, "fenns_descriptor_arena_create: vkCreateDescriptorPool failed (%d)", (int)r);
        fenns_descriptor_arena_destroy(a);
        return fenns__from_vk(r);
    }
    *out_arena = a;
    return FENNS_SUCCESS;
}

void fenns_descriptor_arena_reset(fenns_descriptor_arena a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->pool_count; ++i) a->ctx->vk.vkResetDescriptorPool(a->ctx->device, a->pools[i], 0);
    a->current = 0;
    a->failure_logged = 0;
}

void fenns_descriptor_arena_destroy(fenns_descriptor_arena a) {
    if (!a) return;
    for (uint32_t i = 0; i < a->pool_count; ++i)
        a->ctx->vk.vkDestroyDescriptorPool(a->ctx->device, a->pools[i], a->ctx->allocator);
    fenns__free(a->ctx, a->pools);
    fenns__free(a->ctx, a);
}

static VkDescriptorSet fail(fenns_descriptor_arena a, const char *call, VkResult r) {
    a->failures++;
    if (a->failure_logged) return VK_NULL_HANDLE;
    a->failure_logged = 1;
    fenns__log(a->ctx, FENNS_LOG_ERROR,
               "descriptor arena: no set for a pass (%s: %d); the recording stops and its status reads incomplete",
               call, (int)r);
    return VK_NULL_HANDLE;
}

VkDescriptorSet fenns__arena_set(fenns_descriptor_arena a, VkDescriptorSetLayout layout) {
    VkDescriptorSetAllocateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorSetCount = 1, .pSetLayouts = &layout};
    for (int fresh = 0;;) {
        if (a->current == a->pool_count) {
            VkResult made = add_pool(a);
            if (made != VK_SUCCESS) return fail(a, "vkCreateDescriptorPool", made);
            fresh = 1;
        }
        VkDescriptorSet set = VK_NULL_HANDLE;
        info.descriptorPool = a->pools[a->current];
        VkResult r = a->ctx->vk.vkAllocateDescriptorSets(a->ctx->device, &info, &set);
        if (r == VK_SUCCESS) return set;
        /* A new pool that cannot give one set is not full: give up. */
        if (fresh) return fail(a, "vkAllocateDescriptorSets", r);
        /* Full (VK_ERROR_OUT_OF_POOL_MEMORY, or FRAGMENTED_POOL): the next pool. */
        a->current++;
    }
}

uint64_t fenns__arena_failures(const struct fenns_descriptor_arena_T *a) { return a ? a->failures : 0u; }
