/*
 * Both FENNS variants against the CPU reference on adversarial point sets
 * (README, Tests), through the host convenience call and through the recording
 * API (counts, fixed-capacity lists with overflow, permutation, determinism).
 * Runs with validation + synchronization validation; any message fails.
 *
 *   test_search --method fenns|fenns-paper|counting|octant|radix [--quick] [--shared-memory BYTES]
 *   test_search --large      one set larger than maxStorageBufferRange
 */
#define _POSIX_C_SOURCE 200809L /* setenv: fenns' two build flavours */
#include "check.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "reference.h"
#include "scenes.h"
#include "test_scene.h"

static fenns_test_gpu g_gpu;
static fenns_method g_method = FENNS_METHOD_FENNS;
/* Methods whose permutation and list order are the same every run. */
static int deterministic_method(void) { return g_method == FENNS_METHOD_FENNS || g_method == FENNS_METHOD_RADIX; }



static uint32_t count_invalid(const float *xyz, uint32_t n) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; ++i)
        c += !(isfinite(xyz[3 * i]) && isfinite(xyz[3 * i + 1]) && isfinite(xyz[3 * i + 2]));
    return c;
}

/* The host convenience search of a scene. */
static fenns_host_search_info host_info_for(const scene *s) {
    fenns_host_search_info info = {0};
    info.method = g_method;
    info.radius = s->radius;
    info.positions = s->xyz;
    info.particle_count = s->n;
    info.queue = g_gpu.queue;
    if (s->user_domain) {
        memcpy(info.domain_min, s->domain_min, sizeof info.domain_min);
        memcpy(info.domain_max, s->domain_max, sizeof info.domain_max);
    }
    return info;
}

/* The host convenience search of a scene (lists, or counts only) and the CPU
 * reference; returns 1 when both succeeded, else reports and frees. */
static int search_with_reference(const scene *s, int counts_only, fenns_host_csr *csr, uint64_t **ro, uint32_t **ri) {
    fenns_host_search_info info = host_info_for(s);
    info.counts_only = counts_only;
    *ro = NULL;
    *ri = NULL;
    fenns_result r = fenns_host_search(g_gpu.context, &info, csr);
    CHECK(r == FENNS_SUCCESS, "%s: fenns_host_search%s: %s", s->name, counts_only ? " (counts only)" : "",
          fenns_result_string(r));
    if (r != FENNS_SUCCESS) return 0;
    int rr = fenns_reference_csr(s->xyz, s->n, s->radius, ro, ri);
    CHECK(rr == FENNS_REFERENCE_OK, "%s: reference failed (%d)", s->name, rr);
    if (rr == FENNS_REFERENCE_OK) return 1;
    fenns_host_csr_free(g_gpu.context, csr);
    return 0;
}

/* fenns: the sets each of its search pipelines took (by scene_fixed_reach:
 * the general search, search_local7, search_local9). run_scenes needs all
 * three, so that the suite checks each against the reference. */
static unsigned g_sets_by_pipeline[3];

/* Host convenience search (lists ascending) against the reference; the
 * status of the search in *status when given. */
static void check_host_search_status(const scene *s, fenns_status *status) {
    fenns_host_csr csr;
    uint64_t *ro;
    uint32_t *ri;
    if (search_with_reference(s, 0, &csr, &ro, &ri)) {
        char msg[256] = "";
        uint64_t tolerated = 0;
        int diff = fenns_reference_compare(s->xyz, s->n, s->radius, ro, ri, csr.particle_count, csr.offsets,
                                           csr.indices, 0, &tolerated, msg, sizeof msg);
        CHECK(diff == 0, "%s (n=%u r=%g): %s", s->name, s->n, (double)s->radius, msg);
        CHECK(!s->exact || tolerated == 0, "%s: %llu pairs at exactly r missing or extra (the arithmetic is exact)",
              s->name, (unsigned long long)tolerated);
        uint32_t invalid = count_invalid(s->xyz, s->n);
        CHECK(csr.status.invalid_count == invalid, "%s: invalid_count %u, expected %u", s->name,
              csr.status.invalid_count, invalid);
        CHECK(csr.status.particle_count == s->n, "%s: status particle_count %u", s->name, csr.status.particle_count);
        CHECK(csr.status.total_neighbors == csr.total, "%s: status total %llu vs %llu", s->name,
              (unsigned long long)csr.status.total_neighbors, (unsigned long long)csr.total);
        uint32_t reach = g_method == FENNS_METHOD_FENNS ? scene_fixed_reach(&csr.status) : 0u;
        if (g_method == FENNS_METHOD_FENNS) ++g_sets_by_pipeline[reach];
        printf("  %-22s n=%-8u r=%-6g m=%-9llu grid %ux%ux%u fine %ux%ux%u build %.2f ms search %.2f ms%s%s\n",
               s->name, s->n, (double)s->radius, (unsigned long long)csr.total, csr.status.coarse_dims[0],
               csr.status.coarse_dims[1], csr.status.coarse_dims[2], csr.status.fine_dims[0], csr.status.fine_dims[1],
               csr.status.fine_dims[2], csr.build_ms, csr.search_ms,
               reach == 1u ? " (search_local7)" : reach == 2u ? " (search_local9)" : "",
               tolerated ? " (pairs at r tolerated)" : "");
    }
    if (status) *status = csr.status;
    fenns_reference_free(&ro, &ri);
    fenns_host_csr_free(g_gpu.context, &csr);
}

static void check_host_search(const scene *s) { check_host_search_status(s, NULL); }

/* Counts only (FENNS_OUTPUT_COUNTS, no lists) against the reference. */
static void check_counts_only(const scene *s) {
    fenns_host_csr csr;
    uint64_t *ro;
    uint32_t *ri;
    if (search_with_reference(s, 1, &csr, &ro, &ri)) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < s->n; ++i) bad += csr.counts[i] != (uint32_t)(ro[i + 1] - ro[i]);
        CHECK(bad == 0, "%s: %u counts differ from the reference", s->name, bad);
        CHECK(csr.indices == NULL && csr.status.total_neighbors == ro[s->n], "%s: counts-only total %llu vs %llu",
              s->name, (unsigned long long)csr.status.total_neighbors, (unsigned long long)ro[s->n]);
        uint32_t longest = 0;
        for (uint32_t i = 0; i < s->n; ++i)
            if (ro[i + 1] - ro[i] > longest) longest = (uint32_t)(ro[i + 1] - ro[i]);
        CHECK(csr.status.max_neighbors == longest, "%s: max_neighbors %u, the longest list has %u", s->name,
              csr.status.max_neighbors, longest);
    }
    fenns_reference_free(&ro, &ri);
    fenns_host_csr_free(g_gpu.context, &csr);
}

