/* Result and method names, and the profile's timestamps in milliseconds. */
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
    case FENNS_METHOD_COUNTING: return "counting";
    case FENNS_METHOD_OCTANT: return "octant";
    case FENNS_METHOD_RADIX: return "radix";
    case FENNS_METHOD_AUTO: return "auto";
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

fenns_result fenns_profile_pass_ms(fenns_context context, const fenns_profile *profile, const uint64_t *timestamps,
                                   double *out_pass_ms) {
    if (!context || !profile || !timestamps || !out_pass_ms) return FENNS_ERROR_INVALID_ARGUMENT;
    uint32_t bits = context->timestamp_valid_bits;
    if (bits == 0) return FENNS_ERROR_UNSUPPORTED_DEVICE;
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1u;
    uint32_t passes = profile->pass_count < FENNS_MAX_PROFILED_PASSES ? profile->pass_count : FENNS_MAX_PROFILED_PASSES;
    for (uint32_t k = 0; k < passes; ++k)
        out_pass_ms[k] = (double)((timestamps[k + 1] - timestamps[k]) & mask) *
                         (double)context->limits.timestamp_period_ns * 1e-6;
    return FENNS_SUCCESS;
}
