/* The host searcher's state, shared by its lifecycle (host_searcher.c) and
 * the one-shot wrapper (host_search.c). */
#ifndef FENNS_HOST_SEARCHER_H
#define FENNS_HOST_SEARCHER_H

#include "host_buffer.h"
#include "pipeline.h"

/* Timestamps: the build's two, then the counting search's profile, then
 * (right after its last one) the list search's profile. */
enum { FENNS_HOST_TS_BUILD_BEGIN, FENNS_HOST_TS_BUILD_END, FENNS_HOST_TS_COUNTS_BEGIN,
       FENNS_HOST_TS_COUNT = FENNS_HOST_TS_COUNTS_BEGIN + 2 * (FENNS_MAX_PROFILED_PASSES + 1) };

struct fenns_host_searcher_T {
    fenns_context ctx;
    fenns_pipeline pipeline;
    fenns_pipeline_create_info config; /* of `pipeline`; max_particles is its capacity */
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool timestamps; /* VK_NULL_HANDLE where the queue family has none */
    fenns_descriptor_arena arena; /* sets of the one recording in flight (no push descriptors) */
    fenns_host_buffer upload;    /* packed x,y,z (or vec4 where too many for one binding), host-visible */
    fenns_host_buffer staged;    /* device-local copy of the packed x,y,z, widened on the GPU */
    fenns_host_buffer positions; /* device-local vec4 positions the build reads */
    fenns_host_buffer scratch, counts, offsets, indices;
    fenns_host_buffer readback;       /* status | counts | offsets, cached host memory */
    fenns_host_buffer lists_readback; /* indices, cached host memory */
    fenns_host_buffer values, values_readback; /* a kernel's vec4 per particle, device and cached host */
    /* Point sets: the candidates' upload, positions and build */
    fenns_host_buffer candidate_upload, candidate_staged, candidate_positions, candidate_scratch;
    uint32_t *kernel_code; /* a copy of the pipeline's kernel SPIR-V (NULL: none) */
    size_t kernel_size;
};

/* Offsets in `readback` for a capacity of n particles (256-byte aligned). */
typedef struct fenns_host_readback_layout {
    VkDeviceSize status, counts, offsets, size;
} fenns_host_readback_layout;
fenns_host_readback_layout fenns__host_readback_layout(uint64_t n);

/* Makes the pipeline match info (method, radius, domain) with room for
 * info->particle_count particles, and every per-particle buffer match the
 * pipeline's capacity. Logs what fails. */
fenns_result fenns__host_searcher_prepare(fenns_host_searcher s, const fenns_host_search_info *info);

/* Makes the device lists and their readback hold `entries` list entries. */
fenns_result fenns__host_searcher_reserve_lists(fenns_host_searcher s, uint64_t entries);

/* Device memory the searcher holds, in bytes. */
uint64_t fenns__host_searcher_memory(fenns_host_searcher s);

/* Logs a failed Vulkan call of a run by name and returns its fenns_result. */
fenns_result fenns__host_vk_failed(fenns_host_searcher s, VkResult r, const char *call);

#endif
