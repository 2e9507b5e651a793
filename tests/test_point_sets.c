/*
 * Point sets: builds that share one grid (fenns_build_info.grid_source) and
 * searches of one build's particles among another's
 * (fenns_search_info.candidate_scratch), driven by an activation table.
 *
 * Three sets under validation and synchronization validation: a static
 * boundary (a floor and a wall of points) built once, on a grid of its own;
 * a fluid and a few debris particles that move every frame and are built
 * every frame on the boundary's grid. Fluid and debris include NaN
 * particles, particles far outside the boundary's box (clamped into its
 * grid) and particles on top of boundary and fluid particles (distance 0,
 * which a search of another set must not skip as "itself"). The activation
 * table says which set searches which; every active pair's CSR lists, in
 * original order or in the builds' sorted order (queries' and candidates'
 * permutations), must equal the CPU reference of that pair, frame after
 * frame, with the boundary never rebuilt. Also: a user kernel (the density
 * kernel) on fluid queries among boundary candidates; a build on its own
 * grid searched against the boundary is reported (grid_mismatch, every
 * valid query incomplete), never searched; the pass lists name the grid
 * source and the candidates; bad point-set arguments are refused by name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "reference.h"

#include "fenns_kernel_sph_density.spv.h" /* needs stdint.h */

enum { FLUID, BOUNDARY, DEBRIS, SETS };
enum { FRAMES = 3, CAPACITY = 3000, LIST_ENTRIES = 64 * CAPACITY };
#define RADIUS 0.05f

static const char *const set_names[SETS] = {"fluid", "boundary", "debris"};
static const uint32_t set_sizes[SETS] = {3000, 1800, 200};
/* active[q][c]: set q searches set c. */
static const int active[SETS][SETS] = {{1, 1, 0}, {1, 0, 0}, {1, 0, 1}};

typedef struct point_set {
    uint32_t n;
    float *xyz; /* this frame's positions */
    fenns_test_buffer positions, scratch, perm;
} point_set;

typedef struct pair_outputs {
    fenns_test_buffer counts, offsets, indices, perm, status;
} pair_outputs;

static fenns_descriptor_arena arena; /* the test device's (fenns_test_gpu.arena) */

static uint32_t lcg(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}
static float unit(uint32_t *state) { return (float)lcg(state) / 16777216.0f; }

/* Frame f's positions of every set (the boundary's never change). */
static void make_points(point_set *sets, int f) {
    float *b = sets[BOUNDARY].xyz, *fl = sets[FLUID].xyz, *d = sets[DEBRIS].xyz;
    for (uint32_t k = 0; k < 900; ++k) { /* floor z = 0 and wall x = 0, spacing 1/30 */
        float u = (float)(k % 30u) / 30.0f, v = (float)(k / 30u) / 30.0f;
        b[3 * k] = u, b[3 * k + 1] = v, b[3 * k + 2] = 0.0f;
        b[3 * (900 + k)] = 0.0f, b[3 * (900 + k) + 1] = u, b[3 * (900 + k) + 2] = v;
    }
    uint32_t state = 7u + (uint32_t)f;
    for (uint32_t i = 0; i < set_sizes[FLUID]; ++i) {
        fl[3 * i] = 0.6f * unit(&state) + 0.02f * (float)f;
        fl[3 * i + 1] = 0.6f * unit(&state);
        fl[3 * i + 2] = 0.6f * unit(&state);
    }
    for (uint32_t i = 0; i < 20; ++i) memcpy(fl + 3 * (100 + 7 * i), b + 3 * (90 * i + (uint32_t)f), 12); /* on boundary points */
    for (uint32_t i = 0; i < 6; ++i) { /* far outside the boundary's box, in two clusters */
        fl[3 * (2000 + i)] = i < 3 ? 5.0f + 0.01f * (float)i : -3.0f;
        fl[3 * (2000 + i) + 1] = i < 3 ? 0.5f : -3.0f + 0.02f * (float)i;
        fl[3 * (2000 + i) + 2] = 2.0f;
    }
    fl[3 * 2500] = NAN;
    fl[3 * 2501 + 2] = INFINITY;
    for (uint32_t i = 0; i < set_sizes[DEBRIS]; ++i) {
        for (uint32_t a = 0; a < 3; ++a) d[3 * i + a] = 0.8f * unit(&state) - 0.1f;
        if (i % 10u == 3u) memcpy(d + 3 * i, fl + 3 * (i % 20u == 3u ? i : i * 13u), 12); /* on fluid particles (some of the same index) */
    }
    d[3 * 50 + 1] = NAN;
    d[3 * 51] = 4.0f, d[3 * 51 + 1] = 4.0f, d[3 * 51 + 2] = -2.0f; /* outside, near nobody */
}

