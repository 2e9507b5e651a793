/*
 * Host allocation failure injected at every allocation that goes through the
 * caller's VkAllocationCallbacks (fenns' own and the driver's, which fenns
 * passes on) in a context + the host sequence of fenns_test_host_sequence
 * (one-shot fenns_host_search; a fenns_host_searcher created, run, grown,
 * run warm): each failure is reported as FENNS_ERROR_OUT_OF_HOST_MEMORY,
 * every allocation is returned, the failed step succeeds when run again on
 * the same searcher, and the context stays usable. A warm searcher run
 * allocates nothing.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"

typedef struct injector {
    long count;       /* allocations seen */
    long fail_at;     /* the allocation to refuse; -1: none */
    int failed;       /* 1 once it refused */
    long outstanding; /* allocations not yet freed */
} injector;

typedef struct header {
    size_t size;
    void *raw;
} header;

static void *allocate(void *user, size_t size, size_t alignment, VkSystemAllocationScope scope) {
    (void)scope;
    injector *in = user;
    if (in->count++ == in->fail_at) {
        in->failed = 1;
        return NULL;
    }
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
    char *raw = malloc(size + alignment + sizeof(header));
    if (!raw) return NULL;
    uintptr_t at = ((uintptr_t)(raw + sizeof(header)) + alignment - 1) / alignment * alignment;
    header *h = (header *)(void *)((char *)at - sizeof(header));
    h->size = size;
    h->raw = raw;
    in->outstanding++;
    return (void *)at;
}

static void release(void *user, void *memory) {
    if (!memory) return;
    injector *in = user;
    header *h = (header *)(void *)((char *)memory - sizeof(header));
    free(h->raw);
    in->outstanding--;
}

static void *reallocate(void *user, void *original, size_t size, size_t alignment, VkSystemAllocationScope scope) {
    if (!original) return allocate(user, size, alignment, scope);
    if (size == 0) {
        release(user, original);
        return NULL;
    }
    void *fresh = allocate(user, size, alignment, scope);
    if (!fresh) return NULL; /* the original stays valid */
    header *h = (header *)(void *)((char *)original - sizeof(header));
    memcpy(fresh, original, h->size < size ? h->size : size);
    release(user, original);
    return fresh;
}

static fenns_test_gpu g;

static void end_injection(void *user) { ((injector *)user)->fail_at = -1; }

static fenns_result search_once(fenns_context ctx, fenns_test_host_part part, const float *xyz, uint32_t n,
                                uint64_t *sum, injector *recover) {
    return fenns_test_host_sequence(&g, ctx, part, xyz, n, 0.3f, sum, recover ? end_injection : NULL, recover);
}

/* Warm runs (same configuration, no more particles or entries than held)
 * allocate no host memory. */
static void check_warm_run(fenns_context ctx, injector *in, const float *xyz, uint32_t n) {
    fenns_host_searcher s = NULL;
    fenns_host_search_info info;
    memset(&info, 0, sizeof info);
    info.radius = 0.3f;
    info.positions = xyz;
    info.particle_count = n;
    info.queue = g.queue;
    fenns_host_csr csr;
    CHECK(fenns_host_searcher_create(ctx, &s) == FENNS_SUCCESS && fenns_host_searcher_run(s, &info, &csr) == FENNS_SUCCESS,
          "warm check: first run");
    long before = in->count;
    info.particle_count = n / 2u;
    fenns_result a = fenns_host_searcher_run(s, &info, &csr);
    info.counts_only = 1;
    fenns_result b = fenns_host_searcher_run(s, &info, &csr);
    CHECK(a == FENNS_SUCCESS && b == FENNS_SUCCESS && in->count == before, "warm runs: %s, %s, %ld allocations",
          fenns_result_string(a), fenns_result_string(b), in->count - before);
    fenns_host_searcher_destroy(s);
}

int main(int argc, char **argv) {
    fenns_test_sites which;
    if (!fenns_test_parse_sites(argc, argv, &which) || which.fault) return 2;
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    enum { N = 500 };
    static float xyz[3 * N];
    for (int i = 0; i < 3 * N; ++i) xyz[i] = (float)((i * 7919) % 1000) / 100.0f;

    injector in = {0, -1, 0, 0};
    VkAllocationCallbacks cb = {&in, allocate, reallocate, release, NULL, NULL};
    fenns_context_create_info ci;
    fenns_headless_context_info(g.headless, &ci);
    ci.allocation_callbacks = &cb;

    /* The results without failures. */
    fenns_context ctx;
    uint64_t expected[2] = {0, 0};
    CHECK(fenns_context_create(&ci, &ctx) == FENNS_SUCCESS, "context");
    for (int part = 0; part < 2; ++part)
        CHECK(search_once(ctx, (fenns_test_host_part)part, xyz, N, &expected[part], NULL) == FENNS_SUCCESS &&
                  expected[part] > 0,
              "reference sequence %d", part);
    check_warm_run(ctx, &in, xyz, N);
    fenns_context_destroy(ctx);
    CHECK(in.outstanding == 0, "%ld allocations outstanding after a clean run", in.outstanding);

    g.quiet = 1; /* the refusals are logged; they are expected */
    long sites = 0;
    for (int part = 0; part < 2; ++part) {
        if (which.part >= 0 && part != which.part) continue;
        fenns_test_host_part host_part = (fenns_test_host_part)part;
        for (long k = which.first;; k += which.stride) {
            in.count = 0;
            in.failed = 0;
            in.fail_at = k;
            if (getenv("FENNS_TEST_TRACE")) fprintf(stderr, "part %d: fail at %ld\n", part, k); /* a crashing site */
            fenns_result r = fenns_context_create(&ci, &ctx);
            uint64_t total = 0;
            if (r == FENNS_SUCCESS) {
                r = search_once(ctx, host_part, xyz, N, &total, &in);
                if (in.failed) {
                    /* Recovered: the same searcher and context finished the
                     * sequence with the right result; else try a fresh one. */
                    CHECK(total == expected[part], "part %d: the failed step at allocation %ld did not recover", part, k);
                    in.fail_at = -1;
                    uint64_t again = 0;
                    if (total != expected[part])
                        CHECK(search_once(ctx, host_part, xyz, N, &again, NULL) == FENNS_SUCCESS && again == expected[part],
                              "part %d: context unusable after a failure at allocation %ld", part, k);
                }
                fenns_context_destroy(ctx);
            }
            CHECK(in.outstanding == 0, "part %d: failure at allocation %ld leaks %ld allocations", part, k,
                  in.outstanding);
            if (!in.failed) {
                CHECK(r == FENNS_SUCCESS && total == expected[part], "part %d: no failure injected but the run failed",
                      part);
                break;
            }
            ++sites;
            CHECK(r == FENNS_ERROR_OUT_OF_HOST_MEMORY, "part %d: failure at allocation %ld gave %s", part, k,
                  fenns_result_string(r));
            if (r != FENNS_ERROR_OUT_OF_HOST_MEMORY) break;
        }
    }
    g.quiet = 0;
    g.error_messages = 0;
    printf("injected a failure at each of %ld allocation sites\n", sites);
    CHECK(sites > 60 / (2 * which.stride), "only %ld allocation sites", sites);
    CHECK(fenns_test_gpu_close(&g) == 0, "validation messages or library errors (counted above)");
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
