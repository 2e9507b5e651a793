/*
 * fenns-engine-frame: fenns inside a small engine's frame loop.
 *
 *     fenns-engine-frame [--frames N] [--particles CAPACITY]
 *
 * The engine owns everything fenns does not: the queue, the command pools,
 * the memory, three frames in flight paced by one timeline semaphore, and
 * two compute passes of its own. Two point sets: the particles, and a
 * static boundary (points on the box's floor) built once, before the first
 * frame. Each frame, in one command buffer:
 *
 *   emit + move (engine)   decides how many particles live this frame and
 *                          writes that count to a GPU buffer; moves them
 *   fenns_cmd_build        reads the count from that buffer (no readback),
 *                          on the boundary's grid (grid_source)
 *   fenns_cmd_search x2    neighbour counts in the build's sorted order:
 *                          among the particles, and among the boundary
 *                          (candidate_scratch: the boundary is not rebuilt)
 *   colour (engine)        colour by density, in sorted order
 *   fenns_cmd_reorder      the colour records (32 bytes) back to the
 *                          particles' own order
 *
 * fenns gets a descriptor arena per frame in flight (used where the device
 * has no push descriptors, FENNS_NO_PUSH_DESCRIPTORS=1) and a range of the
 * engine's timestamp query pool, and the engine prints each frame's GPU
 * times once its timeline value is reached. At the end the last frame's
 * neighbour counts are checked against brute force; exit 0 means they match
 * and no Vulkan call failed. FENNS_VALIDATION=1 turns on the validation layer
 * with synchronization validation.
 *
 * The device comes from fenns_headless for brevity; an engine fills
 * fenns_context_create_info from its own instance and device the same way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <volk.h>

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include "engine_colour.spv.h"
#include "engine_emit_move.spv.h"
#include "sample_gpu.h"

enum {
    IN_FLIGHT = 3,
    QUERIES_PER_FRAME = 2 + 3 * (FENNS_MAX_PROFILED_PASSES + 1), /* frame begin/end, build, two searches */
    CHECKED = 256,                                               /* particles checked by brute force */
};
#define DT 0.004f