static int upload_positions(fenns_test_gpu *g, point_set *s) {
    float *vec4 = calloc(s->n ? s->n : 1u, 16u);
    if (!vec4) return 0;
    for (uint32_t i = 0; i < s->n; ++i) memcpy(vec4 + 4 * i, s->xyz + 3 * i, 12);
    int ok = fenns_test_upload(g, &s->positions, 0, vec4, 16u * s->n) == VK_SUCCESS;
    free(vec4);
    return ok;
}

static fenns_build_info build_of(point_set *s, const point_set *grid_source) {
    fenns_build_info b = {0};
    b.descriptors = arena;
    b.particle_count = s->n;
    b.positions = fenns_test_range(&s->positions, 0, VK_WHOLE_SIZE);
    b.scratch = fenns_test_range(&s->scratch, 0, VK_WHOLE_SIZE);
    if (grid_source) b.grid_source = fenns_test_range(&grid_source->scratch, 0, VK_WHOLE_SIZE);
    return b;
}

static fenns_search_info search_of(const point_set *q, const point_set *c, fenns_output_flags outputs) {
    fenns_search_info s = {0};
    s.descriptors = arena;
    s.particle_count = q->n;
    s.positions = fenns_test_range(&q->positions, 0, VK_WHOLE_SIZE);
    s.scratch = fenns_test_range(&q->scratch, 0, VK_WHOLE_SIZE);
    s.outputs = outputs;
    if (c != q) {
        s.candidate_count = c->n;
        s.candidate_scratch = fenns_test_range(&c->scratch, 0, VK_WHOLE_SIZE);
    }
    return s;
}

/* The reference lists of queries q among candidates c (the self-search
 * reference when they are one set). */
static int pair_reference(const point_set *q, const point_set *c, uint64_t **offsets, uint32_t **indices) {
    if (q == c) return fenns_reference_csr(q->xyz, q->n, RADIUS, offsets, indices) == FENNS_REFERENCE_OK;
    return fenns_reference_cross_csr(q->xyz, q->n, c->xyz, c->n, RADIUS, offsets, indices) == FENNS_REFERENCE_OK;
}

/* Compares lists of original indices (queries' lists, entries candidates')
 * with the pair's reference, in any order within a list. */
static int compare_pair(const char *what, const point_set *q, const point_set *c, const uint64_t *offsets,
                        const uint32_t *indices) {
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    char msg[256] = "";
    int ok = pair_reference(q, c, &ro, &ri);
    CHECK(ok, "%s: reference", what);
    if (ok) {
        int differs = q == c ? fenns_reference_compare(q->xyz, q->n, RADIUS, ro, ri, q->n, offsets, indices,
                                                       FENNS_REFERENCE_ANY_ORDER, NULL, msg, sizeof msg)
                             : fenns_reference_compare_cross(q->xyz, q->n, c->xyz, c->n, RADIUS, ro, ri, offsets,
                                                             indices, msg, sizeof msg);
        ok = differs == 0;
        CHECK(ok, "%s: %s", what, msg);
    }
    fenns_reference_free(&ro, &ri);
    return ok;
}

