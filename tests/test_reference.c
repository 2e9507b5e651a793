/* ctest `reference`: the CPU grid reference equals brute force on every scene,
 * the comparison accepts exactly what it should, and the scene generators are
 * deterministic. Pure host test. `test_reference --large` also times 1M points. */
#include "check.h"
#include "reference.h"
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>



static float *alloc_points(uint32_t n)
{
    float *p = (float *)malloc(((size_t)n + 1) * 3 * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* Grid vs brute force on one point set; returns the pair count. */
static uint64_t check_grid(const char *name, const float *xyz, uint32_t n, float r)
{
    uint64_t *go = NULL, *bo = NULL;
    uint32_t *gi = NULL, *bi = NULL;
    uint64_t tol = 0;
    char msg[256];
    int rc1 = fenns_reference_csr(xyz, n, r, &go, &gi);
    int rc2 = fenns_reference_csr_brute(xyz, n, r, &bo, &bi);
    uint64_t m = 0;
    CHECK(rc1 == 0 && rc2 == 0, "%s: reference failed (%d, %d)", name, rc1, rc2);
    if (rc1 == 0 && rc2 == 0) {
        m = bo[n];
        CHECK(memcmp(go, bo, ((size_t)n + 1) * sizeof(uint64_t)) == 0, "%s: offsets differ", name);
        CHECK(go[n] == bo[n] && (m == 0 || memcmp(gi, bi, (size_t)m * sizeof(uint32_t)) == 0),
              "%s: indices differ", name);
        CHECK(fenns_reference_compare(xyz, n, r, bo, bi, n, go, gi, 0, &tol, msg, sizeof msg) == 0 &&
                  tol == 0,
              "%s: compare: %s", name, msg);
        printf("%-28s n=%-7u r=%-8g pairs=%llu\n", name, n, (double)r, (unsigned long long)m);
    }
    fenns_reference_free(&go, &gi);
    fenns_reference_free(&bo, &bi);
    return m;
}

static void test_scenes_vs_brute(void)
{
    const uint32_t n = 3000;
    float *p = alloc_points(n);
    uint64_t m;

    fenns_scene_uniform(p, n, 20.0f);
    check_grid("uniform", p, n, 1.5f);
    check_grid("uniform tiny r", p, n, 1e-3f);
    check_grid("uniform r > scene", p, 500, 50.0f);

    /* Lattice of spacing 1: r = 1 puts the 6 axis neighbours at exactly r;
     * r = 0.5 finds nothing; sqrt(2) rounding decides the diagonals. */
    fenns_scene_lattice(p, n, 1.0f, 7);
    m = check_grid("lattice r=1", p, n, 1.0f);
    CHECK(m > 0 && m % 2 == 0, "lattice r=1: pairs %llu", (unsigned long long)m);
    {
        uint64_t full = 0;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n; ++j)
                if (i != j && fenns_reference_dist2(p, i, j) == 1.0f)
                    ++full;
        CHECK(m == full, "lattice r=1: %llu pairs, %llu at exactly 1", (unsigned long long)m,
              (unsigned long long)full);
    }
    m = check_grid("lattice r=0.5", p, n, 0.5f);
    CHECK(m == 0, "lattice r=0.5 found %llu pairs", (unsigned long long)m);
    check_grid("lattice r=sqrt2", p, n, sqrtf(2.0f));
    fenns_scene_lattice(p, n, 0.25f, 3);
    check_grid("lattice 0.25 r=0.25", p, n, 0.25f);
    check_grid("lattice 0.25 r=0.5", p, n, 0.5f);

    fenns_scene_clusters(p, n, 40.0f, 11);
    check_grid("clusters", p, n, 1.0f);
    fenns_scene_planar(p, n, 20.0f, 3.0f, 5);
    check_grid("planar", p, n, 0.8f);
    {
        const float origin[3] = {-2.0f, 5.0f, 1e3f};
        fenns_scene_all_in_one(p, 400, origin, 0.01f, 9);
        m = check_grid("all in one", p, 400, 0.1f);
        CHECK(m == 400ull * 399ull, "all in one: %llu pairs", (unsigned long long)m);
    }
    fenns_scene_duplicates(p, n, 20.0f, 300, 13);
    check_grid("duplicates", p, n, 0.5f);
    check_grid("duplicates tiny r", p, n, 1e-30f);
    {
        const float lo[3] = {-5.0f, 0.0f, 0.0f}, hi[3] = {5.0f, 10.0f, 3.0f};
        fenns_scene_outside(p, n, lo, hi, 0.3f, 17);
        check_grid("outside", p, n, 0.7f);
    }
    fenns_scene_far_offset(p, n, 20.0f, 19);
    check_grid("far offset", p, n, 1.5f);
    {
        float tank[3];
        fenns_scene_dam(p, n, 1.0f, 23, tank);
        check_grid("dam", p, n, 1.0f);
    }

    /* NaN/Inf: never neighbours, no neighbours. */
    fenns_scene_uniform(p, n, 20.0f);
    p[3 * 5 + 0] = NAN;
    p[3 * 6 + 1] = INFINITY;
    p[3 * 7 + 2] = -INFINITY;
    p[3 * 8 + 0] = -NAN;
    p[3 * 9 + 0] = p[3 * 10 + 0]; /* a close pair, so the test is not vacuous */
    {
        uint64_t *o = NULL;
        uint32_t *ix = NULL;
        check_grid("nan/inf", p, n, 1.5f);
        if (fenns_reference_csr(p, n, 1.5f, &o, &ix) == 0) {
            for (uint32_t i = 5; i <= 8; ++i)
                CHECK(o[i + 1] == o[i], "nan/inf: invalid particle %u has neighbours", i);
            for (uint64_t k = 0; k < o[n]; ++k)
                CHECK(ix[k] < 5 || ix[k] > 8, "nan/inf: invalid particle %u is a neighbour", ix[k]);
        }
        fenns_reference_free(&o, &ix);
    }

    /* Spread over 1e30 with a small radius: forces hashed keys and clamped cells. */
    fenns_scene_uniform(p, n, 10.0f);
    for (uint32_t i = 0; i < n; i += 7) {
        float s = (i % 2) ? 1e30f : -3e37f;
        p[3 * i] *= s;
        p[3 * i + 1] = s;
    }
    p[3 * 14] = p[3 * 21]; /* identical far points are neighbours */
    p[3 * 14 + 1] = p[3 * 21 + 1];
    p[3 * 14 + 2] = p[3 * 21 + 2];
    check_grid("spread 1e30", p, n, 0.5f);
    check_grid("huge radius (r*r = inf)", p, 300, 1e20f);

    check_grid("n=0", p, 0, 1.0f);
    check_grid("n=1", p, 1, 1.0f);
    {
        uint64_t *o = NULL;
        uint32_t *ix = NULL;
        CHECK(fenns_reference_csr(NULL, 0, 1.0f, &o, &ix) == 0 && o && ix && o[0] == 0, "n=0 with NULL points");
        fenns_reference_free(&o, &ix);
        CHECK(fenns_reference_csr(p, 10, 0.0f, &o, &ix) == FENNS_REFERENCE_INVALID_ARGUMENT, "r = 0 accepted");
        CHECK(fenns_reference_csr(p, 10, NAN, &o, &ix) == FENNS_REFERENCE_INVALID_ARGUMENT, "r = NaN accepted");
        CHECK(fenns_reference_csr_brute(p, 10, -1.0f, &o, &ix) == FENNS_REFERENCE_INVALID_ARGUMENT,
              "r = -1 accepted");
    }
    free(p);
}

static void test_compare(void)
{
    const uint32_t n = 1000;
    float *p = alloc_points(n);
    uint64_t *ro = NULL, *go = NULL;
    uint32_t *ri = NULL, *gi = NULL;
    uint64_t tol;
    char msg[256];
    uint32_t victim = 0;

    /* Lattice at spacing 1 with r = 1: every pair sits at exactly r*r, so
     * dropping one is a tolerated boundary difference. */
    fenns_scene_lattice(p, n, 1.0f, 1);
    if (fenns_reference_csr(p, n, 1.0f, &ro, &ri) != 0) {
        CHECK(0, "reference failed");
        free(p);
        return;
    }
    fenns_reference_csr_brute(p, n, 1.0f, &go, &gi);
    while (go[victim + 1] == go[victim])
        ++victim;
    /* drop the first entry of victim's list */
    memmove(gi + go[victim], gi + go[victim] + 1, (size_t)(go[n] - go[victim] - 1) * sizeof(uint32_t));
    for (uint32_t i = victim + 1; i <= n; ++i)
        --go[i];
    CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, 0, &tol, msg, sizeof msg) == 0 && tol == 1,
          "boundary pair not tolerated: %s (tol %llu)", msg, (unsigned long long)tol);
    fenns_reference_free(&ro, &ri);
    fenns_reference_free(&go, &gi);

    /* Uniform: no pair within the tolerance, so any difference fails. */
    fenns_scene_uniform(p, n, 10.0f);
    fenns_reference_csr(p, n, 1.0f, &ro, &ri);
    fenns_reference_csr(p, n, 1.0f, &go, &gi);
    CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, 0, &tol, msg, sizeof msg) == 0 && tol == 0,
          "identical lists differ: %s", msg);
    victim = 0;
    while (go[victim + 1] - go[victim] < 3)
        ++victim;
    {
        uint32_t *l = gi + go[victim];
        const size_t bytes = (size_t)ro[n] * sizeof(uint32_t);
        uint32_t t;

        /* a missing neighbour: victim's list loses its first entry, the
         * next list gains... nothing: the offsets shrink by one from there on */
        memmove(l, l + 1, (size_t)(go[n] - go[victim] - 1) * sizeof(uint32_t));
        for (uint32_t i = victim + 1; i <= n; ++i)
            --go[i];
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, 0, NULL, msg, sizeof msg) == 1 &&
                  strstr(msg, "missing"),
              "missing neighbour not detected: %s", msg);
        printf("compare message: %s\n", msg);
        memcpy(go, ro, ((size_t)n + 1) * sizeof(uint64_t));
        memcpy(gi, ri, bytes);

        /* out of order: fails strictly, passes with ANY_ORDER */
        t = l[0];
        l[0] = l[1];
        l[1] = t;
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, 0, NULL, msg, sizeof msg) == 1 &&
                  strstr(msg, "ascending"),
              "unordered list accepted: %s", msg);
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, FENNS_REFERENCE_ANY_ORDER, NULL, msg,
                                      sizeof msg) == 0,
              "ANY_ORDER rejected a permuted list: %s", msg);
        memcpy(gi, ri, bytes);

        /* a far particle instead of the first neighbour: missing + extra */
        for (uint32_t j = 0; j < n; ++j)
            if (fenns_reference_dist2(p, victim, j) > 4.0f) {
                l[0] = j;
                break;
            }
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, FENNS_REFERENCE_ANY_ORDER, NULL, msg,
                                      sizeof msg) == 1,
              "far neighbour accepted");
        printf("compare message: %s\n", msg);
        memcpy(gi, ri, bytes);

        /* itself */
        l[0] = victim;
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, FENNS_REFERENCE_ANY_ORDER, NULL, msg,
                                      sizeof msg) == 1 && strstr(msg, "itself"),
              "self accepted: %s", msg);
        memcpy(gi, ri, bytes);

        /* duplicate */
        l[1] = l[0];
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, FENNS_REFERENCE_ANY_ORDER, NULL, msg,
                                      sizeof msg) == 1 && strstr(msg, "duplicate"),
              "duplicate accepted: %s", msg);
        memcpy(gi, ri, bytes);

        /* out of range */
        l[0] = n + 5;
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, 0, NULL, msg, sizeof msg) == 1 &&
                  strstr(msg, "range"),
              "out-of-range index accepted: %s", msg);
        memcpy(gi, ri, bytes);
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n - 1, go, gi, 0, NULL, msg, sizeof msg) == 1,
              "wrong particle count accepted");
        CHECK(fenns_reference_compare(p, n, 1.0f, ro, ri, n, go, gi, 0, NULL, msg, sizeof msg) == 0,
              "restored lists rejected: %s", msg);
    }
    fenns_reference_free(&ro, &ri);
    fenns_reference_free(&go, &gi);
    free(p);
}

