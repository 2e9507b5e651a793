/* Planner unit tests: no GPU, only the pure-C plan (src/plan.c) and the
 * shaders' SPIR-V it budgets for. */
#include "check.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "method_choice.h"
#include "fenns_shared.h"
#include "pipeline.h"
#include "spirv_shared.h"


static const fenns_plan_limits lavapipe = {32768, 1024, 1024, 65535, 134217728u, 16};
static const fenns_plan_limits mobile = {16384, 256, 256, 65535, 134217728u, 64};
static const fenns_plan_limits desktop = {49152, 1024, 1024, 2147483647u, 4294967295u, 16};

static fenns_pipeline_create_info info_for(float r, uint32_t n) {
    fenns_pipeline_create_info i;
    memset(&i, 0, sizeof i);
    i.radius = r;
    i.max_particles = n;
    return i;
}

static void check_bad_arguments(void) {
    fenns_plan plan;
    float bad_radius[] = {0.0f, -1.0f, NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof bad_radius / sizeof bad_radius[0]; ++k) {
        fenns_pipeline_create_info i = info_for(bad_radius[k], 100);
        CHECK(fenns_plan_make(&lavapipe, &i, &plan) == FENNS_ERROR_INVALID_ARGUMENT, "radius %g accepted",
              (double)bad_radius[k]);
    }
    fenns_pipeline_create_info i = info_for(1.0f, 0);
    CHECK(fenns_plan_make(&lavapipe, &i, &plan) == FENNS_ERROR_INVALID_ARGUMENT, "max_particles 0 accepted");
    i = info_for(1.0f, 10);
    i.domain_min[0] = 5.0f; /* inverted on x, empty on y and z */
    i.domain_max[0] = 1.0f;
    CHECK(fenns_plan_make(&lavapipe, &i, &plan) == FENNS_ERROR_INVALID_ARGUMENT, "inverted domain accepted");
    i = info_for(1.0f, 10);
    i.domain_max[0] = i.domain_max[1] = 1.0f; /* z empty */
    CHECK(fenns_plan_make(&lavapipe, &i, &plan) == FENNS_ERROR_INVALID_ARGUMENT, "empty axis accepted");
    i = info_for(1.0f, 10);
    i.domain_max[0] = i.domain_max[1] = 1.0f;
    i.domain_max[2] = NAN;
    CHECK(fenns_plan_make(&lavapipe, &i, &plan) == FENNS_ERROR_INVALID_ARGUMENT, "NaN domain accepted");
    i = info_for(1.0f, 10);
    i.method = (fenns_method)7;
    CHECK(fenns_plan_make(&lavapipe, &i, &plan) == FENNS_ERROR_INVALID_ARGUMENT, "unknown method accepted");
    fenns_plan_limits tiny = lavapipe;
    tiny.shared_memory_budget = 8192;
    i = info_for(1.0f, 10);
    CHECK(fenns_plan_make(&tiny, &i, &plan) == FENNS_ERROR_UNSUPPORTED_DEVICE, "8 KiB shared memory accepted");
}

/* Every pipeline's shared memory fits the budget; grids are sane. */
/* Every pipeline of the plan, as specialized (with and without llvmpipe's
 * loop limit, which resizes the section sort), declares no more shared memory
 * than the plan budgets: a device with exactly the budget runs them all. */
static void check_shared_declared(const char *name, const fenns_plan_limits *l, const fenns_plan *p) {
    for (int pass = 0; pass < FENNS_PASS_COUNT; ++pass) {
        size_t bytes;
        const uint32_t *spirv = fenns__pass_spirv((fenns_pass)pass, p->method, &bytes);
        if (!spirv || !fenns__method_runs(p->method, (fenns_pass)pass)) continue;
        for (uint32_t loop_limit = 0; loop_limit <= 65535u; loop_limit += 65535u) {
            uint32_t values[FENNS_SPEC_CONSTANTS];
            fenns__pass_specialization(p, (fenns_pass)pass, loop_limit, 1024u, values);
            uint64_t shared = fenns__spirv_shared_bytes(spirv, bytes / 4u, values, FENNS_SPEC_CONSTANTS);
            CHECK(shared != FENNS_SPIRV_UNKNOWN && shared <= p->shared_bytes_max && shared <= l->shared_memory_budget,
                  "%s %s: %s declares %llu bytes of shared memory, the plan budgets %u of %u", name,
                  fenns_method_name(p->method), fenns__pass_name((fenns_pass)pass), (unsigned long long)shared,
                  p->shared_bytes_max, l->shared_memory_budget);
        }
    }
}

/* The reader of shared declarations itself: sizes, specialization, refusals. */
static void check_spirv_reader(void) {
    size_t bytes;
    const uint32_t *scan = fenns__pass_spirv(FENNS_PASS_scan_block, FENNS_METHOD_FENNS, &bytes);
    /* scan.glsl's subgroup totals and posted sums (FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP u32 each),
     * and scan_lookback.glsl's block and start (a u32 and a uvec2). */
    CHECK(fenns__spirv_shared_bytes(scan, bytes / 4u, NULL, 0) == 2u * 4u * (FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP) + 12u,
          "scan_block's shared totals");
    /* section_sort: two u32 arrays of constant_id 1 (its sort capacity) elements, and more. */
    const uint32_t *sort = fenns__pass_spirv(FENNS_PASS_section_sort, FENNS_METHOD_FENNS, &bytes);
    uint32_t small[2] = {256, 64}, large[2] = {256, 1024};
    uint64_t a = fenns__spirv_shared_bytes(sort, bytes / 4u, small, 2), b = fenns__spirv_shared_bytes(sort, bytes / 4u, large, 2);
    CHECK(a != FENNS_SPIRV_UNKNOWN && b == a + 2u * 4u * (1024u - 64u), "section_sort sized by its spec constant: %llu / %llu",
          (unsigned long long)a, (unsigned long long)b);
    uint32_t junk[8] = {0x07230203u, 0x00010000u, 0, 100, 0, 0, 0, 0};
    CHECK(fenns__spirv_shared_bytes(junk, 8, NULL, 0) == FENNS_SPIRV_UNKNOWN, "malformed words");
    CHECK(fenns__spirv_shared_bytes(junk, 3, NULL, 0) == FENNS_SPIRV_UNKNOWN, "short module");
    junk[0] = 0;
    CHECK(fenns__spirv_shared_bytes(junk, 8, NULL, 0) == FENNS_SPIRV_UNKNOWN, "not SPIR-V");
}

