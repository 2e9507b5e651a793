/* CPU neighbour reference; see reference.h. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int point_finite(const float *xyz, uint32_t i)
{
    const float *p = xyz + 3 * (size_t)i;
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

float fenns_reference_dist2(const float *xyz, uint32_t i, uint32_t j)
{
    const float *a = xyz + 3 * (size_t)i;
    const float *b = xyz + 3 * (size_t)j;
    float dx = b[0] - a[0];
    float dy = b[1] - a[1];
    float dz = b[2] - a[2];
    return dx * dx + dy * dy + dz * dz;
}

void fenns_reference_free(uint64_t **offsets, uint32_t **indices)
{
    if (offsets) {
        free(*offsets);
        *offsets = NULL;
    }
    if (indices) {
        free(*indices);
        *indices = NULL;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void sort_u32(uint32_t *v, size_t count)
{
    if (count > 128) {
        qsort(v, count, sizeof *v, cmp_u32);
        return;
    }
    for (size_t i = 1; i < count; ++i) {
        uint32_t x = v[i];
        size_t k = i;
        while (k > 0 && v[k - 1] > x) {
            v[k] = v[k - 1];
            --k;
        }
        v[k] = x;
    }
}

/* counts[i] (in offsets[i+1]) -> exclusive scan; allocates indices. */
static int finish_offsets(uint64_t *offsets, uint32_t n, uint32_t **indices)
{
    uint64_t total = 0;
    offsets[0] = 0;
    for (uint32_t i = 0; i < n; ++i) {
        total += offsets[i + 1];
        offsets[i + 1] = total;
    }
    if (total > (uint64_t)(SIZE_MAX / sizeof(uint32_t)) - 1)
        return FENNS_REFERENCE_OUT_OF_MEMORY;
    *indices = (uint32_t *)malloc((total > 0 ? (size_t)total : 1) * sizeof(uint32_t));
    return *indices ? FENNS_REFERENCE_OK : FENNS_REFERENCE_OUT_OF_MEMORY;
}

static int check_args(const float *xyz, uint32_t n, float r, uint64_t **offsets, uint32_t **indices)
{
    if (!offsets || !indices)
        return FENNS_REFERENCE_INVALID_ARGUMENT;
    *offsets = NULL;
    *indices = NULL;
    if (!(isfinite(r) && r > 0.0f) || (n > 0 && !xyz))
        return FENNS_REFERENCE_INVALID_ARGUMENT;
    return FENNS_REFERENCE_OK;
}

/* ------------------------------------------------------------------------ */
/* Brute force                                                              */
/* ------------------------------------------------------------------------ */

int fenns_reference_csr_brute(const float *xyz, uint32_t n, float r, uint64_t **offsets,
                              uint32_t **indices)
{
    const float r2 = r * r;
    int rc = check_args(xyz, n, r, offsets, indices);
    if (rc)
        return rc;
    *offsets = (uint64_t *)calloc((size_t)n + 1, sizeof(uint64_t));
    if (!*offsets)
        return FENNS_REFERENCE_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < n; ++i) {
        if (!point_finite(xyz, i))
            continue;
        for (uint32_t j = 0; j < n; ++j)
            if (j != i && point_finite(xyz, j) && fenns_reference_dist2(xyz, i, j) <= r2)
                ++(*offsets)[i + 1];
    }
    rc = finish_offsets(*offsets, n, indices);
    if (rc) {
        fenns_reference_free(offsets, indices);
        return rc;
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t k = (*offsets)[i];
        if (!point_finite(xyz, i))
            continue;
        for (uint32_t j = 0; j < n; ++j)
            if (j != i && point_finite(xyz, j) && fenns_reference_dist2(xyz, i, j) <= r2)
                (*indices)[k++] = j;
    }
    return FENNS_REFERENCE_OK;
}

/* ------------------------------------------------------------------------ */
/* Grid                                                                     */
/* ------------------------------------------------------------------------ */

/* Cell coordinates are clamped to +-2^61 so differences never overflow. Only
 * coordinates beyond 2^61 cells clamp, and there floats are so sparse that
 * only identical points can be neighbours, which clamp alike. */
#define CELL_LIMIT 2305843009213693952.0 /* 2^61 */

typedef struct grid {
    double inv_cell;
    int single_cell;    /* r*r is inf: every finite pair is a neighbour */
    int packed;         /* key = packed offsets from lo; else a hash of the coordinates */
    int64_t lo[3];
    uint64_t span[3];
} grid;

