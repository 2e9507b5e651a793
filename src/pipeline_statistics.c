/* fenns_pipeline_statistics: what the driver compiled each pass into
 * (VK_KHR_pipeline_executable_properties), for profilers. The context asked
 * the driver to keep it (VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR on
 * every pipeline it makes, pipeline.c) where the caller enabled the
 * extension (context.c). */
#include "pipeline.h"

#include <string.h>

/* The statistics of one executable of one pass, handed to fn. */
static fenns_result report_executable(fenns_context ctx, VkPipeline pipeline, fenns_pass pass, uint32_t index,
                                      const VkPipelineExecutablePropertiesKHR *executable,
                                      fenns_pipeline_statistic_fn fn, void *user_data) {
    VkPipelineExecutableInfoKHR info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                        .pipeline = pipeline, .executableIndex = index};
    uint32_t count = 0;
    VkResult r = ctx->vk.vkGetPipelineExecutableStatisticsKHR(ctx->device, &info, &count, NULL);
    if (r != VK_SUCCESS) return fenns__from_vk(r);
    if (count == 0) return FENNS_SUCCESS;
    VkPipelineExecutableStatisticKHR *statistics = fenns__alloc(ctx, count * sizeof *statistics);
    if (!statistics) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t k = 0; k < count; ++k)
        statistics[k] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    r = ctx->vk.vkGetPipelineExecutableStatisticsKHR(ctx->device, &info, &count, statistics);
    /* VK_INCOMPLETE: fewer than the first call counted; those are reported. */
    if (r == VK_SUCCESS || r == VK_INCOMPLETE)
        for (uint32_t k = 0; k < count; ++k) fn(fenns__pass_name(pass), executable, &statistics[k], user_data);
    fenns__free(ctx, statistics);
    return r == VK_SUCCESS || r == VK_INCOMPLETE ? FENNS_SUCCESS : fenns__from_vk(r);
}

/* Every executable of one pass's pipeline (a compute pipeline has one). */
static fenns_result report_pass(fenns_context ctx, VkPipeline pipeline, fenns_pass pass,
                                fenns_pipeline_statistic_fn fn, void *user_data) {
    VkPipelineInfoKHR info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipeline};
    uint32_t count = 0;
    VkResult r = ctx->vk.vkGetPipelineExecutablePropertiesKHR(ctx->device, &info, &count, NULL);
    if (r != VK_SUCCESS) return fenns__from_vk(r);
    if (count == 0) return FENNS_SUCCESS;
    VkPipelineExecutablePropertiesKHR *executables = fenns__alloc(ctx, count * sizeof *executables);
    if (!executables) return FENNS_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t e = 0; e < count; ++e)
        executables[e] = (VkPipelineExecutablePropertiesKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
    r = ctx->vk.vkGetPipelineExecutablePropertiesKHR(ctx->device, &info, &count, executables);
    fenns_result result = r == VK_SUCCESS || r == VK_INCOMPLETE ? FENNS_SUCCESS : fenns__from_vk(r);
    for (uint32_t e = 0; e < count && result == FENNS_SUCCESS; ++e)
        result = report_executable(ctx, pipeline, pass, e, &executables[e], fn, user_data);
    fenns__free(ctx, executables);
    return result;
}

fenns_result fenns_pipeline_statistics(fenns_pipeline pipeline, fenns_pipeline_statistic_fn fn, void *user_data) {
    if (!pipeline || !fn) return FENNS_ERROR_INVALID_ARGUMENT;
    fenns_context ctx = pipeline->ctx;
    if (!ctx->vk.vkGetPipelineExecutableStatisticsKHR) {
        fenns__log(ctx, FENNS_LOG_ERROR,
                   "pipeline statistics: the context was created without pipeline_statistics (fenns_context_create_info)");
        return FENNS_ERROR_UNSUPPORTED_DEVICE;
    }
    for (uint32_t pass = 0; pass < FENNS_PASS_COUNT; ++pass) {
        if (!pipeline->pipelines[pass]) continue;
        fenns_result result = report_pass(ctx, pipeline->pipelines[pass], (fenns_pass)pass, fn, user_data);
        if (result != FENNS_SUCCESS) {
            fenns__log(ctx, FENNS_LOG_ERROR, "pipeline statistics of the %s pass: %s", fenns__pass_name((fenns_pass)pass),
                       fenns_result_string(result));
            return result;
        }
    }
    return FENNS_SUCCESS;
}
