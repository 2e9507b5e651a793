/*
 * User neighbour kernels (fenns_kernel.h) against a CPU evaluation of the
 * same kernels over the CPU reference's neighbour lists, on adversarial
 * point sets, for every method:
 *  - "stats", compiled at run time: neighbour count, sum of distances, an
 *    order-free hash of the neighbour indices, the smallest neighbour index;
 *  - samples/kernels/sph_density.glsl, compiled at run time from its file;
 *  - tests/kernels/mass_sum.glsl, compiled at build time by fenns_add_kernel,
 *    reading and writing buffers of its own descriptor set (set 1).
 * Also: bit-identical outputs run to run (fenns), SORTED_ORDER outputs,
 * counts beside the kernel, invalid particles, a kernel that does not
 * compile (named by file and line), bad arguments, and llvmpipe's loop limit
 * (the search is refused by name, never cut short).
 *
 *   test_kernel [--quick] [--shared-memory BYTES]
 */
#include "check.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fenns/fenns_kernel.h"
#include "fenns_shared.h"
#include "gpu_test.h"
#include "pipeline.h"
#include "reference.h"
#include "scenes.h"
#include "test_scene.h"

#include "fenns_kernel_mass_sum.spv.h"

static fenns_test_gpu g;

/* The stats kernel, with a combine (fenns_kernel.h: every field folds in
 * exactly but the float sum) and without (stats_plain: one invocation a
 * particle whatever the plan). */
#define STATS_KERNEL_COMBINE                                                   \
    "#define FENNS_KERNEL_COMBINE\n"                                           \
    "void fenns_combine(inout fenns_state s, fenns_state part) {\n"             \
    "    s.count += part.count; s.dist_sum += part.dist_sum;\n"                \
    "    s.hash ^= part.hash; s.min_j = min(s.min_j, part.min_j);\n"           \
    "}\n"
#define STATS_KERNEL_BODY \
    "struct fenns_state { uint count; float dist_sum; uint hash; uint min_j; };\n" \
    "void fenns_init(inout fenns_state s, uint i, vec3 pi) {\n" \
    "    s.count = 0u; s.dist_sum = 0.0; s.hash = 0u; s.min_j = 0xFFFFFFFFu;\n" \
    "}\n" \
    "void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {\n" \
    "    s.count += 1u;\n" \
    "    s.dist_sum += sqrt(dist2);\n" \
    "    s.hash ^= (j + 1u) * 2654435761u;\n" \
    "    s.min_j = min(s.min_j, j);\n" \
    "}\n" \
    "vec4 fenns_finish(fenns_state s, uint i, vec3 pi) {\n" \
    "    // The hash as a float in [1, 2): exact bits, never NaN.\n" \
    "    return vec4(float(s.count), s.dist_sum, uintBitsToFloat((s.hash & 0x007FFFFFu) | 0x3F800000u), float(s.min_j));\n" \
    "}\n"
static const char stats_kernel[] = STATS_KERNEL_BODY STATS_KERNEL_COMBINE;
static const char stats_plain_kernel[] = STATS_KERNEL_BODY;

/* ------------------------------------------------------------------------ */
/* CPU evaluation                                                           */
/* ------------------------------------------------------------------------ */

typedef enum kernel_kind { KERNEL_STATS, KERNEL_DENSITY, KERNEL_MASS_SUM } kernel_kind;

static float poly6(float r2, float h) {
    float d = h * h - r2;
    return 315.0f / (64.0f * 3.14159265f * powf(h, 9.0f)) * d * d * d;
}

static float mass_of(uint32_t j) { return 0.5f + (float)(j % 7u) * 0.25f; }

/* The kernel's vec4 (mass_sum: its own buffer's vec2 in xy) for particle i. */
static void cpu_kernel(kernel_kind kind, const float *xyz, uint32_t i, float r, const uint64_t *ro, const uint32_t *ri,
                       float out[4]) {
    const uint32_t *list = ri + ro[i];
    uint32_t count = (uint32_t)(ro[i + 1] - ro[i]);
    memset(out, 0, 4 * sizeof *out);
    if (kind == KERNEL_STATS) {
        double dist_sum = 0.0;
        uint32_t hash = 0, min_j = UINT32_MAX;
        for (uint32_t e = 0; e < count; ++e) {
            dist_sum += sqrt((double)fenns_reference_dist2(xyz, i, list[e]));
            hash ^= (list[e] + 1u) * 2654435761u;
            if (list[e] < min_j) min_j = list[e];
        }
        uint32_t bits = (hash & 0x007FFFFFu) | 0x3F800000u;
        out[0] = (float)count;
        out[1] = (float)dist_sum;
        memcpy(&out[2], &bits, 4);
        out[3] = (float)min_j;
    } else if (kind == KERNEL_DENSITY) {
        double rho = poly6(0.0f, r);
        for (uint32_t e = 0; e < count; ++e) rho += poly6(fenns_reference_dist2(xyz, i, list[e]), r);
        out[0] = (float)rho;
        out[1] = (float)count;
    } else {
        double sum = 0.0;
        for (uint32_t e = 0; e < count; ++e)
            sum += (double)mass_of(list[e]) * (double)(r * r - fenns_reference_dist2(xyz, i, list[e]));
        out[0] = (float)sum;
        out[1] = (float)count;
    }
}

