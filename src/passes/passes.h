/* One function per pass of a build or search (paper Algorithms 1-4). Each
 * records its dispatch; the callers in methods/ put the barriers between. */
#ifndef FENNS_PASSES_H
#define FENNS_PASSES_H

#include "pipeline.h"

/* What every pass of one build/search needs to find its buffers. */
typedef struct fenns_frame {
    uint32_t n;
    fenns_buffer_range positions;
    fenns_buffer_range scratch;
    fenns_scratch_plan layout;
    /* The build's grid parameters: the pipeline's, or the build info's. */
    float radius;
    uint32_t user_domain; /* 1: the box below; 0: the particles' bounding box (domain reduce) */
    float domain_min[3], domain_max[3];
    fenns_buffer_range particle_count_buffer; /* the caller's GPU count; null buffer: n */
    fenns_buffer_range grid_source;           /* build: the scratch whose grid it takes; null buffer: none */
    uint32_t grid_particle_count;             /* build: the particles its grid is sized for (0: its own) */
    uint32_t density_bins;                    /* build: fenns' density histogram (0: no density pass) */
    int grid_setup_clears;                    /* build: grid setup writes the status block's first
                                                 values (no clear, no domain reduce before it) */
    fenns_descriptor_arena arena;             /* the info's; used without push descriptors */
} fenns_frame;

void fenns__frame_init(fenns_frame *f, fenns_pipeline p, uint32_t n, const fenns_buffer_range *positions,
                       const fenns_buffer_range *scratch);
/* Whether the build reads the caller's particle count (pc.gpu_count). */
static inline uint32_t fenns__uses_gpu_count(const fenns_frame *f) {
    return f->particle_count_buffer.buffer != VK_NULL_HANDLE;
}
/* Workgroups of a grid-stride pass over f's particles (none for none). */
static inline uint64_t fenns__grid_stride_groups(fenns_pipeline p, const fenns_frame *f) {
    return f->n ? p->plan.count_groups : 0u;
}
/* Binds the scratch region r at binding (a placeholder if r is empty). */
void fenns__bind_region(fenns_bindings *b, const fenns_frame *f, uint32_t binding, fenns_region r);
/* Binds the look-back states of the scan of `scanned` elements after the
 * pass being recorded, which zeroes them (shaders/include/lookback_states.glsl):
 * where that scan looks back, its states at the scan sums
 * (fenns_plan_scan_lookback_bytes), their count in pc->capacity_hi; where it
 * takes two dispatches, none (a placeholder range, never written; count 0). */
void fenns__bind_lookback_states(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f, fenns_push *pc,
                                 int looks_back, uint64_t scanned);
void fenns__bind_positions(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f);
void fenns__bind_sorted(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f);

/* A build or search that could not record all its passes (no descriptor
 * set): after a barrier, its scratch's status says every query is
 * incomplete (sort_incomplete too, which each later search of the build
 * copies into incomplete_queries), and the search's workgroup count is 0 so
 * a later search runs nothing on a half-made build. (sequence.c) */
void fenns__mark_incomplete(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);

