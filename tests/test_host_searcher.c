/*
 * fenns_host_searcher reused across runs: growing and shrinking n, changing
 * radius, method and domain, counts only then lists, n = 0 and a stride.
 * Every run is checked against the CPU reference (lists ascending, counts,
 * offsets, status) and several against the one-shot fenns_host_search, bit
 * for bit; memory only grows; a result stays readable until the next run on
 * its searcher (also after fenns_host_csr_free, which only clears it) and
 * is not disturbed by other searchers; a failed run leaves the searcher
 * usable; point sets (queries among candidates, one strided, candidates on
 * top of queries, a larger candidate set, counts only) against the CPU
 * point-set reference; a user kernel (counts, neighbours and densities
 * against the reference, on one set and on point sets, kept warm across a
 * copy of its SPIR-V, its bad forms refused). Runs with validation + synchronization validation.
 */
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "reference.h"
#include "scenes.h"

#include "fenns_kernel_sph_density.spv.h" /* needs stdint.h */

static fenns_test_gpu g;

static fenns_host_search_info info_for(const float *xyz, uint32_t n, float radius, fenns_method method) {
    fenns_host_search_info info;
    memset(&info, 0, sizeof info);
    info.method = method;
    info.radius = radius;
    info.positions = xyz;
    info.particle_count = n;
    info.queue = g.queue;
    return info;
}

/* The density kernel's values (samples/kernels/sph_density.glsl: rho,
 * neighbours, 0, 0, unit masses, poly6 with h = the radius, the query's own
 * term included) against the CPU reference lists: the neighbours exactly,
 * rho to float rounding. Candidates c (nc of them): point sets; NULL: the
 * queries among themselves. */
static void check_density(const char *name, const float *xyz, uint32_t n, const float *c, uint32_t nc, float radius,
                          const fenns_host_csr *csr) {
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    int made = c ? fenns_reference_cross_csr(xyz, n, c, nc, radius, &ro, &ri)
                 : fenns_reference_csr(xyz, n, radius, &ro, &ri);
    const float *candidates = c ? c : xyz;
    if (!csr->kernel_values || made != FENNS_REFERENCE_OK) {
        CHECK(0, "%s: no kernel values (%p), or the reference failed", name, (void *)csr->kernel_values);
        fenns_reference_free(&ro, &ri);
        return;
    }
    const double h2 = (double)radius * radius, norm = 315.0 / (64.0 * 3.14159265358979 * h2 * h2 * h2 * h2 * radius);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
        double sum = h2 * h2 * h2;
        for (uint64_t k = ro[i]; k < ro[i + 1]; ++k) {
            const float *a = xyz + 3u * i, *b = candidates + 3u * ri[k];
            double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
            double d = h2 - (dx * dx + dy * dy + dz * dz);
            sum += d * d * d;
        }
        const float *v = csr->kernel_values + 4u * i;
        double rho = norm * sum;
        if (v[1] != (float)(ro[i + 1] - ro[i]) || fabs(v[0] - rho) > 1e-4 * rho) {
            if (!bad) CHECK(0, "%s: particle %u: rho %g, %g neighbours; the reference %g, %llu", name, i, (double)v[0],
                            (double)v[1], rho, (unsigned long long)(ro[i + 1] - ro[i]));
            ++bad;
        }
    }
    fenns_reference_free(&ro, &ri);
}

