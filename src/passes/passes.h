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
} fenns_frame;

void fenns__frame_init(fenns_frame *f, fenns_pipeline p, uint32_t n, const fenns_buffer_range *positions,
                       const fenns_buffer_range *scratch);
/* Binds the scratch region r at binding (a placeholder if r is empty). */
void fenns__bind_region(fenns_bindings *b, const fenns_frame *f, uint32_t binding, fenns_region r);
void fenns__bind_positions(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f);
void fenns__bind_sorted(fenns_bindings *b, const fenns_pipeline p, const fenns_frame *f);

/* Build passes (build_passes.c). */
void fenns__pass_clear(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_domain_reduce(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_grid_setup(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_coarse_count(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_cell_scan(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_cell_cursors(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_reorder(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, int write_sorted);
void fenns__pass_section_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_section_order(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);
void fenns__pass_search_work(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f);

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
void fenns__pass_reset_status(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, int counts_ready);
void fenns__pass_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o,
                        uint32_t mode);
/* The user kernel's search (FENNS_OUTPUT_KERNEL). */
void fenns__pass_search_kernel(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o,
                               const fenns_kernel_outputs *k);
void fenns__copy_permutation(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_buffer_range *to);
void fenns__pass_offsets_scan(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o);
void fenns__pass_list_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f, const fenns_outputs *o);

#endif
