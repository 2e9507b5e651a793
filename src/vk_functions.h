/* The one list of Vulkan entry points fenns calls (X-macro). The core is
 * built with VK_NO_PROTOTYPES and loads these through the caller's
 * vkGetInstanceProcAddr/vkGetDeviceProcAddr into fenns_vk (context.h). */
#ifndef FENNS_VK_FUNCTIONS_H
#define FENNS_VK_FUNCTIONS_H

#define FENNS_VK_INSTANCE_FUNCTIONS(X)            \
    X(vkGetPhysicalDeviceProperties)              \
    X(vkGetPhysicalDeviceProperties2)             \
    X(vkGetPhysicalDeviceQueueFamilyProperties)   \
    X(vkGetPhysicalDeviceMemoryProperties)        \
    X(vkEnumerateDeviceExtensionProperties)       \
    X(vkGetDeviceProcAddr)

#define FENNS_VK_DEVICE_FUNCTIONS(X)              \
    X(vkCreateShaderModule)                       \
    X(vkDestroyShaderModule)                      \
    X(vkCreateDescriptorSetLayout)                \
    X(vkDestroyDescriptorSetLayout)               \
    X(vkCreatePipelineLayout)                     \
    X(vkDestroyPipelineLayout)                    \
    X(vkCreateComputePipelines)                   \
    X(vkDestroyPipeline)                          \
    X(vkCmdBindPipeline)                          \
    X(vkCmdPushConstants)                         \
    X(vkCmdBindDescriptorSets)                    \
    X(vkCmdDispatch)                              \
    X(vkCmdDispatchIndirect)                      \
    X(vkCmdPipelineBarrier)                       \
    X(vkCmdFillBuffer)                            \
    X(vkCmdCopyBuffer)                            \
    X(vkCmdResetQueryPool)                        \
    X(vkCmdWriteTimestamp)                        \
    X(vkCreateBuffer)                             \
    X(vkDestroyBuffer)                            \
    X(vkGetBufferMemoryRequirements)              \
    X(vkAllocateMemory)                           \
    X(vkFreeMemory)                               \
    X(vkBindBufferMemory)                         \
    X(vkMapMemory)                                \
    X(vkUnmapMemory)                              \
    X(vkFlushMappedMemoryRanges)                  \
    X(vkInvalidateMappedMemoryRanges)             \
    X(vkCreateCommandPool)                        \
    X(vkDestroyCommandPool)                       \
    X(vkAllocateCommandBuffers)                   \
    X(vkBeginCommandBuffer)                       \
    X(vkEndCommandBuffer)                         \
    X(vkResetCommandBuffer)                       \
    X(vkQueueSubmit)                              \
    X(vkCreateFence)                              \
    X(vkDestroyFence)                             \
    X(vkWaitForFences)                            \
    X(vkResetFences)                              \
    X(vkCreateQueryPool)                          \
    X(vkDestroyQueryPool)                         \
    X(vkGetQueryPoolResults)                      \
    X(vkCreateDescriptorPool)                     \
    X(vkDestroyDescriptorPool)                    \
    X(vkResetDescriptorPool)                      \
    X(vkAllocateDescriptorSets)                   \
    X(vkUpdateDescriptorSets)

#endif
