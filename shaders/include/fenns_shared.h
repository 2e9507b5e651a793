/*
 * Constants and structs shared by the C host code and the GLSL shaders, so the
 * two can never drift apart. Both sides see only 4-byte scalars (std430 packs
 * them tightly, C needs no padding rules).
 */
#ifndef FENNS_SHARED_H
#define FENNS_SHARED_H

#ifdef VULKAN /* GLSL */
#define FENNS_U32 uint
#define FENNS_F32 float
#define FENNS_STRUCT(name) struct name
#define FENNS_END_STRUCT(name) ;
#else /* C */
#include <stdint.h>
#define FENNS_U32 uint32_t
#define FENNS_F32 float
#define FENNS_STRUCT(name) typedef struct name
#define FENNS_END_STRUCT(name) name;
#endif

/* Descriptor bindings of the one push-descriptor set every pass uses. Buffers
 * that may exceed maxStorageBufferRange are bound as consecutive bindings,
 * each covering 2^chunk_shift elements: FENNS_CHUNKS for the particles,
 * FENNS_INDEX_CHUNKS for the lists (on a 4 GiB-range GPU, 24 GiB: more than
 * 2^32 entries). 28 bindings fit every device's 32 push descriptors. */
#define FENNS_CHUNKS 4
#define FENNS_INDEX_CHUNKS 12
#define FENNS_BINDING_POSITIONS 0 /* vec4 input, chunked 0..3 */
#define FENNS_BINDING_SORTED 4    /* uvec4 sorted particles: xyz bits, w = original index; 4..7 */
#define FENNS_BINDING_PARAMS 8    /* fenns_gpu_params */
#define FENNS_BINDING_CELLS 9     /* start[K+1] | pad | left cursor[K] | right cursor[K] | pad | work[C+1], K section keys,
                                     C cells (fenns: no cursors there) */
#define FENNS_BINDING_PERM 10     /* u32 sorted -> original */
#define FENNS_BINDING_SCAN_IN 11
#define FENNS_BINDING_SCAN_OUT 12
#define FENNS_BINDING_SCAN_SUMS 13
#define FENNS_BINDING_COUNTS 14
#define FENNS_BINDING_OFFSETS 15  /* u64 (uvec2 in GLSL) n+1 */
#define FENNS_BINDING_INDICES 16  /* u32 lists, chunked 16..27 */
#define FENNS_BINDING_CURSORS 12 /* cell cursors and reorder: left cursor[K] | right cursor[K] (fenns: none,
                                    the status block stands in) */
#define FENNS_BINDING_GPU_COUNT 11 /* build: the caller's particle count (fenns_build_info.particle_count_buffer);
                                     domain reduce and grid setup bind no scan, so it shares SCAN_IN's */
#define FENNS_BINDING_SORT_LIST 12  /* fenns' order passes and section sort: what is left to the
                                       section sort (the build binds no scan there) */
#define FENNS_BINDING_ORDER_LIST 13 /* fenns' cell orders: the cells left to the wide one */
#define FENNS_BINDING_RANKS 13 /* fenns by section: each particle's section and place in it, from the
                                  coarse count to the reorder (fenns_plan_ranked), in the sorted
                                  particles' place (unused until the section order) */
#define FENNS_BINDING_PART_FIRSTS 12 /* fenns' searches: where each part of a query's list starts
                                       (scratch part_firsts; local_grid_fenns.glsl) */
#define FENNS_BINDING_KERNEL_OUTPUT 12 /* vec4 per particle of a user kernel; the kernel
                                          search binds no scan, so it shares SCAN_OUT's */
/* Point sets. A search binds the build whose particles are the candidates
 * (another build's, or its own) in slots no search uses otherwise: its
 * sorted particles in the positions' chunks, its cell tables in SCAN_IN's,
 * its parameters in SCAN_SUMS'. A build taking another build's grid
 * (fenns_build_info.grid_source) reads that build's parameters in SCAN_SUMS'. */
