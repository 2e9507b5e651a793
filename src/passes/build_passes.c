/* The build passes: clear, domain, grid, Algorithm 1 (count), scan,
 * Algorithm 2 (reorder), and for fenns the cell order and the large cells'
 * sort; finally the search work list. */
#include <stddef.h>
#include <string.h>

#include "passes.h"

void fenns__frame_init(fenns_frame *f, fenns_pipeline p, uint32_t n, const fenns_buffer_range *positions,
                       const fenns_buffer_range *scratch) {
    f->n = n;
    f->positions = *positions;
    f->scratch = *scratch;
    fenns_plan_scratch(&p->plan, n, &f->layout);
    f->radius = p->plan.radius;
    f->user_domain = (uint32_t)p->plan.user_domain;
    memcpy(f->domain_min, p->plan.domain_min, sizeof f->domain_min);
    memcpy(f->domain_max, p->plan.domain_max, sizeof f->domain_max);
    memset(&f->particle_count_buffer, 0, sizeof f->particle_count_buffer);
    memset(&f->grid_source, 0, sizeof f->grid_source);
    f->grid_particle_count = 0;
    f->density_bins = 0;
    f->grid_setup_clears = 0;
    f->arena = NULL;
}

void fenns__bind_region(fenns_bindings *b, const fenns_frame *f, uint32_t binding, fenns_region r) {
    if (r.size == 0) r = f->layout.params;
    fenns__bind(b, binding, f->scratch.buffer, f->scratch.offset + r.offset, r.size);
}

void fenns__bind_lookback_states(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f, fenns_push *pc,
                                 int looks_back, uint64_t scanned) {
    uint64_t bytes = looks_back ? fenns_plan_scan_lookback_bytes(&p->plan, scanned) : 0u;
    fenns_region states = {f->layout.scan_sums.offset, bytes};
    pc->capacity_hi = (uint32_t)(bytes / 16u);
    fenns__bind_region(b, f, FENNS_BINDING_LOOKBACK_STATES, states);
}

void fenns__bind_positions(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f) {
    if (f->n == 0) { /* no particle is read; any valid range will do */
        for (uint32_t c = 0; c < FENNS_CHUNKS; ++c) fenns__bind_region(b, f, FENNS_BINDING_POSITIONS + c, f->layout.params);
        return;
    }
    fenns__bind_chunked(b, FENNS_BINDING_POSITIONS, f->positions.buffer, f->positions.offset,
                        16u * (VkDeviceSize)f->n, p->plan.chunk_shift16, 16, FENNS_CHUNKS);
}

void fenns__bind_sorted(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f) {
    fenns__bind_chunked(b, FENNS_BINDING_SORTED, f->scratch.buffer, f->scratch.offset + f->layout.sorted.offset,
                        f->layout.sorted.size, p->plan.chunk_shift16, 16, FENNS_CHUNKS);
}

/* The caller's particle count where the build reads one (pc.gpu_count),
 * else the status block standing in (the shader does not read it). */
static void bind_gpu_count(fenns_bindings *b, const fenns_frame *f, fenns_push *pc) {
    pc->gpu_count = fenns__uses_gpu_count(f);
    if (pc->gpu_count)
        fenns__bind(b, FENNS_BINDING_GPU_COUNT, f->particle_count_buffer.buffer, f->particle_count_buffer.offset,
                    sizeof(uint32_t));
    else
        fenns__bind_region(b, f, FENNS_BINDING_GPU_COUNT, f->layout.params);
}

static VkDeviceSize scratch_at(const fenns_frame *f, fenns_region r, size_t field_offset) {
    return f->scratch.offset + r.offset + field_offset;
}

static uint64_t groups_for(fenns_pipeline p, uint64_t items) {
    return (items + p->plan.workgroup_size - 1) / p->plan.workgroup_size;
}

/* The status block's first values (grid_setup.comp writes the same where
 * no domain reduce comes before it: f->grid_setup_clears). */