#define VK_OK(call)                                                                     \
    do {                                                                                \
        VkResult vk_ok_ = (call);                                                       \
        if (vk_ok_ != VK_SUCCESS) {                                                     \
            fprintf(stderr, "fenns-engine-frame: error: %s failed (%d)\n", #call, (int)vk_ok_); \
            goto done;                                                                  \
        }                                                                               \
    } while (0)
#define FENNS_OK(call)                                                                                   \
    do {                                                                                                 \
        fenns_result fenns_ok_ = (call);                                                                 \
        if (fenns_ok_ != FENNS_SUCCESS) {                                                                \
            fprintf(stderr, "fenns-engine-frame: error: %s: %s\n", #call, fenns_result_string(fenns_ok_)); \
            goto done;                                                                                   \
        }                                                                                                \
    } while (0)

/* One of the engine's own compute passes: its set of fixed buffers. */
typedef struct engine_pass {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSet set;
} engine_pass;

/* What a frame in flight owns: the CPU may touch these only after the
 * timeline says the frame that last used the slot is done. */
typedef struct frame_slot {
    VkCommandBuffer cmd;
    fenns_descriptor_arena arena;
    sample_buffer status; /* fenns_status of the slot's frame, host-visible */
    fenns_profile build_profile, search_profile, boundary_profile;
    uint32_t first_query;
    long frame; /* the frame recorded in it; -1: none */
} frame_slot;

typedef struct engine {
    fenns_headless headless;
    VkDevice device;
    VkPhysicalDevice gpu;
    VkQueue queue;
    fenns_context ctx;
    fenns_pipeline pipe;
    VkCommandPool pool;
    VkSemaphore timeline;
    VkQueryPool queries;
    VkDescriptorPool descriptor_pool;
    engine_pass move, colour;
    sample_buffer positions, velocities, count, counts, colour_sorted, colours, scratch, readback;
    sample_buffer boundary_positions, boundary_scratch, boundary_counts; /* the second point set */
    uint32_t boundary_side, boundary_count; /* side^2 points on the floor z = 0 */
    frame_slot slots[IN_FLIGHT];
    uint32_t capacity, first, per_frame;
    float radius; /* about 12 neighbours each at full capacity */
    double ns_per_tick;
} engine;

static uint32_t live_at(const engine *e, long frame) {
    uint64_t live = (uint64_t)e->first + (uint64_t)frame * e->per_frame;
    return live < e->capacity ? (uint32_t)live : e->capacity;
}

static VkResult pass_create(engine *e, engine_pass *p, const uint32_t *code, size_t size, uint32_t bindings,
                            uint32_t push_bytes, const sample_buffer *const *buffers) {
    VkDescriptorSetLayoutBinding b[4];
    for (uint32_t i = 0; i < bindings; ++i)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo sli = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = bindings, .pBindings = b};
    VkResult r = vkCreateDescriptorSetLayout(e->device, &sli, NULL, &p->set_layout);
    VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                      .pSetLayouts = &p->set_layout, .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &push};
    if (r == VK_SUCCESS) r = vkCreatePipelineLayout(e->device, &pli, NULL, &p->layout);
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    VkShaderModule module = VK_NULL_HANDLE;
    if (r == VK_SUCCESS) r = vkCreateShaderModule(e->device, &mi, NULL, &module);
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main"},
                                      .layout = p->layout};
    if (r == VK_SUCCESS) r = vkCreateComputePipelines(e->device, VK_NULL_HANDLE, 1, &ci, NULL, &p->pipeline);
    if (module) vkDestroyShaderModule(e->device, module, NULL);
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = e->descriptor_pool, .descriptorSetCount = 1,
                                      .pSetLayouts = &p->set_layout};
    if (r == VK_SUCCESS) r = vkAllocateDescriptorSets(e->device, &ai, &p->set);
    if (r != VK_SUCCESS) return r;
    VkDescriptorBufferInfo infos[4];
    VkWriteDescriptorSet writes[4];
    for (uint32_t i = 0; i < bindings; ++i) {
        infos[i] = (VkDescriptorBufferInfo){buffers[i]->buffer, 0, VK_WHOLE_SIZE};
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set,
                                           .dstBinding = i, .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[i]};
    }
    vkUpdateDescriptorSets(e->device, bindings, writes, 0, NULL);
    return VK_SUCCESS;
}

static void pass_destroy(const engine *e, engine_pass *p) {
    if (p->pipeline) vkDestroyPipeline(e->device, p->pipeline, NULL);
    if (p->layout) vkDestroyPipelineLayout(e->device, p->layout, NULL);
    if (p->set_layout) vkDestroyDescriptorSetLayout(e->device, p->set_layout, NULL);
}

static void dispatch(VkCommandBuffer cmd, const engine_pass *p, const void *push, uint32_t push_bytes, uint32_t items) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &p->set, 0, NULL);
    vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
    vkCmdDispatch(cmd, (items + 63u) / 64u, 1, 1);
}

/* Work outside the frame loop (the uploads, the boundary's build, the final
 * readback), in slot 0's command buffer, waited for: nothing else is in
 * flight then. Copies count copies, then record(e, cmd) when given. */
static VkResult copy_and_wait(engine *e, uint32_t count, const VkBuffer *src, const VkBuffer *dst,
                              const VkBufferCopy *regions, void (*record)(engine *, VkCommandBuffer)) {
    VkCommandBuffer cmd = e->slots[0].cmd;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkResult r = vkResetCommandBuffer(cmd, 0);
    if (r == VK_SUCCESS) r = vkBeginCommandBuffer(cmd, &bi);
    if (r != VK_SUCCESS) return r;
    sample_full_barrier(cmd);
    for (uint32_t k = 0; k < count; ++k) vkCmdCopyBuffer(cmd, src[k], dst[k], 1, &regions[k]);
    sample_full_barrier(cmd);
    if (record) {
        record(e, cmd);
        sample_full_barrier(cmd);
    }
    r = vkEndCommandBuffer(cmd);
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if (r == VK_SUCCESS) r = vkQueueSubmit(e->queue, 1, &submit, VK_NULL_HANDLE);
    if (r == VK_SUCCESS) r = vkQueueWaitIdle(e->queue);
    fenns_descriptor_arena_reset(e->slots[0].arena);
    return r;
}