#define FENNS_BINDING_CANDIDATE_SORTED 0 /* 0..3 */
#define FENNS_BINDING_CANDIDATE_CELLS 11
#define FENNS_BINDING_CANDIDATE_PARAMS 13
#define FENNS_BINDING_GRID_SOURCE 13
/* radix (Green's grid): its sort's (key, value) pairs are read and written in
 * slots no build uses otherwise, and each tile's digit counts in SCAN_SUMS'. */
#define FENNS_BINDING_RADIX_KEYS_IN 11
#define FENNS_BINDING_RADIX_KEYS_OUT 12
#define FENNS_BINDING_RADIX_HISTOGRAM 13
#define FENNS_BINDING_RADIX_VALUES_IN 14
#define FENNS_BINDING_RADIX_VALUES_OUT 15
#define FENNS_BINDING_LOOKBACK_STATES 14 /* the coarse count and reset status: the look-back states
                                           of the one-dispatch scan after them, zeroed (in the scan
                                           itself they lie at FENNS_BINDING_SCAN_SUMS) */
#define FENNS_BINDING_COUNT 28

/* Workgroup-size limits the shaders are written for. */
#define FENNS_MAX_WORKGROUP 256
#define FENNS_MIN_SUBGROUP 4
#define FENNS_SCAN_ITEMS 4      /* elements per thread in the device-wide scan */
#define FENNS_TOTAL_ITEMS 16    /* counts per thread in a counts search's total (count_total.comp) */
#define FENNS_WORK_LIST_CELLS 4 /* most cells an invocation of the search work list takes */
#define FENNS_WORK_LIST_BLOCKS 2048 /* its blocks, up to which it takes fewer (fenns_plan.work_list_cells) */
#define FENNS_SCAN_DIRECT_BLOCKS 8192 /* blocks up to which each adds the totals before it itself */
/* A scan in one dispatch (scan_lookback.glsl): where the driver stops loops
 * (llvmpipe), the most polls a block's look-back makes before it gives up,
 * and the pass marks its output incomplete. */
#define FENNS_SCAN_LOOKBACK_POLLS 16384
/* Scans of at most this many blocks (of FENNS_SCAN_ITEMS * workgroup
 * elements) look back; longer ones wait along their chain of blocks
 * (H200, the cell scan of sph50 16384 0.0122 -> 0.0100 ms, 65536 0.0123
 * -> 0.0115, but 262144 0.0131 -> 0.0153, 4M 0.034 -> 0.066; run T0).
 * Neither a look-back read by the whole workgroup, a block an invocation,
 * nor polls by plain loads brought the 4M cell scan below 0.055 ms
 * (runs UA to UC). With polls by loads the two forms meet at about 160
 * blocks (run UE, offsets scan, two dispatches against one: 129 blocks,
 * sph50 131072, 0.0144 -> 0.0131 ms, dam 0.0139 -> 0.0128; 161 blocks
 * 0.0146 -> 0.0145; 193 blocks 0.0148 -> 0.0152). */
#define FENNS_SCAN_LOOKBACK_BLOCKS_MAX 160
/* window_items.comp's steps (push constant count_in), before each window of
 * fenns' windowed list fill: in sorted order one (the window's run of work
 * items); in original order three, a barrier between each (the outputs
 * whose lists start in the window, the span of their sorted positions, the
 * run of work items that holds that span). */
#define FENNS_WINDOW_RUN 0u
#define FENNS_WINDOW_OUTPUTS 1u
#define FENNS_WINDOW_SPAN 2u
#define FENNS_WINDOW_SPAN_RUN 3u
/* Sorted positions an invocation of FENNS_WINDOW_SPAN reads. */
#define FENNS_WINDOW_SPAN_ITEMS 8u
#define FENNS_MAX_FINE_DIM 32   /* per axis of the local grid */
#define FENNS_MAX_COARSE_DIM 1048576 /* grid cells per axis (2^20): grid coordinates keep 3
                                       fractional bits in float */
