/* fenns neighbors: neighbour lists of a point file on the GPU; fenns run: a
 * user neighbour kernel evaluated on a point file. One option parser and
 * one device setup serve both. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>
#include <fenns/fenns_kernel.h>

#include "particle_io.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: fenns neighbors --input F --radius R [options]\n"
            "\n"
            "Finds, for every point of F, all other points within distance R (dist2 <= R*R in float32)\n"
            "and writes the lists, each ascending, as CSR.\n"
            "\n"
            "  --input F        points: .f32 (raw little-endian float32 x,y,z), .xyz/.txt/.csv (three\n"
            "                   numbers a line), .ply (ascii or binary_little_endian vertex x,y,z)\n"
            "  --radius R       search radius, finite and > 0\n"
            "  --method M       fenns (default; deterministic), fenns-paper (the published loop),\n"
            "                   counting (Hoetzlein's grid, the papers' baseline), octant (Morillo's\n"
            "                   8 cells toward the particle's octant), radix (Green's radix-sort grid) or\n"
            "                   auto (picks one from n, R and the points' box; --stats says which)\n"
            "  --output F|-     F: binary CSR (\"FNNSCSR1\", u64 n, u64 m, u64 offsets[n+1], u32 indices[m],\n"
            "                   little-endian); -: text lines 'i: j1 j2 ...' on stdout.\n"
            "                   Without --output only a summary line is printed.\n"
            "  --device I       Vulkan physical device index (else FENNS_DEVICE, else the best one)\n"
            "  --domain x0,y0,z0,x1,y1,z1\n"
            "                   grid box (default: the box of the points, computed on the GPU);\n"
            "                   points outside it are still found exactly\n"
            "  --memory-budget BYTES   not implemented yet\n"
            "  --stats          timings, memory, grid sizes and device on stderr\n"
            "\n"
            "Points with NaN or Inf coordinates get no neighbours and are nobody's neighbour.\n");
}

static void usage_run(FILE *out)
{
    fprintf(out,
            "usage: fenns run --input F --radius R --kernel K.glsl --output OUT.f32 [options]\n"
            "\n"
            "Evaluates a user neighbour kernel on every point of F over its neighbours (dist2 <= R*R in\n"
            "float32) and writes the vec4 that the kernel's fenns_finish returns for every point, in\n"
            "input order, as raw little-endian float32 (16 bytes a point).\n"
            "\n"
            "  --kernel K.glsl  GLSL without #version defining\n"
            "                     struct fenns_state { ... };\n"
            "                     void fenns_init(inout fenns_state s, uint i, vec3 pi);\n"
            "                     void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj,\n"
            "                                         float dist2);\n"
            "                     vec4 fenns_finish(fenns_state s, uint i, vec3 pi);\n"
            "                   called for every neighbour j != i, in a fixed order with --method fenns;\n"
            "                   fenns_radius() and fenns_particle_count() are there to call\n"
            "                   (example: samples/kernels/sph_density.glsl)\n"
            "  --output F       the vec4 per point (required)\n"
            "  --input, --radius, --method, --device, --domain, --stats: as 'fenns neighbors'\n");
}

/* One error line; control characters from user input are shown as '?'. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void error_line(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *c = msg; *c; ++c)
        if ((unsigned char)*c < 0x20)
            *c = '?';
    fprintf(stderr, "fenns: error: %s\n", msg);
}

/* ------------------------------------------------------------------------ */
/* Option values                                                            */
/* ------------------------------------------------------------------------ */

/* Whole string as a float; 0 on success. */
static int parse_float(const char *s, float *out)
{
    char *end;
    float v;
    if (!s || !*s || s[0] == ' ' || s[0] == '\t' || s[0] == '\n')
        return 1;
    errno = 0;
    v = strtof(s, &end);
    if (*end != '\0')
        return 1;
    *out = v;
    return 0;
}