/* The static point set: built once, on its own grid (the pipeline's box),
 * which every frame's build then takes. */
static void build_boundary(engine *e, VkCommandBuffer cmd) {
    fenns_build_info b = {0};
    b.particle_count = e->boundary_count;
    b.positions = sample_whole(&e->boundary_positions);
    b.scratch = sample_whole(&e->boundary_scratch);
    b.descriptors = e->slots[0].arena;
    b.grid_particle_count = e->capacity; /* cells for the particles' density, not the floor's */
    fenns_cmd_build(cmd, e->pipe, &b);
}

/* One frame: the engine's passes and fenns' between them. */
static void record_frame(engine *e, frame_slot *s, long frame) {
    VkCommandBuffer cmd = s->cmd;
    sample_full_barrier(cmd); /* the previous frame's passes (same queue) before this one's */
    vkCmdResetQueryPool(cmd, e->queries, s->first_query, QUERIES_PER_FRAME);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, e->queries, s->first_query);

    struct { uint32_t capacity, first, per_frame, frame; float dt; } move = {e->capacity, e->first, e->per_frame,
                                                                             (uint32_t)frame, DT};
    dispatch(cmd, &e->move, &move, sizeof move, e->capacity);
    sample_full_barrier(cmd); /* positions and the count -> fenns' build */

    fenns_build_info build = {0};
    build.particle_count = e->capacity; /* the most there may be */
    build.positions = sample_whole(&e->positions);
    build.scratch = sample_whole(&e->scratch);
    build.particle_count_buffer = (fenns_buffer_range){e->count.buffer, 0, sizeof(uint32_t)};
    build.grid_source = sample_whole(&e->boundary_scratch);
    build.profile = &s->build_profile;
    build.descriptors = s->arena;
    fenns_cmd_build(cmd, e->pipe, &build);
    fenns_cmd_build_to_search_barrier(cmd, e->pipe);

    fenns_search_info search = {0};
    search.particle_count = e->capacity;
    search.positions = build.positions;
    search.scratch = build.scratch;
    search.outputs = FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_SORTED_ORDER;
    search.counts = sample_whole(&e->counts);
    search.profile = &s->search_profile;
    search.descriptors = s->arena;
    fenns_cmd_search(cmd, e->pipe, &search);
    sample_full_barrier(cmd); /* the searches share the particles' status */
    search.counts = sample_whole(&e->boundary_counts);
    search.candidate_count = e->boundary_count;
    search.candidate_scratch = sample_whole(&e->boundary_scratch);
    search.profile = &s->boundary_profile;
    fenns_cmd_search(cmd, e->pipe, &search);
    sample_full_barrier(cmd); /* counts -> the colour pass */

    struct { uint32_t capacity; float full; } colour = {e->capacity, 24.0f};
    dispatch(cmd, &e->colour, &colour, sizeof colour, e->capacity);
    sample_full_barrier(cmd); /* sorted colours -> the reorder */

    fenns_reorder_info reorder = {0};
    reorder.particle_count = e->capacity;
    reorder.scratch = build.scratch;
    reorder.direction = FENNS_REORDER_TO_ORIGINAL;
    reorder.stride = 32u; /* colour, then (neighbours, boundary neighbours) */
    reorder.src = sample_whole(&e->colour_sorted);
    reorder.dst = sample_whole(&e->colours);
    reorder.descriptors = s->arena;
    fenns_cmd_reorder(cmd, e->pipe, &reorder);
    sample_full_barrier(cmd); /* colours and the status -> the status copy and whoever draws next */

    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(e->pipe, e->capacity, &layout);
    VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, e->scratch.buffer, s->status.buffer, 1, &status);
    sample_full_barrier(cmd); /* the copy -> the host */
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, e->queries, s->first_query + 1u);
}

static double sum_ms(const engine *e, const fenns_profile *p, const uint64_t *ts) {
    double ms[FENNS_MAX_PROFILED_PASSES], total = 0.0;
    if (fenns_profile_pass_ms(e->ctx, p, ts, ms) != FENNS_SUCCESS) return -1.0;
    for (uint32_t k = 0; k < p->pass_count; ++k) total += ms[k];
    return total;
}

