/* The pipeline store: the compiled compute pipelines of a context's passes,
 * kept for every fenns_pipeline of that context that needs the same shader
 * with the same specialization constants.
 *
 * Why: compiling a pass is the dearest thing fenns does on the host. lavapipe
 * spends about 40 ms on each of a plan's twenty or so passes, a GPU driver
 * milliseconds; and plans of different sizes, radii and output shapes mostly
 * share their specialization, so an engine that makes a pipeline per fluid,
 * or remakes one when its particle count grows, compiles each pass once.
 * (The caller's VkPipelineCache, where it has one, still serves the first
 * compile; lavapipe's keeps nothing.)
 *
 * The store also owns the one descriptor-set layout and pipeline layout that
 * every built-in pass is made with (all plans bind the same sets and push
 * constants), made on the first fenns_pipeline_create, so a kept pipeline is
 * always used with the layout it was made with.
 *
 * Kept pipelines live while a fenns_pipeline holds them, and after that until
 * more than FENNS_STORE_UNUSED are unused (the longest-unused go first) or
 * the context is destroyed. A user kernel's search is kept too, by a copy of
 * its SPIR-V's words (the caller's buffer may be freed, or reused for
 * another kernel), where the kernel has no set layout of the caller's: a
 * pipeline made with that layout could not be kept past it (a destroyed
 * layout's handle may come back for a different one).
 *
 * Thread safety: fenns_pipeline_create and fenns_pipeline_destroy may run on
 * several threads for one context; a lock guards the store, never held while
 * a driver compiles (two threads that compile the same pass keep the first). */
#ifndef FENNS_PIPELINE_STORE_H
#define FENNS_PIPELINE_STORE_H

#include "context.h"

/* Unused pipelines a context keeps before it destroys the longest-unused. */
#define FENNS_STORE_UNUSED 64u
/* Specialization constants in a key (FENNS_SPEC_CONSTANTS, pipeline.h). */
#define FENNS_STORE_VALUES 13

/* Makes the store (no Vulkan call): FENNS_SUCCESS or FENNS_ERROR_OUT_OF_HOST_MEMORY. */
fenns_result fenns__store_create(struct fenns_context_T *ctx);
/* Destroys every kept pipeline, the layouts and the store. */
void fenns__store_destroy(struct fenns_context_T *ctx);

/* A pipeline layout of these sets (fenns' own, then a kernel's) and fenns'
 * push constants: every layout fenns makes. */
VkResult fenns__make_pipeline_layout(fenns_context ctx, const VkDescriptorSetLayout *sets, uint32_t set_count,
                                     VkPipelineLayout *out);
/* The layouts every built-in pass is made and bound with, made on first use. */
fenns_result fenns__store_layouts(fenns_context ctx, VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout);

/* A kept pipeline for the shader `code` with these specialization values,
 * held for the caller; VK_NULL_HANDLE if none. content_words 0: a built-in
 * shader, named by its address (fenns' static SPIR-V); else a kernel's
 * SPIR-V of that many words, named by its words. */
VkPipeline fenns__store_find(fenns_context ctx, const uint32_t *code, size_t content_words,
                             const uint32_t values[FENNS_STORE_VALUES]);
/* Keeps `made` (just compiled for that key; a kernel's words are copied) and
 * holds it for the caller; where another thread kept the same key meanwhile,
 * destroys `made` and holds that one. *out is the pipeline to use;
 * FENNS_ERROR_OUT_OF_HOST_MEMORY (with `made` destroyed) when the store
 * cannot grow or copy. */
fenns_result fenns__store_keep(fenns_context ctx, const uint32_t *code, size_t content_words,
                               const uint32_t values[FENNS_STORE_VALUES], VkPipeline made, VkPipeline *out);
/* Lets go of a pipeline that find or keep gave. */
void fenns__store_release(fenns_context ctx, VkPipeline pipeline);

#endif
