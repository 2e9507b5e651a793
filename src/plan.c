/* The planner (see plan.h). */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "fenns_shared.h"

static uint32_t floor_pow2_u64(uint64_t v) { /* log2 of the largest power of two <= v */
    uint32_t s = 0;
    while (s < 63 && (UINT64_C(1) << (s + 1)) <= v) ++s;
    return s;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Shared memory of each pipeline; mirrors the shared declarations of the
 * shaders (scan.glsl's subgroup totals are in every scanning shader). */
#define SCAN_SHARED (4u * (FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP) + 4u) /* and scan64_block's wide-block flag */
/* fenns: the local grid of `rows` rows in the larger of its forms
 * (local_grid_fenns.glsl; each module declares one: by cell, each cell's
 * start and end; by row, each row's sequence and its map), and 27 neighbour
 * keys. */
#define LOCAL_ROWS_MAX (FENNS_LOCAL_DIM_MAX * FENNS_LOCAL_DIM_MAX)
static uint32_t local_grid_shared(uint32_t rows) {
    uint32_t by_cell = 4u * 2u * FENNS_LOCAL_DIM_MAX, by_row = 4u * (FENNS_LOCAL_DIM_MAX + 1u) + 16u;
    return rows * (by_cell > by_row ? by_cell : by_row) + 4u * 27u;
}
#define WORK_SHARED 4u /* search_common.glsl's search_work_item */
static uint32_t search_fenns_shared(void) { return local_grid_shared(LOCAL_ROWS_MAX) + SCAN_SHARED + WORK_SHARED; }
/* counting: 27 neighbour keys (and the unused one-row local grid of the walk's shared code). */
static uint32_t search_counting_shared(void) { return local_grid_shared(1u) + SCAN_SHARED; }
/* fenns-paper: the fine grid, per query slot its record (16 bytes), count,
 * list base (8) and room, and the loop-limit flag (local_grid_paper.glsl). */
static uint32_t search_paper_shared(uint32_t fine_cells) {
    return 4u * fine_cells + (16u + 4u + 8u + 4u) * FENNS_MAX_WORKGROUP + 4u + SCAN_SHARED;
}

/* search_work: a block's entries (of the largest workgroup), their first
 * work items and bounds; the scan's totals and posted sums. */
static uint32_t search_work_shared(void) {
    return 4u * (2u * FENNS_MAX_WORKGROUP * FENNS_WORK_LIST_CELLS + 1u) + SCAN_SHARED + 4u * (FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP);
}

/* section_sort (and list_sort, less): (value, section) pairs, a cell's
 * section bounds and its long-section flag. */
static uint32_t section_sort_shared(uint32_t sort_capacity) {
    return 8u * sort_capacity + 4u * (FENNS_SECTIONS_FINE + 1u) + 4u;
}

/* cell_order: a coarse cell's fine-cell starts and original indices, and the scan's totals. */
static uint32_t cell_order_shared(uint32_t order_capacity) {
    return 4u * FENNS_SECTIONS_FINE + 4u * order_capacity + SCAN_SHARED;
}

static int finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

int fenns_plan_radius_ok(float r) { return isfinite(r) && r > 0.0f; }

int fenns_plan_walks_particles(fenns_method m) {
    return m == FENNS_METHOD_COUNTING || m == FENNS_METHOD_OCTANT || m == FENNS_METHOD_RADIX;
}

int fenns_plan_domain_given(const float min[3], const float max[3]) {
    for (int a = 0; a < 3; ++a)
        if (min[a] != 0.0f || max[a] != 0.0f) return 1;
    return 0;
}

const char *fenns_plan_domain_problem(const float min[3], const float max[3]) {
    if (!finite3(min) || !finite3(max)) return "domain is not finite";
    for (int a = 0; a < 3; ++a)
        if (!(min[a] < max[a]))
            return "the domain's min must be below its max on every axis";
    for (int a = 0; a < 3; ++a)
        if (!isfinite(max[a] - min[a])) return "the domain's extent overflows float";
    return NULL;
}

fenns_result fenns_plan_make(const fenns_plan_limits *limits, const fenns_pipeline_create_info *info,
                             fenns_plan *out) {
    if (!limits || !info || !out) return FENNS_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
#define FENNS_PLAN_REJECT_(why)                \
    do {                                        \
        out->problem = why;                     \
        return FENNS_ERROR_INVALID_ARGUMENT;    \
    } while (0)
    if (!fenns_plan_radius_ok(info->radius)) FENNS_PLAN_REJECT_("radius must be finite and > 0");
    if (info->max_particles == 0) FENNS_PLAN_REJECT_("max_particles is 0");
    if (info->method != FENNS_METHOD_FENNS && info->method != FENNS_METHOD_FENNS_PAPER &&
        info->method != FENNS_METHOD_COUNTING && info->method != FENNS_METHOD_OCTANT && info->method != FENNS_METHOD_RADIX)
        FENNS_PLAN_REJECT_("unknown method");
    int given = fenns_plan_domain_given(info->domain_min, info->domain_max);
    const char *domain = given ? fenns_plan_domain_problem(info->domain_min, info->domain_max) : NULL;
    if (domain) FENNS_PLAN_REJECT_(domain);
    if (info->grid_size && !fenns_plan_walks_particles(info->method))
        FENNS_PLAN_REJECT_("grid_size is for the counting, octant and radix methods");
    if (info->grid_size && !given) FENNS_PLAN_REJECT_("grid_size needs the caller's box (domain_min, domain_max)");
#undef FENNS_PLAN_REJECT_
    if (limits->max_workgroup_invocations < 64 || limits->shared_memory_budget < 16384 ||
        limits->max_storage_buffer_range < 65536 || limits->max_workgroup_count_x < 65535) {
        out->problem = "the device's compute limits are below what fenns needs";
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }

    out->method = info->method;
    out->radius = info->radius;
    out->user_domain = given;
    memcpy(out->domain_min, info->domain_min, sizeof out->domain_min);
    memcpy(out->domain_max, info->domain_max, sizeof out->domain_max);
    out->max_particles = info->max_particles;
    uint32_t budget = limits->shared_memory_budget;

    uint32_t wg = FENNS_MAX_WORKGROUP;
    while (wg > limits->max_workgroup_invocations) wg >>= 1;
    if (info->method == FENNS_METHOD_FENNS) {
        /* fenns: a local grid of at most FENNS_LOCAL_DIM_MAX^3 cells (6 KiB
         * by cell, 5 KiB by row), so many workgroups share a multiprocessor;
         * the candidates are read through the cache. */
        out->workgroup_size = wg;
        out->fine_max = FENNS_LOCAL_DIM_MAX;
        out->fine_cells = LOCAL_ROWS_MAX;
        out->shared_bytes_search = search_fenns_shared();
    } else if (fenns_plan_walks_particles(info->method)) {
        /* counting, octant, radix: no local grid; fine_max 3 makes grid_setup keep
         * cells of cell_margins margins (its widest cell, (fine_max - 2)
         * margins, is smaller), folding the grid onto the table beyond the
         * capacity. */
        out->workgroup_size = wg;
        out->fine_max = 3;
        out->fine_cells = 1;
        out->shared_bytes_search = search_counting_shared();
    } else {
        /* fenns-paper: the largest workgroup (<= 256) whose query chunk
         * still leaves a local grid of at least 8 cells per axis; the fine
         * grid takes the rest of the budget, as the paper does. */
        for (;;) {
            uint32_t fixed = search_paper_shared(0);
            uint32_t fine_entries = fixed < budget ? (budget - fixed) / 4u : 0u;
            uint32_t f = 1;
            while ((f + 1) * (f + 1) * (f + 1) + 1 <= fine_entries && f + 1 <= FENNS_MAX_FINE_DIM) ++f;
            if (f >= 8 || wg == 64) {
                if (f < 3) return FENNS_ERROR_UNSUPPORTED_DEVICE;
                out->workgroup_size = wg;
                out->fine_max = f;
                out->fine_cells = f * f * f + 1;
                break;
            }
            wg >>= 1;
        }
        out->shared_bytes_search = search_paper_shared(out->fine_cells);
    }

    out->cell_margins = out->method == FENNS_METHOD_OCTANT ? 2u : 1u;
    /* fenns: fine cells down to half the margin and a 5^3 stencil test about
     * 3x fewer candidates per query than the paper's 3^3 of full-margin cells. */
    out->fine_reach = out->method == FENNS_METHOD_FENNS ? FENNS_FINE_REACH_MAX : 1u;
    /* Coarse grid: the paper's "largest grid that fits in shared memory", so
     * Algorithm 1 can count in a shared histogram of its 2 sections per cell.
     * fenns splits cells into up to FENNS_SECTIONS_FINE fine cells and gives
     * large sets more cells (about two per workgroup of particles, see
     * cell_occupancy), counted with global atomics once the histogram no
     * longer fits. */
    uint32_t shared_keys = budget / 4u;
    out->sections = out->method == FENNS_METHOD_FENNS ? FENNS_SECTIONS_FINE : FENNS_SECTIONS_PAPER;
    uint64_t cells = (shared_keys - 1u) / out->sections;
    if (cells < 27u) cells = 27u; /* a folded axis keeps 3 table cells */
    if (out->method == FENNS_METHOD_FENNS) {
        uint64_t wanted = 2u * (uint64_t)info->max_particles / out->workgroup_size + 1u;
        uint64_t most = (UINT64_C(1) << 27) / out->sections;
        if (wanted > cells) cells = wanted > most ? most : wanted;
    } else if (fenns_plan_walks_particles(out->method)) {
        /* Hoetzlein's grid covers the domain in cells of edge r; here the
         * table holds about one cell per particle and larger grids fold onto
         * it, which bounds the memory (28 bytes a cell, radix 12) and keeps a folded
         * cell's extra candidates near one per neighbour cell on average.
         * grid_size asks for the paper's own (Table 4: up to 450^3), below. */
        uint64_t wanted = (uint64_t)info->max_particles + 27u;
        uint64_t most = (UINT64_C(1) << 27) / out->sections;
        if (wanted > cells) cells = wanted > most ? most : wanted;
    }
    /* The cell tables are bound whole, so they stay within
     * maxStorageBufferRange (counting's cell a particle would pass lavapipe's
     * 128 MiB from about 5M particles); a smaller table only folds more.
     * 130 words: the cursors' and the work table's 256-byte alignments and
     * the work table's two extra entries. */
    uint32_t cursor_arrays = fenns_plan_cursor_arrays(out->method);
    uint64_t table_words = limits->max_storage_buffer_range / 4u;
    /* fenns and fenns-paper: the work items too, 4 words for each cell (and
     * the invalid particles' entry) and each workgroup of particles, 4 more
     * to align them (fenns_plan_work_items). */
    int items = !fenns_plan_walks_particles(out->method);
    uint64_t item_words = items ? 4u * ((uint64_t)info->max_particles / out->workgroup_size + 3u) : 0u;
    uint64_t fixed_words = (1u + cursor_arrays) + 130u + item_words;
    uint64_t by_range = table_words > fixed_words
                            ? (table_words - fixed_words) / ((1u + cursor_arrays) * out->sections + 1u + (items ? 4u : 0u))
                            : 0u;
    if (cells > by_range) cells = by_range;
    if (info->grid_size) {
        /* The paper's baseline grid: every cell of the caller's box in the table. */
        out->grid_size = info->grid_size;
        uint32_t dims[3], table[3];
        out->cell_capacity = UINT32_MAX; /* the grid's own dimensions, unfolded */
        fenns_plan_coarse_dims(out, info->domain_min, info->domain_max, dims, table);
        uint64_t grid_cells = (uint64_t)dims[0] * dims[1] * dims[2];
        uint64_t most = (UINT64_C(1) << 27) / out->sections;
        if (grid_cells > most || grid_cells > by_range) {
            out->problem = "grid_size: the grid has more cells than this device's cell tables hold";
            return FENNS_ERROR_TOO_LARGE;
        }
        cells = grid_cells > 27u ? grid_cells : 27u;
    }
    out->cell_capacity = (uint32_t)cells; /* >= 151 with 16 KiB, so a folded table keeps >= 5 per axis */
    out->section_keys = out->cell_capacity * out->sections + 1u;
    /* (fenns counts coarse cells, a table 125x smaller than its sections';
     * it keeps the sections' switch point, where global atomics measured
     * fast, one change at a time.) */
    out->shared_histogram = out->section_keys <= shared_keys;
    /* Cell tables: section starts (keys + 1), left cursors, right cursors
     * (fenns-paper's inner sections fill from the right; fenns advances its
     * section starts instead, count_slot in bindings.glsl; radix places
     * particles by its sort, with no cursor), then the work table; cursors
     * and work at 256-byte offsets (each is bound on its own). */
    out->cursor_base = (out->section_keys + 1u + 63u) / 64u * 64u;
    out->work_base = (out->cursor_base + cursor_arrays * out->section_keys + 63u) / 64u * 64u;
    /* fenns sizes cells by density (one workgroup of particles each, see
     * grid_setup.comp); fenns-paper keeps the paper's largest grid. */
    out->cell_occupancy = out->method == FENNS_METHOD_FENNS ? out->workgroup_size : 0u;

    /* (section, value) pairs, 8 bytes each; 2048 covers a density-sized cell
     * many times over while leaving room for several workgroups per SM. */
    uint32_t sort_capacity = 2048;
    while (section_sort_shared(sort_capacity) > budget) sort_capacity >>= 1;
    out->sort_capacity = sort_capacity;
    out->by_cell = out->method == FENNS_METHOD_FENNS && out->section_keys >= FENNS_BY_CELL_KEYS;
    /* cell_order.comp's wide pipeline holds up to FENNS_ORDER_ITEMS_WIDE particles an invocation. */
    uint32_t wide = (uint32_t)FENNS_ORDER_ITEMS_WIDE * out->workgroup_size;
    out->order_capacity = sort_capacity < wide ? sort_capacity : wide;

    uint32_t shared_max = out->shared_bytes_search;
    if (out->shared_histogram && 4u * fenns_plan_count_entries(out) > shared_max) shared_max = 4u * fenns_plan_count_entries(out);
    if (cell_order_shared(out->order_capacity) > shared_max) shared_max = cell_order_shared(out->order_capacity);
    if (section_sort_shared(sort_capacity) > shared_max) shared_max = section_sort_shared(sort_capacity);
    if (search_work_shared() > shared_max) shared_max = search_work_shared();
    out->shared_bytes_max = shared_max;

    /* Grid-stride passes: enough workgroups to fill a large GPU, few enough
     * that each flushes a well-filled histogram. */
    uint64_t groups = (uint64_t)info->max_particles / ((uint64_t)wg * 16u) + 1u;
    out->count_groups = (uint32_t)(groups > 512 ? 512 : groups);
    out->scan_direct_blocks = FENNS_SCAN_DIRECT_BLOCKS;
    out->scan_lookback = 0; /* the device's choice (fenns_pipeline_create) */
    /* The search work list: one cell an invocation where that keeps its
     * blocks few (H100, one against four: the pass 0.016 -> 0.013 ms at 4M
     * particles, 128 blocks against 32; 0.062 -> 0.052 at 2^26, 2048 against
     * 512; run FI), more where each block would sum the totals of too many
     * before it (counting's 4M cells: 4096 blocks at four). Two only, one
     * and four: fenns' tests run the first, counting's and octant's the
     * second. */
    out->work_list_cells = 1;
    if (fenns_plan_work_list_blocks(out) > FENNS_WORK_LIST_BLOCKS) out->work_list_cells = FENNS_WORK_LIST_CELLS;
    out->query_lanes = fenns_plan_query_lanes(out, limits, 0u);
    out->kernel_lanes = fenns_plan_kernel_lanes(out, limits, 0u);
    out->fill_lanes = fenns_plan_fill_lanes(out, limits, 0u);
    int fenns = out->method == FENNS_METHOD_FENNS;
    out->kernel_row_step = fenns && info->max_particles <= FENNS_ROW_STEP4_KERNEL_MAX ? 4u : 2u;
    out->list_row_step = 2u;

    /* Chunked bindings: each at most maxStorageBufferRange, a power of two. */
    uint32_t range_log2 = floor_pow2_u64(limits->max_storage_buffer_range);
    out->chunk_shift16 = range_log2 - 4u;
    out->chunk_shift4 = range_log2 - 2u; /* as fenns_plan_max_list_entries counts them */
    uint64_t whole = limits->max_storage_buffer_range < UINT32_MAX ? limits->max_storage_buffer_range : UINT32_MAX;
    out->one_binding_bytes = whole & ~(uint64_t)15u;
    /* fenns' and the grid walks' searches skip the lists of other windows
     * (in_list_window); fenns-paper's writes every list in one dispatch: its
     * walk, driven by the candidates, would visit every query in each window,
     * and that costs more than the scattered stores (H100, sph50 2^26: the
     * fill 1955 ms in one dispatch, 7234 in four windows; run BI). */
    out->list_window_shift = out->method != FENNS_METHOD_FENNS_PAPER ? FENNS_LIST_WINDOW_SHIFT : 0u;
    out->windowed_lists = 1u;
    /* Single-binding arrays (u32 permutation and counts, u64 offsets n+1) bound n. */
    uint64_t by_binding = limits->max_storage_buffer_range / 8u - 1u;
    uint64_t by_vec4 = (uint64_t)FENNS_CHUNKS << out->chunk_shift16;
    uint64_t addressable = by_binding < by_vec4 ? by_binding : by_vec4;
    /* Below 2^29 (as maxStorageBufferRange < 2^32 makes it): fenns' searches
     * number a local row's candidates by sorted position + 2^30 in 32 bits
     * (local_grid_fenns.glsl's ROW_BIAS). */
    if (addressable > (1u << 29) - 1u) addressable = (1u << 29) - 1u;
    out->max_particles_addressable = addressable;
    if (info->max_particles > addressable) return FENNS_ERROR_TOO_LARGE;

    if (out->user_domain)
        fenns_plan_coarse_dims(out, out->domain_min, out->domain_max, out->coarse_dims, out->table_dims);
    return FENNS_SUCCESS;
}

uint32_t fenns_plan_cursor_arrays(fenns_method m) {
    return m == FENNS_METHOD_FENNS || m == FENNS_METHOD_RADIX ? 0u : 2u;
}

uint64_t fenns_plan_work_items(const fenns_plan *plan, uint32_t particle_count) {
    if (fenns_plan_walks_particles(plan->method)) return 0;
    /* Entry e (a cell, or the invalid particles) has ceil(m_e / wg) items:
     * at most m_e / wg + 1 where it has particles, none where it has none. */
    uint64_t n = particle_count, entries = (uint64_t)plan->cell_capacity + 1u;
    uint64_t most = n / plan->workgroup_size + (n < entries ? n : entries);
    return most ? most : 1u;
}

uint32_t fenns_plan_count_entries(const fenns_plan *plan) {
    return plan->by_cell ? plan->cell_capacity + 1u : plan->section_keys;
}

int fenns_plan_ranked(const fenns_plan *plan) {
    return plan->method == FENNS_METHOD_FENNS && !plan->by_cell && !plan->shared_histogram;
}

uint32_t fenns_plan_radix_passes(const fenns_plan *plan) {
    /* Keys run to section_keys (absent particles); 4 bits a pass. */
    uint32_t bits = 1;
    while (bits < 32 && (plan->section_keys >> bits) != 0u) ++bits;
    return (bits + FENNS_RADIX_BITS - 1u) / FENNS_RADIX_BITS;
}

uint64_t fenns_plan_radix_tiles(const fenns_plan *plan, uint32_t particle_count) {
    uint64_t tile = (uint64_t)plan->workgroup_size * FENNS_RADIX_ITEMS;
    return (particle_count + tile - 1u) / tile;
}

uint64_t fenns_plan_radix_histogram(const fenns_plan *plan, uint32_t particle_count) {
    return FENNS_RADIX_DIGITS * fenns_plan_radix_tiles(plan, particle_count) + 1u;
}

uint64_t fenns_plan_max_list_entries(uint64_t max_storage_buffer_range) {
    return (uint64_t)FENNS_INDEX_CHUNKS << (floor_pow2_u64(max_storage_buffer_range) - 2u);
}

int fenns_plan_lists_one_binding(const fenns_plan *plan, uint64_t bytes) {
    return bytes <= plan->one_binding_bytes;
}

uint32_t fenns_plan_list_window_entries(const fenns_plan *plan, uint64_t longest_list) {
    uint64_t binding = plan->one_binding_bytes / 4u;
    if (!plan->list_window_shift || !plan->windowed_lists || longest_list >= binding) return 0;
    uint64_t entries = (binding - longest_list) & ~UINT64_C(63);
    uint64_t most = UINT64_C(1) << plan->list_window_shift;
    return (uint32_t)(entries < most ? entries : most);
}

uint32_t fenns_plan_density_bins(const fenns_plan *plan, uint32_t n) {
    if (plan->method != FENNS_METHOD_FENNS) return 0;
    uint64_t bins = 4u * (uint64_t)n;
    return bins < (UINT64_C(1) << 20) ? (uint32_t)bins : (UINT32_C(1) << 20);
}

int fenns_plan_may_ask_density(fenns_method method, float radius, int user_domain, const float min[3],
                               const float max[3], uint32_t particles) {
    if (method != FENNS_METHOD_FENNS) return 0;
    if (!user_domain || particles == 0) return 1;
    double volume = 1.0, r = radius;
    for (int a = 0; a < 3; ++a) {
        double extent = (double)max[a] - (double)min[a];
        volume *= extent > r ? extent : r;
    }
    return cbrt(FENNS_FINE_SPACING_PARTICLES * volume / particles) > r;
}

uint32_t fenns_plan_scan_block(const fenns_plan *plan) { return plan->workgroup_size * FENNS_SCAN_ITEMS; }

/* `wanted` lanes, else 4 up to four_max particles and 2 up to two_max,
 * fewer where the workgroup would pass the device's limits or the lanes'
 * sums the local grid's arrays. */
static uint32_t lanes_for(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted, uint32_t four_max,
                          uint32_t two_max) {
    if (plan->method != FENNS_METHOD_FENNS) return 1u;
    uint32_t lanes = wanted                               ? wanted
                     : plan->max_particles <= four_max ? 4u
                     : plan->max_particles <= two_max  ? 2u
                                                       : 1u;
    for (; lanes > 1u; --lanes) {
        uint64_t invocations = (uint64_t)lanes * plan->workgroup_size;
        if (invocations <= limits->max_workgroup_invocations && invocations <= limits->max_workgroup_size_x &&
            (uint64_t)(lanes - 1u) * plan->workgroup_size <= (FENNS_LOCAL_DIM_MAX + 1u) * (uint64_t)plan->fine_cells)
            break;
    }
    return lanes;
}

uint32_t fenns_plan_query_lanes(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted) {
    return lanes_for(plan, limits, wanted, FENNS_QUERY_LANES4_MAX, FENNS_QUERY_LANES2_MAX);
}

uint32_t fenns_plan_kernel_lanes(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted) {
    return lanes_for(plan, limits, wanted, FENNS_KERNEL_LANES4_MAX, FENNS_KERNEL_LANES2_MAX);
}

uint32_t fenns_plan_fill_lanes(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted) {
    return lanes_for(plan, limits, wanted, FENNS_FILL_LANES4_MAX, FENNS_FILL_LANES2_MAX);
}

uint64_t fenns_plan_work_list_blocks(const fenns_plan *plan) {
    uint64_t per_block = (uint64_t)plan->work_list_cells * plan->workgroup_size;
    return ((uint64_t)plan->cell_capacity + 2u + per_block - 1u) / per_block;
}

uint64_t fenns_plan_scan_blocks(const fenns_plan *plan, uint64_t count) {
    uint64_t block = fenns_plan_scan_block(plan);
    return (count + block - 1) / block;
}

int fenns_plan_scan_looks_back(const fenns_plan *plan, uint64_t count) {
    uint64_t blocks = fenns_plan_scan_blocks(plan, count);
    return plan->scan_lookback != 0u && blocks > 1u && blocks <= FENNS_SCAN_LOOKBACK_BLOCKS_MAX;
}

uint64_t fenns_plan_scan_lookback_bytes(const fenns_plan *plan, uint64_t count) {
    return 16u * (fenns_plan_scan_blocks(plan, count) + 1u);
}

uint64_t fenns_plan_scan_sums_bytes(const fenns_plan *plan, uint64_t count) {
    /* One level of block sums per recursion, each 256-byte aligned (as scan.c
     * lays them out), or the look-back's states where they are more. */
    uint64_t block = fenns_plan_scan_block(plan), total = 0, lookback = fenns_plan_scan_lookback_bytes(plan, count);
    while (count > block) {
        count = (count + block - 1) / block;
        total += align_up(8u * count, 256u); /* u64 sums (the offsets scan); u32 scans use half */
    }
    return total + 256u > lookback ? total + 256u : lookback;
}

void fenns_plan_scratch(const fenns_plan *plan, uint32_t particle_count, fenns_scratch_plan *out) {
    memset(out, 0, sizeof *out);
    uint64_t align = 256; /* >= every minStorageBufferOffsetAlignment in practice */
    uint64_t n = particle_count;
    uint64_t at = 0;
#define FENNS_REGION_(r, bytes)          \
    out->r.offset = at;                   \
    out->r.size = (bytes);                \
    at = align_up(at + out->r.size, align);
    FENNS_REGION_(params, sizeof(fenns_gpu_params))
    /* The cell tables, then (fenns, fenns-paper) the search's work items. */
    uint64_t items = fenns_plan_work_items(plan, particle_count);
    uint64_t items_base = FENNS_WORK_ITEMS_BASE((uint64_t)plan->work_base, plan->cell_capacity);
    FENNS_REGION_(cells, items ? 4u * (items_base + 4u * items) : 4u * ((uint64_t)plan->work_base + plan->cell_capacity + 2u))
    FENNS_REGION_(perm, 4u * (n ? n : 1u))
    /* Work lists. The section sort's: by section, sections of more than
     * FENNS_SMALL_SECTION particles; by cell, runs of the sections of cells of
     * more than the cell order's capacity C, each run with the next holding
     * more than C, so at most 2m / C + 1 runs a cell of m, 3n / C in all. The
     * wide cell order's: cells of more than its narrow pipeline's share. */
    int fenns = plan->method == FENNS_METHOD_FENNS;
    uint64_t by_section = n / (FENNS_SMALL_SECTION + 1u), capacity = plan->order_capacity ? plan->order_capacity : 1u;
    uint64_t by_cell = 3u * n / capacity, order_least = (uint64_t)FENNS_ORDER_ITEMS_NARROW * plan->workgroup_size;
    FENNS_REGION_(sort_list, fenns ? 4u * ((by_section > by_cell ? by_section : by_cell) + 1u) : 0u)
    FENNS_REGION_(order_list, fenns ? 4u * (n / (order_least + 1u) + 1u) : 0u)
    uint64_t largest_scan = n + 1 > plan->section_keys + 1u ? n + 1 : plan->section_keys + 1u;
    FENNS_REGION_(radix_histogram, plan->method == FENNS_METHOD_RADIX ? 4u * fenns_plan_radix_histogram(plan, particle_count) : 0u)
    /* The largest scan's block sums, or the work list's block totals where
     * they are more (one cell an invocation: C / 256 of them). */
    uint64_t scan_sums = fenns_plan_scan_sums_bytes(plan, largest_scan), work_sums = 4u * fenns_plan_work_list_blocks(plan);
    FENNS_REGION_(scan_sums, scan_sums > work_sums ? scan_sums : work_sums)
    /* radix: its sort's four arrays (keys and values, twice) lie here
     * before the gather writes the sorted particles. */
    out->radix_array_stride = plan->method == FENNS_METHOD_RADIX ? align_up(4u * (n ? n : 1u), align) : 0u;
    uint64_t sorted = 16u * (n ? n : 1u);
    if (sorted < 4u * out->radix_array_stride) sorted = 4u * out->radix_array_stride;
    FENNS_REGION_(sorted, sorted)
    FENNS_REGION_(part_firsts, plan->fill_lanes > 1u ? 4u * (uint64_t)plan->fill_lanes * n : 0u)
#undef FENNS_REGION_
    out->cursors.offset = out->cells.offset + 4u * (uint64_t)plan->cursor_base;
    out->cursors.size = 4u * (uint64_t)fenns_plan_cursor_arrays(plan->method) * plan->section_keys;
    out->size = at;
    out->alignment = align;
}

/* Coarse dimensions for cell edge h, each axis capped (dims_for in grid_setup.comp). */
static void dims_for(const float extent[3], float h, uint32_t dims[3]) {
    for (int a = 0; a < 3; ++a) {
        float d = floorf(extent[a] / h);
        dims[a] = (uint32_t)(d < 1.0f ? 1.0f : (d > (float)FENNS_MAX_COARSE_DIM ? (float)FENNS_MAX_COARSE_DIM : d));
    }
}

static int dims_fit(const uint32_t d[3], uint32_t capacity) {
    return (uint64_t)d[0] * d[1] * d[2] <= capacity;
}

void fenns_plan_coarse_dims(const fenns_plan *plan, const float domain_min[3], const float domain_max[3],
                            uint32_t dims[3], uint32_t table[3]) {
    /* Same float arithmetic as grid_setup.comp, for `fenns info`; the GPU's
     * own result is reported in fenns_status. */
    float extent[3], largest = 0.0f;
    for (int a = 0; a < 3; ++a) {
        extent[a] = fminf(fmaxf(domain_max[a] - domain_min[a], 0.0f), FENNS_MAX_EXTENT);
        largest = fmaxf(largest, fmaxf(fabsf(domain_min[a]), fabsf(domain_max[a])));
        largest = fmaxf(largest, extent[a]);
    }
    float margin = fminf(plan->radius * (1.0f + 1.0f / 1024.0f) + largest * (1.0f / 1048576.0f), FENNS_MAX_EXTENT);
    float occupied_volume = fmaxf(extent[0], margin) * fmaxf(extent[1], margin) * fmaxf(extent[2], margin);
    float density = (float)plan->max_particles / occupied_volume;
    float h, widest;
    if (plan->sections == FENNS_SECTIONS_PAPER) {
        uint32_t reach = density * margin * margin * margin >= 4.0f ? plan->fine_reach : 1u;
        h = (float)plan->cell_margins * margin;
        if (plan->grid_size) /* a hair under, as grid_sizing.glsl says why */
            h = fmaxf(h, fmaxf(extent[0], fmaxf(extent[1], extent[2])) / (float)plan->grid_size * (1.0f - 1.0f / 1048576.0f));
        widest = fmaxf(h, ((float)plan->fine_max / (float)reach - 2.0f) * margin);
    } else {
        uint32_t reach = density * margin * margin * margin >= 4.0f ? plan->fine_reach : 1u;
        float fine = fmaxf(margin / (float)reach, fminf(powf((float)FENNS_FINE_SPACING_PARTICLES / fmaxf(density, 1e-30f), 1.0f / 3.0f), 2.0f * margin));
        if (reach == 2u && fine > 0.6f * margin) {
            reach = 1u;
            fine = fmaxf(fine, margin);
        }
        float f = roundf(powf((float)plan->cell_occupancy / fmaxf(density * fine * fine * fine, 1e-30f), 1.0f / 3.0f));
        float split = fminf(fmaxf(f, 2.0f * (float)reach), (float)FENNS_FINE_SPLIT_MAX);
        h = split * fine;
        widest = (float)FENNS_FINE_SPLIT_MAX * 2.0f * margin;
    }
    dims_for(extent, h, dims);
    if (!dims_fit(dims, plan->cell_capacity)) {
        float lo = h, hi = fminf(fmaxf(fmaxf(extent[0], fmaxf(extent[1], extent[2])), h) * 2.0f, 2.0f * FENNS_MAX_EXTENT);
        for (int it = 0; it < 64; ++it) {
            float mid = 0.5f * (lo + hi);
            dims_for(extent, mid, dims);
            if (dims_fit(dims, plan->cell_capacity)) hi = mid; else lo = mid;
        }
        h = fmaxf(h, fminf(hi, widest));
        dims_for(extent, h, dims);
    }
    memcpy(table, dims, 3 * sizeof *table);
    if (!dims_fit(dims, plan->cell_capacity)) {
        uint32_t lo = 1, hi = FENNS_MAX_COARSE_DIM;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2, t[3];
            for (int a = 0; a < 3; ++a) t[a] = dims[a] < mid ? dims[a] : mid;
            if (dims_fit(t, plan->cell_capacity)) lo = mid; else hi = mid;
        }
        for (int a = 0; a < 3; ++a) table[a] = dims[a] < lo ? dims[a] : lo;
    }
}
