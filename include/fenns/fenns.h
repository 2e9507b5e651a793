/*
 * fenns — fixed-radius neighbour search on Vulkan compute.
 *
 * The two-step method of Groß, Köster and Krüger (EG CGVC 2019): a coarse
 * uniform grid sorted with shared-memory atomics, every coarse cell split into
 * a border and an inner section, and a fine local grid built on the fly in
 * shared memory by the workgroup that searches a coarse cell.
 *
 * Conventions (the whole header follows them):
 *  - Zero means default in every create-info field; new members only at the end.
 *  - Functions that can fail return fenns_result. fenns_cmd_* return void, like
 *    vkCmd*, and on a bad argument log through the context's logger and record
 *    nothing.
 *  - Host memory goes through the VkAllocationCallbacks given at context
 *    creation. GPU memory is the caller's: the library states size, alignment
 *    and usage; the caller passes {VkBuffer, offset, range}.
 *  - The library calls Vulkan only through its own function table, loaded from
 *    the vkGetInstanceProcAddr/vkGetDeviceProcAddr the caller hands in.
 *
 * Thread safety: a fenns_context and its pipelines are immutable after
 * creation (but for the compiled passes a context keeps for its pipelines,
 * which a lock guards: pipelines of one context may be created and destroyed
 * on several threads); fenns_cmd_* may be called from any thread on distinct
 * command buffers. Creating and destroying objects must not race with their use.
 * A fenns_host_searcher is externally synchronized: one call at a time.
 *
 * Neighbour: j is a neighbour of i when j != i and the float32 value
 * dx*dx + dy*dy + dz*dz <= r*r with d = p_j - p_i. Particles with a NaN or Inf
 * coordinate are invalid: never neighbours, no neighbours, counted in
 * fenns_status.invalid_count.
 */
#ifndef FENNS_FENNS_H
#define FENNS_FENNS_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FENNS_VERSION_MAJOR 0
#define FENNS_VERSION_MINOR 1
#define FENNS_VERSION_PATCH 0

/* Every result code with its message; generates the enum and
 * fenns_result_string (sokol-style X-macro). */
#define FENNS_RESULT_LIST(X)                                                              \
    X(FENNS_SUCCESS, 0, "success")                                                       \
    X(FENNS_ERROR_INVALID_ARGUMENT, -1, "invalid argument")                              \
    X(FENNS_ERROR_OUT_OF_HOST_MEMORY, -2, "out of host memory")                          \
    X(FENNS_ERROR_OUT_OF_DEVICE_MEMORY, -3, "out of device memory")                      \
    X(FENNS_ERROR_UNSUPPORTED_DEVICE, -4, "device lacks a required Vulkan feature")      \
    X(FENNS_ERROR_TOO_LARGE, -5, "problem exceeds what the device can address")          \
    X(FENNS_ERROR_DEVICE_LOST, -6, "Vulkan device lost")                                 \
    X(FENNS_ERROR_VULKAN, -7, "Vulkan call failed")                                      \
    X(FENNS_ERROR_INCOMPLETE, -8, "output buffer too small; see fenns_status")                 \
    X(FENNS_ERROR_DRIVER_LIMIT, -9, "the driver's shader loop limit would cut the search short") \
    X(FENNS_ERROR_KERNEL_COMPILE, -10, "the neighbour kernel does not compile; see the log")

typedef enum fenns_result {
#define FENNS_RESULT_ENUM_(name, value, text) name = (value),
    FENNS_RESULT_LIST(FENNS_RESULT_ENUM_)
#undef FENNS_RESULT_ENUM_
    FENNS_RESULT_MAX_ENUM = 0x7FFFFFFF
} fenns_result;

/* Static string for a result code; "unknown fenns_result" for others. */
const char *fenns_result_string(fenns_result result);

typedef enum fenns_log_level {
    FENNS_LOG_ERROR = 0,
    FENNS_LOG_WARNING = 1,
    FENNS_LOG_INFO = 2,
    FENNS_LOG_LEVEL_MAX_ENUM = 0x7FFFFFFF
} fenns_log_level;

/* Logger: the library never prints; it reports here. May be called from any
 * thread that calls into the library. */
typedef void (*fenns_log_fn)(fenns_log_level level, const char *message, void *user_data);

typedef struct fenns_context_T *fenns_context;   /* one per VkDevice */
typedef struct fenns_pipeline_T *fenns_pipeline; /* one per configuration */

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

/* How passes bind their buffers. Push descriptors (VK_KHR_push_descriptor)
 * cost nothing to manage; where a driver lacks them (several mobile ones),
 * fenns writes descriptor sets allocated from a fenns_descriptor_arena that
 * the caller passes in each recording's info (see below). */
typedef enum fenns_descriptor_path {
    FENNS_DESCRIPTORS_AUTO = 0, /* push descriptors where the device has VK_KHR_push_descriptor
                                   enabled, else descriptor sets */
    FENNS_DESCRIPTORS_PUSH = 1, /* push descriptors, or FENNS_ERROR_UNSUPPORTED_DEVICE */
    FENNS_DESCRIPTORS_SETS = 2, /* descriptor sets, even where push descriptors exist */
    FENNS_DESCRIPTORS_MAX_ENUM = 0x7FFFFFFF
} fenns_descriptor_path;

typedef struct fenns_context_create_info {
    VkInstance instance;              /* required; must outlive the context */
    VkPhysicalDevice physical_device; /* required */
    VkDevice device;                  /* required; created with the features below */
    uint32_t queue_family_index;      /* the family whose queues run fenns_cmd_*; needs COMPUTE */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* required */
    PFN_vkGetDeviceProcAddr get_device_proc_addr; /* 0: looked up through get_instance_proc_addr */
    const VkAllocationCallbacks *allocation_callbacks; /* 0: malloc; used for every host allocation
                                                          and passed to every vkCreate* */
    fenns_log_fn log;       /* 0: silent */
    void *log_user_data;    /* passed to log */
    VkPipelineCache pipeline_cache; /* 0: none; used by fenns_pipeline_create */
    uint32_t shared_memory_budget;  /* bytes of shared memory one workgroup may use;
                                       0: maxComputeSharedMemorySize. Smaller values
                                       plan for mobile GPUs (e.g. 16384). */
    int debug_utils;  /* 1: the instance has VK_EXT_debug_utils enabled, and fenns wraps
                         every pass it records in a debug label ("fenns: build" around
                         "fenns: coarse count", "fenns: reorder", ...; "fenns: search"
                         around "fenns: search (counts)", ...) and names its pipelines
                         ("fenns: <pass>") for RenderDoc, Nsight and validation
                         messages. 0: no labels, no names, no cost. */
    fenns_descriptor_path descriptors; /* 0: AUTO */
    int pipeline_statistics; /* 1: the device was created with VK_KHR_pipeline_executable_properties
                                and its pipelineExecutableInfo feature, and fenns asks the driver
                                to keep what it compiled each pass into (registers, code size,
                                shared memory: fenns_pipeline_statistics). 0: nothing kept, no
                                cost. */
} fenns_context_create_info;

