/*
 * Headless instance/device creation for tools, samples, tests and benchmarks.
 *
 * This is the only part of fenns that uses volk and global Vulkan state: it
 * plays the role an engine plays for the core library, and hands the core the
 * same fenns_context_create_info an engine would fill.
 *
 * Global state: volk's function pointers are process-wide. volkLoadInstance is
 * called for every headless instance; the device-level pointers it loads are
 * loader trampolines that dispatch on their handle, so several headless
 * objects may coexist. Creation itself is not thread-safe (volk is not).
 */
#include <volk.h>

#include "fenns/fenns_headless.h"
#include "keep_drivers_mapped.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What fenns_context_create requires (fenns.h): kept in one place so the
 * device list explains exactly why a device is skipped. */
#define FENNS_HL_MIN_API VK_API_VERSION_1_1
#define FENNS_HL_MIN_SUBGROUP 4u
#define FENNS_HL_MAX_SUBGROUP 128u
#define FENNS_HL_MIN_SHARED_MEMORY 16384u
#define FENNS_HL_SUBGROUP_OPS                                                       \
    (VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |           \
     VK_SUBGROUP_FEATURE_BALLOT_BIT)

#define FENNS_HL_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
/* Spelled out so that older headers (Debian 12 ships 1.3.239) still build. */
#define FENNS_HL_PORTABILITY_ENUMERATION "VK_KHR_portability_enumeration"
#define FENNS_HL_PORTABILITY_SUBSET "VK_KHR_portability_subset"
#define FENNS_HL_ENUMERATE_PORTABILITY_BIT 0x00000001u

struct fenns_headless_T {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family_index;
    fenns_log_fn log;
    void *log_user_data;
    uint32_t shared_memory_budget;
    int no_push_descriptors;
    int pipeline_statistics; /* asked for; then 1 once the device has them enabled */
    /* The debug messenger may be called from any thread that calls Vulkan. */
    atomic_uint validation_messages;
};

/* ------------------------------------------------------------------------ */
/* Logging                                                                  */
/* ------------------------------------------------------------------------ */

static void default_log(fenns_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    /* Validation messages carry their own "validation: " prefix. */
    if (strncmp(message, "validation: ", 12) == 0) {
        fprintf(stderr, "fenns: %s\n", message);
        return;
    }
    const char *tag = level == FENNS_LOG_ERROR ? "error" : level == FENNS_LOG_WARNING ? "warning" : "info";
    fprintf(stderr, "fenns: %s: %s\n", tag, message);
}

static void quiet_log(fenns_log_level level, const char *message, void *user_data)
{
    (void)level;
    (void)message;
    (void)user_data;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void hl_log(fenns_log_fn log, void *user_data, fenns_log_level level, const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    (log ? log : default_log)(level, message, user_data);
}

static const char *vk_result_name(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    default: return "VkResult";
    }
}

static fenns_result result_from_vk(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return FENNS_SUCCESS;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return FENNS_ERROR_OUT_OF_DEVICE_MEMORY;
    case VK_ERROR_DEVICE_LOST: return FENNS_ERROR_DEVICE_LOST;
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT: return FENNS_ERROR_UNSUPPORTED_DEVICE;
    default: return FENNS_ERROR_VULKAN;
    }
}

/* Logs a failed Vulkan call and maps its result. */
static fenns_result vk_failed(fenns_log_fn log, void *user_data, const char *call, VkResult r)
{
    hl_log(log, user_data, FENNS_LOG_ERROR, "%s failed: %s (%d)", call, vk_result_name(r), (int)r);
    return result_from_vk(r);
}

/* ------------------------------------------------------------------------ */
/* Loader, layers, extensions                                               */
/* ------------------------------------------------------------------------ */

static fenns_result load_vulkan(fenns_log_fn log, void *user_data)
{
    /* volkInitialize dlopens the loader every call; do it once per process. */
    if (vkGetInstanceProcAddr != NULL)
        return FENNS_SUCCESS;
    if (volkInitialize() != VK_SUCCESS) {
        hl_log(log, user_data, FENNS_LOG_ERROR,
               "no Vulkan loader found (libvulkan.so.1); install a Vulkan driver and loader, "
               "e.g. Debian's libvulkan1 and mesa-vulkan-drivers");
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    return FENNS_SUCCESS;
}

static int has_extension(const VkExtensionProperties *list, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; ++i)
        if (strcmp(list[i].extensionName, name) == 0)
            return 1;
    return 0;
}

