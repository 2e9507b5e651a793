/*
 * Vulkan failures injected at every fallible Vulkan call fenns makes in a
 * context + the host sequence of fenns_test_host_sequence (a one-shot
 * fenns_host_search, then a fenns_host_searcher created, run, grown, run
 * warm with counts only), through the get_device_proc_addr the context is
 * created with:
 *   - VK_ERROR_OUT_OF_DEVICE_MEMORY from each vkCreate*, vkAllocate*, bind,
 *     map, begin/end/reset: reported as FENNS_ERROR_OUT_OF_DEVICE_MEMORY;
 *   - VK_ERROR_DEVICE_LOST from each vkQueueSubmit, vkWaitForFences and
 *     vkGetQueryPoolResults: reported as FENNS_ERROR_DEVICE_LOST.
 * Each failure is logged, every Vulkan object created is destroyed (counted
 * here, and the validation layer checks again at device destruction), the
 * same searcher gives the right result when the failed step is run again,
 * and so does the same context afterwards. A warm searcher run creates no
 * Vulkan object and calls nothing fallible but begin, end, fence reset,
 * submit, wait and the query read.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "scenes.h"

typedef enum fault { FAULT_OOM, FAULT_LOST } fault;

static struct injector {
    fault kind;
    long count;   /* fallible calls of `kind` seen */
    long fail_at; /* the call to fail; -1: none */
    int failed;
    long live;    /* Vulkan objects created and not yet destroyed */
    long created; /* Vulkan objects created in all */
} in = {FAULT_OOM, 0, -1, 0, 0, 0};

static PFN_vkGetDeviceProcAddr real_gdpa;

/* Whether this call of `kind` is the one to fail. */
static int inject(fault kind) {
    if (in.kind != kind) return 0;
    if (in.count++ != in.fail_at) return 0;
    in.failed = 1;
    return 1;
}

#define REAL(name) ((PFN_##name)real_gdpa(device, #name))

/* Creation calls: fail before the driver sees them, count what they make. */
#define WRAP_CREATE(name, Info, Handle)                                                                        \
    static VKAPI_ATTR VkResult VKAPI_CALL wrap_##name(VkDevice device, const Info *info,                       \
                                                      const VkAllocationCallbacks *alloc, Handle *out) {        \
        if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;                                           \
        VkResult r = REAL(name)(device, info, alloc, out);                                                     \
        if (r == VK_SUCCESS) in.live++, in.created++;                                                          \
        return r;                                                                                              \
    }
#define WRAP_DESTROY(name, Handle)                                                                             \
    static VKAPI_ATTR void VKAPI_CALL wrap_##name(VkDevice device, Handle h, const VkAllocationCallbacks *alloc) { \
        if (h != VK_NULL_HANDLE) in.live--;                                                                    \
        REAL(name)(device, h, alloc);                                                                          \
    }