static void test_generators(void)
{
    const uint32_t n = 2000;
    float *a = alloc_points(n), *b = alloc_points(n);

    /* uniform: an independent xorshift32 loop, per docs/benchmarks.md */
    {
        uint32_t ns[3] = {1, 1024, 8192};
        for (int t = 0; t < 3; ++t) {
            uint32_t cnt = ns[t] < n ? ns[t] : n;
            uint32_t x = 0x9E3779B9u ^ ns[t];
            float *u = alloc_points(ns[t]);
            fenns_scene_uniform(u, ns[t], 180.0f);
            for (uint32_t k = 0; k < 3 * cnt; ++k) {
                float want;
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                want = (float)(x >> 8) / 16777216.0f * 180.0f;
                if (u[k] != want) {
                    CHECK(0, "uniform n=%u value %u: %.9g, expected %.9g", ns[t], k, (double)u[k],
                          (double)want);
                    break;
                }
                CHECK(u[k] >= 0.0f && u[k] < 180.0f, "uniform out of range");
            }
            free(u);
        }
        /* first value for n = 1, from the spec by hand */
        {
            uint32_t x = 0x9E3779B9u ^ 1u;
            float u[3];
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            fenns_scene_uniform(u, 1, 1.0f);
            CHECK(u[0] == (float)(x >> 8) * (1.0f / 16777216.0f), "uniform first value");
        }
    }

#define SAME(call_a, call_b, name)                                                     \
    do {                                                                               \
        call_a;                                                                        \
        call_b;                                                                        \
        CHECK(memcmp(a, b, (size_t)n * 3 * sizeof(float)) == 0, "%s not deterministic", name); \
    } while (0)
    {
        const float origin[3] = {1.0f, 2.0f, 3.0f};
        const float lo[3] = {0, 0, 0}, hi[3] = {1, 2, 3};
        float tank[3];
        SAME(fenns_scene_uniform(a, n, 7.0f), fenns_scene_uniform(b, n, 7.0f), "uniform");
        SAME(fenns_scene_lattice(a, n, 0.5f, 4), fenns_scene_lattice(b, n, 0.5f, 4), "lattice");
        SAME(fenns_scene_clusters(a, n, 9.0f, 4), fenns_scene_clusters(b, n, 9.0f, 4), "clusters");
        SAME(fenns_scene_planar(a, n, 9.0f, 1.0f, 4), fenns_scene_planar(b, n, 9.0f, 1.0f, 4), "planar");
        SAME(fenns_scene_all_in_one(a, n, origin, 0.1f, 4), fenns_scene_all_in_one(b, n, origin, 0.1f, 4),
             "all_in_one");
        SAME(fenns_scene_duplicates(a, n, 9.0f, 50, 4), fenns_scene_duplicates(b, n, 9.0f, 50, 4), "duplicates");
        SAME(fenns_scene_outside(a, n, lo, hi, 0.2f, 4), fenns_scene_outside(b, n, lo, hi, 0.2f, 4), "outside");
        SAME(fenns_scene_far_offset(a, n, 9.0f, 4), fenns_scene_far_offset(b, n, 9.0f, 4), "far_offset");
        SAME(fenns_scene_dam(a, n, 1.0f, 4, tank), fenns_scene_dam(b, n, 1.0f, 4, NULL), "dam");

        /* different seeds give different sets */
        fenns_scene_clusters(a, n, 9.0f, 4);
        fenns_scene_clusters(b, n, 9.0f, 5);
        CHECK(memcmp(a, b, (size_t)n * 3 * sizeof(float)) != 0, "clusters ignore the seed");

        /* properties */
        fenns_scene_lattice(a, n, 0.5f, 4);
        for (uint32_t k = 0; k < 3 * n; ++k)
            CHECK(a[k] >= 0.0f && a[k] * 2.0f == floorf(a[k] * 2.0f), "lattice value %g", (double)a[k]);
        fenns_scene_planar(a, n, 9.0f, 1.25f, 4);
        for (uint32_t k = 0; k < n; ++k)
            CHECK(a[3 * k + 2] == 1.25f, "planar z");
        fenns_scene_all_in_one(a, n, origin, 0.1f, 4);
        for (uint32_t k = 0; k < 3 * n; ++k)
            CHECK(a[k] >= origin[k % 3] && a[k] < origin[k % 3] + 0.1f, "all_in_one outside its box");
        {
            uint32_t outside = 0;
            fenns_scene_outside(a, n, lo, hi, 0.2f, 4);
            for (uint32_t k = 0; k < n; ++k) {
                int in = 1;
                for (int c = 0; c < 3; ++c)
                    in = in && a[3 * k + (uint32_t)c] >= lo[c] && a[3 * k + (uint32_t)c] < hi[c];
                outside += in ? 0u : 1u;
            }
            CHECK(outside > n / 10 && outside < n * 3 / 10, "outside: %u of %u outside", outside, n);
        }
        fenns_scene_far_offset(a, n, 9.0f, 4);
        for (uint32_t k = 0; k < 3 * n; ++k)
            CHECK(a[k] >= 1e6f && a[k] <= 1e6f + 9.0f, "far_offset value");
        fenns_scene_dam(a, n, 1.0f, 4, tank);
        for (uint32_t k = 0; k < 3 * n; ++k)
            CHECK(a[k] > 0.0f && a[k] < tank[k % 3] * ((k % 3 == 1) ? 1.0f : 0.5f), "dam outside its block");
        {
            /* exactly `distinct` different positions */
            uint32_t distinct = 0;
            fenns_scene_duplicates(a, 500, 9.0f, 37, 4);
            for (uint32_t i = 0; i < 500; ++i) {
                int first = 1;
                for (uint32_t j = 0; j < i && first; ++j)
                    first = memcmp(a + 3 * i, a + 3 * j, 3 * sizeof(float)) != 0;
                distinct += first ? 1u : 0u;
            }
            CHECK(distinct == 37, "duplicates: %u distinct", distinct);
        }
        {
            /* clusters: the densest region is far denser than the background */
            uint32_t hist[8][8][8];
            uint32_t maxc = 0, nz = 0;
            memset(hist, 0, sizeof hist);
            fenns_scene_clusters(a, n, 8.0f, 4);
            for (uint32_t k = 0; k < n; ++k) {
                int c[3];
                int ok = 1;
                for (int d = 0; d < 3; ++d) {
                    c[d] = (int)floorf(a[3 * k + (uint32_t)d]);
                    ok = ok && c[d] >= 0 && c[d] < 8;
                }
                if (ok)
                    ++hist[c[0]][c[1]][c[2]];
            }
            for (int i = 0; i < 512; ++i) {
                uint32_t v = (&hist[0][0][0])[i];
                maxc = v > maxc ? v : maxc;
                nz += v ? 1u : 0u;
            }
            CHECK(maxc > 10u * (n / 2 / 512 + 1), "clusters: densest cell %u", maxc);
        }
    }
    free(a);
    free(b);
}

