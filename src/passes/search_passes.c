/* The search passes: the local-grid search (paper Algorithms 3-4 or the
 * query-driven default), the CSR offsets scan and the list sort. */
#include <stddef.h>

#include "passes.h"

/* The CSR offsets scan in one dispatch where the plan says so. */
static fenns_scan_lookback offsets_scan_lookback(fenns_pipeline p, const fenns_frame *f) {
    return fenns_plan_scan_looks_back(&p->plan, (uint64_t)f->n + 1u) ? FENNS_SCAN_LOOKBACK_SEARCH
                                                                    : FENNS_SCAN_TWO_DISPATCHES;
}

void fenns__pass_reset_status(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, int counts_ready,
                              int offsets_scan) {
    /* total_neighbors (u64), list_overflow and max_neighbors belong to one
     * search; with the counts ready, the total and the longest list are the
     * counting search's (the fill rewrites the total from the offsets).
     * A dispatch of reset_status.comp: the barrier after buffer fills and a
     * copy cost every search more (run KI). */
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.count = counts_ready ? 1u : 0u;
    /* And the offsets scan's look-back states, where it looks back: at
     * most FENNS_SCAN_LOOKBACK_BLOCKS_MAX + 1 of them, so one workgroup
     * (its first invocation also clearing the status). */
    int looks_back = offsets_scan && offsets_scan_lookback(p, f) != FENNS_SCAN_TWO_DISPATCHES;
    fenns__bind_lookback_states(&b, p, f, &pc, looks_back, (uint64_t)f->n + 1u);
    fenns__dispatch(cmd, p, FENNS_PASS_reset_status, &b, &pc, 1u);
}

/* Whether the indices range fits the first binding (the one-store variants). */
static int lists_fit_one_binding(fenns_pipeline p, const fenns_outputs *o) {
    return fenns_plan_lists_one_binding(&p->plan, o->indices.range);
}

/* The lists' bindings: chunks of 2^chunk_shift4 entries, each where the
 * chunked variants address it, the first covering the whole range where
 * the lists fit one binding (the one-store variants address only the
 * first). A pass may be chunked though its lists fit one binding (windows,
 * or sorted particles past one binding), so the other chunks stay where
 * they are. One binding up to maxStorageBufferRange rather than the
 * chunks' power of two, so that lists of 2 to 4 GiB skip the chunked
 * variants' per-store choice of binding and take the fixed grids'
 * variants: H200, sph50 16M (3.3 GB of lists) CSR fill 12.49 -> 12.12 ms,
 * in frame order 11.65 -> 9.13 (run QA; the same 4M fill through 256 MiB
 * chunks took 3.16 ms against 2.49). */
static void bind_indices(fenns_bindings *b, fenns_pipeline p, const fenns_buffer_range *indices) {
    fenns__bind_chunks(b, FENNS_BINDING_INDICES, indices->buffer, indices->offset, indices->range, p->plan.chunk_shift4,
                       4, FENNS_INDEX_CHUNKS, fenns_plan_lists_one_binding(&p->plan, indices->range));
}

static void bind_outputs(fenns_bindings *b, fenns_pipeline p, const fenns_outputs *o, uint32_t mode) {
    fenns__bind(b, FENNS_BINDING_COUNTS, o->counts.buffer, o->counts.offset, o->counts.range);
    /* In modes that do not touch offsets or indices, the counts range stands
     * in: the shader never reaches them, but pushed descriptors must be valid. */
    const fenns_buffer_range *offsets = mode == FENNS_MODE_CSR ? &o->offsets : &o->counts;
    const fenns_buffer_range *indices = mode == FENNS_MODE_COUNT ? &o->counts : &o->indices;
    fenns__bind(b, FENNS_BINDING_OFFSETS, offsets->buffer, offsets->offset, offsets->range);
    bind_indices(b, p, indices);
}

/* What every search variant reads from the build f (its queries) and the
 * build c (its candidates: f itself, or another point set's). */