/* fenns: fine cells about as wide as the particles' spacing at this many
 * particles a cell (between margin / reach and two margins). */
#define FENNS_FINE_SPACING_PARTICLES 1.5
#define FENNS_RADIX_BITS 4       /* radix: key bits sorted per pass (Green's sort, after Satish et al.) */
#define FENNS_RADIX_DIGITS 16    /* 2^FENNS_RADIX_BITS */
#define FENNS_RADIX_ITEMS 8      /* radix: keys per invocation of a tile */
#define FENNS_MAX_EXTENT 1.0e37f  /* box extents and the margin are clamped to this, so that
                                     max - min overflowing float (a +-3e38 box) or a huge
                                     radius keeps every grid quantity finite and normal */

/* Sections of a coarse cell. fenns-paper: the paper's border section then
 * inner section. fenns: the cell's fine cells, F per axis (F <= FENNS_FINE_SPLIT_MAX,
 * chosen per build), x fastest; the build sorts every cell by fine cell, so
 * the local grid of a searching cell is read straight from the sections of
 * its own cell and of the fine-cell layers of its 26 neighbours that face it
 * (their border). Keys reserve FENNS_SECTIONS_FINE per cell; a build with a
 * smaller F leaves the rest empty. */
#define FENNS_SECTIONS_PAPER 2
/* Particles an invocation of cell_order.comp holds: its narrow pipeline
 * (every cell) and its wide one (the cells of more than the narrow one's
 * share, up to the plan's order_capacity <= wide * workgroup size). */
#define FENNS_ORDER_ITEMS_NARROW 2
#define FENNS_ORDER_ITEMS_WIDE 8
#define FENNS_FINE_SPLIT_MAX 5
#define FENNS_SECTIONS_FINE (FENNS_FINE_SPLIT_MAX * FENNS_FINE_SPLIT_MAX * FENNS_FINE_SPLIT_MAX)
/* fenns orders a section (fine cell) of up to FENNS_SMALL_SECTION particles
 * by ranks in its order pass (section_order.comp); a longer one (coincident
 * particles, the core of a tight cluster) is listed and sorted by a
 * workgroup of its own (section_sort.comp). At most a workgroup's size (64
 * or more): the order pass finishes a section that runs past its chunk one
 * entry an invocation. */
#define FENNS_SMALL_SECTION 64u
/* fenns and fenns-paper: the search's work items, one uvec4 each (its coarse
 * cell, first and one-past-last sorted query), lie in the cell tables from
 * u32 index FENNS_WORK_ITEMS_BASE on: after the work table's C + 2 entries,
 * 16-byte aligned. */
#define FENNS_WORK_ITEMS_BASE(work_base, cell_capacity) (((work_base) + (cell_capacity) + 2u + 3u) / 4u * 4u)
/* section_order.comp: the positions a workgroup of `size` invocations orders;
 * the rest rank the first positions past them ahead (size / 16 of them). */
#define FENNS_SECTION_ORDER_CHUNK(size) ((size) - (size) / 16u)
#define FENNS_FINE_REACH_MAX 2 /* fine cells searched on each side of a query's */
#define FENNS_LOCAL_DIM_MAX (FENNS_FINE_SPLIT_MAX + 2 * FENNS_FINE_REACH_MAX) /* local grid per axis */

/* sort_incomplete and incomplete_queries of a recording whose passes could
 * not all be bound (its descriptor arena failed): large, so that no search's
 * additions wrap it round to 0. */
#define FENNS_UNBOUND_MARK 0x40000000u

