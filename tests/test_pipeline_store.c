/*
 * The pipeline store (src/pipeline_store.h): the compiled passes a context
 * keeps for its pipelines.
 *
 *  - keys: a pass is found again only for the same shader and the same
 *    specialization values;
 *  - a second compile of a kept key (two threads that missed together) is
 *    destroyed and the kept pipeline given instead;
 *  - the bound: past FENNS_STORE_UNUSED unused pipelines the longest-unused
 *    is destroyed, never one a fenns_pipeline holds;
 *  - no host memory: keep reports FENNS_ERROR_OUT_OF_HOST_MEMORY and
 *    destroys what it could not keep;
 *  - threads: eight threads finding, keeping and releasing at once leave
 *    every pipeline destroyed exactly once by the end;
 *  - destroying the store destroys every pipeline it kept;
 *  - a kernel's SPIR-V is named by its words: the same words in another
 *    buffer find its pipeline, changed or shorter words do not, the caller's
 *    buffer may change or go after keep (the store copies it), and no host
 *    memory for the copy is reported like a full store.
 * These run on a context with a fake vkDestroyPipeline (no device). Then on
 * lavapipe: two pipelines of one plan share every built-in pass, a pipeline
 * made after both are gone gets the same kept passes, and one of another
 * radius and size shares the passes its plan specializes alike, as do two
 * methods the passes both run alike; two pipelines with one kernel (its
 * SPIR-V in two buffers) share its search, unless the kernel comes with a
 * set layout of the caller's.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "pipeline.h"
#include "pipeline_store.h"

#include "fenns_kernel_sph_density.spv.h" /* fenns_add_kernel */

/* Fake pipeline handles are 1, 2, 3, ...; destroyed[h] counts their destroys. */
#define MAX_HANDLES 40000u
static unsigned destroyed[MAX_HANDLES];
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_handle = 1;

static VkPipeline new_handle(void) {
    pthread_mutex_lock(&handles_lock);
    uint64_t h = next_handle++;
    pthread_mutex_unlock(&handles_lock);
    return (VkPipeline)(uintptr_t)h;
}

static VKAPI_ATTR void VKAPI_CALL fake_destroy(VkDevice device, VkPipeline pipeline, const VkAllocationCallbacks *cb) {
    (void)device;
    (void)cb;
    uint64_t h = (uint64_t)(uintptr_t)pipeline;
    pthread_mutex_lock(&handles_lock);
    if (h < MAX_HANDLES) ++destroyed[h];
    pthread_mutex_unlock(&handles_lock);
}

static int refuse_allocations;
static void *test_alloc(void *user, size_t size, size_t alignment, VkSystemAllocationScope scope) {
    (void)user;
    (void)alignment;
    (void)scope;
    return refuse_allocations ? NULL : malloc(size);
}
static void test_free(void *user, void *memory) {
    (void)user;
    free(memory);
}
static void *test_realloc(void *user, void *memory, size_t size, size_t alignment, VkSystemAllocationScope scope) {
    (void)user;
    (void)alignment;
    (void)scope;
    return realloc(memory, size);
}

static void fake_context(struct fenns_context_T *ctx) {
    memset(ctx, 0, sizeof *ctx);
    ctx->vk.vkDestroyPipeline = fake_destroy;
    ctx->allocator_copy = (VkAllocationCallbacks){NULL, test_alloc, test_realloc, test_free, NULL, NULL};
    ctx->allocator = &ctx->allocator_copy;
    CHECK(fenns__store_create(ctx) == FENNS_SUCCESS, "store");
}

static const uint32_t code_a[1] = {1}, code_b[1] = {2};

static void key(uint32_t v[FENNS_STORE_VALUES], uint32_t first) {
    memset(v, 0, sizeof(uint32_t) * FENNS_STORE_VALUES);
    v[0] = first;
}

static unsigned destroys(VkPipeline p) { return destroyed[(uintptr_t)p]; }