static void test_large(void)
{
    const uint32_t n = 1u << 20;
    float *p = alloc_points(n);
    uint64_t *o = NULL;
    uint32_t *ix = NULL;
    /* ~50 neighbours: density 50 / (4/3 pi r^3) with r = 1 */
    float scene = (float)cbrt((double)n * 4.18879 / 50.0);
    clock_t t0 = clock();
    int rc;
    fenns_scene_uniform(p, n, scene);
    rc = fenns_reference_csr(p, n, 1.0f, &o, &ix);
    CHECK(rc == 0, "1M reference failed %d", rc);
    if (rc == 0)
        printf("1M uniform: avg %.2f neighbours, %.2f s CPU\n", (double)o[n] / n,
               (double)(clock() - t0) / CLOCKS_PER_SEC);
    fenns_reference_free(&o, &ix);
    /* the same points all pushed 1e6 away */
    for (size_t k = 0; k < 3 * (size_t)n; ++k)
        p[k] += 1.0e6f;
    t0 = clock();
    rc = fenns_reference_csr(p, n, 1.0f, &o, &ix);
    CHECK(rc == 0, "1M far reference failed %d", rc);
    if (rc == 0)
        printf("1M uniform at 1e6: avg %.2f neighbours, %.2f s CPU\n", (double)o[n] / n,
               (double)(clock() - t0) / CLOCKS_PER_SEC);
    fenns_reference_free(&o, &ix);
    free(p);
}

int main(int argc, char **argv)
{
    test_generators();
    test_scenes_vs_brute();
    test_compare();
    if (argc > 1 && strcmp(argv[1], "--large") == 0)
        test_large();
    if (failures) {
        fprintf(stderr, "test_reference: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_reference: ok\n");
    return 0;
}
