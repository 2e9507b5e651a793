/*
 * Per-frame parameters: fenns_build_info.radius and .domain change the
 * radius and the box from one build to the next without re-creating the
 * pipeline.
 *
 * For every method, on a pipeline with a GPU-computed box and on one with a
 * caller's box (counting, octant, radix: also on the paper's grid of
 * grid_size cells): six frames recorded back to back in one command buffer,
 * under validation and synchronization validation, one scratch for all of
 * them (a barrier between frames, as an engine reusing its scratch puts
 * one), each frame with its own moved positions, radius (the pipeline's,
 * smaller, larger) and box (the pipeline's, a box around the particles, a
 * box half their size that clamps most of them). Each frame's CSR lists
 * must equal the CPU reference at that frame's radius, and its status must
 * report the frame's box. The pass list names "domain reduce" exactly when
 * the build computes its box; refused radii and boxes record nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan.h"
#include "gpu_test.h"
#include "reference.h"

enum { N = 4000, FRAMES = 6 };
#define PIPELINE_RADIUS 0.08f
#define LIST_CAPACITY (256u * N) /* entries per frame; the densest frame needs about 60 per particle */

typedef struct frame {
    float radius;              /* fenns_build_info.radius: 0 is the pipeline's */
    int has_box;
    fenns_domain box;
    float drift;               /* how far this frame's particles moved */
} frame;

static const frame frames[FRAMES] = {
    {0.0f, 0, {{0}, {0}}, 0.0f},
    {0.05f, 0, {{0}, {0}}, 0.01f},
    {0.15f, 0, {{0}, {0}}, 0.02f},
    {0.1f, 1, {{-0.2f, -0.2f, -0.2f}, {1.2f, 1.2f, 1.2f}}, 0.03f},
    {0.12f, 1, {{0.25f, 0.25f, 0.25f}, {0.75f, 0.75f, 0.75f}}, 0.04f},
    {0.03f, 0, {{0}, {0}}, 0.05f},
};

typedef struct frame_buffers {
    fenns_test_buffer positions, counts, offsets, indices, status;
} frame_buffers;

/* The frame's particles: a fixed cloud, each point moved along its own
 * direction by `drift` (so every frame sorts anew). */
static void frame_points(const float *base, float drift, float *xyz, float *vec4) {
    for (uint32_t i = 0; i < N; ++i)
        for (uint32_t a = 0; a < 3; ++a) {
            float v = base[3 * i + a] + drift * sinf((float)(7 * i + 3 * a));
            xyz[3 * i + a] = v;
            vec4[4 * i + a] = v;
            vec4[4 * i + 3] = 0.0f;
        }
}

static float frame_radius(const frame *f) { return f->radius != 0.0f ? f->radius : PIPELINE_RADIUS; }

static fenns_descriptor_arena arena; /* the test device's (fenns_test_gpu.arena) */

static fenns_build_info frame_build_info(const frame_buffers *fb, const fenns_test_buffer *scratch, const frame *f) {
    fenns_build_info b = {0};
    b.descriptors = arena;
    b.particle_count = N;
    b.positions = fenns_test_range(&fb->positions, 0, VK_WHOLE_SIZE);
    b.scratch = fenns_test_range(scratch, 0, VK_WHOLE_SIZE);
    b.radius = f->radius;
    b.domain = f->has_box ? &f->box : NULL;
    return b;
}

static int has_pass(const fenns_pass_info *passes, uint32_t count, const char *name) {
    for (uint32_t k = 0; k < count; ++k)
        if (!strcmp(passes[k].name, name)) return 1;
    return 0;
}

