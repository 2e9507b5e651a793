// Compile-only test: the public headers are valid C++ under -Wall -Wextra
// -Wpedantic -Werror (extern "C", no C-only constructs), and usable from it.
#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>
#include <fenns/fenns_kernel.h>

#include <type_traits>

static_assert(FENNS_SUCCESS == 0, "zero is success");
static_assert(sizeof(fenns_result) == 4, "32-bit enums");
static_assert(sizeof(fenns_status) == 22 * 4, "fenns_status is 20 u32/f32 and one u64, no padding (std430)");
static_assert(std::is_trivially_copyable<fenns_pipeline_create_info>::value, "plain C structs");
static_assert(std::is_standard_layout<fenns_search_info>::value, "plain C structs");
static_assert(std::is_trivially_copyable<fenns_host_csr>::value, "plain C structs");

namespace {

// The X-macro yields a switch a C++ caller can write.
const char *result_name(fenns_result r)
{
    switch (r) {
#define HEADER_CXX_CASE(name, value, text) \
    case name: return #name;
        FENNS_RESULT_LIST(HEADER_CXX_CASE)
#undef HEADER_CXX_CASE
    default: return "?";
    }
}

struct pipeline_deleter {
    void operator()(fenns_pipeline_T *p) const { fenns_pipeline_destroy(p); }
};

struct searcher_deleter {
    void operator()(fenns_host_searcher_T *s) const { fenns_host_searcher_destroy(s); }
};

} // namespace

// Referenced, never called: checks the signatures as a caller sees them.
void header_cxx_use(VkCommandBuffer cmd, fenns_context context);
void header_cxx_use(VkCommandBuffer cmd, fenns_context context)
{
    fenns_pipeline_create_info info = {};
    info.method = FENNS_METHOD_FENNS_PAPER;
    info.radius = 0.5f;
    info.max_particles = 4096u;
    fenns_pipeline pipeline = nullptr;
    fenns_result r = fenns_pipeline_create(context, &info, &pipeline);
    if (r != FENNS_SUCCESS) {
        (void)result_name(r);
        (void)fenns_result_string(r);
        return;
    }
    fenns_memory_requirements req = {};
    fenns_pipeline_get_scratch_requirements(pipeline, 4096u, &req);
    fenns_search_info search = {};
    search.outputs = FENNS_OUTPUT_FIXED | FENNS_OUTPUT_SORTED_LISTS;
    search.fixed_capacity = 64u;
    fenns_cmd_search(cmd, pipeline, &search);
    (void)fenns_pipeline_statistics(
        pipeline,
        [](const char *, const VkPipelineExecutablePropertiesKHR *, const VkPipelineExecutableStatisticKHR *, void *) {},
        nullptr);
    pipeline_deleter()(pipeline);

    fenns_host_searcher searcher = nullptr;
    if (fenns_host_searcher_create(context, &searcher) == FENNS_SUCCESS) {
        fenns_host_search_info host_info = {};
        host_info.radius = 1.0f;
        fenns_host_csr csr = {};
        if (fenns_host_searcher_run(searcher, &host_info, &csr) == FENNS_SUCCESS)
            fenns_host_csr_free(context, &csr);
        searcher_deleter()(searcher);
    }

    fenns_headless_create_info headless_info = {};
    headless_info.device_index = -1;
    fenns_headless headless = nullptr;
    if (fenns_headless_create(&headless_info, &headless) == FENNS_SUCCESS) {
        fenns_context_create_info context_info = {};
        fenns_headless_context_info(headless, &context_info);
        (void)fenns_headless_queue(headless);
        fenns_headless_destroy(headless);
    }
    (void)fenns_headless_list_devices([](const char *, void *) {}, nullptr);
}
