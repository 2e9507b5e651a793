/*
 * The CSR offsets scan (u32 counts -> u64 offsets) on totals far beyond
 * 2^32, against the host's prefix sums. White-box: it records the internal
 * pass directly, so the carries of every level (a block's 16-bit digit
 * sums, the block sums, the levels above) are exercised without the 16 GiB
 * of lists such totals mean in a real search. Every way a scan runs: two
 * dispatches (each block summing the totals before it, or levels of
 * recursion) and one (the look-back, scan_lookback.glsl: on GPUs), and a
 * look-back that gives up (FENNS_SCAN_LOOKBACK=2, on every driver): marked
 * in the status, its outputs no more than the true ones; and a whole host
 * search whose scans give up, reported as the driver's limit.
 */
#define _POSIX_C_SOURCE 200809L /* setenv: a pipeline whose look-backs give up */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "pipeline.h"

static fenns_test_gpu g;

/* How a scan runs: two dispatches, each block summing the totals before it
 * (direct) or a scan of the totals (recursive), or one (look-back). */
typedef enum scan_way { WAY_DIRECT, WAY_RECURSIVE, WAY_LOOKBACK } scan_way;
static const char *const way_names[] = {"direct   ", "recursive", "look-back"};

/* Scans `n` counts through fenns__record_scan64 (wide) or fenns__record_scan
 * (u32, as the cell tables' scan: sums mod 2^32) and compares all n+1 outputs
 * with the host's. gives_up: a pipeline whose look-backs give up at once;
 * then every block but the first must be marked in the status (the build's
 * sort_incomplete for u32, the search's incomplete_queries for u64) and no
 * output may pass the true one. */
static void check_scan(const char *name, fenns_pipeline p, const uint32_t *counts, uint32_t n, int wide, scan_way way,
                       int gives_up) {
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    fenns_test_buffer in, out, scratch;
    /* A scratch of the sums (or states), then the status block. */
    const VkDeviceSize width = wide ? 8u : 4u, sums_bytes = fenns_plan_scan_sums_bytes(&p->plan, (uint64_t)n + 1u);
    const VkDeviceSize params_at = (sums_bytes + 255u) / 256u * 256u, scratch_bytes = params_at + sizeof(fenns_gpu_params);
    int ok = fenns_test_buffer_create(&g, 4u * (VkDeviceSize)n, usage, FENNS_TEST_HOST_VISIBLE, &in) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, width * ((VkDeviceSize)n + 1u), usage, FENNS_TEST_HOST_VISIBLE, &out) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, scratch_bytes, usage, FENNS_TEST_HOST_VISIBLE, &scratch) == VK_SUCCESS;
    CHECK(ok, "%s: buffers", name);
    VkCommandBuffer cmd;
    if (ok) {
        memcpy(in.mapped, counts, 4u * (size_t)n);
        memset(out.mapped, 0xAB, (size_t)width * ((size_t)n + 1u));
        /* The look-back's states start at zero (the coarse count or reset status
         * zeroes them before a real scan); the two-dispatch sums as garbage. */
        memset(scratch.mapped, way == WAY_LOOKBACK ? 0 : 0xA5, (size_t)sums_bytes);
        memset((char *)scratch.mapped + params_at, 0, sizeof(fenns_gpu_params));
        ok = fenns_test_begin(&g, &cmd) == VK_SUCCESS;
    }
    if (ok) {
        p->plan.scan_direct_blocks = way == WAY_RECURSIVE ? 1u : FENNS_SCAN_DIRECT_BLOCKS;
        fenns_scan_place at = {scratch.buffer, params_at,
                               way != WAY_LOOKBACK ? FENNS_SCAN_TWO_DISPATCHES
                               : wide              ? FENNS_SCAN_LOOKBACK_SEARCH
                                                   : FENNS_SCAN_LOOKBACK_BUILD};
        if (wide)
            fenns__record_scan64(cmd, p, g.arena, &at, 0, in.buffer, 0, out.buffer, 0, n, n + 1u);
        else
            fenns__record_scan(cmd, p, g.arena, &at, 0, in.buffer, 0, out.buffer, 0, n, n + 1u);
        fenns_test_cmd_barrier(cmd);
        ok = fenns_test_submit(&g, cmd) == VK_SUCCESS;
        CHECK(ok, "%s: submit", name);
    }
    if (ok) {
        const uint64_t *got64 = out.mapped;
        const uint32_t *got32 = out.mapped;
        uint64_t sum = 0, bad = 0, above = 0;
        for (uint32_t i = 0; i <= n; ++i) {
            uint64_t got = wide ? got64[i] : got32[i], want = wide ? sum : (uint32_t)sum;
            above += got > want;
            if (got != want && bad++ < 3 && !gives_up)
                CHECK(0, "%s (%s): offsets[%u] = %llu, expected %llu", name, way_names[way], i, (unsigned long long)got,
                      (unsigned long long)want);
            if (i < n) sum += counts[i];
        }
        const fenns_gpu_params *status = (const fenns_gpu_params *)((const char *)scratch.mapped + params_at);
        uint32_t marked = wide ? status->incomplete_queries : status->sort_incomplete;
        uint64_t blocks = fenns_plan_scan_blocks(&p->plan, (uint64_t)n + 1u);
        if (gives_up) {
            /* Every block but the first gave up: marked, and started from
             * what it had added (nothing), never past its true start. */
            CHECK(marked == blocks - 1u, "%s: %u blocks marked as given up, expected %llu", name, marked,
                  (unsigned long long)(blocks - 1u));
            CHECK(above == 0, "%s: %llu outputs past the true ones", name, (unsigned long long)above);
            CHECK(bad > 0, "%s: a scan that gave up matched the true one", name);
        } else {
            CHECK(bad == 0, "%s: %llu offsets wrong", name, (unsigned long long)bad);
            CHECK(marked == 0, "%s: %u blocks marked as given up", name, marked);
        }
        printf("  %-28s %s, %s n=%-8u total %llu (%.1f x 2^32)%s\n", name, wide ? "u64" : "u32", way_names[way], n,
               (unsigned long long)sum, (double)sum / 4294967296.0, gives_up ? ", gave up" : "");
    }
    fenns_test_buffer_destroy(&g, &in);
    fenns_test_buffer_destroy(&g, &out);
    fenns_test_buffer_destroy(&g, &scratch);
}