int fenns_cli_parse_method(const char *s, fenns_method *out)
{
    for (int m = FENNS_METHOD_FENNS; m <= FENNS_METHOD_AUTO; ++m) {
        if (strcmp(s, fenns_method_name((fenns_method)m)) == 0) {
            *out = (fenns_method)m;
            return 0;
        }
    }
    return 1;
}

int fenns_cli_parse_domain(const char *s, float lo[3], float hi[3])
{
    float v[6];
    char part[128];
    const char *p = s;
    for (int k = 0; k < 6; ++k) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if ((k < 5) != (comma != NULL) || len == 0 || len >= sizeof part) {
            error_line("--domain '%s': expected 6 comma-separated numbers x0,y0,z0,x1,y1,z1", s);
            return 1;
        }
        memcpy(part, p, len);
        part[len] = '\0';
        if (parse_float(part, &v[k]) || !isfinite(v[k])) {
            error_line("--domain '%s': '%s' is not a finite number", s, part);
            return 1;
        }
        p = comma ? comma + 1 : p + len;
    }
    for (int a = 0; a < 3; ++a) {
        if (!(v[a] < v[a + 3])) {
            error_line("--domain '%s': the minimum must be below the maximum on every axis (axis %c)", s,
                       "xyz"[a]);
            return 1;
        }
        lo[a] = v[a];
        hi[a] = v[a + 3];
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Logger                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct log_state {
    int echo;            /* print every warning and error as it comes (FENNS_VALIDATION=1) */
    char first_error[512];
} log_state;

static void cli_log(fenns_log_level level, const char *message, void *user_data)
{
    log_state *st = (log_state *)user_data;
    if (level == FENNS_LOG_ERROR && st->first_error[0] == '\0' && message) {
        snprintf(st->first_error, sizeof st->first_error, "%s", message);
        for (char *c = st->first_error; *c; ++c)
            if ((unsigned char)*c < 0x20)
                *c = ' ';
    }
    if (st->echo && level != FENNS_LOG_INFO && message)
        fprintf(stderr, "fenns: %s: %s\n", level == FENNS_LOG_ERROR ? "vulkan error" : "vulkan warning",
                message);
}

/* " (first logged error)" or "". */
static const char *detail(const log_state *st, char *buf, size_t size)
{
    if (st->first_error[0] == '\0')
        return "";
    snprintf(buf, size, " (%s)", st->first_error);
    return buf;
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */
/* ------------------------------------------------------------------------ */

typedef struct options {
    int run;            /* fenns run: a kernel instead of lists */
    const char *kernel; /* fenns run --kernel */
    const char *command; /* "neighbors" or "run", for messages */
    const char *input;
    const char *output;
    const char *radius_text;
    float radius;
    fenns_method method;
    const char *method_name;
    int device;
    int have_domain;
    float domain_min[3];
    float domain_max[3];
    int stats;
} options;

/* Returns -1 when the options are good, else the exit status. */
static int parse_options(int argc, char **argv, int run, options *o)
{
    memset(o, 0, sizeof *o);
    o->run = run;
    o->command = run ? "run" : "neighbors";
    o->device = -1;
    o->method = FENNS_METHOD_FENNS;
    o->method_name = "fenns";
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *eq;
        const char *val = NULL;
        char name[64];
        size_t len;
        int is_flag;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            if (run)
                usage_run(stdout);
            else
                usage(stdout);
            return FENNS_CLI_EXIT_OK;
        }
        if (strncmp(arg, "--", 2) != 0) {
            error_line("unexpected argument '%s' (try 'fenns %s --help')", arg, o->command);
            return FENNS_CLI_EXIT_USAGE;
        }
        eq = strchr(arg, '=');
        len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name) {
            error_line("unknown option '%.40s...' (try 'fenns %s --help')", arg, o->command);
            return FENNS_CLI_EXIT_USAGE;
        }
        memcpy(name, arg, len);
        name[len] = '\0';
        is_flag = strcmp(name, "--stats") == 0;
        if (!is_flag && strcmp(name, "--input") != 0 && strcmp(name, "--radius") != 0 &&
            strcmp(name, "--method") != 0 && strcmp(name, "--output") != 0 && strcmp(name, "--device") != 0 &&
            strcmp(name, "--domain") != 0 && (run || strcmp(name, "--memory-budget") != 0) &&
            (!run || strcmp(name, "--kernel") != 0)) {
            error_line("unknown option '%s' (try 'fenns %s --help')", name, o->command);
            return FENNS_CLI_EXIT_USAGE;
        }
        if (is_flag) {
            if (eq) {
                error_line("option %s takes no value", name);
                return FENNS_CLI_EXIT_USAGE;
            }
            o->stats = 1;
            continue;
        }
        if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            error_line("option %s needs a value", name);
            return FENNS_CLI_EXIT_USAGE;
        }

        if (strcmp(name, "--input") == 0) {
            if (!*val) {
                error_line("--input needs a file name");
                return FENNS_CLI_EXIT_USAGE;
            }
            o->input = val;
        } else if (strcmp(name, "--kernel") == 0) {
            if (!*val) {
                error_line("--kernel needs a file name");
                return FENNS_CLI_EXIT_USAGE;
            }
            o->kernel = val;
        } else if (strcmp(name, "--output") == 0) {
            if (!*val || (run && strcmp(val, "-") == 0)) {
                error_line(run ? "--output needs a file name" : "--output needs a file name or '-'");
                return FENNS_CLI_EXIT_USAGE;
            }
            o->output = val;
        } else if (strcmp(name, "--radius") == 0) {
            float r;
            if (parse_float(val, &r)) {
                error_line("--radius '%s' is not a number", val);
                return FENNS_CLI_EXIT_USAGE;
            }
            if (!isfinite(r) || !(r > 0.0f)) {
                error_line("--radius '%s' must be finite and > 0", val);
                return FENNS_CLI_EXIT_USAGE;
            }
            o->radius = r;
            o->radius_text = val;
        } else if (strcmp(name, "--method") == 0) {
            if (fenns_cli_parse_method(val, &o->method)) {
                error_line("unknown --method '%s' (fenns, fenns-paper, counting, octant, radix, auto)", val);
                return FENNS_CLI_EXIT_USAGE;
            }
            o->method_name = val;
        } else if (strcmp(name, "--device") == 0) {
            char *end;
            long d;
            errno = 0;
            d = strtol(val, &end, 10);
            if (!*val || *end != '\0' || errno == ERANGE || d < 0 || d > INT_MAX) {
                error_line("--device '%s' is not a device index (0, 1, ...)", val);
                return FENNS_CLI_EXIT_USAGE;
            }
            o->device = (int)d;
        } else if (strcmp(name, "--domain") == 0) {
            if (fenns_cli_parse_domain(val, o->domain_min, o->domain_max))
                return FENNS_CLI_EXIT_USAGE;
            o->have_domain = 1;
        } else { /* --memory-budget */
            char *end;
            errno = 0;
            (void)strtoull(val, &end, 10);
            if (!*val || *end != '\0' || errno == ERANGE || val[0] == '-') {
                error_line("--memory-budget '%s' is not a byte count", val);
                return FENNS_CLI_EXIT_USAGE;
            }
            error_line("--memory-budget is not implemented yet");
            return FENNS_CLI_EXIT_USAGE;
        }
    }
    if (!o->input) {
        error_line("--input is required (try 'fenns %s --help')", o->command);
        return FENNS_CLI_EXIT_USAGE;
    }
    if (!o->radius_text) {
        error_line("--radius is required (try 'fenns %s --help')", o->command);
        return FENNS_CLI_EXIT_USAGE;
    }
    if (run && !o->kernel) {
        error_line("--kernel is required (try 'fenns run --help')");
        return FENNS_CLI_EXIT_USAGE;
    }
    if (run && !o->output) {
        error_line("--output is required (try 'fenns run --help')");
        return FENNS_CLI_EXIT_USAGE;
    }
    return -1;
}