/* One active pair's results of one frame, read back and checked. */
static int check_pair(fenns_test_gpu *g, int f, int qs, int cs, const point_set *sets, const pair_outputs *o,
                      int sorted, int has_status) {
    char what[96];
    snprintf(what, sizeof what, "frame %d, %s among %s%s", f, set_names[qs], set_names[cs], sorted ? ", sorted order" : "");
    const point_set *q = &sets[qs], *c = &sets[cs];
    uint32_t nq = q->n;
    fenns_status st;
    uint64_t *offsets = malloc(8u * ((size_t)nq + 1u)), *orig_offsets = malloc(8u * ((size_t)nq + 1u));
    uint32_t *indices = malloc(4u * LIST_ENTRIES), *orig = malloc(4u * LIST_ENTRIES);
    uint32_t *qperm = malloc(4u * nq), *cperm = malloc(4u * c->n), *len = calloc(nq, 4u);
    int ok = offsets && orig_offsets && indices && orig && qperm && cperm && len &&
             fenns_test_download(g, &o->status, 0, &st, sizeof st) == VK_SUCCESS &&
             fenns_test_download(g, &o->offsets, 0, offsets, 8u * ((size_t)nq + 1u)) == VK_SUCCESS;
    if (ok) ok = offsets[nq] <= LIST_ENTRIES &&
                 fenns_test_download(g, &o->indices, 0, indices, 4u * (offsets[nq] ? offsets[nq] : 1u)) == VK_SUCCESS;
    if (ok && sorted)
        ok = fenns_test_download(g, &o->perm, 0, qperm, 4u * nq) == VK_SUCCESS &&
             fenns_test_download(g, &c->perm, 0, cperm, 4u * c->n) == VK_SUCCESS;
    CHECK(ok, "%s: host memory, download, or lists past their %u entries", what, (unsigned)LIST_ENTRIES);
    if (ok && has_status) {
        CHECK(st.grid_mismatch == 0 && st.incomplete_queries == 0 && st.list_overflow == 0 &&
                  st.total_neighbors == offsets[nq] && st.particle_count == nq,
              "%s: status mismatch %u, incomplete %u, overflow %u, total %llu (offsets %llu), count %u", what,
              st.grid_mismatch, st.incomplete_queries, st.list_overflow, (unsigned long long)st.total_neighbors,
              (unsigned long long)offsets[nq], st.particle_count);
    }
    if (ok && sorted) { /* to original order: list k is query qperm[k]'s, entry e candidate cperm[e] */
        for (uint32_t k = 0; k < nq && ok; ++k) ok = qperm[k] < nq && len[qperm[k]] == 0u;
        for (uint32_t k = 0; k < nq && ok; ++k) len[qperm[k]] = (uint32_t)(offsets[k + 1] - offsets[k]);
        orig_offsets[0] = 0;
        for (uint32_t i = 0; i < nq && ok; ++i) orig_offsets[i + 1] = orig_offsets[i] + len[i];
        for (uint32_t k = 0; k < nq && ok; ++k)
            for (uint64_t e = offsets[k]; e < offsets[k + 1] && ok; ++e) {
                ok = indices[e] < c->n;
                if (ok) orig[orig_offsets[qperm[k]] + (e - offsets[k])] = cperm[indices[e]];
            }
        CHECK(ok, "%s: the permutations or sorted entries are out of range", what);
    }
    if (ok && !failures) {
        ok = compare_pair(what, q, c, sorted ? orig_offsets : offsets, sorted ? orig : indices);
        if (ok) printf("ok   %s: %llu entries\n", what, (unsigned long long)offsets[nq]);
    }
    free(offsets);
    free(orig_offsets);
    free(indices);
    free(orig);
    free(qperm);
    free(cperm);
    free(len);
    return ok && failures == 0;
}