/* The slot's frame is done (its timeline value reached): print its times. */
static int report(engine *e, frame_slot *s) {
    uint64_t ts[QUERIES_PER_FRAME];
    const fenns_profile *profiles[3] = {&s->build_profile, &s->search_profile, &s->boundary_profile};
    VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT;
    if (vkGetQueryPoolResults(e->device, e->queries, s->first_query, 2, sizeof ts, ts, sizeof(uint64_t), flags) !=
        VK_SUCCESS)
        return 0;
    double fenns_ms[3];
    for (int k = 0; k < 3; ++k) {
        uint64_t *at = ts + (profiles[k]->first_query - s->first_query);
        if (vkGetQueryPoolResults(e->device, e->queries, profiles[k]->first_query, profiles[k]->pass_count + 1u,
                                  sizeof(uint64_t) * (profiles[k]->pass_count + 1u), at, sizeof(uint64_t),
                                  flags) != VK_SUCCESS)
            return 0;
        fenns_ms[k] = sum_ms(e, profiles[k], at);
    }
    const fenns_status *st = s->status.mapped;
    printf("frame %3ld: %6u particles (GPU count %u), %6llu boundary contacts, fenns build %.3f ms + search %.3f ms "
           "+ boundary search %.3f ms, frame %.3f ms GPU\n",
           s->frame, st->particle_count, st->requested_count, (unsigned long long)st->total_neighbors, fenns_ms[0],
           fenns_ms[1], fenns_ms[2], (double)(ts[1] - ts[0]) * e->ns_per_tick * 1e-6);
    if (st->particle_count != live_at(e, s->frame) || st->incomplete_queries || st->grid_mismatch) {
        fprintf(stderr,
                "fenns-engine-frame: error: frame %ld: %u particles (expected %u), %u incomplete queries, grid "
                "mismatch %u\n",
                s->frame, st->particle_count, live_at(e, s->frame), st->incomplete_queries, st->grid_mismatch);
        return 0;
    }
    return 1;
}

/* Boundary point k: on the floor z = 0, side^2 of them. */
static void boundary_point(const engine *e, uint32_t k, float p[4]) {
    p[0] = ((float)(k % e->boundary_side) + 0.5f) / (float)e->boundary_side;
    p[1] = ((float)(k / e->boundary_side) + 0.5f) / (float)e->boundary_side;
    p[2] = p[3] = 0.0f;
}

static int near(const float *a, const float *b, float r) {
    float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    return dx * dx + dy * dy + dz * dz <= r * r;
}

/* The last frame's counts (the colour records' second half, back in
 * original order) against brute force: among the particles, and among the
 * boundary points. */
static int check_last_frame(engine *e, long frame) {
    uint32_t live = live_at(e, frame), n = e->capacity;
    const float *x = e->readback.mapped;                                 /* positions */
    const float *c = (const float *)e->readback.mapped + 4u * (size_t)n; /* colour records, 8 floats each */
    uint32_t bad = 0;
    for (uint32_t k = 0; k < CHECKED && k < n; ++k) {
        uint32_t i = (uint32_t)(((uint64_t)k * 2654435761u) % n);
        uint32_t expected = 0, boundary = 0;
        for (uint32_t j = 0; j < live && i < live; ++j) expected += j != i && near(x + 4 * i, x + 4 * j, e->radius);
        for (uint32_t j = 0; j < e->boundary_count && i < live; ++j) {
            float b[4];
            boundary_point(e, j, b);
            boundary += (uint32_t)near(x + 4 * i, b, e->radius);
        }
        if ((float)expected != c[8 * i + 4] || (float)boundary != c[8 * i + 5]) {
            if (!bad)
                fprintf(stderr, "fenns-engine-frame: particle %u%s: %g neighbours and %g boundary neighbours, brute "
                                "force %u and %u\n",
                        i, i < live ? "" : " (absent)", (double)c[8 * i + 4], (double)c[8 * i + 5], expected, boundary);
            ++bad;
        }
    }
    printf("checked %d particles (live and absent) of the last frame against brute force: %s\n", CHECKED,
           bad ? "MISMATCH" : "ok");
    return bad == 0;
}