/* Whole searches whose CSR offsets scan gives up (FENNS_SCAN_LOOKBACK=2
 * set: the searcher's pipeline is made inside), built by fine cell and by
 * coarse cell: 3000 points have an offsets scan of 3 blocks, which looks
 * back (reset status zeroing its states) and gives up at once. The host
 * path must report the driver's limit and return nothing, never a short
 * list; counts only (the host sums the counts, no offsets scan on the GPU)
 * must succeed and agree with a run whose scans take two dispatches. The
 * builds scan their cells in two dispatches under the hook (a cell scan
 * that gave up would leave starts the later passes do not guard against:
 * build_passes.c's cell_scan_lookback); the fine-cell build's would
 * otherwise look back. */
static void check_search_gives_up(void) {
    enum { POINTS = 3000 };
    float *xyz = malloc(12u * POINTS);
    if (!xyz) return;
    uint32_t x = 0x9E3779B9u;
    for (uint32_t i = 0; i < 3u * POINTS; ++i) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        xyz[i] = (float)(x >> 8) * (14.0f / 16777216.0f);
    }
    fenns_test_env by_cell_env = fenns_test_env_save("FENNS_BUILD_BY_CELL");
    for (int by_cell = 0; by_cell < 2; ++by_cell) {
        setenv("FENNS_BUILD_BY_CELL", by_cell ? "1" : "0", 1);
        fenns_pipeline_create_info pci = {0};
        pci.radius = 1.0f;
        pci.max_particles = POINTS;
        for (int a = 0; a < 3; ++a) pci.domain_max[a] = 14.0f;
        fenns_pipeline p = NULL;
        CHECK(fenns_pipeline_create(g.context, &pci, &p) == FENNS_SUCCESS, "pipeline (by cell %d)", by_cell);
        if (p) {
            uint64_t cells = by_cell ? p->plan.cell_capacity + 2u : p->plan.section_keys + 1u;
            CHECK(p->plan.by_cell == (uint32_t)by_cell && fenns_plan_scan_looks_back(&p->plan, POINTS + 1u) &&
                      (by_cell || fenns_plan_scan_looks_back(&p->plan, cells)),
                  "the plan: by cell %u, a cell scan of %llu entries, an offsets scan of %u, looking back",
                  p->plan.by_cell, (unsigned long long)cells, POINTS + 1u);
        }
        fenns_pipeline_destroy(p);
        uint64_t totals[2] = {0, 0};
        for (int run = 0; run < 3; ++run) {
            int counts_only = run > 0, two_dispatches = run == 2;
            if (two_dispatches) setenv("FENNS_SCAN_LOOKBACK", "0", 1);
            fenns_host_search_info info = {0};
            info.method = FENNS_METHOD_FENNS;
            info.radius = 1.0f;
            info.positions = xyz;
            info.particle_count = POINTS;
            for (int a = 0; a < 3; ++a) info.domain_max[a] = 14.0f;
            info.queue = g.queue;
            info.counts_only = counts_only;
            fenns_host_csr csr = {0};
            uint32_t errors = g.error_messages;
            g.quiet = !counts_only;
            fenns_result r = fenns_host_search(g.context, &info, &csr);
            g.quiet = 0;
            if (!counts_only) {
                CHECK(r == FENNS_ERROR_DRIVER_LIMIT && csr.offsets == NULL,
                      "by cell %d: a CSR search whose offsets scan gives up: %s, %s lists", by_cell,
                      fenns_result_string(r), csr.offsets ? "with" : "no");
                g.error_messages = errors; /* the refusal is logged */
            } else {
                CHECK(r == FENNS_SUCCESS && csr.offsets, "by cell %d: counts only, %s: %s", by_cell,
                      two_dispatches ? "two dispatches" : "giving up", fenns_result_string(r));
                if (csr.offsets) totals[run - 1] = csr.offsets[POINTS];
            }
            fenns_host_csr_free(g.context, &csr);
            if (two_dispatches) setenv("FENNS_SCAN_LOOKBACK", "2", 1);
        }
        CHECK(totals[0] == totals[1] && totals[0] > 0, "by cell %d: counts only: %llu neighbours, %llu with two dispatches",
              by_cell, (unsigned long long)totals[0], (unsigned long long)totals[1]);
    }
    fenns_test_env_restore(&by_cell_env);
    printf("  giving up, whole searches (both builds): CSR reported as the driver's limit, nothing returned; counts only exact\n");
    free(xyz);
}

