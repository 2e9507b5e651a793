/*
 * fenns — user neighbour kernels: GLSL that runs inside the search loop, for
 * every neighbour of every particle, with no list ever written (SPH density
 * and forces, PBF constraints, DEM contacts, photon gathering).
 *
 * The contract. A kernel is GLSL (no #version line) that defines
 *
 *     struct fenns_state { ... };            // per-particle state, in registers
 *     void fenns_init(inout fenns_state s, uint i, vec3 pi);
 *     void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2);
 *     vec4 fenns_finish(fenns_state s, uint i, vec3 pi);
 *
 *  - fenns_init, then fenns_neighbor once per neighbour j of i (j != i, dist2
 *    = the float32 |pj - pi|^2 <= r^2 of fenns.h's neighbour definition), then
 *    fenns_finish, whose vec4 lands in fenns_search_info.kernel_output[i].
 *    i and j are indices in the caller's original particle order.
 *  - One invocation owns particle i from init to finish: the state needs no
 *    atomics. With FENNS_METHOD_FENNS neighbours arrive in a fixed order
 *    (the search's), so float sums are bit-identical run to run;
 *    fenns-paper's build orders particles by atomics, so there the same
 *    neighbours may arrive in another order and sums round differently.
 *  - Optional, for small searches on a GPU: a kernel that also defines
 *
 *        #define FENNS_KERNEL_COMBINE
 *        void fenns_combine(inout fenns_state s, fenns_state part);
 *
 *    lets FENNS_METHOD_FENNS split particle i's neighbours over several
 *    invocations where the pipeline holds few particles (on a GPU, 4 up to
 *    2^14 particles, 2 up to 2^15; CPU drivers never: a search of a few
 *    thousand particles leaves most of a GPU idle, each invocation waiting
 *    on its own long walk). Each
 *    part runs its own fenns_init(s, i, pi), then fenns_neighbor for a fixed
 *    share of i's neighbours (in the search's order); fenns_combine folds
 *    the second part's state into the first's, then the third's, ..., and
 *    fenns_finish gets the result. So fenns_combine adds what `part`'s
 *    neighbours added: what fenns_init put in (a particle's own term) is in
 *    `part` too and must be taken out (samples/kernels/sph_density.glsl).
 *    Outputs stay bit-identical run to run for one pipeline, but float sums
 *    round differently from one invocation's. The parts' states meet in
 *    shared memory, a workgroup's worth (256 on most GPUs) of
 *    sizeof(fenns_state) bytes; where the search's would then pass the
 *    context's shared_memory_budget (fenns.h), each particle keeps one
 *    invocation. A kernel whose
 *    result depends on the order of all of i's neighbours must not define
 *    FENNS_KERNEL_COMBINE.
 *  - Invalid particles (NaN/Inf) get fenns_init then fenns_finish.
 *  - The kernel may call fenns_radius() (the radius of the build searched)
 *    and fenns_particle_count(), and declare its own buffers in descriptor set 1
 *    (layout(set = 1, binding = k) buffer ...), whose layout is
 *    fenns_kernel_info.user_set_layout and whose set is
 *    fenns_search_info.user_set. Set 0 and the push constants are fenns'.
 *  - It shares one compilation unit with fenns' search: names beginning
 *    with fenns_ are reserved, and fenns' own globals (pc, prm, cells, perm,
 *    counts, offsets, kernel_output, sorted0..3, s_*, and its helper
 *    functions) must not be redeclared; the compiler names any clash.
 *    Specialization constant ids 0 to 15 are fenns' too.
 *  - On drivers that stop a shader invocation after a fixed number of loop
 *    iterations (llvmpipe: 65535), fenns' own loops are checked (the search
 *    fails with FENNS_ERROR_DRIVER_LIMIT rather than come back short); loops
 *    inside the kernel count too and are the kernel's to keep short.
 *
 * Two ways to SPIR-V:
 *  - at build time, with no compiler in the program: the CMake function
 *    fenns_add_kernel(<target> kernel.glsl) (cmake/FennsKernel.cmake) makes a
 *    header with the SPIR-V words;
 *  - at run time, with fenns_kernel_compile below (link fenns::glslang,
 *    which brings glslang).
 * Either goes into fenns_pipeline_create_info.kernel; searches with
 * FENNS_OUTPUT_KERNEL then run it (fenns.h).
 */
#ifndef FENNS_FENNS_KERNEL_H
#define FENNS_FENNS_KERNEL_H

#include "fenns.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fenns_kernel_spirv {
    uint32_t *code; /* the kernel's search shader (malloc'd), for fenns_kernel_info.spirv */
    size_t size;    /* bytes */
    char *log;      /* the compiler's messages (malloc'd, NUL-terminated), NULL when none;
                       errors read "ERROR: <source_name>:<line>: ..." */
} fenns_kernel_spirv;

/* Splices the kernel `source` into fenns' search and compiles it with
 * glslang (Vulkan 1.1, SPIR-V 1.3). source_name names the kernel in
 * messages (NULL: "kernel"). Thread-safe.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (null source or out),
 *         FENNS_ERROR_KERNEL_COMPILE (out->log says where), FENNS_ERROR_OUT_OF_HOST_MEMORY.
 * On error out->code is NULL; out->log may still hold the messages. Free
 * *out with fenns_kernel_spirv_free either way. */
fenns_result fenns_kernel_compile(const char *source, const char *source_name, fenns_kernel_spirv *out);

/* NULL-safe; clears *spirv. */
void fenns_kernel_spirv_free(fenns_kernel_spirv *spirv);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_FENNS_KERNEL_H */