int main(int argc, char **argv) {
    long frames = 30;
    engine e;
    memset(&e, 0, sizeof e);
    e.capacity = 20000;
    for (int a = 1; a < argc; ++a) {
        char *end = NULL;
        long v = a + 1 < argc ? strtol(argv[a + 1], &end, 10) : -1;
        int ok = end && *end == '\0' && v > 0 && v <= (1L << 24);
        if (ok && !strcmp(argv[a], "--frames")) frames = v;
        else if (ok && !strcmp(argv[a], "--particles")) e.capacity = (uint32_t)v;
        else {
            fprintf(stderr, "usage: fenns-engine-frame [--frames N] [--particles CAPACITY]\n");
            return 2;
        }
        ++a;
    }
    /* Half the capacity at first, the rest born over the first 20 frames. */
    e.first = e.capacity / 2u;
    e.per_frame = (e.capacity - e.first + 19u) / 20u;
    e.radius = cbrtf(12.0f / (4.18879f * (float)e.capacity)); /* 12 = n * 4/3 pi r^3 in the unit box */
    e.boundary_side = (uint32_t)ceilf(2.0f / e.radius);           /* spaced r/2: a dozen within r of the floor */
    e.boundary_count = e.boundary_side * e.boundary_side;
    if (e.boundary_count > e.capacity) e.boundary_side = (uint32_t)sqrtf((float)e.capacity); /* the pipeline's capacity */
    e.boundary_count = e.boundary_side * e.boundary_side;
    int exit_code = 1;

    fenns_headless_create_info hi = {0};
    FENNS_OK(fenns_headless_create(&hi, &e.headless));
    e.device = fenns_headless_device(e.headless);
    e.gpu = fenns_headless_physical_device(e.headless);
    e.queue = fenns_headless_queue(e.headless);
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    VkPhysicalDeviceFeatures2 features = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &timeline};
    vkGetPhysicalDeviceFeatures2(e.gpu, &features);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(e.gpu, &props);
    if (!timeline.timelineSemaphore || props.apiVersion < VK_API_VERSION_1_2) {
        fprintf(stderr, "fenns-engine-frame: error: the device has no timeline semaphores (Vulkan 1.2)\n");
        goto done;
    }
    e.ns_per_tick = props.limits.timestampPeriod;

    fenns_context_create_info ci;
    fenns_headless_context_info(e.headless, &ci);
    FENNS_OK(fenns_context_create(&ci, &e.ctx));
    fenns_pipeline_create_info pi = {0};
    pi.radius = e.radius;
    pi.max_particles = e.capacity;
    for (int a = 0; a < 3; ++a) pi.domain_max[a] = 1.0f; /* the engine's box: no domain reduce */
    FENNS_OK(fenns_pipeline_create(e.ctx, &pi, &e.pipe));
    printf("fenns-engine-frame: %s, %s, %u particles at most, %d frames in flight\n", props.deviceName,
           fenns_context_uses_push_descriptors(e.ctx) ? "push descriptors" : "descriptor sets", e.capacity, IN_FLIGHT);

    /* What a frame graph would schedule: fenns' build passes and what each touches. */
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(e.pipe, e.capacity, &req);
    VkDeviceSize n16 = 16u * (VkDeviceSize)e.capacity;
    VK_OK(sample_buffer_create(e.device, e.gpu, n16, 0, &e.positions));
    VK_OK(sample_buffer_create(e.device, e.gpu, n16, 0, &e.velocities));
    VK_OK(sample_buffer_create(e.device, e.gpu, sizeof(uint32_t), 0, &e.count));
    VK_OK(sample_buffer_create(e.device, e.gpu, 4u * (VkDeviceSize)e.capacity, 0, &e.counts));
    VK_OK(sample_buffer_create(e.device, e.gpu, 4u * (VkDeviceSize)e.capacity, 0, &e.boundary_counts));
    VK_OK(sample_buffer_create(e.device, e.gpu, 2u * n16, 0, &e.colour_sorted));
    VK_OK(sample_buffer_create(e.device, e.gpu, 2u * n16, 0, &e.colours));
    VK_OK(sample_buffer_create(e.device, e.gpu, req.size, 0, &e.scratch));
    VK_OK(sample_buffer_create(e.device, e.gpu, 3u * n16, 1, &e.readback)); /* uploads, then the check */
    fenns_pipeline_get_scratch_requirements(e.pipe, e.boundary_count, &req);
    VK_OK(sample_buffer_create(e.device, e.gpu, 16u * (VkDeviceSize)e.boundary_count, 0, &e.boundary_positions));
    VK_OK(sample_buffer_create(e.device, e.gpu, req.size, 0, &e.boundary_scratch));
    {
        fenns_build_info b = {.particle_count = e.capacity, .positions = sample_whole(&e.positions),
                              .scratch = sample_whole(&e.scratch),
                              .particle_count_buffer = {e.count.buffer, 0, sizeof(uint32_t)},
                              .grid_source = sample_whole(&e.boundary_scratch)};
        fenns_pass_info passes[FENNS_MAX_PASSES];
        uint32_t count = fenns_get_build_passes(e.pipe, &b, passes);
        printf("fenns build passes:");
        for (uint32_t k = 0; k < count; ++k) printf(" %s%s", passes[k].name, k + 1 < count ? "," : "\n");
    }

    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 6};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 2,
                                      .poolSizeCount = 1, .pPoolSizes = &ps};
    VK_OK(vkCreateDescriptorPool(e.device, &dpi, NULL, &e.descriptor_pool));
    const sample_buffer *move_buffers[3] = {&e.positions, &e.velocities, &e.count};
    const sample_buffer *colour_buffers[3] = {&e.counts, &e.boundary_counts, &e.colour_sorted};
    VK_OK(pass_create(&e, &e.move, engine_emit_move_spv, sizeof engine_emit_move_spv, 3, 20, move_buffers));
    VK_OK(pass_create(&e, &e.colour, engine_colour_spv, sizeof engine_colour_spv, 3, 8, colour_buffers));

    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = fenns_headless_queue_family(e.headless)};
    VK_OK(vkCreateCommandPool(e.device, &cpi, NULL, &e.pool));
    VkSemaphoreTypeCreateInfo sti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                     .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE, .initialValue = 0};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti};
    VK_OK(vkCreateSemaphore(e.device, &si, NULL, &e.timeline));
    VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = IN_FLIGHT * QUERIES_PER_FRAME};
    VK_OK(vkCreateQueryPool(e.device, &qpi, NULL, &e.queries));
    for (int k = 0; k < IN_FLIGHT; ++k) {
        frame_slot *s = &e.slots[k];
        s->frame = -1;
        s->first_query = (uint32_t)k * QUERIES_PER_FRAME;
        s->build_profile = (fenns_profile){.query_pool = e.queries, .first_query = s->first_query + 2u};
        s->search_profile = (fenns_profile){.query_pool = e.queries,
                                            .first_query = s->first_query + 3u + FENNS_MAX_PROFILED_PASSES};
        s->boundary_profile = (fenns_profile){.query_pool = e.queries,
                                              .first_query = s->first_query + 4u + 2u * FENNS_MAX_PROFILED_PASSES};
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = e.pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
        VK_OK(vkAllocateCommandBuffers(e.device, &ai, &s->cmd));
        FENNS_OK(fenns_descriptor_arena_create(e.ctx, &s->arena));
        VK_OK(sample_buffer_create(e.device, e.gpu, sizeof(fenns_status), 1, &s->status));
    }

    /* The particles: random in the unit box, random velocities; the boundary
     * points, then the boundary's one build. */
    {
        float *up = e.readback.mapped;
        uint32_t state = 12345u;
        for (uint32_t i = 0; i < 8u * e.capacity; ++i) {
            state = state * 1664525u + 1013904223u;
            float u = (float)(state >> 8) / 16777216.0f;
            up[i] = i % 4u == 3u ? 0.0f : i < 4u * e.capacity ? u : (u - 0.5f) * 0.5f;
        }
        for (uint32_t k = 0; k < e.boundary_count; ++k) boundary_point(&e, k, up + 8u * (size_t)e.capacity + 4u * k);
        VkBuffer src[3] = {e.readback.buffer, e.readback.buffer, e.readback.buffer};
        VkBuffer dst[3] = {e.positions.buffer, e.velocities.buffer, e.boundary_positions.buffer};
        VkBufferCopy regions[3] = {{0, 0, n16}, {n16, 0, n16}, {2u * n16, 0, 16u * (VkDeviceSize)e.boundary_count}};
        VK_OK(copy_and_wait(&e, 3, src, dst, regions, build_boundary));
    }
    printf("boundary: %u points on the floor, built once\n", e.boundary_count);

    /* The frame loop: frame f signals timeline value f + 1. */
    int ok = 1;
    for (long f = 0; f < frames && ok; ++f) {
        frame_slot *s = &e.slots[f % IN_FLIGHT];
        if (s->frame >= 0) {
            uint64_t value = (uint64_t)s->frame + 1u;
            VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                                      .pSemaphores = &e.timeline, .pValues = &value};
            VK_OK(vkWaitSemaphores(e.device, &wi, UINT64_MAX));
            ok = report(&e, s);
        }
        fenns_descriptor_arena_reset(s->arena); /* its command buffer is done */
        VK_OK(vkResetCommandBuffer(s->cmd, 0));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        VK_OK(vkBeginCommandBuffer(s->cmd, &bi));
        record_frame(&e, s, f);
        VK_OK(vkEndCommandBuffer(s->cmd));
        uint64_t signal = (uint64_t)f + 1u;
        VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                             .signalSemaphoreValueCount = 1, .pSignalSemaphoreValues = &signal};
        VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .pNext = &tsi, .commandBufferCount = 1,
                               .pCommandBuffers = &s->cmd, .signalSemaphoreCount = 1, .pSignalSemaphores = &e.timeline};
        VK_OK(vkQueueSubmit(e.queue, 1, &submit, VK_NULL_HANDLE));
        s->frame = f;
    }
    /* The frames still in flight, in order. */
    for (long f = frames - IN_FLIGHT; f < frames && ok; ++f) {
        if (f < 0) continue;
        frame_slot *s = &e.slots[f % IN_FLIGHT];
        uint64_t value = (uint64_t)f + 1u;
        VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
                                  .pSemaphores = &e.timeline, .pValues = &value};
        VK_OK(vkWaitSemaphores(e.device, &wi, UINT64_MAX));
        ok = report(&e, s);
    }
    if (!ok) goto done;

    /* The last frame's positions and colours to the host, then the check. */
    {
        VkBuffer src[2] = {e.positions.buffer, e.colours.buffer}, dst[2] = {e.readback.buffer, e.readback.buffer};
        VkBufferCopy regions[2] = {{0, 0, n16}, {0, n16, 2u * n16}};
        VK_OK(copy_and_wait(&e, 2, src, dst, regions, NULL));
    }
    if (check_last_frame(&e, frames - 1)) exit_code = 0;
    if (fenns_headless_validation_message_count(e.headless) > 0) {
        fprintf(stderr, "fenns-engine-frame: error: %u validation messages\n",
                fenns_headless_validation_message_count(e.headless));
        exit_code = 1;
    }

done:
    if (e.device) vkDeviceWaitIdle(e.device);
    for (int k = 0; k < IN_FLIGHT; ++k) {
        fenns_descriptor_arena_destroy(e.slots[k].arena);
        sample_buffer_destroy(e.device, &e.slots[k].status);
    }
    if (e.queries) vkDestroyQueryPool(e.device, e.queries, NULL);
    if (e.timeline) vkDestroySemaphore(e.device, e.timeline, NULL);
    if (e.pool) vkDestroyCommandPool(e.device, e.pool, NULL);
    pass_destroy(&e, &e.move);
    pass_destroy(&e, &e.colour);
    if (e.descriptor_pool) vkDestroyDescriptorPool(e.device, e.descriptor_pool, NULL);
    sample_buffer *buffers[] = {&e.positions,          &e.velocities,       &e.count,           &e.counts,
                                &e.colour_sorted,      &e.colours,          &e.scratch,         &e.readback,
                                &e.boundary_positions, &e.boundary_scratch, &e.boundary_counts};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; ++k) sample_buffer_destroy(e.device, buffers[k]);
    fenns_pipeline_destroy(e.pipe);
    fenns_context_destroy(e.ctx);
    fenns_headless_destroy(e.headless);
    return exit_code;
}