/* The frames on one pipeline; 1 when every check passed. */
static int run_pipeline(fenns_test_gpu *g, fenns_method method, int pipeline_box, const float *base) {
    int ok = 1;
    char what[96];
    snprintf(what, sizeof what, "%s, %s box", fenns_method_name(method),
             pipeline_box == 2 ? "caller's grid_size 6" : pipeline_box ? "caller's" : "GPU");
    fenns_pipeline_create_info pi = {0};
    pi.method = method;
    pi.radius = PIPELINE_RADIUS;
    pi.max_particles = N;
    if (pipeline_box)
        for (int a = 0; a < 3; ++a) {
            pi.domain_min[a] = -0.1f;
            pi.domain_max[a] = 1.1f;
        }
    /* The paper's baseline grid: 6^3 cells of 0.2 (2.5 margins), unfolded;
     * frames with a larger radius or their own box still fold as needed. */
    if (pipeline_box == 2) pi.grid_size = 6;
    fenns_pipeline pipe = NULL;
    fenns_test_buffer scratch = {0};
    frame_buffers fb[FRAMES];
    memset(fb, 0, sizeof fb);
    float *xyz = malloc(sizeof(float) * 3u * N * FRAMES), *vec4 = malloc(16u * N);
    uint64_t *offsets = malloc(8u * (N + 1u));
    uint32_t *indices = malloc(4u * LIST_CAPACITY);
    if (!xyz || !vec4 || !offsets || !indices) {
        fprintf(stderr, "FAIL %s: out of host memory\n", what);
        ok = 0;
        goto done;
    }
    CHECK(fenns_pipeline_create(g->context, &pi, &pipe) == FENNS_SUCCESS, "%s: pipeline", what);
    if (failures) {
        ok = 0;
        goto done;
    }
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(pipe, N, &req);
    int made = fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS;
    for (int f = 0; made && f < FRAMES; ++f) {
        const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        made = fenns_test_buffer_create(g, 16u * N, storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].positions) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 4u * N, storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].counts) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 8u * (N + 1u), storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].offsets) == VK_SUCCESS &&
               fenns_test_buffer_create(g, 4u * LIST_CAPACITY, storage, FENNS_TEST_DEVICE_LOCAL, &fb[f].indices) == VK_SUCCESS &&
               fenns_test_buffer_create(g, sizeof(fenns_status), 0, FENNS_TEST_DEVICE_LOCAL, &fb[f].status) == VK_SUCCESS;
        if (made) {
            frame_points(base, frames[f].drift, xyz + (size_t)3u * N * (size_t)f, vec4);
            made = fenns_test_upload(g, &fb[f].positions, 0, vec4, 16u * N) == VK_SUCCESS;
        }
    }
    CHECK(made, "%s: buffers", what);
    if (!made) {
        ok = 0;
        goto done;
    }

    /* The pass lists: "domain reduce" exactly when the build computes its box. */
    for (int f = 0; f < FRAMES; ++f) {
        fenns_build_info b = frame_build_info(&fb[f], &scratch, &frames[f]);
        fenns_pass_info passes[FENNS_MAX_PASSES];
        uint32_t count = fenns_get_build_passes(pipe, &b, passes);
        int computes_box = !frames[f].has_box && !pipeline_box;
        CHECK(count > 0 && has_pass(passes, count, "domain reduce") == computes_box,
              "%s, frame %d: %u passes, domain reduce %s", what, f, count, computes_box ? "missing" : "listed");
    }

    /* All frames in one command buffer: build, CSR search, status copy. */
    VkCommandBuffer cmd;
    if (fenns_test_begin(g, &cmd) != VK_SUCCESS) {
        ok = 0;
        goto done;
    }
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(pipe, N, &layout);
    for (int f = 0; f < FRAMES; ++f) {
        fenns_build_info b = frame_build_info(&fb[f], &scratch, &frames[f]);
        fenns_cmd_build(cmd, pipe, &b);
        fenns_cmd_build_to_search_barrier(cmd, pipe);
        fenns_search_info s = fenns_test_search_of(&b, FENNS_OUTPUT_CSR);
        s.counts = fenns_test_range(&fb[f].counts, 0, VK_WHOLE_SIZE);
        s.offsets = fenns_test_range(&fb[f].offsets, 0, VK_WHOLE_SIZE);
        s.indices = fenns_test_range(&fb[f].indices, 0, VK_WHOLE_SIZE);
        fenns_cmd_search(cmd, pipe, &s);
        fenns_test_cmd_barrier(cmd);
        VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
        vkCmdCopyBuffer(cmd, scratch.buffer, fb[f].status.buffer, 1, &status);
        fenns_test_cmd_barrier(cmd); /* the next build overwrites the scratch */
    }
    if (fenns_test_submit(g, cmd) != VK_SUCCESS) {
        ok = 0;
        goto done;
    }

    for (int f = 0; f < FRAMES; ++f) {
        const frame *fr = &frames[f];
        const float *pts = xyz + (size_t)3u * N * (size_t)f;
        fenns_status st;
        if (fenns_test_download(g, &fb[f].status, 0, &st, sizeof st) != VK_SUCCESS ||
            fenns_test_download(g, &fb[f].offsets, 0, offsets, 8u * (N + 1u)) != VK_SUCCESS) {
            ok = 0;
            break;
        }
        uint64_t m = offsets[N];
        CHECK(st.list_overflow == 0 && st.incomplete_queries == 0 && m == st.total_neighbors && m <= LIST_CAPACITY,
              "%s, frame %d: overflow %u, incomplete %u, m %llu, status total %llu", what, f, st.list_overflow,
              st.incomplete_queries, (unsigned long long)m, (unsigned long long)st.total_neighbors);
        if (failures) break;
        if (fenns_test_download(g, &fb[f].indices, 0, indices, 4u * m) != VK_SUCCESS) {
            ok = 0;
            break;
        }
        /* The box the build used: the frame's, else the pipeline's (a
         * computed box holds every particle). */
        for (uint32_t a = 0; a < 3; ++a) {
            if (fr->has_box) {
                CHECK(st.domain_min[a] == fr->box.min[a] && st.domain_max[a] == fr->box.max[a],
                      "%s, frame %d: status box axis %d [%g, %g], the frame's [%g, %g]", what, f, a,
                      (double)st.domain_min[a], (double)st.domain_max[a], (double)fr->box.min[a], (double)fr->box.max[a]);
            } else if (pipeline_box) {
                CHECK(st.domain_min[a] == pi.domain_min[a] && st.domain_max[a] == pi.domain_max[a],
                      "%s, frame %d: status box axis %d is not the pipeline's", what, f, a);
            } else {
                float lo = INFINITY, hi = -INFINITY;
                for (uint32_t i = 0; i < N; ++i) {
                    lo = fminf(lo, pts[3 * i + a]);
                    hi = fmaxf(hi, pts[3 * i + a]);
                }
                CHECK(st.domain_min[a] <= lo && st.domain_max[a] >= hi,
                      "%s, frame %d: computed box axis %d [%g, %g] misses particles in [%g, %g]", what, f, a,
                      (double)st.domain_min[a], (double)st.domain_max[a], (double)lo, (double)hi);
            }
        }
        /* grid_size 6: the pipeline's box in 6^3 cells where the frame's radius allows (cells of 0.2
         * hold 0.15's margin, octant's two margins only up to r 0.1). */
        float cell_margins = method == FENNS_METHOD_OCTANT ? 2.0f : 1.0f;
        if (pipeline_box == 2 && !fr->has_box && cell_margins * frame_radius(fr) < 0.19f)
            CHECK(st.coarse_dims[0] == 6 && st.coarse_dims[1] == 6 && st.coarse_dims[2] == 6,
                  "%s, frame %d: grid %ux%ux%u, not grid_size's 6^3", what, f, st.coarse_dims[0], st.coarse_dims[1],
                  st.coarse_dims[2]);
        uint64_t *ref_offsets = NULL;
        uint32_t *ref_indices = NULL;
        char msg[256] = "";
        float r = frame_radius(fr);
        int made_ref = fenns_reference_csr(pts, N, r, &ref_offsets, &ref_indices) == FENNS_REFERENCE_OK;
        CHECK(made_ref, "%s, frame %d: reference", what, f);
        if (made_ref) {
            int differs = fenns_reference_compare(pts, N, r, ref_offsets, ref_indices, N, offsets, indices,
                                                  FENNS_REFERENCE_ANY_ORDER, NULL, msg, sizeof msg);
            CHECK(differs == 0, "%s, frame %d (r = %g): %s", what, f, (double)r, msg);
            if (!differs)
                printf("ok   %s, frame %d: r = %g, %s box, %llu entries\n", what, f, (double)r,
                       fr->has_box ? "its own" : "the pipeline's", (unsigned long long)m);
        }
        fenns_reference_free(&ref_offsets, &ref_indices);
    }

