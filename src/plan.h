/* The planner: grid sizes, workgroup sizes and the exact scratch layout, from
 * the device limits, the radius, the domain and the particle count. Pure C,
 * no Vulkan calls: unit-tested without a GPU (tests/test_plan.c). */
#ifndef FENNS_PLAN_H
#define FENNS_PLAN_H

#include <stdint.h>
#include <fenns/fenns.h>

/* fenns on a GPU: searches of up to this many particles take one dispatch
 * of the general search rather than three (the general one and the two
 * fixed-grid variants, with a barrier between each): below it the two
 * barriers cost more than the variants save (H100, run MF: one dispatch,
 * counts sph50 65536 0.0612 -> 0.0542 ms, 262144 0.1220 -> 0.1172, s1
 * 524288 r=0.2 0.0643 -> 0.0600; but sph50 1M 0.3687 -> 0.3729, 4M 1.341
 * -> 1.381). */
#define FENNS_ONE_SEARCH_DISPATCH_MAX (1u << 19)

/* fenns on a GPU: the counts search's general variant splits each query's
 * stencil rows over 4 invocations where a pipeline holds at most
 * FENNS_QUERY_LANES4_MAX particles, over 2 up to FENNS_QUERY_LANES2_MAX
 * (fenns_plan.query_lanes). A small search leaves most of the GPU idle
 * while each invocation walks its query's rows one after another; split,
 * each walks a part. Where the GPU is full, what the split repeats (the
 * query's set-up, the lanes' sum) costs more than it gains. H200, runs QB
 * and QC, counts with 1 / 2 / 4 lanes (ms): sph50 8192 0.0513 / 0.0362 /
 * 0.0321, 16384 0.0491 / 0.0358 / 0.0315, 32768 0.0535 / 0.0440 / 0.0451,
 * 65536 0.0536 / 0.0511 / 0.0577, 131072 0.0872 / 0.0863 / 0.1059, 262144
 * 0.1164 / 0.1277 / 0.1700; cluster 16384 0.0920 / 0.0569 / 0.0532, 65536
 * 0.1248 / 0.0806 / 0.0885, 131072 0.1315 / 0.1058 / 0.1278; s1 65536 r=1
 * 0.0240 / 0.0245 / 0.0308; sph50 4M 1.378 / 1.666 / 2.558. Those ran a
 * walk of its own for the lanes; in the shader's one walk for both (run
 * QL, against the session's base): sph50 16384 0.0492 -> 0.0321, 65536
 * 0.0537 -> 0.0513, 131072 0.0876 -> 0.0892; cluster 65536 0.1248 ->
 * 0.0872, 131072 0.1331 -> 0.1081; s1 65536 r=1 0.0241 -> 0.0250. */
#define FENNS_QUERY_LANES4_MAX (1u << 14)
#define FENNS_QUERY_LANES2_MAX (1u << 17)

/* fenns on a GPU: kernel searches of pipelines that hold at most
 * FENNS_ROW_STEP4_KERNEL_MAX particles walk each row four candidates a
 * step rather than two, the four loaded before the first is tested
 * (fenns_plan.kernel_row_step; local_grid_fenns.glsl's ROW_STEP). Where the
 * GPU is full, the longer step's extra candidates past a row's end cost
 * more than the loads it overlaps (run QD, with a loop of its own for four:
 * kernel sph50 262144 0.1198 -> 0.1175 ms, 1M 0.3887 -> 0.4072, 4M 1.436 ->
 * 1.500). H200, two a step (run QF's base) against four in the one loop
 * the shader now has (run QK), kernel: sph50 8192 0.0583 -> 0.0413, 16384
 * 0.0538 -> 0.0397, 65536 0.0574 -> 0.0516, 131072 0.0922 -> 0.0889;
 * cluster 16384 0.1058 -> 0.0704, 65536 0.1483 -> 0.1065; dam 16384 0.0548
 * -> 0.0396. The list fill keeps two (list_row_step, FENNS_ROW_STEP=4 for
 * tests): four in that loop made it slower (fill sph50 16384 0.0548 ->
 * 0.0563, cluster 0.1234 -> 0.1341; runs QF, QK). The counts search splits
 * its queries instead (FENNS_QUERY_LANES4_MAX), which gained more. */