static void check_fits(const char *name, const fenns_plan_limits *l, fenns_method method) {
    fenns_pipeline_create_info i = info_for(1.0f, 1u << 20);
    i.method = method;
    fenns_plan p;
    fenns_result r = fenns_plan_make(l, &i, &p);
    CHECK(r == FENNS_SUCCESS, "%s: plan failed: %s", name, fenns_result_string(r));
    if (r != FENNS_SUCCESS) return;
    CHECK(p.shared_bytes_max <= l->shared_memory_budget, "%s: shared %u > budget %u", name, p.shared_bytes_max,
          l->shared_memory_budget);
    CHECK(!p.shared_histogram || 4u * p.section_keys <= l->shared_memory_budget, "%s: histogram does not fit", name);
    CHECK(p.section_keys == p.cell_capacity * p.sections + 1u, "%s: section keys", name);
    CHECK(p.sections == (method == FENNS_METHOD_FENNS ? FENNS_SECTIONS_FINE : FENNS_SECTIONS_PAPER), "%s: sections", name);
    CHECK(method != FENNS_METHOD_FENNS_PAPER || p.shared_histogram, "%s: fenns-paper must count in shared memory", name);
    CHECK(p.workgroup_size <= l->max_workgroup_invocations && p.workgroup_size >= 64, "%s: workgroup %u", name,
          p.workgroup_size);
    if (method == FENNS_METHOD_FENNS) {
        CHECK(p.fine_max == FENNS_LOCAL_DIM_MAX && p.fine_cells == p.fine_max * p.fine_max,
              "%s: local grid %u / %u", name, p.fine_max, p.fine_cells);
    } else if (fenns_plan_walks_particles(method)) {
        /* cells of one margin (octant: two), about one a particle, no local grid */
        CHECK(p.fine_max == 3 && p.fine_cells == 1 && p.fine_reach == 1 &&
                  p.cell_margins == (method == FENNS_METHOD_OCTANT ? 2u : 1u),
              "%s: fine_max %u, cell margins %u", name, p.fine_max, p.cell_margins);
        CHECK(p.cell_capacity >= i.max_particles && !p.shared_histogram, "%s: %u cells for %u particles", name,
              p.cell_capacity, i.max_particles);
    } else {
        CHECK(p.fine_max >= 8 && p.fine_max <= FENNS_MAX_FINE_DIM, "%s: fine_max %u", name, p.fine_max);
        CHECK(p.fine_cells == p.fine_max * p.fine_max * p.fine_max + 1, "%s: fine_cells", name);
    }
    CHECK((p.sort_capacity & (p.sort_capacity - 1)) == 0 && 8u * p.sort_capacity < l->shared_memory_budget,
          "%s: sort capacity %u", name, p.sort_capacity);
    CHECK((16ull << p.chunk_shift16) <= l->max_storage_buffer_range && (4ull << p.chunk_shift4) <= l->max_storage_buffer_range,
          "%s: chunks exceed maxStorageBufferRange", name);
    CHECK((32ull << p.chunk_shift16) > l->max_storage_buffer_range, "%s: chunks not the largest power of two", name);
    /* Cursors in the cell tables: fenns-paper, counting, octant 2; fenns and radix none. */
    uint32_t cursor_arrays = p.method == FENNS_METHOD_FENNS || p.method == FENNS_METHOD_RADIX ? 0u : 2u;
    CHECK(p.cursor_base >= p.section_keys + 1u && p.cursor_base % 64u == 0, "%s: cursor placement", name);
    CHECK(p.work_base >= p.cursor_base + cursor_arrays * p.section_keys && p.work_base % 64u == 0,
          "%s: work table placement", name);
    CHECK(4ull * ((uint64_t)p.work_base + p.cell_capacity + 2u) <= l->max_storage_buffer_range,
          "%s: cell tables past maxStorageBufferRange", name);
    /* The search work list: one cell an invocation unless that makes more
     * than FENNS_WORK_LIST_BLOCKS blocks (then four), and room for its block
     * totals in the scan sums. */
    uint64_t c2 = (uint64_t)p.cell_capacity + 2u, wg = p.workgroup_size;
    uint32_t expect_cells = c2 <= FENNS_WORK_LIST_BLOCKS * wg ? 1u : FENNS_WORK_LIST_CELLS;
    CHECK(p.work_list_cells == expect_cells && fenns_plan_work_list_blocks(&p) == (c2 + expect_cells * wg - 1u) / (expect_cells * wg),
          "%s: work list of %u cells (%u an invocation, %llu blocks)", name, p.cell_capacity, p.work_list_cells,
          (unsigned long long)fenns_plan_work_list_blocks(&p));
    fenns_scratch_plan layout;
    fenns_plan_scratch(&p, i.max_particles, &layout);
    CHECK(layout.scan_sums.size >= 4u * fenns_plan_work_list_blocks(&p), "%s: scan sums %llu bytes for %llu work blocks", name,
          (unsigned long long)layout.scan_sums.size, (unsigned long long)fenns_plan_work_list_blocks(&p));
    printf("  %-8s %-11s wg %u fine %u cells %u sort %u shared %u\n", name, fenns_method_name(method),
           p.workgroup_size, p.fine_max, p.cell_capacity, p.sort_capacity, p.shared_bytes_max);
    check_shared_declared(name, l, &p);
}

/* Small searches. The counts search's lanes a query (fenns_plan_query_lanes):
 * 4 up to FENNS_QUERY_LANES4_MAX particles, 2 up to FENNS_QUERY_LANES2_MAX,
 * else 1; a wish granted where the device and the local grid's arrays allow
 * it; always 1 for the other methods. The kernel search's likewise, to
 * FENNS_KERNEL_LANES4_MAX and _2_MAX, and the list fill's, to
 * FENNS_FILL_LANES4_MAX and _2_MAX (with a scratch region for the parts'
 * starts). The kernel search's and the list
 * fill's candidates a step: 4 for kernels up to FENNS_ROW_STEP4_KERNEL_MAX
 * particles, else 2; 2 for the fill and for the other methods. */
