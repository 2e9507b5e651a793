/* GPU test helper; see gpu_test.h. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* RTLD_NOLOAD; setenv */
#elif !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif
#include "gpu_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <dlfcn.h>
#endif

/* The validation layer of Debian 12 (1.3.239) leaks a few hundred bytes per
 * queue submission when synchronization validation is on. Under
 * AddressSanitizer the tests keep the layer mapped until exit (see
 * pin_validation_layer) so that LeakSanitizer can name it, and suppress it
 * here; leaks of fenns itself are still reported. */
#if defined(__SANITIZE_ADDRESS__)
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libVkLayer_khronos_validation.so\n";
}
#endif

static void pin_validation_layer(void)
{
#if defined(__SANITIZE_ADDRESS__) && defined(__linux__)
    /* Takes a reference only if the loader has it loaded; never released. */
    (void)dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NOLOAD);
#endif
}

/* Generous: lavapipe runs million-particle searches on the CPU. */
#define FENNS_TEST_FENCE_TIMEOUT_NS (600ull * 1000000000ull)

const char *fenns_test_vk_result_name(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_UNKNOWN: return "VK_ERROR_UNKNOWN";
    default: return "VkResult";
    }
}

void fenns_test_log(fenns_log_level level, const char *message, void *user_data)
{
    fenns_test_gpu *g = user_data;
    const char *tag = "info";
    if (level == FENNS_LOG_ERROR) {
        if (strncmp(message, "validation: ", 12) == 0) {
            tag = "";
            /* A driver saying it ran out of host memory (allocation-failure
             * tests provoke that) is a report, not a misuse of Vulkan. */
            if (g && strstr(message, "VK_ERROR_OUT_OF_HOST_MEMORY") && strstr(message, "[../src/"))
                g->driver_oom_messages++;
            else if (g)
                g->validation_messages++;
        } else {
            tag = "error: ";
            if (g) {
                g->error_messages++;
                snprintf(g->last_error, sizeof g->last_error, "%s", message);
            }
        }
    } else if (level == FENNS_LOG_WARNING) {
        tag = "warning: ";
        if (g)
            g->warning_messages++;
    } else {
        tag = "info: ";
    }
    if (!g || !g->quiet)
        fprintf(stderr, "gpu_test: %s%s\n", tag, message);
}

static fenns_result open_gpu(fenns_test_gpu *g, uint32_t shared_memory_budget, int pipeline_statistics)
{
    if (!g)
        return FENNS_ERROR_INVALID_ARGUMENT;
    memset(g, 0, sizeof *g);

    fenns_headless_create_info hci;
    memset(&hci, 0, sizeof hci);
    hci.use_device_index = 0;  /* FENNS_DEVICE, else by type */
    hci.enable_validation = 1; /* always: any message fails the test */
    hci.log = fenns_test_log;
    hci.log_user_data = g;
    hci.shared_memory_budget = shared_memory_budget;
    hci.pipeline_statistics = pipeline_statistics;
    fenns_result fr = fenns_headless_create(&hci, &g->headless);
    if (fr != FENNS_SUCCESS) {
        fprintf(stderr, "gpu_test: fenns_headless_create failed (%d)\n", (int)fr);
        return fr;
    }
    pin_validation_layer();
    g->physical_device = fenns_headless_physical_device(g->headless);
    g->device = fenns_headless_device(g->headless);
    g->queue = fenns_headless_queue(g->headless);
    g->queue_family = fenns_headless_queue_family(g->headless);
    vkGetPhysicalDeviceMemoryProperties(g->physical_device, &g->memory_properties);

    fenns_context_create_info cci;
    fenns_headless_context_info(g->headless, &cci);
    fr = fenns_context_create(&cci, &g->context);
    if (fr != FENNS_SUCCESS) {
        fprintf(stderr, "gpu_test: fenns_context_create failed: %s\n", fenns_result_string(fr));
        fenns_test_gpu_close(g);
        return fr;
    }
    fenns_context_get_limits(g->context, &g->limits);
    fr = fenns_descriptor_arena_create(g->context, &g->arena);
    if (fr != FENNS_SUCCESS) {
        fprintf(stderr, "gpu_test: fenns_descriptor_arena_create failed: %s\n", fenns_result_string(fr));
        fenns_test_gpu_close(g);
        return fr;
    }

    VkCommandPoolCreateInfo pci;
    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pci.queueFamilyIndex = g->queue_family;
    VkResult r = vkCreateCommandPool(g->device, &pci, NULL, &g->command_pool);
    if (r != VK_SUCCESS) {
        g->command_pool = VK_NULL_HANDLE;
        fprintf(stderr, "gpu_test: vkCreateCommandPool failed: %s\n", fenns_test_vk_result_name(r));
        fenns_test_gpu_close(g);
        return FENNS_ERROR_VULKAN;
    }
    fprintf(stderr, "gpu_test: %s, subgroup %u, shared memory budget %u, %s\n", g->limits.device_name,
            g->limits.subgroup_size, g->limits.shared_memory_budget,
            fenns_context_uses_push_descriptors(g->context) ? "push descriptors" : "descriptor sets");
    return FENNS_SUCCESS;
}