#define FENNS_ROW_STEP4_KERNEL_MAX (1u << 17)

/* fenns on a GPU: a kernel that combines its states (FENNS_KERNEL_COMBINE,
 * fenns_kernel.h) has each query of its general kernel search split over 4
 * invocations where the pipeline holds at most FENNS_KERNEL_LANES4_MAX
 * particles, over 2 up to FENNS_KERNEL_LANES2_MAX, as the counts search's
 * (FENNS_QUERY_LANES4_MAX); each part starts from fenns_init and the parts
 * are combined in a fixed order (local_grid_fenns.glsl's
 * finish_kernel_lanes). H200, run RE (bench's density kernel with 1 / 2 / 4
 * lanes, ms): sph50 4096 0.0408 / 0.0321 / 0.0305, 8192 0.0408 / 0.0312 /
 * 0.0293, 16384 0.0400 / 0.0309 / 0.0291, 32768 0.0468 / 0.0429 / 0.0475,
 * 65536 0.0513 / 0.0540 / 0.0640, 262144 0.1227 / 0.1367 / 0.1952; cluster
 * 16384 0.0704 / 0.0534 / 0.0508, 65536 0.1065 / 0.0825 / 0.0937; dam
 * 16384 0.0400 / 0.0315 / 0.0306, 65536 0.0461 / 0.0489 / 0.0515; s1 65536
 * r=1 0.0191 / 0.0240 / 0.0308. The 2-lane bound sits lower than the
 * counts search's: a kernel's part carries more set-up and a heavier
 * combine. */
#define FENNS_KERNEL_LANES4_MAX (1u << 14)
#define FENNS_KERNEL_LANES2_MAX (1u << 15)

/* fenns on a GPU: the list fill's general variant splits each query's rows
 * over 4 invocations where a pipeline holds at most FENNS_FILL_LANES4_MAX
 * particles (fenns_plan.fill_lanes; the same as the counts search's lanes
 * there), FENNS_FILL_LANES2_MAX being no larger. Where the CSR search's
 * counting pass split its queries alike, it leaves where each part's
 * neighbours start in the list (the scratch's part_firsts), and each part of
 * the fill writes its rows' neighbours there (local_grid_fenns.glsl's
 * search_query); a fill without them (fixed lists, the caller's counts)
 * walks each query whole in its first part. H200, CSR ms, base -> this (run SF): sph50 16384 0.0964
 * -> 0.0748, 32768 0.1179 -> 0.1078; cluster 16384 0.1883 -> 0.1373, 32768
 * 0.2473 -> 0.2107; dam 16384 0.1008 -> 0.0803 (the 32768 rows with 2
 * lanes). But a fill without the parts' starts (fixed lists, the caller's
 * counts, the host path's) takes the same pipeline, and there its lanes but
 * the first idle: at 2^14 particles as fast as one lane a query, at 32768
 * with 4 lanes 23% slower (run SE, CSR sph50 0.1186 -> 0.1461; part 0 then
 * walked every row in one pass, where it now walks the parts in turn), so
 * the fill splits only where that was measured harmless. 2 lanes up to
 * 2^17, as the counts search takes (run SC, whose counting pass was up to 3%
 * slower there, since mended): cluster 65536 0.2728 -> 0.2261 but sph50 131072
 * 0.2100 -> 0.2170 and s1 65536 r=1 0.0467 -> 0.0489. A fill counting
 * its own parts first (run SB) gained at 4 lanes only (sph50 16384 0.0963 ->
 * 0.0865) and lost at 2 (32768 0.1182 -> 0.1307). */
#define FENNS_FILL_LANES4_MAX (1u << 14)
#define FENNS_FILL_LANES2_MAX (1u << 14)