/* Device requirements, checked by fenns_context_create (FENNS_ERROR_UNSUPPORTED_DEVICE
 * otherwise, with the missing item logged): Vulkan 1.1; compute-stage subgroup operations BASIC,
 * ARITHMETIC and BALLOT; a subgroup size between 4 and 128; 16 KiB of shared memory.
 *
 * Cost: loads about 60 function pointers and queries properties; no GPU work.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (a required member is 0),
 *         FENNS_ERROR_UNSUPPORTED_DEVICE (also: debug_utils set but the instance
 *         does not give VK_EXT_debug_utils' functions; pipeline_statistics set but the
 *         device does not list VK_KHR_pipeline_executable_properties or gives none of its
 *         functions), FENNS_ERROR_OUT_OF_HOST_MEMORY. */
fenns_result fenns_context_create(const fenns_context_create_info *info, fenns_context *out_context);

/* NULL-safe. All pipelines of the context must be destroyed first. Destroys
 * the compiled passes the context kept. */
void fenns_context_destroy(fenns_context context);

/* 1 when the context's passes push their descriptors, 0 when they need a
 * fenns_descriptor_arena in every recording's info. */
int fenns_context_uses_push_descriptors(fenns_context context);

/* Descriptor sets for devices without push descriptors.
 *
 * Each pass fenns records then takes one descriptor set from the arena named
 * in the info (fenns_build_info.descriptors, fenns_search_info.descriptors,
 * fenns_reorder_info.descriptors), writes it once with that recording's
 * buffers and binds it; a set is never written again until the arena is
 * reset, so buffers may be destroyed and created (even with the same
 * handles) between frames without stale descriptors. Keep one arena per
 * frame in flight (and per recording thread): reset it when the command
 * buffers recorded with it have completed (after your fence or timeline
 * wait), or have been reset or freed unsubmitted. An arena grows by another
 * descriptor pool when a frame records more than it has held before, then
 * keeps it: steady frames allocate nothing. A build or search that cannot
 * get its sets (the pool's creation failed) logs the error, records nothing
 * more, and marks the status so that every query reads incomplete
 * (fenns_status.incomplete_queries). With push descriptors the arena is not
 * used, so code that always passes one runs on every device. A build or
 * search recorded without an arena where one is needed is refused (logged)
 * and records only that status mark.
 *
 * Thread safety: externally synchronized, like a VkCommandPool. */
typedef struct fenns_descriptor_arena_T *fenns_descriptor_arena;
fenns_result fenns_descriptor_arena_create(fenns_context context, fenns_descriptor_arena *out_arena);
void fenns_descriptor_arena_reset(fenns_descriptor_arena arena); /* NULL-safe */
void fenns_descriptor_arena_destroy(fenns_descriptor_arena arena); /* NULL-safe; after its command buffers completed */

/* The limits fenns reads from the device, for `fenns info` and diagnostics. */
typedef struct fenns_device_limits {
    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    uint32_t api_version;
    uint32_t subgroup_size;             /* the default size the device reports */
    uint32_t min_subgroup_size;         /* from VK_EXT_subgroup_size_control, else = subgroup_size */
    uint32_t max_subgroup_size;
    uint32_t max_shared_memory;         /* maxComputeSharedMemorySize */
    uint32_t shared_memory_budget;      /* what plans use (<= max_shared_memory) */
    uint64_t max_storage_buffer_range;
    uint64_t max_list_entries;          /* most list entries one search can write (the lists
                                           are bound in pieces of maxStorageBufferRange) */
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_count[3];
    uint64_t min_storage_buffer_offset_alignment;
    float timestamp_period_ns;          /* 0 when the queue family has no timestamps */
} fenns_device_limits;

void fenns_context_get_limits(fenns_context context, fenns_device_limits *out_limits);

/* ------------------------------------------------------------------------ */
/* Pipeline                                                                 */
/* ------------------------------------------------------------------------ */

typedef enum fenns_method {
    /* Default. Query-driven search over the fine local grid; coarse cells
     * sized by density and split into F^3 fine cells (F <= 5, per build), the
     * build sorting every coarse cell by fine cell and every fine cell by
     * original index; a neighbouring cell hands over only its fine-cell
     * layers facing the searching cell. Every output (permutation, list
     * order) is bit-identical run to run. */
    FENNS_METHOD_FENNS = 0,
    /* The published loop (paper Algorithms 1-4): candidate-driven, lists are
     * filled with atomics, so list order and the permutation vary between runs;
     * counts and list contents are exact. */
    FENNS_METHOD_FENNS_PAPER = 1,
    /* Hoetzlein's counting-sort grid, the papers' baseline: cells of edge r
     * (the margin), global atomic counts, a prefix sum and an atomic
     * scatter; then one invocation per query walks its own cell and the 26
     * around it. Cells beyond the capacity (about one per particle) fold
     * onto the table like a spatial hash, so a grid never fails to fit:
     * folded cells only cost distance tests. List order and the
     * permutation vary between runs; counts and list contents are exact.
     * Kernels run on it as on fenns-paper. No point sets. */
    FENNS_METHOD_COUNTING = 2,
    /* Morillo et al.'s octant search on the counting grid: cells of edge 2r
     * (two margins), and each particle searches only the 2x2x2 cells toward
     * the octant of its cell it lies in (per axis: the cell below and its
     * own for the lower half, its own and the one above for the upper half,
     * its own alone on the secant plane), 8 cells of 8 r^3 instead of 27 of
     * r^3. Otherwise as counting. */
    FENNS_METHOD_OCTANT = 3,
    /* Green's radix-sort grid, the papers' other baseline: counting's grid
     * (cells of edge r, folded beyond the capacity), but the particles are
     * placed by a stable GPU radix sort of (cell, index) pairs, 4 bits a
     * pass, and each cell's start and end found where the sorted keys
     * change; then counting's 27-cell walk. No atomics place anything, so
     * the permutation and the list order are the same every run (particles
     * of a cell in index order). Kernels run on it as on counting. No point
     * sets. */
    FENNS_METHOD_RADIX = 4,
    /* Picks fenns, counting, octant or radix when the pipeline is made, by
     * a cost model of each one's build + counts time fitted to H100
     * benchmarks of uniform sets (bench/fit_auto.py), from max_particles,
     * the radius and the caller's box (the expected neighbours: n / box
     * volume * 4/3 pi r^3); without a box the density is unknown and it
     * picks fenns. fenns_method_choose says what it picks and why; the
     * pipeline is then that method (fenns_plan_summary.method). The model
     * assumes evenly spread particles: clustered sets favour counting more
     * than it predicts. Point sets need fenns: name it. */
    FENNS_METHOD_AUTO = 5,
    FENNS_METHOD_MAX_ENUM = 0x7FFFFFFF
} fenns_method;