fenns_result fenns_test_gpu_open(fenns_test_gpu *g, uint32_t shared_memory_budget)
{
    return open_gpu(g, shared_memory_budget, 0);
}

fenns_result fenns_test_gpu_open_statistics(fenns_test_gpu *g) { return open_gpu(g, 0, 1); }

uint32_t fenns_test_gpu_close(fenns_test_gpu *g)
{
    if (!g)
        return 0;
    if (g->device)
        (void)vkDeviceWaitIdle(g->device);
    if (g->command_pool)
        vkDestroyCommandPool(g->device, g->command_pool, NULL);
    fenns_descriptor_arena_destroy(g->arena);
    g->arena = NULL;
    fenns_context_destroy(g->context);
    /* Validation reports leaked objects while the device is destroyed; the
     * logger (user data g) still counts them. */
    fenns_headless_destroy(g->headless);
    g->command_pool = VK_NULL_HANDLE;
    g->context = NULL;
    g->headless = NULL;
    g->device = VK_NULL_HANDLE;
    g->queue = VK_NULL_HANDLE;
    if (g->validation_messages)
        fprintf(stderr, "gpu_test: %u validation message%s\n", g->validation_messages,
                g->validation_messages == 1 ? "" : "s");
    if (g->error_messages)
        fprintf(stderr, "gpu_test: %u unexpected library error%s\n", g->error_messages,
                g->error_messages == 1 ? "" : "s");
    return g->validation_messages + g->error_messages;
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

static int find_memory_type(const VkPhysicalDeviceMemoryProperties *props, uint32_t type_bits,
                            VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred, uint32_t *out)
{
    for (int pass = 0; pass < 2; ++pass) {
        VkMemoryPropertyFlags want = pass == 0 ? required | preferred : required;
        for (uint32_t i = 0; i < props->memoryTypeCount; ++i) {
            if ((type_bits & (1u << i)) && (props->memoryTypes[i].propertyFlags & want) == want) {
                *out = i;
                return 1;
            }
        }
    }
    return 0;
}

VkResult fenns_test_buffer_create(fenns_test_gpu *g, VkDeviceSize size, VkBufferUsageFlags usage,
                                  fenns_test_memory memory, fenns_test_buffer *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0)
        size = 4;

    VkBufferCreateInfo bci;
    memset(&bci, 0, sizeof bci);
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = size;
    bci.usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkResult r = vkCreateBuffer(g->device, &bci, NULL, &buffer);
    if (r != VK_SUCCESS)
        return r;

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->device, buffer, &req);
    VkMemoryPropertyFlags required = 0, preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (memory == FENNS_TEST_HOST_VISIBLE) {
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT; /* tests read back a lot */
    }
    uint32_t type = 0;
    if (!find_memory_type(&g->memory_properties, req.memoryTypeBits, required, preferred, &type)) {
        vkDestroyBuffer(g->device, buffer, NULL);
        return VK_ERROR_FEATURE_NOT_PRESENT;
    }

    VkMemoryAllocateInfo mai;
    memset(&mai, 0, sizeof mai);
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    r = vkAllocateMemory(g->device, &mai, NULL, &mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(g->device, buffer, NULL);
        return r;
    }
    r = vkBindBufferMemory(g->device, buffer, mem, 0);
    void *mapped = NULL;
    if (r == VK_SUCCESS && memory == FENNS_TEST_HOST_VISIBLE)
        r = vkMapMemory(g->device, mem, 0, VK_WHOLE_SIZE, 0, &mapped);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(g->device, buffer, NULL);
        vkFreeMemory(g->device, mem, NULL);
        return r;
    }
    out->buffer = buffer;
    out->memory = mem;
    out->size = size;
    out->mapped = mapped;
    return VK_SUCCESS;
}

