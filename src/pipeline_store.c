/* The pipeline store (pipeline_store.h): a context's kept pipelines, a short
 * array searched by key under a lock. */
#include "pipeline_store.h"

#include <string.h>

#include "fenns_shared.h"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
typedef pthread_mutex_t store_lock;
static int lock_init(store_lock *l) { return pthread_mutex_init(l, NULL) == 0; }
static void lock_fini(store_lock *l) { pthread_mutex_destroy(l); }
static void lock_take(store_lock *l) { pthread_mutex_lock(l); }
static void lock_give(store_lock *l) { pthread_mutex_unlock(l); }
#elif defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
typedef SRWLOCK store_lock;
static int lock_init(store_lock *l) { InitializeSRWLock(l); return 1; }
static void lock_fini(store_lock *l) { (void)l; }
static void lock_take(store_lock *l) { AcquireSRWLockExclusive(l); }
static void lock_give(store_lock *l) { ReleaseSRWLockExclusive(l); }
#else
#error "fenns needs POSIX threads or Windows for its pipeline store's lock"
#endif

typedef struct kept_pipeline {
    const uint32_t *code; /* a built-in shader's address, or `copy` */
    uint32_t *copy;       /* a kernel's SPIR-V, the store's own copy (NULL for a built-in) */
    size_t words;         /* its length */
    uint32_t values[FENNS_STORE_VALUES];
    VkPipeline pipeline;
    uint32_t users;    /* fenns_pipelines holding it */
    uint64_t last_use; /* the store's clock when it was last held or let go */
} kept_pipeline;

struct fenns_pipeline_store {
    store_lock lock;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    kept_pipeline *items;
    uint32_t count, capacity;
    uint64_t clock;
};

fenns_result fenns__store_create(struct fenns_context_T *ctx) {
    struct fenns_pipeline_store *s = fenns__alloc(ctx, sizeof *s);
    if (!s) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    memset(s, 0, sizeof *s);
    if (!lock_init(&s->lock)) {
        fenns__free(ctx, s);
        return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    }
    ctx->store = s;
    return FENNS_SUCCESS;
}

void fenns__store_destroy(struct fenns_context_T *ctx) {
    struct fenns_pipeline_store *s = ctx->store;
    if (!s) return;
    for (uint32_t i = 0; i < s->count; ++i) {
        ctx->vk.vkDestroyPipeline(ctx->device, s->items[i].pipeline, ctx->allocator);
        fenns__free(ctx, s->items[i].copy);
    }
    if (s->layout) ctx->vk.vkDestroyPipelineLayout(ctx->device, s->layout, ctx->allocator);
    if (s->set_layout) ctx->vk.vkDestroyDescriptorSetLayout(ctx->device, s->set_layout, ctx->allocator);
    fenns__free(ctx, s->items);
    lock_fini(&s->lock);
    fenns__free(ctx, s);
    ctx->store = NULL;
}

VkResult fenns__make_pipeline_layout(fenns_context ctx, const VkDescriptorSetLayout *sets, uint32_t set_count,
                                     VkPipelineLayout *out) {
    _Static_assert(sizeof(fenns_push) <= 128, "maxPushConstantsSize is at least 128 bytes");
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(fenns_push)};
    VkPipelineLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = set_count, .pSetLayouts = sets,
                                       .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    return ctx->vk.vkCreatePipelineLayout(ctx->device, &info, ctx->allocator, out);
}

static VkResult make_layouts(fenns_context ctx, struct fenns_pipeline_store *s) {
    VkDescriptorSetLayoutBinding bindings[FENNS_BINDING_COUNT];
    for (uint32_t i = 0; i < FENNS_BINDING_COUNT; ++i)
        bindings[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                     VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = ctx->push_descriptors ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR : 0u,
        .bindingCount = FENNS_BINDING_COUNT, .pBindings = bindings};
    VkDescriptorSetLayout set_layout;
    VkResult r = ctx->vk.vkCreateDescriptorSetLayout(ctx->device, &set_info, ctx->allocator, &set_layout);
    if (r != VK_SUCCESS) return r;
    VkPipelineLayout layout;
    r = fenns__make_pipeline_layout(ctx, &set_layout, 1u, &layout);
    if (r != VK_SUCCESS) {
        ctx->vk.vkDestroyDescriptorSetLayout(ctx->device, set_layout, ctx->allocator);
        return r;
    }
    s->set_layout = set_layout;
    s->layout = layout;
    return VK_SUCCESS;
}