/* Name as the CLI spells it ("fenns", "fenns-paper", "counting", "octant", "radix", "auto"), NULL for unknown. */
const char *fenns_method_name(fenns_method method);

/* A user neighbour kernel: fenns' search shader with the user's GLSL spliced
 * in (fenns/fenns_kernel.h states the contract and makes the SPIR-V at run
 * time; the CMake function fenns_add_kernel makes it at build time). A
 * pipeline created with one records kernel searches (FENNS_OUTPUT_KERNEL)
 * besides every other search. */
typedef struct fenns_kernel_info {
    const uint32_t *spirv;   /* required: the kernel's search shader */
    size_t spirv_size;       /* bytes, a multiple of 4 */
    /* The layout of the kernel's own descriptor set (set = 1 in its GLSL:
     * velocities, masses, outputs...), or VK_NULL_HANDLE when it declares
     * none. Must outlive the pipeline. Set 0 and the push constants are
     * fenns'; the kernel declares no push constants. */
    VkDescriptorSetLayout user_set_layout;
} fenns_kernel_info;

typedef struct fenns_pipeline_create_info {
    fenns_method method;
    float radius;            /* required: finite, > 0 */
    uint32_t max_particles;  /* required: capacity the memory requirements are sized for */
    /* Domain box. When domain_min < domain_max on every axis the box is the
     * caller's; when all six are 0 the box of the valid particles is computed
     * on the GPU at every build. Particles outside the box are clamped into
     * the boundary cells and still found exactly. */
    float domain_min[3];
    float domain_max[3];
    const fenns_kernel_info *kernel; /* 0: none; read during the call only */
    /* counting, octant, radix: 0 (default) cells of the method's own edge
     * (r; octant 2r), folded onto a table of about one cell per particle.
     * m > 0: the grid the FENNS paper gives these baselines (its Table 4:
     * m = 90/r in its scenes): the caller's box (required) cut into m cubic
     * cells along its longest axis, each at least the method's own edge, in
     * a table that holds every cell (28 bytes a cell, radix 12);
     * FENNS_ERROR_TOO_LARGE where the device's cell tables cannot hold them.
     * A build whose own box or radius needs more cells folds them as usual. */
    uint32_t grid_size;
} fenns_pipeline_create_info;

/* Builds the plan (coarse grid, fine local grid, workgroup sizes, buffer
 * layout) and the compute pipelines (with a kernel, its search too; a
 * kernel's SPIR-V is checked only by the driver, so a module that is not
 * fenns' search with a kernel spliced in is undefined behaviour).
 * Cost: compiling the passes (about 20; lavapipe about 40 ms each) the first
 * time; the context keeps each compiled pass and later pipelines whose plan
 * specializes it alike take it with no compile (most plans of one method
 * share most of their passes, whatever their size or radius). It keeps them while
 * a pipeline uses them and up to 64 more, until fenns_context_destroy. A
 * kernel's search is kept the same way, named by its SPIR-V's words (copied:
 * the caller's buffer may go after this call), unless the kernel has a
 * user_set_layout: then it is compiled for every pipeline.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (radius not finite or <= 0, max_particles 0,
 *         inverted or non-finite domain, grid_size without a caller's box or for
 *         fenns / fenns-paper), FENNS_ERROR_TOO_LARGE (max_particles beyond what
 *         maxStorageBufferRange can address, which is always below 2^29, or a
 *         grid_size grid beyond the cell tables), FENNS_ERROR_UNSUPPORTED_DEVICE
 *         (a pipeline would declare more shared memory than the device has: a
 *         kernel's own shared arrays count; the log names the pipeline),
 *         FENNS_ERROR_VULKAN,
 *         FENNS_ERROR_OUT_OF_HOST_MEMORY. */
fenns_result fenns_pipeline_create(fenns_context context, const fenns_pipeline_create_info *info,
                                   fenns_pipeline *out_pipeline);
void fenns_pipeline_destroy(fenns_pipeline pipeline); /* NULL-safe */

/* The plan, as `fenns info --stats` prints it. Grid dimensions that depend on
 * the domain are maxima when the domain is computed on the GPU. */
typedef struct fenns_plan_summary {
    uint32_t coarse_cell_capacity;  /* most coarse cells the grid may use */
    uint32_t coarse_dims[3];        /* for the caller's box; 0 when computed on the GPU */
    uint32_t fine_dims_max;         /* per axis, of the local grid */
    uint32_t workgroup_size;
    uint32_t shared_memory_bytes;   /* of the search workgroup */
    uint32_t shared_histogram;      /* 1: coarse counting in shared memory (paper) */
    fenns_method method;            /* the pipeline's method (FENNS_METHOD_AUTO's pick) */
} fenns_plan_summary;
void fenns_pipeline_get_plan(fenns_pipeline pipeline, fenns_plan_summary *out_plan);

/* What the driver compiled each of the pipeline's passes into, for profilers
 * and `fenns profile --pipelines`: fn is called once for every statistic of
 * every executable (one for a compute pipeline) of every pass the pipeline
 * has made, with the pass's name (as in fenns_profile) and the driver's own
 * executable properties and statistic, which it names and describes. The
 * NVIDIA driver reports "Register Count", "Binary Size" and "Shared Memory
 * Size", say: registers per invocation bound how many workgroups a
 * multiprocessor holds. Passes another pipeline of the context made are
 * reported too (they are shared). The pointers live during the call only.
 *
 * Needs a context created with pipeline_statistics; without it, or with a
 * NULL pipeline or fn, nothing is called.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT, FENNS_ERROR_UNSUPPORTED_DEVICE (the
 *         context has no pipeline_statistics; logged), FENNS_ERROR_VULKAN and
 *         FENNS_ERROR_OUT_OF_HOST_MEMORY (the driver's; after the statistics
 *         reported so far). */
typedef void (*fenns_pipeline_statistic_fn)(const char *pass, const VkPipelineExecutablePropertiesKHR *executable,
                                            const VkPipelineExecutableStatisticKHR *statistic, void *user_data);
fenns_result fenns_pipeline_statistics(fenns_pipeline pipeline, fenns_pipeline_statistic_fn fn, void *user_data);

/* What FENNS_METHOD_AUTO picks for a pipeline info (its method is not
 * read), and why. Methods whose plan the device refuses are not
 * candidates; fenns-paper never is (slower than fenns on every set
 * measured). */
