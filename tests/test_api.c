/*
 * API validation: every create-info and record call rejects bad arguments
 * with a named fenns_result (or, for fenns_cmd_*, one logged error and
 * nothing recorded), and nothing crashes. Runs with validation on, so a
 * fenns_cmd_* that recorded something invalid would be caught as well.
 */
#include "check.h"

#include <math.h>
#include <string.h>

#include "gpu_test.h"

static fenns_test_gpu g;

static void check_result_strings(void) {
    const fenns_result all[] = {
#define FENNS_TEST_RESULT_(name, value, text) name,
        FENNS_RESULT_LIST(FENNS_TEST_RESULT_)
#undef FENNS_TEST_RESULT_
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        const char *s = fenns_result_string(all[i]);
        CHECK(s && strcmp(s, "unknown fenns_result") != 0, "result %d has no string", (int)all[i]);
        for (size_t j = 0; j < i; ++j) CHECK(strcmp(s, fenns_result_string(all[j])) != 0, "duplicate string %s", s);
    }
    CHECK(strcmp(fenns_result_string((fenns_result)-99), "unknown fenns_result") == 0, "unknown result string");
    CHECK(fenns_method_name((fenns_method)42) == NULL, "unknown method has a name");
}

static void check_context_create(void) {
    g.quiet = 1; /* the refusals below are logged; they are expected */
    uint32_t errors_before = g.error_messages;
    fenns_context_create_info good;
    fenns_headless_context_info(g.headless, &good);
    fenns_context ctx = (fenns_context)&g; /* must be reset to NULL on failure */
    CHECK(fenns_context_create(NULL, &ctx) == FENNS_ERROR_INVALID_ARGUMENT && ctx == NULL, "null info");
    CHECK(fenns_context_create(&good, NULL) == FENNS_ERROR_INVALID_ARGUMENT, "null out");
    fenns_context_create_info bad = good;
    bad.instance = VK_NULL_HANDLE;
    CHECK(fenns_context_create(&bad, &ctx) == FENNS_ERROR_INVALID_ARGUMENT, "null instance");
    bad = good;
    bad.physical_device = VK_NULL_HANDLE;
    CHECK(fenns_context_create(&bad, &ctx) == FENNS_ERROR_INVALID_ARGUMENT, "null physical device");
    bad = good;
    bad.device = VK_NULL_HANDLE;
    CHECK(fenns_context_create(&bad, &ctx) == FENNS_ERROR_INVALID_ARGUMENT, "null device");
    bad = good;
    bad.get_instance_proc_addr = NULL;
    CHECK(fenns_context_create(&bad, &ctx) == FENNS_ERROR_INVALID_ARGUMENT, "null vkGetInstanceProcAddr");
    bad = good;
    bad.queue_family_index = 1000;
    CHECK(fenns_context_create(&bad, &ctx) == FENNS_ERROR_INVALID_ARGUMENT, "queue family 1000");
    VkAllocationCallbacks half = {0};
    bad = good;
    bad.allocation_callbacks = &half;
    CHECK(fenns_context_create(&bad, &ctx) == FENNS_ERROR_INVALID_ARGUMENT, "callbacks without functions");
    CHECK(ctx == NULL, "out not reset on failure");
    fenns_context_destroy(NULL);
    g.quiet = 0;
    g.error_messages = errors_before;
}