static void check_keys_and_bound(void) {
    struct fenns_context_T ctx;
    fake_context(&ctx);
    uint32_t v1[FENNS_STORE_VALUES], v2[FENNS_STORE_VALUES];
    key(v1, 256);
    key(v2, 256);
    v2[FENNS_STORE_VALUES - 1] = 1;
    CHECK(fenns__store_find(&ctx, code_a, 0, v1) == VK_NULL_HANDLE, "an empty store found a pipeline");
    VkPipeline a = new_handle(), got = VK_NULL_HANDLE;
    CHECK(fenns__store_keep(&ctx, code_a, 0, v1, a, &got) == FENNS_SUCCESS && got == a, "keep");
    CHECK(fenns__store_find(&ctx, code_a, 0, v1) == a, "the kept pipeline not found again");
    CHECK(fenns__store_find(&ctx, code_a, 0, v2) == VK_NULL_HANDLE, "found under another specialization");
    CHECK(fenns__store_find(&ctx, code_b, 0, v1) == VK_NULL_HANDLE, "found under another shader");
    /* A second compile of the same key: destroyed, the first given. */
    VkPipeline twin = new_handle();
    CHECK(fenns__store_keep(&ctx, code_a, 0, v1, twin, &got) == FENNS_SUCCESS && got == a && destroys(twin) == 1,
          "a second compile of a kept key was kept (got %p)", (void *)got);
    for (int k = 0; k < 3; ++k) fenns__store_release(&ctx, a); /* keep, find, twin's keep */
    CHECK(destroys(a) == 0, "an unused pipeline destroyed within the bound");

    /* A pipeline held throughout, then FENNS_STORE_UNUSED + 8 more let go
     * one after another: the 9 longest-unused go (a first), the held one stays. */
    uint32_t vh[FENNS_STORE_VALUES];
    key(vh, 7);
    VkPipeline held = new_handle();
    CHECK(fenns__store_keep(&ctx, code_b, 0, vh, held, &got) == FENNS_SUCCESS, "keep held");
    enum { MORE = FENNS_STORE_UNUSED + 8 };
    VkPipeline made[MORE];
    for (uint32_t i = 0; i < MORE; ++i) {
        uint32_t v[FENNS_STORE_VALUES];
        key(v, 1000u + i);
        made[i] = new_handle();
        CHECK(fenns__store_keep(&ctx, code_a, 0, v, made[i], &got) == FENNS_SUCCESS && got == made[i], "keep %u", i);
        fenns__store_release(&ctx, made[i]);
    }
    CHECK(destroys(a) == 1, "the longest-unused pipeline was not destroyed past the bound");
    for (uint32_t i = 0; i < MORE; ++i)
        CHECK(destroys(made[i]) == (i < 8u ? 1u : 0u), "pipeline %u of the bound destroyed %u times", i, destroys(made[i]));
    CHECK(destroys(held) == 0, "a held pipeline was destroyed");
    /* A kept unused key is found again and held, so the next drop passes it by. */
    uint32_t v_last[FENNS_STORE_VALUES];
    key(v_last, 1000u + 8u);
    CHECK(fenns__store_find(&ctx, code_a, 0, v_last) == made[8], "an unused kept pipeline not found");

    /* No host memory for a larger array: reported, and the new pipeline destroyed. */
    /* (held, made[8] and 63 unused kept: the array, 32 at first, holds 128.) */
    refuse_allocations = 1;
    VkPipeline extra[80];
    fenns_result r = FENNS_SUCCESS;
    uint32_t tried = 0;
    for (; tried < 80u && r == FENNS_SUCCESS; ++tried) {
        uint32_t v[FENNS_STORE_VALUES];
        key(v, 5000u + tried);
        extra[tried] = new_handle();
        r = fenns__store_keep(&ctx, code_b, 0, v, extra[tried], &got);
    }
    refuse_allocations = 0;
    CHECK(r == FENNS_ERROR_OUT_OF_HOST_MEMORY && got == VK_NULL_HANDLE && destroys(extra[tried - 1u]) == 1,
          "a store that cannot grow: %s after %u keeps", fenns_result_string(r), tried);
    for (uint32_t i = 0; i + 1u < tried; ++i) fenns__store_release(&ctx, extra[i]);

    fenns__store_destroy(&ctx);
    CHECK(ctx.store == NULL, "store not cleared");
    CHECK(destroys(held) == 1 && destroys(made[8]) == 1, "destroying the store left pipelines");
    for (uint64_t h = 1; h < next_handle; ++h)
        CHECK(destroyed[h] == 1, "pipeline %llu destroyed %u times", (unsigned long long)h, destroyed[h]);
}

