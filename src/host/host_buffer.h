/* Buffers the host path keeps between searches: each with its own memory,
 * of the kind its job wants, grow-only. */
#ifndef FENNS_HOST_BUFFER_H
#define FENNS_HOST_BUFFER_H

#include "context.h"

typedef enum fenns_host_memory {
    FENNS_HOST_MEMORY_DEVICE = 0, /* DEVICE_LOCAL (any type where none is) */
    FENNS_HOST_MEMORY_UPLOAD,     /* HOST_VISIBLE, mapped; write-combined preferred over CACHED */
    FENNS_HOST_MEMORY_READBACK    /* HOST_VISIBLE, mapped; HOST_CACHED preferred (reads from
                                     uncached memory run at a fraction of memory speed) */
} fenns_host_memory;

typedef struct fenns_host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;       /* of the buffer; 0 when none */
    VkDeviceSize allocated;  /* bytes of its memory */
    void *mapped;            /* host-visible kinds only */
    int coherent;            /* 0: flush after host writes, invalidate before host reads */
} fenns_host_buffer;

/* Makes b at least `size` bytes (>= 16) with `usage`: keeps it when it is
 * already that large, else replaces it (its contents are lost). On failure
 * b is empty, the failure is logged with `what`, and the VkResult returned. */
VkResult fenns__host_buffer_reserve(fenns_context ctx, fenns_host_buffer *b, VkDeviceSize size,
                                    VkBufferUsageFlags usage, fenns_host_memory kind, const char *what);

/* NULL-safe on an empty buffer; leaves it empty. */
void fenns__host_buffer_destroy(fenns_context ctx, fenns_host_buffer *b);

/* Host writes -> device (no-op on coherent memory). */
VkResult fenns__host_buffer_flush(fenns_context ctx, const fenns_host_buffer *b);
/* Device writes -> host reads, after the fence (no-op on coherent memory). */
VkResult fenns__host_buffer_invalidate(fenns_context ctx, const fenns_host_buffer *b);

#endif
