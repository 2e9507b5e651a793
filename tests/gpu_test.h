/*
 * The helper every GPU test uses: a headless device with validation and
 * synchronization validation always on, a fenns_context on it, and small
 * buffer / command-buffer helpers built on volk's global Vulkan functions.
 *
 * A test passes only if fenns_test_gpu_close returns 0: every validation
 * message, including those raised while the device is destroyed (leaked
 * objects), and every library error the test did not expect (tests that
 * provoke errors reset error_messages) is counted by the logger installed here.
 *
 *     fenns_test_gpu g;
 *     if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
 *     ... fenns_test_buffer_create / fenns_test_begin / fenns_cmd_* / fenns_test_submit ...
 *     return fenns_test_gpu_close(&g) == 0 && ok ? 0 : 1;
 */
#ifndef FENNS_TEST_GPU_H
#define FENNS_TEST_GPU_H

#include <volk.h> /* before the fenns headers: volk defines VK_NO_PROTOTYPES */

#include "fenns/fenns.h"
#include "fenns/fenns_headless.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fenns_test_gpu {
    fenns_headless headless;
    fenns_context context;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkCommandPool command_pool; /* for fenns_test_begin */
    VkPhysicalDeviceMemoryProperties memory_properties;
    fenns_device_limits limits;
    /* Counted by the logger (the logger's user data is this struct, so it
     * must not move between open and close). */
    uint32_t validation_messages; /* FENNS_LOG_ERROR messages starting "validation: " */
    uint32_t driver_oom_messages; /* of those, the driver reporting its own VK_ERROR_OUT_OF_HOST_MEMORY
                                     (Mesa logs each one through debug utils); not counted above */
    uint32_t error_messages;      /* other FENNS_LOG_ERROR messages (e.g. the library's) */
    char last_error[512];         /* the last of those (cut to fit) */
    uint32_t warning_messages;
    int quiet;                    /* 1: count but do not print (tests of expected errors) */
    /* For every recording's info (.descriptors): needed where the device has
     * no push descriptors (FENNS_NO_PUSH_DESCRIPTORS=1 opens it without
     * them), unused elsewhere. fenns_test_submit resets it once its command
     * buffer is done. */
    fenns_descriptor_arena arena;
} fenns_test_gpu;

/* Opens the default device (FENNS_DEVICE honoured) with validation on, and a
 * context with the given shared-memory budget (0: the device maximum).
 * On failure everything is released and the reason has been printed.
 * Returns FENNS_ERROR_UNSUPPORTED_DEVICE also when the validation layer is
 * missing: tests do not run unvalidated. */
fenns_result fenns_test_gpu_open(fenns_test_gpu *g, uint32_t shared_memory_budget);
/* As open, with the headless helper's pipeline_statistics asked for: the
 * context has them where the driver offers them. */
fenns_result fenns_test_gpu_open_statistics(fenns_test_gpu *g);

/* Destroys the context (pipelines must be gone), the pool and the device.
 * Returns the number of validation messages plus library errors seen since
 * open (printing each count); a test fails when it is not 0. NULL-safe, and
 * safe after a failed open. */
uint32_t fenns_test_gpu_close(fenns_test_gpu *g);

/* The logger installed by open: prints to stderr (unless g->quiet) and counts.
 * user_data is the fenns_test_gpu. */
void fenns_test_log(fenns_log_level level, const char *message, void *user_data);

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum fenns_test_memory {
    FENNS_TEST_DEVICE_LOCAL = 0, /* DEVICE_LOCAL (falls back to any type) */
    FENNS_TEST_HOST_VISIBLE = 1  /* HOST_VISIBLE|HOST_COHERENT (CACHED preferred), mapped */
} fenns_test_memory;

typedef struct fenns_test_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* FENNS_TEST_HOST_VISIBLE: persistently mapped; else NULL */
} fenns_test_buffer;

/* A buffer with its own dedicated memory. `usage` gets TRANSFER_SRC|TRANSFER_DST
 * added so upload/download work on every buffer. size 0 is rounded up to 4.
 * On error *out is zeroed. */
VkResult fenns_test_buffer_create(fenns_test_gpu *g, VkDeviceSize size, VkBufferUsageFlags usage,
                                  fenns_test_memory memory, fenns_test_buffer *out);
