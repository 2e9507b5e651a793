/* Result and method names. */
#include <fenns/fenns.h>
#include "context.h"

const char *fenns_result_string(fenns_result result) {
    switch (result) {
#define FENNS_RESULT_CASE_(name, value, text) case name: return text;
        FENNS_RESULT_LIST(FENNS_RESULT_CASE_)
#undef FENNS_RESULT_CASE_
    default: return "unknown fenns_result";
    }
}

const char *fenns_method_name(fenns_method method) {
    switch (method) {
    case FENNS_METHOD_FENNS: return "fenns";
    case FENNS_METHOD_FENNS_PAPER: return "fenns-paper";
    default: return NULL;
    }
}

fenns_result fenns__from_vk(VkResult result) {
    switch (result) {
    case VK_SUCCESS: return FENNS_SUCCESS;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return FENNS_ERROR_OUT_OF_DEVICE_MEMORY;
    case VK_ERROR_DEVICE_LOST: return FENNS_ERROR_DEVICE_LOST;
    default: return FENNS_ERROR_VULKAN;
    }
}