static void check_pipeline_create(void) {
    g.quiet = 1;
    uint32_t errors_before = g.error_messages;
    fenns_pipeline p = (fenns_pipeline)&g;
    fenns_pipeline_create_info ok = {0};
    ok.radius = 1.0f;
    ok.max_particles = 100;
    CHECK(fenns_pipeline_create(NULL, &ok, &p) == FENNS_ERROR_INVALID_ARGUMENT && p == NULL, "null context");
    CHECK(fenns_pipeline_create(g.context, NULL, &p) == FENNS_ERROR_INVALID_ARGUMENT, "null info");
    const float radii[] = {0.0f, -1.0f, NAN, INFINITY};
    for (size_t i = 0; i < 4; ++i) {
        fenns_pipeline_create_info bad = ok;
        bad.radius = radii[i];
        CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "radius %g", (double)radii[i]);
    }
    fenns_pipeline_create_info bad = ok;
    bad.max_particles = 0;
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "capacity 0");
    bad = ok;
    bad.method = (fenns_method)(FENNS_METHOD_AUTO + 1);
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "unknown method");
    bad = ok;
    bad.grid_size = 10; /* fenns has no paper grid */
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "grid_size for fenns");
    bad.method = FENNS_METHOD_COUNTING; /* no caller's box */
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "grid_size without a box");
    bad = ok;
    bad.domain_min[0] = 2.0f; /* inverted x, empty y/z */
    bad.domain_max[0] = 1.0f;
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "inverted domain");
    bad = ok;
    bad.domain_max[0] = bad.domain_max[1] = bad.domain_max[2] = INFINITY;
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_INVALID_ARGUMENT, "infinite domain");
    bad = ok;
    bad.max_particles = 0x7FFFFFFFu;
    CHECK(fenns_pipeline_create(g.context, &bad, &p) == FENNS_ERROR_TOO_LARGE, "2^31-1 particles on lavapipe");
    CHECK(p == NULL, "out not reset on failure");
    CHECK(g.error_messages - errors_before == 11, "%u errors logged for 11 refused pipelines",
          g.error_messages - errors_before);
    fenns_pipeline_destroy(NULL);
    g.quiet = 0;
    g.error_messages = errors_before;

    /* auto: the pipeline is the method fenns_method_choose picks. */
    fenns_pipeline_create_info a = ok;
    a.method = FENNS_METHOD_AUTO;
    for (int k = 0; k < 3; ++k) a.domain_min[k] = 0.0f, a.domain_max[k] = 100.0f;
    fenns_method_choice choice;
    CHECK(fenns_method_choose(g.context, &a, &choice) == FENNS_SUCCESS && choice.method != FENNS_METHOD_AUTO &&
              fenns_pipeline_create(g.context, &a, &p) == FENNS_SUCCESS,
          "auto pipeline");
    if (p) {
        fenns_plan_summary summary;
        fenns_pipeline_get_plan(p, &summary);
        CHECK(summary.method == choice.method, "auto made %s, chose %s", fenns_method_name(summary.method),
              fenns_method_name(choice.method));
        fenns_pipeline_destroy(p);
        p = NULL;
    }
    CHECK(fenns_method_choose(NULL, &a, &choice) == FENNS_ERROR_INVALID_ARGUMENT &&
              fenns_method_choose(g.context, NULL, &choice) == FENNS_ERROR_INVALID_ARGUMENT &&
              fenns_method_choose(g.context, &a, NULL) == FENNS_ERROR_INVALID_ARGUMENT,
          "fenns_method_choose with a null argument");
}

/* A fenns pipeline of the default method for n particles at r = 1, and its
 * scratch requirements; NULL (checked) where it cannot be made. */
static fenns_pipeline small_pipeline(uint32_t n, fenns_memory_requirements *req, const char *what) {
    fenns_pipeline_create_info pci = {0};
    pci.radius = 1.0f;
    pci.max_particles = n;
    fenns_pipeline p;
    if (fenns_pipeline_create(g.context, &pci, &p) != FENNS_SUCCESS) {
        CHECK(0, "%s: pipeline", what);
        return NULL;
    }
    fenns_pipeline_get_scratch_requirements(p, n, req);
    return p;
}

/* 64 particles, 32 in a tight cluster (31 neighbours each) and 32 alone far
 * apart, on a small pipeline: the positions, scratch, counts, offsets and
 * lists buffers (all host-visible but the scratch; the lists of
 * list_entries entries). 0 (checked) where any cannot be made; closing is
 * safe either way. */
typedef struct cluster_case {
    uint32_t n;
    fenns_pipeline p;
    fenns_memory_requirements req;
    fenns_scratch_layout layout;
    fenns_test_buffer pos, scratch, counts, offsets, lists;
} cluster_case;