/* Float sums in another order: equal within a few ulps of the terms' scale. */
static int close_enough(float gpu, float cpu, float scale) {
    return fabsf(gpu - cpu) <= 1e-5f * scale + 1e-30f;
}

/* ------------------------------------------------------------------------ */
/* One kernel search through the recording API                             */
/* ------------------------------------------------------------------------ */


typedef struct kernel_run {
    float *values;        /* 4 per particle (mass_sum: its own buffer, 2 per particle) */
    uint32_t *counts;     /* with_counts only */
    uint32_t *perm;       /* the build's permutation */
    fenns_status status;
    fenns_gpu_params params; /* the whole block the status begins (its dispatches) */
    uint32_t plan_lanes;     /* the pipeline's plan.kernel_lanes */
    uint32_t lanes_made;     /* invocations a query its general kernel search was made with */
} kernel_run;

static void free_run(kernel_run *k) {
    free(k->values);
    free(k->counts);
    free(k->perm);
    memset(k, 0, sizeof *k);
}

/* The mass_sum kernel's descriptor set: its layout, pool and set. */
typedef struct user_set {
    VkDescriptorSetLayout layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
} user_set;

static VkResult user_set_create(user_set *u) {
    memset(u, 0, sizeof *u);
    VkDescriptorSetLayoutBinding b[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, 2, b};
    VkResult r = vkCreateDescriptorSetLayout(g.device, &li, NULL, &u->layout);
    if (r != VK_SUCCESS) return r;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL, 0, 1, 1, &size};
    r = vkCreateDescriptorPool(g.device, &pi, NULL, &u->pool);
    if (r != VK_SUCCESS) return r;
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, u->pool, 1, &u->layout};
    return vkAllocateDescriptorSets(g.device, &ai, &u->set);
}

static void user_set_destroy(user_set *u) {
    if (u->pool) vkDestroyDescriptorPool(g.device, u->pool, NULL);
    if (u->layout) vkDestroyDescriptorSetLayout(g.device, u->layout, NULL);
    memset(u, 0, sizeof *u);
}

/* Builds and runs `spirv` on the scene; FENNS_OUTPUT_KERNEL plus `extra`
 * (COUNTS, SORTED_ORDER). mass_sum (a user set) returns its own buffer. */