void fenns_test_buffer_destroy(fenns_test_gpu *g, fenns_test_buffer *b)
{
    if (!g || !b)
        return;
    if (b->buffer)
        vkDestroyBuffer(g->device, b->buffer, NULL);
    if (b->memory)
        vkFreeMemory(g->device, b->memory, NULL); /* unmaps implicitly */
    memset(b, 0, sizeof *b);
}

fenns_buffer_range fenns_test_range(const fenns_test_buffer *b, VkDeviceSize offset, VkDeviceSize range)
{
    fenns_buffer_range r;
    r.buffer = b->buffer;
    r.offset = offset;
    r.range = range == VK_WHOLE_SIZE ? b->size - offset : range;
    return r;
}

fenns_search_info fenns_test_search_of(const fenns_build_info *build, fenns_output_flags outputs)
{
    fenns_search_info s;
    memset(&s, 0, sizeof s);
    s.descriptors = build->descriptors;
    s.particle_count = build->particle_count;
    s.positions = build->positions;
    s.scratch = build->scratch;
    s.outputs = outputs;
    return s;
}

/* ------------------------------------------------------------------------ */
/* Command buffers                                                          */
/* ------------------------------------------------------------------------ */

VkResult fenns_test_begin(fenns_test_gpu *g, VkCommandBuffer *out_cmd)
{
    *out_cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo ai;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = g->command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkResult r = vkAllocateCommandBuffers(g->device, &ai, &cmd);
    if (r != VK_SUCCESS)
        return r;
    VkCommandBufferBeginInfo bi;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    r = vkBeginCommandBuffer(cmd, &bi);
    if (r != VK_SUCCESS) {
        vkFreeCommandBuffers(g->device, g->command_pool, 1, &cmd);
        return r;
    }
    *out_cmd = cmd;
    return VK_SUCCESS;
}

VkResult fenns_test_submit(fenns_test_gpu *g, VkCommandBuffer cmd)
{
    VkResult r = vkEndCommandBuffer(cmd);
    VkFence fence = VK_NULL_HANDLE;
    if (r == VK_SUCCESS) {
        VkFenceCreateInfo fci;
        memset(&fci, 0, sizeof fci);
        fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        r = vkCreateFence(g->device, &fci, NULL, &fence);
    }
    if (r == VK_SUCCESS) {
        VkSubmitInfo si;
        memset(&si, 0, sizeof si);
        si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        r = vkQueueSubmit(g->queue, 1, &si, fence);
        if (r == VK_SUCCESS)
            r = vkWaitForFences(g->device, 1, &fence, VK_TRUE, FENNS_TEST_FENCE_TIMEOUT_NS);
        if (r != VK_SUCCESS) /* the command buffer may still be pending */
            (void)vkDeviceWaitIdle(g->device);
        vkDestroyFence(g->device, fence, NULL);
        fenns_descriptor_arena_reset(g->arena); /* its sets' command buffer is done */
    }
    vkFreeCommandBuffers(g->device, g->command_pool, 1, &cmd);
    if (r != VK_SUCCESS)
        fprintf(stderr, "gpu_test: submit failed: %s (%d)\n", fenns_test_vk_result_name(r), (int)r);
    return r;
}

