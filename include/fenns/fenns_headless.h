/*
 * fenns headless helper: creates a Vulkan instance and device for tools,
 * tests, samples and benchmarks, and fills the same fenns_context_create_info
 * an engine would. Uses volk internally; the core library does not.
 *
 * Device choice: info.device_index when use_device_index is set, else the
 * FENNS_DEVICE environment variable (an index), else the first discrete GPU,
 * else an integrated GPU, else a virtual GPU, else a CPU implementation
 * (lavapipe). Only devices that meet fenns' requirements are candidates.
 *
 * The instance asks for Vulkan 1.3 when the loader has it (else the loader's
 * 1.1 or 1.2) and enables VK_KHR_portability_enumeration when present. The
 * device gets one queue of a COMPUTE family (one with timestamps preferred),
 * VK_KHR_push_descriptor (unless no_push_descriptors), VK_EXT_subgroup_size_control
 * with subgroupSizeControl and computeFullSubgroups, timelineSemaphore (Vulkan
 * 1.2, for the caller's frame loop), each where supported, and shaderInt64 where supported.
 *
 * volk: creation loads volk's global function pointers (volkInitialize once,
 * volkLoadInstance per instance; no volkLoadDevice), so a program that links
 * fenns_headless may call Vulkan through volk's globals (include <volk.h>
 * before the fenns headers). Creation and destruction are not thread-safe;
 * the handles may be used from any thread as Vulkan allows.
 */
#ifndef FENNS_HEADLESS_H
#define FENNS_HEADLESS_H

#include "fenns.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fenns_headless_T *fenns_headless;

typedef struct fenns_headless_create_info {
    int use_device_index;    /* 0: choose as above; 1: the device at device_index */
    int device_index;        /* with use_device_index: the index as fenns_headless_list_devices
                                numbers them (>= 0) */
    int enable_validation;   /* 1: VK_LAYER_KHRONOS_validation with synchronization
                                validation (VK_EXT_layer_settings "validate_sync" where the
                                layer has it, else VK_EXT_validation_features) and a
                                VK_EXT_debug_utils messenger for warnings and errors; every
                                message is counted and logged as FENNS_LOG_ERROR, text
                                starting "validation: ". Also on when FENNS_VALIDATION is a
                                non-zero number. Fails if the layer is not installed. */
    fenns_log_fn log;        /* 0: messages go to stderr as "fenns: error: ...",
                                "fenns: validation: ..." */
    void *log_user_data;
    uint32_t shared_memory_budget; /* copied into the context create-info */
    int no_push_descriptors; /* 1: leave VK_KHR_push_descriptor off even where the device has
                                it, as on drivers without it (fenns then binds descriptor
                                sets from a fenns_descriptor_arena). Also on when
                                FENNS_NO_PUSH_DESCRIPTORS is a non-zero number. */
    int pipeline_statistics; /* 1: enable VK_KHR_pipeline_executable_properties where the device
                                has it, and with it fenns_headless_context_info's
                                pipeline_statistics (fenns_pipeline_statistics); a device
                                without it opens all the same, without them. */
} fenns_headless_create_info;

/* Creates the instance, the validation messenger when asked, and the device.
 * Every failure is logged (one line) before it returns.
 * Cost: milliseconds (loader and driver start-up); no GPU work.
 * Errors: FENNS_ERROR_INVALID_ARGUMENT (info or out NULL, FENNS_DEVICE not an
 * index), FENNS_ERROR_UNSUPPORTED_DEVICE (no Vulkan loader or driver, no suitable
 * device, index out of range or naming an unsuitable device, validation requested
 * but the layer is missing), FENNS_ERROR_VULKAN, FENNS_ERROR_OUT_OF_HOST_MEMORY,
 * FENNS_ERROR_OUT_OF_DEVICE_MEMORY. On error *out is NULL. */
fenns_result fenns_headless_create(const fenns_headless_create_info *info, fenns_headless *out);
/* NULL-safe; destroy contexts and every Vulkan object made on the device first.
 * Waits for the device to be idle. Validation messages raised here (e.g. leaked
 * objects) still reach the logger. */
void fenns_headless_destroy(fenns_headless headless);

/* Fills the create-info for fenns_context_create with this instance/device:
 * volk's vkGetInstanceProcAddr/vkGetDeviceProcAddr, the queue family, the
 * shared_memory_budget, and the headless logger (the stderr one when the
 * create-info's log was 0), so library and validation messages go to one place;
 * pipeline_statistics 1 where they were asked for and the device has them.
 * Other members are 0. */
void fenns_headless_context_info(fenns_headless headless, fenns_context_create_info *out);

VkInstance fenns_headless_instance(fenns_headless headless);
VkPhysicalDevice fenns_headless_physical_device(fenns_headless headless);
VkDevice fenns_headless_device(fenns_headless headless);
VkQueue fenns_headless_queue(fenns_headless headless);
uint32_t fenns_headless_queue_family(fenns_headless headless);

/* Validation messages seen so far (0 when validation is off). Messages raised
 * by fenns_headless_destroy come too late for this count: a logger that counts
 * FENNS_LOG_ERROR messages starting with "validation: " sees them all. */
uint32_t fenns_headless_validation_message_count(fenns_headless headless);

/* Lists every physical device through `print`, one line each, without newline:
 *   "0: llvmpipe (LLVM 15.0.6, 256 bits) (CPU, Vulkan 1.3.230) usable [default]"
 * i.e. index, name, type, API version, then "usable" or "not usable: <reason>",
 * and "[default]" (or "[FENNS_DEVICE]") on the device fenns_headless_create
 * takes when use_device_index is 0. Returns the number of devices or a negative
 * fenns_result; the reason for a failure is written to stderr as one line
 * ("fenns: error: ..."). Creates and destroys its own instance, without
 * validation; needs no created device. */
typedef void (*fenns_headless_print_fn)(const char *line, void *user_data);
int fenns_headless_list_devices(fenns_headless_print_fn print, void *user_data);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_HEADLESS_H */