static int make_buffers(fenns_test_gpu *g, fenns_pipeline pipe, point_set *sets, pair_outputs *outs) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    int ok = 1;
    for (int s = 0; s < SETS && ok; ++s) {
        fenns_memory_requirements req;
        fenns_pipeline_get_scratch_requirements(pipe, sets[s].n, &req);
        ok = fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &sets[s].scratch) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 16u * sets[s].n, storage, FENNS_TEST_DEVICE_LOCAL, &sets[s].positions) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 4u * sets[s].n, storage, FENNS_TEST_DEVICE_LOCAL, &sets[s].perm) == VK_SUCCESS;
    }
    for (int k = 0; k < SETS * SETS && ok; ++k) {
        if (!active[k / SETS][k % SETS]) continue;
        uint32_t nq = sets[k / SETS].n;
        pair_outputs *o = &outs[k];
        ok = fenns_test_buffer_create(g, 4u * nq, storage, FENNS_TEST_DEVICE_LOCAL, &o->counts) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 8u * (nq + 1u), storage, FENNS_TEST_DEVICE_LOCAL, &o->offsets) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 4u * LIST_ENTRIES, storage, FENNS_TEST_DEVICE_LOCAL, &o->indices) == VK_SUCCESS &&
             fenns_test_buffer_create(g, 4u * nq, storage, FENNS_TEST_DEVICE_LOCAL, &o->perm) == VK_SUCCESS &&
             fenns_test_buffer_create(g, sizeof(fenns_status), 0, FENNS_TEST_DEVICE_LOCAL, &o->status) == VK_SUCCESS;
    }
    return ok;
}

static void copy_status(VkCommandBuffer cmd, fenns_pipeline pipe, const point_set *q, const fenns_test_buffer *to) {
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(pipe, q->n, &layout);
    VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, q->scratch.buffer, to->buffer, 1, &status);
}

static void copy_permutation(VkCommandBuffer cmd, fenns_pipeline pipe, const point_set *s) {
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(pipe, s->n, &layout);
    VkBufferCopy perm = {layout.permutation_offset, 0, 4u * (VkDeviceSize)s->n};
    vkCmdCopyBuffer(cmd, s->scratch.buffer, s->perm.buffer, 1, &perm);
}

/* The last set that query set q searches (its status is that search's). */
static int last_active(int q) {
    int last = -1;
    for (int c = 0; c < SETS; ++c)
        if (active[q][c]) last = c;
    return last;
}

/* Frames: the boundary built once (frame 0) on its own grid, fluid and
 * debris built each frame on the boundary's; then every active pair, by
 * fenns_cmd_search_point_sets (frames 0 and 2), or one fenns_cmd_search
 * each with the status copied after each (frame 1, in sorted order). */