static int64_t cell_coord(const grid *g, float x)
{
    double q = floor((double)x * g->inv_cell);
    if (q > CELL_LIMIT)
        q = CELL_LIMIT;
    if (q < -CELL_LIMIT)
        q = -CELL_LIMIT;
    return (int64_t)q;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* Key of cell c; returns 0 when the cell cannot hold points (outside the
 * occupied box of a packed grid). */
static int cell_key(const grid *g, const int64_t c[3], uint64_t *key)
{
    if (g->single_cell) {
        *key = 0;
        return 1;
    }
    if (g->packed) {
        uint64_t o[3];
        for (int a = 0; a < 3; ++a) {
            if (c[a] < g->lo[a])
                return 0;
            o[a] = (uint64_t)(c[a] - g->lo[a]);
            if (o[a] >= g->span[a])
                return 0;
        }
        *key = (o[2] * g->span[1] + o[1]) * g->span[0] + o[0];
        return 1;
    }
    *key = mix64((uint64_t)c[0] ^ mix64((uint64_t)c[1] ^ mix64((uint64_t)c[2])));
    return 1;
}

static void point_cell(const grid *g, const float *p, int64_t c[3])
{
    for (int a = 0; a < 3; ++a)
        c[a] = cell_coord(g, p[a]);
}

/* Stable LSD radix sort of (key, value) pairs by key, 16 bits a pass, passes
 * whose digit is the same for every key skipped. */
static int radix_sort(uint64_t *keys, uint32_t *values, size_t count)
{
    uint64_t *k2;
    uint32_t *v2;
    uint32_t *hist;
    if (count < 2)
        return 0;
    k2 = (uint64_t *)malloc(count * sizeof(uint64_t));
    v2 = (uint32_t *)malloc(count * sizeof(uint32_t));
    hist = (uint32_t *)calloc(4 * 65536, sizeof(uint32_t));
    if (!k2 || !v2 || !hist) {
        free(k2);
        free(v2);
        free(hist);
        return 1;
    }
    for (size_t i = 0; i < count; ++i)
        for (int d = 0; d < 4; ++d)
            ++hist[d * 65536 + (int)((keys[i] >> (16 * d)) & 0xffffu)];
    for (int d = 0; d < 4; ++d) {
        uint32_t *h = hist + d * 65536;
        uint32_t sum = 0;
        int trivial = 0;
        for (int b = 0; b < 65536; ++b) {
            uint32_t c = h[b];
            if (c == count)
                trivial = 1;
            h[b] = sum;
            sum += c;
        }
        if (trivial)
            continue;
        for (size_t i = 0; i < count; ++i) {
            uint32_t dst = h[(keys[i] >> (16 * d)) & 0xffffu]++;
            k2[dst] = keys[i];
            v2[dst] = values[i];
        }
        memcpy(keys, k2, count * sizeof(uint64_t));
        memcpy(values, v2, count * sizeof(uint32_t));
    }
    free(k2);
    free(v2);
    free(hist);
    return 0;
}

/* Index of `key` in the sorted unique keys, or -1. */
static int64_t find_key(const uint64_t *ukeys, size_t count, uint64_t key)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ukeys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < count && ukeys[lo] == key) ? (int64_t)lo : -1;
}

typedef struct grid_data {
    grid g;
    size_t nvalid;
    uint32_t *order;      /* sorted position -> original index, valid points only */
    float *sorted;        /* xyz in sorted order */
    uint64_t *ukeys;      /* unique cell keys, ascending */
    uint32_t *run_start;  /* ncells + 1 */
    size_t ncells;
} grid_data;

static void grid_data_free(grid_data *d)
{
    free(d->order);
    free(d->sorted);
    free(d->ukeys);
    free(d->run_start);
}