#define FENNS_METHOD_CHOICES 5 /* predicted_ms entries: FENNS_METHOD_FENNS .. FENNS_METHOD_RADIX */
typedef struct fenns_method_choice {
    fenns_method method;                         /* the pick */
    float expected_neighbors;                    /* from n, r and the caller's box; -1 without a box */
    float predicted_ms[FENNS_METHOD_CHOICES];    /* build + counts per method (H100 model); 0: not predicted */
    char reason[320];                            /* one line: the inputs, the predictions, the pick */
} fenns_method_choice;
/* Errors: as fenns_pipeline_create's plan (FENNS_ERROR_INVALID_ARGUMENT,
 * FENNS_ERROR_TOO_LARGE where no candidate fits the device). */
fenns_result fenns_method_choose(fenns_context context, const fenns_pipeline_create_info *info,
                                 fenns_method_choice *out_choice);

typedef struct fenns_buffer_range {
    VkBuffer buffer;
    VkDeviceSize offset;
    VkDeviceSize range; /* bytes; VK_WHOLE_SIZE is not accepted */
} fenns_buffer_range;

typedef struct fenns_memory_requirements {
    VkDeviceSize size;
    VkDeviceSize alignment;   /* of the offset the caller passes */
    VkBufferUsageFlags usage; /* the buffer must have been created with these */
} fenns_memory_requirements;

/* Scratch for particle_count particles (<= max_particles): the sorted particles,
 * the permutation, the coarse cell tables and the search status. It must stay
 * untouched between fenns_cmd_build and the searches that use it. */
void fenns_pipeline_get_scratch_requirements(fenns_pipeline pipeline, uint32_t particle_count,
                                             fenns_memory_requirements *out);

/* Where in the scratch the build leaves the permutation (u32 per particle,
 * sorted position -> original index; valid particles first, ordered by coarse
 * cell and section within the cell -- fenns-paper: border then inner;
 * fenns: its F^3 fine cells, x fastest, each by original index -- then the
 * invalid ones) and the status (a fenns_status). Offsets are relative to the
 * scratch range's offset. */
typedef struct fenns_scratch_layout {
    VkDeviceSize permutation_offset;
    VkDeviceSize status_offset;
} fenns_scratch_layout;
void fenns_pipeline_get_scratch_layout(fenns_pipeline pipeline, uint32_t particle_count,
                                       fenns_scratch_layout *out);

/* What the GPU writes for the caller to read back after a search
 * (std430 layout: u32 and one u64, no padding; 88 bytes). */
typedef struct fenns_status {
    uint32_t particle_count;   /* particles of the last build: its particle_count, or
                                  its GPU count capped at that */
    uint32_t invalid_count;    /* particles with NaN/Inf coordinates */
    uint64_t total_neighbors;  /* entries the lists need (CSR m) */
    uint32_t list_overflow;    /* particles whose list did not fit (fixed capacity or CSR capacity) */
    uint32_t max_neighbors;    /* the longest list: the fixed capacity that would have fit */
    uint32_t coarse_dims[3];   /* grid of the last build */
    uint32_t fine_dims[3];     /* largest local grid used */
    float domain_min[3];       /* box of the last build */
    float domain_max[3];
    uint32_t incomplete_queries; /* queries not searched because the driver stops a shader
                                    invocation after a fixed number of loop iterations
                                    (llvmpipe: 65535) and theirs would need more (e.g. >10^5
                                    coincident particles); when nonzero, counts and lists
                                    are invalid. Always 0 on drivers without such a limit. */
    uint32_t fine_split;       /* fenns: fine cells per coarse cell edge of the last build
                                  (the sections of every coarse cell); fenns-paper: 0 */
    uint32_t requested_count;  /* the count the build was asked for: its info's
                                  particle_count, or the value its particle_count_buffer
                                  held; above particle_count when that buffer asked for
                                  more particles than the build info allows */
    uint32_t grid_mismatch;    /* point sets: 1 when the last search's candidates were a build
                                  on another grid (see fenns_search_info.candidate_scratch);
                                  none of its queries was searched and each counts in
                                  incomplete_queries */
} fenns_status;

/* ------------------------------------------------------------------------ */
/* Recording                                                                */
/* ------------------------------------------------------------------------ */

/* Per-pass GPU timestamps, for profilers and `fenns bench --passes`.
 * Point fenns_build_info.profile or fenns_search_info.profile at one and
 * fenns writes a timestamp (BOTTOM_OF_PIPE) before its first pass and after
 * each pass: pass k took timestamps[k + 1] - timestamps[k]. Queries
 * first_query .. first_query + FENNS_MAX_PROFILED_PASSES must exist in
 * query_pool (VK_QUERY_TYPE_TIMESTAMP) and be reset by the caller before the
 * command buffer runs. fenns_profile_pass_ms turns them into milliseconds.
 * No profile (the default): no timestamps, no cost. */
#define FENNS_MAX_PROFILED_PASSES 15
typedef struct fenns_profile {
    VkQueryPool query_pool;
    uint32_t first_query;
    /* Written by fenns_cmd_* when it records: */
    uint32_t pass_count;  /* passes timed: pass_count + 1 timestamps written */
    const char *pass_names[FENNS_MAX_PROFILED_PASSES]; /* static strings, e.g. "coarse count" */
    uint64_t pass_bytes[FENNS_MAX_PROFILED_PASSES];    /* device-memory bytes each pass reads and
                                                          writes, estimated from the plan (lists and
                                                          data-dependent traffic at their minimum) */
} fenns_profile;

/* Milliseconds of each of the profile's passes from its pass_count + 1
 * timestamps (as read with vkGetQueryPoolResults, 64-bit), using the
 * device's timestampPeriod and timestampValidBits.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (null argument), FENNS_ERROR_UNSUPPORTED_DEVICE
 *         (the context's queue family writes no timestamps). */
fenns_result fenns_profile_pass_ms(fenns_context context, const fenns_profile *profile,
                                   const uint64_t *timestamps, double *out_pass_ms);

/* A domain box for one build (fenns_build_info.domain); the rules of
 * fenns_pipeline_create_info's box: particles outside are clamped into the
 * boundary cells and still found exactly. */
typedef struct fenns_domain {
    float min[3];
    float max[3];
} fenns_domain;