done:
    for (int f = 0; f < FRAMES; ++f) {
        fenns_test_buffer_destroy(g, &fb[f].positions);
        fenns_test_buffer_destroy(g, &fb[f].counts);
        fenns_test_buffer_destroy(g, &fb[f].offsets);
        fenns_test_buffer_destroy(g, &fb[f].indices);
        fenns_test_buffer_destroy(g, &fb[f].status);
    }
    fenns_test_buffer_destroy(g, &scratch);
    fenns_pipeline_destroy(pipe);
    free(xyz);
    free(vec4);
    free(offsets);
    free(indices);
    return ok && failures == 0;
}

/* Refused per-build parameters: each is logged by name and lists no pass. */
static int check_refusals(fenns_test_gpu *g) {
    fenns_pipeline_create_info pi = {0};
    pi.radius = PIPELINE_RADIUS;
    pi.max_particles = N;
    fenns_pipeline pipe = NULL;
    fenns_test_buffer positions = {0}, scratch = {0};
    CHECK(fenns_pipeline_create(g->context, &pi, &pipe) == FENNS_SUCCESS, "refusals: pipeline");
    if (failures) return 0;
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(pipe, N, &req);
    int made = fenns_test_buffer_create(g, 16u * N, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL,
                                        &positions) == VK_SUCCESS &&
               fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS;
    CHECK(made, "refusals: buffers");
    const float radii[] = {-1.0f, NAN, INFINITY, -1e-30f};
    const fenns_domain boxes[] = {
        {{0, 0, 0}, {1, 0, 1}},                 /* empty along y */
        {{0, 0, 0}, {1, -1, 1}},                /* inverted */
        {{0, NAN, 0}, {1, 1, 1}},               /* not finite */
        {{0, 0, 0}, {INFINITY, 1, 1}},          /* not finite */
        {{-3e38f, 0, 0}, {3e38f, 1, 1}},        /* extent overflows float */
    };
    const size_t cases = sizeof radii / sizeof radii[0] + sizeof boxes / sizeof boxes[0];
    g->quiet = 1;
    uint32_t listed = 0;
    for (size_t c = 0; made && c < cases; ++c) {
        fenns_build_info b = {0};
        b.descriptors = arena;
        b.particle_count = N;
        b.positions = fenns_test_range(&positions, 0, VK_WHOLE_SIZE);
        b.scratch = fenns_test_range(&scratch, 0, VK_WHOLE_SIZE);
        if (c < sizeof radii / sizeof radii[0]) b.radius = radii[c];
        else b.domain = &boxes[c - sizeof radii / sizeof radii[0]];
        fenns_pass_info passes[FENNS_MAX_PASSES];
        listed += fenns_get_build_passes(pipe, &b, passes);
    }
    uint32_t errors = g->error_messages;
    g->error_messages = 0;
    g->quiet = 0;
    CHECK(made && listed == 0 && errors == cases, "refusals: %u passes listed, %u errors logged for %u refused infos",
          listed, errors, (unsigned)cases);
    fenns_test_buffer_destroy(g, &positions);
    fenns_test_buffer_destroy(g, &scratch);
    fenns_pipeline_destroy(pipe);
    if (!failures) printf("ok   refused radii and boxes record nothing\n");
    return failures == 0;
}

int main(void) {
    fenns_test_gpu g;
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    arena = g.arena;
    static float base[3 * N];
    uint32_t state = 7u;
    for (uint32_t k = 0; k < 3 * N; ++k) {
        state = state * 1664525u + 1013904223u;
        base[k] = (float)(state >> 8) / 16777216.0f;
    }
    int ok = 1;
    for (int method = 0; ok && method <= FENNS_METHOD_RADIX; ++method)
        for (int box = 0; ok && box < (fenns_plan_walks_particles((fenns_method)method) ? 3 : 2); ++box)
            ok &= run_pipeline(&g, (fenns_method)method, box, base);
    if (ok) ok &= check_refusals(&g);
    uint32_t problems = fenns_test_gpu_close(&g);
    return ok && problems == 0 && failures == 0 ? 0 : 1;
}
