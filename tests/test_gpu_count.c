/*
 * GPU-driven particle counts: fenns_build_info.particle_count_buffer.
 *
 * For both methods, frames recorded back to back in one command buffer on one
 * scratch, under validation and synchronization validation. Each frame's
 * count is written on the GPU (a fill, then a barrier to compute reads, as an
 * emitter's pass would leave it) into its own slot of one count buffer: all
 * particles, part of them, none, one, more than the build info's
 * particle_count (taken as particle_count, reported in the status).
 *
 * The positions past each count are traps: copies of present particles (so a
 * search that read them would list them as neighbours) and points at 1e30 (so
 * a domain reduce that read them would blow the box). Present particles
 * include NaN ones. Each frame's CSR lists, in original order or the build's
 * sorted order, must equal the CPU reference on the present particles; every
 * absent particle must have count 0, an empty list and, in sorted order, its
 * own place at the end of the permutation; the status must give the count,
 * the requested count, the invalid particles and a box that holds the present
 * particles only. The pass lists name the count buffer as read by the passes
 * before the count is in the scratch; a bad count range records nothing. A
 * user kernel's search (the density kernel) on a GPU count: present
 * particles see their reference neighbours, absent ones none.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "reference.h"

#include "fenns_kernel_sph_density.spv.h" /* needs stdint.h */

enum { N = 3000, FRAMES = 6 };
#define RADIUS 0.09f
#define LIST_CAPACITY (128u * N)

/* Each frame's count as the GPU writes it; the last but one asks for more than N. */
static const uint32_t requested[FRAMES] = {N, 1200, 0, 1, N + 777, 2500};

typedef struct frame_buffers {
    fenns_test_buffer counts, offsets, indices, perm, status;
} frame_buffers;

/* Present particles: a cloud with a NaN particle every 97th. Absent ones
 * (from `present` on): every third at 1e30, the others on present ones. */
static void frame_points(uint32_t present, float *xyz, float *vec4, uint32_t *nan_count) {
    uint32_t state = 11u + present;
    *nan_count = 0;
    for (uint32_t i = 0; i < N; ++i) {
        for (uint32_t a = 0; a < 3; ++a) {
            state = state * 1664525u + 1013904223u;
            xyz[3 * i + a] = (float)(state >> 8) / 16777216.0f;
        }
        if (i < present && i % 97u == 50u) {
            xyz[3 * i] = NAN;
            ++*nan_count;
        }
        if (i >= present && present > 0) {
            for (uint32_t a = 0; a < 3; ++a)
                xyz[3 * i + a] = i % 3u == 0u ? 1e30f : xyz[3 * ((i - present) % present) + a];
        }
        for (uint32_t a = 0; a < 3; ++a) vec4[4 * i + a] = xyz[3 * i + a];
        vec4[4 * i + 3] = 0.0f;
    }
}

static uint32_t present_of(int f) { return requested[f] < N ? requested[f] : N; }

/* Frame f's slot in the count buffer: one per storage-offset alignment. */
static VkDeviceSize slot_size(const fenns_test_gpu *g) {
    VkDeviceSize a = g->limits.min_storage_buffer_offset_alignment;
    return a > 4u ? a : 4u;
}

static fenns_descriptor_arena arena; /* the test device's (fenns_test_gpu.arena) */

static fenns_build_info frame_build(const fenns_test_buffer *positions, const fenns_test_buffer *scratch,
                                    const fenns_test_buffer *count, VkDeviceSize slot, int f) {
    fenns_build_info b = {0};
    b.descriptors = arena;
    b.particle_count = N;
    b.positions = fenns_test_range(&positions[f], 0, VK_WHOLE_SIZE);
    b.scratch = fenns_test_range(scratch, 0, VK_WHOLE_SIZE);
    b.particle_count_buffer = fenns_test_range(count, slot * (VkDeviceSize)f, 4u);
    return b;
}

/* Lists in original order from lists in sorted order (entries and list
 * places are sorted positions); 0 when perm is not a permutation. */