static void check_small_searches(void) {
    const uint32_t sizes[] = {1000u, FENNS_QUERY_LANES4_MAX, FENNS_QUERY_LANES4_MAX + 1u, FENNS_KERNEL_LANES2_MAX,
                              FENNS_KERNEL_LANES2_MAX + 1u, FENNS_QUERY_LANES2_MAX, FENNS_QUERY_LANES2_MAX + 1u,
                              1u << 22};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        fenns_pipeline_create_info i = info_for(1.0f, sizes[k]);
        fenns_plan p;
        if (fenns_plan_make(&desktop, &i, &p) != FENNS_SUCCESS) {
            CHECK(0, "query lanes: no plan for %u particles", sizes[k]);
            continue;
        }
        uint32_t expect = sizes[k] <= FENNS_QUERY_LANES4_MAX ? 4u : sizes[k] <= FENNS_QUERY_LANES2_MAX ? 2u : 1u;
        CHECK(p.workgroup_size == 256u && p.query_lanes == expect, "query lanes: %u particles take %u, expected %u",
              sizes[k], p.query_lanes, expect);
        CHECK(p.kernel_row_step == (sizes[k] <= FENNS_ROW_STEP4_KERNEL_MAX ? 4u : 2u) &&
                  p.list_row_step == 2u,
              "row steps: %u particles take %u (kernel) and %u (lists)", sizes[k], p.kernel_row_step, p.list_row_step);
        uint32_t kernel = sizes[k] <= FENNS_KERNEL_LANES4_MAX ? 4u : sizes[k] <= FENNS_KERNEL_LANES2_MAX ? 2u : 1u;
        CHECK(p.kernel_lanes == kernel, "kernel lanes: %u particles take %u, expected %u", sizes[k], p.kernel_lanes,
              kernel);
        /* The fill's lanes, where it has them, are the counts search's (its
         * counting pass leaves the parts' starts only then). */
        uint32_t fill = sizes[k] <= FENNS_FILL_LANES4_MAX ? 4u : sizes[k] <= FENNS_FILL_LANES2_MAX ? 2u : 1u;
        CHECK(p.fill_lanes == fill && (fill == 1u || fill == p.query_lanes),
              "fill lanes: %u particles take %u, expected %u (query lanes %u)", sizes[k], p.fill_lanes, fill,
              p.query_lanes);
        fenns_scratch_plan scratch;
        fenns_plan_scratch(&p, sizes[k], &scratch);
        CHECK(scratch.part_firsts.size == (fill > 1u ? 4u * (uint64_t)fill * sizes[k] : 0u),
              "fill lanes: %u particles' parts' starts take %llu bytes", sizes[k],
              (unsigned long long)scratch.part_firsts.size);
        CHECK(fenns_plan_kernel_lanes(&p, &desktop, 3u) == 3u && fenns_plan_kernel_lanes(&p, &desktop, 8u) == 4u,
              "kernel lanes: wishes granted, or cut by the device");
        CHECK(fenns_plan_query_lanes(&p, &desktop, 3u) == 3u && fenns_plan_query_lanes(&p, &desktop, 1u) == 1u,
              "query lanes: wishes of 3 and 1 granted");
        /* 5 would make 1280 invocations; the lanes' sums need (lanes - 1) * 256 <= 10 * 81 words */
        CHECK(fenns_plan_query_lanes(&p, &desktop, 5u) == 4u && fenns_plan_query_lanes(&p, &desktop, 8u) == 4u,
              "query lanes: wishes past the device's 1024 invocations cut to 4");
        fenns_plan_limits narrow = desktop;
        narrow.max_workgroup_size_x = 512u;
        CHECK(fenns_plan_query_lanes(&p, &narrow, 0u) == (expect > 2u ? 2u : expect), "query lanes: workgroup x limit");
        fenns_plan small = p;
        small.fine_cells = 60u; /* 600 words: room for 2 lanes' sums, not 3 */
        CHECK(fenns_plan_query_lanes(&small, &desktop, 4u) == 3u, "query lanes: the lanes' sums must fit the local grid");
        i.method = FENNS_METHOD_FENNS_PAPER;
        if (fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS)
            CHECK(p.query_lanes == 1u && fenns_plan_query_lanes(&p, &desktop, 4u) == 1u && p.kernel_lanes == 1u &&
                      fenns_plan_kernel_lanes(&p, &desktop, 4u) == 1u && p.fill_lanes == 1u &&
                      fenns_plan_fill_lanes(&p, &desktop, 4u) == 1u && p.kernel_row_step == 2u &&
                      p.list_row_step == 2u,
                  "small searches: fenns-paper takes 1 lane and 2 a step");
    }
    fenns_pipeline_create_info i = info_for(1.0f, 1000u);
    fenns_plan p;
    if (fenns_plan_make(&mobile, &i, &p) == FENNS_SUCCESS)
        CHECK(p.query_lanes * p.workgroup_size <= mobile.max_workgroup_invocations, "query lanes: mobile takes %u of %u",
              p.query_lanes, p.workgroup_size);
}

/* fenns builds by coarse cell from FENNS_BY_CELL_KEYS section keys on, by
 * section below (the other methods never); the cell order's capacity fits
 * its 8 particles an invocation and the section sort's shared entries; the
 * coarse count's histogram counts cells by coarse cell, sections otherwise. */