/* csr against the CPU reference for xyz (3 floats a point). */
static void check_against_reference(const char *name, const float *xyz, uint32_t n, float radius,
                                    const fenns_host_csr *csr, int counts_only) {
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    if (fenns_reference_csr(xyz, n, radius, &ro, &ri) != FENNS_REFERENCE_OK) {
        CHECK(0, "%s: reference failed", name);
        return;
    }
    CHECK(csr->particle_count == n && csr->offsets && csr->counts, "%s: n %llu, offsets %p, counts %p", name,
          (unsigned long long)csr->particle_count, (void *)csr->offsets, (void *)csr->counts);
    if (csr->particle_count == n && csr->offsets && csr->counts) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; ++i)
            bad += csr->counts[i] != (uint32_t)(ro[i + 1] - ro[i]) || csr->offsets[i + 1] - csr->offsets[i] != csr->counts[i];
        CHECK(bad == 0 && csr->offsets[0] == 0, "%s: %u counts or offsets differ from the reference", name, bad);
        CHECK(csr->total == ro[n] && csr->offsets[n] == ro[n] && csr->status.total_neighbors == ro[n] &&
                  csr->status.particle_count == n && csr->status.list_overflow == 0,
              "%s: total %llu (offsets %llu, status %llu), reference %llu", name, (unsigned long long)csr->total,
              (unsigned long long)csr->offsets[n], (unsigned long long)csr->status.total_neighbors,
              (unsigned long long)ro[n]);
        if (counts_only) {
            CHECK(csr->indices == NULL, "%s: counts only but indices given", name);
        } else if (csr->offsets[n] == ro[n]) {
            char msg[256] = "";
            int diff = fenns_reference_compare(xyz, n, radius, ro, ri, csr->particle_count, csr->offsets, csr->indices,
                                               0, NULL, msg, sizeof msg); /* flags 0: lists must be ascending */
            CHECK(diff == 0, "%s: %s", name, msg);
        }
    }
    fenns_reference_free(&ro, &ri);
}

/* A point-set run: the queries among the candidates, against the CPU
 * point-set reference (lists ascending by candidate index). */
static void check_point_sets(const char *name, const float *q, uint32_t nq, const float *c, uint32_t nc, float radius,
                             const fenns_host_csr *csr, int counts_only) {
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    if (fenns_reference_cross_csr(q, nq, c, nc, radius, &ro, &ri) != FENNS_REFERENCE_OK) {
        CHECK(0, "%s: reference failed", name);
        return;
    }
    int shaped = csr->particle_count == nq && csr->offsets && csr->counts && csr->total == ro[nq] &&
                 csr->offsets[nq] == ro[nq] && (counts_only ? csr->indices == NULL : csr->indices != NULL);
    CHECK(shaped, "%s: %llu queries, total %llu (reference %llu)", name, (unsigned long long)csr->particle_count,
          (unsigned long long)csr->total, (unsigned long long)ro[nq]);
    uint32_t bad = 0;
    for (uint32_t i = 0; shaped && i < nq; ++i) {
        bad += csr->counts[i] != (uint32_t)(ro[i + 1] - ro[i]) || csr->offsets[i + 1] - csr->offsets[i] != csr->counts[i];
        for (uint64_t e = csr->offsets[i] + 1u; !counts_only && e < csr->offsets[i + 1]; ++e)
            bad += csr->indices[e - 1] >= csr->indices[e]; /* ascending */
    }
    CHECK(bad == 0, "%s: %u counts, offsets or list orders differ", name, bad);
    if (shaped && !counts_only && !bad) {
        char msg[256] = "";
        int diff = fenns_reference_compare_cross(q, nq, c, nc, radius, ro, ri, csr->offsets, csr->indices, msg, sizeof msg);
        CHECK(diff == 0, "%s: %s", name, msg);
    }
    if (shaped && !bad) printf("ok   %s: %u queries among %u candidates, %llu entries\n", name, nq, nc,
                               (unsigned long long)csr->total);
    fenns_reference_free(&ro, &ri);
}

/* The one-shot call on the same input gives the same bits. */
static void check_same_as_one_shot(const char *name, const fenns_host_search_info *info, const fenns_host_csr *csr) {
    fenns_host_csr one;
    fenns_result r = fenns_host_search(g.context, info, &one);
    CHECK(r == FENNS_SUCCESS && one.owner != NULL, "%s: one-shot: %s", name, fenns_result_string(r));
    if (r == FENNS_SUCCESS) {
        uint64_t n = csr->particle_count;
        int same = one.particle_count == n && one.total == csr->total &&
                   !memcmp(one.offsets, csr->offsets, 8u * (n + 1u)) && !memcmp(one.counts, csr->counts, 4u * n) &&
                   (!one.indices) == (!csr->indices) &&
                   (!one.indices || !memcmp(one.indices, csr->indices, 4u * one.total));
        CHECK(same, "%s: the one-shot result differs from the searcher's", name);
    }
    fenns_host_csr_free(g.context, &one);
    CHECK(one.owner == NULL && one.offsets == NULL && one.indices == NULL, "%s: free left the csr set", name);
}