static void check_content_keys(void) {
    struct fenns_context_T ctx;
    fake_context(&ctx);
    uint32_t v[FENNS_STORE_VALUES];
    key(v, 3);
    enum { WORDS = 64 };
    uint32_t words[WORDS];
    for (uint32_t i = 0; i < WORDS; ++i) words[i] = 0x07230203u + 977u * i;
    uint32_t *caller = malloc(sizeof words);
    if (!caller) {
        CHECK(0, "malloc");
        return;
    }
    memcpy(caller, words, sizeof words);
    VkPipeline k = new_handle(), got = VK_NULL_HANDLE;
    CHECK(fenns__store_keep(&ctx, caller, WORDS, v, k, &got) == FENNS_SUCCESS && got == k, "keep a kernel");
    caller[10] ^= 1u; /* the caller's buffer, reused */
    CHECK(fenns__store_find(&ctx, caller, WORDS, v) == VK_NULL_HANDLE, "other words found the kept kernel");
    free(caller);
    CHECK(fenns__store_find(&ctx, words, WORDS, v) == k, "the kernel's words in another buffer not found");
    CHECK(fenns__store_find(&ctx, words, WORDS - 1u, v) == VK_NULL_HANDLE, "a shorter kernel found");
    CHECK(fenns__store_find(&ctx, words, 0, v) == VK_NULL_HANDLE, "a built-in key found a kernel");
    uint32_t v2[FENNS_STORE_VALUES];
    key(v2, 4);
    CHECK(fenns__store_find(&ctx, words, WORDS, v2) == VK_NULL_HANDLE, "a kernel found under another specialization");
    fenns__store_release(&ctx, k);
    fenns__store_release(&ctx, k);
    /* No host memory for the copy: reported, and the new pipeline destroyed. */
    refuse_allocations = 1;
    VkPipeline k2 = new_handle();
    fenns_result r = fenns__store_keep(&ctx, words, WORDS, v2, k2, &got);
    refuse_allocations = 0;
    CHECK(r == FENNS_ERROR_OUT_OF_HOST_MEMORY && got == VK_NULL_HANDLE && destroys(k2) == 1,
          "no memory for a kernel's copy: %s", fenns_result_string(r));
    CHECK(fenns__store_find(&ctx, words, WORDS, v2) == VK_NULL_HANDLE, "a kernel kept without its copy");
    fenns__store_destroy(&ctx);
    CHECK(destroys(k) == 1, "destroying the store left the kernel's pipeline");
}

/* Threads: each round finds one of five keys, compiles (a new handle) and
 * keeps it on a miss, then lets go. */
static struct fenns_context_T shared_ctx;
static void *hammer(void *arg) {
    uint32_t seed = (uint32_t)(uintptr_t)arg;
    for (int round = 0; round < 3000; ++round) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t v[FENNS_STORE_VALUES];
        key(v, (seed >> 16) % 5u);
        VkPipeline p = fenns__store_find(&shared_ctx, code_a, 0, v);
        if (!p && fenns__store_keep(&shared_ctx, code_a, 0, v, new_handle(), &p) != FENNS_SUCCESS) return (void *)1;
        fenns__store_release(&shared_ctx, p);
    }
    return NULL;
}