static int run_frames(fenns_test_gpu *g, fenns_pipeline pipe, point_set *sets, pair_outputs *outs) {
    int ok = 1;
    for (int f = 0; f < FRAMES && ok; ++f) {
        make_points(sets, f);
        for (int s = 0; s < SETS && ok; ++s)
            if (s != BOUNDARY || f == 0) ok = upload_positions(g, &sets[s]);
        VkCommandBuffer cmd;
        if (!ok || fenns_test_begin(g, &cmd) != VK_SUCCESS) return 0;
        if (f == 0) {
            fenns_build_info b = build_of(&sets[BOUNDARY], NULL);
            b.grid_particle_count = set_sizes[FLUID]; /* cells for the fluid's density */
            fenns_cmd_build(cmd, pipe, &b);
            fenns_cmd_build_to_search_barrier(cmd, pipe);
        }
        for (int s = 0; s < SETS; ++s) {
            if (s == BOUNDARY) continue;
            fenns_build_info b = build_of(&sets[s], &sets[BOUNDARY]);
            fenns_cmd_build(cmd, pipe, &b);
        }
        fenns_cmd_build_to_search_barrier(cmd, pipe);
        const int sorted = f == 1;
        for (int s = 0; s < SETS; ++s) copy_permutation(cmd, pipe, &sets[s]);
        fenns_search_info searches[SETS * SETS];
        fenns_point_set table_sets[SETS];
        uint8_t table[SETS * SETS];
        for (int k = 0; k < SETS * SETS; ++k) {
            int qs = k / SETS, cs = k % SETS;
            table[k] = (uint8_t)active[qs][cs];
            searches[k] = search_of(&sets[qs], &sets[cs], FENNS_OUTPUT_CSR | (sorted ? FENNS_OUTPUT_SORTED_ORDER : 0u));
            searches[k].counts = fenns_test_range(&outs[k].counts, 0, VK_WHOLE_SIZE);
            searches[k].offsets = fenns_test_range(&outs[k].offsets, 0, VK_WHOLE_SIZE);
            searches[k].indices = fenns_test_range(&outs[k].indices, 0, VK_WHOLE_SIZE);
            if (sorted) searches[k].sorted_to_original = fenns_test_range(&outs[k].perm, 0, VK_WHOLE_SIZE);
            if (!active[qs][cs] || !sorted) continue;
            fenns_cmd_search(cmd, pipe, &searches[k]);
            fenns_test_cmd_barrier(cmd); /* searches of one query set share its status */
            copy_status(cmd, pipe, &sets[qs], &outs[k].status);
            fenns_test_cmd_barrier(cmd);
        }
        if (!sorted) { /* the table: the candidate fields come from the sets */
            for (int s = 0; s < SETS; ++s) {
                fenns_build_info b = build_of(&sets[s], NULL);
                table_sets[s] = (fenns_point_set){b.particle_count, b.positions, b.scratch};
            }
            for (int k = 0; k < SETS * SETS; ++k) searches[k].candidate_scratch = (fenns_buffer_range){0};
            fenns_point_sets_search_info psi = {SETS, table_sets, table, searches};
            fenns_cmd_search_point_sets(cmd, pipe, &psi);
            fenns_test_cmd_barrier(cmd);
            for (int q = 0; q < SETS; ++q) copy_status(cmd, pipe, &sets[q], &outs[q * SETS + last_active(q)].status);
        }
        ok = fenns_test_submit(g, cmd) == VK_SUCCESS;
        CHECK(ok, "frame %d: submit", f);
        for (int k = 0; k < SETS * SETS && ok; ++k)
            if (active[k / SETS][k % SETS])
                ok = check_pair(g, f, k / SETS, k % SETS, sets, &outs[k], sorted, sorted || k % SETS == last_active(k / SETS));
    }
    return ok;
}

/* The density kernel (which returns (rho, neighbours, 0, 0)) on fluid
 * queries among boundary candidates: each fluid particle's neighbour count
 * is its reference count among the boundary's (sets hold the last frame). */
static int run_kernel(fenns_test_gpu *g, fenns_pipeline pipe, point_set *sets) {
    const point_set *q = &sets[FLUID], *c = &sets[BOUNDARY];
    fenns_test_buffer values = {0};
    float *out = malloc(16u * q->n);
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    int ok = out && pair_reference(q, c, &ro, &ri) &&
             fenns_test_buffer_create(g, 16u * q->n, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL,
                                      &values) == VK_SUCCESS;
    VkCommandBuffer cmd;
    if (ok && fenns_test_begin(g, &cmd) == VK_SUCCESS) {
        fenns_search_info si = search_of(q, c, FENNS_OUTPUT_KERNEL);
        si.kernel_output = fenns_test_range(&values, 0, VK_WHOLE_SIZE);
        fenns_cmd_search(cmd, pipe, &si);
        fenns_test_cmd_barrier(cmd);
        ok = fenns_test_submit(g, cmd) == VK_SUCCESS && fenns_test_download(g, &values, 0, out, 16u * q->n) == VK_SUCCESS;
    } else {
        ok = 0;
    }
    CHECK(ok, "kernel: buffers, reference or run");
    uint32_t bad = 0;
    for (uint32_t i = 0; ok && i < q->n; ++i)
        if (out[4 * i + 1] != (float)(ro[i + 1] - ro[i]) && bad++ == 0)
            CHECK(0, "kernel, fluid among boundary: particle %u saw %g neighbours, the reference %llu", i,
                  (double)out[4 * i + 1], (unsigned long long)(ro[i + 1] - ro[i]));
    if (ok && !bad) printf("ok   kernel search, fluid among boundary: %llu neighbours\n", (unsigned long long)ro[q->n]);
    fenns_test_buffer_destroy(g, &values);
    free(out);
    fenns_reference_free(&ro, &ri);
    return ok && !bad;
}