static void bind_build(fenns_bindings *b, fenns_pipeline p, const fenns_frame *f, const fenns_frame *c,
                       fenns_push *pc) {
    fenns__bind_sorted(b, p, f);
    fenns__bind_region(b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind_region(b, f, FENNS_BINDING_CELLS, f->layout.cells);
    fenns__bind_region(b, f, FENNS_BINDING_PERM, f->layout.perm);
    fenns__bind_chunked(b, FENNS_BINDING_CANDIDATE_SORTED, c->scratch.buffer, c->scratch.offset + c->layout.sorted.offset,
                        c->layout.sorted.size, p->plan.chunk_shift16, 16, FENNS_CHUNKS);
    fenns__bind_region(b, c, FENNS_BINDING_CANDIDATE_CELLS, c->layout.cells);
    fenns__bind_region(b, c, FENNS_BINDING_CANDIDATE_PARAMS, c->layout.params);
    pc->point_set = c->scratch.buffer != f->scratch.buffer || c->scratch.offset != f->scratch.offset;
}

/* Whether the sorted particles of both builds fit one binding each (the
 * one-load variants). */
static int sorted_narrow(fenns_pipeline p, const fenns_frame *f, const fenns_frame *c) {
    uint64_t most = f->n > c->n ? f->n : c->n;
    return most <= (UINT64_C(1) << p->plan.chunk_shift16);
}

/* The variant of a fenns search pass for the grid of reach 1 (local grids
 * of 7^3 cells) or 2 (9^3; fenns__fixed_reach), or the pass itself where it
 * has none. */
static fenns_pass fixed_grid_variant(fenns_pass pass, uint32_t reach) {
    switch (pass) {
    case FENNS_PASS_search: return reach == 1u ? FENNS_PASS_search_local7 : FENNS_PASS_search_local9;
    case FENNS_PASS_search_windowed:
        return reach == 1u ? FENNS_PASS_search_windowed_local7 : FENNS_PASS_search_windowed_local9;
    case FENNS_PASS_search_count: return reach == 1u ? FENNS_PASS_search_count_local7 : FENNS_PASS_search_count_local9;
    case FENNS_PASS_search_kernel: return reach == 1u ? FENNS_PASS_search_kernel_local7 : FENNS_PASS_search_kernel_local9;
    default: return pass;
    }
}

/* One workgroup per work item, as the build's last pass counted them.
 * fenns' narrow and kernel searches are three dispatches (the general
 * search and its variants for the grids of reach 1 and 2), the search work
 * pass having given the build's workgroups to one of them and none to the
 * others; the wide ones, other methods' searches and fenns' searches of up
 * to plan.one_search_dispatch_max particles, one (of the general search,
 * with every work item). Barriers between the three, since they write the
 * same outputs as far as validation can tell: each waits on an empty
 * dispatch, or on the one the barrier after the search would wait on
 * anyway. */
#define PARAMS_AT_(field) (f->scratch.offset + f->layout.params.offset + offsetof(fenns_gpu_params, field))
/* `window`: the dispatches window_items.comp wrote for a window's run of
 * work items (the fill adds the first's number to its workgroups'). */
static void dispatch_search_of(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, fenns_pass pass,
                               const fenns_bindings *b, fenns_push *pc, int window) {
    VkBuffer args = f->scratch.buffer;
    if (p->plan.method != FENNS_METHOD_FENNS || fixed_grid_variant(pass, 1u) == pass ||
        f->n <= p->plan.one_search_dispatch_max) {
        fenns__dispatch_indirect(cmd, p, pass, b, pc, args,
                                 window ? PARAMS_AT_(window_dispatch_x) : PARAMS_AT_(dispatch_x));
        return;
    }
    fenns__dispatch_indirect(cmd, p, pass, b, pc, args,
                             window ? PARAMS_AT_(window_general_dispatch_x) : PARAMS_AT_(general_dispatch_x));
    fenns__barrier(cmd, p);
    fenns__dispatch_indirect(cmd, p, fixed_grid_variant(pass, 1u), b, pc, args,
                             window ? PARAMS_AT_(window_local7_dispatch_x) : PARAMS_AT_(local7_dispatch_x));
    fenns__barrier(cmd, p);
    fenns__dispatch_indirect(cmd, p, fixed_grid_variant(pass, 2u), b, pc, args,
                             window ? PARAMS_AT_(window_local9_dispatch_x) : PARAMS_AT_(local9_dispatch_x));
}
#undef PARAMS_AT_
static void dispatch_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, fenns_pass pass,
                            const fenns_bindings *b, fenns_push *pc) {
    dispatch_search_of(cmd, p, f, pass, b, pc, 0);
}

/* A counts search's total, from its counts (count_total.comp), after a
 * barrier: its subgroups post none (search_common.glsl's add_total). */
static void count_total(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o) {
    if (!f->n) return;
    fenns__barrier(cmd, p);
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind(&b, FENNS_BINDING_COUNTS, o->counts.buffer, o->counts.offset, o->counts.range);
    fenns_push pc = fenns__push_base(p, f->n);
    uint64_t per_group = (uint64_t)p->plan.workgroup_size * FENNS_TOTAL_ITEMS;
    fenns__dispatch(cmd, p, FENNS_PASS_count_total, &b, &pc, (f->n + per_group - 1u) / per_group);
}