int main(void) {
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    enum { N = (1 << 21) + 37 }; /* three scan levels at 1024 per block */
    fenns_pipeline_create_info pci = {0};
    pci.radius = 1.0f;
    pci.max_particles = N;
    fenns_pipeline p = NULL;
    CHECK(fenns_pipeline_create(g.context, &pci, &p) == FENNS_SUCCESS, "pipeline");
    uint32_t *counts = malloc(4u * (size_t)N);
    if (p && counts) {
        /* Neighbour-like counts with a sprinkling of huge ones: the total
         * passes 2^32 many times, at arbitrary places within blocks. */
        uint64_t x = 88172645463325252u;
        for (uint32_t i = 0; i < N; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            counts[i] = (x % 997u == 0u) ? (uint32_t)(x >> 32) : (uint32_t)(x % 200u);
        }
        /* Each way a block finds its start: the totals before it summed by
         * the block itself (the planner's way up to scan_direct_blocks), a
         * scan of the totals (forced: levels of recursion), and the
         * look-back in one dispatch. */
        uint32_t *hostile = malloc(4u * (size_t)N);
        /* Only GPUs look back (lavapipe gives a waiting workgroup's
         * predecessors no progress: fenns never looks back there); on
         * lavapipe the look-back that gives up is checked below, which
         * waits on nothing. */
        int lookback_safe = !g.context->cpu_device && p->plan.scan_lookback != 0u;
        if (!lookback_safe)
            printf("  (the look-back's sums not checked: %s)\n",
                   g.context->cpu_device ? "a CPU driver" : "FENNS_SCAN_LOOKBACK=0, no look-back pipelines");
        for (int w = WAY_DIRECT; w <= (lookback_safe ? WAY_LOOKBACK : WAY_RECURSIVE) && hostile; ++w) {
            scan_way way = (scan_way)w;
            memcpy(hostile, counts, 4u * (size_t)N);
            check_scan("mixed, huge every ~1000", p, hostile, N, 1, way, 0);
            check_scan("mixed, huge every ~1000", p, hostile, N, 0, way, 0);
            /* Every count 2^32 - 1: every digit and every carry at its maximum. */
            for (uint32_t i = 0; i < N; ++i) hostile[i] = UINT32_MAX;
            check_scan("all 2^32-1", p, hostile, N, 1, way, 0);
            /* Small and exact: one block, then block boundaries. */
            for (uint32_t i = 0; i < N; ++i) hostile[i] = i % 7u;
            check_scan("one block", p, hostile, 1000, 1, way, 0);
            check_scan("block boundary", p, hostile, 1024, 1, way, 0);
            check_scan("two levels", p, hostile, 1024 * 1024 + 1, 1, way, 0);
            check_scan("two levels", p, hostile, 1024 * 1024 + 1, 0, way, 0);
        }
        /* A look-back that gives up (FENNS_SCAN_LOOKBACK=2: at once), as one
         * may where the driver stops loops: reported, and no output past
         * the true one, so nothing a later pass writes by them leaves its range. */
        fenns_test_env lookback_env = fenns_test_env_save("FENNS_SCAN_LOOKBACK");
        setenv("FENNS_SCAN_LOOKBACK", "2", 1);
        fenns_pipeline quitter = NULL;
        CHECK(fenns_pipeline_create(g.context, &pci, &quitter) == FENNS_SUCCESS, "pipeline (look-backs that give up)");
        if (quitter && hostile) {
            for (uint32_t i = 0; i < N; ++i) hostile[i] = 1u + i % 5u;
            check_scan("giving up", quitter, hostile, 10 * 1024 + 3, 1, WAY_LOOKBACK, 1);
            check_scan("giving up", quitter, hostile, 10 * 1024 + 3, 0, WAY_LOOKBACK, 1);
            check_search_gives_up();
        }
        fenns_test_env_restore(&lookback_env);
        fenns_pipeline_destroy(quitter);
        CHECK(hostile != NULL, "host memory");
        free(hostile);
    }
    free(counts);
    fenns_pipeline_destroy(p);
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