/* Recording API: counts and FIXED or CSR lists, in original or sorted order
 * (FENNS_OUTPUT_SORTED_ORDER); returns them with the build's permutation. */
typedef struct list_result {
    uint32_t *counts, *lists, *perm, *to_original; /* to_original: SORTED_ORDER only */
    uint64_t *offsets;                             /* CSR only */
    fenns_status status;
} list_result;

/* fenns' build orders by coarse cell ("cell order") where FENNS_BUILD_BY_CELL=1
 * asks for it, by section ("section order") where 0 does (unset, the planner
 * picks): the by-cell tests must not pass on the other build. */
static int build_flavour_ok(fenns_pipeline p, const fenns_build_info *b) {
    const char *env = getenv("FENNS_BUILD_BY_CELL");
    if (g_method != FENNS_METHOD_FENNS || !env) return 1;
    const char *want = !strcmp(env, "1") ? "cell order" : "section order";
    fenns_pass_info passes[FENNS_MAX_PASSES];
    uint32_t count = fenns_get_build_passes(p, b, passes);
    for (uint32_t k = 0; k < count; ++k)
        if (!strcmp(passes[k].name, want)) return 1;
    fprintf(stderr, "FAIL: the fenns build has no '%s' pass\n", want);
    return 0;
}

/* capacity: FIXED entries per particle, or CSR entries in all. */
static int run_lists(const scene *s, fenns_output_flags outputs, uint64_t capacity, list_result *out) {
    memset(out, 0, sizeof *out);
    int csr = (outputs & FENNS_OUTPUT_CSR) != 0, sorted = (outputs & FENNS_OUTPUT_SORTED_ORDER) != 0;
    uint64_t entries = csr ? capacity : (uint64_t)s->n * capacity;
    fenns_pipeline_create_info pci = {0};
    pci.method = g_method;
    pci.radius = s->radius;
    pci.max_particles = s->n;
    if (s->user_domain) {
        memcpy(pci.domain_min, s->domain_min, sizeof pci.domain_min);
        memcpy(pci.domain_max, s->domain_max, sizeof pci.domain_max);
    }
    fenns_pipeline p;
    if (fenns_pipeline_create(g_gpu.context, &pci, &p) != FENNS_SUCCESS) return 0;
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(p, s->n, &req);
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(p, s->n, &layout);
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    fenns_test_buffer pos = {0}, scratch = {0}, counts = {0}, lists = {0}, offsets = {0}, to_original = {0};
    int ok = fenns_test_buffer_create(&g_gpu, 16u * s->n, usage, FENNS_TEST_HOST_VISIBLE, &pos) == VK_SUCCESS &&
             fenns_test_buffer_create(&g_gpu, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS &&
             fenns_test_buffer_create(&g_gpu, 4u * s->n, usage, FENNS_TEST_HOST_VISIBLE, &counts) == VK_SUCCESS &&
             fenns_test_buffer_create(&g_gpu, 4u * (entries ? entries : 1u), usage, FENNS_TEST_HOST_VISIBLE, &lists) == VK_SUCCESS &&
             (!csr || fenns_test_buffer_create(&g_gpu, 8u * ((VkDeviceSize)s->n + 1u), usage, FENNS_TEST_HOST_VISIBLE,
                                               &offsets) == VK_SUCCESS) &&
             (!sorted || fenns_test_buffer_create(&g_gpu, 4u * s->n, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                  FENNS_TEST_HOST_VISIBLE, &to_original) == VK_SUCCESS);
    if (ok) {
        float *v = pos.mapped;
        for (uint32_t i = 0; i < s->n; ++i) {
            memcpy(v + 4 * i, s->xyz + 3 * i, 12);
            v[4 * i + 3] = (float)i; /* the caller's w must not matter */
        }
        VkCommandBuffer cmd;
        ok = fenns_test_begin(&g_gpu, &cmd) == VK_SUCCESS;
        if (ok) {
            fenns_build_info b = {.particle_count = s->n, .positions = fenns_test_range(&pos, 0, VK_WHOLE_SIZE),
                                  .scratch = fenns_test_range(&scratch, 0, req.size)};
            b.descriptors = g_gpu.arena;
            ok = build_flavour_ok(p, &b);
            fenns_cmd_build(cmd, p, &b);
            fenns_cmd_build_to_search_barrier(cmd, p);
            fenns_search_info si = fenns_test_search_of(&b, outputs);
            si.counts = fenns_test_range(&counts, 0, VK_WHOLE_SIZE);
            si.indices = fenns_test_range(&lists, 0, 4u * entries);
            if (csr) si.offsets = fenns_test_range(&offsets, 0, VK_WHOLE_SIZE);
            else si.fixed_capacity = (uint32_t)capacity;
            if (sorted) si.sorted_to_original = fenns_test_range(&to_original, 0, VK_WHOLE_SIZE);
            fenns_cmd_search(cmd, p, &si);
            VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT};
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
            ok = fenns_test_submit(&g_gpu, cmd) == VK_SUCCESS;
        }
    }
    if (ok) {
        out->counts = malloc(4u * s->n + 4);
        out->lists = malloc(4u * (size_t)entries + 4);
        out->perm = malloc(4u * s->n + 4);
        out->offsets = csr ? malloc(8u * ((size_t)s->n + 1u)) : NULL;
        out->to_original = sorted ? malloc(4u * s->n + 4) : NULL;
        ok = out->counts && out->lists && out->perm && (!csr || out->offsets) && (!sorted || out->to_original);
        if (ok) {
            memcpy(out->counts, counts.mapped, 4u * s->n);
            memcpy(out->lists, lists.mapped, 4u * (size_t)entries);
            if (csr) memcpy(out->offsets, offsets.mapped, 8u * ((size_t)s->n + 1u));
            if (sorted) memcpy(out->to_original, to_original.mapped, 4u * s->n);
            ok = fenns_test_download(&g_gpu, &scratch, layout.permutation_offset, out->perm, 4u * s->n) == VK_SUCCESS &&
                 fenns_test_download(&g_gpu, &scratch, layout.status_offset, &out->status, sizeof out->status) == VK_SUCCESS;
        }
    }
    fenns_test_buffer_destroy(&g_gpu, &pos);
    fenns_test_buffer_destroy(&g_gpu, &scratch);
    fenns_test_buffer_destroy(&g_gpu, &counts);
    fenns_test_buffer_destroy(&g_gpu, &lists);
    if (csr) fenns_test_buffer_destroy(&g_gpu, &offsets);
    if (sorted) fenns_test_buffer_destroy(&g_gpu, &to_original);
    fenns_pipeline_destroy(p);
    return ok;
}

