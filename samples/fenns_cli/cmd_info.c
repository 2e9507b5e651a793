/*
 * `fenns info [--device I] [--radius R] [--n N] [--domain x0,y0,z0,x1,y1,z1] [--method M]`
 *
 * Lists the Vulkan devices, opens the chosen one, and prints its fenns limits,
 * what --method auto picks and why, and the plan fenns makes for a pipeline
 * of method M (default: auto's pick), radius R (default 1) and N particles
 * (default 1048576) in the box (default: computed on the GPU).
 * argv[0] is the command name ("info"); options follow.
 */
#include <volk.h> /* before any header that includes vulkan.h: it sets VK_NO_PROTOTYPES */

#include "cli.h"

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The logger keeps the last error so that a failure is reported as one line
 * with its real reason; validation messages and warnings print at once. */
typedef struct info_log {
    char last_error[512];
    unsigned validation_messages; /* with FENNS_VALIDATION=1: any one fails the command */
} info_log;

static void info_logger(fenns_log_level level, const char *message, void *user_data)
{
    info_log *log = user_data;
    if (level == FENNS_LOG_ERROR) {
        if (strncmp(message, "validation: ", 12) == 0) {
            log->validation_messages++;
            fprintf(stderr, "fenns: %s\n", message);
        } else
            snprintf(log->last_error, sizeof log->last_error, "%s", message);
    } else if (level == FENNS_LOG_WARNING) {
        fprintf(stderr, "fenns: warning: %s\n", message);
    }
}

/* One line on stderr: the logged reason when there is one. */
static int info_fail(info_log *log, const char *what, fenns_result result)
{
    if (log->last_error[0])
        fprintf(stderr, "fenns: error: %s: %s\n", what, log->last_error);
    else
        fprintf(stderr, "fenns: error: %s: %s\n", what, fenns_result_string(result));
    return 1;
}

static void print_device_line(const char *line, void *user_data)
{
    (void)user_data;
    printf("  %s\n", line);
}