void fenns__pass_clear(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    const fenns_vk *vk = &p->ctx->vk;
    VkBuffer s = f->scratch.buffer;
    /* Disjoint fills (overlapping ones would need barriers between):
     * zeros, the min keys at their largest value, zeros. */
    VkDeviceSize key_min = offsetof(fenns_gpu_params, key_min_x), key_end = key_min + 3u * sizeof(uint32_t);
    vk->vkCmdFillBuffer(cmd, s, scratch_at(f, f->layout.params, 0), key_min, 0u);
    vk->vkCmdFillBuffer(cmd, s, scratch_at(f, f->layout.params, key_min), key_end - key_min, 0xFFFFFFFFu);
    vk->vkCmdFillBuffer(cmd, s, scratch_at(f, f->layout.params, key_end), sizeof(fenns_gpu_params) - key_end, 0u);
    /* (The cell tables' counted entries and fenns' density histogram: grid
     * setup zeroes them.) */
}

void fenns__pass_domain_reduce(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_positions(&b, p, f);
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns_push pc = fenns__push_base(p, f->n);
    bind_gpu_count(&b, f, &pc);
    fenns__dispatch(cmd, p, FENNS_PASS_domain_reduce, &b, &pc, fenns__grid_stride_groups(p, f));
}

/* What grid setup and the density pass (which sizes the grid once more)
 * bind and push. */
