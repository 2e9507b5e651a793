/*
 * The CSR offsets scan (u32 counts -> u64 offsets) on totals far beyond
 * 2^32, against the host's prefix sums. White-box: it records the internal
 * pass directly, so the carries of every level (a block's 16-bit digit
 * sums, the block sums, the levels above) are exercised without the 16 GiB
 * of lists such totals mean in a real search.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "pipeline.h"

static fenns_test_gpu g;

/* Scans `n` counts through fenns__record_scan64 (wide) or fenns__record_scan
 * (u32, as the cell tables' scan: sums mod 2^32) and compares all n+1 outputs. */
static void check_scan(const char *name, fenns_pipeline p, const uint32_t *counts, uint32_t n, int wide) {
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    fenns_test_buffer in, out, sums;
    const VkDeviceSize width = wide ? 8u : 4u;
    int ok = fenns_test_buffer_create(&g, 4u * (VkDeviceSize)n, usage, FENNS_TEST_HOST_VISIBLE, &in) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, width * ((VkDeviceSize)n + 1u), usage, FENNS_TEST_HOST_VISIBLE, &out) == VK_SUCCESS &&
             fenns_test_buffer_create(&g, fenns_plan_scan_sums_bytes(&p->plan, (uint64_t)n + 1u), usage,
                                      FENNS_TEST_DEVICE_LOCAL, &sums) == VK_SUCCESS;
    CHECK(ok, "%s: buffers", name);
    VkCommandBuffer cmd;
    if (ok) {
        memcpy(in.mapped, counts, 4u * (size_t)n);
        memset(out.mapped, 0xAB, (size_t)width * ((size_t)n + 1u));
        ok = fenns_test_begin(&g, &cmd) == VK_SUCCESS;
    }
    if (ok) {
        if (wide)
            fenns__record_scan64(cmd, p, g.arena, sums.buffer, 0, in.buffer, 0, out.buffer, 0, n, n + 1u);
        else
            fenns__record_scan(cmd, p, g.arena, sums.buffer, 0, in.buffer, 0, out.buffer, 0, n, n + 1u);
        fenns_test_cmd_barrier(cmd);
        ok = fenns_test_submit(&g, cmd) == VK_SUCCESS;
        CHECK(ok, "%s: submit", name);
    }
    if (ok) {
        const uint64_t *got64 = out.mapped;
        const uint32_t *got32 = out.mapped;
        uint64_t sum = 0, bad = 0;
        for (uint32_t i = 0; i <= n; ++i) {
            uint64_t got = wide ? got64[i] : got32[i], want = wide ? sum : (uint32_t)sum;
            if (got != want && bad++ < 3)
                CHECK(0, "%s: offsets[%u] = %llu, expected %llu", name, i, (unsigned long long)got,
                      (unsigned long long)want);
            if (i < n) sum += counts[i];
        }
        CHECK(bad == 0, "%s: %llu offsets wrong", name, (unsigned long long)bad);
        printf("  %-28s %s, %s n=%-8u total %llu (%.1f x 2^32)\n", name, wide ? "u64" : "u32",
               p->plan.scan_direct_blocks > 1u ? "direct   " : "recursive", n, (unsigned long long)sum,
               (double)sum / 4294967296.0);
    }
    fenns_test_buffer_destroy(&g, &in);
    fenns_test_buffer_destroy(&g, &out);
    fenns_test_buffer_destroy(&g, &sums);
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
         * the block itself (the planner's way up to scan_direct_blocks), and
         * a scan of the totals (forced: levels of recursion). */
        uint32_t *hostile = malloc(4u * (size_t)N);
        for (int direct = 1; direct >= 0 && hostile; --direct) {
            p->plan.scan_direct_blocks = direct ? FENNS_SCAN_DIRECT_BLOCKS : 1u;
            memcpy(hostile, counts, 4u * (size_t)N);
            check_scan("mixed, huge every ~1000", p, hostile, N, 1);
            check_scan("mixed, huge every ~1000", p, hostile, N, 0);
            /* Every count 2^32 - 1: every digit and every carry at its maximum. */
            for (uint32_t i = 0; i < N; ++i) hostile[i] = UINT32_MAX;
            check_scan("all 2^32-1", p, hostile, N, 1);
            /* Small and exact: one block, then block boundaries. */
            for (uint32_t i = 0; i < N; ++i) hostile[i] = i % 7u;
            check_scan("one block", p, hostile, 1000, 1);
            check_scan("block boundary", p, hostile, 1024, 1);
            check_scan("two levels", p, hostile, 1024 * 1024 + 1, 1);
            check_scan("two levels", p, hostile, 1024 * 1024 + 1, 0);
        }
        CHECK(hostile != NULL, "host memory");
        free(hostile);
    }
    free(counts);
    fenns_pipeline_destroy(p);
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
