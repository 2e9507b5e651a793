/* The shared (Workgroup) memory a SPIR-V compute module declares, read from
 * its words: so a pipeline that needs more than the device has fails with a
 * named error before the driver sees it (a user kernel's own shared arrays,
 * a planner that undercounts), and the tests can hold the planner's budgets
 * to the shaders' real declarations. No Vulkan. */
#ifndef FENNS_SPIRV_SHARED_H
#define FENNS_SPIRV_SHARED_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of all Workgroup variables of `words` (word_count 32-bit words), each
 * the sum of its elements' sizes (no padding: a lower bound of what any
 * driver allocates). Array lengths that are specialization constants take
 * spec[SpecId] where SpecId < spec_count, else their default.
 * FENNS_SPIRV_UNKNOWN where the module is malformed or a size cannot be read
 * (runtime arrays, lengths computed by OpSpecConstantOp). */
#define FENNS_SPIRV_UNKNOWN UINT64_MAX
uint64_t fenns__spirv_shared_bytes(const uint32_t *words, size_t word_count, const uint32_t *spec,
                                   uint32_t spec_count);

/* Whether `words` declares a specialization constant of SpecId `spec_id`
 * (a user kernel that combines its states declares fenns' constant 11:
 * shaders/template/fenns_kernel_parts.glsl). 0 for a malformed module. */
int fenns__spirv_declares_spec_id(const uint32_t *words, size_t word_count, uint32_t spec_id);

#endif