/* The device limits a plan depends on. */
typedef struct fenns_plan_limits {
    uint32_t shared_memory_budget;   /* bytes per workgroup */
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_size_x;
    uint32_t max_workgroup_count_x;  /* also bounds y */
    uint64_t max_storage_buffer_range;
    uint64_t min_storage_buffer_offset_alignment;
} fenns_plan_limits;

/* One region of the scratch buffer. */
typedef struct fenns_region {
    uint64_t offset;
    uint64_t size;
} fenns_region;

typedef struct fenns_plan {
    fenns_method method;
    float radius;
    int user_domain;
    float domain_min[3], domain_max[3];
    uint32_t max_particles;

    uint32_t workgroup_size;      /* every pass */
    uint32_t cell_capacity;       /* coarse cells a grid may use */
    uint32_t sections;            /* per cell: FENNS_SECTIONS_PAPER (2) or FENNS_SECTIONS_FINE */
    uint32_t section_keys;        /* cell_capacity * sections + 1 (the last: invalid particles) */
    uint32_t shared_histogram;    /* counting in shared memory (4 bytes per fenns_plan_count_entries) */
    uint32_t coarse_dims[3];      /* grid for the caller's box (the GPU recomputes it the same way) */
    uint32_t table_dims[3];       /* the cell table it folds onto (= coarse_dims when it fits) */
    uint32_t fine_max;            /* per-axis cap of the local grid */
    uint32_t fine_cells;          /* fenns-paper: fine_max^3 + 1; fenns: local grid rows (FENNS_LOCAL_DIM_MAX^2) */
    uint32_t sort_capacity;       /* section_sort shared elements (power of two) */
    uint32_t order_capacity;      /* fenns: particles of a coarse cell cell_order orders at once */
    uint32_t by_cell;             /* fenns: count and place by coarse cell, then cell_order (large
                                     sets); 0: by section, then section_order */
    uint32_t work_list_in_order;  /* fenns' ranked builds with work_list_cells 1: the section
                                     order's first workgroups run the search work list's second
                                     pass (no search work step); set at pipeline creation */
    uint32_t query_lanes;         /* fenns: invocations a query takes in the counts search's
                                     general variant (fenns_plan_query_lanes; 1 on CPU
                                     drivers, set at pipeline creation); 1 for other methods */
    uint32_t kernel_lanes;        /* fenns: invocations a query takes in the general kernel search
                                     of a kernel that combines its states (fenns_plan_kernel_lanes;
                                     1 on CPU drivers, set at pipeline creation; a pipeline whose
                                     kernel's states would not fit the shared-memory budget keeps 1:
                                     fenns_pipeline.kernel_lanes_made); 1 for others */
    uint32_t fill_lanes;          /* fenns: invocations a query takes in the list fill's general
                                     variant (fenns_plan_fill_lanes; 1 on CPU drivers, set at
                                     pipeline creation); 1 for other methods */
    uint32_t kernel_row_step;     /* fenns: candidates a step of the kernel search's rows (2 or 4,
                                     FENNS_ROW_STEP4_KERNEL_MAX; 2 on CPU drivers); 2 for others */
    uint32_t list_row_step;       /* the same for the list fill: 2 (FENNS_ROW_STEP4_KERNEL_MAX says
                                     why; FENNS_ROW_STEP=4 sets 4 for tests) */
    uint32_t one_search_dispatch_max; /* fenns: searches of at most this many particles are one
                                     dispatch of the general search, not three (0 on CPU
                                     drivers); set at pipeline creation */
    uint32_t cursor_base;         /* u32 index of the cursors in the cell tables (where they lie there) */
    uint32_t work_base;           /* u32 index of the work table in the cell tables */
    uint32_t cell_occupancy;      /* particles an average coarse cell aims at; 0: the paper's rule */
    uint32_t cell_margins;        /* border/inner sections: the smallest cell edge in margins (octant 2, else 1) */
    uint32_t fine_reach;          /* fine cells searched on each side: 1 (paper, 27 cells) or 2 */
    uint32_t grid_size;           /* counting, octant, radix: cells along the box's longest axis (0: own edge) */
    uint32_t count_groups;        /* workgroups of the grid-stride passes */
    uint32_t work_list_cells;     /* search work (search_work.comp): cells an invocation takes, 1
                                     where that keeps its blocks within FENNS_WORK_LIST_BLOCKS
                                     (each block sums the totals before it), else 4 */
    uint32_t scan_lookback;       /* the cell scan (but radix's) and the CSR offsets scan in one
                                     dispatch each where they are short
                                     (fenns_plan_scan_looks_back): 1 on a GPU, 0 on CPU
                                     drivers; 2 for tests (the offsets scan's look-back gives
                                     up at once; the cell scan takes two dispatches); set at
                                     pipeline creation */
    uint32_t scan_direct_blocks;  /* device-wide scans: blocks up to which each block adds the
                                     totals before it itself (else their totals are scanned) */
    uint32_t chunk_shift16;       /* log2 of vec4 elements per chunk binding */
    uint32_t chunk_shift4;        /* log2 of u32 elements per chunk binding */
    uint64_t one_binding_bytes;   /* the most bytes of lists the one-store search variants
                                     bind whole (fenns_plan_lists_one_binding) */
    uint32_t list_window_shift;   /* lists are filled in windows of at most 2^list_window_shift
                                     entries, a dispatch each, where they need several
                                     (fenns_plan_list_window_entries); 0: in one */
    uint32_t windowed_lists;      /* 1: such lists take the windowed one-store searches where
                                     sorted particles fit one binding; 0 (FENNS_LIST_WINDOWED=0,
                                     for the tests, or plans whose CSR lists never pass a
                                     window: their pipelines are not made): the chunked ones */
    uint32_t shared_bytes_search; /* shared memory of the search pipeline */
    uint32_t shared_bytes_max;    /* largest over all pipelines */
    uint64_t max_particles_addressable;
    const char *problem;          /* why fenns_plan_make refused, or NULL */
} fenns_plan;

