/*
 * fenns_pipeline_statistics and the context's pipeline_statistics:
 *
 *  - a NULL pipeline or callback is refused (FENNS_ERROR_INVALID_ARGUMENT);
 *  - a context made without pipeline_statistics refuses, by name, and calls
 *    nothing;
 *  - where the driver offers VK_KHR_pipeline_executable_properties (the
 *    headless helper enables it when asked), every pass the pipeline made is
 *    reported, and only those, each with named statistics of an executable
 *    of the pipeline's subgroup size;
 *  - where it does not (lavapipe in Debian 12's Mesa), the helper opens the
 *    device without it, and a context asked for it is refused, by name.
 */
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "pipeline.h"

typedef struct reported {
    uint32_t calls;
    uint32_t per_pass[FENNS_PASS_COUNT]; /* statistics reported for each pass */
    uint32_t unknown_passes;             /* names that are no pass of fenns */
    uint32_t unnamed;                    /* statistics with an empty name */
    uint32_t subgroup_size_min, subgroup_size_max;
} reported;

static void count_statistic(const char *pass, const VkPipelineExecutablePropertiesKHR *executable,
                            const VkPipelineExecutableStatisticKHR *statistic, void *user_data) {
    reported *r = user_data;
    ++r->calls;
    uint32_t k = 0;
    while (k < FENNS_PASS_COUNT && strcmp(fenns__pass_name((fenns_pass)k), pass) != 0) ++k;
    if (k < FENNS_PASS_COUNT) ++r->per_pass[k];
    else ++r->unknown_passes;
    if (statistic->name[0] == '\0') ++r->unnamed;
    if (r->subgroup_size_min == 0 || executable->subgroupSize < r->subgroup_size_min)
        r->subgroup_size_min = executable->subgroupSize;
    if (executable->subgroupSize > r->subgroup_size_max) r->subgroup_size_max = executable->subgroupSize;
}

static fenns_pipeline make_pipeline(fenns_context context) {
    fenns_pipeline_create_info pci = {0};
    pci.method = FENNS_METHOD_FENNS;
    pci.radius = 1.0f;
    pci.max_particles = 4096;
    for (int a = 0; a < 3; ++a) pci.domain_max[a] = 12.0f;
    fenns_pipeline pipeline = NULL;
    fenns_result r = fenns_pipeline_create(context, &pci, &pipeline);
    CHECK(r == FENNS_SUCCESS, "fenns_pipeline_create: %s", fenns_result_string(r));
    return pipeline;
}

/* The refusal of a context without pipeline statistics: by name, nothing called. */
static void check_refused(fenns_test_gpu *g, fenns_context context) {
    fenns_pipeline pipeline = make_pipeline(context);
    if (!pipeline) return;
    reported r = {0};
    uint32_t errors = g->error_messages;
    g->quiet = 1;
    fenns_result got = fenns_pipeline_statistics(pipeline, count_statistic, &r);
    g->quiet = 0;
    CHECK(got == FENNS_ERROR_UNSUPPORTED_DEVICE, "without pipeline_statistics: %s", fenns_result_string(got));
    CHECK(r.calls == 0, "without pipeline_statistics: %u statistics reported", r.calls);
    CHECK(g->error_messages == errors + 1 && strstr(g->last_error, "pipeline_statistics"),
          "the refusal is logged by name (last: '%s')", g->last_error);
    g->error_messages = errors;
    fenns_pipeline_destroy(pipeline);
}

static void check_reported(fenns_context context) {
    fenns_pipeline pipeline = make_pipeline(context);
    if (!pipeline) return;
    reported r = {0};
    fenns_result got = fenns_pipeline_statistics(pipeline, count_statistic, &r);
    CHECK(got == FENNS_SUCCESS, "fenns_pipeline_statistics: %s", fenns_result_string(got));
    uint32_t made = 0;
    for (uint32_t k = 0; k < FENNS_PASS_COUNT; ++k) {
        int has = pipeline->pipelines[k] != VK_NULL_HANDLE;
        made += has ? 1u : 0u;
        CHECK(has == (r.per_pass[k] > 0), "pass %s: made %d, %u statistics reported",
              fenns__pass_name((fenns_pass)k), has, r.per_pass[k]);
    }
    CHECK(made > 0, "the pipeline made no pass");
    CHECK(r.unknown_passes == 0, "%u statistics of passes fenns does not have", r.unknown_passes);
    CHECK(r.unnamed == 0, "%u statistics without a name", r.unnamed);
    fenns_device_limits limits;
    fenns_context_get_limits(context, &limits);
    CHECK(r.subgroup_size_min >= limits.min_subgroup_size && r.subgroup_size_max <= limits.max_subgroup_size,
          "executables' subgroup sizes %u..%u, the device's %u..%u", r.subgroup_size_min, r.subgroup_size_max,
          limits.min_subgroup_size, limits.max_subgroup_size);
    printf("  %u passes, %u statistics\n", made, r.calls);
    fenns_pipeline_destroy(pipeline);
}

int main(void) {
    fenns_test_gpu g;
    if (fenns_test_gpu_open_statistics(&g) != FENNS_SUCCESS) return 1;
    fenns_context_create_info cci;
    fenns_headless_context_info(g.headless, &cci);
    printf("pipeline statistics on %s: %s\n", g.limits.device_name,
           cci.pipeline_statistics ? "offered by the driver" : "not offered by the driver");

    fenns_pipeline any = make_pipeline(g.context);
    CHECK(fenns_pipeline_statistics(NULL, count_statistic, NULL) == FENNS_ERROR_INVALID_ARGUMENT, "NULL pipeline");
    CHECK(fenns_pipeline_statistics(any, NULL, NULL) == FENNS_ERROR_INVALID_ARGUMENT, "NULL callback");
    fenns_pipeline_destroy(any);

    /* The same device, a context without them. */
    fenns_context_create_info plain_info = cci;
    plain_info.pipeline_statistics = 0;
    fenns_context plain = NULL;
    fenns_result r = fenns_context_create(&plain_info, &plain);
    CHECK(r == FENNS_SUCCESS, "a context without pipeline statistics: %s", fenns_result_string(r));
    if (plain) check_refused(&g, plain);
    fenns_context_destroy(plain);

    if (cci.pipeline_statistics) {
        check_reported(g.context);
    } else {
        /* Asked for on a device that does not have them enabled: refused. */
        fenns_context_create_info asked = cci;
        asked.pipeline_statistics = 1;
        fenns_context refused = NULL;
        uint32_t errors = g.error_messages;
        g.quiet = 1;
        r = fenns_context_create(&asked, &refused);
        g.quiet = 0;
        CHECK(r == FENNS_ERROR_UNSUPPORTED_DEVICE && !refused, "pipeline_statistics without the extension: %s",
              fenns_result_string(r));
        CHECK(g.error_messages == errors + 1 && strstr(g.last_error, "VK_KHR_pipeline_executable_properties"),
              "the refusal names the extension (last: '%s')", g.last_error);
        g.error_messages = errors;
        fenns_context_destroy(refused);
    }
    uint32_t messages = fenns_test_gpu_close(&g);
    CHECK(messages == 0, "%u validation messages or library errors", messages);
    printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