static fenns_result run_kernel(const scene *s, fenns_method method, const uint32_t *spirv, size_t spirv_size,
                               int with_user_set, fenns_output_flags extra, int searches, kernel_run *out) {
    memset(out, 0, sizeof *out);
    uint32_t n = s->n, n1 = n ? n : 1u;
    user_set u = {0};
    if (with_user_set && user_set_create(&u) != VK_SUCCESS) {
        user_set_destroy(&u);
        return FENNS_ERROR_VULKAN;
    }
    fenns_kernel_info kernel = {spirv, spirv_size, u.layout};
    fenns_pipeline_create_info pci = {0};
    pci.method = method;
    pci.radius = s->radius;
    pci.max_particles = n1;
    pci.kernel = &kernel;
    if (s->user_domain) {
        memcpy(pci.domain_min, s->domain_min, sizeof pci.domain_min);
        memcpy(pci.domain_max, s->domain_max, sizeof pci.domain_max);
    }
    fenns_pipeline p;
    fenns_result result = fenns_pipeline_create(g.context, &pci, &p);
    if (result != FENNS_SUCCESS) {
        user_set_destroy(&u);
        return result;
    }
    out->plan_lanes = p->plan.kernel_lanes;
    out->lanes_made = p->kernel_lanes_made;
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(p, n, &req);
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(p, n, &layout);
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    fenns_test_buffer pos = {0}, scratch = {0}, values = {0}, counts = {0}, masses = {0}, sums = {0};
    int ok = fenns_test_buffer_create(&g, 16u * n1, usage, FENNS_TEST_HOST_VISIBLE, &pos) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 16u * n1, usage, FENNS_TEST_HOST_VISIBLE, &values) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 4u * n1, usage, FENNS_TEST_HOST_VISIBLE, &counts) == VK_SUCCESS &&
             (!with_user_set ||
              (fenns_test_buffer_create(&g, 4u * n1, usage, FENNS_TEST_HOST_VISIBLE, &masses) == VK_SUCCESS &&
               fenns_test_buffer_create(&g, 8u * n1, usage, FENNS_TEST_HOST_VISIBLE, &sums) == VK_SUCCESS));
    result = ok ? FENNS_SUCCESS : FENNS_ERROR_OUT_OF_DEVICE_MEMORY;
    if (ok) {
        float *v = pos.mapped;
        for (uint32_t i = 0; i < n; ++i) {
            memcpy(v + 4 * i, s->xyz + 3 * i, 12);
            v[4 * i + 3] = -1.0f;
        }
        memset(values.mapped, 0xFF, 16u * n1); /* NaN: anything left unwritten shows */
        if (with_user_set) {
            float *m = masses.mapped;
            for (uint32_t j = 0; j < n; ++j) m[j] = mass_of(j);
            memset(sums.mapped, 0xFF, 8u * n1);
            VkDescriptorBufferInfo bi[2] = {{masses.buffer, 0, VK_WHOLE_SIZE}, {sums.buffer, 0, VK_WHOLE_SIZE}};
            VkWriteDescriptorSet w[2];
            for (uint32_t k = 0; k < 2; ++k)
                w[k] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, u.set, k, 0, 1,
                                              VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[k], NULL};
            vkUpdateDescriptorSets(g.device, 2, w, 0, NULL);
        }
        VkCommandBuffer cmd;
        ok = fenns_test_begin(&g, &cmd) == VK_SUCCESS;
        if (ok) {
            fenns_build_info b = {.particle_count = n, .positions = fenns_test_range(&pos, 0, VK_WHOLE_SIZE),
                                  .scratch = fenns_test_range(&scratch, 0, req.size)};
            b.descriptors = g.arena;
            fenns_cmd_build(cmd, p, &b);
            fenns_cmd_build_to_search_barrier(cmd, p);
            fenns_search_info si = fenns_test_search_of(&b, FENNS_OUTPUT_KERNEL | extra);
            if (extra & FENNS_OUTPUT_COUNTS) si.counts = fenns_test_range(&counts, 0, VK_WHOLE_SIZE);
            if (!with_user_set) si.kernel_output = fenns_test_range(&values, 0, VK_WHOLE_SIZE);
            si.user_set = u.set;
            for (int k = 0; k < searches; ++k) { /* each search of one build reports its own status */
                fenns_cmd_search(cmd, p, &si);
                fenns_test_cmd_barrier(cmd);
            }
            ok = fenns_test_submit(&g, cmd) == VK_SUCCESS;
        }
        result = ok ? FENNS_SUCCESS : FENNS_ERROR_VULKAN;
    }
    if (ok) {
        out->values = malloc(16u * n1);
        out->counts = malloc(4u * n1);
        out->perm = malloc(4u * n1);
        ok = out->values && out->counts && out->perm;
        if (ok) {
            memcpy(out->values, with_user_set ? sums.mapped : values.mapped, (with_user_set ? 8u : 16u) * n1);
            memcpy(out->counts, counts.mapped, 4u * n1);
            ok = fenns_test_download(&g, &scratch, layout.permutation_offset, out->perm, 4u * n) == VK_SUCCESS &&
                 fenns_test_download(&g, &scratch, layout.status_offset, &out->params, sizeof out->params) ==
                     VK_SUCCESS;
            if (ok) memcpy(&out->status, &out->params, sizeof out->status);
        }
        if (!ok) free_run(out);
        result = ok ? FENNS_SUCCESS : FENNS_ERROR_OUT_OF_HOST_MEMORY;
    }
    fenns_test_buffer_destroy(&g, &pos);
    fenns_test_buffer_destroy(&g, &scratch);
    fenns_test_buffer_destroy(&g, &values);
    fenns_test_buffer_destroy(&g, &counts);
    fenns_test_buffer_destroy(&g, &masses);
    fenns_test_buffer_destroy(&g, &sums);
    fenns_pipeline_destroy(p);
    user_set_destroy(&u);
    return result;
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                   */
/* ------------------------------------------------------------------------ */

static fenns_kernel_spirv g_stats, g_stats_plain, g_density;

typedef struct kernel_case {
    const char *name;
    kernel_kind kind;
    const uint32_t *spirv;
    size_t size;
    int combines; /* defines FENNS_KERNEL_COMBINE */
} kernel_case;

/* fenns: the kernel searches each of its kernel pipelines ran (by
 * scene_fixed_reach: the general one, search_kernel_local7, _local9).
 * run_scenes needs all three. */
static unsigned g_runs_by_pipeline[3];
/* fenns kernel searches whose queries were split over several invocations
 * (the plan's kernel_lanes, a kernel that combines). */
static unsigned g_split_runs;

/* One kernel on one scene and method against the CPU; twice for fenns
 * (bit-identical); stats also in SORTED_ORDER with counts. */