/* Scratch layout for n particles. */
typedef struct fenns_scratch_plan {
    fenns_region params;      /* fenns_gpu_params */
    fenns_region cells;       /* work_base + cell_capacity + 2 u32; fenns, fenns-paper: then the work items */
    fenns_region perm;        /* n u32 */
    fenns_region sort_list;   /* fenns: the sections or runs of sections left to the section
                                 sort, one u32 each (size 0 otherwise) */
    fenns_region order_list;  /* fenns: the cells left to the wide cell order, one u32 each */
    fenns_region radix_histogram; /* radix: digit counts of every tile (size 0 otherwise) */
    fenns_region scan_sums;   /* block sums of the largest scan */
    fenns_region sorted;      /* n uvec4 (radix: also its sort's four u32 arrays, 256-byte aligned each) */
    fenns_region part_firsts; /* fenns with fill_lanes > 1: fill_lanes * n u32, where each part of a
                                 query's list starts and the last ends (size 0 otherwise) */
    fenns_region cursors;     /* the reorder's cursors, section_keys u32 per array, in the cell
                                 tables (size 0: fenns and radix need none) */
    uint64_t radix_array_stride; /* radix: bytes from one of those arrays to the next (0 otherwise) */
    uint64_t size;
    uint64_t alignment;
} fenns_scratch_plan;

/* Errors: FENNS_ERROR_INVALID_ARGUMENT (radius, domain, count), FENNS_ERROR_TOO_LARGE,
 * FENNS_ERROR_UNSUPPORTED_DEVICE (limits below what the shaders need). */
/* Whether a method searches one invocation per particle over whole grid
 * cells (counting, octant, radix) rather than a local grid per coarse cell. */
int fenns_plan_walks_particles(fenns_method m);

