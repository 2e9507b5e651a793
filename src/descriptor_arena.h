/* Descriptor sets for contexts without push descriptors: the caller's
 * fenns_descriptor_arena hands out sets that are written once per recording
 * and reclaimed only when the caller resets the arena. */
#ifndef FENNS_DESCRIPTOR_ARENA_H
#define FENNS_DESCRIPTOR_ARENA_H

#include "context.h"

/* A set of `layout` from the arena, growing it by a pool when its pools are
 * full; VK_NULL_HANDLE (logged, counted in fenns__arena_failures) when no
 * pool could be made. */
VkDescriptorSet fenns__arena_set(fenns_descriptor_arena arena, VkDescriptorSetLayout layout);

/* Sets the arena could not hand out since it was created; a recording
 * compares it before and after to know whether all its passes were bound. */
uint64_t fenns__arena_failures(const struct fenns_descriptor_arena_T *arena);

#endif
