/*
 * The descriptor-set path (a device without VK_KHR_push_descriptor): the
 * test device is opened without the extension, so the context chooses sets
 * by itself.
 *
 *  - refusal: a build or search without an arena records only a status
 *    mark (logged), so a search of the refused build reads incomplete; its
 *    passes may still be listed;
 *  - recreated buffers: four frames, each with every buffer destroyed and
 *    created anew after the previous frame's wait (handles come back equal
 *    as often as not) and the arena reset; under validation a set still
 *    naming a destroyed buffer is an error; each frame's CSR lists must equal
 *    the CPU reference;
 *  - growth: on a strict driver (a wrapper that makes each pool give at
 *    most maxSets sets, as most GPU drivers do and lavapipe does not), more
 *    build + search recordings in one command buffer than one pool holds,
 *    twice around an arena reset, all correct;
 *  - failure: on that driver with no pool past the arena's first, a
 *    recording that outgrows it logs, stops, and leaves a status that reads
 *    incomplete: never a short list that looks whole.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "reference.h"

enum { N = 2000, FRAMES = 4, GROWTH_RECORDINGS = 40 };
#define RADIUS 0.1f
#define LIST_CAPACITY (64u * N)

static fenns_test_gpu g;

typedef struct frame {
    fenns_test_buffer positions, scratch, counts, offsets, indices, status;
} frame;

static void points(uint32_t seed, float *xyz, float *vec4) {
    uint32_t state = seed;
    for (uint32_t i = 0; i < N; ++i) {
        for (uint32_t a = 0; a < 3; ++a) {
            state = state * 1664525u + 1013904223u;
            xyz[3 * i + a] = vec4[4 * i + a] = (float)(state >> 8) / 16777216.0f;
        }
        vec4[4 * i + 3] = 0.0f;
    }
}

static int frame_create(fenns_pipeline pipe, frame *f, const float *vec4) {
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(pipe, N, &req);
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    memset(f, 0, sizeof *f);
    return fenns_test_buffer_create(&g, 16u * N, storage, FENNS_TEST_DEVICE_LOCAL, &f->positions) == VK_SUCCESS &&
           fenns_test_buffer_create(&g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &f->scratch) == VK_SUCCESS &&
           fenns_test_buffer_create(&g, 4u * N, storage, FENNS_TEST_DEVICE_LOCAL, &f->counts) == VK_SUCCESS &&
           fenns_test_buffer_create(&g, 8u * (N + 1u), storage, FENNS_TEST_DEVICE_LOCAL, &f->offsets) == VK_SUCCESS &&
           fenns_test_buffer_create(&g, 4u * LIST_CAPACITY, storage, FENNS_TEST_DEVICE_LOCAL, &f->indices) == VK_SUCCESS &&
           fenns_test_buffer_create(&g, sizeof(fenns_status), 0, FENNS_TEST_DEVICE_LOCAL, &f->status) == VK_SUCCESS &&
           fenns_test_upload(&g, &f->positions, 0, vec4, 16u * N) == VK_SUCCESS;
}

static void frame_destroy(frame *f) {
    fenns_test_buffer *all[] = {&f->positions, &f->scratch, &f->counts, &f->offsets, &f->indices, &f->status};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) fenns_test_buffer_destroy(&g, all[i]);
}

static fenns_build_info build_info(const frame *f, fenns_descriptor_arena arena) {
    fenns_build_info b = {0};
    b.particle_count = N;
    b.positions = fenns_test_range(&f->positions, 0, VK_WHOLE_SIZE);
    b.scratch = fenns_test_range(&f->scratch, 0, VK_WHOLE_SIZE);
    b.descriptors = arena;
    return b;
}

static fenns_search_info search_info(const frame *f, fenns_descriptor_arena arena) {
    fenns_search_info s = {0};
    s.particle_count = N;
    s.positions = fenns_test_range(&f->positions, 0, VK_WHOLE_SIZE);
    s.scratch = fenns_test_range(&f->scratch, 0, VK_WHOLE_SIZE);
    s.outputs = FENNS_OUTPUT_CSR;
    s.counts = fenns_test_range(&f->counts, 0, VK_WHOLE_SIZE);
    s.offsets = fenns_test_range(&f->offsets, 0, VK_WHOLE_SIZE);
    s.indices = fenns_test_range(&f->indices, 0, VK_WHOLE_SIZE);
    s.descriptors = arena;
    return s;
}

/* The status (in the scratch) to the frame's status buffer, with barriers
 * from the search before and to the host after. */
