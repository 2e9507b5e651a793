/* Compile-only test: the public headers are valid C99 under -Wall -Wextra
 * -Wpedantic -Werror, with Vulkan prototypes visible (no VK_NO_PROTOTYPES),
 * and their types and functions are usable as documented. */
#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>
#include <fenns/fenns_kernel.h>
#include <fenns/fenns.h> /* include guards */

/* C99 has no _Static_assert: a negative array size fails the build.
 * fenns_status is read by the host as the GPU writes it (std430): 18 u32/f32
 * and one u64, no padding; update here when it grows. */
#define HEADER_C99_ASSERT(name, cond) typedef char header_c99_##name[(cond) ? 1 : -1]
HEADER_C99_ASSERT(success_is_zero, FENNS_SUCCESS == 0);
HEADER_C99_ASSERT(errors_negative, FENNS_ERROR_INVALID_ARGUMENT < 0 && FENNS_ERROR_INCOMPLETE < 0);
HEADER_C99_ASSERT(default_method_zero, FENNS_METHOD_FENNS == 0);
HEADER_C99_ASSERT(enum_is_32_bit, sizeof(fenns_result) == 4);
HEADER_C99_ASSERT(status_is_std430_u32s, sizeof(fenns_status) == 22 * 4);
HEADER_C99_ASSERT(version, FENNS_VERSION_MAJOR >= 0 && FENNS_VERSION_MINOR >= 0 && FENNS_VERSION_PATCH >= 0);

/* Every result code has a message (the X-macro expands in user code too). */
#define HEADER_C99_COUNT(name, value, text) +1
enum { header_c99_result_total = 0 FENNS_RESULT_LIST(HEADER_C99_COUNT) };
HEADER_C99_ASSERT(result_count, header_c99_result_total >= 9);

static void header_c99_log(fenns_log_level level, const char *message, void *user_data)
{
    (void)level;
    (void)message;
    (void)user_data;
}

/* Referenced, never called: checks the signatures as a caller sees them. */
void header_c99_use(VkCommandBuffer cmd, fenns_context context);
void header_c99_use(VkCommandBuffer cmd, fenns_context context)
{
    fenns_pipeline_create_info info = {FENNS_METHOD_FENNS, 1.0f, 1024u, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, NULL, 0u};
    fenns_pipeline pipeline = NULL;
    fenns_memory_requirements req;
    fenns_scratch_layout layout;
    fenns_plan_summary plan;
    fenns_build_info build = {0};
    fenns_search_info search = {0};
    fenns_headless_create_info headless_info = {0, -1, 1, header_c99_log, NULL, 0u, 0, 0};
    fenns_headless headless = NULL;
    fenns_context_create_info context_info;
    fenns_log_fn log = header_c99_log;
    fenns_headless_print_fn print = 0;
    const char *text = fenns_result_string(FENNS_ERROR_VULKAN);
    fenns_kernel_spirv spirv = {NULL, 0u, NULL};
    fenns_kernel_info kernel = {NULL, 0u, VK_NULL_HANDLE};
    fenns_result (*compile)(const char *, const char *, fenns_kernel_spirv *) = fenns_kernel_compile;
    fenns_result (*statistics)(fenns_pipeline, fenns_pipeline_statistic_fn, void *) = fenns_pipeline_statistics;

    (void)text;
    (void)compile;
    (void)statistics;
    kernel.spirv = spirv.code;
    info.kernel = &kernel;
    (void)log;
    (void)print;
    if (fenns_pipeline_create(context, &info, &pipeline) != FENNS_SUCCESS)
        return;
    fenns_pipeline_get_scratch_requirements(pipeline, 1024u, &req);
    fenns_pipeline_get_scratch_layout(pipeline, 1024u, &layout);
    fenns_pipeline_get_plan(pipeline, &plan);
    build.particle_count = 1024u;
    if (!fenns_context_uses_push_descriptors(context) &&
        fenns_descriptor_arena_create(context, &build.descriptors) != FENNS_SUCCESS)
        return;
    search.descriptors = build.descriptors;
    fenns_cmd_build(cmd, pipeline, &build);
    fenns_cmd_build_to_search_barrier(cmd, pipeline);
    search.outputs = FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_CSR;
    fenns_cmd_search(cmd, pipeline, &search);
    fenns_pipeline_destroy(pipeline);
    fenns_descriptor_arena_reset(build.descriptors);
    fenns_descriptor_arena_destroy(build.descriptors);
    {
        fenns_host_searcher searcher = NULL;
        fenns_host_search_info host_info = {FENNS_METHOD_FENNS, 1.0f, NULL, 0, 0u, {0.0f, 0.0f, 0.0f},
                                            {0.0f, 0.0f, 0.0f}, VK_NULL_HANDLE, 0, NULL, NULL, 0, 0u};
        fenns_host_csr csr;
        if (fenns_host_searcher_create(context, &searcher) == FENNS_SUCCESS &&
            fenns_host_searcher_run(searcher, &host_info, &csr) == FENNS_SUCCESS)
            fenns_host_csr_free(context, &csr); /* clears; the memory stays the searcher's */
        fenns_host_searcher_destroy(searcher);
        if (fenns_host_search(context, &host_info, &csr) == FENNS_SUCCESS)
            fenns_host_csr_free(context, &csr); /* releases the one-shot searcher */
    }
    if (fenns_headless_create(&headless_info, &headless) == FENNS_SUCCESS) {
        fenns_headless_context_info(headless, &context_info);
        (void)fenns_headless_validation_message_count(headless);
        fenns_headless_destroy(headless);
    }
}