static void check_kernel(const scene *s, fenns_method method, const kernel_case *kc) {
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    if (fenns_reference_csr(s->xyz, s->n, s->radius, &ro, &ri) != FENNS_REFERENCE_OK) {
        CHECK(0, "%s: reference failed", s->name);
        return;
    }
    const char *mname = fenns_method_name(method);
    int user = kc->kind == KERNEL_MASS_SUM;
    fenns_output_flags variants[2] = {0u, FENNS_OUTPUT_SORTED_ORDER | FENNS_OUTPUT_COUNTS};
    for (int v = 0; v < (kc->kind == KERNEL_STATS ? 2 : 1); ++v) {
        int sorted = (variants[v] & FENNS_OUTPUT_SORTED_ORDER) != 0;
        kernel_run a;
        fenns_result r = run_kernel(s, method, kc->spirv, kc->size, user, variants[v], 1, &a);
        CHECK(r == FENNS_SUCCESS, "%s/%s/%s: kernel search: %s", s->name, mname, kc->name, fenns_result_string(r));
        if (r != FENNS_SUCCESS) continue;
        if (method == FENNS_METHOD_FENNS) {
            /* The build's last pass gave its workgroups to the pipeline of
             * its grid, none to the other two. */
            uint32_t reach = scene_fixed_reach(&a.status);
            uint32_t groups[3] = {a.params.general_dispatch_x, a.params.local7_dispatch_x, a.params.local9_dispatch_x};
            CHECK(groups[reach] == a.params.dispatch_x && groups[(reach + 1u) % 3u] == 0u &&
                      groups[(reach + 2u) % 3u] == 0u,
                  "%s/%s: workgroups %u: general %u, local7 %u, local9 %u (its grid's: %s)", s->name, kc->name,
                  a.params.dispatch_x, groups[0], groups[1], groups[2],
                  reach == 1u ? "local7" : reach == 2u ? "local9" : "general");
            ++g_runs_by_pipeline[reach];
            /* Split where the plan splits and the kernel combines, never
             * where it does not. */
            uint32_t lanes = kc->combines ? a.plan_lanes : 1u;
            CHECK(a.lanes_made == lanes, "%s/%s: the general kernel search takes %u invocations a query, expected %u",
                  s->name, kc->name, a.lanes_made, lanes);
            if (a.lanes_made > 1u) ++g_split_runs;
        }
        CHECK(a.status.incomplete_queries == 0, "%s/%s/%s: %u queries refused by the loop limit", s->name, mname,
              kc->name, a.status.incomplete_queries);
        CHECK(a.status.total_neighbors == ro[s->n], "%s/%s/%s: total %llu, expected %llu", s->name, mname, kc->name,
              (unsigned long long)a.status.total_neighbors, (unsigned long long)ro[s->n]);
        uint32_t bad = 0, stride = user ? 2u : 4u;
        for (uint32_t k = 0; k < s->n; ++k) {
            uint32_t i = sorted ? a.perm[k] : k; /* k: where its outputs are */
            float expect[4], *got = a.values + (size_t)stride * k;
            cpu_kernel(kc->kind, s->xyz, i, s->radius, ro, ri, expect);
            uint32_t count = (uint32_t)(ro[i + 1] - ro[i]);
            int ok;
            if (kc->kind == KERNEL_STATS) {
                ok = got[0] == expect[0] && memcmp(&got[2], &expect[2], 4) == 0 && got[3] == expect[3] &&
                     close_enough(got[1], expect[1], (float)count * s->radius);
            } else if (kc->kind == KERNEL_DENSITY) {
                ok = got[1] == expect[1] && close_enough(got[0], expect[0], ((float)count + 1.0f) * poly6(0.0f, s->radius));
            } else {
                ok = got[1] == expect[1] && close_enough(got[0], expect[0], (float)count * 2.0f * s->radius * s->radius);
            }
            if (sorted) ok = ok && a.counts[k] == count;
            if (!ok && bad++ < 3)
                CHECK(0, "%s/%s/%s%s: particle %u: (%g %g %g %g), expected (%g %g %g %g)", s->name, mname, kc->name,
                      sorted ? "/sorted" : "", i, (double)got[0], (double)got[1], (double)(stride > 2 ? got[2] : 0),
                      (double)(stride > 2 ? got[3] : 0), (double)expect[0], (double)expect[1], (double)expect[2],
                      (double)expect[3]);
        }
        CHECK(bad == 0, "%s/%s/%s%s: %u particles differ from the CPU evaluation", s->name, mname, kc->name,
              sorted ? "/sorted" : "", bad);
        if ((method == FENNS_METHOD_FENNS || method == FENNS_METHOD_FENNS_PAPER) && v == 0) {
            /* Another run, searching its build twice: the second search's
             * status is its own (its reset clears the first's total), and
             * fenns' outputs are those of the first run, bit for bit. */
            kernel_run b;
            r = run_kernel(s, method, kc->spirv, kc->size, user, variants[v], 2, &b);
            CHECK(r == FENNS_SUCCESS && b.status.total_neighbors == ro[s->n],
                  "%s/%s/%s: second search of one build: total %llu, expected %llu (%s)", s->name, mname, kc->name,
                  (unsigned long long)b.status.total_neighbors, (unsigned long long)ro[s->n], fenns_result_string(r));
            CHECK(r != FENNS_SUCCESS || method != FENNS_METHOD_FENNS ||
                      memcmp(a.values, b.values, (size_t)stride * 4u * s->n) == 0,
                  "%s/%s/%s: outputs differ between two runs", s->name, mname, kc->name);
            free_run(&b);
        }
        free_run(&a);
    }
    fenns_reference_free(&ro, &ri);
}