static void copy_status(VkCommandBuffer cmd, fenns_pipeline pipe, const frame *f) {
    fenns_test_cmd_barrier(cmd);
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(pipe, N, &layout);
    VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, f->scratch.buffer, f->status.buffer, 1, &status);
    fenns_test_cmd_barrier(cmd);
}

/* Build, CSR search, status copy. */
static void record_frame(VkCommandBuffer cmd, fenns_pipeline pipe, const frame *f, fenns_descriptor_arena arena) {
    fenns_build_info b = build_info(f, arena);
    fenns_search_info s = search_info(f, arena);
    fenns_cmd_build(cmd, pipe, &b);
    fenns_cmd_build_to_search_barrier(cmd, pipe);
    fenns_cmd_search(cmd, pipe, &s);
    copy_status(cmd, pipe, f);
}

/* The frame's lists against the CPU reference. */
static int check_lists(const char *what, const frame *f, const float *xyz) {
    fenns_status st;
    uint64_t *offsets = malloc(8u * (N + 1u)), *ref_offsets = NULL;
    uint32_t *indices = malloc(4u * LIST_CAPACITY), *ref_indices = NULL;
    int ok = offsets && indices && fenns_test_download(&g, &f->status, 0, &st, sizeof st) == VK_SUCCESS &&
             fenns_test_download(&g, &f->offsets, 0, offsets, 8u * (N + 1u)) == VK_SUCCESS;
    CHECK(ok, "%s: download", what);
    if (ok) {
        CHECK(st.incomplete_queries == 0 && st.list_overflow == 0 && offsets[N] == st.total_neighbors &&
                  offsets[N] <= LIST_CAPACITY,
              "%s: incomplete %u, overflow %u, total %llu", what, st.incomplete_queries, st.list_overflow,
              (unsigned long long)st.total_neighbors);
        ok = !failures && fenns_test_download(&g, &f->indices, 0, indices, 4u * offsets[N] + 4u) == VK_SUCCESS &&
             fenns_reference_csr(xyz, N, RADIUS, &ref_offsets, &ref_indices) == FENNS_REFERENCE_OK;
    }
    if (ok) {
        char msg[256] = "";
        int differs = fenns_reference_compare(xyz, N, RADIUS, ref_offsets, ref_indices, N, offsets, indices,
                                              FENNS_REFERENCE_ANY_ORDER, NULL, msg, sizeof msg);
        CHECK(differs == 0, "%s: %s", what, msg);
        ok = differs == 0;
    }
    fenns_reference_free(&ref_offsets, &ref_indices);
    free(offsets);
    free(indices);
    return ok && failures == 0;
}

static int check_refusal(fenns_pipeline pipe, const frame *f) {
    fenns_build_info b = build_info(f, NULL);
    fenns_search_info s = search_info(f, NULL);
    fenns_pass_info passes[FENNS_MAX_PASSES];
    /* Listing the passes needs no arena; recording does. */
    uint32_t listed = fenns_get_build_passes(pipe, &b, passes) + fenns_get_search_passes(pipe, &s, passes);
    VkCommandBuffer cmd;
    if (fenns_test_begin(&g, &cmd) != VK_SUCCESS) return 0;
    g.quiet = 1;
    g.error_messages = 0;
    fenns_cmd_build_pass(cmd, pipe, &b, 0);
    fenns_cmd_search(cmd, pipe, &s);
    fenns_cmd_search_pass(cmd, pipe, &s, 0);
    fenns_cmd_build(cmd, pipe, &b);
    uint32_t errors = g.error_messages;
    g.error_messages = 0;
    g.quiet = 0;
    /* A search that may record, of the build that was refused: it must
     * search nothing and read incomplete. */
    s.descriptors = g.arena;
    fenns_cmd_build_to_search_barrier(cmd, pipe);
    fenns_cmd_search(cmd, pipe, &s);
    copy_status(cmd, pipe, f);
    fenns_status st;
    int ran = fenns_test_submit(&g, cmd) == VK_SUCCESS && fenns_test_download(&g, &f->status, 0, &st, sizeof st) == VK_SUCCESS;
    CHECK(ran && listed > 0 && errors == 4 && st.incomplete_queries != 0 && st.total_neighbors == 0,
          "without an arena: %u passes listed (some expected), %u of 4 recordings refused, a search of the refused "
          "build reads %u incomplete queries and %llu neighbours",
          listed, errors, ran ? st.incomplete_queries : 0u, ran ? (unsigned long long)st.total_neighbors : 0ull);
    if (!failures) printf("ok   recording without an arena is refused and marks the status (listing the passes is not)\n");
    return failures == 0;
}