static int to_original_order(const uint32_t *perm, const uint64_t *offsets, const uint32_t *indices,
                             uint64_t *out_offsets, uint32_t *out_indices) {
    uint64_t *len = calloc(N, sizeof *len);
    if (!len) return 0;
    int ok = 1;
    for (uint32_t k = 0; k < N && ok; ++k) {
        ok = perm[k] < N && len[perm[k]] == 0;
        if (ok) len[perm[k]] = offsets[k + 1] - offsets[k] + 1u; /* +1: seen */
    }
    out_offsets[0] = 0;
    for (uint32_t i = 0; i < N && ok; ++i) out_offsets[i + 1] = out_offsets[i] + len[i] - 1u;
    for (uint32_t k = 0; k < N && ok; ++k)
        for (uint64_t e = offsets[k]; e < offsets[k + 1]; ++e) {
            ok = indices[e] < N;
            if (ok) out_indices[out_offsets[perm[k]] + (e - offsets[k])] = perm[indices[e]];
        }
    free(len);
    return ok;
}

static int check_frame(fenns_test_gpu *g, const char *what, int f, const frame_buffers *fb, const float *xyz,
                       uint32_t nan_count, int sorted) {
    int ok = 1;
    uint32_t m = present_of(f);
    fenns_status st;
    uint64_t *offsets = malloc(8u * (N + 1u)), *orig_offsets = malloc(8u * (N + 1u));
    uint32_t *indices = malloc(4u * LIST_CAPACITY), *orig_indices = malloc(4u * LIST_CAPACITY);
    uint32_t *counts = malloc(4u * N), *perm = malloc(4u * N);
    uint64_t *ref_offsets = NULL;
    uint32_t *ref_indices = NULL;
    if (!offsets || !orig_offsets || !indices || !orig_indices || !counts || !perm ||
        fenns_test_download(g, &fb->status, 0, &st, sizeof st) != VK_SUCCESS ||
        fenns_test_download(g, &fb->offsets, 0, offsets, 8u * (N + 1u)) != VK_SUCCESS ||
        fenns_test_download(g, &fb->counts, 0, counts, 4u * N) != VK_SUCCESS ||
        fenns_test_download(g, &fb->perm, 0, perm, 4u * N) != VK_SUCCESS) {
        CHECK(0, "%s, frame %d: host memory or download", what, f);
        ok = 0;
        goto done;
    }
    uint64_t total = offsets[N];
    CHECK(st.particle_count == m && st.requested_count == requested[f] && st.grid_mismatch == 0 &&
              st.invalid_count == nan_count && st.list_overflow == 0 && st.incomplete_queries == 0 &&
              st.total_neighbors == total && total <= LIST_CAPACITY,
          "%s, frame %d: status count %u (expected %u), requested %u (%u), invalid %u (%u), overflow %u, "
          "incomplete %u, total %llu, offsets total %llu",
          what, f, st.particle_count, m, st.requested_count, requested[f], st.invalid_count, nan_count,
          st.list_overflow, st.incomplete_queries, (unsigned long long)st.total_neighbors, (unsigned long long)total);
    for (uint32_t a = 0; a < 3; ++a)
        CHECK(st.domain_max[a] < 10.0f && st.domain_min[a] > -10.0f, "%s, frame %d: box axis %u [%g, %g] holds absent particles",
              what, f, a, (double)st.domain_min[a], (double)st.domain_max[a]);
    if (failures || fenns_test_download(g, &fb->indices, 0, indices, 4u * (total ? total : 1u)) != VK_SUCCESS) {
        ok = 0;
        goto done;
    }
    /* Absent particles: count 0, an empty list; in sorted order each keeps its place. */
    for (uint32_t i = m; i < N; ++i) {
        if (counts[i] != 0 || offsets[i + 1] != offsets[i] || (sorted && perm[i] != i)) {
            CHECK(0, "%s, frame %d: absent particle %u has count %u, list length %llu%s", what, f, i, counts[i],
                  (unsigned long long)(offsets[i + 1] - offsets[i]), sorted && perm[i] != i ? ", moved by the sort" : "");
            break;
        }
    }
    if (sorted) {
        CHECK(to_original_order(perm, offsets, indices, orig_offsets, orig_indices),
              "%s, frame %d: sorted_to_original is not a permutation", what, f);
    } else {
        memcpy(orig_offsets, offsets, 8u * (N + 1u));
        memcpy(orig_indices, indices, 4u * total);
    }
    if (failures) {
        ok = 0;
        goto done;
    }
    char msg[256] = "";
    CHECK(fenns_reference_csr(xyz, m, RADIUS, &ref_offsets, &ref_indices) == FENNS_REFERENCE_OK, "%s: reference", what);
    if (!failures) {
        /* The present particles' lists only: an absent index is out of range there. */
        int differs = fenns_reference_compare(xyz, m, RADIUS, ref_offsets, ref_indices, m, orig_offsets, orig_indices,
                                              FENNS_REFERENCE_ANY_ORDER, NULL, msg, sizeof msg);
        CHECK(differs == 0, "%s, frame %d (count %u of %u): %s", what, f, m, requested[f], msg);
        if (!differs)
            printf("ok   %s, frame %d: GPU count %u -> %u particles, %s order, %llu entries\n", what, f, requested[f], m,
                   sorted ? "sorted" : "original", (unsigned long long)total);
    }
done:
    fenns_reference_free(&ref_offsets, &ref_indices);
    free(offsets);
    free(orig_offsets);
    free(indices);
    free(orig_indices);
    free(counts);
    free(perm);
    return ok && failures == 0;
}