static void check_threads(void) {
    uint64_t first = next_handle;
    fake_context(&shared_ctx);
    pthread_t t[8];
    int started[8] = {0};
    for (uintptr_t i = 0; i < 8u; ++i) started[i] = pthread_create(&t[i], NULL, hammer, (void *)(i + 1u)) == 0;
    for (int i = 0; i < 8; ++i) {
        void *ret = NULL;
        if (started[i]) pthread_join(t[i], &ret);
        CHECK(started[i] && ret == NULL, "thread %d", i);
    }
    uint64_t live = 0;
    for (uint64_t h = first; h < next_handle; ++h) live += destroyed[h] == 0;
    CHECK(live == 5u, "%llu pipelines kept for 5 keys", (unsigned long long)live);
    fenns__store_destroy(&shared_ctx);
    for (uint64_t h = first; h < next_handle; ++h)
        CHECK(destroyed[h] == 1, "pipeline %llu destroyed %u times", (unsigned long long)h, destroyed[h]);
}

/* A pipeline of `method` for radius and n; with `kernel`, its search too. */
static fenns_pipeline make_pipeline(fenns_context ctx, fenns_method method, float radius, uint32_t n,
                                    const fenns_kernel_info *kernel) {
    fenns_pipeline_create_info pci;
    memset(&pci, 0, sizeof pci);
    pci.method = method;
    pci.radius = radius;
    pci.max_particles = n;
    pci.kernel = kernel;
    fenns_pipeline p = NULL;
    CHECK(fenns_pipeline_create(ctx, &pci, &p) == FENNS_SUCCESS, "%s pipeline r=%g n=%u%s", fenns_method_name(method),
          (double)radius, n, kernel ? " with a kernel" : "");
    return p;
}

static fenns_pipeline make(fenns_context ctx, float radius, uint32_t n) {
    return make_pipeline(ctx, FENNS_METHOD_FENNS, radius, n, NULL);
}

static fenns_pipeline make_with_kernel(fenns_context ctx, const uint32_t *spirv, size_t bytes,
                                       VkDescriptorSetLayout user_set_layout) {
    fenns_kernel_info kernel = {spirv, bytes, user_set_layout};
    return make_pipeline(ctx, FENNS_METHOD_FENNS, 1.0f, 100000u, &kernel);
}

/* One kernel, its SPIR-V in two buffers: the search compiled once; with a
 * set layout of the caller's, compiled for its pipeline. */
static void check_gpu_kernels(const fenns_test_gpu *g) {
    uint32_t *second = malloc(sizeof fenns_kernel_sph_density);
    VkDescriptorSetLayoutBinding b = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 1, &b};
    VkDescriptorSetLayout user = VK_NULL_HANDLE;
    if (!second || vkCreateDescriptorSetLayout(g->device, &li, NULL, &user) != VK_SUCCESS) {
        CHECK(0, "test setup");
        free(second);
        return;
    }
    memcpy(second, fenns_kernel_sph_density, sizeof fenns_kernel_sph_density);
    fenns_pipeline a = make_with_kernel(g->context, fenns_kernel_sph_density, sizeof fenns_kernel_sph_density, VK_NULL_HANDLE);
    fenns_pipeline b2 = make_with_kernel(g->context, second, sizeof fenns_kernel_sph_density, VK_NULL_HANDLE);
    free(second);
    fenns_pipeline c = make_with_kernel(g->context, fenns_kernel_sph_density, sizeof fenns_kernel_sph_density, user);
    if (a && b2 && c) {
        VkPipeline k = a->pipelines[FENNS_PASS_search_kernel];
        CHECK(k != VK_NULL_HANDLE && b2->pipelines[FENNS_PASS_search_kernel] == k,
              "one kernel's search compiled twice");
        CHECK(c->pipelines[FENNS_PASS_search_kernel] != VK_NULL_HANDLE && c->pipelines[FENNS_PASS_search_kernel] != k &&
                  c->pipelines[FENNS_PASS_search] == a->pipelines[FENNS_PASS_search],
              "a kernel with the caller's set layout took the kept search, or its built-in passes were not shared");
        fenns_pipeline_destroy(a);
        fenns_pipeline_destroy(b2);
        a = b2 = NULL;
        fenns_pipeline again = make_with_kernel(g->context, fenns_kernel_sph_density, sizeof fenns_kernel_sph_density,
                                                VK_NULL_HANDLE);
        CHECK(again && again->pipelines[FENNS_PASS_search_kernel] == k, "a kernel made again was compiled again");
        fenns_pipeline_destroy(again);
    }
    fenns_pipeline_destroy(a);
    fenns_pipeline_destroy(b2);
    fenns_pipeline_destroy(c);
    vkDestroyDescriptorSetLayout(g->device, user, NULL);
}

