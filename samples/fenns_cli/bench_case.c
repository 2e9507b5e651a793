/* One benchmark case: buffers, the warm back-to-back iterations and their
 * per-pass medians (see bench_case.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <volk.h>

#include "sample_gpu.h"

#include "fenns_kernel_sph_density.spv.h" /* fenns_add_kernel, at build time */

const char *const bench_call_names[BENCH_CALLS] = {"build", "counts", "csr", "kernel"};

#define WARMUP 3u
#define QUERIES_PER_CALL (FENNS_MAX_PROFILED_PASSES + 1u)

typedef struct bench_gpu {
    VkDevice device;
    VkPhysicalDevice physical_device;
    VkQueue queue;
    VkCommandPool pool;
    VkFence fence;
    VkQueryPool queries;
} bench_gpu;

static VkResult begin(const bench_gpu *g, VkCommandBuffer *cmd) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = g->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkResult r = vkAllocateCommandBuffers(g->device, &ai, cmd);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (r == VK_SUCCESS) r = vkBeginCommandBuffer(*cmd, &bi);
    return r;
}

static VkResult submit(const bench_gpu *g, VkCommandBuffer cmd) {
    VkResult r = vkEndCommandBuffer(cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if (r == VK_SUCCESS) r = vkResetFences(g->device, 1, &g->fence);
    if (r == VK_SUCCESS) r = vkQueueSubmit(g->queue, 1, &si, g->fence);
    if (r == VK_SUCCESS) r = vkWaitForFences(g->device, 1, &g->fence, VK_TRUE, UINT64_MAX);
    vkFreeCommandBuffers(g->device, g->pool, 1, &cmd);
    return r;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, uint32_t count) {
    qsort(v, count, sizeof *v, cmp_double);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

typedef struct case_state {
    bench_gpu g;
    fenns_pipeline pipeline;
    fenns_descriptor_arena arena; /* descriptor sets where the device has no push descriptors */
    sample_buffer positions, scratch, counts, offsets, indices, status, upload, values;
    fenns_profile *profiles; /* (WARMUP + reps) * BENCH_CALLS */
    uint64_t *timestamps;
    double *samples;
} case_state;

static void case_free(case_state *s) {
    const bench_gpu *g = &s->g;
    if (g->device) vkDeviceWaitIdle(g->device);
    sample_buffer_destroy(g->device, &s->positions);
    sample_buffer_destroy(g->device, &s->scratch);
    sample_buffer_destroy(g->device, &s->counts);
    sample_buffer_destroy(g->device, &s->offsets);
    sample_buffer_destroy(g->device, &s->indices);
    sample_buffer_destroy(g->device, &s->status);
    sample_buffer_destroy(g->device, &s->upload);
    sample_buffer_destroy(g->device, &s->values);
    fenns_pipeline_destroy(s->pipeline);
    fenns_descriptor_arena_destroy(s->arena);
    if (g->queries) vkDestroyQueryPool(g->device, g->queries, NULL);
    if (g->fence) vkDestroyFence(g->device, g->fence, NULL);
    if (g->pool) vkDestroyCommandPool(g->device, g->pool, NULL);
    free(s->profiles);
    free(s->timestamps);
    free(s->samples);
}

/* fenns_pipeline_statistics' callback: a line a pass, "pass  Name=value ..."
 * as the driver names its statistics. */
typedef struct statistics_printer {
    FILE *out;
    const char *pass; /* the line being printed, NULL before the first */
} statistics_printer;

static void print_statistic(const char *pass, const VkPipelineExecutablePropertiesKHR *executable,
                            const VkPipelineExecutableStatisticKHR *statistic, void *user_data) {
    statistics_printer *p = user_data;
    (void)executable;
    if (!p->pass || strcmp(p->pass, pass) != 0) {
        fprintf(p->out, "%s%-22s", p->pass ? "\n" : "", pass);
        p->pass = pass;
    }
    fprintf(p->out, "  %s=", statistic->name);
    switch (statistic->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        fputs(statistic->value.b32 ? "true" : "false", p->out);
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        fprintf(p->out, "%lld", (long long)statistic->value.i64);
        break;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        fprintf(p->out, "%llu", (unsigned long long)statistic->value.u64);
        break;
    default:
        fprintf(p->out, "%g", statistic->value.f64);
    }
}

#define FAIL(...)                                    \
    do {                                             \
        snprintf(why, why_size, __VA_ARGS__);        \
        case_free(&s);                               \
        return 1;                                    \
    } while (0)
#define VK_TRY(call, what)                                                        \
    do {                                                                          \
        VkResult r_ = (call);                                                     \
        if (r_ != VK_SUCCESS) FAIL("%s failed (VkResult %d)", what, (int)r_);     \
    } while (0)

/* Records one build + counts search + CSR search + density kernel search,
 * with profiles (BENCH_CALLS of them; NULL: none): the calls up to and
 * including `last` (BENCH_KERNEL: all). */
static void record_iteration(VkCommandBuffer cmd, case_state *s, uint32_t n, int sorted_order, fenns_profile *profiles,
                             uint32_t last) {
    fenns_profile *profile[BENCH_CALLS];
    for (uint32_t k = 0; k < BENCH_CALLS; ++k) profile[k] = profiles ? &profiles[k] : NULL;
    const fenns_output_flags order = sorted_order ? FENNS_OUTPUT_SORTED_ORDER : 0u;
    fenns_build_info b = {.particle_count = n, .positions = sample_whole(&s->positions),
                          .scratch = sample_whole(&s->scratch), .profile = profile[BENCH_BUILD],
                          .descriptors = s->arena};
    fenns_cmd_build(cmd, s->pipeline, &b);
    fenns_cmd_build_to_search_barrier(cmd, s->pipeline);
    fenns_search_info si = {0};
    si.particle_count = n;
    si.positions = b.positions;
    si.scratch = b.scratch;
    si.descriptors = s->arena;
    si.outputs = FENNS_OUTPUT_COUNTS | order;
    si.counts = sample_whole(&s->counts);
    si.profile = profile[BENCH_COUNTS];
    fenns_cmd_search(cmd, s->pipeline, &si);
    sample_full_barrier(cmd);
    si.outputs = FENNS_OUTPUT_CSR | order;
    si.offsets = sample_whole(&s->offsets);
    si.indices = sample_whole(&s->indices);
    si.profile = profile[BENCH_CSR];
    fenns_cmd_search(cmd, s->pipeline, &si);
    sample_full_barrier(cmd);
    if (last == BENCH_CSR) return;
    si.outputs = FENNS_OUTPUT_KERNEL | order;
    si.kernel_output = sample_whole(&s->values);
    si.profile = profile[BENCH_KERNEL];
    fenns_cmd_search(cmd, s->pipeline, &si);
    sample_full_barrier(cmd);
}

static void copy_status(VkCommandBuffer cmd, case_state *s, uint32_t n) {
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(s->pipeline, n, &layout);
    VkBufferCopy c = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, s->scratch.buffer, s->status.buffer, 1, &c);
    sample_full_barrier(cmd);
}

int bench_case_run(fenns_headless headless, fenns_context context, const bench_case *c, bench_result *out,
                   char *why, size_t why_size) {
    case_state s;
    memset(&s, 0, sizeof s);
    memset(out, 0, sizeof *out);
    out->host_ms = -1.0;
    const uint32_t n = c->n, iterations = WARMUP + c->reps;
    s.g.device = fenns_headless_device(headless);
    s.g.physical_device = fenns_headless_physical_device(headless);
    s.g.queue = fenns_headless_queue(headless);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = fenns_headless_queue_family(headless)};
    VK_TRY(vkCreateCommandPool(s.g.device, &pi, NULL, &s.g.pool), "vkCreateCommandPool");
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(vkCreateFence(s.g.device, &fi, NULL, &s.g.fence), "vkCreateFence");
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = iterations * BENCH_CALLS * QUERIES_PER_CALL};
    VK_TRY(vkCreateQueryPool(s.g.device, &qi, NULL, &s.g.queries), "vkCreateQueryPool");
    s.profiles = calloc((size_t)iterations * BENCH_CALLS, sizeof *s.profiles);
    s.timestamps = calloc(qi.queryCount, sizeof *s.timestamps);
    s.samples = calloc(c->reps, sizeof *s.samples);
    if (!s.profiles || !s.timestamps || !s.samples) FAIL("out of host memory");

    fenns_pipeline_create_info pci = {0};
    pci.method = c->method;
    pci.radius = c->radius;
    pci.max_particles = n ? n : 1u;
    memcpy(pci.domain_min, c->domain_min, sizeof pci.domain_min);
    memcpy(pci.domain_max, c->domain_max, sizeof pci.domain_max);
    pci.grid_size = c->grid_size;
    fenns_kernel_info density = {fenns_kernel_sph_density, sizeof fenns_kernel_sph_density, VK_NULL_HANDLE};
    pci.kernel = &density;
    fenns_result fr = fenns_pipeline_create(context, &pci, &s.pipeline);
    if (fr != FENNS_SUCCESS) FAIL("fenns_pipeline_create: %s", fenns_result_string(fr));
    fr = fenns_descriptor_arena_create(context, &s.arena);
    if (fr != FENNS_SUCCESS) FAIL("fenns_descriptor_arena_create: %s", fenns_result_string(fr));
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(s.pipeline, n, &req);
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, 16u * (VkDeviceSize)n, 0, &s.positions), "positions buffer");
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, 16u * (VkDeviceSize)n, 1, &s.upload), "upload buffer");
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, req.size, 0, &s.scratch), "scratch buffer");
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, 4u * (VkDeviceSize)n, 0, &s.counts), "counts buffer");
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, 8u * ((VkDeviceSize)n + 1u), 0, &s.offsets), "offsets buffer");
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, sizeof(fenns_status), 1, &s.status), "status buffer");
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, 16u * (VkDeviceSize)n, 0, &s.values), "kernel values buffer");
    float *v4 = s.upload.mapped;
    for (uint32_t i = 0; i < n; ++i) {
        memcpy(v4 + 4u * i, c->xyz + 3u * i, 3u * sizeof(float));
        v4[4u * i + 3u] = 0.0f;
    }

    /* Upload, then one counting search to size the lists exactly. */
    VkCommandBuffer cmd;
    VK_TRY(begin(&s.g, &cmd), "vkBeginCommandBuffer");
    VkBufferCopy up = {0, 0, 16u * (VkDeviceSize)(n ? n : 1u)};
    vkCmdCopyBuffer(cmd, s.upload.buffer, s.positions.buffer, 1, &up);
    sample_full_barrier(cmd);
    fenns_build_info b = {.particle_count = n, .positions = sample_whole(&s.positions), .scratch = sample_whole(&s.scratch),
                          .descriptors = s.arena};
    fenns_cmd_build(cmd, s.pipeline, &b);
    fenns_cmd_build_to_search_barrier(cmd, s.pipeline);
    fenns_search_info si = {0};
    si.particle_count = n;
    si.positions = b.positions;
    si.scratch = b.scratch;
    si.descriptors = s.arena;
    si.outputs = FENNS_OUTPUT_COUNTS;
    si.counts = sample_whole(&s.counts);
    fenns_cmd_search(cmd, s.pipeline, &si);
    sample_full_barrier(cmd);
    copy_status(cmd, &s, n);
    VK_TRY(submit(&s.g, cmd), "the sizing submit");
    fenns_descriptor_arena_reset(s.arena); /* its command buffer is done */
    memcpy(&out->status, s.status.mapped, sizeof out->status);
    if (out->status.incomplete_queries) FAIL("the driver's loop limit cuts this search short");
    uint64_t m = out->status.total_neighbors;
    VK_TRY(sample_buffer_create(s.g.device, s.g.physical_device, 4u * (m ? m : 1u), 0, &s.indices), "lists buffer");

    /* Clocks up first: a GPU lowers its clocks while it idles (here while
     * the CPU made, sorted or uploaded the points), and the three warm-up
     * iterations of a small case are too short to raise them again (H100:
     * rows measured right after a second of idle read up to 2x slow).
     * Iterations submitted one after another for 200 ms. */
    for (double until = now_ms() + 200.0; now_ms() < until;) {
        VK_TRY(begin(&s.g, &cmd), "vkBeginCommandBuffer");
        record_iteration(cmd, &s, n, c->sorted_order, NULL, BENCH_KERNEL);
        VK_TRY(submit(&s.g, cmd), "a warm-up submit");
        fenns_descriptor_arena_reset(s.arena); /* its command buffer is done */
    }

    /* The measured run: warm-up and measured iterations back to back. */
    VK_TRY(begin(&s.g, &cmd), "vkBeginCommandBuffer");
    vkCmdResetQueryPool(cmd, s.g.queries, 0, qi.queryCount);
    for (uint32_t it = 0; it < iterations; ++it) {
        fenns_profile *p = &s.profiles[(size_t)it * BENCH_CALLS];
        for (uint32_t k = 0; k < BENCH_CALLS; ++k) {
            p[k].query_pool = s.g.queries;
            p[k].first_query = (it * BENCH_CALLS + k) * QUERIES_PER_CALL;
        }
        record_iteration(cmd, &s, n, c->sorted_order, p, BENCH_KERNEL);
    }
    copy_status(cmd, &s, n);
    VK_TRY(submit(&s.g, cmd), "the measured submit");
    memcpy(&out->status, s.status.mapped, sizeof out->status);
    if (out->status.list_overflow || out->status.incomplete_queries || out->status.total_neighbors != m)
        FAIL("the measured searches disagree with the sizing search (overflow %u, incomplete %u)",
             out->status.list_overflow, out->status.incomplete_queries);
    /* And the CSR search's own status: each iteration ends with the kernel
     * search, whose status reset clears what the CSR search reported. */
    VK_TRY(begin(&s.g, &cmd), "vkBeginCommandBuffer");
    record_iteration(cmd, &s, n, c->sorted_order, NULL, BENCH_CSR);
    copy_status(cmd, &s, n);
    VK_TRY(submit(&s.g, cmd), "the CSR check's submit");
    fenns_descriptor_arena_reset(s.arena); /* its command buffer is done */
    fenns_status csr_status;
    memcpy(&csr_status, s.status.mapped, sizeof csr_status);
    if (csr_status.list_overflow || csr_status.incomplete_queries || csr_status.total_neighbors != m)
        FAIL("the CSR search disagrees with the sizing search (overflow %u, incomplete %u, total %llu of %llu)",
             csr_status.list_overflow, csr_status.incomplete_queries, (unsigned long long)csr_status.total_neighbors,
             (unsigned long long)m);
    out->total_neighbors = (double)m;

    /* Only written queries are read (an unwritten one would never be ready). */
    for (uint32_t it = WARMUP; it < iterations; ++it)
        for (uint32_t k = 0; k < BENCH_CALLS; ++k) {
            fenns_profile *p = &s.profiles[(size_t)it * BENCH_CALLS + k];
            VK_TRY(vkGetQueryPoolResults(s.g.device, s.g.queries, p->first_query, p->pass_count + 1u,
                                         sizeof(uint64_t) * (p->pass_count + 1u), s.timestamps + p->first_query,
                                         sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                   "vkGetQueryPoolResults");
        }
    for (uint32_t k = 0; k < BENCH_CALLS; ++k) {
        const fenns_profile *first = &s.profiles[(size_t)WARMUP * BENCH_CALLS + k];
        uint32_t passes = first->pass_count;
        out->pass_count[k] = passes;
        double per_pass[FENNS_MAX_PROFILED_PASSES];
        for (uint32_t ps = 0; ps <= passes; ++ps) {
            for (uint32_t rep = 0; rep < c->reps; ++rep) {
                const fenns_profile *p = &s.profiles[(size_t)(WARMUP + rep) * BENCH_CALLS + k];
                if (fenns_profile_pass_ms(context, p, s.timestamps + p->first_query, per_pass) != FENNS_SUCCESS)
                    FAIL("this queue family writes no timestamps");
                double total = 0.0;
                for (uint32_t q = 0; q < passes; ++q) total += per_pass[q];
                s.samples[rep] = ps < passes ? per_pass[ps] : total;
            }
            double med = median(s.samples, c->reps);
            if (ps < passes) {
                out->pass_ms[k][ps] = med;
                out->pass_names[k][ps] = first->pass_names[ps];
                out->pass_bytes[k][ps] = first->pass_bytes[ps];
            } else {
                out->call_ms[k] = med;
            }
        }
    }
    out->gpu_mem_bytes = req.size + 4u * (uint64_t)n + 8u * ((uint64_t)n + 1u) + 4u * m;

    if (c->host) { /* host positions in, CSR lists in host memory out, on a kept searcher: 3 warm-ups, then reps */
        fenns_host_search_info hi = {0};
        hi.method = c->method;
        hi.radius = c->radius;
        hi.positions = c->xyz;
        hi.particle_count = n;
        memcpy(hi.domain_min, c->domain_min, sizeof hi.domain_min);
        memcpy(hi.domain_max, c->domain_max, sizeof hi.domain_max);
        hi.queue = s.g.queue;
        fenns_host_searcher searcher = NULL;
        fr = fenns_host_searcher_create(context, &searcher);
        enum { WARM_UPS = 3 }; /* as the GPU part's */
        for (uint32_t rep = 0; rep < c->reps + WARM_UPS && fr == FENNS_SUCCESS; ++rep) {
            fenns_host_csr csr;
            double t0 = now_ms();
            fr = fenns_host_searcher_run(searcher, &hi, &csr);
            double t1 = now_ms();
            if (fr == FENNS_SUCCESS && csr.total != m) {
                fenns_host_searcher_destroy(searcher);
                FAIL("fenns_host_searcher_run found %llu entries, the recorded search %llu",
                     (unsigned long long)csr.total, (unsigned long long)m);
            }
            fenns_host_csr_free(context, &csr);
            if (rep >= WARM_UPS) s.samples[rep - WARM_UPS] = t1 - t0;
        }
        fenns_host_searcher_destroy(searcher);
        if (fr != FENNS_SUCCESS) FAIL("host search: %s", fenns_result_string(fr));
        out->host_ms = median(s.samples, c->reps);
    }
    if (c->pipeline_statistics) {
        statistics_printer printer = {c->pipeline_statistics, NULL};
        fenns_result got = fenns_pipeline_statistics(s.pipeline, print_statistic, &printer);
        if (printer.pass) fputc('\n', c->pipeline_statistics);
        if (got != FENNS_SUCCESS) FAIL("fenns_pipeline_statistics: %s", fenns_result_string(got));
    }
    case_free(&s);
    return 0;
}