/* The fluid built on a grid of its own (no grid source), searched among the
 * boundary: reported, never searched, each valid query counted once in
 * incomplete_queries whatever the outputs: counts, CSR lists (a counting
 * pass, then a fill) and fixed lists, in original and in sorted order (with
 * FENNS_LIST_WINDOW_LOG2 the lists are filled in windows, each counting the
 * queries whose lists start in it). */
static int run_mismatch(fenns_test_gpu *g, fenns_pipeline pipe, point_set *sets, pair_outputs *o) {
    static const struct {
        const char *name;
        fenns_output_flags outputs;
    } cases[] = {{"counts", FENNS_OUTPUT_COUNTS},
                 {"CSR lists", FENNS_OUTPUT_CSR},
                 {"fixed lists", FENNS_OUTPUT_FIXED},
                 {"CSR lists in sorted order", FENNS_OUTPUT_CSR | FENNS_OUTPUT_SORTED_ORDER},
                 {"fixed lists in sorted order", FENNS_OUTPUT_FIXED | FENNS_OUTPUT_SORTED_ORDER}};
    point_set *q = &sets[FLUID];
    uint32_t valid = 0;
    for (uint32_t i = 0; i < q->n; ++i)
        valid += isfinite(q->xyz[3 * i]) && isfinite(q->xyz[3 * i + 1]) && isfinite(q->xyz[3 * i + 2]) ? 1u : 0u;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        VkCommandBuffer cmd;
        if (fenns_test_begin(g, &cmd) != VK_SUCCESS) return 0;
        fenns_build_info b = build_of(q, NULL);
        fenns_cmd_build(cmd, pipe, &b);
        fenns_cmd_build_to_search_barrier(cmd, pipe);
        fenns_search_info si = search_of(q, &sets[BOUNDARY], cases[k].outputs);
        si.counts = fenns_test_range(&o->counts, 0, VK_WHOLE_SIZE);
        si.offsets = fenns_test_range(&o->offsets, 0, VK_WHOLE_SIZE);
        /* CSR: a few windows of 2^8 entries; fixed: 12000 entries, 47 windows */
        si.fixed_capacity = 4u;
        VkDeviceSize bytes = cases[k].outputs & FENNS_OUTPUT_FIXED ? 4u * si.fixed_capacity * q->n : 4u * 1024u;
        si.indices = fenns_test_range(&o->indices, 0, bytes);
        si.sorted_to_original = fenns_test_range(&o->perm, 0, VK_WHOLE_SIZE);
        fenns_cmd_search(cmd, pipe, &si);
        fenns_test_cmd_barrier(cmd);
        copy_status(cmd, pipe, q, &o->status);
        fenns_status st;
        int ok = fenns_test_submit(g, cmd) == VK_SUCCESS &&
                 fenns_test_download(g, &o->status, 0, &st, sizeof st) == VK_SUCCESS;
        CHECK(ok && st.grid_mismatch == 1 && st.incomplete_queries == valid,
              "%s: a build on its own grid searched among the boundary: grid_mismatch %u, incomplete %u (expected 1, %u)",
              cases[k].name, ok ? st.grid_mismatch : 0u, ok ? st.incomplete_queries : 0u, valid);
        if (ok && st.grid_mismatch == 1 && st.incomplete_queries == valid)
            printf("ok   %s: a build on another grid is reported: grid_mismatch, %u queries incomplete\n", cases[k].name,
                   valid);
        if (!ok) return 0;
    }
    return failures == 0;
}

/* grid_particle_count sizes the cells: the boundary's grid for 40 times
 * its particles has more coarse cells than for its own. */