static void print_ms(const char *name, double ms)
{
    if (ms < 0.0)
        fprintf(stderr, "  %-18s n/a\n", name);
    else
        fprintf(stderr, "  %-18s %.3f\n", name, ms);
}

static void print_stats(const options *o, uint32_t n, const fenns_host_csr *csr, const fenns_device_limits *lim)
{
    const fenns_status *st = &csr->status;
    fprintf(stderr, "fenns %s stats:\n", o->command);
    fprintf(stderr, "  %-18s %u\n", "n", n);
    fprintf(stderr, "  %-18s %.9g\n", "radius", (double)o->radius);
    if (o->method == FENNS_METHOD_AUTO)
        fprintf(stderr, "  %-18s auto (%s)\n", "method", fenns_method_name(csr->method));
    else
        fprintf(stderr, "  %-18s %s\n", "method", o->method_name);
    fprintf(stderr, "  %-18s %u\n", "invalid", st->invalid_count);
    fprintf(stderr, "  %-18s %llu\n", "total_neighbors", (unsigned long long)csr->total);
    fprintf(stderr, "  %-18s %.3f\n", "avg_neighbors", n ? (double)csr->total / (double)n : 0.0);
    print_ms("build_ms", csr->build_ms);
    print_ms("search_ms", csr->search_ms);
    print_ms("lists_ms", csr->lists_ms);
    fprintf(stderr, "  %-18s %llu\n", "gpu_memory_bytes", (unsigned long long)csr->gpu_memory_bytes);
    fprintf(stderr, "  %-18s %s\n", "device", lim->device_name);
    fprintf(stderr, "  %-18s %u (%u..%u)\n", "subgroup_size", lim->subgroup_size, lim->min_subgroup_size,
            lim->max_subgroup_size);
    fprintf(stderr, "  %-18s %u\n", "shared_memory", lim->shared_memory_budget);
    fprintf(stderr, "  %-18s %u %u %u\n", "coarse_dims", st->coarse_dims[0], st->coarse_dims[1],
            st->coarse_dims[2]);
    fprintf(stderr, "  %-18s %u %u %u\n", "fine_dims", st->fine_dims[0], st->fine_dims[1], st->fine_dims[2]);
    fprintf(stderr, "  %-18s %.9g,%.9g,%.9g .. %.9g,%.9g,%.9g%s\n", "domain", (double)st->domain_min[0],
            (double)st->domain_min[1], (double)st->domain_min[2], (double)st->domain_max[0],
            (double)st->domain_max[1], (double)st->domain_max[2], o->have_domain ? " (given)" : " (computed)");
}