static void check_build_flavour(const fenns_plan_limits *l, int addresses_16m) {
    const uint32_t sizes[] = {1000u, 1u << 20, 4u << 20, 8u << 20, 16u << 20, 1u << 26};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k)
        for (int m = 0; m < 2; ++m) {
            fenns_pipeline_create_info i = info_for(1.0f, sizes[k]);
            i.method = m ? FENNS_METHOD_FENNS : FENNS_METHOD_FENNS_PAPER;
            fenns_plan p;
            fenns_result r = fenns_plan_make(l, &i, &p);
            if (r == FENNS_ERROR_TOO_LARGE) continue; /* past what these limits address */
            if (r != FENNS_SUCCESS) {
                CHECK(0, "build flavour: plan for %u particles failed", sizes[k]);
                continue;
            }
            int by_cell = m && p.section_keys >= FENNS_BY_CELL_KEYS;
            CHECK((int)p.by_cell == by_cell, "%s %u particles: by_cell %u", fenns_method_name(i.method), sizes[k],
                  p.by_cell);
            CHECK(fenns_plan_count_entries(&p) == (by_cell ? p.cell_capacity + 1u : p.section_keys),
                  "%u particles: count entries", sizes[k]);
            /* Ranks (the coarse count's places, for the reorder): fenns by
             * section with global atomics only; 1000 particles count in
             * shared memory, 1M and 4M with global atomics. */
            int ranked = m && !by_cell && !p.shared_histogram;
            CHECK(fenns_plan_ranked(&p) == ranked, "%s %u particles: ranked %d", fenns_method_name(i.method), sizes[k],
                  fenns_plan_ranked(&p));
            CHECK(!m || sizes[k] != (1u << 20) || ranked, "fenns 1M particles: not ranked");
            CHECK(!m || sizes[k] != 1000u || !ranked, "fenns 1000 particles: ranked with a shared histogram");
            CHECK(p.order_capacity <= p.sort_capacity && p.order_capacity <= 8u * p.workgroup_size &&
                      p.order_capacity >= p.workgroup_size,
                  "%u particles: order capacity %u", sizes[k], p.order_capacity);
        }
    /* 16M build by coarse cell, 4M by section (the H100's crossover). */
    if (!addresses_16m) return;
    fenns_pipeline_create_info i = info_for(1.0f, 4u << 20);
    fenns_plan p4, p16;
    CHECK(fenns_plan_make(l, &i, &p4) == FENNS_SUCCESS && !p4.by_cell, "4M particles build by section");
    i = info_for(1.0f, 16u << 20);
    CHECK(fenns_plan_make(l, &i, &p16) == FENNS_SUCCESS && p16.by_cell && !fenns_plan_ranked(&p16),
          "16M particles build by coarse cell, with no ranks");
    CHECK(fenns_plan_ranked(&p4), "4M particles build by section with ranks");
}

/* radix: enough 4-bit passes for every key (absent particles' included),
 * a histogram of 16 entries a tile, and its sort's four 256-byte aligned
 * u32 arrays inside the sorted region. */
static void check_radix_scratch(void) {
    fenns_plan p;
    uint32_t ns[] = {0, 1, 1000, 4000000};
    for (size_t k = 0; k < 4; ++k) {
        fenns_pipeline_create_info i = info_for(1.0f, ns[k] ? ns[k] : 1u);
        i.method = FENNS_METHOD_RADIX;
        if (fenns_plan_make(&desktop, &i, &p) != FENNS_SUCCESS) {
            CHECK(0, "radix plan for %u refused", ns[k]);
            continue;
        }
        uint32_t passes = fenns_plan_radix_passes(&p);
        CHECK((uint64_t)p.section_keys < (UINT64_C(1) << (FENNS_RADIX_BITS * passes)) &&
                  (passes == 1 || p.section_keys >= (1u << (FENNS_RADIX_BITS * (passes - 1u)))),
              "radix: %u passes for keys up to %u", passes, p.section_keys);
        fenns_scratch_plan s;
        fenns_plan_scratch(&p, ns[k], &s);
        uint64_t n = ns[k] ? ns[k] : 1, tile = 8u * p.workgroup_size;
        uint64_t array = (4u * n + 255u) / 256u * 256u;
        CHECK(s.sorted.size >= 4u * array && s.sorted.size >= 16u * n, "radix: sorted region %llu for n %u",
              (unsigned long long)s.sorted.size, ns[k]);
        CHECK(s.radix_histogram.size == 4u * (16u * ((ns[k] + tile - 1u) / tile) + 1u) && s.radix_histogram.offset % 256 == 0,
              "radix: histogram %llu for n %u", (unsigned long long)s.radix_histogram.size, ns[k]);
        CHECK(s.radix_histogram.offset >= s.perm.offset + s.perm.size && s.scan_sums.offset >= s.radix_histogram.offset + s.radix_histogram.size,
              "radix: histogram overlaps");
        CHECK(s.sorted.offset + s.sorted.size <= s.size, "radix: sorted region past the scratch");
    }
}

/* auto: fenns without a box; with one, the cheapest prediction among the
 * methods the device can plan, each prediction growing with n and with the
 * expected neighbours; the plan's errors propagate. */