/* Search output modes (push constant `mode`). */
#define FENNS_MODE_COUNT 0 /* counts only */
#define FENNS_MODE_FIXED 1 /* counts + fixed-capacity lists */
#define FENNS_MODE_CSR 2   /* counts already scanned into offsets: write lists */
#define FENNS_MODE_KERNEL 3 /* a user kernel (search_kernel.comp); pc.kernel_outputs says what it writes */
#define FENNS_KERNEL_WRITES_VALUES 1 /* fenns_finish's vec4 into the kernel output */
#define FENNS_KERNEL_WRITES_COUNTS 2 /* neighbour counts too */

/* Lists that one binding does not hold are written in windows, one dispatch
 * of the fill each, writing the lists that start in its window (search_passes.c).
 * Where the sorted particles fit one binding, a window is at most the
 * entries one binding holds less the longest list, and its dispatch binds
 * the lists from the window's first entry as one binding (the windowed
 * one-store searches: fenns_plan_list_window_entries); else the chunked
 * searches write lists in original order in windows of
 * 2^FENNS_LIST_WINDOW_SHIFT entries (4 GiB). Either way a window of lists in
 * original order is at most 2^FENNS_LIST_WINDOW_SHIFT entries: a
 * workgroup's lists lie scattered over the whole indices range, and past
 * some 7 GB of it each scattered store costs far more (H100, sph50 2^26
 * particles, 13 GB of lists: the fill 4718 ms in one dispatch; the first
 * window alone 41 ms). */
#define FENNS_LIST_WINDOW_SHIFT 30u

/* Push constants of every pass (<= 128 bytes). */
FENNS_STRUCT(fenns_push) {
    FENNS_U32 n;               /* particles */
    FENNS_U32 count;           /* elements of the pass (scan length, sections, ...); grid setup: the
                                  particles the grid is sized for (fenns_build_info.grid_particle_count);
                                  search: 1 where its own counting pass sizes its CSR lists (in that
                                  pass and in the fill); section order: the search work list's
                                  blocks its first workgroups run (fenns_plan.work_list_in_order),
                                  else 0 */
    FENNS_U32 count_in;        /* scan: elements read; beyond them the input is 0; grid setup and
                                  density: the histogram bins the scratch holds (0: none) */
    FENNS_U32 mode;            /* FENNS_MODE_* / pass-specific switch */
    FENNS_U32 capacity;        /* FIXED: entries per particle; CSR: indices capacity (low 32 bits);
                                  grid setup: 1 when it writes the status block's first values */
    FENNS_U32 capacity_hi;     /* CSR: indices capacity, high 32 bits; coarse count and reset
                                  status: the 16-byte states of a one-dispatch scan after it
                                  (scan_lookback.glsl) to zero at scan_sums, 0: none */
    FENNS_U32 cell_capacity;   /* coarse cells a grid may use; keys = cell_capacity * sections + 1 */
    FENNS_U32 chunk_shift16;   /* log2 of 16-byte elements per chunk binding */
    FENNS_U32 chunk_shift4;    /* log2 of 4-byte elements per chunk binding */
    FENNS_U32 user_domain;     /* grid setup: 1 when the domain below is the caller's */
    FENNS_F32 domain_min_x, domain_min_y, domain_min_z;
    FENNS_F32 domain_max_x, domain_max_y, domain_max_z;
    FENNS_F32 radius;          /* grid setup: the build's radius (later passes read prm.radius) */
    FENNS_U32 fine_max;        /* per-axis cap of the local grid (shared memory plan) */
    FENNS_U32 sort_capacity;   /* section_sort: elements sorted in shared memory at once */
    FENNS_U32 work_base;       /* u32 index of the work table in the cell tables (256-byte aligned) */
    FENNS_U32 sections;        /* sections per coarse cell: 2 (border, inner) or FENNS_SECTIONS_FINE */
    FENNS_U32 fine_reach;      /* most fine cells searched on each side: 1 (paper) or 2 (fine cells of margin/2) */
    FENNS_U32 loop_limit;      /* the driver's loop iterations per invocation (llvmpipe: 65535); 0: none */
    FENNS_U32 sorted_order;    /* search: 1 when outputs are indexed by sorted position (FENNS_OUTPUT_SORTED_ORDER) */
    FENNS_U32 kernel_outputs;  /* kernel search: FENNS_KERNEL_WRITES_* bits */
    FENNS_U32 gpu_count;       /* build: 1 when the particle count is read from FENNS_BINDING_GPU_COUNT,
                                  at most n (then later passes read prm.particle_count) */
    FENNS_U32 point_set;       /* grid setup: 1 when the grid is taken from FENNS_BINDING_GRID_SOURCE;
                                  search: 1 when the candidates are another build's particles */
    FENNS_U32 grid_size;       /* grid setup: cells along the box's longest axis (fenns_pipeline_create_info
                                  .grid_size), 0: the method's own cell edge */
    FENNS_U32 by_cell;         /* build: 1 when fenns counts and places by coarse cell, then orders each
                                  cell (cell_order.comp), 0 by fine cell (section_order.comp) */
    FENNS_U32 list_window;     /* fill: the window this dispatch writes the lists of: those that start
                                  in entries [list_window, list_window + 1) * list_window_entries */
    FENNS_U32 list_window_entries; /* fill: entries a window; 0: one dispatch writes every list */
    FENNS_U32 part_firsts;     /* fenns' CSR search whose counting pass and fill split each query
                                  alike (fenns_plan.fill_lanes): 1 where the counting pass leaves
                                  each part's first list index in FENNS_BINDING_PART_FIRSTS for
                                  the fill */
} FENNS_END_STRUCT(fenns_push)