static int run_grid_particle_count(fenns_test_gpu *g, fenns_pipeline pipe, point_set *sets, pair_outputs *o) {
    uint32_t cells[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        VkCommandBuffer cmd;
        if (fenns_test_begin(g, &cmd) != VK_SUCCESS) return 0;
        fenns_build_info b = build_of(&sets[BOUNDARY], NULL);
        b.grid_particle_count = k ? 40u * set_sizes[BOUNDARY] : 0u;
        fenns_cmd_build(cmd, pipe, &b);
        fenns_test_cmd_barrier(cmd);
        copy_status(cmd, pipe, &sets[BOUNDARY], &o->status);
        fenns_status st;
        if (fenns_test_submit(g, cmd) != VK_SUCCESS || fenns_test_download(g, &o->status, 0, &st, sizeof st) != VK_SUCCESS)
            return 0;
        cells[k] = st.coarse_dims[0] * st.coarse_dims[1] * st.coarse_dims[2] * st.fine_split * st.fine_split * st.fine_split;
    }
    CHECK(cells[1] > cells[0], "grid_particle_count: %u fine cells for 40x the particles, %u for its own", cells[1],
          cells[0]);
    if (cells[1] > cells[0]) printf("ok   grid_particle_count: %u fine cells instead of %u\n", cells[1], cells[0]);
    return failures == 0;
}

/* Pass lists name the grid source and the candidates; bad arguments are
 * refused by name. */
static int run_arguments(fenns_test_gpu *g, fenns_pipeline pipe, fenns_pipeline paper, point_set *sets,
                         pair_outputs *o) {
    fenns_pass_info passes[FENNS_MAX_PASSES];
    fenns_build_info b = build_of(&sets[FLUID], &sets[BOUNDARY]);
    uint32_t count = fenns_get_build_passes(pipe, &b, passes), sources = 0;
    for (uint32_t k = 0; k < count; ++k) {
        CHECK(strcmp(passes[k].name, "domain reduce") != 0, "a build on a grid source still reduces its domain");
        for (uint32_t a = 0; a < passes[k].access_count; ++a)
            if (passes[k].accesses[a].resource == FENNS_RESOURCE_GRID_SOURCE) {
                CHECK(!strcmp(passes[k].name, "grid setup") && passes[k].accesses[a].range.buffer == sets[BOUNDARY].scratch.buffer &&
                          passes[k].accesses[a].accesses == VK_ACCESS_SHADER_READ_BIT,
                      "pass %s declares the grid source wrongly", passes[k].name);
                ++sources;
            }
    }
    CHECK(sources == 1, "%u passes read the grid source, expected grid setup", sources);
    fenns_search_info si = search_of(&sets[FLUID], &sets[BOUNDARY], FENNS_OUTPUT_CSR);
    si.counts = fenns_test_range(&o->counts, 0, VK_WHOLE_SIZE);
    si.offsets = fenns_test_range(&o->offsets, 0, VK_WHOLE_SIZE);
    si.indices = fenns_test_range(&o->indices, 0, VK_WHOLE_SIZE);
    count = fenns_get_search_passes(pipe, &si, passes);
    uint32_t readers = 0;
    for (uint32_t k = 0; k < count; ++k)
        for (uint32_t a = 0; a < passes[k].access_count; ++a)
            if (passes[k].accesses[a].resource == FENNS_RESOURCE_CANDIDATE_SCRATCH) {
                CHECK(!strncmp(passes[k].name, "search (", 8) && passes[k].accesses[a].accesses == VK_ACCESS_SHADER_READ_BIT,
                      "pass %s declares the candidates wrongly", passes[k].name);
                ++readers;
            }
    CHECK(readers == 2, "%u passes read the candidates, expected the counting and the filling search", readers);

    g->quiet = 1;
    g->error_messages = 0;
    uint32_t listed = 0, tries = 0;
    fenns_build_info bad = b;
    bad.radius = 0.1f; /* the source's radius is taken */
    listed += fenns_get_build_passes(pipe, &bad, passes), ++tries;
    bad = b;
    bad.grid_source = bad.scratch; /* its own scratch */
    listed += fenns_get_build_passes(pipe, &bad, passes), ++tries;
    bad = b;
    bad.grid_source.range = 64u; /* not a scratch */
    listed += fenns_get_build_passes(pipe, &bad, passes), ++tries;
    listed += fenns_get_build_passes(paper, &b, passes), ++tries; /* fenns-paper */
    fenns_search_info bad_search = si;
    bad_search.candidate_count = CAPACITY + 1u;
    listed += fenns_get_search_passes(pipe, &bad_search, passes), ++tries;
    bad_search = si;
    bad_search.candidate_scratch.range = 256u; /* smaller than the candidates' scratch */
    listed += fenns_get_search_passes(pipe, &bad_search, passes), ++tries;
    listed += fenns_get_search_passes(paper, &si, passes), ++tries; /* fenns-paper */
    fenns_point_sets_search_info no_sets = {SETS, NULL, NULL, NULL};
    fenns_cmd_search_point_sets(VK_NULL_HANDLE, pipe, &no_sets), ++tries; /* logged, nothing recorded */
    uint32_t errors = g->error_messages;
    g->error_messages = 0;
    g->quiet = 0;
    CHECK(listed == 0 && errors == tries, "bad point-set arguments listed %u passes and logged %u errors (expected 0, %u)",
          listed, errors, tries);
    return failures == 0;
}