static void check_method_choice(void) {
    fenns_method_choice c;
    fenns_pipeline_create_info i = info_for(1.0f, 1u << 20);
    i.method = FENNS_METHOD_AUTO;
    CHECK(fenns_choice_make(&desktop, &i, &c) == FENNS_SUCCESS && c.method == FENNS_METHOD_FENNS &&
              c.expected_neighbors < 0.0f && strstr(c.reason, "no caller's box"),
          "auto without a box: %s (%s)", fenns_method_name(c.method), c.reason);
    struct { uint32_t n; float r, edge; fenns_method want; } cases[] = {
        {8192, 0.2f, 180.0f, FENNS_METHOD_OCTANT},      /* s1: sparse and small */
        {4194304, 1.0f, 70.6f, FENNS_METHOD_FENNS},     /* sph50 4M: 50 neighbours */
        {4194304, 0.2f, 180.0f, FENNS_METHOD_FENNS},    /* s1 4M */
        {262144, 2.0f, 28.0f, FENNS_METHOD_COUNTING},   /* 400 neighbours */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        i = info_for(cases[k].r, cases[k].n);
        i.method = FENNS_METHOD_AUTO;
        for (int a = 0; a < 3; ++a) i.domain_min[a] = 0.0f, i.domain_max[a] = cases[k].edge;
        CHECK(fenns_choice_make(&desktop, &i, &c) == FENNS_SUCCESS && c.method == cases[k].want,
              "auto for n %u r %g: %s, expected %s (%s)", cases[k].n, (double)cases[k].r, fenns_method_name(c.method),
              fenns_method_name(cases[k].want), c.reason);
        double k_expected = cases[k].n / (double)(cases[k].edge * cases[k].edge * cases[k].edge) * 4.18879 *
                            cases[k].r * cases[k].r * cases[k].r;
        CHECK(fabs(c.expected_neighbors - k_expected) < 1e-3 * k_expected + 1e-9, "auto: %g expected neighbours, not %g",
              (double)c.expected_neighbors, k_expected);
        float best = INFINITY;
        for (int m = 0; m < FENNS_METHOD_CHOICES; ++m) {
            CHECK((m == FENNS_METHOD_FENNS_PAPER) == (c.predicted_ms[m] == 0.0f), "auto: method %d predicted %g", m,
                  (double)c.predicted_ms[m]);
            if (c.predicted_ms[m] > 0.0f) best = fminf(best, c.predicted_ms[m]);
        }
        CHECK(c.predicted_ms[c.method] == best, "auto: the pick is not the cheapest prediction");
        fenns_method_choice more;
        i.max_particles *= 2u;
        fenns_choice_make(&desktop, &i, &more);
        for (int m = 0; m < FENNS_METHOD_CHOICES; ++m)
            CHECK(more.predicted_ms[m] >= c.predicted_ms[m], "auto: method %d cheaper with more particles", m);
        i.max_particles /= 2u;
        i.radius *= 1.5f;
        fenns_choice_make(&desktop, &i, &more);
        CHECK(more.expected_neighbors > c.expected_neighbors, "auto: a larger radius, fewer neighbours");
        for (int m = 0; m < FENNS_METHOD_CHOICES; ++m)
            CHECK(more.predicted_ms[m] >= c.predicted_ms[m], "auto: method %d cheaper with a larger radius", m);
    }
    /* A flat box counts its thin axis as the sphere's 2r. */
    i = info_for(1.0f, 100000u);
    float lo[3] = {0, 0, 0}, hi[3] = {100, 100, 0.001f};
    memcpy(i.domain_min, lo, sizeof lo);
    memcpy(i.domain_max, hi, sizeof hi);
    CHECK(fabs(fenns_choice_expected_neighbors(&i) - 100000.0 / (100.0 * 100.0 * 2.0) * 4.18879) < 1e-2,
          "auto: flat box expects %g", fenns_choice_expected_neighbors(&i));
    i = info_for(1.0f, 40u << 20);
    CHECK(fenns_choice_make(&lavapipe, &i, &c) == FENNS_ERROR_TOO_LARGE && strstr(c.reason, "no plan"),
          "auto on too many particles: %s", c.reason);
    i = info_for(-1.0f, 1000u);
    CHECK(fenns_choice_make(&lavapipe, &i, &c) == FENNS_ERROR_INVALID_ARGUMENT, "auto with a negative radius");
    CHECK(fenns_choice_make(NULL, &i, &c) == FENNS_ERROR_INVALID_ARGUMENT, "auto with no limits");
}

/* grid_size (the paper's baseline grids): every cell of the caller's box in
 * the table, refused by name without a box, for fenns and fenns-paper, and
 * beyond the device; cell tables within maxStorageBufferRange whatever the
 * capacity asks. */
static void check_grid_size(void) {
    fenns_plan p;
    fenns_pipeline_create_info i = info_for(0.2f, 4194304u);
    i.method = FENNS_METHOD_COUNTING;
    i.grid_size = 300;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_ERROR_INVALID_ARGUMENT && p.problem && strstr(p.problem, "box"),
          "grid_size without a box accepted");
    for (int a = 0; a < 3; ++a) i.domain_min[a] = 0.0f, i.domain_max[a] = 180.0f;
    fenns_method methods[] = {FENNS_METHOD_COUNTING, FENNS_METHOD_OCTANT, FENNS_METHOD_RADIX};
    for (size_t m = 0; m < 3; ++m) {
        i.method = methods[m];
        CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS && p.grid_size == 300 &&
                  p.cell_capacity == 300u * 300u * 300u && p.coarse_dims[0] == 300 && p.table_dims[0] == 300,
              "%s grid_size 300 in 180^3: capacity %u, dims %u, table %u", fenns_method_name(methods[m]), p.cell_capacity,
              p.coarse_dims[0], p.table_dims[0]);
        fenns_scratch_plan s;
        fenns_plan_scratch(&p, 4194304u, &s);
        CHECK(s.cells.size <= desktop.max_storage_buffer_range, "grid_size: cell tables past the binding range");
    }
    /* Exactly grid_size cells along the longest axis, for boxes whose
     * extent over the count does not divide evenly in floats (the edge is
     * a hair under it, so a division that rounds down still gives the
     * count: NVIDIA's gave 5 of 6 for [-0.1, 1.1]). */
    const float boxes[][3] = {{-0.1f, 1.1f, 700}, {0.0f, 0.3f, 700}, {-7.3f, 12.9f, 700},
                              {1000.1f, 1000.7f, 600}}; /* the last: up to cells of a margin (1000.7 / 2^20) */
    for (size_t b = 0; b < sizeof boxes / sizeof *boxes; ++b)
        for (uint32_t g = 1; g <= (uint32_t)boxes[b][2]; ++g) {
            fenns_pipeline_create_info flat = info_for(1e-6f, 1024u);
            flat.method = FENNS_METHOD_COUNTING;
            flat.grid_size = g;
            flat.domain_min[0] = boxes[b][0], flat.domain_max[0] = boxes[b][1];
            flat.domain_min[1] = flat.domain_min[2] = 0.0f;
            flat.domain_max[1] = flat.domain_max[2] = 1e-6f;
            int made = fenns_plan_make(&desktop, &flat, &p) == FENNS_SUCCESS;
            CHECK(made && p.coarse_dims[0] == g && p.coarse_dims[1] == 1u,
                  "grid_size %u in [%g, %g]: dims %u x %u", g, (double)boxes[b][0], (double)boxes[b][1],
                  made ? p.coarse_dims[0] : 0u, made ? p.coarse_dims[1] : 0u);
        }
    i.method = FENNS_METHOD_COUNTING;
    i.grid_size = 40; /* cells of 4.5, wider than the margin */
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS && p.coarse_dims[0] == 40 && p.cell_capacity == 64000u,
          "grid_size 40: dims %u, capacity %u", p.coarse_dims[0], p.cell_capacity);
    i.grid_size = 1000; /* cells below the margin: the method's own edge (r) */
    i.radius = 1.0f;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS && p.coarse_dims[0] == 179 && p.table_dims[0] == 179,
          "grid_size 1000 at r 1 in 180: dims %u, table %u", p.coarse_dims[0], p.table_dims[0]);
    i.radius = 0.2f;
    i.grid_size = 450; /* 91M cells: more than the 2^26 a table of two sections may hold */
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_ERROR_TOO_LARGE && p.problem && strstr(p.problem, "grid_size"),
          "grid_size 450 accepted");
    i.grid_size = 300; /* 27M cells: past lavapipe's 128 MiB binding */
    CHECK(fenns_plan_make(&lavapipe, &i, &p) == FENNS_ERROR_TOO_LARGE, "grid_size 300 accepted on lavapipe");
    i.method = FENNS_METHOD_FENNS;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_ERROR_INVALID_ARGUMENT, "grid_size accepted for fenns");
    /* One cell a particle would pass lavapipe's binding range at 9M: the table stops below it. */
    fenns_method all[] = {FENNS_METHOD_FENNS, FENNS_METHOD_FENNS_PAPER, FENNS_METHOD_COUNTING, FENNS_METHOD_OCTANT,
                          FENNS_METHOD_RADIX};
    for (size_t m = 0; m < 5; ++m) {
        i = info_for(1.0f, 9u << 20);
        i.method = all[m];
        CHECK(fenns_plan_make(&lavapipe, &i, &p) == FENNS_SUCCESS, "%s: 9M on lavapipe", fenns_method_name(all[m]));
        fenns_scratch_plan s;
        fenns_plan_scratch(&p, 9u << 20, &s);
        CHECK(s.cells.size <= lavapipe.max_storage_buffer_range, "%s: cell tables of %llu bytes past lavapipe's range",
              fenns_method_name(all[m]), (unsigned long long)s.cells.size);
        /* The reorder's cursors: bound on their own (aligned, within the range), between the
         * section starts and the work table; none for fenns (it advances the starts) and radix. */
        uint64_t cursors = 4u * (uint64_t)fenns_plan_cursor_arrays(all[m]) * p.section_keys;
        uint64_t tables_end = s.cells.offset + 4u * (uint64_t)p.work_base;
        int in_cells = s.cursors.offset >= s.cells.offset + 4u * ((uint64_t)p.section_keys + 1u) &&
                       s.cursors.offset + s.cursors.size <= tables_end;
        int none = all[m] == FENNS_METHOD_FENNS || all[m] == FENNS_METHOD_RADIX;
        CHECK(s.cursors.size == cursors && s.cursors.size <= lavapipe.max_storage_buffer_range &&
                  s.cursors.offset % 256u == 0 && (none ? cursors == 0 : cursors != 0 && in_cells),
              "%s: cursors at %llu, %llu bytes", fenns_method_name(all[m]), (unsigned long long)s.cursors.offset,
              (unsigned long long)s.cursors.size);
    }
}