/* Written by the GPU during a build, read by every later pass. The first
 * block is the public fenns_status, byte for byte. */
FENNS_STRUCT(fenns_gpu_params) {
    /* fenns_status (total_neighbors is one u64 there) */
    FENNS_U32 particle_count, invalid_count, total_neighbors, total_neighbors_hi, list_overflow, max_neighbors;
    FENNS_U32 dims_x, dims_y, dims_z;
    FENNS_U32 fine_x, fine_y, fine_z;
    FENNS_F32 domain_min_x, domain_min_y, domain_min_z;
    FENNS_F32 domain_max_x, domain_max_y, domain_max_z;
    FENNS_U32 incomplete_queries;
    FENNS_U32 fine_split;                        /* fenns: fine cells per coarse cell and axis (F) */
    FENNS_U32 requested_count;                   /* the count the build was asked for (GPU count) */
    FENNS_U32 grid_mismatch;                     /* search: the candidates' build has another grid */
    /* coarse grid (dims_* above) and the cell table it folds onto */
    FENNS_U32 table_x, table_y, table_z;         /* table cells per axis (<= dims, >= 3 where smaller) */
    FENNS_F32 cell_x, cell_y, cell_z;            /* cell edge per axis (>= margin) */
    FENNS_F32 inv_cell_x, inv_cell_y, inv_cell_z;
    FENNS_F32 border_x, border_y, border_z;      /* border width in cell units */
    /* fine local grid */
    FENNS_F32 inv_fine_x, inv_fine_y, inv_fine_z;
    FENNS_F32 margin;                            /* radius plus rounding allowance */
    FENNS_F32 radius2;                           /* float32 r*r: the neighbour test */
    /* domain reduction: order-preserving uint keys of the valid min/max */
    FENNS_U32 key_min_x, key_min_y, key_min_z;
    FENNS_U32 key_max_x, key_max_y, key_max_z;
    FENNS_U32 dispatch_x, dispatch_y, dispatch_z; /* VkDispatchIndirectCommand of the search */
    FENNS_U32 fine_reach;                        /* fine cells the search looks out (<= pc.fine_reach) */
    FENNS_U32 sort_incomplete;                   /* sections the build could not sort within the
                                                    driver's loop limit (pc.loop_limit) */
    FENNS_F32 radius;                            /* the build's radius (the pipeline's or its info's) */
    FENNS_U32 sort_dispatch_x, sort_dispatch_y, sort_dispatch_z; /* VkDispatchIndirectCommand of the
                                                    section sort: zero (no dispatch) unless
                                                    the cell order found a cell too large
                                                    for it */
    FENNS_U32 order_dispatch_x, order_dispatch_y, order_dispatch_z; /* the same of the wide cell order:
                                                    zero unless the narrow one left a cell */
    /* fenns' density pass (density.comp): a sample's histogram, so that
     * fine cells of sparse sets grow only where particles are spread out,
     * and those of crowded ones follow the crowds */
    FENNS_U32 density_dispatch_x, density_dispatch_y, density_dispatch_z; /* VkDispatchIndirectCommand:
                                                    zero unless grid setup asks for the pass */
    FENNS_U32 density_bins_x, density_bins_y, density_bins_z; /* histogram bins per axis */
    FENNS_U32 density_stride;                    /* every density_stride-th particle is sampled */
    FENNS_U32 density_sum, density_sum_hi;       /* u64 sum over the sampled particles of their bin's
                                                    sampled count (each bin's count squared) */
    FENNS_U32 density_samples;                   /* valid particles sampled */
    FENNS_U32 density_done;                      /* workgroups of the pass finished */
    FENNS_F32 density_resize_below, density_resize_above; /* the seen densities below or above
                                                    which the pass sizes the grid again (where
                                                    they change it) */
    FENNS_U32 sort_list_count;                   /* fenns: the sections (by section: more than
                                                    FENNS_SMALL_SECTION particles) or runs of a
                                                    cell's sections (by cell: of cells of more
                                                    than the cell order's capacity) listed for
                                                    the section sort (sort_dispatch_*) */
    FENNS_U32 order_list_count;                  /* fenns by cell: the cells listed for the wide
                                                    cell order (order_dispatch_*) */
    /* fenns' narrow searches: VkDispatchIndirectCommands of the general
     * search and of its variants for the two grids most builds get (F =
     * FENNS_FINE_SPLIT_MAX, reach 1 or 2: local grids of 7^3 and 9^3 cells,
     * local_grid_fenns.glsl's FIXED_REACH). One of the three holds the
     * search's workgroups (dispatch_*), the others none. The kernel search
     * is dispatched alike. */
    FENNS_U32 general_dispatch_x, general_dispatch_y, general_dispatch_z;
    FENNS_U32 local7_dispatch_x, local7_dispatch_y, local7_dispatch_z;
    FENNS_U32 local9_dispatch_x, local9_dispatch_y, local9_dispatch_z;
    /* fenns' fill of lists past one binding, a window a dispatch: the run
     * of work items that holds the queries whose lists start in the window
     * (window_items.comp), its first item, and the fill's
     * dispatches of the run, as above (all of it in the general search,
     * and in each of the three) */
    FENNS_U32 window_item_base;
    FENNS_U32 window_dispatch_x, window_dispatch_y, window_dispatch_z;
    FENNS_U32 window_general_dispatch_x, window_general_dispatch_y, window_general_dispatch_z;
    FENNS_U32 window_local7_dispatch_x, window_local7_dispatch_y, window_local7_dispatch_z;
    FENNS_U32 window_local9_dispatch_x, window_local9_dispatch_y, window_local9_dispatch_z;
    /* original order: the outputs whose lists start in the window
     * (FENNS_WINDOW_OUTPUTS) and the smallest and largest sorted position
     * among them (FENNS_WINDOW_SPAN; min > max: none) */
    FENNS_U32 window_output_begin, window_output_end;
    FENNS_U32 window_span_min, window_span_max;
} FENNS_END_STRUCT(fenns_gpu_params)


#endif /* FENNS_SHARED_H */