/* 1 when arg (up to '=' if any) is exactly the option name. */
static int is_option(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static int parse_u32(const char *s, unsigned long long min, unsigned long long max, uint32_t *out)
{
    char *end = NULL;
    if (!s || !*s || *s == '-' || *s == '+')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

static const char *yes_no(uint32_t v) { return v ? "yes" : "no"; }

static void print_limits(const fenns_device_limits *l, uint32_t queue_family)
{
    printf("chosen device: %s\n", l->device_name);
    printf("  Vulkan                      %u.%u.%u\n", VK_API_VERSION_MAJOR(l->api_version),
           VK_API_VERSION_MINOR(l->api_version), VK_API_VERSION_PATCH(l->api_version));
    printf("  queue family                %u\n", queue_family);
    printf("  subgroup size               %u (min %u, max %u)\n", l->subgroup_size, l->min_subgroup_size,
           l->max_subgroup_size);
    printf("  shared memory               %u bytes (plans use %u)\n", l->max_shared_memory, l->shared_memory_budget);
    printf("  max storage buffer range    %llu bytes\n", (unsigned long long)l->max_storage_buffer_range);
    printf("  max list entries            %llu\n", (unsigned long long)l->max_list_entries);
    printf("  max workgroup invocations   %u\n", l->max_workgroup_invocations);
    printf("  max workgroup count         %u x %u x %u\n", l->max_workgroup_count[0], l->max_workgroup_count[1],
           l->max_workgroup_count[2]);
    printf("  storage offset alignment    %llu bytes\n", (unsigned long long)l->min_storage_buffer_offset_alignment);
    if (l->timestamp_period_ns > 0.0f)
        printf("  timestamp period            %g ns\n", (double)l->timestamp_period_ns);
    else
        printf("  timestamp period            (no timestamps)\n");
}

static void print_plan(const fenns_pipeline_create_info *pci, const fenns_plan_summary *p,
                       const fenns_memory_requirements *scratch)
{
    const char *method = fenns_method_name(p->method);
    printf("plan: method %s%s, radius %g, n %u, ", method ? method : "?",
           pci->method == FENNS_METHOD_AUTO ? " (auto's pick)" : "", (double)pci->radius, pci->max_particles);
    if (pci->domain_min[0] < pci->domain_max[0])
        printf("domain %g,%g,%g .. %g,%g,%g\n", (double)pci->domain_min[0], (double)pci->domain_min[1],
               (double)pci->domain_min[2], (double)pci->domain_max[0], (double)pci->domain_max[1],
               (double)pci->domain_max[2]);
    else
        printf("domain computed on the GPU\n");
    printf("  coarse cells (capacity)     %u\n", p->coarse_cell_capacity);
    if (p->coarse_dims[0])
        printf("  coarse grid                 %u x %u x %u\n", p->coarse_dims[0], p->coarse_dims[1],
               p->coarse_dims[2]);
    else
        printf("  coarse grid                 set per build from the GPU-computed domain\n");
    printf("  fine local grid (max/axis)  %u\n", p->fine_dims_max);
    printf("  workgroup size              %u\n", p->workgroup_size);
    printf("  search shared memory        %u bytes\n", p->shared_memory_bytes);
    printf("  shared-memory histogram     %s\n", yes_no(p->shared_histogram));
    printf("  scratch                     %llu bytes (%.1f MiB), alignment %llu, usage 0x%x\n",
           (unsigned long long)scratch->size, (double)scratch->size / (1024.0 * 1024.0),
           (unsigned long long)scratch->alignment, (unsigned)scratch->usage);
}

int fenns_cli_info(int argc, char **argv)
{
    int device_index = -1;
    float radius = 1.0f;
    uint32_t n = 1048576u;
    float domain_min[3] = {0, 0, 0}, domain_max[3] = {0, 0, 0};
    fenns_method method = FENNS_METHOD_AUTO;

    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (!is_option(arg, "--device") && !is_option(arg, "--radius") && !is_option(arg, "--n") &&
            !is_option(arg, "--domain") && !is_option(arg, "--method")) {
            fprintf(stderr, "fenns: error: info: unknown option '%s' (usage: fenns info [--device I] "
                            "[--radius R] [--n N] [--domain x0,y0,z0,x1,y1,z1] [--method M])\n", arg);
            return 2;
        }
        /* `--name value` or `--name=value` */
        const char *eq = strchr(arg, '=');
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v || !*v) {
            fprintf(stderr, "fenns: error: %.*s needs a value\n", (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
            return 2;
        }
        uint32_t u;
        if (is_option(arg, "--device")) {
            if (!parse_u32(v, 0, INT_MAX, &u)) {
                fprintf(stderr, "fenns: error: --device needs a device index (0, 1, ...), got '%s'\n", v);
                return 2;
            }
            device_index = (int)u;
        } else if (is_option(arg, "--radius")) {
            char *end = NULL;
            double r = strtod(v, &end);
            if (*end != '\0' || !isfinite(r) || r <= 0.0 || r > 3.0e38) {
                fprintf(stderr, "fenns: error: --radius needs a finite number > 0, got '%s'\n", v);
                return 2;
            }
            radius = (float)r;
            if (!(radius > 0.0f)) { /* positive but below float's range */
                fprintf(stderr, "fenns: error: --radius %s is too small for float32\n", v);
                return 2;
            }
        } else if (is_option(arg, "--domain")) {
            if (fenns_cli_parse_domain(v, domain_min, domain_max))
                return 2;
        } else if (is_option(arg, "--method")) {
            if (fenns_cli_parse_method(v, &method)) {
                fprintf(stderr, "fenns: error: unknown --method '%s' (fenns, fenns-paper, counting, octant, radix, "
                                "auto)\n", v);
                return 2;
            }
        } else if (!parse_u32(v, 1, UINT32_MAX, &n)) {
            fprintf(stderr, "fenns: error: --n needs a particle count 1..4294967295, got '%s'\n", v);
            return 2;
        }
    }

    printf("Vulkan devices:\n");
    /* On failure it has already printed its one-line reason. */
    if (fenns_headless_list_devices(print_device_line, NULL) < 0)
        return 1;

    info_log log;
    memset(&log, 0, sizeof log);
    fenns_headless headless = NULL;
    fenns_context context = NULL;
    fenns_pipeline pipeline = NULL;
    int status = 1;

    fenns_headless_create_info hci;
    memset(&hci, 0, sizeof hci);
    hci.use_device_index = device_index >= 0;
    hci.device_index = device_index;
    hci.log = info_logger;
    hci.log_user_data = &log;
    fenns_result r = fenns_headless_create(&hci, &headless);
    if (r != FENNS_SUCCESS) {
        info_fail(&log, "cannot open the device", r);
        goto done;
    }

    fenns_context_create_info cci;
    fenns_headless_context_info(headless, &cci);
    r = fenns_context_create(&cci, &context);
    if (r != FENNS_SUCCESS) {
        info_fail(&log, "fenns cannot use the device", r);
        goto done;
    }
    fenns_device_limits limits;
    fenns_context_get_limits(context, &limits);
    print_limits(&limits, fenns_headless_queue_family(headless));
    printf("  descriptors                 %s\n", fenns_context_uses_push_descriptors(context)
                                                   ? "pushed (VK_KHR_push_descriptor)"
                                                   : "descriptor sets from an arena (no VK_KHR_push_descriptor)");

    fenns_pipeline_create_info pci;
    memset(&pci, 0, sizeof pci); /* all-zero domain: computed on the GPU */
    pci.method = method;
    pci.radius = radius;
    pci.max_particles = n;
    memcpy(pci.domain_min, domain_min, sizeof domain_min);
    memcpy(pci.domain_max, domain_max, sizeof domain_max);
    fenns_method_choice choice;
    r = fenns_method_choose(context, &pci, &choice);
    if (r != FENNS_SUCCESS) {
        info_fail(&log, "no plan for these parameters", r);
        goto done;
    }
    printf("auto: picks %s: %s\n", fenns_method_name(choice.method), choice.reason);
    r = fenns_pipeline_create(context, &pci, &pipeline);
    if (r != FENNS_SUCCESS) {
        info_fail(&log, "no plan for these parameters", r);
        goto done;
    }
    fenns_plan_summary plan;
    fenns_pipeline_get_plan(pipeline, &plan);
    fenns_memory_requirements scratch;
    fenns_pipeline_get_scratch_requirements(pipeline, n, &scratch);
    print_plan(&pci, &plan, &scratch);
    status = 0;

done:
    fflush(stdout);
    fenns_pipeline_destroy(pipeline);
    fenns_context_destroy(context);
    fenns_headless_destroy(headless); /* may still report validation messages */
    if (log.validation_messages) {
        fprintf(stderr, "fenns: error: %u Vulkan validation message%s (see above)\n", log.validation_messages,
                log.validation_messages == 1 ? "" : "s");
        status = 1;
    }
    return status;
}
