/*
 * What the samples that call Vulkan themselves (fenns bench, fenns-sph)
 * share, through volk's global functions: a buffer with its own memory,
 * and the one barrier they put between their passes.
 */
#ifndef FENNS_SAMPLE_GPU_H
#define FENNS_SAMPLE_GPU_H

#include <volk.h>

#include <fenns/fenns.h>

typedef struct sample_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* host: persistently mapped; else NULL */
} sample_buffer;

/* A storage buffer (also transfer source/destination and indirect) of `size`
 * bytes (0: 16) in its own allocation: DEVICE_LOCAL, or with `host`
 * HOST_VISIBLE|HOST_COHERENT and mapped. On error the caller destroys *out. */
VkResult sample_buffer_create(VkDevice device, VkPhysicalDevice physical_device, VkDeviceSize size, int host,
                              sample_buffer *out);
void sample_buffer_destroy(VkDevice device, sample_buffer *b); /* safe on a zeroed or half-made one */

/* The whole buffer as a fenns range. */
fenns_buffer_range sample_whole(const sample_buffer *b);

/* Compute and transfer writes -> every later compute, transfer, indirect and
 * host access. */
void sample_full_barrier(VkCommandBuffer cmd);

#endif