static void check_scene(const scene *s, int all_kernels) {
    kernel_case cases[4] = {{"stats", KERNEL_STATS, g_stats.code, g_stats.size, 1},
                            {"sph_density", KERNEL_DENSITY, g_density.code, g_density.size, 1},
                            {"mass_sum", KERNEL_MASS_SUM, fenns_kernel_mass_sum, sizeof fenns_kernel_mass_sum, 1},
                            {"stats_plain", KERNEL_STATS, g_stats_plain.code, g_stats_plain.size, 0}};
    for (int m = 0; m <= FENNS_METHOD_RADIX; ++m)
        for (int c = 0; c < (all_kernels ? 4 : 1); ++c)
            if (cases[c].combines || m == FENNS_METHOD_FENNS) check_kernel(s, (fenns_method)m, &cases[c]);
    printf("  %-22s n=%-6u r=%g\n", s->name, s->n, (double)s->radius);
}

static void run_scenes(int quick) {
    uint32_t base = quick ? 2000 : 8000;
    scene s;
    scene_init(&s, "uniform", base);
    float side = cbrtf((float)s.n / 0.75f);
    fenns_scene_uniform(s.xyz, s.n, side);
    s.radius = 1.9f;
    check_scene(&s, 1);
    s.name = "uniform/caller-box";
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_max[a] = side;
    check_scene(&s, 0);
    s.name = "cluster-in-huge-box";
    for (int a = 0; a < 3; ++a) s.domain_min[a] = -50.0f * side, s.domain_max[a] = 50.0f * side;
    check_scene(&s, 0);
    free(s.xyz);

    scene_init(&s, "lattice/exact-r", quick ? 1000 : 4000);
    fenns_scene_lattice(s.xyz, s.n, 1.0f, 1);
    s.radius = 1.0f;
    check_scene(&s, 0);
    free(s.xyz);

    scene_init(&s, "clusters", base);
    fenns_scene_clusters(s.xyz, s.n, 60.0f, 2);
    s.radius = 0.6f;
    check_scene(&s, 1);
    free(s.xyz);

    /* Dense: 13 particles a half-margin fine cell, where the coarse cells
     * take F = 4 = 2 reach fine cells an axis (fewer would let a stencil
     * row cross three coarse cells; the kernel walks rows as two runs),
     * two coarse cells an axis. */
    scene_init(&s, "dense", 7680);
    fenns_scene_uniform(s.xyz, s.n, 4.2f);
    s.radius = 1.0f;
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_min[a] = 0.0f, s.domain_max[a] = 4.2f;
    check_scene(&s, 0);
    free(s.xyz);

    /* sph50's density (about 49 neighbours): half-margin fine cells,
     * F = 5 (the reach-2 variant). */
    scene_init(&s, "sph50-density", quick ? 2000 : 8000);
    side = cbrtf((float)s.n / 11.94f);
    fenns_scene_uniform(s.xyz, s.n, side);
    s.radius = 1.0f;
    check_scene(&s, 0);
    free(s.xyz);

    scene_init(&s, "duplicates", quick ? 1500 : 4000);
    fenns_scene_duplicates(s.xyz, s.n, 20.0f, s.n / 20u, 5);
    s.radius = 0.7f;
    check_scene(&s, 0);
    free(s.xyz);

    scene_init(&s, "nan-inf", base);
    fenns_scene_uniform(s.xyz, s.n, 25.0f);
    scene_make_invalid(s.xyz, s.n);
    s.radius = 1.5f;
    check_scene(&s, 1);
    free(s.xyz);

    for (uint32_t n = 0; n <= 3; ++n) {
        scene_tiny(&s, n);
        check_scene(&s, 0);
    }
}

/* A kernel that does not compile: FENNS_ERROR_KERNEL_COMPILE, the log names
 * the kernel's file and line, nothing allocated. */
static void check_compile_errors(void) {
    static const char broken[] = "struct fenns_state { float x; };\n"
                                 "void fenns_init(inout fenns_state s, uint i, vec3 pi) { s.x = 0.0; }\n"
                                 "void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float d2) {\n"
                                 "    s.x += undeclared_thing;\n"
                                 "}\n"
                                 "vec4 fenns_finish(fenns_state s, uint i, vec3 pi) { return vec4(s.x); }\n";
    fenns_kernel_spirv k;
    fenns_result r = fenns_kernel_compile(broken, "my_kernel.glsl", &k);
    CHECK(r == FENNS_ERROR_KERNEL_COMPILE && k.code == NULL && k.log && strstr(k.log, "my_kernel.glsl:4"),
          "a broken kernel gave %s, log: %s", fenns_result_string(r), k.log ? k.log : "(none)");
    fenns_kernel_spirv_free(&k);
    /* Missing functions: the template calls them. */
    r = fenns_kernel_compile("struct fenns_state { float x; };\n", "empty.glsl", &k);
    CHECK(r == FENNS_ERROR_KERNEL_COMPILE && k.log && strstr(k.log, "'fenns_finish' : no matching"),
          "a kernel without functions gave %s, log: %s", fenns_result_string(r), k.log ? k.log : "(none)");
    fenns_kernel_spirv_free(&k);
    CHECK(fenns_kernel_compile(NULL, "x", &k) == FENNS_ERROR_INVALID_ARGUMENT && k.code == NULL,
          "a null source was accepted");
    fenns_kernel_spirv_free(&k);
    fenns_kernel_spirv_free(NULL);
}