void fenns_test_cmd_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier barrier;
    memset(&barrier, 0, sizeof barrier);
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, NULL,
                         0, NULL);
}

/* ------------------------------------------------------------------------ */
/* Upload / download                                                        */
/* ------------------------------------------------------------------------ */

/* Copies between a device buffer and a temporary mapped one. */
static VkResult staged_copy(fenns_test_gpu *g, VkBuffer device_buffer, VkDeviceSize offset, const void *upload,
                            void *download, VkDeviceSize size)
{
    fenns_test_buffer staging;
    VkResult r = fenns_test_buffer_create(g, size, 0, FENNS_TEST_HOST_VISIBLE, &staging);
    if (r != VK_SUCCESS)
        return r;
    int to_device = upload != NULL;
    if (to_device)
        memcpy(staging.mapped, upload, (size_t)size);

    VkCommandBuffer cmd;
    r = fenns_test_begin(g, &cmd);
    if (r != VK_SUCCESS) {
        fenns_test_buffer_destroy(g, &staging);
        return r;
    }
    VkBufferCopy region;
    region.srcOffset = to_device ? 0 : offset;
    region.dstOffset = to_device ? offset : 0;
    region.size = size;
    fenns_test_cmd_barrier(cmd); /* earlier submissions' accesses -> this copy */
    if (to_device)
        vkCmdCopyBuffer(cmd, staging.buffer, device_buffer, 1, &region);
    else
        vkCmdCopyBuffer(cmd, device_buffer, staging.buffer, 1, &region);
    fenns_test_cmd_barrier(cmd); /* the copy -> host reads and later submissions */
    r = fenns_test_submit(g, cmd);
    if (r == VK_SUCCESS && !to_device && download)
        memcpy(download, staging.mapped, (size_t)size);
    fenns_test_buffer_destroy(g, &staging);
    return r;
}

static VkResult range_error(const char *what, VkDeviceSize offset, VkDeviceSize size, VkDeviceSize buffer_size)
{
    fprintf(stderr, "gpu_test: %s: bytes [%llu, +%llu) outside a buffer of %llu\n", what,
            (unsigned long long)offset, (unsigned long long)size, (unsigned long long)buffer_size);
    return VK_ERROR_UNKNOWN;
}

VkResult fenns_test_upload(fenns_test_gpu *g, fenns_test_buffer *dst, VkDeviceSize offset, const void *data,
                           VkDeviceSize size)
{
    if (size == 0)
        return VK_SUCCESS;
    if (offset > dst->size || size > dst->size - offset)
        return range_error("fenns_test_upload", offset, size, dst->size);
    if (dst->mapped) {
        memcpy((char *)dst->mapped + offset, data, (size_t)size);
        return VK_SUCCESS;
    }
    return staged_copy(g, dst->buffer, offset, data, NULL, size);
}

VkResult fenns_test_download(fenns_test_gpu *g, const fenns_test_buffer *src, VkDeviceSize offset, void *data,
                             VkDeviceSize size)
{
    if (size == 0)
        return VK_SUCCESS;
    if (offset > src->size || size > src->size - offset)
        return range_error("fenns_test_download", offset, size, src->size);
    if (src->mapped) {
        memcpy(data, (const char *)src->mapped + offset, (size_t)size);
        return VK_SUCCESS;
    }
    return staged_copy(g, src->buffer, offset, NULL, data, size);
}

/* One step of the host sequence: a searcher run (searcher given) or the
 * one-shot call; adds the total and a checksum of the lists to *sum. */