typedef struct fenns_build_info {
    uint32_t particle_count;        /* <= max_particles; 0 is allowed */
    fenns_buffer_range positions;   /* vec4 per particle (xyz used, w ignored), 16*n bytes;
                                       may exceed maxStorageBufferRange */
    fenns_buffer_range scratch;     /* see fenns_pipeline_get_scratch_requirements */
    fenns_profile *profile;         /* 0: none; else per-pass timestamps (see fenns_profile) */
    /* Per-build parameters (per frame, without re-creating the pipeline).
     * The searches of this build use its radius; every radius and box fits
     * the plan, which depends on max_particles and the device only (the GPU
     * sizes the grid at each build). */
    float radius;                   /* 0: the pipeline's radius; else finite, > 0 */
    const fenns_domain *domain;     /* NULL: the pipeline's domain mode (its box, or the
                                       particles' box computed on the GPU); else this
                                       box, min < max on every axis, extent finite; read
                                       during the call only */
    /* GPU-driven count: a uint32 at particle_count_buffer.offset that the GPU
     * wrote (the engine's emitter or culling pass), read by the build as its
     * particle count; particle_count is then the most it may be (the
     * positions and outputs are sized for particle_count). Particles from
     * the count up to particle_count are absent: never read, nobody's
     * neighbour, and their outputs are written as an invalid particle's
     * (count 0, an empty list; a kernel's fenns_finish with no neighbour).
     * A count above particle_count is taken as particle_count and the status
     * says so (requested_count > particle_count). buffer VK_NULL_HANDLE: the
     * count is particle_count. Needs STORAGE_BUFFER usage, an offset that is
     * a multiple of minStorageBufferOffsetAlignment, range >= 4 bytes. */
    fenns_buffer_range particle_count_buffer;
    fenns_descriptor_arena descriptors; /* required where the context has no push descriptors
                                           (fenns_context_uses_push_descriptors); else unused */
    /* Point sets (fluid, boundary, debris...): the scratch of an earlier
     * build by this pipeline whose grid -- box, radius, coarse and fine
     * cells -- this build takes instead of sizing its own, so that each of
     * the two builds can search the other's particles
     * (fenns_search_info.candidate_scratch). Build a static set once and
     * give it as the grid source of the moving sets' builds every frame
     * (particles outside its box are still found exactly), or give all
     * builds one source. Requires that build's writes visible to
     * COMPUTE_SHADER reads; radius must be 0 and domain NULL; the fenns
     * method only. A source this pipeline's plan cannot hold (never built, or
     * by a pipeline whose cell tables are larger) leaves the build a grid of
     * its own, and a search between the two then reports grid_mismatch. Null
     * buffer: the build sizes its own grid. */
    fenns_buffer_range grid_source;
    /* The particles the grid is sized for, where more than this build's
     * count: the grid's cells suit the density of that many particles in
     * the box. Give a set that lends its grid (grid_source) to a denser set
     * that set's count, so that both search on cells sized for the dense one
     * (results are exact either way; a grid sized for a sparse set only
     * makes the dense set's searches slower). 0, or at most the count: the
     * build's own count. Ignored with grid_source. */
    uint32_t grid_particle_count;
} fenns_build_info;

/* Sorts the particles into the coarse grid (paper Algorithms 1-2).
 *
 * Records:  compute dispatches (fenns' section sort indirect, its workgroup
 *           count read from the scratch) and fills of the scratch range, with barriers
 *           between its own passes.
 * Requires: the caller's writes to positions (and to particle_count_buffer)
 *           visible to VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT, and
 *           prior reads of the scratch finished (the build overwrites it).
 * Produces: the scratch (sorted particles, permutation, cell tables, status)
 *           written at COMPUTE_SHADER / SHADER_WRITE and TRANSFER / TRANSFER_WRITE;
 *           add a barrier from those before reading it.
 * Clobbers: the bound compute pipeline, descriptor set 0 (pushed, or bound from
 *           the arena) and push constants of the compute bind point.
 * Never:    submits, waits, allocates (but a descriptor arena's next pool, the
 *           first time a frame outgrows it), or changes queue ownership. */
void fenns_cmd_build(VkCommandBuffer cmd, fenns_pipeline pipeline, const fenns_build_info *info);

typedef enum fenns_output_flag_bits {
    FENNS_OUTPUT_COUNTS = 0x1, /* counts[i] = number of neighbours of particle i */
    FENNS_OUTPUT_CSR = 0x2,    /* offsets (n+1) and indices; implies COUNTS */
    FENNS_OUTPUT_FIXED = 0x4,  /* indices[i*capacity + k], k < min(count, capacity); implies COUNTS */
    FENNS_OUTPUT_SORTED_LISTS = 0x8, /* with CSR: each list ascending by original index
                                        (an extra pass; FIXED lists keep search order) */
    FENNS_OUTPUT_COUNTS_READY = 0x10, /* with CSR: `counts` already holds this build's
                                         counts (a COUNTS search on the same build, whose
                                         writes the caller made visible to compute reads),
                                         so the counting pass is skipped: size the lists
                                         from fenns_status.total_neighbors, then fill them */
    FENNS_OUTPUT_SORTED_ORDER = 0x20, /* everything in the build's sorted order: counts,
                                         offsets and lists indexed by sorted position k,
                                         list entries are sorted positions too, and
                                         sorted_to_original (when given) receives the
                                         permutation k -> original index. What a solver
                                         that reorders its particles each step wants;
                                         the lists of neighbouring queries lie side by
                                         side (far faster to write when they span
                                         gigabytes). With COUNTS_READY the counts must be a
                                         SORTED_ORDER search's of the same build. */
    FENNS_OUTPUT_KERNEL = 0x40, /* run the pipeline's user kernel instead of writing lists:
                                   kernel_output[i] = fenns_finish(...) of particle i (vec4),
                                   with COUNTS also counts; combines with SORTED_ORDER
                                   (indexed by sorted position; the kernel still sees
                                   original indices), not with CSR or FIXED */
    FENNS_OUTPUT_FLAG_BITS_MAX_ENUM = 0x7FFFFFFF
} fenns_output_flag_bits;
typedef uint32_t fenns_output_flags;

typedef struct fenns_search_info {
    uint32_t particle_count;      /* the same as the build's */
    fenns_buffer_range positions; /* the same range the build read */
    fenns_buffer_range scratch;   /* the same range the build wrote */
    fenns_output_flags outputs;
    fenns_buffer_range counts;    /* u32 per particle, indexed by original index */
    fenns_buffer_range offsets;   /* CSR: u64 n+1, offsets[n] = m */
    fenns_buffer_range indices;   /* CSR: u32 entries (range/4 = capacity);
                                     FIXED: n*fixed_capacity u32. Original indices.
                                     May exceed maxStorageBufferRange (up to
                                     FENNS_INDEX_CHUNKS times it, rounded down
                                     to a power of two: see fenns_device_limits). */
    uint32_t fixed_capacity;      /* FIXED: entries per particle */
    fenns_profile *profile;       /* 0: none; else per-pass timestamps (see fenns_profile) */
    fenns_buffer_range sorted_to_original; /* SORTED_ORDER: u32 per particle, written by a
                                              transfer copy (needs TRANSFER_DST usage);
                                              null buffer: not written */
    fenns_buffer_range kernel_output; /* KERNEL: vec4 per particle (16*n bytes); null
                                         buffer: not written (a kernel that writes its own
                                         buffers) */
    VkDescriptorSet user_set;         /* KERNEL: bound as set 1 when the kernel has a
                                         user_set_layout (then required), else ignored */
    fenns_descriptor_arena descriptors; /* as fenns_build_info.descriptors */
    /* Point sets: the neighbours of this build's particles (the queries)
     * are searched among another build's particles (the candidates): fluid
     * among boundary, one domain among its neighbour's ghosts. That build, of
     * candidate_count particles, must be by this pipeline and on this build's
     * grid (one was the other's grid_source, or both had the same one), and
     * made visible to COMPUTE_SHADER reads; fenns method only. Outputs stay
     * per query (this build's particle_count, order and status); list
     * entries and kernel neighbours j are the candidates' indices (original,
     * or with SORTED_ORDER the candidate build's sorted positions), so each
     * (query set, candidate set) pair has its outputs and a list never mixes
     * sets. No particle is skipped as "itself". A candidate build on another
     * grid is reported, never searched: fenns_status.grid_mismatch and every
     * query in incomplete_queries. Null buffer, or this search's own scratch:
     * the build's own particles. */
    uint32_t candidate_count;
    fenns_buffer_range candidate_scratch;
} fenns_search_info;