static fenns_push grid_sizing(fenns_bindings *b, fenns_pipeline p, const fenns_frame *f) {
    fenns__bind_region(b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns_push pc = fenns__push_base(p, f->n);
    bind_gpu_count(b, f, &pc);
    /* The grid source's parameters (point sets), else the status block standing in. */
    pc.point_set = f->grid_source.buffer != VK_NULL_HANDLE;
    if (pc.point_set)
        fenns__bind(b, FENNS_BINDING_GRID_SOURCE, f->grid_source.buffer, f->grid_source.offset, sizeof(fenns_gpu_params));
    else
        fenns__bind_region(b, f, FENNS_BINDING_GRID_SOURCE, f->layout.params);
    pc.mode = p->plan.sections == FENNS_SECTIONS_FINE ? p->plan.cell_occupancy : p->plan.cell_margins;
    pc.count = f->grid_particle_count;
    pc.count_in = f->density_bins;
    pc.grid_size = p->plan.grid_size;
    pc.radius = f->radius;
    pc.user_domain = f->user_domain;
    pc.domain_min_x = f->domain_min[0];
    pc.domain_min_y = f->domain_min[1];
    pc.domain_min_z = f->domain_min[2];
    pc.domain_max_x = f->domain_max[0];
    pc.domain_max_y = f->domain_max[1];
    pc.domain_max_z = f->domain_max[2];
    return pc;
}

/* The entries the cell scan scans: fenns by coarse cell, the C coarse cells
 * and the invalid one, counted one entry on; else the K section keys and
 * their end. */
static uint32_t cell_scan_entries(fenns_pipeline p) {
    return p->plan.by_cell ? p->plan.cell_capacity + 2u : p->plan.section_keys + 1u;
}

/* The cell scan in one dispatch where the plan says so, but radix's: its
 * sort's own scans use the sums before the cell scan. And not where the
 * tests make every look-back give up (scan_lookback 2): a cell scan that
 * gave up would leave cell starts that fall back at its blocks, whose
 * lengths the passes after it read wrapped around (on lavapipe such a
 * search ran for minutes), so only the CSR offsets scan's giving up is
 * run through whole searches. No driver fenns looks back on gives up. */
static fenns_scan_lookback cell_scan_lookback(fenns_pipeline p) {
    int one = fenns_plan_scan_looks_back(&p->plan, cell_scan_entries(p)) && p->plan.method != FENNS_METHOD_RADIX &&
              p->plan.scan_lookback != 2u;
    return one ? FENNS_SCAN_LOOKBACK_BUILD : FENNS_SCAN_TWO_DISPATCHES;
}

void fenns__pass_grid_setup(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns_push pc = grid_sizing(&b, p, f);
    pc.capacity = (uint32_t)f->grid_setup_clears; /* the status block's first values: fenns__pass_clear's */
    /* Its other invocations zero the counted entries: only they need zeros
     * (cursors, work and fenns' section starts, cell_order.comp, are
     * written). fenns counts its coarse cells one entry on, in the work
     * table's place (COARSE_START in bindings.glsl). Enough workgroups to
     * zero the table about as fast as a fill. */
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    /* And fenns' density histogram (density.comp), in the sorted particles'
     * place, where the build may run the density pass: bound where a grid
     * source would be (there is none then). */
    if (f->density_bins)
        fenns__bind(&b, FENNS_BINDING_GRID_SOURCE, f->scratch.buffer, f->scratch.offset + f->layout.sorted.offset,
                    4u * (VkDeviceSize)f->density_bins);
    uint64_t counted = fenns_plan_count_entries(&p->plan) + 1u + f->density_bins / 4u;
    uint64_t groups = groups_for(p, counted / 64u + 1u); /* 16 quads an invocation */
    fenns__dispatch(cmd, p, FENNS_PASS_grid_setup, &b, &pc, groups < p->plan.count_groups ? groups : p->plan.count_groups);
}

void fenns__pass_density(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns_push pc = grid_sizing(&b, p, f);
    fenns__bind_positions(&b, p, f);
    /* The histogram in the sorted particles' place (unused until the
     * reorder); recorded only with slots (f->density_bins, pc.count_in). */
    fenns__bind(&b, FENNS_BINDING_SCAN_SUMS, f->scratch.buffer, f->scratch.offset + f->layout.sorted.offset,
                4u * (VkDeviceSize)f->density_bins);
    /* Where grid setup found a sparse set; else none. */
    fenns__dispatch_indirect(cmd, p, FENNS_PASS_density, &b, &pc, f->scratch.buffer,
                             scratch_at(f, f->layout.params, offsetof(fenns_gpu_params, density_dispatch_x)));
}

/* fenns by section (fenns_plan_ranked): the particles' keys and ranks,
 * from the coarse count (pc.mode 2) to reorder_ranked.comp, in the sorted
 * particles' place. Else the binding is unused (the params stand in). */
static void bind_ranks(fenns_bindings *b, fenns_pipeline p, const fenns_frame *f, fenns_push *pc) {
    fenns_region ranks = {f->layout.sorted.offset, 0};
    if (fenns_plan_ranked(&p->plan)) {
        ranks.size = 8u * (uint64_t)f->n; /* within one binding: fenns_plan_make bounds n by range / 8 */
        pc->mode = 2u;
    }
    fenns__bind_region(b, f, FENNS_BINDING_RANKS, ranks);
}

/* Workgroups of the coarse count and the reorder: an invocation per
 * particle where the count keeps ranks, since each invocation then waits
 * for its atomic (or its section's start) and many in flight hide that
 * (H100, sph50 4M in frame order, reorder 0.044 -> 0.039 ms, count
 * 0.082 -> 0.079); else a grid stride, whose workgroups each flush a
 * well-filled histogram. */
static uint64_t placement_groups(fenns_pipeline p, const fenns_frame *f) {
    return fenns_plan_ranked(&p->plan) ? groups_for(p, f->n) : fenns__grid_stride_groups(p, f);
}

void fenns__pass_coarse_count(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_positions(&b, p, f);
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.gpu_count = fenns__uses_gpu_count(f);
    pc.mode = p->plan.shared_histogram;
    bind_ranks(&b, p, f, &pc);
    /* And the cell scan's look-back states, where it looks back. */
    int looks_back = cell_scan_lookback(p) != FENNS_SCAN_TWO_DISPATCHES;
    fenns__bind_lookback_states(&b, p, f, &pc, looks_back, cell_scan_entries(p));
    fenns__dispatch(cmd, p, FENNS_PASS_coarse_count, &b, &pc, placement_groups(p, f));
}

void fenns__pass_cell_scan(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    /* Counts of the K section keys become starts; start[K] = n. fenns
     * counted key k at k + 1 with its shared histogram (count_slot in
     * bindings.glsl), or by cell its C coarse cells and the invalid one, cell
     * c at c + 1 (COARSE_START): the K + 1 or C + 2 entries scanned leave
     * the start of k (c) at k + 1 (c + 1), which its reorder advances to the
     * start of k + 1 (c + 1). Keeping ranks (fenns_plan_ranked), it counted
     * key k at k: the K + 1 entries scanned are the starts already. */
    VkDeviceSize cells = f->scratch.offset + f->layout.cells.offset, sums = f->scratch.offset + f->layout.scan_sums.offset;
    uint32_t keys = p->plan.section_keys, counted = p->plan.method == FENNS_METHOD_FENNS ? keys + 1u : keys;
    uint32_t entries = cell_scan_entries(p);
    fenns_scan_place at = {f->scratch.buffer, f->scratch.offset + f->layout.params.offset, cell_scan_lookback(p)};
    if (p->plan.by_cell) {
        VkDeviceSize coarse = cells + 4u * (VkDeviceSize)p->plan.work_base;
        fenns__record_scan(cmd, p, f->arena, &at, sums, f->scratch.buffer, coarse, f->scratch.buffer, coarse, entries, entries);
        return;
    }
    fenns__record_scan(cmd, p, f->arena, &at, sums, f->scratch.buffer, cells, f->scratch.buffer, cells, counted, entries);
}

void fenns__pass_cell_cursors(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    fenns__bind_region(&b, f, FENNS_BINDING_CURSORS, f->layout.cursors);
    fenns_push pc = fenns__push_base(p, f->n);
    fenns__dispatch(cmd, p, FENNS_PASS_cell_cursors, &b, &pc, groups_for(p, p->plan.section_keys));
}

/* What the passes that place particles read and write: positions, sorted
 * particles, status, cell tables, permutation. */
static void bind_placement(fenns_bindings *b, fenns_pipeline p, const fenns_frame *f) {
    fenns__bind_positions(b, p, f);
    fenns__bind_sorted(b, p, f);
    fenns__bind_region(b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind_region(b, f, FENNS_BINDING_CELLS, f->layout.cells);
    fenns__bind_region(b, f, FENNS_BINDING_PERM, f->layout.perm);
}

/* fenns' order passes and section sort: what each leaves to the next. */
static void bind_work_lists(fenns_bindings *b, const fenns_frame *f) {
    fenns__bind_region(b, f, FENNS_BINDING_SORT_LIST, f->layout.sort_list);
    fenns__bind_region(b, f, FENNS_BINDING_ORDER_LIST, f->layout.order_list);
}

/* The search work list's first pass: each block's work items
 * (search_work_totals.comp), which the second (fenns__pass_search_work)
 * starts its blocks from. */
static void search_work_totals(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    fenns__bind_region(&b, f, FENNS_BINDING_SCAN_SUMS, f->layout.scan_sums);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.mode = p->plan.workgroup_size;
    fenns__dispatch(cmd, p, FENNS_PASS_search_work_totals, &b, &pc, fenns_plan_work_list_blocks(&p->plan));
}

void fenns__pass_reorder(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, int write_sorted) {
    fenns_bindings b = {.arena = f->arena};
    bind_placement(&b, p, f);
    fenns__bind_region(&b, f, FENNS_BINDING_CURSORS, f->layout.cursors);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.gpu_count = fenns__uses_gpu_count(f);
    pc.mode = write_sorted ? 1u : 0u;
    bind_ranks(&b, p, f, &pc);
    if (!fenns_plan_ranked(&p->plan)) {
        fenns__dispatch(cmd, p, FENNS_PASS_reorder, &b, &pc, placement_groups(p, f));
        return;
    }
    /* Ranked, the placement only reads the cell starts, which the scan left
     * final: the search work list's first pass, which reads nothing else,
     * runs beside it, with no barrier between (reorder_ranked.comp). */
    fenns__dispatch(cmd, p, FENNS_PASS_reorder_ranked, &b, &pc, placement_groups(p, f));
    search_work_totals(cmd, p, f);
}

void fenns__pass_section_order(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    bind_placement(&b, p, f);
    fenns__bind_region(&b, f, FENNS_BINDING_SORT_LIST, f->layout.sort_list);
    fenns__bind_region(&b, f, FENNS_BINDING_SCAN_SUMS, f->layout.scan_sums);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.gpu_count = fenns__uses_gpu_count(f); /* particle_count() */
    /* Where the plan says so (ranked builds on a GPU), the search work
     * list's second pass runs in the first workgroups (its first ran beside
     * the reorder): pc.count of them, its blocks, with pc.mode queries a
     * work item as fenns__pass_search_work's. */
    pc.count = p->plan.work_list_in_order ? (uint32_t)fenns_plan_work_list_blocks(&p->plan) : 0u;
    pc.mode = p->plan.workgroup_size;
    /* Then a workgroup per chunk of sorted positions (absent ones included). */
    uint64_t chunk = FENNS_SECTION_ORDER_CHUNK(p->plan.workgroup_size);
    fenns__dispatch(cmd, p, FENNS_PASS_section_order, &b, &pc, pc.count + (f->n + chunk - 1u) / chunk);
}

void fenns__pass_cell_order(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    bind_placement(&b, p, f);
    bind_work_lists(&b, f);
    fenns_push pc = fenns__push_base(p, f->n);
    /* One workgroup per coarse cell, and one for the invalid particles. */
    fenns__dispatch(cmd, p, FENNS_PASS_cell_order, &b, &pc, (uint64_t)p->plan.cell_capacity + 1u);
}

void fenns__pass_cell_order_wide(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    bind_placement(&b, p, f);
    bind_work_lists(&b, f);
    fenns_push pc = fenns__push_base(p, f->n);
    /* The cells the narrow cell order listed, where it found some; else none. */
    fenns__dispatch_indirect(cmd, p, FENNS_PASS_cell_order_wide, &b, &pc, f->scratch.buffer,
                             scratch_at(f, f->layout.params, offsetof(fenns_gpu_params, order_dispatch_x)));
}

void fenns__pass_section_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    bind_placement(&b, p, f);
    bind_work_lists(&b, f);
    fenns_push pc = fenns__push_base(p, f->n);
    /* By cell, the capacity RUN_END ends a run at: it must be the cell
     * order's CAPACITY (the same plan value), or the two passes would cut a
     * cell's sections into different runs. */
    pc.count = p->plan.order_capacity;
    /* One workgroup per run of a cell's sections (by cell) or per section
     * (by section) that the order passes listed as too large for them; none
     * where they found none. */
    fenns__dispatch_indirect(cmd, p, FENNS_PASS_section_sort, &b, &pc, f->scratch.buffer,
                             scratch_at(f, f->layout.params, offsetof(fenns_gpu_params, sort_dispatch_x)));
}

void fenns__pass_search_work(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    fenns__bind_region(&b, f, FENNS_BINDING_SCAN_SUMS, f->layout.scan_sums);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.mode = p->plan.workgroup_size;
    /* C + 2 entries (the cells, the invalid particles, the total) in blocks
     * of work_list_cells an invocation: their totals (recorded with the
     * reorder where it is ranked), then their starts (not here at all where
     * the section order runs them: plan.work_list_in_order). */
    if (!fenns_plan_ranked(&p->plan)) {
        search_work_totals(cmd, p, f);
        fenns__barrier(cmd, p);
    }
    fenns__dispatch(cmd, p, FENNS_PASS_search_work, &b, &pc, fenns_plan_work_list_blocks(&p->plan));
}