static int grid_build(const float *xyz, uint32_t n, float r, grid_data *d)
{
    grid *g = &d->g;
    uint64_t *keys = NULL;
    /* 0.1% above r: float rounding of dist2 can admit pairs a few ulps beyond
     * r, never 0.1%. Below 1e-18, r*r nears the float denormals, where
     * dist2 <= r*r bounds the distance only loosely; a larger cell only costs time. */
    const double cell = (r > 1e-18f ? (double)r : 1e-18) * 1.001;
    int64_t hi[3];
    size_t nv = 0;

    memset(d, 0, sizeof *d);
    g->inv_cell = 1.0 / cell;
    g->single_cell = isinf(r * r);
    for (uint32_t i = 0; i < n; ++i)
        nv += point_finite(xyz, i) ? 1u : 0u;
    d->nvalid = nv;
    d->order = (uint32_t *)malloc((nv ? nv : 1) * sizeof(uint32_t));
    keys = (uint64_t *)malloc((nv ? nv : 1) * sizeof(uint64_t));
    d->sorted = (float *)malloc((nv ? nv : 1) * 3 * sizeof(float));
    if (!d->order || !keys || !d->sorted)
        goto oom;

    /* The occupied box of cells decides whether keys can be packed. */
    for (int a = 0; a < 3; ++a) {
        g->lo[a] = INT64_MAX;
        hi[a] = INT64_MIN;
    }
    nv = 0;
    for (uint32_t i = 0; i < n; ++i) {
        int64_t c[3];
        if (!point_finite(xyz, i))
            continue;
        d->order[nv++] = i;
        point_cell(g, xyz + 3 * (size_t)i, c);
        for (int a = 0; a < 3; ++a) {
            if (c[a] < g->lo[a])
                g->lo[a] = c[a];
            if (c[a] > hi[a])
                hi[a] = c[a];
        }
    }
    g->packed = 1;
    if (nv > 0) {
        uint64_t product = 1;
        for (int a = 0; a < 3; ++a) {
            g->span[a] = (uint64_t)(hi[a] - g->lo[a]) + 1;
            if (product > (UINT64_MAX >> 1) / g->span[a])
                g->packed = 0;
            else
                product *= g->span[a];
        }
    }
    for (size_t k = 0; k < nv; ++k) {
        int64_t c[3];
        point_cell(g, xyz + 3 * (size_t)d->order[k], c);
        cell_key(g, c, &keys[k]);
    }
    if (radix_sort(keys, d->order, nv))
        goto oom;
    for (size_t k = 0; k < nv; ++k)
        memcpy(d->sorted + 3 * k, xyz + 3 * (size_t)d->order[k], 3 * sizeof(float));

    /* Runs of equal keys are the occupied cells. */
    d->ncells = 0;
    for (size_t k = 0; k < nv; ++k)
        if (k == 0 || keys[k] != keys[k - 1])
            ++d->ncells;
    d->ukeys = (uint64_t *)malloc((d->ncells ? d->ncells : 1) * sizeof(uint64_t));
    d->run_start = (uint32_t *)malloc((d->ncells + 1) * sizeof(uint32_t));
    if (!d->ukeys || !d->run_start)
        goto oom;
    {
        size_t u = 0;
        for (size_t k = 0; k < nv; ++k)
            if (k == 0 || keys[k] != keys[k - 1]) {
                d->ukeys[u] = keys[k];
                d->run_start[u] = (uint32_t)k;
                ++u;
            }
        d->run_start[u] = (uint32_t)nv;
    }
    free(keys);
    return 0;
oom:
    free(keys);
    grid_data_free(d);
    return 1;
}

/* The runs (cell indices) holding the 27 neighbour cells of cell u, each once. */
static size_t neighbour_runs(const grid_data *d, size_t u, size_t runs[27])
{
    const grid *g = &d->g;
    int64_t c[3];
    uint64_t keys[27];
    size_t nkeys = 0, nruns = 0;
    if (g->single_cell) {
        runs[0] = u;
        return 1;
    }
    point_cell(g, d->sorted + 3 * (size_t)d->run_start[u], c);
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int64_t nc[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
                uint64_t key;
                int seen = 0;
                if (!cell_key(g, nc, &key))
                    continue;
                /* Hashed keys may collide; visit each key once. */
                for (size_t k = 0; k < nkeys; ++k)
                    if (keys[k] == key)
                        seen = 1;
                if (!seen)
                    keys[nkeys++] = key;
            }
    for (size_t k = 0; k < nkeys; ++k) {
        int64_t idx = find_key(d->ukeys, d->ncells, keys[k]);
        if (idx >= 0)
            runs[nruns++] = (size_t)idx;
    }
    return nruns;
}

/* Sorts v[0..seg[nseg]) made of nseg ascending segments seg[k]..seg[k+1]
 * by merging them pairwise; tmp holds as many entries as v. */