/* Searches every particle's neighbours (paper Algorithms 3-4 or the query-driven
 * default). With CSR, lists that would run past the indices range are not
 * written; fenns_status.total_neighbors says how much room they need and
 * list_overflow how many particles were skipped. With KERNEL, the pipeline's
 * kernel runs once per particle over its neighbours (fenns_kernel.h) and
 * fenns_status.total_neighbors counts the neighbours it saw.
 *
 * Records:  compute dispatches (the main one indirect, its workgroup count read
 *           from the scratch), barriers between its passes;
 *           with SORTED_ORDER and sorted_to_original, a copy of the permutation.
 *           Every method but FENNS_METHOD_FENNS_PAPER may fill lists, CSR or
 *           FIXED, whose indices range passes one storage-buffer binding
 *           (maxStorageBufferRange) a window of at most 2^30 entries at a
 *           time, a dispatch each with barriers between them (each window's
 *           lists bound as one binding; in original order a workgroup's
 *           stores scattered over more memory cost far more; fenns records
 *           before each window's dispatch the dispatches that find the
 *           window's work items, a barrier after each: one, of one
 *           workgroup, for SORTED_ORDER; three in original order, the
 *           second reading the permutation). A search for
 *           counts alone ends with a
 *           dispatch, after a barrier, that sums them into
 *           fenns_status.total_neighbors and keeps the longest in
 *           max_neighbors.
 * Requires: a fenns_cmd_build on the same positions and scratch (by this pipeline,
 *           or by one created from the same create info but `kernel`: the kernel
 *           does not change the plan, so several kernels search one build), made visible
 *           to COMPUTE_SHADER reads and writes and TRANSFER reads and writes
 *           (fenns_cmd_build_to_search_barrier
 *           records exactly that barrier); prior accesses to counts, offsets,
 *           indices and kernel_output finished; with KERNEL, whatever the
 *           kernel reads or writes through user_set made ready for
 *           COMPUTE_SHADER access.
 * Produces: counts, offsets, indices, kernel_output and the scratch status
 *           written at COMPUTE_SHADER / SHADER_WRITE (so are the kernel's own
 *           writes), sorted_to_original at TRANSFER / TRANSFER_WRITE; the
 *           caller adds the barrier to its consumer.
 * Clobbers: the bound compute pipeline, descriptor set 0 (pushed, or bound from
 *           the arena), push constants, and with a user set, the descriptor set
 *           bound at set 1.
 * Never:    submits, waits, allocates (but a descriptor arena's next pool, the
 *           first time a frame outgrows it), or changes queue ownership. */
void fenns_cmd_search(VkCommandBuffer cmd, fenns_pipeline pipeline, const fenns_search_info *info);

/* Point sets by an activation table: one build per set, all on one grid
 * (fenns_build_info.grid_source), and a search of every active (query set,
 * candidate set) pair. */
typedef struct fenns_point_set {
    uint32_t particle_count;       /* the set's build's particle_count */
    fenns_buffer_range positions;  /* the range its build read */
    fenns_buffer_range scratch;    /* the range its build wrote */
} fenns_point_set;

typedef struct fenns_point_sets_search_info {
    uint32_t set_count;
    const fenns_point_set *sets;   /* set_count */
    const uint8_t *active;         /* set_count^2: active[q * set_count + c] != 0: set q
                                      searches set c (q == c: among itself) */
    /* set_count^2, read where active: each pair's outputs, flags and the rest
     * of a fenns_search_info (particle_count, positions, scratch and the
     * candidate fields are filled in from `sets`). */
    const fenns_search_info *searches;
} fenns_point_sets_search_info;

/* Records the search of every active pair, in order (q, then c), with a
 * compute barrier between each two (a search writes the status block of
 * its query set's build and reads its candidate set's). Each pair's
 * search is fenns_cmd_search's, with its Records / Requires / Produces /
 * Clobbers / Never; a pair whose info is refused is logged and records
 * nothing, the others are recorded. Requires every set's build made visible (one
 * fenns_cmd_build_to_search_barrier after the last build). */
void fenns_cmd_search_point_sets(VkCommandBuffer cmd, fenns_pipeline pipeline, const fenns_point_sets_search_info *info);

/* Records the one barrier a search needs after a build on the same scratch:
 * COMPUTE_SHADER|TRANSFER writes -> COMPUTE_SHADER|TRANSFER reads and writes and
 * DRAW_INDIRECT (the search's workgroup count comes from the scratch). */
void fenns_cmd_build_to_search_barrier(VkCommandBuffer cmd, fenns_pipeline pipeline);

/* Moving the caller's per-particle attributes (velocity, mass, colour, ...:
 * any element of `stride` bytes) by a build's permutation, so a solver can
 * keep its particles in the sorted order a SORTED_ORDER search speaks. */
typedef enum fenns_reorder_direction {
    FENNS_REORDER_TO_SORTED = 0,   /* dst[k] = src[perm[k]]: element k of the build's sorted order */
    FENNS_REORDER_TO_ORIGINAL = 1, /* dst[perm[k]] = src[k]: back to the original order */
    FENNS_REORDER_DIRECTION_MAX_ENUM = 0x7FFFFFFF
} fenns_reorder_direction;

typedef struct fenns_reorder_info {
    uint32_t particle_count;       /* the build's n */
    fenns_buffer_range scratch;    /* the build's scratch (its permutation is read) */
    fenns_reorder_direction direction;
    uint32_t stride;               /* bytes per element: a multiple of 4, > 0 */
    fenns_buffer_range src;        /* stride*n bytes */
    fenns_buffer_range dst;        /* stride*n bytes; the same buffer and offset as src
                                      reorders in place (then temp is required); any
                                      other overlap with src is refused */
    fenns_buffer_range temp;       /* in place only: stride*n bytes that src is copied to
                                      first (needs TRANSFER_DST; src then needs TRANSFER_SRC) */
    fenns_descriptor_arena descriptors; /* as fenns_build_info.descriptors */
} fenns_reorder_info;