static void check_limits(void) {
    fenns_plan p;
    fenns_pipeline_create_info i = info_for(1.0f, 40u << 20); /* 40M: 640 MiB of vec4 on lavapipe's 4 x 128 MiB */
    CHECK(fenns_plan_make(&lavapipe, &i, &p) == FENNS_ERROR_TOO_LARGE, "40M particles accepted on lavapipe");
    i.max_particles = 9u << 20; /* > 128 MiB of vec4, still addressable in chunks */
    CHECK(fenns_plan_make(&lavapipe, &i, &p) == FENNS_SUCCESS, "9M particles refused on lavapipe");
    i.max_particles = 0x7FFFFFFFu;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_ERROR_TOO_LARGE, "2^31-1 on a 4 GiB range accepted");
    i.max_particles = 1u << 28;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS, "2^28 refused on a 4 GiB range");
    /* Past any binding Vulkan can give (a range of 2^40): n stays below 2^29,
     * which the counts search's row numbering needs (local_grid_fenns.glsl). */
    fenns_plan_limits wide = desktop;
    wide.max_storage_buffer_range = UINT64_C(1) << 40;
    i.max_particles = 1u << 29;
    CHECK(fenns_plan_make(&wide, &i, &p) == FENNS_ERROR_TOO_LARGE, "2^29 particles accepted");
    i.max_particles = (1u << 29) - 1u;
    CHECK(fenns_plan_make(&wide, &i, &p) == FENNS_SUCCESS && p.max_particles_addressable == (1u << 29) - 1u,
          "2^29 - 1 particles refused on a 2^40 range");
}

/* The lists: FENNS_INDEX_CHUNKS bindings of the largest power of two <= the range. */
static void check_max_list_entries(void) {
    CHECK(fenns_plan_max_list_entries(UINT64_C(4294967295)) == (uint64_t)FENNS_INDEX_CHUNKS << 29, "4 GiB - 1 range");
    CHECK(fenns_plan_max_list_entries(UINT64_C(134217728)) == (uint64_t)FENNS_INDEX_CHUNKS << 25, "128 MiB range");
}

/* One binding holds lists up to the whole range (a multiple of 16, below
 * 2^32), not just the chunks' power of two: sph50 16M's 3.3 GB on a 4 GiB -
 * 1 range. */
static void check_lists_one_binding(void) {
    fenns_pipeline_create_info i = info_for(1.0f, 1u << 24);
    fenns_plan p;
    fenns_plan_limits wide = desktop;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS, "16M particles refused on a 4 GiB range");
    CHECK(fenns_plan_lists_one_binding(&p, UINT64_C(3300000000)) && fenns_plan_lists_one_binding(&p, UINT64_C(0xFFFFFFF0)),
          "lists of 3.3 GB or 4 GiB - 16 not in one binding of a 4 GiB - 1 range");
    CHECK(!fenns_plan_lists_one_binding(&p, UINT64_C(0xFFFFFFF4)), "lists past the range's last quad in one binding");
    i.max_particles = 1u << 20;
    CHECK(fenns_plan_make(&lavapipe, &i, &p) == FENNS_SUCCESS && fenns_plan_lists_one_binding(&p, UINT64_C(134217728)) &&
              !fenns_plan_lists_one_binding(&p, UINT64_C(134217744)),
          "lavapipe's 128 MiB: one binding up to the range exactly");
    wide.max_storage_buffer_range = UINT64_C(1) << 40; /* entries stay below 2^30: the one-store variants' 32 bits */
    CHECK(fenns_plan_make(&wide, &i, &p) == FENNS_SUCCESS && fenns_plan_lists_one_binding(&p, UINT64_C(0xFFFFFFF0)) &&
              !fenns_plan_lists_one_binding(&p, UINT64_C(1) << 32),
          "a 2^40 range: one binding past 2^32 bytes");
}