/* Cursor arrays of the reorder, in the cell tables: fenns-paper, counting
 * and octant 2 (left, right); fenns 0 (its reorder places by the coarse
 * count's ranks or advances the starts themselves), radix 0 (it places
 * particles by its sort). */
uint32_t fenns_plan_cursor_arrays(fenns_method m);

/* Entries the coarse count counts into: fenns by coarse cell one per cell
 * (and one for the invalid particles; cell_order.comp then orders every
 * cell by fine cell), all else one per section key. */
uint32_t fenns_plan_count_entries(const fenns_plan *plan);

/* fenns and fenns-paper: the most work items a build of particle_count
 * particles lists for its search (search_work.comp), 16 bytes each after
 * the work table (FENNS_WORK_ITEMS_BASE); 0 for the other methods, whose
 * searches take none. */
uint64_t fenns_plan_work_items(const fenns_plan *plan, uint32_t particle_count);

/* Whether the coarse count keeps each particle's key and its place among
 * the key's particles (what its atomic returned) for the reorder, which
 * then places it with no atomic of its own: fenns by section, where the
 * count's atomics are global (the table outgrows its shared histogram).
 * Kept in the sorted particles' place, 8 bytes a particle, free until the
 * section order. (By coarse cell it costs more than it saves: H100, sph50
 * 16M, count 0.279 -> 0.423 ms, reorder 0.612 -> 0.523.) */
int fenns_plan_ranked(const fenns_plan *plan);

/* Slots of fenns' density histogram (density.comp) for a frame of n
 * particles: 4 a particle (they lie in the sorted particles' 16), at most
 * 2^20; 0 for the other methods. */
uint32_t fenns_plan_density_bins(const fenns_plan *plan, uint32_t n);

/* Whether grid setup may ask a fenns build of at most `particles` particles
 * (or a grid sized for that many) of this radius for the density pass,
 * which it does where fine cells would be wider than a margin: where the
 * caller gives the box (min, max), a spacing (FENNS_FINE_SPACING_PARTICLES
 * a cell) of at most the radius rules it out (the GPU compares with the
 * margin, at least the radius); without a box, always. */
int fenns_plan_may_ask_density(fenns_method method, float radius, int user_domain, const float min[3],
                               const float max[3], uint32_t particles);

/* fenns builds by coarse cell from this many section keys on (about one a
 * particle): below, the table of one counter per section (4 bytes each, 24
 * MB here) stays in a large GPU's L2 cache, and counting and ordering by
 * section is as fast or faster. H100, build ms by section / by cell: sph50
 * in random order 4M 0.527 / 0.521, 8M 1.43 / 1.08, 16M 3.79 / 1.83; dam 4M
 * (crowded cells) 0.37 / 0.52; sph50 16M in spatial order 1.33 / 1.46. The
 * switch is set for random order, the worst case. */
#define FENNS_BY_CELL_KEYS (UINT32_C(3) << 21)

/* radix: digit passes of its sort, tiles of n keys, and histogram entries
 * (FENNS_RADIX_DIGITS per tile, + 1 for the scan's total). */
uint32_t fenns_plan_radix_passes(const fenns_plan *plan);
uint64_t fenns_plan_radix_tiles(const fenns_plan *plan, uint32_t particle_count);
uint64_t fenns_plan_radix_histogram(const fenns_plan *plan, uint32_t particle_count);

/* Whether r is a usable radius: finite and > 0. */
int fenns_plan_radius_ok(float r);

/* Whether six domain values name a caller's box: all six 0 ask for the
 * particles' box, computed on the GPU at every build. */
int fenns_plan_domain_given(const float min[3], const float max[3]);

/* Why a caller's domain box is refused (not finite, min >= max on an axis,
 * extent overflowing float), or NULL when it is good. */
const char *fenns_plan_domain_problem(const float min[3], const float max[3]);

fenns_result fenns_plan_make(const fenns_plan_limits *limits, const fenns_pipeline_create_info *info,
                             fenns_plan *out);

void fenns_plan_scratch(const fenns_plan *plan, uint32_t particle_count, fenns_scratch_plan *out);