/* Records the reorder (one dispatch, one word per invocation; in place, a copy
 * to temp and a barrier first). src, dst and temp ranges are bound whole and
 * must each fit maxStorageBufferRange; offsets aligned as storage buffers.
 * Records:  a compute dispatch; in place also a copy src -> temp and a barrier
 *           (TRANSFER -> COMPUTE_SHADER).
 * Requires: a fenns_cmd_build on `scratch` made visible to COMPUTE_SHADER reads
 *           (fenns_cmd_build_to_search_barrier does), src's writes visible to
 *           COMPUTE_SHADER reads (in place: to TRANSFER reads), prior accesses
 *           of dst (and temp) finished.
 * Produces: dst written at COMPUTE_SHADER / SHADER_WRITE.
 * Clobbers: the bound compute pipeline, descriptor set 0 (pushed, or bound from
 *           the arena), push constants.
 * Bad arguments are logged and nothing is recorded. */
void fenns_cmd_reorder(VkCommandBuffer cmd, fenns_pipeline pipeline, const fenns_reorder_info *info);

/* ------------------------------------------------------------------------ */
/* Pass by pass, for frame graphs                                           */
/* ------------------------------------------------------------------------ */

/* fenns_cmd_build and fenns_cmd_search record a sequence of passes with one
 * barrier between consecutive passes. A frame graph may instead take the
 * passes one by one: fenns_get_build_passes / fenns_get_search_passes list
 * them for one info, with the caller's buffer ranges each reads and writes
 * (and at which stages and accesses), and fenns_cmd_build_pass /
 * fenns_cmd_search_pass record pass k alone -- the same commands, with no
 * barrier before or after (a pass of several dispatches, such as a scan,
 * keeps the barriers between its own dispatches). The caller then orders the passes 0, 1, ... and puts, between
 * them, barriers that make every pass's writes visible to the later passes'
 * accesses (a frame graph derives them from the lists; the all-in-one calls
 * use one global memory barrier, see fenns_cmd_build_to_search_barrier).
 * Between the build's last pass and the search's first the same holds (the
 * search reads its workgroup counts from the scratch: DRAW_INDIRECT).
 * A pass may write only part of a range it declares (the scratch holds
 * several tables), so a later access needs a barrier from every earlier
 * write to the range, not only from the last one; and an access that is not
 * readonly in the pass's shader is declared as read and write.
 * The list depends only on the pipeline, the info's outputs and which of its
 * ranges are set, so it may be fetched once and reused while those stay the
 * same. A profile in the info gets its timestamps as with the all-in-one call
 * (pass 0 writes the first), provided the passes are recorded in order.
 * Offsets changed between a CSR search's offsets scan and its fill cost only
 * the lists that no longer fit (counted in fenns_status.list_overflow): no
 * entry is written outside its own list. */
#define FENNS_MAX_PASSES 12
#define FENNS_MAX_PASS_ACCESSES 5

typedef enum fenns_resource {
    FENNS_RESOURCE_POSITIONS = 0,
    FENNS_RESOURCE_SCRATCH = 1,
    FENNS_RESOURCE_COUNTS = 2,
    FENNS_RESOURCE_OFFSETS = 3,
    FENNS_RESOURCE_INDICES = 4,
    FENNS_RESOURCE_SORTED_TO_ORIGINAL = 5,
    FENNS_RESOURCE_KERNEL_OUTPUT = 6,
    FENNS_RESOURCE_USER_SET = 7, /* whatever the kernel's user_set holds: range is null */
    FENNS_RESOURCE_PARTICLE_COUNT = 8, /* fenns_build_info.particle_count_buffer */
    FENNS_RESOURCE_GRID_SOURCE = 9,    /* fenns_build_info.grid_source (read) */
    FENNS_RESOURCE_CANDIDATE_SCRATCH = 10, /* fenns_search_info.candidate_scratch (read) */
    FENNS_RESOURCE_MAX_ENUM = 0x7FFFFFFF
} fenns_resource;

typedef struct fenns_pass_access {
    fenns_resource resource;
    fenns_buffer_range range;      /* the info's range it names */
    VkPipelineStageFlags stages;   /* COMPUTE_SHADER, TRANSFER and/or DRAW_INDIRECT */
    VkAccessFlags accesses;        /* SHADER_READ/WRITE, TRANSFER_READ/WRITE, INDIRECT_COMMAND_READ */
} fenns_pass_access;

typedef struct fenns_pass_info {
    const char *name; /* static; as in fenns_profile and the debug label "fenns: <name>" */
    uint32_t access_count;
    fenns_pass_access accesses[FENNS_MAX_PASS_ACCESSES];
} fenns_pass_info;

/* Fills out[0 .. count-1] (room for FENNS_MAX_PASSES) with the passes
 * fenns_cmd_build (fenns_cmd_search) records for this info and returns
 * count; 0 (logged) when the info would be refused by the all-in-one call,
 * or out is NULL. Listing needs no descriptor arena (recording does). */
uint32_t fenns_get_build_passes(fenns_pipeline pipeline, const fenns_build_info *info, fenns_pass_info *out);
uint32_t fenns_get_search_passes(fenns_pipeline pipeline, const fenns_search_info *info, fenns_pass_info *out);

/* Records pass `pass` of the list above, and no barrier around it. Records nothing
 * (logged) for a refused info or a pass index past the list. Clobbers and
 * Never: as the all-in-one calls. */
void fenns_cmd_build_pass(VkCommandBuffer cmd, fenns_pipeline pipeline, const fenns_build_info *info, uint32_t pass);
void fenns_cmd_search_pass(VkCommandBuffer cmd, fenns_pipeline pipeline, const fenns_search_info *info,
                           uint32_t pass);

/* ------------------------------------------------------------------------ */
/* Host convenience: host positions in, CSR out                             */
/* ------------------------------------------------------------------------ */

typedef struct fenns_host_search_info {
    fenns_method method;
    float radius;
    const float *positions;   /* x,y,z per particle, `stride` bytes apart; read during the call only */
    size_t stride;            /* 0: 3*sizeof(float) */
    uint32_t particle_count;
    float domain_min[3];      /* as fenns_pipeline_create_info */
    float domain_max[3];
    VkQueue queue;            /* of the context's queue family; used exclusively during the call */
    int counts_only;          /* 1: fill counts (and offsets) only, no lists */
    const fenns_kernel_info *kernel; /* 0: none. Else run this user kernel (fenns_kernel.h; no
                                        user_set_layout) instead of writing lists: counts,
                                        offsets and kernel_values come back, as with counts_only */
    /* Point sets: the neighbours of the particles above (the queries) are
     * searched among these particles (the candidates) instead of among
     * themselves -- fluid among boundary, a rank's particles among its
     * neighbour's ghosts. Results stay per query; list entries (and a
     * kernel's j) are candidate indices, and no candidate is skipped as the
     * query itself. Both sets are built for each run, on one grid (the
     * candidates' build, with cells sized for the larger set); run once per
     * active pair of an activation table. The fenns method only.
     * candidate_positions NULL: among themselves. */
    const float *candidate_positions; /* x,y,z per particle, candidate_stride bytes apart; read
                                         during the call only */
    size_t candidate_stride;          /* 0: 3*sizeof(float) */
    uint32_t candidate_count;
} fenns_host_search_info;