static int cluster_case_open(cluster_case *c, const char *what, VkDeviceSize list_entries) {
    memset(c, 0, sizeof *c);
    c->n = 64;
    c->p = small_pipeline(c->n, &c->req, what);
    if (!c->p) return 0;
    fenns_pipeline_get_scratch_layout(c->p, c->n, &c->layout);
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    uint32_t n = c->n;
    int ok = fenns_test_buffer_create(&g, 16u * n, usage, FENNS_TEST_HOST_VISIBLE, &c->pos) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, c->req.size, c->req.usage, FENNS_TEST_DEVICE_LOCAL, &c->scratch) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 4u * n, usage, FENNS_TEST_HOST_VISIBLE, &c->counts) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 8u * (n + 1u), usage, FENNS_TEST_HOST_VISIBLE, &c->offsets) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 4u * list_entries, usage, FENNS_TEST_HOST_VISIBLE, &c->lists) == VK_SUCCESS;
    CHECK(ok, "%s: buffers", what);
    float *xyzw = ok ? c->pos.mapped : NULL;
    for (uint32_t i = 0; ok && i < n; ++i) {
        int alone = i % 2u == 1u;
        xyzw[4 * i + 0] = alone ? 10.0f * (float)i : 0.01f * (float)(i % 8u);
        xyzw[4 * i + 1] = alone ? 5.0f : 0.01f * (float)(i / 8u);
        xyzw[4 * i + 2] = 0.0f;
        xyzw[4 * i + 3] = 0.0f;
    }
    return ok;
}

static void cluster_case_close(cluster_case *c) {
    fenns_test_buffer_destroy(&g, &c->pos);
    fenns_test_buffer_destroy(&g, &c->scratch);
    fenns_test_buffer_destroy(&g, &c->counts);
    fenns_test_buffer_destroy(&g, &c->offsets);
    fenns_test_buffer_destroy(&g, &c->lists);
    fenns_pipeline_destroy(c->p);
}

/* A build of the case's particles, and a search of it with the given
 * outputs (no build where build is 0); its status in *st. */
static int cluster_case_search(cluster_case *c, int build, fenns_output_flags outputs, uint32_t fixed_capacity,
                               fenns_status *st) {
    uint32_t n = c->n;
    VkCommandBuffer cmd;
    if (fenns_test_begin(&g, &cmd) != VK_SUCCESS) return 0;
    fenns_build_info b = {.particle_count = n, .positions = fenns_test_range(&c->pos, 0, 16u * n),
                          .scratch = fenns_test_range(&c->scratch, 0, c->req.size), .descriptors = g.arena};
    if (build) {
        fenns_cmd_build(cmd, c->p, &b);
        fenns_cmd_build_to_search_barrier(cmd, c->p);
    }
    fenns_search_info search = fenns_test_search_of(&b, outputs);
    search.counts = fenns_test_range(&c->counts, 0, 4u * n);
    search.offsets = fenns_test_range(&c->offsets, 0, 8u * (n + 1u));
    search.indices = fenns_test_range(&c->lists, 0, c->lists.size);
    search.fixed_capacity = fixed_capacity;
    fenns_cmd_search(cmd, c->p, &search);
    return fenns_test_submit(&g, cmd) == VK_SUCCESS &&
           fenns_test_download(&g, &c->scratch, c->layout.status_offset, st, sizeof *st) == VK_SUCCESS;
}

/* The GPU sizes the grid (grid_setup.comp: its growth and table searches
 * run in parallel) exactly as the planner does on the CPU for the same box
 * (fenns_pipeline_get_plan, `fenns info`): boxes whose grid at the
 * method's cell edge outgrows the cell tables, so the edge grows, some far
 * enough that the grid also folds. (fenns only where the box shows the set
 * dense: a sparse one's density pass sizes its grid again.) */