static int run_method(fenns_test_gpu *g, fenns_method method) {
    const char *what = fenns_method_name(method);
    int ok = 1;
    fenns_pipeline_create_info pi = {0};
    pi.method = method;
    pi.radius = RADIUS;
    pi.max_particles = N;
    fenns_pipeline pipe = NULL;
    fenns_test_buffer scratch = {0}, count = {0}, positions[FRAMES];
    frame_buffers fb[FRAMES];
    memset(fb, 0, sizeof fb);
    memset(positions, 0, sizeof positions);
    float *xyz = malloc(sizeof(float) * 3u * N * FRAMES), *vec4 = malloc(16u * N);
    uint32_t nan_count[FRAMES];
    const VkDeviceSize slot = slot_size(g);
    if (!xyz || !vec4) {
        CHECK(0, "%s: host memory", what);
        goto done;
    }
    CHECK(fenns_pipeline_create(g->context, &pi, &pipe) == FENNS_SUCCESS, "%s: pipeline", what);
    if (failures) goto done;
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(pipe, N, &req);
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    int made = fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS &&
               fenns_test_buffer_create(g, slot * FRAMES, storage, FENNS_TEST_DEVICE_LOCAL, &count) == VK_SUCCESS;
    for (int f = 0; made && f < FRAMES; ++f) {
        made = fenns_test_buffer_create(g, 16u * N, storage, FENNS_TEST_DEVICE_LOCAL, &positions[f]) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 4u * N, storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].counts) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 8u * (N + 1u), storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].offsets) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 4u * LIST_CAPACITY, storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].indices) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 4u * N, storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].perm) == VK_SUCCESS &&
               fenns_test_buffer_create(g, sizeof(fenns_status), 0, FENNS_TEST_DEVICE_LOCAL, &fb[f].status) == VK_SUCCESS;
        if (made) {
            frame_points(present_of(f), xyz + (size_t)3u * N * (size_t)f, vec4, &nan_count[f]);
            made = fenns_test_upload(g, &positions[f], 0, vec4, 16u * N) == VK_SUCCESS;
        }
    }
    CHECK(made, "%s: buffers", what);
    if (failures) goto done;

    /* The pass lists: the count buffer is read before the count is in the scratch. */
    fenns_build_info b0 = frame_build(positions, &scratch, &count, slot, 1);
    fenns_pass_info passes[FENNS_MAX_PASSES];
    uint32_t pass_count = fenns_get_build_passes(pipe, &b0, passes), readers = 0;
    for (uint32_t k = 0; k < pass_count; ++k)
        for (uint32_t a = 0; a < passes[k].access_count; ++a)
            if (passes[k].accesses[a].resource == FENNS_RESOURCE_PARTICLE_COUNT) {
                const fenns_pass_access *acc = &passes[k].accesses[a];
                CHECK(acc->range.buffer == count.buffer && acc->range.offset == slot && acc->accesses == VK_ACCESS_SHADER_READ_BIT &&
                          (!strcmp(passes[k].name, "domain reduce") || !strcmp(passes[k].name, "grid setup")),
                      "%s: pass %s declares the count buffer wrongly", what, passes[k].name);
                ++readers;
            }
    CHECK(readers == 2, "%s: %u passes read the count buffer, expected domain reduce and grid setup", what, readers);

    VkCommandBuffer cmd;
    if (failures || fenns_test_begin(g, &cmd) != VK_SUCCESS) {
        ok = 0;
        goto done;
    }
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(pipe, N, &layout);
    for (int f = 0; f < FRAMES; ++f) {
        /* The engine's pass that decides the count. */
        vkCmdFillBuffer(cmd, count.buffer, slot * (VkDeviceSize)f, 4u, requested[f]);
        fenns_test_cmd_barrier(cmd);
        fenns_build_info b = frame_build(positions, &scratch, &count, slot, f);
        fenns_cmd_build(cmd, pipe, &b);
        fenns_cmd_build_to_search_barrier(cmd, pipe);
        fenns_search_info s = fenns_test_search_of(&b, FENNS_OUTPUT_CSR | (f % 2 ? FENNS_OUTPUT_SORTED_ORDER : 0u));
        s.counts = fenns_test_range(&fb[f].counts, 0, VK_WHOLE_SIZE);
        s.offsets = fenns_test_range(&fb[f].offsets, 0, VK_WHOLE_SIZE);
        s.indices = fenns_test_range(&fb[f].indices, 0, VK_WHOLE_SIZE);
        if (f % 2) s.sorted_to_original = fenns_test_range(&fb[f].perm, 0, VK_WHOLE_SIZE);
        fenns_cmd_search(cmd, pipe, &s);
        fenns_test_cmd_barrier(cmd);
        VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
        vkCmdCopyBuffer(cmd, scratch.buffer, fb[f].status.buffer, 1, &status);
        fenns_test_cmd_barrier(cmd); /* the next frame overwrites the scratch */
    }
    if (fenns_test_submit(g, cmd) != VK_SUCCESS) {
        CHECK(0, "%s: submit", what);
        goto done;
    }
    for (int f = 0; f < FRAMES; ++f)
        ok &= check_frame(g, what, f, &fb[f], xyz + (size_t)3u * N * (size_t)f, nan_count[f], f % 2);

    /* A count range too short, or at an offset a storage buffer cannot be bound at. */
    g->quiet = 1;
    g->error_messages = 0;
    fenns_build_info bad = frame_build(positions, &scratch, &count, slot, 0);
    bad.particle_count_buffer.range = 2u;
    uint32_t listed = fenns_get_build_passes(pipe, &bad, passes), expected_errors = 1;
    if (slot > 4u) {
        bad = frame_build(positions, &scratch, &count, slot, 0);
        bad.particle_count_buffer.offset = 4u;
        listed += fenns_get_build_passes(pipe, &bad, passes);
        ++expected_errors;
    }
    uint32_t errors = g->error_messages;
    g->error_messages = 0;
    g->quiet = 0;
    CHECK(listed == 0 && errors == expected_errors, "%s: bad count ranges listed %u passes, logged %u errors (expected %u)",
          what, listed, errors, expected_errors);