fenns_result fenns__store_layouts(fenns_context ctx, VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout) {
    struct fenns_pipeline_store *s = ctx->store;
    lock_take(&s->lock);
    VkResult r = s->layout ? VK_SUCCESS : make_layouts(ctx, s);
    *set_layout = s->set_layout;
    *layout = s->layout;
    lock_give(&s->lock);
    if (r != VK_SUCCESS) fenns__log(ctx, FENNS_LOG_ERROR, "creating the pipeline layouts failed (VkResult %d)", (int)r);
    return fenns__from_vk(r);
}

/* A built-in shader matches by address; a kernel's SPIR-V by its words. */
static int same_shader(const kept_pipeline *k, const uint32_t *code, size_t content_words) {
    if (!content_words) return !k->copy && k->code == code;
    return k->copy && k->words == content_words && !memcmp(k->copy, code, 4u * content_words);
}

static kept_pipeline *find_key(struct fenns_pipeline_store *s, const uint32_t *code, size_t content_words,
                               const uint32_t *values) {
    for (uint32_t i = 0; i < s->count; ++i)
        if (!memcmp(s->items[i].values, values, sizeof s->items[i].values) && same_shader(&s->items[i], code, content_words))
            return &s->items[i];
    return NULL;
}

static VkPipeline hold(struct fenns_pipeline_store *s, kept_pipeline *k) {
    ++k->users;
    k->last_use = ++s->clock;
    return k->pipeline;
}

VkPipeline fenns__store_find(fenns_context ctx, const uint32_t *code, size_t content_words,
                            const uint32_t values[FENNS_STORE_VALUES]) {
    struct fenns_pipeline_store *s = ctx->store;
    lock_take(&s->lock);
    kept_pipeline *k = find_key(s, code, content_words, values);
    VkPipeline p = k ? hold(s, k) : VK_NULL_HANDLE;
    lock_give(&s->lock);
    return p;
}

fenns_result fenns__store_keep(fenns_context ctx, const uint32_t *code, size_t content_words,
                               const uint32_t values[FENNS_STORE_VALUES], VkPipeline made, VkPipeline *out) {
    struct fenns_pipeline_store *s = ctx->store;
    /* A kernel's words are copied first (the caller may free or reuse its
     * buffer); not under the lock, which guards only the array. */
    uint32_t *copy = NULL;
    if (content_words) {
        copy = fenns__alloc(ctx, 4u * content_words);
        if (!copy) {
            ctx->vk.vkDestroyPipeline(ctx->device, made, ctx->allocator);
            *out = VK_NULL_HANDLE;
            return FENNS_ERROR_OUT_OF_HOST_MEMORY;
        }
        memcpy(copy, code, 4u * content_words);
    }
    fenns_result result = FENNS_SUCCESS;
    VkPipeline surplus = VK_NULL_HANDLE;
    uint32_t *unused_copy = copy;
    lock_take(&s->lock);
    kept_pipeline *k = find_key(s, code, content_words, values);
    if (k) {
        surplus = made;
        *out = hold(s, k);
    } else {
        void *items = s->items;
        int room = fenns__grow(ctx, &items, s->count, &s->capacity, sizeof *s->items, 32u);
        s->items = items;
        if (room) {
            k = &s->items[s->count++];
            memset(k, 0, sizeof *k);
            k->code = copy ? copy : code;
            k->copy = copy;
            k->words = content_words;
            unused_copy = NULL;
            memcpy(k->values, values, sizeof k->values);
            k->pipeline = made;
            *out = hold(s, k);
        } else {
            surplus = made;
            *out = VK_NULL_HANDLE;
            result = FENNS_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    lock_give(&s->lock);
    if (surplus) ctx->vk.vkDestroyPipeline(ctx->device, surplus, ctx->allocator);
    fenns__free(ctx, unused_copy);
    return result;
}

void fenns__store_release(fenns_context ctx, VkPipeline pipeline) {
    struct fenns_pipeline_store *s = ctx->store;
    VkPipeline dropped = VK_NULL_HANDLE;
    uint32_t *dropped_copy = NULL;
    lock_take(&s->lock);
    uint32_t unused = 0, oldest = UINT32_MAX;
    for (uint32_t i = 0; i < s->count; ++i) {
        kept_pipeline *k = &s->items[i];
        if (k->pipeline == pipeline && k->users) {
            --k->users;
            k->last_use = ++s->clock;
        }
        if (!k->users) {
            ++unused;
            if (oldest == UINT32_MAX || k->last_use < s->items[oldest].last_use) oldest = i;
        }
    }
    /* One release frees at most one user, so one drop keeps the bound. */
    if (unused > FENNS_STORE_UNUSED) {
        dropped = s->items[oldest].pipeline;
        dropped_copy = s->items[oldest].copy;
        s->items[oldest] = s->items[--s->count];
    }
    lock_give(&s->lock);
    if (dropped) ctx->vk.vkDestroyPipeline(ctx->device, dropped, ctx->allocator);
    fenns__free(ctx, dropped_copy);
}