/* Positions and output for 100 particles and the pipeline's scratch. */
static int refusal_buffers(fenns_pipeline p, fenns_test_buffer b[3], fenns_search_info *si) {
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(p, 100, &req);
    memset(b, 0, 3 * sizeof *b);
    memset(si, 0, sizeof *si);
    int ok = fenns_test_buffer_create(&g, 1600, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL, &b[0]) ==
                 VK_SUCCESS &&
             fenns_test_buffer_create(&g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &b[1]) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 1600, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL, &b[2]) ==
                 VK_SUCCESS;
    si->particle_count = 100;
    si->descriptors = g.arena;
    si->positions = fenns_test_range(&b[0], 0, VK_WHOLE_SIZE);
    si->scratch = fenns_test_range(&b[1], 0, req.size);
    si->kernel_output = fenns_test_range(&b[2], 0, VK_WHOLE_SIZE);
    return ok;
}

static void refusal_buffers_destroy(fenns_test_buffer b[3]) {
    for (int k = 0; k < 3; ++k) fenns_test_buffer_destroy(&g, &b[k]);
}

/* A kernel that combines, but whose state is too large for a workgroup's
 * worth of it to fit shared memory (256 * 260 bytes): fenns keeps one
 * invocation a particle, and the search is exact all the same. */
static void check_large_state(void) {
    static const char big[] =
        "struct fenns_state { vec4 v[16]; uint count; };\n"
        "void fenns_init(inout fenns_state s, uint i, vec3 pi) {\n"
        "    for (int k = 0; k < 16; ++k) s.v[k] = vec4(0.0);\n"
        "    s.count = 0u;\n"
        "}\n"
        "void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {\n"
        "    s.v[j & 15u] += vec4(pj, 1.0);\n"
        "    s.count += 1u;\n"
        "}\n"
        "#define FENNS_KERNEL_COMBINE\n"
        "void fenns_combine(inout fenns_state s, fenns_state part) {\n"
        "    for (int k = 0; k < 16; ++k) s.v[k] += part.v[k];\n"
        "    s.count += part.count;\n"
        "}\n"
        "vec4 fenns_finish(fenns_state s, uint i, vec3 pi) { return vec4(float(s.count), s.v[0].w, 0.0, 0.0); }\n";
    fenns_kernel_spirv k;
    fenns_result r = fenns_kernel_compile(big, "large_state.glsl", &k);
    CHECK(r == FENNS_SUCCESS, "large-state kernel: %s\n%s", fenns_result_string(r), k.log ? k.log : "");
    scene s;
    scene_init(&s, "large-state", 2000);
    fenns_scene_uniform(s.xyz, s.n, cbrtf((float)s.n / 0.75f));
    s.radius = 1.9f;
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    kernel_run a;
    if (r == FENNS_SUCCESS && fenns_reference_csr(s.xyz, s.n, s.radius, &ro, &ri) == FENNS_REFERENCE_OK &&
        (r = run_kernel(&s, FENNS_METHOD_FENNS, k.code, k.size, 0, 0u, 1, &a)) == FENNS_SUCCESS) {
        CHECK(a.lanes_made == 1u, "large-state kernel: %u invocations a query (plan %u), expected 1", a.lanes_made,
              a.plan_lanes);
        uint32_t bad = 0;
        for (uint32_t i = 0; i < s.n; ++i)
            if (a.values[4u * i] != (float)(ro[i + 1] - ro[i])) ++bad;
        CHECK(bad == 0 && a.status.total_neighbors == ro[s.n], "large-state kernel: %u counts wrong, total %llu of %llu",
              bad, (unsigned long long)a.status.total_neighbors, (unsigned long long)ro[s.n]);
        free_run(&a);
    } else {
        CHECK(0, "large-state kernel: search %s", fenns_result_string(r));
    }
    fenns_reference_free(&ro, &ri);
    free(s.xyz);
    fenns_kernel_spirv_free(&k);
}

