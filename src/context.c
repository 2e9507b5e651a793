/* Context creation: load the function table, read the device limits, check
 * the requirements every plan relies on. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "fenns_shared.h"
#include "pipeline_store.h"
#include "plan.h"

_Static_assert(FENNS_BINDING_COUNT == 28, "the requirement message below names the binding count");

void *fenns__alloc(const fenns_context ctx, size_t size) {
    if (ctx && ctx->allocator && ctx->allocator->pfnAllocation)
        return ctx->allocator->pfnAllocation(ctx->allocator->pUserData, size, 16,
                                             VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    return malloc(size);
}

void fenns__free(const fenns_context ctx, void *memory) {
    if (!memory) return;
    if (ctx && ctx->allocator && ctx->allocator->pfnFree)
        ctx->allocator->pfnFree(ctx->allocator->pUserData, memory);
    else
        free(memory);
}

int fenns__grow(const fenns_context ctx, void **array, uint32_t count, uint32_t *capacity, size_t element,
                uint32_t first) {
    if (count < *capacity) return 1;
    uint32_t grown = *capacity ? 2u * *capacity : first;
    void *bigger = fenns__alloc(ctx, element * grown);
    if (!bigger) return 0;
    if (count) memcpy(bigger, *array, element * count);
    fenns__free(ctx, *array);
    *array = bigger;
    *capacity = grown;
    return 1;
}

void fenns__log(const fenns_context ctx, fenns_log_level level, const char *format, ...) {
    if (!ctx || !ctx->log) return;
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    ctx->log(level, message, ctx->log_user_data);
}

/* 1 when the device lists the extension, 0 when not, -1 out of host memory. */
static int has_extension(struct fenns_context_T *ctx, const char *name) {
    uint32_t count = 0;
    if (ctx->vk.vkEnumerateDeviceExtensionProperties(ctx->physical_device, NULL, &count, NULL) != VK_SUCCESS)
        return 0;
    VkExtensionProperties *props = fenns__alloc(ctx, sizeof *props * (count ? count : 1));
    if (!props) return -1;
    int found = 0;
    if (ctx->vk.vkEnumerateDeviceExtensionProperties(ctx->physical_device, NULL, &count, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; ++i) found = strcmp(props[i].extensionName, name) == 0;
    fenns__free(ctx, props);
    return found;
}

/* Loads the table; returns the name of the first missing entry point. */
static const char *load_functions(struct fenns_context_T *ctx, PFN_vkGetInstanceProcAddr gipa,
                                  PFN_vkGetDeviceProcAddr gdpa) {
#define FENNS_LOAD_INSTANCE_(name)                                              \
    ctx->vk.name = (PFN_##name)gipa(ctx->instance, #name);                      \
    if (!ctx->vk.name) return #name;
    FENNS_VK_INSTANCE_FUNCTIONS(FENNS_LOAD_INSTANCE_)
#undef FENNS_LOAD_INSTANCE_
    if (!gdpa) gdpa = ctx->vk.vkGetDeviceProcAddr;
#define FENNS_LOAD_DEVICE_(name)                                                \
    ctx->vk.name = (PFN_##name)gdpa(ctx->device, #name);                        \
    if (!ctx->vk.name) return #name;
    FENNS_VK_DEVICE_FUNCTIONS(FENNS_LOAD_DEVICE_)
#undef FENNS_LOAD_DEVICE_
    /* Optional: NULL where the device was created without the extension. */
    ctx->vk.vkCmdPushDescriptorSetKHR = (PFN_vkCmdPushDescriptorSetKHR)gdpa(ctx->device, "vkCmdPushDescriptorSetKHR");
    return NULL;
}

static fenns_result read_limits(struct fenns_context_T *ctx, uint32_t shared_memory_budget,
                                fenns_descriptor_path descriptors) {
    VkPhysicalDeviceProperties props;
    ctx->vk.vkGetPhysicalDeviceProperties(ctx->physical_device, &props);
    if (props.apiVersion < VK_API_VERSION_1_1) {
        fenns__log(ctx, FENNS_LOG_ERROR, "fenns needs Vulkan 1.1; the device offers %u.%u",
                   VK_API_VERSION_MAJOR(props.apiVersion), VK_API_VERSION_MINOR(props.apiVersion));
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    int size_extension = has_extension(ctx, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    int push_extension = has_extension(ctx, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (size_extension < 0 || push_extension < 0) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    int size_control = props.apiVersion >= VK_API_VERSION_1_3 || size_extension;
    VkPhysicalDeviceSubgroupSizeControlPropertiesEXT size_props = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
    VkPhysicalDevicePushDescriptorPropertiesKHR push = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR, .pNext = size_control ? &size_props : NULL};
    /* Each extension's struct only where the device has the extension. */
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                                   .pNext = push_extension ? (void *)&push : push.pNext};
    VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &subgroup};
    ctx->vk.vkGetPhysicalDeviceProperties2(ctx->physical_device, &props2);

    fenns_device_limits *l = &ctx->limits;
    memset(l, 0, sizeof *l);
    memcpy(l->device_name, props.deviceName, sizeof l->device_name);
    l->device_name[sizeof l->device_name - 1] = '\0';
    /* llvmpipe (lavapipe) stops a shader invocation after 65535 loop
     * iterations in all; the searches check their bound against it. */
    ctx->loop_limit = strncmp(l->device_name, "llvmpipe", 8) == 0 ? 65535u : 0u;
    ctx->cpu_device = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    ctx->max_workgroup_size_x = props.limits.maxComputeWorkGroupSize[0];
    l->api_version = props.apiVersion;
    l->subgroup_size = subgroup.subgroupSize;
    l->min_subgroup_size = size_control && size_props.minSubgroupSize ? size_props.minSubgroupSize : subgroup.subgroupSize;
    l->max_subgroup_size = size_control && size_props.maxSubgroupSize ? size_props.maxSubgroupSize : subgroup.subgroupSize;
    l->max_shared_memory = props.limits.maxComputeSharedMemorySize;
    l->shared_memory_budget = shared_memory_budget && shared_memory_budget < l->max_shared_memory
                                  ? shared_memory_budget : l->max_shared_memory;
    l->max_storage_buffer_range = props.limits.maxStorageBufferRange;
    l->max_list_entries = fenns_plan_max_list_entries(l->max_storage_buffer_range);
    l->max_workgroup_invocations = props.limits.maxComputeWorkGroupInvocations;
    memcpy(l->max_workgroup_count, props.limits.maxComputeWorkGroupCount, sizeof l->max_workgroup_count);
    l->min_storage_buffer_offset_alignment = props.limits.minStorageBufferOffsetAlignment;

    uint32_t families = 0;
    ctx->vk.vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &families, NULL);
    if (ctx->queue_family_index >= families) {
        fenns__log(ctx, FENNS_LOG_ERROR, "queue family %u does not exist (the device has %u)",
                   ctx->queue_family_index, families);
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    VkQueueFamilyProperties *family = fenns__alloc(ctx, sizeof *family * families);
    if (!family) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    ctx->vk.vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &families, family);
    VkQueueFlags flags = family[ctx->queue_family_index].queueFlags;
    ctx->timestamp_valid_bits = family[ctx->queue_family_index].timestampValidBits;
    fenns__free(ctx, family);
    l->timestamp_period_ns = ctx->timestamp_valid_bits ? props.limits.timestampPeriod : 0.0f;

    const char *missing = NULL;
    VkSubgroupFeatureFlags need = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                  VK_SUBGROUP_FEATURE_BALLOT_BIT;
    if (!(flags & VK_QUEUE_COMPUTE_BIT)) missing = "a COMPUTE queue family";
    else if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) missing = "subgroup operations in compute shaders";
    else if ((subgroup.supportedOperations & need) != need) missing = "subgroup BASIC, ARITHMETIC and BALLOT operations";
    else if (l->subgroup_size < 4 || l->subgroup_size > 128) missing = "a subgroup size between 4 and 128";
    else if (l->shared_memory_budget < 16384) missing = "16 KiB of compute shared memory";
    else if (l->max_workgroup_invocations < 64) missing = "64 invocations per workgroup";
    else if (props.limits.maxPerStageDescriptorStorageBuffers < FENNS_BINDING_COUNT ||
             props.limits.maxDescriptorSetStorageBuffers < FENNS_BINDING_COUNT)
        missing = "28 storage buffers per shader stage and per descriptor set";
    /* Push descriptors where the device has them enabled (the function
     * loads) with room for every binding, unless the caller asks for sets. */
    int can_push = ctx->vk.vkCmdPushDescriptorSetKHR && push.maxPushDescriptors >= FENNS_BINDING_COUNT && push_extension;
    ctx->push_descriptors = descriptors != FENNS_DESCRIPTORS_SETS && can_push;
    if (!missing && descriptors == FENNS_DESCRIPTORS_PUSH && !can_push)
        missing = "VK_KHR_push_descriptor enabled with 28 push descriptors (descriptors = FENNS_DESCRIPTORS_PUSH)";
    if (missing) {
        fenns__log(ctx, FENNS_LOG_ERROR, "device '%s' lacks %s", l->device_name, missing);
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    return FENNS_SUCCESS;
}

/* Debug labels and object names: instance-level functions, present only
 * when the caller enabled VK_EXT_debug_utils on the instance. */
static int load_debug_utils(struct fenns_context_T *ctx, PFN_vkGetInstanceProcAddr gipa) {
    ctx->vk.vkCmdBeginDebugUtilsLabelEXT =
        (PFN_vkCmdBeginDebugUtilsLabelEXT)gipa(ctx->instance, "vkCmdBeginDebugUtilsLabelEXT");
    ctx->vk.vkCmdEndDebugUtilsLabelEXT = (PFN_vkCmdEndDebugUtilsLabelEXT)gipa(ctx->instance, "vkCmdEndDebugUtilsLabelEXT");
    ctx->vk.vkSetDebugUtilsObjectNameEXT =
        (PFN_vkSetDebugUtilsObjectNameEXT)gipa(ctx->instance, "vkSetDebugUtilsObjectNameEXT");
    return ctx->vk.vkCmdBeginDebugUtilsLabelEXT && ctx->vk.vkCmdEndDebugUtilsLabelEXT &&
           ctx->vk.vkSetDebugUtilsObjectNameEXT;
}

/* Pipeline statistics: device functions, given only where the caller
 * enabled VK_KHR_pipeline_executable_properties (a loader may hand out a
 * trampoline all the same, so the device must list it too). */
static fenns_result load_pipeline_statistics(struct fenns_context_T *ctx, PFN_vkGetDeviceProcAddr gdpa) {
    if (!gdpa) gdpa = ctx->vk.vkGetDeviceProcAddr;
    int listed = has_extension(ctx, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (listed < 0) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    PFN_vkGetPipelineExecutablePropertiesKHR properties =
        (PFN_vkGetPipelineExecutablePropertiesKHR)gdpa(ctx->device, "vkGetPipelineExecutablePropertiesKHR");
    PFN_vkGetPipelineExecutableStatisticsKHR statistics =
        (PFN_vkGetPipelineExecutableStatisticsKHR)gdpa(ctx->device, "vkGetPipelineExecutableStatisticsKHR");
    if (!listed || !properties || !statistics) {
        fenns__log(ctx, FENNS_LOG_ERROR,
                   "pipeline_statistics is set, but the device does not list VK_KHR_pipeline_executable_properties "
                   "or gives none of its functions (enable the extension and its pipelineExecutableInfo feature)");
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    ctx->vk.vkGetPipelineExecutablePropertiesKHR = properties;
    ctx->vk.vkGetPipelineExecutableStatisticsKHR = statistics;
    return FENNS_SUCCESS;
}

fenns_result fenns_context_create(const fenns_context_create_info *info, fenns_context *out_context) {
    if (out_context) *out_context = NULL;
    if (!info || !out_context || !info->instance || !info->physical_device || !info->device ||
        !info->get_instance_proc_addr)
        return FENNS_ERROR_INVALID_ARGUMENT;
    const VkAllocationCallbacks *cb = info->allocation_callbacks;
    if (cb && (!cb->pfnAllocation || !cb->pfnFree || !cb->pfnReallocation)) return FENNS_ERROR_INVALID_ARGUMENT;
    if ((uint32_t)info->descriptors > (uint32_t)FENNS_DESCRIPTORS_SETS) return FENNS_ERROR_INVALID_ARGUMENT;
    struct fenns_context_T boot = {0};
    if (cb) {
        boot.allocator_copy = *cb;
        boot.allocator = &boot.allocator_copy;
    }
    struct fenns_context_T *ctx = fenns__alloc(&boot, sizeof *ctx);
    if (!ctx) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    if (cb) {
        ctx->allocator_copy = *cb;
        ctx->allocator = &ctx->allocator_copy;
    }
    ctx->instance = info->instance;
    ctx->physical_device = info->physical_device;
    ctx->device = info->device;
    ctx->queue_family_index = info->queue_family_index;
    ctx->log = info->log;
    ctx->log_user_data = info->log_user_data;
    ctx->pipeline_cache = info->pipeline_cache;

    const char *missing = load_functions(ctx, info->get_instance_proc_addr, info->get_device_proc_addr);
    fenns_result result = FENNS_SUCCESS;
    if (missing) {
        fenns__log(ctx, FENNS_LOG_ERROR, "cannot load %s", missing);
        result = FENNS_ERROR_UNSUPPORTED_DEVICE;
    } else if (info->debug_utils && !load_debug_utils(ctx, info->get_instance_proc_addr)) {
        fenns__log(ctx, FENNS_LOG_ERROR,
                   "debug_utils is set, but the instance gives no VK_EXT_debug_utils functions (enable the extension)");
        result = FENNS_ERROR_UNSUPPORTED_DEVICE;
    } else if (info->pipeline_statistics &&
               (result = load_pipeline_statistics(ctx, info->get_device_proc_addr)) != FENNS_SUCCESS) {
        /* logged */
    } else {
        result = read_limits(ctx, info->shared_memory_budget, info->descriptors);
    }
    if (result == FENNS_SUCCESS) result = fenns__store_create(ctx);
    if (result != FENNS_SUCCESS) {
        fenns__free(ctx, ctx);
        return result;
    }
    *out_context = ctx;
    return FENNS_SUCCESS;
}

void fenns_context_destroy(fenns_context context) {
    if (!context) return;
    fenns__store_destroy(context);
    fenns__free(context, context);
}

int fenns_context_uses_push_descriptors(fenns_context context) { return context ? context->push_descriptors : 0; }

void fenns_context_get_limits(fenns_context context, fenns_device_limits *out_limits) {
    if (context && out_limits) *out_limits = context->limits;
}