/* The kernel file, compiled: 0 on success, else one error line printed. */
static int compile_kernel(const char *path, fenns_kernel_spirv *out)
{
    enum { MAX_KERNEL = 1 << 20 };
    char *source = NULL;
    size_t len = 0;
    int failed = 1;
    FILE *f = fopen(path, "rb");
    memset(out, 0, sizeof *out);
    if (!f) {
        error_line("cannot open kernel '%s': %s", path, strerror(errno));
        return 1;
    }
    source = malloc(MAX_KERNEL + 1);
    if (source) {
        len = fread(source, 1, MAX_KERNEL + 1, f);
        if (ferror(f))
            error_line("cannot read kernel '%s': %s", path, strerror(errno));
        else if (len > MAX_KERNEL)
            error_line("kernel '%s' is larger than 1 MiB", path);
        else
            failed = 0;
    } else {
        error_line("out of memory reading kernel '%s'", path);
    }
    fclose(f);
    if (!failed) {
        const char *base = strrchr(path, '/');
        fenns_result res;
        source[len] = '\0';
        if (strlen(source) != len) {
            error_line("kernel '%s' contains a NUL byte", path);
            failed = 1;
        } else if ((res = fenns_kernel_compile(source, base ? base + 1 : path, out)) != FENNS_SUCCESS) {
            /* The first message names the file and line; the rest follow it. */
            const char *log = out->log ? out->log : "";
            const char *first = strstr(log, "ERROR: ");
            size_t first_len;
            first = first ? first : log;
            first_len = strcspn(first, "\n");
            error_line("kernel '%s' does not compile: %.*s", path, (int)(first_len < 600 ? first_len : 600), first);
            if (out->log)
                fprintf(stderr, "%s", out->log);
            fenns_kernel_spirv_free(out);
            failed = 1;
        }
    }
    free(source);
    return failed;
}