static void check_gpu(void) {
    fenns_test_gpu g;
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) {
        ++failures;
        return;
    }
    fenns_pipeline p1 = make(g.context, 1.0f, 100000u), p2 = make(g.context, 1.0f, 100000u);
    if (p1 && p2) {
        unsigned made = 0;
        for (int pass = 0; pass < FENNS_PASS_COUNT; ++pass) {
            made += p1->pipelines[pass] != VK_NULL_HANDLE;
            CHECK(p1->pipelines[pass] == p2->pipelines[pass], "pass %s not shared", fenns__pass_name((fenns_pass)pass));
        }
        CHECK(made >= 15u && p1->layout == p2->layout, "%u passes, layouts %s", made,
              p1->layout == p2->layout ? "shared" : "not shared");
        VkPipeline search = p1->pipelines[FENNS_PASS_search];
        fenns_pipeline_destroy(p1);
        fenns_pipeline_destroy(p2);
        p1 = make(g.context, 1.0f, 100000u);
        CHECK(p1 && p1->pipelines[FENNS_PASS_search] == search, "a pipeline made again compiled its search again");
        /* Another radius and size: the build's scans and the search share
         * their specialization, so their kept passes. */
        p2 = make(g.context, 0.25f, 5000u);
        CHECK(p1 && p2 && p2->pipelines[FENNS_PASS_scan_block] == p1->pipelines[FENNS_PASS_scan_block] &&
                  p2->pipelines[FENNS_PASS_search_count] == p1->pipelines[FENNS_PASS_search_count],
              "plans of another radius and size share no pass");
        /* The windowed fill where CSR lists may pass a binding (10^5
         * particles: up to 10^10 entries), not for 5000 (2.5 * 10^7 entries,
         * within lavapipe's 2^25 and a GPU's 2^30 - 4). */
        CHECK(p1 && p2 && p1->pipelines[FENNS_PASS_search_windowed] && p1->pipelines[FENNS_PASS_search_windowed_local9] &&
                  !p2->pipelines[FENNS_PASS_search_windowed] && !p2->pipelines[FENNS_PASS_search_windowed_local7],
              "the windowed fill made where it cannot run, or not made where it can");
    }
    fenns_pipeline_destroy(p1);
    fenns_pipeline_destroy(p2);
    /* Methods: the passes every method runs alike are one key, not one per
     * method (a test that cycles through the methods would else outgrow the
     * bound and compile everything again each time). */
    p1 = make(g.context, 1.0f, 100000u);
    p2 = make_pipeline(g.context, FENNS_METHOD_COUNTING, 1.0f, 100000u, NULL);
    CHECK(p1 && p2 && p1->pipelines[FENNS_PASS_scan_block] == p2->pipelines[FENNS_PASS_scan_block] &&
              p1->pipelines[FENNS_PASS_grid_setup] == p2->pipelines[FENNS_PASS_grid_setup],
          "fenns and counting compiled their scans or grid setup each");
    fenns_pipeline_destroy(p1);
    fenns_pipeline_destroy(p2);
    check_gpu_kernels(&g);
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
}

int main(int argc, char **argv) {
    check_keys_and_bound();
    check_content_keys();
    check_threads();
    if (argc < 2 || strcmp(argv[1], "--no-gpu")) check_gpu();
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