WRAP_CREATE(vkCreateShaderModule, VkShaderModuleCreateInfo, VkShaderModule)
WRAP_DESTROY(vkDestroyShaderModule, VkShaderModule)
WRAP_CREATE(vkCreateDescriptorSetLayout, VkDescriptorSetLayoutCreateInfo, VkDescriptorSetLayout)
WRAP_DESTROY(vkDestroyDescriptorSetLayout, VkDescriptorSetLayout)
WRAP_CREATE(vkCreatePipelineLayout, VkPipelineLayoutCreateInfo, VkPipelineLayout)
WRAP_DESTROY(vkDestroyPipelineLayout, VkPipelineLayout)
WRAP_CREATE(vkCreateBuffer, VkBufferCreateInfo, VkBuffer)
WRAP_DESTROY(vkDestroyBuffer, VkBuffer)
WRAP_CREATE(vkAllocateMemory, VkMemoryAllocateInfo, VkDeviceMemory)
WRAP_DESTROY(vkFreeMemory, VkDeviceMemory)
WRAP_CREATE(vkCreateCommandPool, VkCommandPoolCreateInfo, VkCommandPool)
WRAP_DESTROY(vkDestroyCommandPool, VkCommandPool)
WRAP_CREATE(vkCreateFence, VkFenceCreateInfo, VkFence)
WRAP_DESTROY(vkDestroyFence, VkFence)
WRAP_CREATE(vkCreateQueryPool, VkQueryPoolCreateInfo, VkQueryPool)
WRAP_DESTROY(vkDestroyQueryPool, VkQueryPool)
WRAP_DESTROY(vkDestroyPipeline, VkPipeline)

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkCreateComputePipelines(VkDevice device, VkPipelineCache cache,
                                                                    uint32_t count,
                                                                    const VkComputePipelineCreateInfo *infos,
                                                                    const VkAllocationCallbacks *alloc,
                                                                    VkPipeline *out) {
    if (inject(FAULT_OOM)) {
        for (uint32_t i = 0; i < count; ++i) out[i] = VK_NULL_HANDLE; /* as the spec has drivers do */
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    VkResult r = REAL(vkCreateComputePipelines)(device, cache, count, infos, alloc, out);
    for (uint32_t i = 0; i < count; ++i) in.live += out[i] != VK_NULL_HANDLE, in.created += out[i] != VK_NULL_HANDLE;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkAllocateCommandBuffers(VkDevice device,
                                                                    const VkCommandBufferAllocateInfo *info,
                                                                    VkCommandBuffer *out) {
    if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    in.created++;
    return REAL(vkAllocateCommandBuffers)(device, info, out); /* freed with their pool */
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkBindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                              VkDeviceSize offset) {
    if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return REAL(vkBindBufferMemory)(device, buffer, memory, offset);
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkMapMemory(VkDevice device, VkDeviceMemory memory, VkDeviceSize offset,
                                                       VkDeviceSize size, VkMemoryMapFlags flags, void **data) {
    if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return REAL(vkMapMemory)(device, memory, offset, size, flags, data);
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkResetFences(VkDevice device, uint32_t count, const VkFence *fences) {
    if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return REAL(vkResetFences)(device, count, fences);
}

/* Command-buffer calls reach the driver through the dispatchable handle,
 * so the wrappers look the real ones up once. */
static PFN_vkBeginCommandBuffer real_begin;
static PFN_vkEndCommandBuffer real_end;
static PFN_vkResetCommandBuffer real_reset;
static PFN_vkQueueSubmit real_submit;

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkBeginCommandBuffer(VkCommandBuffer cmd, const VkCommandBufferBeginInfo *info) {
    if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return real_begin(cmd, info);
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkEndCommandBuffer(VkCommandBuffer cmd) {
    VkResult r = real_end(cmd); /* ended either way, so the pool can be destroyed */
    if (r == VK_SUCCESS && inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkResetCommandBuffer(VkCommandBuffer cmd, VkCommandBufferResetFlags flags) {
    if (inject(FAULT_OOM)) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return real_reset(cmd, flags);
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                         VkFence fence) {
    if (inject(FAULT_LOST)) return VK_ERROR_DEVICE_LOST; /* nothing submitted */
    return real_submit(queue, count, submits, fence);
}

/* A device lost while waiting: the real wait finishes first, so that the
 * objects fenns then destroys are no longer in use on this healthy device. */
static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkWaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
                                                           VkBool32 all, uint64_t timeout) {
    VkResult r = REAL(vkWaitForFences)(device, count, fences, all, timeout);
    if (r == VK_SUCCESS && inject(FAULT_LOST)) return VK_ERROR_DEVICE_LOST;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL wrap_vkGetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first,
                                                                 uint32_t count, size_t size, void *data,
                                                                 VkDeviceSize stride, VkQueryResultFlags flags) {
    VkResult r = REAL(vkGetQueryPoolResults)(device, pool, first, count, size, data, stride, flags);
    if (r == VK_SUCCESS && inject(FAULT_LOST)) return VK_ERROR_DEVICE_LOST;
    return r;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL injecting_gdpa(VkDevice device, const char *name) {
#define WRAPPED(fn) \
    if (!strcmp(name, #fn)) return (PFN_vkVoidFunction)wrap_##fn;
    WRAPPED(vkCreateShaderModule) WRAPPED(vkDestroyShaderModule)
    WRAPPED(vkCreateDescriptorSetLayout) WRAPPED(vkDestroyDescriptorSetLayout)
    WRAPPED(vkCreatePipelineLayout) WRAPPED(vkDestroyPipelineLayout)
    WRAPPED(vkCreateComputePipelines) WRAPPED(vkDestroyPipeline)
    WRAPPED(vkCreateBuffer) WRAPPED(vkDestroyBuffer)
    WRAPPED(vkAllocateMemory) WRAPPED(vkFreeMemory)
    WRAPPED(vkCreateCommandPool) WRAPPED(vkDestroyCommandPool)
    WRAPPED(vkCreateFence) WRAPPED(vkDestroyFence)
    WRAPPED(vkCreateQueryPool) WRAPPED(vkDestroyQueryPool)
    WRAPPED(vkAllocateCommandBuffers) WRAPPED(vkBindBufferMemory) WRAPPED(vkMapMemory) WRAPPED(vkResetFences)
    WRAPPED(vkBeginCommandBuffer) WRAPPED(vkEndCommandBuffer) WRAPPED(vkResetCommandBuffer)
    WRAPPED(vkQueueSubmit) WRAPPED(vkWaitForFences) WRAPPED(vkGetQueryPoolResults)
#undef WRAPPED
    return real_gdpa(device, name);
}

static fenns_test_gpu g;

static void end_injection(void *user) {
    (void)user;
    in.fail_at = -1;
}

/* The sequence; with recover, a failed step runs again once injection ends. */
static fenns_result search_once(fenns_context ctx, fenns_test_host_part part, const float *xyz, uint32_t n,
                                uint64_t *sum, int recover) {
    return fenns_test_host_sequence(&g, ctx, part, xyz, n, 1.0f, sum, recover ? end_injection : NULL, NULL);
}

/* A searcher's warm runs (same configuration, no more particles or list
 * entries than it has held) create no Vulkan object, and the only fallible
 * calls are begin, end and fence reset of each submission. */
static void check_warm_run(fenns_context ctx, const float *xyz, uint32_t n) {
    fenns_host_searcher s = NULL;
    fenns_host_search_info info;
    memset(&info, 0, sizeof info);
    info.radius = 1.0f;
    info.positions = xyz;
    info.particle_count = n;
    info.queue = g.queue;
    fenns_host_csr csr;
    CHECK(fenns_host_searcher_create(ctx, &s) == FENNS_SUCCESS && fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS,
          "warm check: first run");
    in.kind = FAULT_OOM;
    in.fail_at = -1;
    in.count = 0;
    long created = in.created;
    info.particle_count = n / 2u;
    fenns_result a = fenns_host_searcher_run(s, &info, &csr); /* lists: two submissions */
    info.counts_only = 1;
    fenns_result b = fenns_host_searcher_run(s, &info, &csr); /* counts: one */
    CHECK(a == FENNS_SUCCESS && b == FENNS_SUCCESS && in.created == created && in.count == 9,
          "warm runs: %s, %s, %ld objects created, %ld fallible calls (expected 0 and 9)", fenns_result_string(a),
          fenns_result_string(b), in.created - created, in.count);
    fenns_host_searcher_destroy(s);
}

static long run_faults(const fenns_context_create_info *ci, const fenns_test_sites *which, fenns_test_host_part part,
                       fault kind, fenns_result expected_result, const float *xyz, uint32_t n, uint64_t expected) {
    long sites = 0;
    in.kind = kind;
    for (long k = which->first;; k += which->stride) {
        in.count = 0;
        in.failed = 0;
        in.fail_at = k;
        g.error_messages = 0;
        fenns_context ctx;
        fenns_result r = fenns_context_create(ci, &ctx);
        uint64_t total = 0;
        if (r == FENNS_SUCCESS) {
            r = search_once(ctx, part, xyz, n, &total, 1);
            if (in.failed) {
                /* Recovered: the same searcher and context finished the
                 * sequence with the right result; else try a fresh sequence. */
                CHECK(total == expected, "the failed step at call %ld did not recover when run again", k);
                in.fail_at = -1;
                uint64_t again = 0;
                if (total != expected)
                    CHECK(search_once(ctx, part, xyz, n, &again, 0) == FENNS_SUCCESS && again == expected,
                          "context unusable after a failure at call %ld", k);
            }
            fenns_context_destroy(ctx);
        }
        CHECK(in.live == 0, "failure at call %ld leaks %ld Vulkan objects", k, in.live);
        in.live = 0;
        if (!in.failed) {
            CHECK(r == FENNS_SUCCESS && total == expected, "no failure injected but the run failed");
            break;
        }
        ++sites;
        CHECK(r == expected_result, "failure at call %ld gave %s", k, fenns_result_string(r));
        CHECK(g.error_messages >= 1, "failure at call %ld was not logged", k);
        if (r != expected_result) break;
    }
    return sites;
}

int main(int argc, char **argv) {
    fenns_test_sites which;
    if (!fenns_test_parse_sites(argc, argv, &which)) return 2;
    int oom_sites = !which.fault || !strcmp(which.fault, "oom"), lost_sites = !which.fault || !strcmp(which.fault, "lost");
    if (!oom_sites && !lost_sites) {
        fprintf(stderr, "--fault oom or lost\n");
        return 2;
    }
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    enum { N = 4000 };
    static float xyz[3 * N];
    fenns_scene_uniform(xyz, N, 7.5f); /* about 40 neighbours each at r = 1 */

    fenns_context_create_info ci;
    fenns_headless_context_info(g.headless, &ci);
    real_gdpa = ci.get_device_proc_addr ? ci.get_device_proc_addr
                                        : (PFN_vkGetDeviceProcAddr)ci.get_instance_proc_addr(ci.instance, "vkGetDeviceProcAddr");
    VkDevice device = ci.device;
    real_begin = REAL(vkBeginCommandBuffer);
    real_end = REAL(vkEndCommandBuffer);
    real_reset = REAL(vkResetCommandBuffer);
    real_submit = REAL(vkQueueSubmit);
    ci.get_device_proc_addr = injecting_gdpa;

    fenns_context ctx;
    uint64_t expected[2] = {0, 0};
    CHECK(fenns_context_create(&ci, &ctx) == FENNS_SUCCESS, "context");
    for (int part = 0; part < 2; ++part)
        CHECK(search_once(ctx, (fenns_test_host_part)part, xyz, N, &expected[part], 0) == FENNS_SUCCESS &&
                  expected[part] > N,
              "reference sequence %d (sum %llu)", part, (unsigned long long)expected[part]);
    check_warm_run(ctx, xyz, N);
    fenns_context_destroy(ctx);
    CHECK(in.live == 0, "%ld Vulkan objects left after a clean run", in.live);

    g.quiet = 1; /* the failures are logged; they are expected */
    long oom = 0, lost = 0;
    for (int part = 0; part < 2; ++part) {
        if (which.part >= 0 && part != which.part) continue;
        if (oom_sites)
            oom += run_faults(&ci, &which, (fenns_test_host_part)part, FAULT_OOM, FENNS_ERROR_OUT_OF_DEVICE_MEMORY,
                              xyz, N, expected[part]);
        if (lost_sites)
            lost += run_faults(&ci, &which, (fenns_test_host_part)part, FAULT_LOST, FENNS_ERROR_DEVICE_LOST, xyz, N,
                               expected[part]);
    }
    g.quiet = 0;
    g.error_messages = 0;
    printf("injected VK_ERROR_OUT_OF_DEVICE_MEMORY at %ld calls, VK_ERROR_DEVICE_LOST at %ld calls\n", oom, lost);
    if (oom_sites) CHECK(oom > 100 / (2 * which.stride), "only %ld calls could run out of device memory", oom);
    if (lost_sites && which.part < 0 && which.stride == 1) {
        /* Submit and wait twice per list run (four runs), once for counts
         * only, and one query read per run where the queue writes timestamps. */
        long expected_lost = 4 * 3 + 2 + (g.limits.timestamp_period_ns > 0.0f ? 4 : 0);
        CHECK(lost == expected_lost, "%ld calls could lose the device, expected %ld", lost, expected_lost);
    } else if (lost_sites) {
        CHECK(lost >= 2 / which.stride, "only %ld calls could lose the device", lost);
    }
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