/* Bad arguments are refused with a logged error and nothing recorded. */
static void check_bad_arguments(void) {
    g.quiet = 1;
    uint32_t not_spirv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    fenns_kernel_info kernel = {not_spirv, sizeof not_spirv, VK_NULL_HANDLE};
    fenns_pipeline_create_info pci = {0};
    pci.radius = 1.0f;
    pci.max_particles = 100;
    pci.kernel = &kernel;
    fenns_pipeline p = NULL;
    CHECK(fenns_pipeline_create(g.context, &pci, &p) == FENNS_ERROR_INVALID_ARGUMENT && p == NULL,
          "non-SPIR-V kernel accepted");
    kernel.spirv = NULL;
    CHECK(fenns_pipeline_create(g.context, &pci, &p) == FENNS_ERROR_INVALID_ARGUMENT, "null kernel SPIR-V accepted");

    /* A pipeline without a kernel refuses KERNEL searches. */
    pci.kernel = NULL;
    CHECK(fenns_pipeline_create(g.context, &pci, &p) == FENNS_SUCCESS, "pipeline");
    fenns_test_buffer bufs[3];
    fenns_search_info si;
    if (refusal_buffers(p, bufs, &si)) {
        VkCommandBuffer cmd;
        if (fenns_test_begin(&g, &cmd) == VK_SUCCESS) {
            uint32_t before = g.error_messages;
            si.outputs = FENNS_OUTPUT_KERNEL;
            fenns_cmd_search(cmd, p, &si);
            CHECK(g.error_messages == before + 1, "KERNEL search on a pipeline without a kernel was not refused");
            si.outputs = FENNS_OUTPUT_KERNEL | FENNS_OUTPUT_CSR;
            fenns_cmd_search(cmd, p, &si);
            CHECK(g.error_messages == before + 2, "KERNEL | CSR was not refused");
            CHECK(fenns_test_submit(&g, cmd) == VK_SUCCESS, "empty command buffer");
        }
    }
    refusal_buffers_destroy(bufs);
    fenns_pipeline_destroy(p);

    /* With a kernel: KERNEL with a too-small output, without the user set
     * its layout asks for, and with lists, are refused. */
    user_set u;
    if (user_set_create(&u) == VK_SUCCESS) {
        fenns_kernel_info k2 = {fenns_kernel_mass_sum, sizeof fenns_kernel_mass_sum, u.layout};
        pci.kernel = &k2;
        p = NULL;
        CHECK(fenns_pipeline_create(g.context, &pci, &p) == FENNS_SUCCESS, "pipeline with the mass_sum kernel");
        if (p && refusal_buffers(p, bufs, &si)) {
            VkCommandBuffer cmd;
            if (fenns_test_begin(&g, &cmd) == VK_SUCCESS) {
                fenns_buffer_range full = si.kernel_output;
                si.kernel_output = (fenns_buffer_range){VK_NULL_HANDLE, 0, 0};
                si.outputs = FENNS_OUTPUT_KERNEL;
                uint32_t before = g.error_messages;
                fenns_cmd_search(cmd, p, &si); /* no user set */
                CHECK(g.error_messages == before + 1, "a kernel search without its user set was not refused");
                si.user_set = u.set;
                si.kernel_output = full;
                si.kernel_output.range = 1000; /* < 16 * 100 */
                fenns_cmd_search(cmd, p, &si);
                CHECK(g.error_messages == before + 2, "a short kernel_output was not refused");
                si.kernel_output = full;
                si.outputs = FENNS_OUTPUT_KERNEL | FENNS_OUTPUT_CSR; /* a kernel search writes no lists */
                fenns_cmd_search(cmd, p, &si);
                CHECK(g.error_messages == before + 3, "KERNEL | CSR on a kernel's pipeline was not refused");
                CHECK(fenns_test_submit(&g, cmd) == VK_SUCCESS, "empty command buffer");
            }
        }
        refusal_buffers_destroy(bufs);
        fenns_pipeline_destroy(p);
    }
    user_set_destroy(&u);

    /* A kernel whose own shared arrays pass the device's shared memory (256
     * KiB: more than any GPU has) is refused by name before the driver sees
     * it. */
    static const char greedy[] = "shared float greedy_scratch[65536];\n"
                                 "struct fenns_state { float x; };\n"
                                 "void fenns_init(inout fenns_state s, uint i, vec3 pi) { s.x = 0.0; }\n"
                                 "void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float d2) {\n"
                                 "    greedy_scratch[j & 65535u] = d2;\n"
                                 "    s.x += greedy_scratch[i & 65535u];\n"
                                 "}\n"
                                 "vec4 fenns_finish(fenns_state s, uint i, vec3 pi) { return vec4(s.x); }\n";
    fenns_kernel_spirv gk;
    CHECK(fenns_kernel_compile(greedy, "greedy.glsl", &gk) == FENNS_SUCCESS, "greedy kernel: %s", gk.log ? gk.log : "");
    if (gk.code) {
        fenns_kernel_info k3 = {gk.code, gk.size, VK_NULL_HANDLE};
        pci.kernel = &k3;
        p = NULL;
        uint32_t before = g.error_messages;
        fenns_result r = fenns_pipeline_create(g.context, &pci, &p);
        CHECK(r == FENNS_ERROR_UNSUPPORTED_DEVICE && p == NULL && g.error_messages > before &&
                  strstr(g.last_error, "the search_kernel pipeline needs"),
              "a kernel with 256 KiB of shared memory gave %s, last error: %s", fenns_result_string(r), g.last_error);
        fenns_pipeline_destroy(p);
    }
    fenns_kernel_spirv_free(&gk);
    g.quiet = 0;
    g.error_messages = 0;
}

