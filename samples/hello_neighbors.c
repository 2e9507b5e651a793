/*
 * hello_neighbors: the smallest complete use of fenns' recording API.
 *
 * It counts, for 100 000 random particles, the neighbours within radius 1,
 * with the commands recorded into a command buffer we own, exactly as an
 * engine would record them into its frame:
 *
 *   fenns_cmd_build                      sort particles into the coarse grid
 *   fenns_cmd_build_to_search_barrier    the one barrier between the two
 *   fenns_cmd_search (COUNTS)            count every particle's neighbours
 *   our barrier                          make the results visible to the host
 *
 * The device comes from the headless helper (an engine passes its own
 * VkDevice instead); Vulkan is called through volk's global functions, which
 * fenns_headless loads. Then a few counts are checked against brute force.
 *
 * Run: build/bin/hello_neighbors   (FENNS_DEVICE=i picks a device,
 *                                   FENNS_VALIDATION=1 turns validation on)
 */
#include <volk.h> /* first: it sets VK_NO_PROTOTYPES for vulkan.h */

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARTICLE_COUNT 100000u
#define RADIUS 1.0f
#define SCENE 20.0f /* particles uniform in [0, SCENE)^3: about 50 neighbours each */

/* Every Vulkan call is checked; a failure jumps to the common clean-up. */
#define CHECK_VK(call)                                                                    \
    do {                                                                                  \
        VkResult check_vk_result_ = (call);                                               \
        if (check_vk_result_ != VK_SUCCESS) {                                             \
            fprintf(stderr, "hello_neighbors: %s failed: VkResult %d\n", #call,           \
                    (int)check_vk_result_);                                               \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

#define CHECK_FENNS(call)                                                                 \
    do {                                                                                  \
        fenns_result check_fenns_result_ = (call);                                        \
        if (check_fenns_result_ != FENNS_SUCCESS) {                                       \
            fprintf(stderr, "hello_neighbors: %s failed: %s\n", #call,                    \
                    fenns_result_string(check_fenns_result_));                            \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

/* A buffer with its own memory; `mapped` is set for host-visible ones. */
typedef struct buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *mapped;
} buffer;

static VkResult buffer_create(VkDevice device, VkPhysicalDevice physical_device, VkDeviceSize size,
                              VkBufferUsageFlags usage, VkMemoryPropertyFlags properties, buffer *out)
{
    memset(out, 0, sizeof *out);
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = vkCreateBuffer(device, &info, NULL, &out->buffer);
    if (r != VK_SUCCESS)
        return r;

    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, out->buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(physical_device, &mem);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mem.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & properties) == properties)
            type = i;
    if (type == UINT32_MAX)
        return VK_ERROR_FEATURE_NOT_PRESENT;

    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    r = vkAllocateMemory(device, &alloc, NULL, &out->memory);
    if (r != VK_SUCCESS)
        return r;
    r = vkBindBufferMemory(device, out->buffer, out->memory, 0);
    if (r == VK_SUCCESS && (properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        r = vkMapMemory(device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    return r;
}

static void buffer_destroy(VkDevice device, buffer *b)
{
    if (b->buffer)
        vkDestroyBuffer(device, b->buffer, NULL);
    if (b->memory)
        vkFreeMemory(device, b->memory, NULL);
}

/* The uniform generator of docs/benchmarks.md, so other programs can regenerate the same set. */
static float next_coordinate(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return (float)(*state >> 8) * (1.0f / 16777216.0f) * SCENE;
}

/* The neighbour definition of fenns.h, evaluated the same way in float32. */
static uint32_t brute_force_count(const float *positions, uint32_t n, uint32_t i)
{
    const float *p = positions + 4 * (size_t)i;
    uint32_t count = 0;
    for (uint32_t j = 0; j < n; ++j) {
        const float *q = positions + 4 * (size_t)j;
        float dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
        if (j != i && dx * dx + dy * dy + dz * dz <= RADIUS * RADIUS)
            ++count;
    }
    return count;
}

int main(void)
{
    int exit_code = 1;
    const uint32_t n = PARTICLE_COUNT;
    fenns_headless headless = NULL;
    fenns_context context = NULL;
    fenns_pipeline pipeline = NULL;
    fenns_descriptor_arena arena = NULL;
    VkDevice device = VK_NULL_HANDLE;
    buffer positions = {0}, scratch = {0}, counts = {0}, status_readback = {0};
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;

    /* 1. A device. An engine skips this and fills fenns_context_create_info
     *    from its own instance and device. */
    fenns_headless_create_info headless_info = {0};
    headless_info.use_device_index = 0; /* FENNS_DEVICE, else the best GPU, else lavapipe */
    CHECK_FENNS(fenns_headless_create(&headless_info, &headless));
    device = fenns_headless_device(headless);
    VkPhysicalDevice physical_device = fenns_headless_physical_device(headless);

    /* 2. The context: fenns' function table and the device limits. */
    fenns_context_create_info context_info;
    fenns_headless_context_info(headless, &context_info);
    CHECK_FENNS(fenns_context_create(&context_info, &context));
    /* Where the device has no push descriptors, passes bind descriptor sets
     * from an arena (one per frame in flight, reset once its frame is done);
     * with them it stays unused. Passing one always is the portable way. */
    CHECK_FENNS(fenns_descriptor_arena_create(context, &arena));
    fenns_device_limits limits;
    fenns_context_get_limits(context, &limits);
    printf("device: %s\n", limits.device_name);

    /* 3. Particles: vec4 each (xyz used, w is ours), in a host-visible
     *    storage buffer we fill directly. A real engine usually has them in
     *    device-local memory already, written by its own simulation. */
    const VkMemoryPropertyFlags host_memory =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkDeviceSize positions_size = (VkDeviceSize)n * 4 * sizeof(float);
    CHECK_VK(buffer_create(device, physical_device, positions_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host_memory,
                           &positions));
    float *xyzw = positions.mapped;
    uint32_t state = 0x9E3779B9u ^ n;
    for (uint32_t i = 0; i < n; ++i) {
        xyzw[4 * i + 0] = next_coordinate(&state);
        xyzw[4 * i + 1] = next_coordinate(&state);
        xyzw[4 * i + 2] = next_coordinate(&state);
        xyzw[4 * i + 3] = 0.0f;
    }

    /* 4. The pipeline: one per (method, radius, capacity, domain). We know the
     *    box; leaving domain_min/max all 0 would compute it on the GPU. */
    fenns_pipeline_create_info pipeline_info = {0};
    pipeline_info.method = FENNS_METHOD_FENNS;
    pipeline_info.radius = RADIUS;
    pipeline_info.max_particles = n;
    pipeline_info.domain_max[0] = pipeline_info.domain_max[1] = pipeline_info.domain_max[2] = SCENE;
    CHECK_FENNS(fenns_pipeline_create(context, &pipeline_info, &pipeline));

    /* 5. Scratch: fenns says size, alignment and usage; the memory is ours.
     *    TRANSFER_SRC is our addition, to copy the status out of it. */
    fenns_memory_requirements scratch_req;
    fenns_pipeline_get_scratch_requirements(pipeline, n, &scratch_req);
    CHECK_VK(buffer_create(device, physical_device, scratch_req.size,
                           scratch_req.usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &scratch));
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(pipeline, n, &layout);

    /* 6. Outputs: one u32 count per particle, read by the host, and a small
     *    buffer for the fenns_status copied from the scratch. */
    CHECK_VK(buffer_create(device, physical_device, (VkDeviceSize)n * sizeof(uint32_t),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host_memory, &counts));
    CHECK_VK(buffer_create(device, physical_device, sizeof(fenns_status), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           host_memory, &status_readback));

    /* 7. Record. Everything below goes into our command buffer; fenns never
     *    submits or waits. Offsets 0 satisfy any alignment fenns asks for. */
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = fenns_headless_queue_family(headless);
    CHECK_VK(vkCreateCommandPool(device, &pool_info, NULL, &pool));
    VkCommandBufferAllocateInfo cmd_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cmd_info.commandPool = pool;
    cmd_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cmd_info.commandBufferCount = 1;
    VkCommandBuffer cmd;
    CHECK_VK(vkAllocateCommandBuffers(device, &cmd_info, &cmd));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cmd, &begin));

    /* Our host writes to `positions` need no barrier: vkQueueSubmit makes
     * host writes visible to the device. */
    fenns_build_info build = {0};
    build.particle_count = n;
    build.positions = (fenns_buffer_range){positions.buffer, 0, positions_size};
    build.scratch = (fenns_buffer_range){scratch.buffer, 0, scratch_req.size};
    build.descriptors = arena;
    fenns_cmd_build(cmd, pipeline, &build);

    fenns_cmd_build_to_search_barrier(cmd, pipeline);

    fenns_search_info search = {0};
    search.particle_count = n;
    search.positions = build.positions; /* the same ranges the build used */
    search.scratch = build.scratch;
    search.outputs = FENNS_OUTPUT_COUNTS;
    search.counts = (fenns_buffer_range){counts.buffer, 0, (VkDeviceSize)n * sizeof(uint32_t)};
    search.descriptors = arena;
    fenns_cmd_search(cmd, pipeline, &search);

    /* fenns leaves its outputs written at COMPUTE_SHADER / SHADER_WRITE; the
     * barrier to their consumer is ours: here the host (counts) and a copy
     * (the status, from the scratch). */
    VkMemoryBarrier to_consumers = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_consumers.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    to_consumers.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_consumers, 0, NULL,
                         0, NULL);
    VkBufferCopy status_copy = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, scratch.buffer, status_readback.buffer, 1, &status_copy);
    VkMemoryBarrier copy_to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    copy_to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    copy_to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &copy_to_host, 0,
                         NULL, 0, NULL);
    CHECK_VK(vkEndCommandBuffer(cmd));

    /* 8. Submit and wait: the caller's job, on a queue of the context's family. */
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK_VK(vkCreateFence(device, &fence_info, NULL, &fence));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    CHECK_VK(vkQueueSubmit(fenns_headless_queue(headless), 1, &submit, fence));
    CHECK_VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));

    /* 9. Read back: the status says what the build saw. */
    const uint32_t *neighbor_counts = counts.mapped;
    fenns_status status;
    memcpy(&status, status_readback.mapped, sizeof status);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; ++i)
        total += neighbor_counts[i];
    printf("particles: %u (invalid: %u), radius %g, coarse grid %ux%ux%u\n", status.particle_count,
           status.invalid_count, (double)RADIUS, status.coarse_dims[0], status.coarse_dims[1],
           status.coarse_dims[2]);
    printf("average neighbours: %.2f\n", (double)total / n);

    /* 10. Check a handful of particles against brute force. */
    int mismatches = 0;
    if (status.particle_count != n || status.invalid_count != 0) {
        printf("status: expected %u particles, none invalid  MISMATCH\n", n);
        mismatches = 1;
    }
    for (uint32_t k = 0; k < 8; ++k) {
        uint32_t i = k * (n / 8) + k * 977u % (n / 8);
        uint32_t expected = brute_force_count(xyzw, n, i);
        if (neighbor_counts[i] != expected) {
            printf("particle %u: fenns %u, brute force %u  MISMATCH\n", i, neighbor_counts[i], expected);
            mismatches = 1;
        }
    }
    puts(mismatches ? "FAILED" : "checked 8 particles against brute force: ok");
    exit_code = mismatches ? 1 : 0;

done:
    /* Everything is destroyed in reverse order; null handles are skipped. */
    if (device)
        (void)vkDeviceWaitIdle(device);
    if (fence)
        vkDestroyFence(device, fence, NULL);
    if (pool)
        vkDestroyCommandPool(device, pool, NULL);
    if (device) {
        buffer_destroy(device, &status_readback);
        buffer_destroy(device, &counts);
        buffer_destroy(device, &scratch);
        buffer_destroy(device, &positions);
    }
    fenns_pipeline_destroy(pipeline);
    fenns_descriptor_arena_destroy(arena); /* after the wait: its sets are done */
    fenns_context_destroy(context);
    fenns_headless_destroy(headless);
    return exit_code;
}