static void check_grid_is_the_plans(void) {
    static const struct {
        fenns_method method;
        uint32_t n;
        float radius, box[3];
    } cases[] = {
        {FENNS_METHOD_FENNS_PAPER, 1000, 1.0f, {1e4f, 1e4f, 1e4f}},
        {FENNS_METHOD_FENNS_PAPER, 3000, 0.25f, {1e4f, 1.0f, 3.0f}},
        {FENNS_METHOD_COUNTING, 2000, 0.5f, {300.0f, 300.0f, 300.0f}},
        {FENNS_METHOD_OCTANT, 2000, 0.3f, {50.0f, 2000.0f, 7.0f}},
        {FENNS_METHOD_FENNS, 4096, 1.0f, {20.0f, 20.0f, 20.0f}},
        {FENNS_METHOD_FENNS, 5000, 0.7f, {60.0f, 9.0f, 11.0f}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const uint32_t n = cases[k].n;
        fenns_pipeline_create_info pci = {0};
        pci.method = cases[k].method;
        pci.radius = cases[k].radius;
        pci.max_particles = n;
        for (int a = 0; a < 3; ++a) pci.domain_min[a] = 0.0f, pci.domain_max[a] = cases[k].box[a];
        fenns_pipeline p;
        if (fenns_pipeline_create(g.context, &pci, &p) != FENNS_SUCCESS) {
            CHECK(0, "grid case %zu: pipeline", k);
            continue;
        }
        fenns_plan_summary plan;
        fenns_pipeline_get_plan(p, &plan);
        fenns_memory_requirements req;
        fenns_pipeline_get_scratch_requirements(p, n, &req);
        fenns_scratch_layout layout;
        fenns_pipeline_get_scratch_layout(p, n, &layout);
        fenns_test_buffer pos, scratch;
        int ok = fenns_test_buffer_create(&g, 16u * n, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_HOST_VISIBLE, &pos) ==
                     VK_SUCCESS &&
                 fenns_test_buffer_create(&g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS;
        CHECK(ok, "grid case %zu: buffers", k);
        VkCommandBuffer cmd;
        if (ok && fenns_test_begin(&g, &cmd) == VK_SUCCESS) {
            float *xyzw = pos.mapped;
            uint32_t state = 12345u + (uint32_t)k;
            for (uint32_t i = 0; i < n; ++i) {
                for (uint32_t a = 0; a < 3; ++a) {
                    state = state * 1664525u + 1013904223u;
                    xyzw[4 * i + a] = (float)(state >> 8) / 16777216.0f * cases[k].box[a];
                }
                xyzw[4 * i + 3] = 0.0f;
            }
            fenns_build_info build = {.particle_count = n, .positions = fenns_test_range(&pos, 0, 16u * n),
                                      .scratch = fenns_test_range(&scratch, 0, req.size), .descriptors = g.arena};
            fenns_cmd_build(cmd, p, &build);
            fenns_status st;
            ok = fenns_test_submit(&g, cmd) == VK_SUCCESS &&
                 fenns_test_download(&g, &scratch, layout.status_offset, &st, sizeof st) == VK_SUCCESS;
            CHECK(ok, "grid case %zu: submit", k);
            if (ok)
                CHECK(st.coarse_dims[0] == plan.coarse_dims[0] && st.coarse_dims[1] == plan.coarse_dims[1] &&
                          st.coarse_dims[2] == plan.coarse_dims[2] && plan.coarse_dims[0] != 0,
                      "grid case %zu (%s, r %g): the GPU's grid %ux%ux%u, the plan's %ux%ux%u", k,
                      fenns_method_name(cases[k].method), (double)cases[k].radius, st.coarse_dims[0], st.coarse_dims[1],
                      st.coarse_dims[2], plan.coarse_dims[0], plan.coarse_dims[1], plan.coarse_dims[2]);
        }
        fenns_test_buffer_destroy(&g, &pos);
        fenns_test_buffer_destroy(&g, &scratch);
        fenns_pipeline_destroy(p);
    }
}

/* COUNTS_READY trusts the caller's counts only as far as sizing the lists:
 * the fill still walks every query, so counts that say "no neighbours" for
 * particles that have some read as overflows, never as short lists that look
 * whole (the CSR fill skips a query only where this search's own counting
 * pass found none). And with its own counts the same search is exact. */
static void check_counts_ready_walks(void) {
    cluster_case c;
    int ok = cluster_case_open(&c, "counts ready", 64u * 64u);
    for (int own = 0; own < 2 && ok; ++own) {
        memset(c.counts.mapped, 0, 4u * c.n); /* "no neighbours" for everyone */
        fenns_status st;
        ok = cluster_case_search(&c, 1, FENNS_OUTPUT_CSR | (own ? 0u : FENNS_OUTPUT_COUNTS_READY), 0u, &st);
        CHECK(ok, "counts ready: submit");
        if (!ok) break;
        /* The 32 clustered particles are each other's neighbours (31 each). */
        const uint64_t *off = c.offsets.mapped;
        if (own)
            CHECK(st.list_overflow == 0 && off[c.n] == 32u * 31u && st.total_neighbors == 32u * 31u,
                  "own counts: overflow %u, %llu entries (expected %u)", st.list_overflow, (unsigned long long)off[c.n],
                  32u * 31u);
        else
            CHECK(st.list_overflow == 32u, "counts ready, all zero: %u overflows, expected the 32 clustered particles",
                  st.list_overflow);
    }
    cluster_case_close(&c);
}

/* Searches of one build, each submitted alone, each report their own status:
 * the search's first pass (reset_status.comp) clears what the last search
 * of the build left there. Counts, a FIXED search whose lists overflow,
 * counts again: the second counts search's total and longest list are the
 * first's, and no overflow remains. */
static void check_searches_of_one_build(void) {
    cluster_case c;
    int ok = cluster_case_open(&c, "searches of one build", 64u);
    const fenns_output_flags outputs[3] = {FENNS_OUTPUT_COUNTS, FENNS_OUTPUT_FIXED, FENNS_OUTPUT_COUNTS};
    for (int k = 0; k < 3 && ok; ++k) {
        fenns_status st;
        ok = cluster_case_search(&c, k == 0, outputs[k], 1u, &st); /* capacity 1: the clustered particles overflow */
        CHECK(ok, "searches of one build: submit %d", k);
        if (!ok) break;
        CHECK(st.total_neighbors == 32u * 31u && st.max_neighbors == 31u && st.incomplete_queries == 0u &&
                  st.list_overflow == (k == 1 ? 32u : 0u),
              "search %d of one build: total %llu (expected %u), longest %u (31), overflow %u (%u), incomplete %u", k,
              (unsigned long long)st.total_neighbors, 32u * 31u, st.max_neighbors, st.list_overflow,
              k == 1 ? 32u : 0u, st.incomplete_queries);
    }
    cluster_case_close(&c);
}

/* A bad fenns_cmd_* call logs one error and records nothing: the sentinel in
 * the counts buffer survives the submission. */
static void check_record_calls(void) {
    const uint32_t n = 64;
    fenns_memory_requirements req;
    fenns_pipeline p = small_pipeline(n, &req, "record calls");
    if (!p) return;
    fenns_test_buffer pos, scratch, counts, lists;
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    int ok = fenns_test_buffer_create(&g, 16u * n, usage, FENNS_TEST_HOST_VISIBLE, &pos) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, req.size + 256u, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 4u * n, usage, FENNS_TEST_HOST_VISIBLE, &counts) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, 4u * n * 4u, usage, FENNS_TEST_HOST_VISIBLE, &lists) == VK_SUCCESS;
    CHECK(ok, "buffers");
    if (ok) {
        memset(pos.mapped, 0, 16u * n);
        memset(counts.mapped, 0xAB, 4u * n);
        fenns_build_info good_build = {.particle_count = n, .positions = fenns_test_range(&pos, 0, 16u * n),
                                       .scratch = fenns_test_range(&scratch, 0, req.size)};
        good_build.descriptors = g.arena;
        fenns_search_info good_search = fenns_test_search_of(&good_build, FENNS_OUTPUT_COUNTS);
        good_search.counts = fenns_test_range(&counts, 0, 4u * n);

        fenns_build_info builds[6];
        for (int i = 0; i < 6; ++i) builds[i] = good_build;
        builds[0].particle_count = n + 1;                 /* above max_particles */
        builds[1].positions.range = 16u * n - 16u;        /* too small */
        builds[2].scratch.range = req.size - 4u;          /* too small */
        builds[3].scratch.offset = 4u;                    /* misaligned */
        builds[4].positions.buffer = VK_NULL_HANDLE;      /* null */
        builds[5].scratch.range = VK_WHOLE_SIZE;          /* not accepted */
        enum { SEARCHES = 12 };
        fenns_search_info searches[SEARCHES];
        for (int i = 0; i < SEARCHES; ++i) searches[i] = good_search;
        searches[0].outputs = 0;
        searches[1].outputs = FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED;
        searches[2].counts.range = 4u * n - 4u;
        searches[3].outputs = FENNS_OUTPUT_FIXED;         /* capacity 0 */
        searches[3].indices = fenns_test_range(&lists, 0, VK_WHOLE_SIZE);
        searches[4].outputs = FENNS_OUTPUT_FIXED;         /* indices too small for n * 8 */
        searches[4].indices = fenns_test_range(&lists, 0, VK_WHOLE_SIZE);
        searches[4].fixed_capacity = 8;
        searches[5].outputs = FENNS_OUTPUT_CSR;           /* offsets missing */
        searches[5].indices = fenns_test_range(&lists, 0, VK_WHOLE_SIZE);
        searches[6].outputs = 0x100;                      /* unknown bit */
        searches[7].counts.offset = 2u;                   /* misaligned */
        searches[8].outputs = FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_SORTED_ORDER;
        searches[8].sorted_to_original = fenns_test_range(&lists, 0, 4u * n - 4u); /* too small */
        searches[9].outputs = FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_SORTED_ORDER;
        searches[9].sorted_to_original = fenns_test_range(&lists, 2u, 4u * n); /* offset not a multiple of 4 */
        searches[10].outputs = FENNS_OUTPUT_CSR;          /* offsets, but no indices */
        searches[10].offsets = fenns_test_range(&lists, 0, 8u * (n + 1u));
        searches[11].outputs = FENNS_OUTPUT_CSR;          /* more entries than a device binds (never bound) */
        searches[11].offsets = searches[10].offsets;
        searches[11].indices = fenns_test_range(&lists, 0, 4u * ((VkDeviceSize)g.limits.max_list_entries + 1u));
        g.quiet = 1;
        uint32_t errors_before = g.error_messages;
        VkCommandBuffer cmd;
        if (fenns_test_begin(&g, &cmd) == VK_SUCCESS) {
            for (int i = 0; i < 6; ++i) fenns_cmd_build(cmd, p, &builds[i]);
            for (int i = 0; i < SEARCHES; ++i) fenns_cmd_search(cmd, p, &searches[i]);
            fenns_cmd_build(cmd, p, NULL);
            fenns_cmd_search(cmd, p, NULL);
            fenns_cmd_build(VK_NULL_HANDLE, p, &good_build);
            fenns_cmd_build(cmd, NULL, &good_build); /* no pipeline, no logger: silently nothing */
            CHECK(fenns_test_submit(&g, cmd) == VK_SUCCESS, "submit");
        }
        g.quiet = 0;
        uint32_t logged = g.error_messages - errors_before;
        CHECK(logged == 6 + SEARCHES + 3, "%u errors logged for %d bad calls", logged, 6 + SEARCHES + 3);
        g.error_messages = errors_before;
        const uint32_t *c = counts.mapped;
        int untouched = 1;
        for (uint32_t i = 0; i < n; ++i) untouched &= c[i] == 0xABABABABu;
        CHECK(untouched, "a rejected call wrote the counts");
    }
    fenns_test_buffer_destroy(&g, &pos);
    fenns_test_buffer_destroy(&g, &scratch);
    fenns_test_buffer_destroy(&g, &counts);
    fenns_test_buffer_destroy(&g, &lists);
    fenns_pipeline_destroy(p);
}