/* List entries one search can address: FENNS_INDEX_CHUNKS bindings of the
 * largest power of two <= maxStorageBufferRange bytes (chunk_shift4). */
uint64_t fenns_plan_max_list_entries(uint64_t max_storage_buffer_range);

/* Whether `bytes` of lists go into one binding, for the search variants that
 * store each entry with one store (INDEX_CHUNKS 1): up to
 * maxStorageBufferRange (down to a multiple of 16, below 2^32), not just
 * the chunks' power of two. Most GPUs allow 2^32 - 1 bytes, so lists of 2
 * to 4 GiB (sph50 16M: 3.3 GB) skip the chunked variants' per-store choice
 * of binding. */
int fenns_plan_lists_one_binding(const fenns_plan *plan, uint64_t bytes);

/* Entries a window holds where lists past one binding are written a window
 * a dispatch, each window's lists bound as one binding from the window's
 * first entry (the windowed one-store searches, LIST_WINDOWED): the entries
 * one binding holds less `longest_list` (the most entries a list can have),
 * so that a list that starts in the window ends within its binding; down
 * to a multiple of 64, so that each window's first byte keeps the strictest
 * minStorageBufferOffsetAlignment (256) and the quads' alignment; at most
 * 2^list_window_shift. 0 where the plan fills in one dispatch (fenns-paper)
 * or the longest list leaves no room, or windowed_lists is 0: the chunked
 * searches then. */
uint32_t fenns_plan_list_window_entries(const fenns_plan *plan, uint64_t longest_list);

/* Invocations a query of fenns' counts search takes on these limits (see
 * FENNS_QUERY_LANES4_MAX): from the plan's capacity, or `wanted` where
 * wanted > 0; fewer where the workgroup (workgroup_size times that) passes
 * the device's limits or the lanes' sums, kept in the local grid's arrays
 * after the walk ((FENNS_LOCAL_DIM_MAX + 1) fine_cells words), would not fit
 * there. 1 for other methods. */
uint32_t fenns_plan_query_lanes(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted);
/* The same for kernel searches (FENNS_KERNEL_LANES4_MAX, _2_MAX). */
uint32_t fenns_plan_kernel_lanes(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted);
/* The same of the list fill's general variant (FENNS_FILL_LANES4_MAX). */
uint32_t fenns_plan_fill_lanes(const fenns_plan *plan, const fenns_plan_limits *limits, uint32_t wanted);

/* Blocks of the search work list (search_work.comp): the cell table's C + 2
 * entries, work_list_cells an invocation. Their totals lie in the scan sums. */
uint64_t fenns_plan_work_list_blocks(const fenns_plan *plan);

/* Elements one workgroup of the device-wide scan handles, and the scratch
 * bytes its block sums need for a scan of `count` elements. */
uint32_t fenns_plan_scan_block(const fenns_plan *plan);
uint64_t fenns_plan_scan_sums_bytes(const fenns_plan *plan, uint64_t count);
/* Blocks of a device-wide scan of `count` elements. */
uint64_t fenns_plan_scan_blocks(const fenns_plan *plan, uint64_t count);
/* Whether a scan of `count` elements runs in one dispatch
 * (scan_lookback.glsl): where the plan looks back and the scan has more
 * than one block and at most FENNS_SCAN_LOOKBACK_BLOCKS_MAX. */
int fenns_plan_scan_looks_back(const fenns_plan *plan, uint64_t count);
/* The look-back states of a one-dispatch scan of `count` elements: the
 * ticket's 16 bytes, then 16 a block. */
uint64_t fenns_plan_scan_lookback_bytes(const fenns_plan *plan, uint64_t count);

/* The coarse grid and cell table the GPU derives for a box (mirrors grid_setup.comp). */
void fenns_plan_coarse_dims(const fenns_plan *plan, const float domain_min[3], const float domain_max[3],
                            uint32_t dims[3], uint32_t table[3]);

#endif