/* Whether a CSR search's counting pass (pass search_count) and its fill
 * (search) split each query over the same parts, each a dispatch of the
 * general variant alone: then the counting pass leaves each part's first
 * list index (the scratch's part_firsts) and the fill's parts write from
 * there (local_grid_fenns.glsl's finish_query_lanes and search_query). */
static int part_firsts(fenns_pipeline p, const fenns_frame *f, fenns_pass pass) {
    return p->plan.method == FENNS_METHOD_FENNS && p->plan.fill_lanes > 1u &&
           p->plan.fill_lanes == p->plan.query_lanes && f->n <= p->plan.one_search_dispatch_max &&
           (pass == FENNS_PASS_search_count || pass == FENNS_PASS_search);
}

/* window_items.comp before a window of fenns' windowed fill: the window's
 * run of work items and the fill's dispatches of it, in one step in sorted
 * order, in three in original order (FENNS_WINDOW_*). */
static void window_items(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_bindings *b,
                         const fenns_push *pc) {
    fenns_push items = *pc;
    items.count = p->plan.workgroup_size; /* the fill's chunk of queries (its query_slots) */
    if (pc->sorted_order) {
        items.count_in = FENNS_WINDOW_RUN;
        fenns__dispatch(cmd, p, FENNS_PASS_window_items, b, &items, 1);
    } else {
        uint64_t chunk = (uint64_t)p->plan.workgroup_size * FENNS_WINDOW_SPAN_ITEMS;
        items.count_in = FENNS_WINDOW_OUTPUTS;
        fenns__dispatch(cmd, p, FENNS_PASS_window_items, b, &items, 1);
        fenns__barrier(cmd, p);
        items.count_in = FENNS_WINDOW_SPAN;
        fenns__dispatch(cmd, p, FENNS_PASS_window_items, b, &items, (f->n + chunk - 1u) / chunk);
        fenns__barrier(cmd, p);
        items.count_in = FENNS_WINDOW_SPAN_RUN;
        fenns__dispatch(cmd, p, FENNS_PASS_window_items, b, &items, 1);
    }
    fenns__barrier(cmd, p);
}

/* Dispatches of a fill in windows of `window` entries (0: one). */
static uint64_t windows_of(uint64_t entries, uint64_t window) { return window ? (entries + window - 1u) / window : 1u; }

