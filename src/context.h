/* The context: the engine's device, the function table, the limits that
 * shape every plan, the logger and the host allocator. */
#ifndef FENNS_CONTEXT_H
#define FENNS_CONTEXT_H

#include <fenns/fenns.h>
#include "vk_functions.h"

typedef struct fenns_vk {
#define FENNS_VK_MEMBER_(name) PFN_##name name;
    FENNS_VK_INSTANCE_FUNCTIONS(FENNS_VK_MEMBER_)
    FENNS_VK_DEVICE_FUNCTIONS(FENNS_VK_MEMBER_)
#undef FENNS_VK_MEMBER_
    /* VK_EXT_debug_utils (instance functions); NULL unless debug_utils was asked for. */
    PFN_vkCmdBeginDebugUtilsLabelEXT vkCmdBeginDebugUtilsLabelEXT;
    PFN_vkCmdEndDebugUtilsLabelEXT vkCmdEndDebugUtilsLabelEXT;
    PFN_vkSetDebugUtilsObjectNameEXT vkSetDebugUtilsObjectNameEXT;
    /* VK_KHR_push_descriptor; NULL where the device does not have it enabled. */
    PFN_vkCmdPushDescriptorSetKHR vkCmdPushDescriptorSetKHR;
    /* VK_KHR_pipeline_executable_properties; NULL unless pipeline_statistics
     * was asked for (then every pipeline keeps its statistics). */
    PFN_vkGetPipelineExecutablePropertiesKHR vkGetPipelineExecutablePropertiesKHR;
    PFN_vkGetPipelineExecutableStatisticsKHR vkGetPipelineExecutableStatisticsKHR;
} fenns_vk;

struct fenns_context_T {
    fenns_vk vk;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family_index;
    const VkAllocationCallbacks *allocator; /* NULL or &allocator_copy */
    VkAllocationCallbacks allocator_copy;
    fenns_log_fn log;
    void *log_user_data;
    VkPipelineCache pipeline_cache;
    fenns_device_limits limits;
    uint32_t timestamp_valid_bits;
    uint32_t loop_limit; /* loop iterations a shader invocation may run (llvmpipe: 65535); 0: no limit */
    int cpu_device;      /* 1: a CPU driver (VK_PHYSICAL_DEVICE_TYPE_CPU), whose barriers drain nothing */
    uint32_t max_workgroup_size_x; /* maxComputeWorkGroupSize[0] */
    int push_descriptors; /* 1: passes push their descriptors; 0: descriptor sets from the
                             caller's fenns_descriptor_arena */
    struct fenns_pipeline_store *store; /* compiled passes and the layouts, shared by the
                                           context's pipelines (pipeline_store.h) */
};

/* Host memory through the caller's callbacks (or malloc). */
void *fenns__alloc(const fenns_context ctx, size_t size);
void fenns__free(const fenns_context ctx, void *memory);
/* Room for one more element in *array (count used of *capacity): when full,
 * a new array of twice the capacity (`first` when empty), the used elements
 * copied over. 0 (the array as it was) when the host has no memory. */
int fenns__grow(const fenns_context ctx, void **array, uint32_t count, uint32_t *capacity, size_t element,
                uint32_t first);

/* Logs a printf-style message when a logger is set. */
void fenns__log(const fenns_context ctx, fenns_log_level level, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Maps a VkResult to the fenns_result callers see. */
fenns_result fenns__from_vk(VkResult result);

#endif