done:
    for (int f = 0; f < FRAMES; ++f) {
        fenns_test_buffer_destroy(g, &positions[f]);
        fenns_test_buffer_destroy(g, &fb[f].counts);
        fenns_test_buffer_destroy(g, &fb[f].offsets);
        fenns_test_buffer_destroy(g, &fb[f].indices);
        fenns_test_buffer_destroy(g, &fb[f].perm);
        fenns_test_buffer_destroy(g, &fb[f].status);
    }
    fenns_test_buffer_destroy(g, &count);
    fenns_test_buffer_destroy(g, &scratch);
    fenns_pipeline_destroy(pipe);
    free(xyz);
    free(vec4);
    return ok && failures == 0;
}

/* A user kernel's search on a GPU count (the density kernel, which returns
 * (rho, neighbours, 0, 0)): present particles see exactly their reference
 * neighbours, absent ones finish with none. */
static int run_kernel(fenns_test_gpu *g, fenns_method method) {
    const char *what = fenns_method_name(method);
    const uint32_t present = 1200u;
    fenns_kernel_info kernel = {fenns_kernel_sph_density, sizeof fenns_kernel_sph_density, VK_NULL_HANDLE};
    fenns_pipeline_create_info pi = {0};
    pi.method = method;
    pi.radius = RADIUS;
    pi.max_particles = N;
    pi.kernel = &kernel;
    fenns_pipeline pipe = NULL;
    fenns_test_buffer scratch = {0}, count = {0}, positions = {0}, values = {0};
    float *xyz = malloc(12u * N), *vec4 = malloc(16u * N), *out = malloc(16u * N);
    uint64_t *ro = NULL;
    uint32_t *ri = NULL, nan_count = 0;
    int ok = xyz && vec4 && out && fenns_pipeline_create(g->context, &pi, &pipe) == FENNS_SUCCESS;
    fenns_memory_requirements req;
    if (ok) fenns_pipeline_get_scratch_requirements(pipe, N, &req);
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (ok) {
        frame_points(present, xyz, vec4, &nan_count);
        ok = fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 4u, storage, FENNS_TEST_DEVICE_LOCAL, &count) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 16u * N, storage, FENNS_TEST_DEVICE_LOCAL, &positions) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 16u * N, storage, FENNS_TEST_DEVICE_LOCAL, &values) == VK_SUCCESS &&
             fenns_test_upload(g, &positions, 0, vec4, 16u * N) == VK_SUCCESS &&
             fenns_reference_csr(xyz, present, RADIUS, &ro, &ri) == FENNS_REFERENCE_OK;
    }
    CHECK(ok, "%s kernel: pipeline, buffers, reference", what);
    VkCommandBuffer cmd;
    if (ok && fenns_test_begin(g, &cmd) == VK_SUCCESS) {
        vkCmdFillBuffer(cmd, count.buffer, 0, 4u, present);
        fenns_test_cmd_barrier(cmd);
        fenns_build_info b = {0};
        b.descriptors = arena;
        b.particle_count = N;
        b.positions = fenns_test_range(&positions, 0, VK_WHOLE_SIZE);
        b.scratch = fenns_test_range(&scratch, 0, VK_WHOLE_SIZE);
        b.particle_count_buffer = fenns_test_range(&count, 0, 4u);
        fenns_cmd_build(cmd, pipe, &b);
        fenns_cmd_build_to_search_barrier(cmd, pipe);
        fenns_search_info si = fenns_test_search_of(&b, FENNS_OUTPUT_KERNEL);
        si.kernel_output = fenns_test_range(&values, 0, VK_WHOLE_SIZE);
        fenns_cmd_search(cmd, pipe, &si);
        fenns_test_cmd_barrier(cmd);
        ok = fenns_test_submit(g, cmd) == VK_SUCCESS && fenns_test_download(g, &values, 0, out, 16u * N) == VK_SUCCESS;
        CHECK(ok, "%s kernel: run", what);
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; ok && i < N; ++i) {
        float expect = i < present ? (float)(ro[i + 1] - ro[i]) : 0.0f;
        if (out[4 * i + 1] != expect) {
            if (!bad) CHECK(0, "%s kernel: %s particle %u finished with %g neighbours, expected %g", what,
                            i < present ? "present" : "absent", i, (double)out[4 * i + 1], (double)expect);
            ++bad;
        }
    }
    if (ok && !bad) printf("ok   %s kernel search on a GPU count of %u of %u particles\n", what, present, N);
    fenns_reference_free(&ro, &ri);
    fenns_test_buffer_destroy(g, &scratch);
    fenns_test_buffer_destroy(g, &count);
    fenns_test_buffer_destroy(g, &positions);
    fenns_test_buffer_destroy(g, &values);
    fenns_pipeline_destroy(pipe);
    free(xyz);
    free(vec4);
    free(out);
    return ok && failures == 0;
}

int main(void) {
    fenns_test_gpu g;
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    arena = g.arena;
    int ok = run_method(&g, FENNS_METHOD_FENNS);
    ok &= run_method(&g, FENNS_METHOD_FENNS_PAPER);
    ok &= run_method(&g, FENNS_METHOD_COUNTING);
    ok &= run_method(&g, FENNS_METHOD_OCTANT);
    ok &= run_method(&g, FENNS_METHOD_RADIX);
    ok &= run_kernel(&g, FENNS_METHOD_FENNS);
    ok &= run_kernel(&g, FENNS_METHOD_FENNS_PAPER);
    ok &= run_kernel(&g, FENNS_METHOD_COUNTING);
    ok &= run_kernel(&g, FENNS_METHOD_OCTANT);
    ok &= run_kernel(&g, FENNS_METHOD_RADIX);
    uint32_t problems = fenns_test_gpu_close(&g);
    return ok && problems == 0 && failures == 0 ? 0 : 1;
}