static fenns_result host_step(const fenns_test_gpu *g, fenns_context ctx, fenns_host_searcher searcher,
                              const float *xyz, uint32_t n, float radius, int counts_only, uint64_t *sum) {
    fenns_host_search_info info;
    memset(&info, 0, sizeof info);
    info.radius = radius;
    info.positions = xyz;
    info.particle_count = n;
    info.queue = g->queue;
    info.counts_only = counts_only;
    fenns_host_csr csr;
    fenns_result r = searcher ? fenns_host_searcher_run(searcher, &info, &csr) : fenns_host_search(ctx, &info, &csr);
    if (r == FENNS_SUCCESS) {
        uint64_t s = csr.total;
        for (uint64_t k = 0; k < csr.total && csr.indices; ++k) s += (k + 1u) * csr.indices[k];
        *sum += s;
    }
    fenns_host_csr_free(ctx, &csr);
    return r;
}

fenns_result fenns_test_host_sequence(const fenns_test_gpu *g, fenns_context ctx, fenns_test_host_part part,
                                      const float *xyz, uint32_t n, float radius, uint64_t *sum,
                                      void (*recover)(void *), void *user) {
    fenns_result first = FENNS_SUCCESS, r;
    fenns_host_searcher s = NULL;
    *sum = 0;
    /* Each step once more after a failure when recover() is given: a failed
     * call must leave the searcher and the context usable. */
#define HOST_STEP_(call)                                             \
    do {                                                             \
        r = (call);                                                  \
        if (r != FENNS_SUCCESS && first == FENNS_SUCCESS) first = r; \
        if (r != FENNS_SUCCESS && recover) {                         \
            recover(user);                                           \
            r = (call);                                              \
        }                                                            \
        if (r != FENNS_SUCCESS) goto done;                           \
    } while (0)
    if (part == FENNS_TEST_HOST_ONE_SHOT) {
        HOST_STEP_(host_step(g, ctx, NULL, xyz, n / 2u, radius, 0, sum));
    } else {
        HOST_STEP_(fenns_host_searcher_create(ctx, &s));
        HOST_STEP_(host_step(g, ctx, s, xyz, n / 2u, radius, 0, sum));
        HOST_STEP_(host_step(g, ctx, s, xyz, n, 1.5f * radius, 0, sum));
        HOST_STEP_(host_step(g, ctx, s, xyz, n / 2u, 1.5f * radius, 1, sum));
    }
#undef HOST_STEP_
done:
    fenns_host_searcher_destroy(s);
    return first != FENNS_SUCCESS ? first : r;
}

int fenns_test_parse_sites(int argc, char **argv, fenns_test_sites *sites) {
    sites->part = -1;
    sites->first = 0;
    sites->stride = 1;
    sites->fault = NULL;
    for (int a = 1; a < argc; ++a) {
        int ok = a + 1 < argc;
        if (ok && !strcmp(argv[a], "--part")) {
            char *end;
            long p = strtol(argv[++a], &end, 10);
            ok = *end == '\0' && (p == 0 || p == 1);
            sites->part = (int)p;
        } else if (ok && !strcmp(argv[a], "--shard")) {
            char *slash, *end;
            sites->first = strtol(argv[++a], &slash, 10);
            ok = *slash == '/' && slash != argv[a];
            if (ok) sites->stride = strtol(slash + 1, &end, 10);
            ok = ok && *end == '\0' && sites->stride >= 1 && sites->first >= 0 && sites->first < sites->stride;
        } else if (ok && !strcmp(argv[a], "--fault")) {
            sites->fault = argv[++a];
        } else {
            ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "usage: %s [--part 0|1] [--shard i/k] [--fault NAME]\n", argv[0]);
            return 0;
        }
    }
    return 1;
}

fenns_test_env fenns_test_env_save(const char *name) {
    fenns_test_env e = {name, 0, ""};
    const char *v = getenv(name);
    if (v) {
        e.was_set = 1;
        snprintf(e.value, sizeof e.value, "%s", v);
    }
    return e;
}

void fenns_test_env_restore(const fenns_test_env *e) {
    if (e->was_set) setenv(e->name, e->value, 1);
    else unsetenv(e->name);
}