/* Windows of the windowed one-store searches: room for the longest list
 * within one binding, whole multiples of 64 entries, at most
 * 2^list_window_shift; none for fenns-paper or where no list fits. */
static void check_list_windows(void) {
    fenns_pipeline_create_info i = info_for(1.0f, 1u << 26);
    fenns_plan p;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS, "2^26 particles refused on a 4 GiB range");
    uint64_t binding = p.one_binding_bytes / 4u; /* 2^30 - 4 entries */
    uint32_t w = fenns_plan_list_window_entries(&p, UINT64_C(1) << 26);
    CHECK(w % 64u == 0 && w + (UINT64_C(1) << 26) <= binding && w + (UINT64_C(1) << 26) + 64u > binding,
          "2^26 candidates: a window of %u entries in a binding of %llu", w, (unsigned long long)binding);
    CHECK(fenns_plan_list_window_entries(&p, 1) == (uint32_t)((binding - 1u) & ~UINT64_C(63)),
          "lists of one entry: the whole binding but its last quads");
    CHECK(fenns_plan_list_window_entries(&p, binding) == 0 && fenns_plan_list_window_entries(&p, binding - 63u) == 0 &&
              fenns_plan_list_window_entries(&p, binding - 64u) == 64u,
          "no window where the longest list leaves less than 64 entries");
    p.list_window_shift = 12u; /* FENNS_LIST_WINDOW_LOG2=12 */
    CHECK(fenns_plan_list_window_entries(&p, 1000) == 4096u, "windows of at most 2^list_window_shift");
    i.max_particles = 1u << 20;
    CHECK(fenns_plan_make(&lavapipe, &i, &p) == FENNS_SUCCESS &&
              fenns_plan_list_window_entries(&p, 1u << 20) == (UINT32_C(1) << 25) - (UINT32_C(1) << 20),
          "lavapipe's 128 MiB: windows of 2^25 - 2^20 entries for 2^20 candidates");
    i.method = FENNS_METHOD_FENNS_PAPER;
    CHECK(fenns_plan_make(&desktop, &i, &p) == FENNS_SUCCESS && fenns_plan_list_window_entries(&p, 1000) == 0,
          "fenns-paper fills in one dispatch");
}

static void check_scratch(void) {
    fenns_pipeline_create_info i = info_for(0.5f, 1000000);
    fenns_plan p;
    if (fenns_plan_make(&lavapipe, &i, &p) != FENNS_SUCCESS) {
        CHECK(0, "plan failed");
        return;
    }
    uint32_t ns[] = {0, 1, 1000, 1000000};
    for (size_t k = 0; k < 4; ++k) {
        fenns_scratch_plan s;
        fenns_plan_scratch(&p, ns[k], &s);
        fenns_region r[] = {s.params, s.cells, s.perm, s.scan_sums, s.sorted};
        uint64_t end = 0;
        for (size_t j = 0; j < sizeof r / sizeof r[0]; ++j) {
            CHECK(r[j].offset % 256 == 0, "region %zu misaligned", j);
            CHECK(r[j].offset >= end, "region %zu overlaps the previous one", j);
            end = r[j].offset + r[j].size;
        }
        CHECK(end <= s.size, "regions run past the scratch size");
        uint64_t n = ns[k] ? ns[k] : 1;
        CHECK(s.sorted.size == 16u * n && s.perm.size == 4u * n, "n-sized regions");
        /* fenns keeps no cursors: its reorder advances the section starts. */
        CHECK(s.cursors.size == 0, "fenns has no cursors");
        /* The cell tables, then the search's work items: room for a cell
         * per particle (up to the cells and the invalid particles' entry)
         * and for one particle cell holding all n. */
        uint64_t items = fenns_plan_work_items(&p, ns[k]);
        uint64_t entries = (uint64_t)p.cell_capacity + 1u;
        CHECK(items >= (n < entries ? n : entries) && items >= (n + p.workgroup_size - 1u) / p.workgroup_size,
              "%llu work items for %llu particles", (unsigned long long)items, (unsigned long long)n);
        CHECK(s.cells.size == 4u * (FENNS_WORK_ITEMS_BASE((uint64_t)p.work_base, p.cell_capacity) + 4u * items),
              "cell tables and work items");
        CHECK(s.params.size == sizeof(fenns_gpu_params), "params");
    }
    CHECK(fenns_plan_scan_sums_bytes(&p, 1000) == 256, "one block needs no sums level");
    CHECK(fenns_plan_scan_sums_bytes(&p, 1024u * 1024u * 3u) >= 4u * 3072u + 4u * 3u, "scan sums too small");
}

/* Grids for the caller's box: cells never smaller than r nor wider than the
 * local grid resolves (so the search's cost stays bounded however large the
 * box); the table they fold onto fits the cell capacity and keeps at least 3
 * cells along a folded axis. */