/* Extensions of the instance implementation (pd == NULL, layer == NULL), of
 * one instance layer (pd == NULL), or of a physical device; *out is malloc'd
 * (NULL when there are none). Repeats the two-call enumeration while the set
 * grows between the calls. */
static VkResult list_extensions(VkPhysicalDevice pd, const char *layer, VkExtensionProperties **out, uint32_t *count)
{
    *out = NULL;
    *count = 0;
    for (;;) {
        uint32_t n = 0;
        VkResult r = pd ? vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL)
                        : vkEnumerateInstanceExtensionProperties(layer, &n, NULL);
        if (r != VK_SUCCESS)
            return r;
        if (n == 0)
            return VK_SUCCESS;
        VkExtensionProperties *list = malloc(n * sizeof *list);
        if (!list)
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        r = pd ? vkEnumerateDeviceExtensionProperties(pd, NULL, &n, list)
               : vkEnumerateInstanceExtensionProperties(layer, &n, list);
        if (r == VK_INCOMPLETE) {
            free(list);
            continue;
        }
        if (r != VK_SUCCESS) {
            free(list);
            return r;
        }
        *out = list;
        *count = n;
        return VK_SUCCESS;
    }
}

static VkResult has_layer(const char *name, int *found)
{
    *found = 0;
    for (;;) {
        uint32_t n = 0;
        VkResult r = vkEnumerateInstanceLayerProperties(&n, NULL);
        if (r != VK_SUCCESS || n == 0)
            return r;
        VkLayerProperties *list = malloc(n * sizeof *list);
        if (!list)
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        r = vkEnumerateInstanceLayerProperties(&n, list);
        if (r == VK_INCOMPLETE) {
            free(list);
            continue;
        }
        if (r == VK_SUCCESS)
            for (uint32_t i = 0; i < n; ++i)
                if (strcmp(list[i].layerName, name) == 0)
                    *found = 1;
        free(list);
        return r;
    }
}

/* 1 when the variable is set to a non-zero number. */
static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strtol(v, NULL, 10) != 0;
}

/* ------------------------------------------------------------------------ */
/* Validation messages                                                      */
/* ------------------------------------------------------------------------ */

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                     void *user_data)
{
    (void)types;
    struct fenns_headless_T *h = user_data;
    atomic_fetch_add(&h->validation_messages, 1u);

    const char *id = data && data->pMessageIdName ? data->pMessageIdName : "";
    const char *text = data && data->pMessage ? data->pMessage : "(no message)";
    const char *kind = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
    /* Messages (sync hazards above all) run to kilobytes: size the buffer to fit. */
    size_t size = strlen(id) + strlen(text) + 32;
    char *message = malloc(size);
    if (message) {
        snprintf(message, size, "validation: %s: [%s] %s", kind, id, text);
        (h->log ? h->log : default_log)(FENNS_LOG_ERROR, message, h->log_user_data);
        free(message);
    } else {
        (h->log ? h->log : default_log)(FENNS_LOG_ERROR, "validation: (message lost: out of host memory)",
                                        h->log_user_data);
    }
    return VK_FALSE; /* never abort the call that triggered it */
}

static VkDebugUtilsMessengerCreateInfoEXT messenger_info(struct fenns_headless_T *h)
{
    VkDebugUtilsMessengerCreateInfoEXT info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = debug_callback;
    info.pUserData = h;
    return info;
}

/* ------------------------------------------------------------------------ */
/* Instance                                                                 */
/* ------------------------------------------------------------------------ */

/* Creates the instance; with h != NULL and validation on, also the debug
 * messenger (stored in h). Loads volk's instance-level pointers. */