typedef struct saved {
    uint64_t total, *offsets;
    uint32_t *indices, *counts;
    uint64_t n;
} saved;

static saved save(const fenns_host_csr *csr) {
    saved s = {csr->total, NULL, NULL, NULL, csr->particle_count};
    s.offsets = malloc(8u * (s.n + 1u));
    s.counts = malloc(4u * s.n + 4u);
    s.indices = malloc(4u * s.total + 4u);
    if (s.offsets && s.counts && s.indices) {
        memcpy(s.offsets, csr->offsets, 8u * (s.n + 1u));
        memcpy(s.counts, csr->counts, 4u * s.n);
        if (csr->indices) memcpy(s.indices, csr->indices, 4u * s.total);
    }
    return s;
}

static int unchanged(const saved *s, const uint64_t *offsets, const uint32_t *counts, const uint32_t *indices) {
    return s->offsets && s->counts && s->indices && !memcmp(s->offsets, offsets, 8u * (s->n + 1u)) &&
           !memcmp(s->counts, counts, 4u * s->n) && (!indices || !memcmp(s->indices, indices, 4u * s->total));
}

static void saved_free(saved *s) {
    free(s->offsets);
    free(s->counts);
    free(s->indices);
}

int main(void) {
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    enum { MAX_N = 12000 };
    float *xyz = malloc(3u * sizeof(float) * MAX_N);
    float *spread = malloc(3u * sizeof(float) * MAX_N);
    float *strided = malloc(4u * sizeof(float) * MAX_N);
    fenns_host_searcher s = NULL;
    CHECK(xyz && spread && strided && fenns_host_searcher_create(g.context, &s) == FENNS_SUCCESS, "setup");
    if (!s) return 1;
    fenns_scene_uniform(xyz, MAX_N, 18.0f);   /* about 9 neighbours at r = 1 */
    fenns_scene_clusters(spread, MAX_N, 30.0f, 7u);
    fenns_host_csr csr;
    fenns_host_search_info info;

    /* 1. A first run, then the same input again: identical, nothing grows. */
    info = info_for(xyz, 3000, 1.0f, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "first run");
    check_against_reference("first run", xyz, 3000, 1.0f, &csr, 0);
    check_same_as_one_shot("first run", &info, &csr);
    CHECK(csr.owner == NULL && csr.gpu_memory_bytes > 0 && csr.build_ms != 0.0, "first run: owner %p, memory %llu",
          csr.owner, (unsigned long long)csr.gpu_memory_bytes);
    uint64_t memory = csr.gpu_memory_bytes;
    saved first = save(&csr);
    /* Valid until the next run: after the one-shot (another searcher) ran, and
     * after fenns_host_csr_free, which clears the csr but frees nothing. */
    uint64_t *offsets = csr.offsets;
    uint32_t *counts = csr.counts, *indices = csr.indices;
    fenns_host_csr_free(g.context, &csr);
    CHECK(csr.offsets == NULL && csr.total == 0, "free of a searcher's csr did not clear it");
    CHECK(unchanged(&first, offsets, counts, indices), "a searcher's result changed before its next run");
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS && unchanged(&first, csr.offsets, csr.counts, csr.indices) &&
              csr.gpu_memory_bytes == memory,
          "the same input again: different result, or memory %llu -> %llu", (unsigned long long)memory,
          (unsigned long long)csr.gpu_memory_bytes);
    saved_free(&first);

    /* 2. Growing n (pipeline, every buffer, lists), then shrinking (nothing freed). */
    info = info_for(xyz, MAX_N, 1.0f, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "grown run");
    check_against_reference("grown n", xyz, MAX_N, 1.0f, &csr, 0);
    check_same_as_one_shot("grown n", &info, &csr);
    CHECK(csr.gpu_memory_bytes > memory, "growing n kept %llu bytes", (unsigned long long)csr.gpu_memory_bytes);
    memory = csr.gpu_memory_bytes;
    info = info_for(xyz, 700, 1.0f, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "shrunk run");
    check_against_reference("shrunk n", xyz, 700, 1.0f, &csr, 0);
    CHECK(csr.gpu_memory_bytes == memory, "shrinking n changed memory %llu -> %llu", (unsigned long long)memory,
          (unsigned long long)csr.gpu_memory_bytes);

    /* 3. Radius (more neighbours: the lists grow), method, domain. */
    info = info_for(xyz, 5000, 2.0f, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "radius 2");
    check_against_reference("radius 2", xyz, 5000, 2.0f, &csr, 0);
    check_same_as_one_shot("radius 2", &info, &csr);
    /* The other methods, one searcher switching between them; sorted lists: the same bits as one-shot. */
    for (int m = FENNS_METHOD_FENNS_PAPER; m <= FENNS_METHOD_RADIX; ++m) {
        char what[64];
        snprintf(what, sizeof what, "%s, clusters", fenns_method_name((fenns_method)m));
        info = info_for(spread, 9000, 0.7f, (fenns_method)m);
        CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "%s", what);
        check_against_reference(what, spread, 9000, 0.7f, &csr, 0);
        check_same_as_one_shot(what, &info, &csr);
    }
    /* auto: exact, and the pick fenns_method_choose makes for the run's
     * count, radius and box (the positions' own where none is given), at
     * two densities; with point sets, fenns. */
    for (int dense = 0; dense < 2; ++dense) {
        float r = dense ? 3.0f : 0.3f;
        info = info_for(spread, 9000, r, FENNS_METHOD_AUTO);
        CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "auto, r %g", (double)r);
        check_against_reference("auto", spread, 9000, r, &csr, 0);
        check_same_as_one_shot("auto", &info, &csr);
        fenns_pipeline_create_info pci = {.method = FENNS_METHOD_AUTO, .radius = r, .max_particles = 9000};
        for (int a = 0; a < 3; ++a) pci.domain_min[a] = INFINITY, pci.domain_max[a] = -INFINITY;
        for (uint32_t i = 0; i < 9000; ++i)
            for (int a = 0; a < 3; ++a) {
                float v = spread[3u * i + (uint32_t)a];
                if (isfinite(v)) pci.domain_min[a] = fminf(pci.domain_min[a], v), pci.domain_max[a] = fmaxf(pci.domain_max[a], v);
            }
        fenns_method_choice choice;
        CHECK(fenns_method_choose(g.context, &pci, &choice) == FENNS_SUCCESS && choice.expected_neighbors > 0.0f &&
                  csr.method == choice.method && csr.method != FENNS_METHOD_AUTO,
              "auto ran %s, fenns_method_choose picks %s (%s)", fenns_method_name(csr.method),
              fenns_method_name(choice.method), choice.reason);
        printf("  auto, clusters, r %g: %s\n", (double)r, choice.reason);
    }
    info = info_for(spread, 2000, 1.5f, FENNS_METHOD_AUTO);
    info.candidate_positions = xyz;
    info.candidate_count = 3000;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS && csr.method == FENNS_METHOD_FENNS,
          "auto with point sets ran %s", fenns_method_name(csr.method));
    check_point_sets("auto, point sets", spread, 2000, xyz, 3000, 1.5f, &csr, 0);
    info = info_for(spread, 9000, 0.7f, FENNS_METHOD_FENNS);
    for (int a = 0; a < 3; ++a) info.domain_min[a] = 5.0f, info.domain_max[a] = 20.0f; /* many points outside */
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "caller's domain");
    check_against_reference("caller's domain", spread, 9000, 0.7f, &csr, 0);
    CHECK(csr.status.domain_min[0] == 5.0f && csr.status.domain_max[2] == 20.0f, "caller's domain not used");

    /* 4. Counts only, then lists of the same input; n = 0; a stride of 16. */
    info = info_for(xyz, 8000, 1.5f, FENNS_METHOD_FENNS);
    info.counts_only = 1;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "counts only");
    check_against_reference("counts only", xyz, 8000, 1.5f, &csr, 1);
    CHECK(csr.lists_ms == 0.0 || csr.lists_ms == -1.0, "counts only: lists_ms %g", csr.lists_ms);
    check_same_as_one_shot("counts only", &info, &csr);
    info.counts_only = 0;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "lists after counts");
    check_against_reference("lists after counts", xyz, 8000, 1.5f, &csr, 0);
    info = info_for(NULL, 0, 1.0f, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS && csr.total == 0 && csr.offsets && csr.offsets[0] == 0,
          "n = 0");
    for (uint32_t i = 0; i < 6000; ++i) {
        memcpy(strided + 4u * i, xyz + 3u * i, 12u);
        strided[4u * i + 3u] = NAN; /* the caller's fourth float is never read as a coordinate */
    }
    info = info_for(strided, 6000, 1.0f, FENNS_METHOD_FENNS);
    info.stride = 16;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "stride 16");
    check_against_reference("stride 16", xyz, 6000, 1.0f, &csr, 0);

    /* 4b. Point sets: 3000 queries among 2000 candidates, 1000 of them on
     * query points (distance 0, other set: neighbours); the candidates
     * strided; then 2000 queries among 9000 candidates (the pipeline grows),
     * counts only. */
    for (uint32_t j = 0; j < 2000; ++j) memcpy(strided + 4 * j, xyz + 3 * (1000 + j), 12);
    info = info_for(xyz, 3000, 1.0f, FENNS_METHOD_FENNS);
    info.candidate_positions = strided;
    info.candidate_stride = 16;
    info.candidate_count = 2000;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "point sets");
    check_point_sets("point sets", xyz, 3000, xyz + 3 * 1000, 2000, 1.0f, &csr, 0);
    check_same_as_one_shot("point sets", &info, &csr);
    info = info_for(spread, 2000, 1.5f, FENNS_METHOD_FENNS);
    info.candidate_positions = xyz + 3 * 2000;
    info.candidate_count = 9000;
    info.counts_only = 1;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "point sets, counts only");
    check_point_sets("point sets, counts only", spread, 2000, xyz + 3 * 2000, 9000, 1.5f, &csr, 1);

    /* 4c. A user kernel, then the same kernel from a copy of its SPIR-V in
     * another buffer: the kept pipeline (the words compared), no memory
     * added, the same values bit for bit. */
    enum { KERNEL_N = 5000 };
    const float kernel_radius = 1.2f;
    uint32_t *spirv_copy = malloc(sizeof fenns_kernel_sph_density);
    float *kept_values = malloc(16u * KERNEL_N);
    CHECK(spirv_copy && kept_values, "kernel: host memory");
    if (!spirv_copy || !kept_values) return 1;
    memcpy(spirv_copy, fenns_kernel_sph_density, sizeof fenns_kernel_sph_density);
    fenns_kernel_info kernel = {fenns_kernel_sph_density, sizeof fenns_kernel_sph_density, VK_NULL_HANDLE};
    fenns_host_search_info kernel_info = info_for(xyz, KERNEL_N, kernel_radius, FENNS_METHOD_FENNS);
    kernel_info.kernel = &kernel;
    CHECK(fenns_host_searcher_run(s, &kernel_info, &csr) == FENNS_SUCCESS && csr.indices == NULL, "kernel run");
    check_against_reference("kernel", xyz, KERNEL_N, kernel_radius, &csr, 1);
    check_density("kernel", xyz, KERNEL_N, NULL, 0, kernel_radius, &csr);
    if (csr.kernel_values) memcpy(kept_values, csr.kernel_values, 16u * KERNEL_N);
    memory = csr.gpu_memory_bytes;
    kernel.spirv = spirv_copy;
    CHECK(fenns_host_searcher_run(s, &kernel_info, &csr) == FENNS_SUCCESS && csr.kernel_values &&
              !memcmp(csr.kernel_values, kept_values, 16u * KERNEL_N) && csr.gpu_memory_bytes == memory,
          "the kernel's SPIR-V copied: different values, or memory %llu -> %llu", (unsigned long long)memory,
          (unsigned long long)csr.gpu_memory_bytes);
    /* The kernel on point sets (queries among other candidates), warm. */
    fenns_host_search_info sets_info = kernel_info;
    sets_info.positions = spread;
    sets_info.particle_count = 2000;
    sets_info.candidate_positions = xyz + 3 * 2000;
    sets_info.candidate_count = 3000;
    CHECK(fenns_host_searcher_run(s, &sets_info, &csr) == FENNS_SUCCESS && csr.gpu_memory_bytes == memory,
          "kernel on point sets");
    check_point_sets("kernel, point sets", spread, 2000, xyz + 3 * 2000, 3000, kernel_radius, &csr, 1);
    check_density("kernel, point sets", spread, 2000, xyz + 3 * 2000, 3000, kernel_radius, &csr);

    /* 5. A rejected run clears *out and leaves the searcher as it was. */
    g.quiet = 1;
    /* Kernels: null SPIR-V of the kept one's size (a warm run compares the
     * words), a short one, and one with a set of the caller's; then the
     * kernel again, as before. */
    fenns_kernel_info bad_kernel = kernel;
    fenns_host_search_info bad_info = kernel_info;
    bad_info.kernel = &bad_kernel;
    bad_kernel.spirv = NULL;
    CHECK(fenns_host_searcher_run(s, &bad_info, &csr) == FENNS_ERROR_INVALID_ARGUMENT && csr.kernel_values == NULL,
          "a kernel with null SPIR-V accepted");
    bad_kernel.spirv = spirv_copy;
    bad_kernel.spirv_size = 6;
    CHECK(fenns_host_searcher_run(s, &bad_info, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "a kernel of 6 bytes accepted");
    bad_kernel.spirv_size = kernel.spirv_size;
    VkDescriptorSetLayoutCreateInfo no_bindings = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    CHECK(vkCreateDescriptorSetLayout(g.device, &no_bindings, NULL, &bad_kernel.user_set_layout) == VK_SUCCESS,
          "a descriptor set layout");
    CHECK(fenns_host_searcher_run(s, &bad_info, &csr) == FENNS_ERROR_INVALID_ARGUMENT && csr.offsets == NULL,
          "a kernel with a user_set_layout accepted");
    vkDestroyDescriptorSetLayout(g.device, bad_kernel.user_set_layout, NULL);
    CHECK(fenns_host_searcher_run(s, &kernel_info, &csr) == FENNS_SUCCESS && csr.kernel_values &&
              !memcmp(csr.kernel_values, kept_values, 16u * KERNEL_N) && csr.gpu_memory_bytes == memory,
          "the kernel after refused ones: different values, or memory %llu -> %llu", (unsigned long long)memory,
          (unsigned long long)csr.gpu_memory_bytes);
    free(spirv_copy);
    free(kept_values);
    info = info_for(xyz, 3000, 1.0f, FENNS_METHOD_FENNS);
    info.candidate_count = 10; /* no candidate positions */
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "candidate_count without positions accepted");
    info.candidate_positions = xyz;
    info.candidate_stride = 8;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "candidate_stride 8 accepted");
    info.candidate_stride = 0;
    info.method = FENNS_METHOD_FENNS_PAPER;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "point sets with fenns-paper accepted");
    fenns_host_searcher other = s;
    info = info_for(xyz, 6000, NAN, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT && csr.offsets == NULL,
          "NaN radius accepted");
    info.radius = 1.0f;
    info.domain_min[1] = 2.0f; /* inverted along y (checked by the run: the kept pipeline has no box) */
    info.domain_max[1] = 1.0f;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT && csr.offsets == NULL,
          "inverted domain accepted");
    info.domain_min[1] = info.domain_max[1] = 0.0f;
    info.queue = VK_NULL_HANDLE;
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "null queue accepted");
    CHECK(fenns_host_searcher_run(NULL, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT &&
              fenns_host_searcher_run(s, NULL, &csr) == FENNS_ERROR_INVALID_ARGUMENT &&
              fenns_host_searcher_run(s, &info, NULL) == FENNS_ERROR_INVALID_ARGUMENT &&
              fenns_host_searcher_create(NULL, &other) == FENNS_ERROR_INVALID_ARGUMENT && other == NULL,
          "null arguments accepted (or create cleared nothing)");
    g.quiet = 0;
    g.error_messages = 0;
    info = info_for(xyz, MAX_N, 1.0f, FENNS_METHOD_FENNS);
    CHECK(fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS, "after rejected runs");
    check_against_reference("after rejected runs", xyz, MAX_N, 1.0f, &csr, 0);

    fenns_host_searcher_destroy(s);
    fenns_host_searcher_destroy(NULL);
    fenns_host_csr_free(g.context, NULL);
    free(xyz);
    free(spread);
    free(strided);
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