static void check_dims(const char *name, float r, const float lo[3], const float hi[3], int expect_fold) {
    fenns_pipeline_create_info i = info_for(r, 1000);
    memcpy(i.domain_min, lo, sizeof i.domain_min);
    memcpy(i.domain_max, hi, sizeof i.domain_max);
    fenns_plan p;
    fenns_result res = fenns_plan_make(&lavapipe, &i, &p);
    CHECK(res == FENNS_SUCCESS, "%s: %s", name, fenns_result_string(res));
    if (res != FENNS_SUCCESS) return;
    float largest = 0.0f;
    for (int a = 0; a < 3; ++a) largest = fmaxf(largest, fmaxf(fmaxf(fabsf(lo[a]), fabsf(hi[a])), hi[a] - lo[a]));
    float margin = r * (1.0f + 1.0f / 1024.0f) + largest / 1048576.0f;
    uint64_t cells = 1;
    int folded = 0;
    for (int a = 0; a < 3; ++a) {
        CHECK(p.coarse_dims[a] >= 1 && p.coarse_dims[a] <= FENNS_MAX_COARSE_DIM, "%s: dim %u", name, p.coarse_dims[a]);
        float edge = (hi[a] - lo[a]) / (float)p.coarse_dims[a];
        CHECK(p.coarse_dims[a] == 1 || edge >= r, "%s: cell edge %g < r %g", name, (double)edge, (double)r);
        /* floor(extent / h) cells of at most the widest cell the grid allows: < 2 of those
         * (fenns-paper: fine_max margins; fenns: FENNS_FINE_SPLIT_MAX fine cells of 2 margins) */
        float widest = i.method == FENNS_METHOD_FENNS ? 2.0f * FENNS_FINE_SPLIT_MAX * margin : (float)p.fine_max * margin;
        CHECK(edge <= 2.0f * widest || edge <= 4.0f * margin,
              "%s: cell edge %g wider than two local grids of %u cells of %g", name, (double)edge, p.fine_max, (double)margin);
        CHECK(p.table_dims[a] >= 1 && p.table_dims[a] <= p.coarse_dims[a], "%s: table dim %u", name, p.table_dims[a]);
        if (p.table_dims[a] < p.coarse_dims[a]) {
            folded = 1;
            CHECK(p.table_dims[a] >= 3, "%s: folded axis with %u table cells", name, p.table_dims[a]);
        }
        cells *= p.table_dims[a];
    }
    CHECK(cells <= p.cell_capacity, "%s: %llu cells > capacity %u", name, (unsigned long long)cells, p.cell_capacity);
    CHECK(folded == expect_fold, "%s: folded %d, expected %d", name, folded, expect_fold);
    printf("  %-22s r=%-8g grid %ux%ux%u on a table of %ux%ux%u\n", name, (double)r, p.coarse_dims[0], p.coarse_dims[1],
           p.coarse_dims[2], p.table_dims[0], p.table_dims[1], p.table_dims[2]);
}

/* fenns' density pass: its histogram's slots (4 a particle, at most 2^20,
 * none for other methods) and when a build records it (a caller's box
 * rules it out where the set is dense at its count). */
static void check_density_pass(void) {
    fenns_plan p;
    memset(&p, 0, sizeof p);
    p.method = FENNS_METHOD_FENNS;
    CHECK(fenns_plan_density_bins(&p, 0) == 0 && fenns_plan_density_bins(&p, 1000) == 4000 &&
              fenns_plan_density_bins(&p, 1u << 24) == (1u << 20),
          "density slots");
    float lo[3] = {0, 0, 0}, hi[3] = {100, 100, 100};
    /* Spacings at 1.5 particles a cell in 100^3, r = 1: 2 * 10^6, 0.91 <= r;
     * 10^6, 1.14 > r (fine cells past a margin: the sample tells whether
     * the set is crowded); 10^4, 5.3 > 2 r (sparse). */
    CHECK(!fenns_plan_may_ask_density(FENNS_METHOD_FENNS, 1.0f, 1, lo, hi, 2000000u), "dense in the caller's box");
    CHECK(fenns_plan_may_ask_density(FENNS_METHOD_FENNS, 1.0f, 1, lo, hi, 1000000u), "cells past a margin in the caller's box");
    CHECK(fenns_plan_may_ask_density(FENNS_METHOD_FENNS, 1.0f, 1, lo, hi, 10000u), "sparse in the caller's box");
    CHECK(fenns_plan_may_ask_density(FENNS_METHOD_FENNS, 1.0f, 0, lo, hi, 1000000u), "no box: the GPU decides");
    CHECK(!fenns_plan_may_ask_density(FENNS_METHOD_COUNTING, 1.0f, 0, lo, hi, 10000u), "fenns only");
    p.method = FENNS_METHOD_FENNS_PAPER;
    CHECK(fenns_plan_density_bins(&p, 1000) == 0, "no density slots for fenns-paper");
}

int main(void) {
    check_bad_arguments();
    check_density_pass();
    check_spirv_reader();
    check_fits("lavapipe", &lavapipe, FENNS_METHOD_FENNS);
    check_fits("lavapipe", &lavapipe, FENNS_METHOD_FENNS_PAPER);
    check_fits("mobile", &mobile, FENNS_METHOD_FENNS);
    check_fits("mobile", &mobile, FENNS_METHOD_FENNS_PAPER);
    check_fits("desktop", &desktop, FENNS_METHOD_FENNS);
    check_fits("desktop", &desktop, FENNS_METHOD_FENNS_PAPER);
    check_fits("mobile", &mobile, FENNS_METHOD_OCTANT);
    check_fits("lavapipe", &lavapipe, FENNS_METHOD_COUNTING);
    check_fits("mobile", &mobile, FENNS_METHOD_COUNTING);
    check_fits("lavapipe", &lavapipe, FENNS_METHOD_OCTANT);
    check_fits("lavapipe", &lavapipe, FENNS_METHOD_RADIX);
    check_fits("mobile", &mobile, FENNS_METHOD_RADIX);
    check_limits();
    check_small_searches();
    check_build_flavour(&desktop, 1);
    check_build_flavour(&lavapipe, 0);
    check_radix_scratch();
    check_method_choice();
    check_grid_size();
    check_max_list_entries();
    check_lists_one_binding();
    check_list_windows();
    check_scratch();
    float z[3] = {0, 0, 0}, s180[3] = {180, 180, 180}, flat[3] = {100, 100, 0.001f};
    float big_lo[3] = {-1e3f, -1e3f, -1e3f}, big_hi[3] = {1e3f, 1e3f, 1e3f};
    float far_lo[3] = {1e6f, 1e6f, 1e6f}, far_hi[3] = {1e6f + 64, 1e6f + 64, 1e6f + 64};
    float huge_hi[3] = {1e4f, 1e4f, 1e4f};
    check_dims("paper scene 180^3", 1.0f, z, s180, 1); /* 1000 particles: a table of ~300 cells */
    check_dims("tiny radius 1e-6", 1e-6f, big_lo, big_hi, 1);
    check_dims("radius > domain", 1e4f, z, s180, 0);
    check_dims("planar", 0.5f, z, flat, 1);
    check_dims("far offset", 0.5f, far_lo, far_hi, 0);
    check_dims("box 1e4, r 1", 1.0f, z, huge_hi, 1);
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