void fenns__pass_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_frame *c,
                        const fenns_outputs *o, uint32_t mode, int own_counts, int same_search) {
    fenns_bindings b = {.arena = f->arena};
    fenns_push pc = fenns__push_base(p, f->n);
    bind_build(&b, p, f, c, &pc);
    bind_outputs(&b, p, o, mode);
    /* fenns' parts' first list indices (none: the status block stands in;
     * the shader reads them only where pc.part_firsts says). */
    fenns__bind_region(&b, f, FENNS_BINDING_PART_FIRSTS,
                       f->layout.part_firsts.size ? f->layout.part_firsts : f->layout.params);
    pc.mode = mode;
    pc.sorted_order = o->sorted_order;
    /* CSR: the lists were sized by this search's counting pass; COUNT: this
     * is that pass (search_common.glsl's add_total). */
    pc.count = own_counts ? 1u : 0u;
    VkDeviceSize entries = o->indices.range / 4u;
    pc.capacity = mode == FENNS_MODE_FIXED ? o->fixed_capacity : mode == FENNS_MODE_CSR ? (uint32_t)entries : 0u;
    pc.capacity_hi = mode == FENNS_MODE_CSR ? (uint32_t)(entries >> 32) : 0u;
    /* Lists that one binding does not hold are written in windows, one
     * dispatch each writing the lists that start in its window
     * (in_list_window; FENNS_LIST_WINDOW_SHIFT):
     * - with sorted particles in one binding, the windowed one-store
     *   searches, each window's lists bound as one binding from its first
     *   entry (fenns_plan_list_window_entries: a window leaves room for the
     *   longest list a query can have). In sorted order a workgroup's lists
     *   lie side by side, so a workgroup whose window it is not leaves before
     *   it builds its grid (window_holds_lists). In original order each
     *   window walks every query, so they take windows only where the
     *   chunked searches would take as many (a GPU whose binding holds
     *   about 2^list_window_shift entries; not lavapipe's 2^25).
     * - else the chunked searches, whose stores pick their binding, in
     *   windows of 2^list_window_shift entries in original order (to bound
     *   the stores' spread) and in one dispatch in sorted order.
     * H200, sph50 2^26 (3.3 * 10^9 entries, four windows), the chunked
     * fill against the windowed one: sorted order 46.28 -> 40.22 ms, random
     * order 140.67 -> 113.76 (run RB). A window cost a sorted-order fill
     * 1.32 ms more (its workgroups' early exits: 2^29-entry windows 44.17,
     * 2^28 52.07, 2^27 67.91; run RC) until fenns launched only the
     * window's own items (below); it costs an original-order fill a walk.
     * FENNS_LIST_WINDOW_LOG2 makes windows small (the tests). */
    uint64_t list_entries = mode == FENNS_MODE_CSR     ? entries
                            : mode == FENNS_MODE_FIXED ? (uint64_t)f->n * o->fixed_capacity
                                                       : 0u;
    uint32_t shift = p->plan.list_window_shift;
    int narrow = sorted_narrow(p, f, c);
    /* The most entries a list can have: every candidate, or the fixed capacity. */
    uint64_t longest = mode == FENNS_MODE_FIXED ? o->fixed_capacity : c->n;
    uint64_t window = 0; /* entries a window; 0: one dispatch */
    fenns_pass pass = narrow ? FENNS_PASS_search_count : FENNS_PASS_search_count_wide;
    if (mode != FENNS_MODE_COUNT) {
        /* The chunked searches' windows (original order), and the windowed ones'. */
        int one_window = !shift || list_entries <= UINT64_C(1) << shift;
        uint64_t chunked_window = o->sorted_order || one_window ? 0u : UINT64_C(1) << shift;
        uint64_t windowed = narrow ? fenns_plan_list_window_entries(&p->plan, longest) : 0u;
        if (narrow && lists_fit_one_binding(p, o) && one_window) {
            pass = FENNS_PASS_search;
        } else if (windowed && (o->sorted_order ||
                                windows_of(list_entries, windowed) <= windows_of(list_entries, chunked_window))) {
            pass = FENNS_PASS_search_windowed;
            window = windowed;
        } else {
            pass = FENNS_PASS_search_wide;
            window = chunked_window;
        }
    }
    pc.part_firsts = same_search && part_firsts(p, f, pass) ? 1u : 0u;
    if (!window) {
        dispatch_search(cmd, p, f, pass, &b, &pc);
        if (mode == FENNS_MODE_COUNT && !own_counts) count_total(cmd, p, f, o);
        return;
    }
    pc.list_window_entries = (uint32_t)window;
    /* fenns' windowed fill: each window launches only the run of work items
     * that holds its lists' queries, which window_items.comp finds before
     * the window's dispatch (the fill's search_work_item adds the run's
     * first item): in sorted order the run of the window's lists, in
     * original order the items from the one of the smallest sorted position
     * of the window's queries to that of the largest (none where no list
     * starts in the window: CSR indices longer than the lists). H200, sph50
     * 2^26 (four windows), fill: sorted order 40.08 -> 36.78 ms (session
     * 52's run SE); lists in original order with the particles in frame
     * order 42.87 -> 37.87, in random order, whose span is nearly every
     * item, 86.20 -> 84.32 (session 53's runs TD and TG, the latter the
     * gather's test of the window's outputs). In random order each window
     * still costs about 15 ms, every item running in it (run TE). */
    int by_item_runs = pass == FENNS_PASS_search_windowed && p->plan.method == FENNS_METHOD_FENNS;
    for (uint64_t w = 0, first = 0; first < list_entries; ++w, first += window) {
        if (w) fenns__barrier(cmd, p); /* each writes the same bound ranges */
        pc.list_window = (uint32_t)w;
        if (pass == FENNS_PASS_search_windowed) {
            VkDeviceSize at = 4u * first, bytes = o->indices.range - at;
            if (bytes > p->plan.one_binding_bytes) bytes = p->plan.one_binding_bytes;
            fenns__bind(&b, FENNS_BINDING_INDICES, o->indices.buffer, o->indices.offset + at, bytes);
        }
        if (by_item_runs) window_items(cmd, p, f, &b, &pc);
        dispatch_search_of(cmd, p, f, pass, &b, &pc, by_item_runs);
    }
}