int main(void) {
    fenns_test_gpu g;
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    arena = g.arena;
    fenns_kernel_info kernel = {fenns_kernel_sph_density, sizeof fenns_kernel_sph_density, VK_NULL_HANDLE};
    fenns_pipeline_create_info pi = {0};
    pi.radius = RADIUS;
    pi.max_particles = CAPACITY;
    pi.kernel = &kernel;
    fenns_pipeline pipe = NULL, paper = NULL;
    point_set sets[SETS];
    pair_outputs outs[SETS * SETS];
    memset(sets, 0, sizeof sets);
    memset(outs, 0, sizeof outs);
    int ok = fenns_pipeline_create(g.context, &pi, &pipe) == FENNS_SUCCESS;
    pi.method = FENNS_METHOD_FENNS_PAPER;
    pi.kernel = NULL;
    ok = ok && fenns_pipeline_create(g.context, &pi, &paper) == FENNS_SUCCESS;
    for (int s = 0; s < SETS && ok; ++s) {
        sets[s].n = set_sizes[s];
        ok = (sets[s].xyz = malloc(12u * set_sizes[s])) != NULL;
    }
    ok = ok && make_buffers(&g, pipe, sets, outs);
    CHECK(ok, "pipelines, buffers");
    if (ok) ok = run_frames(&g, pipe, sets, outs);
    if (ok) ok = run_kernel(&g, pipe, sets);
    if (ok) ok = run_mismatch(&g, pipe, sets, &outs[FLUID * SETS + BOUNDARY]);
    if (ok) ok = run_grid_particle_count(&g, pipe, sets, &outs[FLUID * SETS + BOUNDARY]);
    if (ok) ok = run_arguments(&g, pipe, paper, sets, &outs[FLUID * SETS + BOUNDARY]);
    for (int s = 0; s < SETS; ++s) {
        fenns_test_buffer_destroy(&g, &sets[s].positions);
        fenns_test_buffer_destroy(&g, &sets[s].scratch);
        fenns_test_buffer_destroy(&g, &sets[s].perm);
        free(sets[s].xyz);
    }
    for (int k = 0; k < SETS * SETS; ++k) {
        fenns_test_buffer_destroy(&g, &outs[k].counts);
        fenns_test_buffer_destroy(&g, &outs[k].offsets);
        fenns_test_buffer_destroy(&g, &outs[k].indices);
        fenns_test_buffer_destroy(&g, &outs[k].perm);
        fenns_test_buffer_destroy(&g, &outs[k].status);
    }
    fenns_pipeline_destroy(pipe);
    fenns_pipeline_destroy(paper);
    uint32_t problems = fenns_test_gpu_close(&g);
    return ok && problems == 0 && failures == 0 ? 0 : 1;
}