static void free_lists(list_result *r) {
    free(r->counts);
    free(r->lists);
    free(r->perm);
    free(r->to_original);
    free(r->offsets);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The permutation is a bijection; with SORTED_ORDER, sorted_to_original is it. */
static void check_permutation(const scene *s, const list_result *a) {
    uint8_t *seen = calloc(s->n + 1u, 1);
    for (uint32_t k = 0; k < s->n && seen; ++k) {
        if (a->perm[k] >= s->n || seen[a->perm[k]]++) {
            CHECK(0, "%s: permutation broken at %u", s->name, k);
            break;
        }
    }
    free(seen);
    /* fenns sorts every fine cell by original index, radix's stable sort
     * keeps it in every cell: coincident particles (one cell) that end up
     * side by side are in ascending order. */
    uint32_t unordered = 0;
    for (uint32_t k = 0; deterministic_method() && k + 1 < s->n; ++k) {
        uint32_t i = a->perm[k], j = a->perm[k + 1];
        if (i < s->n && j < s->n && memcmp(s->xyz + 3u * i, s->xyz + 3u * j, 12) == 0 && isfinite(s->xyz[3u * i]) &&
            isfinite(s->xyz[3u * i + 1]) && isfinite(s->xyz[3u * i + 2]))
            unordered += i > j;
    }
    CHECK(unordered == 0, "%s: %u coincident neighbours in the permutation out of original order", s->name, unordered);
    if (a->to_original)
        CHECK(memcmp(a->perm, a->to_original, 4u * s->n) == 0, "%s: sorted_to_original is not the permutation", s->name);
}

/* Fixed-capacity lists, in original or sorted order: counts exact, overflow
 * counted, stored entries are true neighbours without repeats, nothing
 * written past the capacity; the permutation is a permutation; fenns gives
 * identical bits twice (built by section and by coarse cell). */
static void check_fixed_order(const scene *s, uint32_t capacity, int sorted) {
    list_result a, b;
    fenns_output_flags outputs = FENNS_OUTPUT_FIXED | (sorted ? FENNS_OUTPUT_SORTED_ORDER : 0u);
    int ok = run_lists(s, outputs, capacity, &a);
    CHECK(ok, "%s: fixed run failed", s->name);
    if (!ok) return;
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    if (fenns_reference_csr(s->xyz, s->n, s->radius, &ro, &ri) != FENNS_REFERENCE_OK) {
        CHECK(0, "%s: reference failed", s->name);
        free_lists(&a);
        return;
    }
    check_permutation(s, &a);
    uint32_t overflow = 0, bad = 0, longest = 0;
    uint32_t *tmp = malloc(4u * capacity + 4);
    for (uint32_t k = 0; k < s->n && tmp; ++k) {
        uint32_t i = sorted ? a.perm[k] : k; /* k: where its outputs are */
        uint32_t expect = (uint32_t)(ro[i + 1] - ro[i]);
        if (expect > longest) longest = expect;
        if (a.counts[k] != expect) {
            if (bad++ < 3) CHECK(0, "%s: fixed count of %u is %u, expected %u", s->name, i, a.counts[k], expect);
            continue;
        }
        overflow += expect > capacity;
        uint32_t stored = expect < capacity ? expect : capacity;
        memcpy(tmp, a.lists + (size_t)k * capacity, 4u * stored);
        for (uint32_t e = 0; e < stored && sorted; ++e) tmp[e] = tmp[e] < s->n ? a.perm[tmp[e]] : UINT32_MAX;
        qsort(tmp, stored, 4, cmp_u32);
        for (uint32_t e = 0; e < stored; ++e) {
            int found = bsearch(&tmp[e], ri + ro[i], expect, 4, cmp_u32) != NULL;
            if ((!found || (e && tmp[e] == tmp[e - 1])) && bad++ < 3)
                CHECK(0, "%s: fixed list of %u holds %u wrongly", s->name, i, tmp[e]);
        }
    }
    free(tmp);
    CHECK(a.status.list_overflow == overflow, "%s: list_overflow %u, expected %u", s->name, a.status.list_overflow,
          overflow);
    CHECK(a.status.max_neighbors == longest, "%s: max_neighbors %u, expected %u", s->name, a.status.max_neighbors,
          longest);
    CHECK(a.status.total_neighbors == ro[s->n], "%s: fixed total %llu, expected %llu", s->name,
          (unsigned long long)a.status.total_neighbors, (unsigned long long)ro[s->n]);
    if (deterministic_method()) {
        /* fenns: the second run builds the other way (by section or by
         * coarse cell): both order by (cell, fine cell, original index). */
        fenns_test_env by_cell_env = fenns_test_env_save("FENNS_BUILD_BY_CELL");
        int by_cell = by_cell_env.was_set && !strcmp(by_cell_env.value, "1");
        if (g_method == FENNS_METHOD_FENNS) setenv("FENNS_BUILD_BY_CELL", by_cell ? "0" : "1", 1);
        ok = run_lists(s, outputs, capacity, &b);
        if (g_method == FENNS_METHOD_FENNS) fenns_test_env_restore(&by_cell_env); /* as it was (unset: the planner picks) */
        CHECK(ok, "%s: second fixed run failed", s->name);
        if (ok) {
            CHECK(memcmp(a.perm, b.perm, 4u * s->n) == 0, "%s: permutation differs between runs", s->name);
            /* Only the written prefix of each list is defined. */
            uint32_t differ = 0;
            for (uint32_t k = 0; k < s->n; ++k) {
                uint32_t stored = a.counts[k] < capacity ? a.counts[k] : capacity;
                differ += memcmp(a.lists + (size_t)k * capacity, b.lists + (size_t)k * capacity, 4u * stored) != 0;
            }
            CHECK(differ == 0, "%s: list order differs between runs for %u particles", s->name, differ);
            free_lists(&b);
        }
    }
    fenns_reference_free(&ro, &ri);
    free_lists(&a);
}

static void check_fixed(const scene *s, uint32_t capacity) { check_fixed_order(s, capacity, 0); }

/* CSR in the build's sorted order (SORTED_ORDER | SORTED_LISTS): for every
 * sorted position k, counts[k] and offsets are particle perm[k]'s, its list
 * is ascending in sorted positions and maps through the permutation onto
 * the reference list; FIXED in sorted order as check_fixed. */
static void check_sorted_order(const scene *s, uint32_t fixed_capacity) {
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    if (fenns_reference_csr(s->xyz, s->n, s->radius, &ro, &ri) != FENNS_REFERENCE_OK) {
        CHECK(0, "%s: reference failed", s->name);
        return;
    }
    list_result a;
    int ok = run_lists(s, FENNS_OUTPUT_CSR | FENNS_OUTPUT_SORTED_ORDER | FENNS_OUTPUT_SORTED_LISTS,
                       ro[s->n] ? ro[s->n] : 1u, &a);
    CHECK(ok, "%s: sorted-order CSR run failed", s->name);
    if (ok) {
        check_permutation(s, &a);
        uint32_t bad = 0;
        uint32_t *tmp = malloc(4u * (a.status.max_neighbors + 1u));
        CHECK(a.offsets[0] == 0 && a.offsets[s->n] == ro[s->n] && a.status.total_neighbors == ro[s->n],
              "%s: sorted-order CSR total %llu (status %llu), expected %llu", s->name,
              (unsigned long long)a.offsets[s->n], (unsigned long long)a.status.total_neighbors,
              (unsigned long long)ro[s->n]);
        for (uint32_t k = 0; k < s->n && tmp && a.offsets[s->n] == ro[s->n]; ++k) {
            uint32_t i = a.perm[k], expect = (uint32_t)(ro[i + 1] - ro[i]);
            uint64_t at = a.offsets[k], len = a.offsets[k + 1] - at;
            if (a.counts[k] != expect || len != expect || len > a.status.max_neighbors) {
                if (bad++ < 3)
                    CHECK(0, "%s: sorted position %u (particle %u): count %u, list %llu, expected %u", s->name, k, i,
                          a.counts[k], (unsigned long long)len, expect);
                continue;
            }
            int ascending = 1;
            for (uint32_t e = 0; e < expect; ++e) {
                uint32_t v = a.lists[at + e];
                ascending &= v < s->n && (e == 0 || v > a.lists[at + e - 1]);
                tmp[e] = v < s->n ? a.perm[v] : UINT32_MAX;
            }
            qsort(tmp, expect, 4, cmp_u32);
            if ((!ascending || memcmp(tmp, ri + ro[i], 4u * expect) != 0) && bad++ < 3)
                CHECK(0, "%s: sorted-order list of position %u (particle %u) is wrong%s", s->name, k, i,
                      ascending ? "" : " (not ascending)");
        }
        free(tmp);
        CHECK(bad == 0, "%s: %u sorted-order lists wrong", s->name, bad);
        free_lists(&a);
    }
    fenns_reference_free(&ro, &ri);
    check_fixed_order(s, fixed_capacity, 1);
}


static void run_scenes(int quick) {
    uint32_t base = quick ? 3000 : 20000;
    scene s;

    /* Uniform, GPU-computed domain, and the same with the caller's box. */
    scene_init(&s, "uniform", base);
    float side = cbrtf((float)s.n / 0.75f);
    fenns_scene_uniform(s.xyz, s.n, side);
    s.radius = 1.9f;
    check_host_search(&s);
    s.name = "uniform/caller-box";
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_max[a] = side;
    check_host_search(&s);
    check_fixed(&s, 8);
    check_sorted_order(&s, 8);
    s.user_domain = 0;
    s.name = "uniform/tiny-radius";
    s.radius = 0.05f;
    check_host_search(&s);
    s.name = "uniform/huge-radius";
    s.radius = 3.0f * side;
    if (quick) check_host_search(&s); /* n^2 pairs: keep it small */
    free(s.xyz);

    /* Lattice: particles on cell faces, neighbours at exactly r. */
    scene_init(&s, "lattice/exact-r", quick ? 1000 : 8000);
    fenns_scene_lattice(s.xyz, s.n, 1.0f, 1);
    s.radius = 1.0f;
    s.exact = 1;
    check_host_search(&s);
    s.name = "lattice/caller-box";
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_max[a] = quick ? 10.0f : 20.0f;
    check_host_search(&s);
    s.name = "lattice/r=2";
    s.radius = 2.0f;
    check_host_search(&s);
    /* Pairs at exactly r in oblique directions ((3,4,0), (0,3,4), ...): the
     * rows the search trims to the query's sphere must keep them. */
    s.name = "lattice/3-4-5 r=5";
    s.radius = 5.0f;
    s.user_domain = 0;
    check_host_search(&s);
    for (uint32_t k = 0; k < 3 * s.n; ++k) s.xyz[k] += 4096.0f; /* still exact integers */
    s.name = "lattice/3-4-5 at 4096";
    check_host_search(&s);
    s.name = "lattice/3-4-5 at 4096, box from 0";
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_max[a] = 8192.0f;
    check_host_search(&s);
    free(s.xyz);

    scene_init(&s, "clusters", base);
    fenns_scene_clusters(s.xyz, s.n, 60.0f, 2);
    s.radius = 0.6f;
    check_host_search(&s);
    check_fixed(&s, 4);
    check_sorted_order(&s, 4);
    check_counts_only(&s);
    free(s.xyz);

    scene_init(&s, "planar", base);
    fenns_scene_planar(s.xyz, s.n, 50.0f, -3.0f, 3);
    s.radius = 1.0f;
    check_host_search(&s);
    free(s.xyz);

    scene_init(&s, "all-in-one-cell", quick ? 600 : 2500);
    float origin[3] = {-5.0f, 2.0f, 7.0f};
    fenns_scene_all_in_one(s.xyz, s.n, origin, 0.5f, 4);
    s.radius = 1.0f;
    check_host_search(&s);
    free(s.xyz);

    scene_init(&s, "duplicates", quick ? 2000 : 8000);
    fenns_scene_duplicates(s.xyz, s.n, 20.0f, s.n / 20u, 5);
    s.radius = 0.7f;
    check_host_search(&s);
    check_sorted_order(&s, 8);
    free(s.xyz);

    /* Sections of every size 1..100 (coincident groups, each in a fine cell
     * of its own, members scattered over the index range): the build orders
     * sections of up to FENNS_SMALL_SECTION (64) by rank, lists the longer
     * ones for a sort, and some cross its chunks of positions; lists must come
     * out in original-index order within each. */
    scene_init(&s, "coincident-groups-1..100", 5050u);
    CHECK(fenns_scene_coincident_groups(s.xyz, 100u, 3.0f, 11) == s.n, "coincident groups: count");
    s.radius = 0.7f;
    check_host_search(&s);
    check_sorted_order(&s, 8);
    free(s.xyz);

    scene_init(&s, "outside-the-domain", base);
    float bmin[3] = {-10.0f, -10.0f, -10.0f}, bmax[3] = {10.0f, 10.0f, 10.0f};
    fenns_scene_outside(s.xyz, s.n, bmin, bmax, 0.25f, 6);
    s.radius = 1.5f;
    s.user_domain = 1;
    memcpy(s.domain_min, bmin, sizeof bmin);
    memcpy(s.domain_max, bmax, sizeof bmax);
    check_host_search(&s);
    check_fixed(&s, 16);
    free(s.xyz);

    scene_init(&s, "far-offset-1e6", base);
    fenns_scene_far_offset(s.xyz, s.n, 30.0f, 7);
    s.radius = 1.5f;
    check_host_search(&s);
    free(s.xyz);

    scene_init(&s, "nan-inf", base);
    fenns_scene_uniform(s.xyz, s.n, 25.0f);
    scene_make_invalid(s.xyz, s.n);
    s.radius = 1.5f;
    check_host_search(&s);
    check_fixed(&s, 8);
    check_sorted_order(&s, 8);
    check_counts_only(&s);
    free(s.xyz);

    /* A radius a billion times smaller than the domain: the grid stays
     * bounded (the plan never sizes cells below the float resolution). */
    scene_init(&s, "tiny-r-in-1e3-domain", quick ? 1000 : 5000);
    fenns_scene_uniform(s.xyz, s.n, 2000.0f);
    for (uint32_t i = 0; i < 3 * s.n; ++i) s.xyz[i] -= 1000.0f;
    for (uint32_t i = 0; i + 1 < s.n; i += 50) memcpy(s.xyz + 3 * (i + 1), s.xyz + 3 * i, 12); /* some duplicates */
    s.radius = 1e-6f;
    check_host_search(&s);
    free(s.xyz);

    /* One outlier far from a dense cluster (cuNSearch issue #10). */
    scene_init(&s, "far-outlier", quick ? 1500 : 4000);
    fenns_scene_uniform(s.xyz, s.n, 10.0f);
    s.xyz[0] = s.xyz[1] = s.xyz[2] = 1e6f;
    s.radius = 0.5f;
    check_host_search(&s);
    free(s.xyz);

    /* A cluster in a box 100x wider: the grid folds onto the cell table. */
    scene_init(&s, "cluster-in-huge-box", base);
    fenns_scene_uniform(s.xyz, s.n, side);
    s.radius = 1.9f;
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_min[a] = -50.0f * side, s.domain_max[a] = 50.0f * side;
    check_host_search(&s);
    check_fixed(&s, 6);
    check_sorted_order(&s, 6);
    free(s.xyz);

    /* Coordinates near the float limit: max - min of the GPU-computed box
     * overflows to inf, distances between the far points too. */
    scene_init(&s, "coordinates-near-FLT_MAX", quick ? 500 : 2000);
    fenns_scene_uniform(s.xyz, s.n, 8.0f);
    s.xyz[0] = -3.0e38f;
    s.xyz[3] = 3.0e38f;
    s.xyz[7] = -3.0e38f;
    s.xyz[11] = 3.0e38f;
    s.radius = 1.0f;
    check_host_search(&s);
    free(s.xyz);

    if (quick) {
        /* Past the shared histogram's table: fenns counts with global atomics
         * and keeps ranks (fenns_plan_ranked), its default from about 10^4
         * particles, so that the subgroup-size and shared-memory runs, which
         * are quick, take that path too. */
        scene_init(&s, "uniform-ranked", 20000);
        fenns_scene_uniform(s.xyz, s.n, cbrtf((float)s.n / 0.75f));
        s.radius = 1.0f;
        check_host_search(&s);
        free(s.xyz);
    }

    /* Tiny sets. */
    for (uint32_t n = 0; n <= 3; ++n) {
        scene_tiny(&s, n);
        check_host_search(&s);
    }

    if (!quick) {
        scene_init(&s, "uniform-1M", 1u << 20);
        fenns_scene_uniform(s.xyz, s.n, 100.0f);
        s.radius = 1.0f;
        check_host_search(&s);
        free(s.xyz);
    }
}

/* One million particles that a grid sized to its domain puts in one coarse
 * cell: a cluster in a caller's box 100 times wider, and a cluster plus one
 * far outlier. Exact, and the grid's cells stay a few r wide (so the
 * cluster spans many of them and the search costs what its output does). */
/* The edge of a build's coarse cells along axis a (0 where it has none). */
static float coarse_edge(const fenns_status *st, int a) {
    return st->coarse_dims[a] ? (st->domain_max[a] - st->domain_min[a]) / (float)st->coarse_dims[a] : 0.0f;
}

static void check_cluster_spans_cells(const scene *s, float cluster_side) {
    fenns_status st;
    memset(&st, 0, sizeof st);
    check_host_search_status(s, &st);
    for (int a = 0; a < 3; ++a) {
        float edge = coarse_edge(&st, a);
        CHECK(st.coarse_dims[a] > 0 && cluster_side / edge >= 4.0f, "%s: cells %g wide, the cluster spans only %g of them",
              s->name, (double)edge, (double)(cluster_side / edge));
    }
}

/* fenns: a sparse uniform set (0.03 neighbours a particle). The density
 * pass finds its particles spread out, so its fine cells grow past two
 * margins and its coarse cells with them (a grid of 2-margin fine cells
 * would have 2-unit cells, folded 80 times over onto the table). Exact. */
static void check_sparse_cells_grow(void) {
    if (g_method != FENNS_METHOD_FENNS) return;
    scene s;
    scene_init(&s, "200K-sparse-r0.2", 200000u);
    fenns_scene_uniform(s.xyz, s.n, 100.0f);
    s.radius = 0.2f;
    fenns_status st;
    memset(&st, 0, sizeof st);
    check_host_search_status(&s, &st);
    for (int a = 0; a < 3; ++a) {
        float edge = coarse_edge(&st, a);
        CHECK(st.coarse_dims[a] > 0 && edge >= 20.0f * s.radius, "%s: cells %g wide, expected 4 or more (fine cells past two margins)",
              s.name, (double)edge);
    }
    free(s.xyz);
}

/* Searches s in the caller's box [0, side)^3, exact against the CPU, and
 * returns the search's status. */
static fenns_status status_in_box(scene *s, float side) {
    s->user_domain = 1;
    for (int a = 0; a < 3; ++a) s->domain_min[a] = 0.0f, s->domain_max[a] = side;
    fenns_status st;
    memset(&st, 0, sizeof st);
    check_host_search_status(s, &st);
    return st;
}

/* fenns: a crowded set in the caller's box (half its particles uniform,
 * half in eight Gaussian blobs 100 times as dense), whose average density
 * (about one particle a unit cube) would give fine cells 1.14 radii wide
 * (1.16 on the grid). The density pass sees the crowds, and the fine cells
 * shrink to about a margin (1.05 on the grid, which the cell tables bound).
 * Exact. */
static void check_crowded_cells_shrink(void) {
    if (g_method != FENNS_METHOD_FENNS) return;
    scene s;
    scene_init(&s, "200K-crowded-r1", 200000u);
    fenns_scene_clusters(s.xyz, s.n, 58.0f, 7u);
    s.radius = 1.0f;
    fenns_status st = status_in_box(&s, 58.0f);
    for (int a = 0; a < 3; ++a) {
        float fine = st.fine_split ? coarse_edge(&st, a) / (float)st.fine_split : 0.0f;
        CHECK(fine > 0.0f && fine < 1.1f * s.radius, "%s: fine cells %g wide, expected about a margin (the crowds' spacing)",
              s.name, (double)fine);
    }
    free(s.xyz);
}

/* A dense set (13 particles a half-margin fine cell: density * margin^3
 * about 104) takes reach 2 and F >= 2 reach fine cells a coarse axis, so
 * that a stencil row crosses at most two coarse cells (the kernel search
 * walks rows as two runs); by the particles a cell alone F would be 3. */
static void check_dense_split(void) {
    if (g_method != FENNS_METHOD_FENNS) return;
    scene s;
    scene_init(&s, "7680-dense-r1", 7680u);
    fenns_scene_uniform(s.xyz, s.n, 4.2f);
    s.radius = 1.0f;
    fenns_status st = status_in_box(&s, 4.2f);
    uint32_t reach = st.fine_dims[0] > st.fine_split ? (st.fine_dims[0] - st.fine_split) / 2u : 0u;
    CHECK(reach == 2u && st.fine_split >= 2u * reach, "%s: %u fine cells a coarse axis with reach %u, expected >= 2 reach",
          s.name, st.fine_split, reach);
    CHECK(st.coarse_dims[0] >= 2u, "%s: %u coarse cells an axis, expected rows across cells", s.name, st.coarse_dims[0]);
    free(s.xyz);
}

/* llvmpipe stops a shader invocation after 65535 loop iterations in all.
 * 10^5 coincident particles (10^10 pairs) must still be counted exactly by
 * fenns; fenns-paper's published loop may instead refuse with
 * FENNS_ERROR_DRIVER_LIMIT where the device has that limit. 4x10^5 would
 * need more iterations per invocation than the limit: exact on a GPU, the
 * named error on llvmpipe; never a short count. Tight clusters (a few
 * thousand particles in Gaussian blobs much smaller than r) are exact. */
static int device_has_loop_limit(void) { return strncmp(g_gpu.limits.device_name, "llvmpipe", 8) == 0; }

static void check_coincident(uint32_t n, int may_refuse) {
    scene s;
    char name[64];
    snprintf(name, sizeof name, "%u-coincident", n);
    scene_init(&s, name, n);
    for (uint32_t i = 0; i < 3u * n; ++i) s.xyz[i] = 7.25f;
    s.radius = 0.5f;
    fenns_host_search_info info = host_info_for(&s);
    info.counts_only = 1;
    fenns_host_csr csr;
    g_gpu.quiet = may_refuse;
    fenns_result r = fenns_host_search(g_gpu.context, &info, &csr);
    g_gpu.quiet = 0;
    if (r == FENNS_ERROR_DRIVER_LIMIT && may_refuse) {
        g_gpu.error_messages = 0; /* the refusal was logged as an error, as it should be */
        printf("  %-22s n=%-8u refused: %s\n", s.name, n, fenns_result_string(r));
    } else {
        CHECK(r == FENNS_SUCCESS, "%s: %s", s.name, fenns_result_string(r));
        if (r == FENNS_SUCCESS) {
            uint32_t bad = 0;
            for (uint32_t i = 0; i < n; ++i) bad += csr.counts[i] != n - 1u;
            uint64_t pairs = (uint64_t)n * (n - 1u);
            CHECK(bad == 0 && csr.total == pairs && csr.status.total_neighbors == pairs &&
                      csr.status.max_neighbors == n - 1u && csr.status.incomplete_queries == 0,
                  "%s: %u counts wrong, total %llu (status %llu, longest %u), expected %llu", s.name, bad,
                  (unsigned long long)csr.total, (unsigned long long)csr.status.total_neighbors,
                  csr.status.max_neighbors, (unsigned long long)pairs);
            printf("  %-22s n=%-8u m=%llu (%.3f x 2^32) counted in %.0f ms\n", s.name, n, (unsigned long long)csr.total,
                   (double)csr.total / 4294967296.0, csr.search_ms);
        }
    }
    fenns_host_csr_free(g_gpu.context, &csr);
    free(s.xyz);
}

static void run_extremes(void) {
    check_sparse_cells_grow();
    check_crowded_cells_shrink();
    check_dense_split();
    scene s;
    scene_init(&s, "1M-cluster-in-1e4-box", 1u << 20);
    fenns_scene_uniform(s.xyz, s.n, 100.0f);
    s.radius = 1.0f;
    s.user_domain = 1;
    for (int a = 0; a < 3; ++a) s.domain_min[a] = 0.0f, s.domain_max[a] = 1e4f;
    check_cluster_spans_cells(&s, 100.0f);
    s.name = "1M-cluster+outlier-at-1e5";
    s.user_domain = 0;
    s.xyz[0] = s.xyz[1] = s.xyz[2] = 1e5f;
    check_cluster_spans_cells(&s, 100.0f);
    free(s.xyz);

    /* More than 2^32 pairs, counted: one cluster of 65600 coincident
     * particles (65600 * 65599 = 1.002 x 2^32). The 64-bit total and its
     * carries (run_huge writes lists that large where a GPU can bind them).
     * Every method adds its total with search_common.glsl's add_total, and
     * fenns' wide counts search with count_total.comp: fenns alone takes
     * this set, as counting 4.3 x 10^9 pairs on llvmpipe takes minutes a
     * method. One cluster, as its candidates cost llvmpipe least a pair;
     * fenns-paper would refuse it by name (llvmpipe's loop limit, see
     * README), fenns counts it whole. */
    if (g_method == FENNS_METHOD_FENNS) check_coincident(65600u, 0);
}

/* `crowd`: the coincident particles that must be counted exactly (fenns)
 * or refused by name (fenns-paper on llvmpipe): 10^5, or fewer given by
 * `--loop-limit N` (see tests/CMakeLists.txt). */
static void run_loop_limit(uint32_t crowd) {
    check_coincident(crowd, g_method == FENNS_METHOD_FENNS_PAPER && device_has_loop_limit());
    /* fenns: past the walk's bound (about 2 * 65535 candidates a row) but
     * not the section sort's, so the search's own bound is what refuses. */
    if (g_method == FENNS_METHOD_FENNS) check_coincident(140000u, device_has_loop_limit());
    check_coincident(400000u, device_has_loop_limit());
    if (device_has_loop_limit()) { /* must refuse, not count short */
        scene s;
        scene_init(&s, "400000-coincident-refused", 400000u);
        for (uint32_t i = 0; i < 3u * s.n; ++i) s.xyz[i] = -3.0f;
        s.radius = 1.0f;
        fenns_host_search_info info = host_info_for(&s);
        info.counts_only = 1;
        fenns_host_csr csr;
        g_gpu.quiet = 1;
        fenns_result r = fenns_host_search(g_gpu.context, &info, &csr);
        g_gpu.quiet = 0;
        CHECK(r == FENNS_ERROR_DRIVER_LIMIT, "%s: %s, expected the driver-limit error", s.name, fenns_result_string(r));
        g_gpu.error_messages = 0;
        fenns_host_csr_free(g_gpu.context, &csr);
        free(s.xyz);
    }
    /* Tight Gaussian clusters: 8 blobs of 500, sigma 2e-3, r = 0.01. */
    scene s;
    scene_init(&s, "tight-clusters", 4000u);
    uint32_t state = 12345u;
    for (uint32_t i = 0; i < s.n; ++i)
        for (uint32_t a = 0; a < 3u; ++a) {
            float u1 = ((float)(fenns_scene_xorshift32(&state) >> 8) + 0.5f) * (1.0f / 16777216.0f);
            float u2 = (float)(fenns_scene_xorshift32(&state) >> 8) * (1.0f / 16777216.0f);
            float gauss = sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
            s.xyz[3 * i + a] = (float)((i / 500u) * 3u + a) + 2e-3f * gauss;
        }
    s.radius = 0.01f;
    check_host_search(&s);
    free(s.xyz);
}

/* 2^26+ particles whose CSR lists hold more than 2^32 entries (17 GiB):
 * clusters of 66 coincident particles 3r apart, so particle i's list is
 * exactly the other 65 of its cluster, ascending. Needs a device that
 * binds 2^26 particles and ~40 GiB; returns 77 (skipped) elsewhere.
 * `--huge N`: about N particles instead (12000000: 3 GiB of lists, in one
 * binding on a GPU whose maxStorageBufferRange is 4 GiB - 1, the one-store
 * searches' whole range: fenns_plan_lists_one_binding). */
#define HUGE_CLUSTER 66u

/* The huge set's CSR lists in sorted order (recording API, SORTED_ORDER):
 * the list of sorted position k holds the sorted positions of the other 65
 * particles of k's cluster, each once. Past one binding these are written
 * a window a dispatch, each window bound as one binding from its first
 * entry (search_passes.c), where workgroups of other windows leave early. */
static int check_huge_sorted(const scene *s, uint64_t total) {
    /* The lists go to host-visible memory: skipped (77) where its largest
     * heap is not twice their size. */
    VkDeviceSize host_heap = 0;
    const VkPhysicalDeviceMemoryProperties *mp = &g_gpu.memory_properties;
    for (uint32_t t = 0; t < mp->memoryTypeCount; ++t)
        if ((mp->memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
            mp->memoryHeaps[mp->memoryTypes[t].heapIndex].size > host_heap)
            host_heap = mp->memoryHeaps[mp->memoryTypes[t].heapIndex].size;
    if (host_heap / 2u < 4u * total) {
        printf("skipped: %llu bytes of lists, the largest host-visible heap holds %llu\n",
               (unsigned long long)(4u * total), (unsigned long long)host_heap);
        return 77;
    }
    list_result r;
    if (!run_lists(s, FENNS_OUTPUT_CSR | FENNS_OUTPUT_SORTED_ORDER, total, &r)) {
        CHECK(0, "%s: the sorted-order CSR search failed", s->name);
        free_lists(&r);
        return 0;
    }
    CHECK(r.status.total_neighbors == total && r.offsets[s->n] == total && r.status.list_overflow == 0,
          "%s: sorted order: total %llu, offsets end %llu, %u overflows; expected %llu", s->name,
          (unsigned long long)r.status.total_neighbors, (unsigned long long)r.offsets[s->n], r.status.list_overflow,
          (unsigned long long)total);
    uint64_t bad = 0;
    for (uint32_t k = 0; k < s->n && r.offsets[s->n] == total; ++k) {
        uint32_t cluster = r.to_original[k] / HUGE_CLUSTER;
        uint8_t seen[HUGE_CLUSTER] = {0};
        int ok = r.offsets[k + 1u] - r.offsets[k] == HUGE_CLUSTER - 1u;
        for (uint64_t e = r.offsets[k]; ok && e < r.offsets[k + 1u]; ++e) {
            uint32_t j = r.lists[e];
            ok = j < s->n && j != k && r.to_original[j] / HUGE_CLUSTER == cluster && !seen[r.to_original[j] % HUGE_CLUSTER]++;
        }
        if (!ok && bad++ < 3)
            CHECK(0, "%s: sorted-order list of position %u (particle %u, entries %llu..%llu) is wrong", s->name, k,
                  r.to_original[k], (unsigned long long)r.offsets[k], (unsigned long long)r.offsets[k + 1u]);
    }
    CHECK(bad == 0, "%s: %llu sorted-order lists wrong", s->name, (unsigned long long)bad);
    printf("  %-22s n=%-9u m=%llu in sorted order (%.2f GiB of lists)\n", s->name, s->n, (unsigned long long)total,
           (double)total / 268435456.0);
    free_lists(&r);
    return 0;
}

static int run_huge(uint32_t particles, int sorted) {
    uint32_t clusters = (particles + HUGE_CLUSTER - 1u) / HUGE_CLUSTER, side = 101;
    uint32_t n = clusters * HUGE_CLUSTER;
    uint64_t total = (uint64_t)n * (HUGE_CLUSTER - 1u);
    if (total > g_gpu.limits.max_list_entries) {
        printf("skipped: %llu list entries, the device binds at most %llu\n", (unsigned long long)total,
               (unsigned long long)g_gpu.limits.max_list_entries);
        return 77;
    }
    scene s;
    scene_init(&s, particles == 1u << 26 ? "2^26-particles-2^32+-entries" : "huge-lists", n);
    s.radius = 1.0f;
    if (!s.xyz) return 1;
    for (uint32_t c = 0; c < clusters; ++c)
        for (uint32_t k = 0; k < HUGE_CLUSTER; ++k) {
            float *p = s.xyz + 3u * ((size_t)c * HUGE_CLUSTER + k);
            p[0] = 3.0f * (float)(c % side), p[1] = 3.0f * (float)(c / side % side), p[2] = 3.0f * (float)(c / side / side);
        }
    if (sorted) {
        int rc = check_huge_sorted(&s, total);
        free(s.xyz);
        return rc;
    }
    fenns_host_search_info info = host_info_for(&s);
    fenns_host_csr csr;
    fenns_result r = fenns_host_search(g_gpu.context, &info, &csr);
    if (r == FENNS_ERROR_TOO_LARGE || r == FENNS_ERROR_OUT_OF_DEVICE_MEMORY) {
        printf("skipped: %s for %u particles and %llu entries\n", fenns_result_string(r), n, (unsigned long long)total);
        g_gpu.error_messages = 0; /* the refusal was logged */
        free(s.xyz);
        return 77;
    }
    CHECK(r == FENNS_SUCCESS, "%s: %s", s.name, fenns_result_string(r));
    if (r == FENNS_SUCCESS) {
        CHECK(csr.total == total && csr.status.total_neighbors == total && csr.offsets[n] == total,
              "%s: total %llu (status %llu), expected %llu", s.name, (unsigned long long)csr.total,
              (unsigned long long)csr.status.total_neighbors, (unsigned long long)total);
        uint64_t bad = 0;
        for (uint32_t i = 0; i < n && csr.total == total; ++i) {
            uint32_t first = i / HUGE_CLUSTER * HUGE_CLUSTER, k = 0;
            if (csr.offsets[i] != (uint64_t)i * (HUGE_CLUSTER - 1u)) {
                if (bad++ < 3) CHECK(0, "%s: offsets[%u] = %llu", s.name, i, (unsigned long long)csr.offsets[i]);
                continue;
            }
            const uint32_t *list = csr.indices + csr.offsets[i];
            for (uint32_t j = first; j < first + HUGE_CLUSTER; ++j) {
                if (j == i) continue;
                if (list[k++] != j && bad++ < 3) CHECK(0, "%s: list of %u holds %u at %u, expected %u", s.name, i, list[k - 1], k - 1, j);
            }
        }
        CHECK(bad == 0, "%s: %llu lists wrong", s.name, (unsigned long long)bad);
        printf("  %-22s n=%-9u m=%llu (%.3f x 2^32) build %.2f ms search %.2f ms, %.1f GiB of device memory\n", s.name,
               n, (unsigned long long)csr.total, (double)csr.total / 4294967296.0, csr.build_ms, csr.search_ms,
               (double)csr.gpu_memory_bytes / 1073741824.0);
    }
    fenns_host_csr_free(g_gpu.context, &csr);
    free(s.xyz);
    return 0;
}

static void run_large(void) {
    /* 51M list entries = 204 MiB of indices: the CSR output itself spans
     * several chunk bindings on lavapipe. */
    scene dense;
    scene_init(&dense, "sph50-1M-lists>128MiB", 1u << 20);
    fenns_scene_uniform(dense.xyz, dense.n, 44.4f);
    dense.radius = 1.0f;
    check_host_search(&dense);
    free(dense.xyz);

    /* 9M vec4 = 144 MiB: beyond lavapipe's 128 MiB maxStorageBufferRange. */
    scene s;
    scene_init(&s, "uniform-9M", 9u << 20);
    fenns_scene_uniform(s.xyz, s.n, 420.0f);
    s.radius = 1.0f;
    check_host_search(&s);
    /* Counts alone on the same pipelines: fenns' wide counts search, whose
     * total count_total.comp sums in a pass of its own. */
    check_counts_only(&s);
    free(s.xyz);
}

/* The count after option argv[*i] where one follows (stepping past it), else `fallback`. */
static uint32_t optional_count(int argc, char **argv, int *i, uint32_t fallback) {
    if (*i + 1 < argc && argv[*i + 1][0] >= '1' && argv[*i + 1][0] <= '9') return (uint32_t)strtoul(argv[++*i], NULL, 10);
    return fallback;
}

int main(int argc, char **argv) {
    int quick = 0, large = 0, extremes = 0, sorted = 0;
    uint32_t loop_limit = 0; /* --loop-limit's coincident particles */
    uint32_t huge = 0; /* particles of --huge */
    uint32_t budget = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--method") && i + 1 < argc) {
            ++i;
            if (!strcmp(argv[i], "fenns")) g_method = FENNS_METHOD_FENNS;
            else if (!strcmp(argv[i], "fenns-paper")) g_method = FENNS_METHOD_FENNS_PAPER;
            else if (!strcmp(argv[i], "counting")) g_method = FENNS_METHOD_COUNTING;
            else if (!strcmp(argv[i], "octant")) g_method = FENNS_METHOD_OCTANT;
            else if (!strcmp(argv[i], "radix")) g_method = FENNS_METHOD_RADIX;
            else return fprintf(stderr, "unknown method %s\n", argv[i]), 2;
        } else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--large")) large = 1;
        else if (!strcmp(argv[i], "--extremes")) extremes = 1;
        else if (!strcmp(argv[i], "--huge")) huge = optional_count(argc, argv, &i, 1u << 26);
        else if (!strcmp(argv[i], "--sorted")) sorted = 1;
        else if (!strcmp(argv[i], "--loop-limit")) loop_limit = optional_count(argc, argv, &i, 100000u);
        else if (!strcmp(argv[i], "--shared-memory") && i + 1 < argc) budget = (uint32_t)strtoul(argv[++i], NULL, 10);
        else return fprintf(stderr, "usage: test_search --method M [--quick | --extremes | --huge [N] [--sorted] | --loop-limit [N]] [--shared-memory B] | --large\n"), 2;
    }
    fenns_result r = fenns_test_gpu_open(&g_gpu, budget);
    if (r != FENNS_SUCCESS) {
        fprintf(stderr, "cannot open the GPU: %s\n", fenns_result_string(r));
        return 1;
    }
    printf("device %s, subgroup %u, shared budget %u, method %s\n", g_gpu.limits.device_name,
           g_gpu.limits.subgroup_size, g_gpu.limits.shared_memory_budget, fenns_method_name(g_method));
    if (huge) {
        int rc = run_huge(huge, sorted);
        if (rc == 77) {
            fenns_test_gpu_close(&g_gpu);
            return 77;
        }
    } else if (large) run_large();
    else if (extremes) run_extremes();
    else if (loop_limit) run_loop_limit(loop_limit);
    else {
        run_scenes(quick);
        CHECK(g_method != FENNS_METHOD_FENNS || (g_sets_by_pipeline[0] && g_sets_by_pipeline[1] && g_sets_by_pipeline[2]),
              "fenns: %u sets took the general search, %u search_local7, %u search_local9; the suite needs each",
              g_sets_by_pipeline[0], g_sets_by_pipeline[1], g_sets_by_pipeline[2]);
    }
    CHECK(fenns_test_gpu_close(&g_gpu) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