/* CSR result. Its arrays point into memory its producer owns (see
 * fenns_host_searcher_run and fenns_host_search for how long they live);
 * the caller reads them and never frees them itself. */
typedef struct fenns_host_csr {
    uint64_t particle_count;
    uint64_t total;             /* m */
    uint64_t *offsets;          /* n+1, offsets[n] = m (also with counts_only) */
    uint32_t *indices;          /* m, each list ascending (NULL with counts_only) */
    uint32_t *counts;           /* n */
    float *kernel_values;       /* with a kernel: 4n, fenns_finish's vec4 of each particle; else NULL */
    fenns_status status;
    double build_ms;            /* GPU timestamps; -1 when unsupported */
    double search_ms;           /* counting + lists */
    double lists_ms;            /* the list-writing part of search_ms (0 with counts_only) */
    uint64_t gpu_memory_bytes;  /* device memory (device-local and host-visible) its searcher holds */
    fenns_method method;        /* the method that ran (FENNS_METHOD_AUTO's pick: from the run's count,
                                   radius and box, the positions' own box when none is given) */
    void *owner;                /* private: non-NULL when fenns_host_csr_free has memory to release */
} fenns_host_csr;

/* A reusable host search: the pipeline, device buffers, upload and readback
 * buffers, command pool, fence and timestamp queries that fenns_host_searcher_run
 * needs, kept between runs so a warm run allocates nothing and compiles nothing.
 * Thread safety: externally synchronized (one run at a time per searcher);
 * distinct searchers of one context may run on distinct threads and queues. */
typedef struct fenns_host_searcher_T *fenns_host_searcher;

/* Creates an empty searcher: the command pool, fence and (where the queue
 * family writes timestamps) query pool; buffers and the pipeline come with the
 * first run. No GPU work.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (null argument), FENNS_ERROR_OUT_OF_HOST_MEMORY,
 *         FENNS_ERROR_OUT_OF_DEVICE_MEMORY, FENNS_ERROR_VULKAN. On error *out_searcher is NULL. */
fenns_result fenns_host_searcher_create(fenns_context context, fenns_host_searcher *out_searcher);

/* NULL-safe. Waits for nothing: no run may be in progress. Frees the memory
 * every fenns_host_csr it returned points into. Destroy searchers before
 * their context. */
void fenns_host_searcher_destroy(fenns_host_searcher searcher);

/* Host positions in, CSR out: packs the positions into the upload buffer
 * as x,y,z (a plain copy for a stride of 12; the only CPU work before the
 * GPU starts), then
 *   submit 1: upload copy, widening to vec4 on the GPU, fenns_cmd_build,
 *             fenns_cmd_search(COUNTS), and the
 *             copies of status and counts to the readback; wait;
 *   submit 2 (not with counts_only): fenns_cmd_search(CSR | COUNTS_READY |
 *             SORTED_LISTS) into lists sized exactly from the status' total,
 *             and the copies of offsets and indices to the readback; wait.
 * With counts_only the offsets are summed on the CPU from the counts.
 *
 * With a kernel, submit 1 runs it (FENNS_OUTPUT_KERNEL | COUNTS) and reads
 * its values back; there is no submit 2.
 *
 * Caching: the pipeline is re-created only when method, radius, domain or
 * the kernel's SPIR-V (compared by content) change, or particle_count exceeds its capacity (which then grows by at
 * least half); buffers only grow (the lists by at least a quarter), so a
 * steady simulation allocates nothing after its first frames. Memory is
 * kept until fenns_host_searcher_destroy.
 *
 * Returned memory: out's arrays point straight into the searcher's mapped
 * readback memory (no copy). They stay valid until the next
 * fenns_host_searcher_run on this searcher (successful or not) or its
 * destruction; copy what must live longer. fenns_host_csr_free on such a
 * csr only clears it (the memory stays the searcher's).
 *
 * Cost: two queue submissions and waits (one with counts_only); device memory
 * about 68 bytes per particle of capacity plus the scratch plus 8 bytes per
 * list entry (device lists and their readback).
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (null argument, null queue or positions,
 *         stride < 12, radius or domain rejected by fenns_pipeline_create;
 *         candidate_count without candidate_positions, candidate_stride < 12,
 *         or point sets with a method other than fenns or auto; a kernel whose
 *         SPIR-V is null, short or not SPIR-V, or that has a user_set_layout),
 *         FENNS_ERROR_TOO_LARGE (particles or list entries beyond what the device
 *         binds), FENNS_ERROR_OUT_OF_DEVICE_MEMORY, FENNS_ERROR_OUT_OF_HOST_MEMORY,
 *         FENNS_ERROR_DEVICE_LOST, FENNS_ERROR_VULKAN, FENNS_ERROR_INCOMPLETE
 *         (lists overflowed their exact size: a device fault), FENNS_ERROR_DRIVER_LIMIT
 *         (the driver stops a shader invocation after a fixed number of loop
 *         iterations, llvmpipe 65535, and some query needs more; see
 *         fenns_status.incomplete_queries). Every error is logged; on error *out
 *         is empty and the searcher stays usable. */
fenns_result fenns_host_searcher_run(fenns_host_searcher searcher, const fenns_host_search_info *info,
                                     fenns_host_csr *out);

/* One-shot fenns_host_searcher_run: creates a searcher sized exactly for this
 * call, runs it, and hands it to *out, whose arrays then live until
 * fenns_host_csr_free(context, out) destroys it (no copy of the results).
 * Cost: a pipeline creation (shader compilation) and buffer allocations, then
 * what a run costs; keep a fenns_host_searcher for repeated searches.
 * Errors: those of fenns_host_searcher_create and fenns_host_searcher_run.
 * On error *out is empty and nothing is left allocated. */
fenns_result fenns_host_search(fenns_context context, const fenns_host_search_info *info,
                               fenns_host_csr *out);

/* Releases what csr owns -- the searcher behind a fenns_host_search result;
 * nothing for a fenns_host_searcher_run result, whose memory stays the
 * searcher's -- and clears *csr. NULL-safe; safe on a cleared csr; context
 * is the one the csr was made with. */
void fenns_host_csr_free(fenns_context context, fenns_host_csr *csr);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_FENNS_H */