static void merge_segments(uint32_t *v, uint32_t *tmp, size_t *seg, size_t nseg)
{
    uint32_t *src = v, *dst = tmp;
    while (nseg > 1) {
        size_t w = 0;
        for (size_t s = 0; s < nseg; s += 2) {
            size_t a = seg[s], b, end, o = seg[s];
            if (s + 1 == nseg) {
                memcpy(dst + a, src + a, (seg[s + 1] - a) * sizeof(uint32_t));
                seg[w++] = seg[s];
                continue;
            }
            b = seg[s + 1];
            end = seg[s + 2];
            {
                size_t i = a, j = b;
                while (i < b && j < end)
                    dst[o++] = src[i] <= src[j] ? src[i++] : src[j++];
                while (i < b)
                    dst[o++] = src[i++];
                while (j < end)
                    dst[o++] = src[j++];
            }
            seg[w++] = seg[s];
        }
        seg[w] = seg[nseg];
        nseg = w;
        {
            uint32_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != v)
        memcpy(v, src, seg[nseg] * sizeof(uint32_t));
}

int fenns_reference_csr(const float *xyz, uint32_t n, float r, uint64_t **offsets,
                        uint32_t **indices)
{
    const float r2 = r * r;
    grid_data d;
    uint32_t *found = NULL, *merge_tmp = NULL;
    size_t found_cap = 0, used = 0;
    uint64_t *list_start = NULL; /* per sorted position, into `found` */
    int rc = check_args(xyz, n, r, offsets, indices);
    if (rc)
        return rc;
    if (grid_build(xyz, n, r, &d))
        return FENNS_REFERENCE_OUT_OF_MEMORY;
    *offsets = (uint64_t *)calloc((size_t)n + 1, sizeof(uint64_t));
    list_start = (uint64_t *)malloc((d.nvalid ? d.nvalid : 1) * sizeof(uint64_t));
    merge_tmp = (uint32_t *)malloc((d.nvalid ? d.nvalid : 1) * sizeof(uint32_t));
    if (!*offsets || !list_start || !merge_tmp)
        goto oom;

    /* One pass: every list lands in `found` in sorted order, then moves to its
     * place in the CSR. Candidates of one run come in ascending original
     * index (the radix sort is stable), so a list is a merge of <= 27 runs. */
    for (size_t u = 0; u < d.ncells; ++u) {
        size_t runs[27];
        size_t nruns = neighbour_runs(&d, u, runs);
        size_t bound = 0;
        for (size_t k = 0; k < nruns; ++k)
            bound += d.run_start[runs[k] + 1] - d.run_start[runs[k]];
        for (uint32_t p = d.run_start[u]; p < d.run_start[u + 1]; ++p) {
            const float *a = d.sorted + 3 * (size_t)p;
            size_t seg[28];
            uint32_t *out;
            size_t count = 0;
            if (found_cap - used < bound) {
                size_t cap = found_cap ? found_cap : 1024;
                uint32_t *grown;
                while (cap - used < bound) {
                    if (cap > SIZE_MAX / 2 / sizeof(uint32_t))
                        goto oom;
                    cap *= 2;
                }
                grown = (uint32_t *)realloc(found, cap * sizeof(uint32_t));
                if (!grown)
                    goto oom;
                found = grown;
                found_cap = cap;
            }
            out = found + used;
            for (size_t k = 0; k < nruns; ++k) {
                seg[k] = count;
                for (uint32_t q = d.run_start[runs[k]]; q < d.run_start[runs[k] + 1]; ++q) {
                    const float *b = d.sorted + 3 * (size_t)q;
                    float dx = b[0] - a[0];
                    float dy = b[1] - a[1];
                    float dz = b[2] - a[2];
                    /* branch-free: about one candidate in six is a neighbour */
                    out[count] = d.order[q];
                    count += (size_t)((dx * dx + dy * dy + dz * dz <= r2) & (q != p));
                }
            }
            seg[nruns] = count;
            /* Short lists: insertion sort mispredicts once per entry, a merge
             * about once per comparison. */
            if (count <= 128)
                sort_u32(out, count);
            else
                merge_segments(out, merge_tmp, seg, nruns);
            list_start[p] = used;
            (*offsets)[d.order[p] + 1] = count;
            used += count;
        }
    }
    rc = finish_offsets(*offsets, n, indices);
    if (rc)
        goto oom;
    for (size_t p = 0; p < d.nvalid; ++p) {
        uint32_t i = d.order[p];
        size_t count = (size_t)((*offsets)[i + 1] - (*offsets)[i]);
        if (count)
            memcpy(*indices + (*offsets)[i], found + list_start[p], count * sizeof(uint32_t));
    }
    free(found);
    free(merge_tmp);
    free(list_start);
    grid_data_free(&d);
    return FENNS_REFERENCE_OK;
oom:
    free(found);
    free(merge_tmp);
    free(list_start);
    grid_data_free(&d);
    fenns_reference_free(offsets, indices);
    return FENNS_REFERENCE_OUT_OF_MEMORY;
}

/* ------------------------------------------------------------------------ */
/* Comparison                                                               */
/* ------------------------------------------------------------------------ */

static int tolerated(const float *xyz, uint32_t i, uint32_t j, float r2)
{
    double d2, lim;
    if (!point_finite(xyz, i) || !point_finite(xyz, j))
        return 0;
    d2 = (double)fenns_reference_dist2(xyz, i, j);
    lim = (double)r2;
    return fabs(d2 - lim) <= lim * FENNS_REFERENCE_REL_TOLERANCE;
}

int fenns_reference_compare(const float *xyz, uint32_t n, float r,
                            const uint64_t *ref_offsets, const uint32_t *ref_indices,
                            uint64_t got_n, const uint64_t *got_offsets, const uint32_t *got_indices,
                            unsigned flags, uint64_t *out_tolerated, char *msg, size_t msg_size)
{
    const float r2 = r * r;
    uint64_t tol = 0;
    uint32_t *scratch = NULL;
    size_t scratch_cap = 0;
    char dummy[8];
    if (!msg || msg_size == 0) {
        msg = dummy;
        msg_size = sizeof dummy;
    }
    msg[0] = '\0';
    if (out_tolerated)
        *out_tolerated = 0;
    if (got_n != n) {
        snprintf(msg, msg_size, "result has %llu particles, the reference %u", (unsigned long long)got_n, n);
        return 1;
    }
    if (!got_offsets || got_offsets[0] != 0) {
        snprintf(msg, msg_size, "result offsets missing or offsets[0] != 0");
        return 1;
    }
    for (uint32_t i = 0; i < n; ++i)
        if (got_offsets[i + 1] < got_offsets[i]) {
            snprintf(msg, msg_size, "particle %u: result offsets decrease", i);
            return 1;
        }
    if (got_offsets[n] > 0 && !got_indices) {
        snprintf(msg, msg_size, "result has %llu entries but no indices", (unsigned long long)got_offsets[n]);
        return 1;
    }

    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t *ref = ref_indices + ref_offsets[i];
        size_t nref = (size_t)(ref_offsets[i + 1] - ref_offsets[i]);
        const uint32_t *got = got_indices + got_offsets[i];
        size_t ngot = (size_t)(got_offsets[i + 1] - got_offsets[i]);
        size_t a = 0, b = 0;

        for (size_t k = 0; k < ngot; ++k)
            if (got[k] >= n) {
                snprintf(msg, msg_size, "particle %u: neighbour index %u out of range (n %u)", i, got[k], n);
                free(scratch);
                return 1;
            }
        if (flags & FENNS_REFERENCE_ANY_ORDER) {
            if (ngot > scratch_cap) {
                uint32_t *grown = (uint32_t *)realloc(scratch, ngot * sizeof(uint32_t));
                if (!grown) {
                    free(scratch);
                    snprintf(msg, msg_size, "out of memory");
                    return FENNS_REFERENCE_OUT_OF_MEMORY;
                }
                scratch = grown;
                scratch_cap = ngot;
            }
            if (ngot)
                memcpy(scratch, got, ngot * sizeof(uint32_t));
            sort_u32(scratch, ngot);
            got = scratch;
        }
        for (size_t k = 1; k < ngot; ++k)
            if (got[k] <= got[k - 1]) {
                if (got[k] == got[k - 1])
                    snprintf(msg, msg_size, "particle %u: duplicate neighbour %u", i, got[k]);
                else
                    snprintf(msg, msg_size, "particle %u: list not ascending (%u after %u at entry %zu)",
                             i, got[k], got[k - 1], k);
                free(scratch);
                return 1;
            }
        while (a < nref || b < ngot) {
            uint32_t j;
            const char *what;
            if (b == ngot || (a < nref && ref[a] < got[b])) {
                j = ref[a++];
                what = "missing";
            } else if (a == nref || got[b] < ref[a]) {
                j = got[b++];
                what = "extra";
            } else {
                ++a;
                ++b;
                continue;
            }
            if (j != i && tolerated(xyz, i, j, r2)) {
                ++tol;
                continue;
            }
            if (j == i)
                snprintf(msg, msg_size, "particle %u: %s neighbour %u (itself)", i, what, j);
            else
                snprintf(msg, msg_size, "particle %u: %s neighbour %u (dist2 %.9g vs r*r %.9g)", i, what,
                         j, (double)fenns_reference_dist2(xyz, i, j), (double)r2);
            free(scratch);
            return 1;
        }
    }
    free(scratch);
    if (out_tolerated)
        *out_tolerated = tol;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Point sets                                                               */
/* ------------------------------------------------------------------------ */

/* The two sets as one array, queries first; NULL when out of memory. */
static float *union_of(const float *query_xyz, uint32_t nq, const float *candidate_xyz, uint32_t nc)
{
    size_t n = (size_t)nq + nc;
    float *xyz = (float *)malloc(12u * (n ? n : 1u));
    if (!xyz)
        return NULL;
    if (nq)
        memcpy(xyz, query_xyz, 12u * (size_t)nq);
    if (nc)
        memcpy(xyz + 3u * (size_t)nq, candidate_xyz, 12u * (size_t)nc);
    return xyz;
}

int fenns_reference_cross_csr(const float *query_xyz, uint32_t nq, const float *candidate_xyz, uint32_t nc, float r,
                              uint64_t **offsets, uint32_t **indices)
{
    uint64_t *uo = NULL;
    uint32_t *ui = NULL;
    if (!offsets || !indices || (nq && !query_xyz) || (nc && !candidate_xyz) || (uint64_t)nq + nc > UINT32_MAX)
        return FENNS_REFERENCE_INVALID_ARGUMENT;
    *offsets = NULL;
    *indices = NULL;
    float *xyz = union_of(query_xyz, nq, candidate_xyz, nc);
    if (!xyz)
        return FENNS_REFERENCE_OUT_OF_MEMORY;
    int rc = fenns_reference_csr(xyz, nq + nc, r, &uo, &ui);
    free(xyz);
    if (rc)
        return rc;
    *offsets = (uint64_t *)malloc(8u * ((size_t)nq + 1u));
    *indices = (uint32_t *)malloc(4u * (size_t)(uo[nq] ? uo[nq] : 1u));
    if (!*offsets || !*indices) {
        fenns_reference_free(&uo, &ui);
        fenns_reference_free(offsets, indices);
        return FENNS_REFERENCE_OUT_OF_MEMORY;
    }
    uint64_t m = 0;
    (*offsets)[0] = 0;
    for (uint32_t i = 0; i < nq; ++i) {
        for (uint64_t e = uo[i]; e < uo[i + 1]; ++e)
            if (ui[e] >= nq)
                (*indices)[m++] = ui[e] - nq;
        (*offsets)[i + 1] = m;
    }
    fenns_reference_free(&uo, &ui);
    return FENNS_REFERENCE_OK;
}

int fenns_reference_compare_cross(const float *query_xyz, uint32_t nq, const float *candidate_xyz, uint32_t nc,
                                  float r, const uint64_t *ref_offsets, const uint32_t *ref_indices,
                                  const uint64_t *got_offsets, const uint32_t *got_indices, char *msg,
                                  size_t msg_size)
{
    /* In the union's numbering (the candidates' own lists empty), so the
     * tolerance sees both points of a pair. */
    size_t n = (size_t)nq + nc;
    uint64_t got_m = got_offsets[nq], ref_m = ref_offsets[nq];
    float *xyz = union_of(query_xyz, nq, candidate_xyz, nc);
    uint64_t *go = (uint64_t *)malloc(8u * (n + 1u)), *ro = (uint64_t *)malloc(8u * (n + 1u));
    uint32_t *gi = (uint32_t *)malloc(4u * (size_t)(got_m ? got_m : 1u));
    uint32_t *ri = (uint32_t *)malloc(4u * (size_t)(ref_m ? ref_m : 1u));
    int rc = FENNS_REFERENCE_OUT_OF_MEMORY;
    if (xyz && go && ro && gi && ri) {
        for (size_t i = 0; i <= n; ++i) {
            go[i] = got_offsets[i < nq ? i : nq];
            ro[i] = ref_offsets[i < nq ? i : nq];
        }
        for (uint64_t e = 0; e < got_m; ++e)
            gi[e] = got_indices[e] < nc ? got_indices[e] + nq : UINT32_MAX; /* out of range stays so */
        for (uint64_t e = 0; e < ref_m; ++e)
            ri[e] = ref_indices[e] + nq;
        rc = fenns_reference_compare(xyz, (uint32_t)n, r, ro, ri, n, go, gi, FENNS_REFERENCE_ANY_ORDER, NULL, msg,
                                     msg_size);
    }
    free(xyz);
    free(go);
    free(ro);
    free(gi);
    free(ri);
    return rc;
}