/* Frames whose buffers are all destroyed and made again in between. */
static int check_recreated_buffers(fenns_pipeline pipe, float *xyz, float *vec4) {
    for (int k = 0; k < FRAMES; ++k) {
        frame f;
        points(100u + (uint32_t)k, xyz, vec4);
        VkCommandBuffer cmd;
        int ok = frame_create(pipe, &f, vec4) && fenns_test_begin(&g, &cmd) == VK_SUCCESS;
        CHECK(ok, "frame %d: buffers", k);
        if (ok) {
            record_frame(cmd, pipe, &f, g.arena);
            ok = fenns_test_submit(&g, cmd) == VK_SUCCESS; /* resets g.arena after the wait */
            char what[64];
            snprintf(what, sizeof what, "recreated buffers, frame %d", k);
            if (ok && check_lists(what, &f, xyz)) printf("ok   %s\n", what);
        }
        frame_destroy(&f);
        if (failures) return 0;
    }
    return 1;
}

/* A strict driver, as a wrapper around lavapipe (which hands out sets past a
 * pool's maxSets): each pool gives at most maxSets sets until it is reset,
 * and pool creation fails once `pool_limit` pools exist. */
static PFN_vkGetDeviceProcAddr real_gdpa;
static struct {
    VkDescriptorPool pool;
    uint32_t max_sets, given;
} pools[64];
static int pool_count, pool_limit;

static VKAPI_ATTR VkResult VKAPI_CALL strict_create_pool(VkDevice device, const VkDescriptorPoolCreateInfo *info,
                                                        const VkAllocationCallbacks *alloc, VkDescriptorPool *out) {
    if (pool_count >= pool_limit || pool_count >= 64) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    VkResult r = ((PFN_vkCreateDescriptorPool)real_gdpa(device, "vkCreateDescriptorPool"))(device, info, alloc, out);
    if (r == VK_SUCCESS) {
        pools[pool_count].pool = *out;
        pools[pool_count].max_sets = info->maxSets;
        pools[pool_count++].given = 0;
    }
    return r;
}
static VKAPI_ATTR VkResult VKAPI_CALL strict_allocate(VkDevice device, const VkDescriptorSetAllocateInfo *info,
                                                     VkDescriptorSet *sets) {
    for (int k = 0; k < pool_count; ++k)
        if (pools[k].pool == info->descriptorPool) {
            if (pools[k].given + info->descriptorSetCount > pools[k].max_sets) return VK_ERROR_OUT_OF_POOL_MEMORY;
            pools[k].given += info->descriptorSetCount;
        }
    return ((PFN_vkAllocateDescriptorSets)real_gdpa(device, "vkAllocateDescriptorSets"))(device, info, sets);
}
static VKAPI_ATTR VkResult VKAPI_CALL strict_reset(VkDevice device, VkDescriptorPool pool, VkDescriptorPoolResetFlags flags) {
    for (int k = 0; k < pool_count; ++k)
        if (pools[k].pool == pool) pools[k].given = 0;
    return ((PFN_vkResetDescriptorPool)real_gdpa(device, "vkResetDescriptorPool"))(device, pool, flags);
}
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL strict_gdpa(VkDevice device, const char *name) {
    if (!strcmp(name, "vkCreateDescriptorPool")) return (PFN_vkVoidFunction)strict_create_pool;
    if (!strcmp(name, "vkAllocateDescriptorSets")) return (PFN_vkVoidFunction)strict_allocate;
    if (!strcmp(name, "vkResetDescriptorPool")) return (PFN_vkVoidFunction)strict_reset;
    return real_gdpa(device, name);
}

/* On the strict driver with room for `limit` pools: `recordings` builds and
 * searches in one command buffer from one arena, the arena reset, then the
 * same again. Returns the last status and the errors logged. */