void fenns__pass_search_kernel(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_frame *c,
                               const fenns_outputs *o, const fenns_kernel_outputs *k) {
    fenns_bindings b = {.arena = f->arena};
    fenns_push pc = fenns__push_base(p, f->n);
    bind_build(&b, p, f, c, &pc);
    /* What the kernel does not write, the status block stands in for: the
     * shader never writes it there (pc.kernel_outputs), but pushed
     * descriptors must be valid. */
    fenns_buffer_range status = {f->scratch.buffer, f->scratch.offset + f->layout.params.offset, f->layout.params.size};
    const fenns_buffer_range *values = k->values.buffer ? &k->values : &status;
    const fenns_buffer_range *counts = k->counts ? &o->counts : &status;
    fenns__bind(&b, FENNS_BINDING_KERNEL_OUTPUT, values->buffer, values->offset, values->range);
    fenns__bind(&b, FENNS_BINDING_COUNTS, counts->buffer, counts->offset, counts->range);
    fenns__bind(&b, FENNS_BINDING_OFFSETS, counts->buffer, counts->offset, counts->range);
    pc.mode = FENNS_MODE_KERNEL;
    pc.sorted_order = o->sorted_order;
    pc.kernel_outputs = (k->values.buffer ? FENNS_KERNEL_WRITES_VALUES : 0u) | (k->counts ? FENNS_KERNEL_WRITES_COUNTS : 0u);
    if (p->kernel_layout)
        p->ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->kernel_layout, 1, 1, &k->user_set, 0,
                                           NULL);
    dispatch_search(cmd, p, f, FENNS_PASS_search_kernel, &b, &pc);
}

/* FENNS_OUTPUT_SORTED_ORDER: the build's permutation, for the caller. */
void fenns__copy_permutation(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_buffer_range *to) {
    VkBufferCopy region = {f->scratch.offset + f->layout.perm.offset, to->offset, 4u * (VkDeviceSize)f->n};
    p->ctx->vk.vkCmdCopyBuffer(cmd, f->scratch.buffer, to->buffer, 1, &region);
}

void fenns__pass_offsets_scan(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o) {
    fenns_scan_place at = {f->scratch.buffer, f->scratch.offset + f->layout.params.offset, offsets_scan_lookback(p, f)};
    fenns__record_scan64(cmd, p, f->arena, &at, f->scratch.offset + f->layout.scan_sums.offset, o->counts.buffer,
                         o->counts.offset, o->offsets.buffer, o->offsets.offset, f->n, f->n + 1u);
}

void fenns__pass_list_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind(&b, FENNS_BINDING_OFFSETS, o->offsets.buffer, o->offsets.offset, o->offsets.range);
    bind_indices(&b, p, &o->indices);
    fenns_push pc = fenns__push_base(p, f->n);
    VkDeviceSize entries = o->indices.range / 4u;
    pc.capacity = (uint32_t)entries;
    pc.capacity_hi = (uint32_t)(entries >> 32);
    /* Lists per workgroup: about 64 entries each fill the shared sort. */
    uint32_t lists = p->plan.sort_capacity / 64u;
    if (lists > p->plan.workgroup_size) lists = p->plan.workgroup_size;
    if (lists == 0) lists = 1;
    pc.count = lists;
    fenns__dispatch(cmd, p, lists_fit_one_binding(p, o) ? FENNS_PASS_list_sort : FENNS_PASS_list_sort_wide, &b,
                    &pc, (f->n + lists - 1) / lists);
}

void fenns__pass_expand_positions(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena,
                                  const fenns_buffer_range *xyz, const fenns_buffer_range *vec4, uint32_t n) {
    fenns_bindings b = {.arena = arena};
    fenns__bind(&b, FENNS_BINDING_PERM, xyz->buffer, xyz->offset, xyz->range); /* not read in this mode */
    fenns__bind(&b, FENNS_BINDING_SCAN_IN, xyz->buffer, xyz->offset, xyz->range);
    fenns__bind(&b, FENNS_BINDING_SCAN_OUT, vec4->buffer, vec4->offset, vec4->range);
    fenns_push pc = fenns__push_base(p, n);
    pc.count = 4u;
    pc.mode = 2u;
    uint64_t total = 4u * (uint64_t)n;
    fenns__dispatch(cmd, p, FENNS_PASS_reorder_attributes, &b, &pc,
                    (total + p->plan.workgroup_size - 1u) / p->plan.workgroup_size);
}

void fenns__pass_reorder_attributes(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f,
                                    const fenns_buffer_range *in, const fenns_buffer_range *out, uint32_t words,
                                    uint32_t to_original) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_PERM, f->layout.perm);
    fenns__bind(&b, FENNS_BINDING_SCAN_IN, in->buffer, in->offset, in->range);
    fenns__bind(&b, FENNS_BINDING_SCAN_OUT, out->buffer, out->offset, out->range);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.count = words;
    pc.mode = to_original;
    uint64_t total = (uint64_t)f->n * words;
    fenns__dispatch(cmd, p, FENNS_PASS_reorder_attributes, &b, &pc,
                    (total + p->plan.workgroup_size - 1u) / p->plan.workgroup_size);
}
