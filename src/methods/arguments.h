/* The argument checks fenns_cmd_* share (fenns_method.c, reorder.c): a range
 * the caller passes, its alignment, and the build's scratch. */
#ifndef FENNS_ARGUMENTS_H
#define FENNS_ARGUMENTS_H

#include "pipeline.h"

/* A bound buffer range of at least `need` bytes (VK_WHOLE_SIZE is refused). */
static inline int fenns__range_ok(const fenns_buffer_range *r, VkDeviceSize need) {
    return r->buffer != VK_NULL_HANDLE && r->range >= need && r->range != VK_WHOLE_SIZE;
}

/* An offset a storage buffer may be bound at. */
static inline int fenns__aligned(fenns_pipeline p, VkDeviceSize offset) {
    VkDeviceSize a = p->ctx->limits.min_storage_buffer_offset_alignment;
    return a == 0 || offset % a == 0;
}

/* What is wrong with a build's scratch range for n particles, or NULL. */
static inline const char *fenns__scratch_problem(fenns_pipeline p, uint32_t n, const fenns_buffer_range *scratch) {
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(p, n, &req);
    if (!fenns__range_ok(scratch, req.size)) return "scratch range is null or smaller than the scratch requirements";
    if (scratch->offset % req.alignment) return "scratch offset is not aligned to the scratch requirements";
    return NULL;
}

#endif