/* The kernel's vec4 per point, as raw float32. */
static int write_values(const char *path, const float *values, uint32_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        error_line("cannot create '%s': %s", path, strerror(errno));
        return 1;
    }
    size_t wrote = n ? fwrite(values, 16, n, f) : 0;
    int bad = wrote != n;
    if (fclose(f) != 0 || bad) {
        error_line("cannot write '%s': %s", path, strerror(errno));
        return 1;
    }
    return 0;
}

static int neighbors_or_run(int argc, char **argv, int run)
{
    options o;
    fenns_kernel_spirv kernel_spirv;
    fenns_kernel_info kernel_info;
    float *xyz = NULL;
    uint32_t n = 0, nonfinite = 0;
    char err[1024];
    char more[600];
    const char *validation_env = getenv("FENNS_VALIDATION");
    log_state logst;
    fenns_headless_create_info hci;
    fenns_headless headless = NULL;
    fenns_context_create_info cci;
    fenns_context context = NULL;
    fenns_host_search_info si;
    fenns_host_csr csr;
    fenns_device_limits limits;
    fenns_result res;
    int have_csr = 0;
    int status = FENNS_CLI_EXIT_FAILURE;
    int rc = parse_options(argc, argv, run, &o);
    if (rc >= 0)
        return rc;
    memset(&kernel_spirv, 0, sizeof kernel_spirv);

    /* The file before the device: bad input fails fast and in one line. */
    if (fenns_io_read_points(o.input, &xyz, &n, &nonfinite, err, sizeof err)) {
        error_line("%s", err);
        return FENNS_CLI_EXIT_FAILURE;
    }
    if (run && compile_kernel(o.kernel, &kernel_spirv)) {
        free(xyz);
        return FENNS_CLI_EXIT_FAILURE;
    }
    if (nonfinite > 0)
        fprintf(stderr,
                "fenns: warning: %s: %u of %u points have NaN or Inf coordinates; they get no neighbours "
                "and are nobody's neighbour\n",
                o.input, nonfinite, n);

    memset(&logst, 0, sizeof logst);
    logst.echo = validation_env && strcmp(validation_env, "1") == 0;
    memset(&hci, 0, sizeof hci);
    hci.use_device_index = o.device >= 0;
    hci.device_index = o.device;
    hci.enable_validation = 0; /* the helper also reads FENNS_VALIDATION */
    hci.log = cli_log;
    hci.log_user_data = &logst;
    res = fenns_headless_create(&hci, &headless);
    if (res != FENNS_SUCCESS) {
        if (o.device >= 0)
            error_line("cannot use Vulkan device %d: %s%s", o.device, fenns_result_string(res),
                       detail(&logst, more, sizeof more));
        else
            error_line("no usable Vulkan device: %s%s", fenns_result_string(res), detail(&logst, more, sizeof more));
        headless = NULL;
        goto done;
    }
    memset(&cci, 0, sizeof cci);
    fenns_headless_context_info(headless, &cci);
    cci.log = cli_log;
    cci.log_user_data = &logst;
    res = fenns_context_create(&cci, &context);
    if (res != FENNS_SUCCESS) {
        error_line("cannot create the fenns context: %s%s", fenns_result_string(res), detail(&logst, more, sizeof more));
        context = NULL;
        goto done;
    }

    memset(&si, 0, sizeof si);
    si.method = o.method;
    si.radius = o.radius;
    si.positions = xyz;
    si.stride = 0;
    si.particle_count = n;
    if (o.have_domain) {
        memcpy(si.domain_min, o.domain_min, sizeof si.domain_min);
        memcpy(si.domain_max, o.domain_max, sizeof si.domain_max);
    }
    si.queue = fenns_headless_queue(headless);
    si.counts_only = (o.output == NULL && !o.stats) ? 1 : 0;
    if (run) {
        kernel_info.spirv = kernel_spirv.code;
        kernel_info.spirv_size = kernel_spirv.size;
        kernel_info.user_set_layout = VK_NULL_HANDLE;
        si.kernel = &kernel_info;
    }
    memset(&csr, 0, sizeof csr);
    res = fenns_host_search(context, &si, &csr);
    if (res != FENNS_SUCCESS) {
        error_line("search failed: %s%s", fenns_result_string(res), detail(&logst, more, sizeof more));
        goto done;
    }
    have_csr = 1;
    if (csr.particle_count != n || !csr.offsets || csr.offsets[n] != csr.total ||
        (!run && !si.counts_only && csr.total > 0 && !csr.indices) || (run && n > 0 && !csr.kernel_values) ||
        csr.status.list_overflow != 0) {
        error_line("search returned inconsistent lists (n %llu of %u, m %llu, %u overflowed)",
                   (unsigned long long)csr.particle_count, n, (unsigned long long)csr.total,
                   csr.status.list_overflow);
        goto done;
    }

    char method_text[64]; /* auto names its pick */
    snprintf(method_text, sizeof method_text, o.method == FENNS_METHOD_AUTO ? "auto (%s)" : "%s",
             o.method == FENNS_METHOD_AUTO ? fenns_method_name(csr.method) : o.method_name);
    if (run) {
        if (write_values(o.output, csr.kernel_values, n))
            goto done;
        printf("%s: %u points, radius %.9g, method %s, kernel %s: %llu neighbours visited (%.3f per point), "
               "%u invalid -> %s\n",
               o.input, n, (double)o.radius, method_text, o.kernel, (unsigned long long)csr.total,
               n ? (double)csr.total / (double)n : 0.0, csr.status.invalid_count, o.output);
        if (fflush(stdout) != 0) {
            error_line("write error on standard output: %s", strerror(errno));
            goto done;
        }
    } else if (o.output) {
        if (fenns_io_write_csr(o.output, n, csr.offsets, csr.indices, err, sizeof err)) {
            error_line("%s", err);
            goto done;
        }
    } else {
        printf("%s: %u points, radius %.9g, method %s: %llu neighbours (%.3f per point), %u invalid\n", o.input,
               n, (double)o.radius, method_text, (unsigned long long)csr.total,
               n ? (double)csr.total / (double)n : 0.0, csr.status.invalid_count);
        if (fflush(stdout) != 0) {
            error_line("write error on standard output: %s", strerror(errno));
            goto done;
        }
    }
    if (o.stats) {
        fenns_context_get_limits(context, &limits);
        print_stats(&o, n, &csr, &limits);
    }
    {
        uint32_t messages = fenns_headless_validation_message_count(headless);
        if (messages > 0) {
            error_line("%u Vulkan validation message(s)%s", messages, detail(&logst, more, sizeof more));
            goto done;
        }
    }
    status = FENNS_CLI_EXIT_OK;
done:
    if (have_csr)
        fenns_host_csr_free(context, &csr);
    fenns_context_destroy(context);
    fenns_headless_destroy(headless);
    fenns_kernel_spirv_free(&kernel_spirv);
    free(xyz);
    return status;
}

int fenns_cli_neighbors(int argc, char **argv) { return neighbors_or_run(argc, argv, 0); }

int fenns_cli_run(int argc, char **argv) { return neighbors_or_run(argc, argv, 1); }