/* Coincident particles by the tens of thousands: every kernel call happens,
 * or (llvmpipe's loop limit) the queries are refused and counted in
 * incomplete_queries; never a short sum. 140000 (fenns only) is past the
 * walk's bound but within the build's, so the search's own bound refuses;
 * 300000 is past the build's. */
static void check_coincident_kernels(uint32_t n, int fenns_only) {
    scene s;
    char name[64];
    snprintf(name, sizeof name, "%u-coincident", n);
    scene_init(&s, name, n);
    for (uint32_t i = 0; i < 3 * s.n; ++i) s.xyz[i] = 1.0f;
    s.radius = 0.5f;
    for (int m = 0; m <= FENNS_METHOD_RADIX; ++m) {
        if (fenns_only && m != FENNS_METHOD_FENNS) continue;
        kernel_run a;
        fenns_result r = run_kernel(&s, (fenns_method)m, g_stats.code, g_stats.size, 0, 0u, 1, &a);
        CHECK(r == FENNS_SUCCESS, "%s: %s", s.name, fenns_result_string(r));
        if (r != FENNS_SUCCESS) continue;
        uint32_t short_sums = 0;
        for (uint32_t i = 0; i < s.n && a.status.incomplete_queries == 0; ++i)
            short_sums += a.values[4 * i] != (float)(s.n - 1u) || a.values[4 * i + 3] != (i == 0 ? 1.0f : 0.0f);
        CHECK(short_sums == 0, "%s/%s: %u particles with short sums", s.name, fenns_method_name((fenns_method)m),
              short_sums);
        printf("  %-22s %s: %s\n", s.name, fenns_method_name((fenns_method)m),
               a.status.incomplete_queries ? "refused by the driver's loop limit (named)" : "exact");
        free_run(&a);
    }
    free(s.xyz);
}

static void check_loop_limit(void) {
    check_coincident_kernels(140000u, 1);
    check_coincident_kernels(300000u, 0);
}

int main(int argc, char **argv) {
    int quick = 0;
    uint32_t shared_memory = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--quick")) quick = 1;
        else if (!strcmp(argv[a], "--shared-memory") && a + 1 < argc) shared_memory = (uint32_t)atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--shared-memory BYTES]\n", argv[0]);
            return 2;
        }
    }
    if (fenns_test_gpu_open(&g, shared_memory) != FENNS_SUCCESS) return 1;
    printf("kernels on %s, subgroup %u, shared memory %u\n", g.limits.device_name, g.limits.subgroup_size,
           g.limits.shared_memory_budget);
    check_compile_errors();
    fenns_result r = fenns_kernel_compile(stats_kernel, "stats.glsl", &g_stats);
    CHECK(r == FENNS_SUCCESS, "stats kernel: %s\n%s", fenns_result_string(r), g_stats.log ? g_stats.log : "");
    r = fenns_kernel_compile(stats_plain_kernel, "stats_plain.glsl", &g_stats_plain);
    CHECK(r == FENNS_SUCCESS, "stats_plain kernel: %s", fenns_result_string(r));
    char *density = NULL;
    FILE *f = fopen(FENNS_SOURCE_DIR "/samples/kernels/sph_density.glsl", "rb");
    if (f) {
        density = calloc(1, 1 << 16);
        if (density) fread(density, 1, (1 << 16) - 1, f);
        fclose(f);
    }
    r = density ? fenns_kernel_compile(density, "sph_density.glsl", &g_density) : FENNS_ERROR_INVALID_ARGUMENT;
    CHECK(r == FENNS_SUCCESS, "sph_density kernel: %s\n%s", fenns_result_string(r), g_density.log ? g_density.log : "");
    free(density);
    if (failures == 0) {
        check_bad_arguments();
        check_large_state();
        run_scenes(quick);
        CHECK(g_runs_by_pipeline[0] && g_runs_by_pipeline[1] && g_runs_by_pipeline[2],
              "fenns: %u kernel searches ran the general pipeline, %u search_kernel_local7, %u search_kernel_local9;"
              " the suite needs each",
              g_runs_by_pipeline[0], g_runs_by_pipeline[1], g_runs_by_pipeline[2]);
        /* Where the environment asks fenns to split kernel queries
         * (FENNS_KERNEL_LANES, the GPUs' small form), some searches did. */
        const char *lanes = getenv("FENNS_KERNEL_LANES");
        CHECK(!lanes || atoi(lanes) <= 1 || g_split_runs > 0, "FENNS_KERNEL_LANES=%s, but no kernel search split its queries",
              lanes);
        printf("kernel searches with queries split over several invocations: %u\n", g_split_runs);
        if (!quick) check_loop_limit();
    }
    fenns_kernel_spirv_free(&g_stats);
    fenns_kernel_spirv_free(&g_stats_plain);
    fenns_kernel_spirv_free(&g_density);
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