/* Build passes (build_passes.c). */
void fenns__pass_clear(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_domain_reduce(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_grid_setup(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_density(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_coarse_count(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_cell_scan(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_cell_cursors(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_reorder(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, int write_sorted);
void fenns__pass_section_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_section_order(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_cell_order(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_cell_order_wide(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_search_work(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);

/* radix's build passes (radix_passes.c), in place of the count, cursors and
 * reorder: keys; the sort (every digit pass, barriers between); each key's
 * count from the sorted keys (the cell scan follows); the gather. */
void fenns__pass_radix_keys(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_radix_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_radix_bounds(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_radix_gather(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);

/* Search passes (search_passes.c). */
typedef struct fenns_outputs {
    fenns_buffer_range counts, offsets, indices;
    uint32_t fixed_capacity;
    uint32_t sorted_order; /* FENNS_OUTPUT_SORTED_ORDER */
} fenns_outputs;
/* What a kernel search writes and binds besides fenns_outputs' counts. */
typedef struct fenns_kernel_outputs {
    fenns_buffer_range values; /* vec4 per particle; null buffer: none */
    int counts;                /* 1: counts too */
    VkDescriptorSet user_set;  /* set 1, or VK_NULL_HANDLE */
} fenns_kernel_outputs;
/* offsets_scan: the search scans CSR offsets after it (whose look-back
 * states this pass zeroes where the scan is one dispatch). */
void fenns__pass_reset_status(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, int counts_ready,
                              int offsets_scan);
/* The search of f's particles among the candidates c: f itself, or
 * another build on f's grid (point sets). own_counts: in CSR, the lists were
 * sized by this search's own counting pass, so a query with none is not
 * walked again; in COUNT, this is that counting pass, whose total the fill
 * takes from the offsets instead. same_search: the counting pass and the
 * fill of one CSR search (recorded together), so that where both split
 * their queries alike the counting pass leaves where each part's list
 * starts (search_passes.c's part_firsts). */
void fenns__pass_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_frame *c,
                        const fenns_outputs *o, uint32_t mode, int own_counts, int same_search);
/* The user kernel's search (FENNS_OUTPUT_KERNEL). */
void fenns__pass_search_kernel(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_frame *c,
                               const fenns_outputs *o, const fenns_kernel_outputs *k);
void fenns__copy_permutation(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_buffer_range *to);
void fenns__pass_offsets_scan(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o);
/* fenns_cmd_reorder's gather: `words` u32 per particle from `in` to `out`
 * by the permutation (to_original 0: out[k] = in[perm[k]]). */
void fenns__pass_reorder_attributes(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f,
                                    const fenns_buffer_range *in, const fenns_buffer_range *out, uint32_t words,
                                    uint32_t to_original);
void fenns__pass_list_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o);
/* The host path's upload: n tightly packed x,y,z (12 bytes each) in `xyz`
 * -> n vec4 positions (w = 1) in `vec4`, both bound whole (each within
 * maxStorageBufferRange); descriptors from `arena` where needed. */
void fenns__pass_expand_positions(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena,
                                  const fenns_buffer_range *xyz, const fenns_buffer_range *vec4, uint32_t n);

/* A build or search as a sequence of steps (sequence.c): each step is one
 * pass of fenns_get_*_passes, recorded by one function from what the
 * fenns_cmd_* call was given. */
typedef struct fenns_recording {
    fenns_frame f;
    fenns_frame candidates; /* search: the build whose particles are the candidates (f's copy when its own) */
    fenns_outputs o;
    fenns_kernel_outputs k;
    fenns_buffer_range sorted_to_original; /* SORTED_ORDER's permutation copy; null: none */
    int counts_ready;
    int counts_own; /* with counts_ready: the counts are this pipeline's counting search's of the same
                       build (fenns__cmd_search_own_counts), so a query with none is not walked */
    int counts_for_lists; /* the counting pass sizes this search's CSR lists */
    fenns_profile *profile;
} fenns_recording;

/* fenns_cmd_search for CSR with COUNTS_READY where the counts are known to
 * be this pipeline's own counting search's of the same build, checked
 * complete (the host path's second submit): the fill skips the queries they
 * say have none. The public flag cannot vouch for a caller's counts, so
 * there a query is walked whatever its count says. */
void fenns__cmd_search_own_counts(VkCommandBuffer cmd, fenns_pipeline p, const fenns_search_info *info);

typedef void (*fenns_step_fn)(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r);

typedef struct fenns_step {
    fenns_step_fn record;
    uint64_t bytes; /* device-memory traffic estimate, for the profile */
    fenns_pass_info info;
} fenns_step;

typedef struct fenns_steps {
    fenns_step items[FENNS_MAX_PASSES];
    uint32_t count;
} fenns_steps;

/* Appends a step; its accesses follow with fenns__access. */
fenns_step *fenns__step(fenns_steps *s, const char *name, fenns_step_fn record, uint64_t bytes);
void fenns__access(fenns_step *step, fenns_resource resource, const fenns_buffer_range *range,
                   VkPipelineStageFlags stages, VkAccessFlags accesses);

/* Every step, a barrier between consecutive ones, all inside the label
 * `label` (with debug_utils) and timed by r->profile. */
void fenns__record_steps(VkCommandBuffer cmd, fenns_pipeline p, const fenns_steps *s, const fenns_recording *r,
                         const char *label);
/* Step k alone, no barrier (frame graphs). */
void fenns__record_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_steps *s, const fenns_recording *r,
                        uint32_t k);

#endif