static fenns_result create_instance(struct fenns_headless_T *h, int validation, fenns_log_fn log, void *user_data,
                                    VkInstance *out_instance, uint32_t *out_api)
{
    *out_instance = VK_NULL_HANDLE;
    fenns_result fr = load_vulkan(log, user_data);
    if (fr != FENNS_SUCCESS)
        return fr;

    uint32_t loader_api = volkGetInstanceVersion();
    if (loader_api < FENNS_HL_MIN_API) {
        hl_log(log, user_data, FENNS_LOG_ERROR, "the Vulkan loader supports Vulkan %u.%u; fenns needs 1.1",
               VK_API_VERSION_MAJOR(loader_api), VK_API_VERSION_MINOR(loader_api));
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    /* The highest version fenns knows how to use; devices may report less. */
    uint32_t api = loader_api >= VK_API_VERSION_1_3
                       ? VK_API_VERSION_1_3
                       : VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(loader_api), VK_API_VERSION_MINOR(loader_api), 0);

    VkExtensionProperties *global_ext = NULL, *layer_ext = NULL;
    uint32_t global_count = 0, layer_count = 0;
    VkResult r = list_extensions(VK_NULL_HANDLE, NULL, &global_ext, &global_count);
    if (r != VK_SUCCESS)
        return vk_failed(log, user_data, "vkEnumerateInstanceExtensionProperties", r);

    const char *extensions[4];
    uint32_t extension_count = 0;
    VkInstanceCreateFlags flags = 0;
    if (has_extension(global_ext, global_count, FENNS_HL_PORTABILITY_ENUMERATION)) {
        /* Lists portability implementations (MoltenVK) too. */
        extensions[extension_count++] = FENNS_HL_PORTABILITY_ENUMERATION;
        flags |= FENNS_HL_ENUMERATE_PORTABILITY_BIT;
    }

    const char *layers[1];
    uint32_t enabled_layer_count = 0;
    const void *chain = NULL;
    VkDebugUtilsMessengerCreateInfoEXT debug_info;
    static const VkValidationFeatureEnableEXT sync_enable[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features_info;
#ifdef VK_EXT_LAYER_SETTINGS_EXTENSION_NAME
    static const VkBool32 validate_sync = VK_TRUE;
    VkLayerSettingEXT setting;
    VkLayerSettingsCreateInfoEXT settings_info;
#endif
    if (validation) {
        int found = 0;
        r = has_layer(FENNS_HL_VALIDATION_LAYER, &found);
        if (r != VK_SUCCESS) {
            free(global_ext);
            return vk_failed(log, user_data, "vkEnumerateInstanceLayerProperties", r);
        }
        if (!found) {
            free(global_ext);
            hl_log(log, user_data, FENNS_LOG_ERROR,
                   "validation requested but " FENNS_HL_VALIDATION_LAYER
                   " is not installed (e.g. Debian's vulkan-validationlayers)");
            return FENNS_ERROR_UNSUPPORTED_DEVICE;
        }
        r = list_extensions(VK_NULL_HANDLE, FENNS_HL_VALIDATION_LAYER, &layer_ext, &layer_count);
        if (r != VK_SUCCESS) {
            free(global_ext);
            return vk_failed(log, user_data, "vkEnumerateInstanceExtensionProperties(validation layer)", r);
        }
        layers[enabled_layer_count++] = FENNS_HL_VALIDATION_LAYER;

        if (!has_extension(global_ext, global_count, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
            !has_extension(layer_ext, layer_count, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
            free(global_ext);
            free(layer_ext);
            hl_log(log, user_data, FENNS_LOG_ERROR,
                   "validation requested but " VK_EXT_DEBUG_UTILS_EXTENSION_NAME " is not available");
            return FENNS_ERROR_UNSUPPORTED_DEVICE;
        }
        extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;

        /* The messenger in pNext also reports during vkCreateInstance and
         * vkDestroyInstance, when no messenger object exists yet. */
        debug_info = messenger_info(h);
        chain = &debug_info;

        /* Synchronization validation: the layer-settings extension where the
         * layer has it (newer SDKs), else the older validation-features one. */
        int sync_on = 0;
#ifdef VK_EXT_LAYER_SETTINGS_EXTENSION_NAME
        if (has_extension(layer_ext, layer_count, VK_EXT_LAYER_SETTINGS_EXTENSION_NAME)) {
            memset(&setting, 0, sizeof setting);
            setting.pLayerName = FENNS_HL_VALIDATION_LAYER;
            setting.pSettingName = "validate_sync";
            setting.type = VK_LAYER_SETTING_TYPE_BOOL32_EXT;
            setting.valueCount = 1;
            setting.pValues = &validate_sync;
            memset(&settings_info, 0, sizeof settings_info);
            settings_info.sType = VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT;
            settings_info.pNext = chain;
            settings_info.settingCount = 1;
            settings_info.pSettings = &setting;
            chain = &settings_info;
            extensions[extension_count++] = VK_EXT_LAYER_SETTINGS_EXTENSION_NAME;
            sync_on = 1;
        }
#endif
        if (!sync_on && has_extension(layer_ext, layer_count, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
            memset(&features_info, 0, sizeof features_info);
            features_info.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
            features_info.pNext = chain;
            features_info.enabledValidationFeatureCount = 1;
            features_info.pEnabledValidationFeatures = sync_enable;
            chain = &features_info;
            extensions[extension_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
            sync_on = 1;
        }
        if (!sync_on)
            hl_log(log, user_data, FENNS_LOG_WARNING,
                   "the validation layer offers no way to enable synchronization validation; "
                   "running without it");
    }

    VkApplicationInfo app;
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "fenns";
    app.applicationVersion = VK_MAKE_API_VERSION(0, FENNS_VERSION_MAJOR, FENNS_VERSION_MINOR, FENNS_VERSION_PATCH);
    app.pEngineName = "fenns";
    app.engineVersion = app.applicationVersion;
    app.apiVersion = api;

    VkInstanceCreateInfo ci;
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pNext = chain;
    ci.flags = flags;
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = enabled_layer_count;
    ci.ppEnabledLayerNames = enabled_layer_count ? layers : NULL;
    ci.enabledExtensionCount = extension_count;
    ci.ppEnabledExtensionNames = extension_count ? extensions : NULL;

    VkInstance instance = VK_NULL_HANDLE;
    r = vkCreateInstance(&ci, NULL, &instance);
    free(global_ext);
    free(layer_ext);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
        hl_log(log, user_data, FENNS_LOG_ERROR,
               "vkCreateInstance found no Vulkan %u.%u driver (VK_ERROR_INCOMPATIBLE_DRIVER); install one, "
               "e.g. Debian's mesa-vulkan-drivers (lavapipe)",
               VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    if (r != VK_SUCCESS)
        return vk_failed(log, user_data, "vkCreateInstance", r);
    volkLoadInstance(instance);

    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT");
        h->destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT");
        if (!create_messenger || !h->destroy_messenger) {
            hl_log(log, user_data, FENNS_LOG_ERROR, "VK_EXT_debug_utils is enabled but its functions are missing");
            vkDestroyInstance(instance, NULL);
            return FENNS_ERROR_VULKAN;
        }
        debug_info.pNext = NULL;
        r = create_messenger(instance, &debug_info, NULL, &h->messenger);
        if (r != VK_SUCCESS) {
            vkDestroyInstance(instance, NULL);
            return vk_failed(log, user_data, "vkCreateDebugUtilsMessengerEXT", r);
        }
    }
    *out_instance = instance;
    *out_api = api;
    return FENNS_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Physical devices                                                         */
/* ------------------------------------------------------------------------ */

typedef struct device_eval {
    VkPhysicalDeviceProperties props;
    int usable;
    char reason[160];              /* why not usable */
    uint32_t queue_family;         /* a COMPUTE family, timestamps preferred */
    int has_subgroup_size_control; /* the extension is listed */
    int has_push_descriptor;       /* VK_KHR_push_descriptor is listed */
    int use_subgroup_size_control; /* the extension or Vulkan 1.3: chain its features */
    VkBool32 subgroup_size_control;
    VkBool32 compute_full_subgroups;
    int has_portability_subset;
    VkBool32 shader_int64;
    VkBool32 timeline_semaphore;   /* Vulkan 1.2's timelineSemaphore (for the caller's frame loop) */
    VkBool32 pipeline_statistics;  /* VK_KHR_pipeline_executable_properties listed, and its feature */
} device_eval;

static VkResult evaluate_device(VkPhysicalDevice pd, uint32_t instance_api, device_eval *ev)
{
    memset(ev, 0, sizeof *ev);
    vkGetPhysicalDeviceProperties(pd, &ev->props);
    uint32_t api = ev->props.apiVersion < instance_api ? ev->props.apiVersion : instance_api;
    if (ev->props.apiVersion < FENNS_HL_MIN_API) {
        snprintf(ev->reason, sizeof ev->reason, "Vulkan %u.%u, needs 1.1", VK_API_VERSION_MAJOR(ev->props.apiVersion),
                 VK_API_VERSION_MINOR(ev->props.apiVersion));
        return VK_SUCCESS;
    }

    VkExtensionProperties *ext = NULL;
    uint32_t ext_count = 0;
    VkResult r = list_extensions(pd, NULL, &ext, &ext_count);
    if (r != VK_SUCCESS)
        return r;
    ev->has_push_descriptor = has_extension(ext, ext_count, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    ev->has_subgroup_size_control = has_extension(ext, ext_count, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    ev->has_portability_subset = has_extension(ext, ext_count, FENNS_HL_PORTABILITY_SUBSET);
    int has_statistics = has_extension(ext, ext_count, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    free(ext);
    ev->use_subgroup_size_control = ev->has_subgroup_size_control || api >= VK_API_VERSION_1_3;

    VkPhysicalDeviceSubgroupProperties subgroup;
    memset(&subgroup, 0, sizeof subgroup);
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 props2;
    memset(&props2, 0, sizeof props2);
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(pd, &props2);

    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT ssc;
    memset(&ssc, 0, sizeof ssc);
    ssc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT;
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline;
    memset(&timeline, 0, sizeof timeline);
    timeline.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR statistics;
    memset(&statistics, 0, sizeof statistics);
    statistics.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    statistics.pNext = api >= VK_API_VERSION_1_2 ? &timeline : NULL;
    ssc.pNext = has_statistics ? (void *)&statistics : statistics.pNext;
    VkPhysicalDeviceFeatures2 features2;
    memset(&features2, 0, sizeof features2);
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = ev->use_subgroup_size_control ? (void *)&ssc : ssc.pNext;
    vkGetPhysicalDeviceFeatures2(pd, &features2);
    ev->pipeline_statistics = has_statistics && statistics.pipelineExecutableInfo;
    ev->timeline_semaphore = timeline.timelineSemaphore;
    ev->subgroup_size_control = ssc.subgroupSizeControl;
    ev->compute_full_subgroups = ssc.computeFullSubgroups;
    ev->shader_int64 = features2.features.shaderInt64;

    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &family_count, NULL);
    VkQueueFamilyProperties *families = family_count ? malloc(family_count * sizeof *families) : NULL;
    if (family_count && !families)
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &family_count, families);
    uint32_t compute = UINT32_MAX, timed = UINT32_MAX;
    for (uint32_t i = 0; i < family_count; ++i) {
        if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || families[i].queueCount == 0)
            continue;
        if (compute == UINT32_MAX)
            compute = i;
        if (timed == UINT32_MAX && families[i].timestampValidBits > 0)
            timed = i;
    }
    free(families);
    ev->queue_family = timed != UINT32_MAX ? timed : compute;

    if (compute == UINT32_MAX)
        snprintf(ev->reason, sizeof ev->reason, "no compute queue");
    else if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
             (subgroup.supportedOperations & FENNS_HL_SUBGROUP_OPS) != FENNS_HL_SUBGROUP_OPS)
        snprintf(ev->reason, sizeof ev->reason, "compute shaders lack subgroup operations basic, arithmetic, ballot");
    else if (subgroup.subgroupSize < FENNS_HL_MIN_SUBGROUP || subgroup.subgroupSize > FENNS_HL_MAX_SUBGROUP)
        snprintf(ev->reason, sizeof ev->reason, "subgroup size %u outside 4..128", subgroup.subgroupSize);
    else if (ev->props.limits.maxComputeSharedMemorySize < FENNS_HL_MIN_SHARED_MEMORY)
        snprintf(ev->reason, sizeof ev->reason, "%u bytes of shared memory, needs 16384",
                 ev->props.limits.maxComputeSharedMemorySize);
    else
        ev->usable = 1;
    return VK_SUCCESS;
}

static const char *device_type_name(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

/* Lower is preferred (fenns_headless.h). */
static int type_rank(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

/* Enumerates and evaluates every physical device; *pds and *evals are malloc'd. */
static fenns_result enumerate_devices(VkInstance instance, uint32_t api, fenns_log_fn log, void *user_data,
                                      VkPhysicalDevice **out_pds, device_eval **out_evals, uint32_t *out_count)
{
    *out_pds = NULL;
    *out_evals = NULL;
    *out_count = 0;
    VkPhysicalDevice *pds = NULL;
    uint32_t count = 0;
    VkResult r;
    for (;;) {
        r = vkEnumeratePhysicalDevices(instance, &count, NULL);
        fenns__headless_keep_drivers_mapped(); /* loaded by now; sanitized builds only */
        if (r != VK_SUCCESS)
            return vk_failed(log, user_data, "vkEnumeratePhysicalDevices", r);
        if (count == 0)
            return FENNS_SUCCESS;
        pds = malloc(count * sizeof *pds);
        if (!pds)
            return FENNS_ERROR_OUT_OF_HOST_MEMORY;
        r = vkEnumeratePhysicalDevices(instance, &count, pds);
        if (r == VK_INCOMPLETE) {
            free(pds);
            continue;
        }
        if (r != VK_SUCCESS) {
            free(pds);
            return vk_failed(log, user_data, "vkEnumeratePhysicalDevices", r);
        }
        break;
    }
    device_eval *evals = malloc(count * sizeof *evals);
    if (!evals) {
        free(pds);
        return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < count; ++i) {
        r = evaluate_device(pds[i], api, &evals[i]);
        if (r != VK_SUCCESS) {
            free(pds);
            free(evals);
            return vk_failed(log, user_data, "querying a physical device", r);
        }
    }
    *out_pds = pds;
    *out_evals = evals;
    *out_count = count;
    return FENNS_SUCCESS;
}

/* Parses FENNS_DEVICE: -1 when unset or empty, -2 (after logging) when bad. */
static int env_device_index(fenns_log_fn log, void *user_data)
{
    const char *v = getenv("FENNS_DEVICE");
    if (v == NULL || v[0] == '\0')
        return -1;
    char *end = NULL;
    errno = 0;
    long index = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || index < 0 || index > INT_MAX) {
        hl_log(log, user_data, FENNS_LOG_ERROR, "FENNS_DEVICE=\"%s\" is not a device index (0, 1, ...)", v);
        return -2;
    }
    return (int)index;
}

/* The device fenns_headless_create takes for `requested` (>= 0: that index;
 * < 0: by type), or -1 after logging why there is none. */
static int choose_device(const device_eval *evals, uint32_t count, int requested, fenns_log_fn log, void *user_data)
{
    if (count == 0) {
        hl_log(log, user_data, FENNS_LOG_ERROR, "no Vulkan devices found");
        return -1;
    }
    if (requested >= 0) {
        if ((uint32_t)requested >= count) {
            hl_log(log, user_data, FENNS_LOG_ERROR, "device index %d out of range: %u device%s (0..%u)", requested,
                   count, count == 1 ? "" : "s", count - 1);
            return -1;
        }
        const device_eval *ev = &evals[requested];
        if (!ev->usable) {
            hl_log(log, user_data, FENNS_LOG_ERROR, "device %d (%s) cannot run fenns: %s", requested,
                   ev->props.deviceName, ev->reason);
            return -1;
        }
        return requested;
    }
    int best = -1;
    for (uint32_t i = 0; i < count; ++i)
        if (evals[i].usable &&
            (best < 0 || type_rank(evals[i].props.deviceType) < type_rank(evals[best].props.deviceType)))
            best = (int)i;
    if (best < 0)
        hl_log(log, user_data, FENNS_LOG_ERROR,
               "none of the %u Vulkan device%s can run fenns (see `fenns info`); device 0 (%s): %s", count,
               count == 1 ? "" : "s", evals[0].props.deviceName, evals[0].reason);
    return best;
}

/* ------------------------------------------------------------------------ */
/* Logical device                                                           */
/* ------------------------------------------------------------------------ */

static fenns_result create_device(struct fenns_headless_T *h, const device_eval *ev)
{
    const char *extensions[4];
    uint32_t extension_count = 0;
    /* Push descriptors where the device has them (fenns then needs no
     * descriptor arena), unless the caller asked to leave them off. */
    if (ev->has_push_descriptor && !h->no_push_descriptors)
        extensions[extension_count++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    if (ev->has_subgroup_size_control)
        extensions[extension_count++] = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
    if (ev->has_portability_subset) /* required whenever the device lists it */
        extensions[extension_count++] = FENNS_HL_PORTABILITY_SUBSET;
    /* Pipeline statistics only when asked: the driver then keeps them for
     * every pipeline. */
    h->pipeline_statistics = h->pipeline_statistics && ev->pipeline_statistics;
    if (h->pipeline_statistics)
        extensions[extension_count++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;

    /* Only what fenns can use, and only where supported. */
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT ssc;
    memset(&ssc, 0, sizeof ssc);
    ssc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT;
    ssc.subgroupSizeControl = ev->subgroup_size_control;
    ssc.computeFullSubgroups = ev->compute_full_subgroups;
    /* Timeline semaphores for the caller's frame loop, where the device has them. */
    VkPhysicalDeviceTimelineSemaphoreFeatures timeline;
    memset(&timeline, 0, sizeof timeline);
    timeline.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
    timeline.timelineSemaphore = ev->timeline_semaphore;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR statistics;
    memset(&statistics, 0, sizeof statistics);
    statistics.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    statistics.pipelineExecutableInfo = VK_TRUE;
    statistics.pNext = ev->timeline_semaphore ? &timeline : NULL;
    ssc.pNext = h->pipeline_statistics ? (void *)&statistics : statistics.pNext;
    VkPhysicalDeviceFeatures2 features2;
    memset(&features2, 0, sizeof features2);
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = ev->use_subgroup_size_control && (ssc.subgroupSizeControl || ssc.computeFullSubgroups)
                          ? (void *)&ssc
                          : ssc.pNext;
    features2.features.shaderInt64 = ev->shader_int64;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info;
    memset(&queue_info, 0, sizeof queue_info);
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = ev->queue_family;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;

    VkDeviceCreateInfo ci;
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.pNext = &features2;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &queue_info;
    ci.enabledExtensionCount = extension_count;
    ci.ppEnabledExtensionNames = extensions;

    VkResult r = vkCreateDevice(h->physical_device, &ci, NULL, &h->device);
    if (r != VK_SUCCESS) {
        h->device = VK_NULL_HANDLE;
        return vk_failed(h->log, h->log_user_data, "vkCreateDevice", r);
    }
    h->queue_family_index = ev->queue_family;
    vkGetDeviceQueue(h->device, ev->queue_family, 0, &h->queue);
    return FENNS_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Public API                                                               */
/* ------------------------------------------------------------------------ */

void fenns_headless_destroy(fenns_headless h)
{
    if (!h)
        return;
    if (h->device) {
        /* Tolerates a caller that destroys while work is in flight. */
        (void)vkDeviceWaitIdle(h->device);
        vkDestroyDevice(h->device, NULL);
    }
    if (h->messenger)
        h->destroy_messenger(h->instance, h->messenger, NULL);
    if (h->instance)
        vkDestroyInstance(h->instance, NULL);
    /* Freed last: the instance's pNext messenger points here until
     * vkDestroyInstance returns. */
    free(h);
}

fenns_result fenns_headless_create(const fenns_headless_create_info *info, fenns_headless *out)
{
    if (out)
        *out = NULL;
    if (!info || !out) {
        default_log(FENNS_LOG_ERROR, "fenns_headless_create: info and out must not be NULL", NULL);
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    fenns_log_fn log = info->log ? info->log : default_log;
    void *user_data = info->log_user_data;

    if (info->use_device_index && info->device_index < 0) {
        hl_log(log, user_data, FENNS_LOG_ERROR, "device_index %d is negative", info->device_index);
        return FENNS_ERROR_INVALID_ARGUMENT;
    }
    int requested = info->use_device_index ? info->device_index : -1;
    if (requested < 0) {
        requested = env_device_index(log, user_data);
        if (requested == -2)
            return FENNS_ERROR_INVALID_ARGUMENT;
    }

    struct fenns_headless_T *h = calloc(1, sizeof *h);
    if (!h) {
        hl_log(log, user_data, FENNS_LOG_ERROR, "fenns_headless_create: out of host memory");
        return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    }
    h->log = log;
    h->log_user_data = user_data;
    h->shared_memory_budget = info->shared_memory_budget;
    h->no_push_descriptors = info->no_push_descriptors || env_flag("FENNS_NO_PUSH_DESCRIPTORS");
    h->pipeline_statistics = info->pipeline_statistics;
    atomic_init(&h->validation_messages, 0u);

    int validation = info->enable_validation || env_flag("FENNS_VALIDATION");
    uint32_t api = 0;
    fenns_result fr = create_instance(h, validation, log, user_data, &h->instance, &api);
    if (fr != FENNS_SUCCESS) {
        free(h);
        return fr;
    }

    VkPhysicalDevice *pds = NULL;
    device_eval *evals = NULL;
    uint32_t count = 0;
    fr = enumerate_devices(h->instance, api, log, user_data, &pds, &evals, &count);
    if (fr != FENNS_SUCCESS) {
        fenns_headless_destroy(h);
        return fr;
    }
    int chosen = choose_device(evals, count, requested, log, user_data);
    if (chosen < 0) {
        free(pds);
        free(evals);
        fenns_headless_destroy(h);
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    h->physical_device = pds[chosen];
    fr = create_device(h, &evals[chosen]);
    free(pds);
    free(evals);
    if (fr != FENNS_SUCCESS) {
        fenns_headless_destroy(h);
        return fr;
    }
    *out = h;
    return FENNS_SUCCESS;
}

void fenns_headless_context_info(fenns_headless h, fenns_context_create_info *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!h)
        return;
    out->instance = h->instance;
    out->physical_device = h->physical_device;
    out->device = h->device;
    out->queue_family_index = h->queue_family_index;
    out->get_instance_proc_addr = vkGetInstanceProcAddr;
    out->get_device_proc_addr = vkGetDeviceProcAddr;
    out->log = h->log;
    out->log_user_data = h->log_user_data;
    out->shared_memory_budget = h->shared_memory_budget;
    out->pipeline_statistics = h->pipeline_statistics;
}

VkInstance fenns_headless_instance(fenns_headless h) { return h ? h->instance : VK_NULL_HANDLE; }
VkPhysicalDevice fenns_headless_physical_device(fenns_headless h) { return h ? h->physical_device : VK_NULL_HANDLE; }
VkDevice fenns_headless_device(fenns_headless h) { return h ? h->device : VK_NULL_HANDLE; }
VkQueue fenns_headless_queue(fenns_headless h) { return h ? h->queue : VK_NULL_HANDLE; }
uint32_t fenns_headless_queue_family(fenns_headless h) { return h ? h->queue_family_index : 0; }

uint32_t fenns_headless_validation_message_count(fenns_headless h)
{
    return h ? atomic_load(&h->validation_messages) : 0;
}

int fenns_headless_list_devices(fenns_headless_print_fn print, void *user_data)
{
    if (!print)
        return (int)FENNS_ERROR_INVALID_ARGUMENT;
    /* Errors go to stderr: there is no logger here (fenns_headless.h). */
    VkInstance instance = VK_NULL_HANDLE;
    uint32_t api = 0;
    fenns_result fr = create_instance(NULL, 0, default_log, NULL, &instance, &api);
    if (fr != FENNS_SUCCESS)
        return (int)fr;

    VkPhysicalDevice *pds = NULL;
    device_eval *evals = NULL;
    uint32_t count = 0;
    fr = enumerate_devices(instance, api, default_log, NULL, &pds, &evals, &count);
    if (fr != FENNS_SUCCESS) {
        vkDestroyInstance(instance, NULL);
        return (int)fr;
    }
    /* Mark the device fenns_headless_create would take by default; silent
     * about a bad FENNS_DEVICE here (create reports it). */
    const char *env = getenv("FENNS_DEVICE");
    int chosen = -1;
    if ((env == NULL || env[0] == '\0') && count > 0)
        chosen = choose_device(evals, count, -1, quiet_log, NULL);
    else {
        char *end = NULL;
        long index = strtol(env, &end, 10);
        if (end != env && *end == '\0' && index >= 0 && index < (long)count && evals[index].usable)
            chosen = (int)index;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const device_eval *ev = &evals[i];
        char line[512];
        uint32_t v = ev->props.apiVersion;
        snprintf(line, sizeof line, "%u: %s (%s, Vulkan %u.%u.%u) %s%s%s", i, ev->props.deviceName,
                 device_type_name(ev->props.deviceType), VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                 VK_API_VERSION_PATCH(v), ev->usable ? "usable" : "not usable: ", ev->usable ? "" : ev->reason,
                 (int)i == chosen ? (env && env[0] ? " [FENNS_DEVICE]" : " [default]") : "");
        print(line, user_data);
    }
    free(pds);
    free(evals);
    vkDestroyInstance(instance, NULL);
    return (int)count;
}