void fenns_test_buffer_destroy(fenns_test_gpu *g, fenns_test_buffer *buffer); /* NULL-safe, zeroes it */

/* {buffer, offset, range} for fenns_*_info; range VK_WHOLE_SIZE means to the end. */
fenns_buffer_range fenns_test_range(const fenns_test_buffer *buffer, VkDeviceSize offset, VkDeviceSize range);

/* A search of what `build` built: its particles, positions, scratch and
 * descriptor arena, with `outputs`; the output ranges are the caller's. */
fenns_search_info fenns_test_search_of(const fenns_build_info *build, fenns_output_flags outputs);

/* Copies host data into / out of a buffer range. Mapped buffers are copied
 * directly (the caller has waited for GPU work on them); others go through a
 * temporary host-visible buffer and a submitted copy that is waited for, with
 * full memory barriers on both sides (safe next to any earlier or later
 * submission). */
VkResult fenns_test_upload(fenns_test_gpu *g, fenns_test_buffer *dst, VkDeviceSize offset, const void *data,
                           VkDeviceSize size);
VkResult fenns_test_download(fenns_test_gpu *g, const fenns_test_buffer *src, VkDeviceSize offset, void *data,
                             VkDeviceSize size);

/* ------------------------------------------------------------------------ */
/* One-shot command buffers                                                 */
/* ------------------------------------------------------------------------ */

/* Allocates a primary command buffer from g->command_pool and begins it
 * (ONE_TIME_SUBMIT). */
VkResult fenns_test_begin(fenns_test_gpu *g, VkCommandBuffer *out_cmd);

/* Ends, submits to g->queue with a fence, waits, and frees the command buffer
 * (also on error). */
VkResult fenns_test_submit(fenns_test_gpu *g, VkCommandBuffer cmd);

/* Records a full memory barrier: all earlier writes (any stage) visible to all
 * later commands and to host reads. What a test adds after fenns_cmd_search
 * before mapping outputs or starting the next pass of its own. */
void fenns_test_cmd_barrier(VkCommandBuffer cmd);

/* The host path as the failure-injection tests drive it, on `ctx` (which
 * may be another context than g->context), in two parts (each a loop of
 * its own there, so that an iteration creates as few pipelines as it can):
 *  - ONE_SHOT: fenns_host_search of the first n/2 points at `radius`;
 *  - SEARCHER: one fenns_host_searcher created, run on the first n/2 points,
 *    on all n at 1.5*radius (pipeline, every buffer and the lists grow), on
 *    the first n/2 at 1.5*radius with counts only (warm: nothing created),
 *    destroyed.
 * *sum adds every run's total and a checksum of its lists. Returns the first
 * failure. When recover is given, a failed step calls recover(user) (which
 * ends the injection) and runs once more (on the same searcher), so *sum is
 * complete only if every failure left the searcher and context usable. */
typedef enum fenns_test_host_part { FENNS_TEST_HOST_ONE_SHOT, FENNS_TEST_HOST_SEARCHER } fenns_test_host_part;
fenns_result fenns_test_host_sequence(const fenns_test_gpu *g, fenns_context ctx, fenns_test_host_part part,
                                      const float *xyz, uint32_t n, float radius, uint64_t *sum,
                                      void (*recover)(void *), void *user);

/* Which injection sites a failure-injection test visits, so that ctest can
 * run its share of them in parallel: the host parts (`--part 0|1`, default
 * both) and every stride-th site from `first` (`--shard i/k`: sites i, i+k,
 * i+2k...; default 0/1). Returns 0 and prints usage on a bad argument. */
typedef struct fenns_test_sites {
    int part;    /* -1: both */
    long first;  /* first site */
    long stride; /* sites between two visited ones */
    const char *fault; /* `--fault NAME`, or NULL: every kind */
} fenns_test_sites;
int fenns_test_parse_sites(int argc, char **argv, fenns_test_sites *sites);

/* "VK_ERROR_DEVICE_LOST" etc., for messages. */
const char *fenns_test_vk_result_name(VkResult result);

/* An environment variable as the caller had it, to put back after a test
 * has set it (a value of up to 15 characters). */
typedef struct fenns_test_env {
    const char *name;
    int was_set;
    char value[16];
} fenns_test_env;
fenns_test_env fenns_test_env_save(const char *name);
void fenns_test_env_restore(const fenns_test_env *e);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_TEST_GPU_H */