static void check_host_search_arguments(void) {
    float xyz[6] = {0, 0, 0, 0.5f, 0, 0};
    fenns_host_search_info info = {0};
    info.radius = 1.0f;
    info.positions = xyz;
    info.particle_count = 2;
    info.queue = g.queue;
    fenns_host_csr csr;
    g.quiet = 1;
    uint32_t errors_before = g.error_messages;
    fenns_host_search_info bad = info;
    bad.queue = VK_NULL_HANDLE;
    CHECK(fenns_host_search(g.context, &bad, &csr) == FENNS_ERROR_INVALID_ARGUMENT && csr.offsets == NULL, "null queue");
    bad = info;
    bad.positions = NULL;
    CHECK(fenns_host_search(g.context, &bad, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "null positions");
    bad = info;
    bad.stride = 8;
    CHECK(fenns_host_search(g.context, &bad, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "stride 8");
    bad = info;
    bad.radius = NAN;
    CHECK(fenns_host_search(g.context, &bad, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "NaN radius");
    CHECK(fenns_host_search(NULL, &info, &csr) == FENNS_ERROR_INVALID_ARGUMENT, "null context");
    g.quiet = 0;
    g.error_messages = errors_before;
    /* The context is still usable after all of that. */
    CHECK(fenns_host_search(g.context, &info, &csr) == FENNS_SUCCESS && csr.total == 2, "good search after bad ones");
    fenns_host_csr_free(g.context, &csr);
    fenns_host_csr_free(g.context, NULL);
}

int main(void) {
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    check_result_strings();
    check_context_create();
    check_pipeline_create();
    check_record_calls();
    check_grid_is_the_plans();
    check_counts_ready_walks();
    check_searches_of_one_build();
    check_host_search_arguments();
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