static int strict_run(int limit, int recordings, float *xyz, float *vec4, fenns_status *st, uint32_t *errors) {
    fenns_context_create_info ci;
    fenns_headless_context_info(g.headless, &ci);
    real_gdpa = ci.get_device_proc_addr ? ci.get_device_proc_addr
                                        : (PFN_vkGetDeviceProcAddr)ci.get_instance_proc_addr(ci.instance, "vkGetDeviceProcAddr");
    ci.get_device_proc_addr = strict_gdpa;
    pool_count = 0;
    pool_limit = limit;
    fenns_context ctx = NULL;
    fenns_descriptor_arena arena = NULL;
    fenns_pipeline pipe = NULL;
    fenns_pipeline_create_info pi = {0};
    pi.radius = RADIUS;
    pi.max_particles = N;
    int ok = fenns_context_create(&ci, &ctx) == FENNS_SUCCESS && !fenns_context_uses_push_descriptors(ctx) &&
             fenns_descriptor_arena_create(ctx, &arena) == FENNS_SUCCESS && pool_count == 1 &&
             fenns_pipeline_create(ctx, &pi, &pipe) == FENNS_SUCCESS;
    CHECK(ok, "strict driver: context, arena and pipeline");
    frame f;
    memset(&f, 0, sizeof f);
    points(9u, xyz, vec4);
    ok = ok && frame_create(pipe, &f, vec4);
    *errors = 0;
    for (int round = 0; ok && round < 2; ++round) {
        VkCommandBuffer cmd;
        ok = fenns_test_begin(&g, &cmd) == VK_SUCCESS;
        if (!ok) break;
        g.quiet = 1;
        g.error_messages = 0;
        for (int k = 0; k < recordings; ++k) record_frame(cmd, pipe, &f, arena);
        *errors += g.error_messages;
        g.error_messages = 0;
        g.quiet = 0;
        ok = fenns_test_submit(&g, cmd) == VK_SUCCESS &&
             fenns_test_download(&g, &f.status, 0, st, sizeof *st) == VK_SUCCESS;
        fenns_descriptor_arena_reset(arena);
    }
    CHECK(ok, "strict driver: recording");
    if (ok && !*errors && !check_lists("strict driver", &f, xyz)) ok = 0;
    frame_destroy(&f);
    fenns_pipeline_destroy(pipe);
    fenns_descriptor_arena_destroy(arena);
    fenns_context_destroy(ctx);
    return ok;
}

/* Growth: more sets in one command buffer than a pool holds, twice (the
 * second time from the pools the first made). Failure: no pool past the
 * first; a recording that outgrows it logs, stops, and reads incomplete. */
static int check_strict_driver(float *xyz, float *vec4) {
    fenns_status st;
    uint32_t errors = 0;
    if (strict_run(64, GROWTH_RECORDINGS, xyz, vec4, &st, &errors)) {
        int grew = pool_count;
        CHECK(errors == 0 && grew > 1 && grew <= 4, "growth: %u errors, %d pools (expected 2..4, kept for the second round)",
              errors, grew);
        if (!failures)
            printf("ok   %d builds and searches per command buffer on a driver that enforces maxSets: %d pools, "
                   "reused after the reset\n", GROWTH_RECORDINGS, grew);
    }
    if (failures) return 0;
    if (strict_run(1, GROWTH_RECORDINGS, xyz, vec4, &st, &errors)) {
        CHECK(errors > 0 && st.incomplete_queries != 0,
              "failure: %u errors logged, incomplete_queries %u (a recording without its sets must read incomplete)",
              errors, st.incomplete_queries);
        if (!failures) printf("ok   a recording whose arena cannot grow logs (%u errors) and reads incomplete\n", errors);
    }
    return failures == 0;
}

int main(void) {
    setenv("FENNS_NO_PUSH_DESCRIPTORS", "1", 1); /* the device without VK_KHR_push_descriptor */
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    CHECK(!fenns_context_uses_push_descriptors(g.context), "the context chose push descriptors on a device without them");
    float *xyz = malloc(12u * N), *vec4 = malloc(16u * N);
    fenns_pipeline pipe = NULL;
    fenns_pipeline_create_info pi = {0};
    pi.radius = RADIUS;
    pi.max_particles = N;
    int ok = !failures && xyz && vec4 && fenns_pipeline_create(g.context, &pi, &pipe) == FENNS_SUCCESS;
    CHECK(ok, "pipeline");
    if (ok) {
        frame f;
        points(1u, xyz, vec4);
        ok = frame_create(pipe, &f, vec4) && check_refusal(pipe, &f);
        frame_destroy(&f);
    }
    ok = ok && check_recreated_buffers(pipe, xyz, vec4);
    fenns_pipeline_destroy(pipe);
    ok = ok && check_strict_driver(xyz, vec4);
    free(xyz);
    free(vec4);
    uint32_t problems = fenns_test_gpu_close(&g);
    return ok && problems == 0 && failures == 0 ? 0 : 1;
}
