/* fenns bench and fenns profile: the benchmark scenarios, CSV rows, per-pass
 * rows, the plot (bench_case.c measures one case). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include "bench_case.h"
#include "bench_plot.h"
#include "scenes.h"

static void usage(FILE *out, int profile) {
    if (profile) {
        fprintf(out,
                "usage: fenns profile [--scenario S] [--n N] [--radius R] [--method M] [--reps K] [--device I]\n"
                "                     [--json F] [--sorted-order] [--frame-order] [--pipelines]\n"
                "\n"
                "Per-pass GPU times of one case (default: sph50, n = 2^20, r = 1, fenns), medians of K warm\n"
                "iterations run back to back, as a table; --json F also writes them as JSON.\n"
                "--pipelines: then what the driver compiled each pass the case made into, a line a pass, as\n"
                "the driver names it (NVIDIA: Register Count, Binary Size, Shared Memory Size, ...); needs a\n"
                "driver with VK_KHR_pipeline_executable_properties.\n");
        return;
    }
    fprintf(out,
            "usage: fenns bench [--scenario S|all] [--n N] [--radius R] [--method M|all] [--reps K]\n"
            "                   [--device I] [--passes] [--passes-csv F] [--plot F.svg] [--no-host]\n"
            "                   [--sorted-order] [--frame-order]\n"
            "\n"
            "Prints CSV, one row per (method, case):\n"
            "  method,scenario,n,radius,scene,avg_neighbors,build_ms,counts_ms,csr_ms,kernel_ms,host_ms,\n"
            "  gpu_mem_bytes,device\n"
            "build_ms: fenns_cmd_build; counts_ms: a counts search after it; csr_ms: a CSR search (count,\n"
            "offsets scan, fill); kernel_ms: a search running the SPH density kernel\n"
            "(samples/kernels/sph_density.glsl, a vec4 per particle, no lists); GPU time between timestamps, median of K (default 10) iterations recorded\n"
            "back to back after 3 warm-up iterations, pipeline and buffers made once. host_ms: wall time of\n"
            "a kept fenns_host_searcher's run (host positions in, lists in host memory out), median of K\n"
            "after a warm-up.\n"
            "gpu_mem_bytes: scratch + counts + offsets + lists.\n"
            "\n"
            "Scenarios (points in the caller's box [0,scene)^3):\n"
            "  s1      uniform, scene 180, n in {1024, 8192, 65536, 524288, 4194304}, r in {0.2,0.5,0.8,1}\n"
            "  s2      the sets of s1 (the paper's Table 2 forces the baseline methods onto the FENNS grid;\n"
            "          fenns' own grid is the same as in s1)\n"
            "  s3      uniform, scene 360, n as s1, r in {0.3,0.5,0.8,1}\n"
            "  sph50   uniform at 50/(4/3 pi) particles per unit^3 (about 49 neighbours at r = 1),\n"
            "          n in {2^20, 2^22, 2^24, 2^26}\n"
            "  dam     a jittered lattice block of fluid at spacing r/2 filling a quarter of its tank,\n"
            "          r = 1, n in {2^16, 2^20, 2^22}\n"
            "  cluster 8 Gaussian blobs over a uniform background (100x density contrast), scene cbrt(n),\n"
            "          r = 1, n as s1\n"
            "Uniform sets: xorshift32 from 0x9E3779B9 ^ n, x, y, z in turn (state >> 8) * 2^-24 * scene.\n"
            "\n"
            "  --n N, --radius R   only that particle count / radius (any value)\n"
            "  --method M          fenns, fenns-paper, counting, octant, radix, auto (the row reads\n"
            "                      auto:<its pick>) or all (default: every method but auto)\n"
            "  --passes            per-pass rows on stderr; --passes-csv F: to a file\n"
            "  --plot F.svg        GPU time against n per method, scenario and radius\n"
            "  --no-host           skip host_ms (left empty)\n"
            "  --sorted-order      GPU searches with FENNS_OUTPUT_SORTED_ORDER (counts and lists by sorted\n"
            "                      position); the method column reads fenns:sorted, fenns-paper:sorted, ...\n"
            "  --paper-grid        counting, octant and radix on the FENNS paper's grids for its baselines\n"
            "                      (Table 4: 90/r cells per axis of the box, unfolded; fenns_pipeline_create_info\n"
            "                      .grid_size), rows <method>:paper-grid, host_ms empty\n"
            "  --frame-order       the points handed over in spatial order (sorted along z, y, x by cells\n"
            "                      of edge 2r), as a solver that reorders its particles by fenns' permutation\n"
            "                      each step hands them to the next frame's build (the default order is\n"
            "                      random, the worst case for the build); rows <method>:frame-order\n"
            "A case that does not fit the device is skipped with a warning.\n");
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void error_line(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *c = msg; *c; ++c)
        if ((unsigned char)*c < 0x20) *c = '?';
    fprintf(stderr, "fenns: error: %s\n", msg);
}

typedef struct scenario {
    const char *name;
    uint32_t ns[5];
    float radii[4];
} scenario;

static const scenario scenarios[] = {
    {"s1", {1024, 8192, 65536, 524288, 4194304}, {0.2f, 0.5f, 0.8f, 1.0f}},
    {"s2", {1024, 8192, 65536, 524288, 4194304}, {0.2f, 0.5f, 0.8f, 1.0f}},
    {"s3", {1024, 8192, 65536, 524288, 4194304}, {0.3f, 0.5f, 0.8f, 1.0f}},
    {"sph50", {1u << 20, 1u << 22, 1u << 24, 1u << 26, 0}, {1.0f, 0, 0, 0}},
    {"dam", {1u << 16, 1u << 20, 1u << 22, 0, 0}, {1.0f, 0, 0, 0}},
    {"cluster", {1024, 8192, 65536, 524288, 4194304}, {1.0f, 0, 0, 0}},
};
#define SCENARIO_COUNT (sizeof scenarios / sizeof *scenarios)

/* The points of one case and its box; returns the scene size (CSV column). */
static float make_points(const char *scenario_name, uint32_t n, float radius, float *xyz, float box_max[3]) {
    float scene;
    if (!strcmp(scenario_name, "dam")) {
        fenns_scene_dam(xyz, n, radius, n, box_max);
        return box_max[0];
    }
    if (!strcmp(scenario_name, "cluster")) {
        scene = cbrtf((float)n);
        fenns_scene_clusters(xyz, n, scene, n);
    } else {
        scene = !strcmp(scenario_name, "sph50") ? cbrtf((float)n / (50.0f / (4.0f / 3.0f * 3.14159265f)))
                : !strcmp(scenario_name, "s3")  ? 360.0f
                                                : 180.0f;
        fenns_scene_uniform(xyz, n, scene);
    }
    box_max[0] = box_max[1] = box_max[2] = scene;
    return scene;
}

/* --frame-order: the points sorted along z, y, x by cells of edge 2r in
 * [0, box_max), a stand-in for the last frame's sorted order. */
typedef struct keyed_point {
    uint64_t key;
    float xyz[3];
} keyed_point;

static int by_key(const void *a, const void *b) {
    uint64_t x = ((const keyed_point *)a)->key, y = ((const keyed_point *)b)->key;
    return x < y ? -1 : x > y;
}

static int frame_order(float *xyz, uint32_t n, float radius, const float box_max[3]) {
    keyed_point *k = malloc(sizeof *k * (n ? n : 1u));
    if (!k) return 0;
    uint64_t dims[3];
    for (int a = 0; a < 3; ++a) {
        double d = floor((double)box_max[a] / (2.0 * (double)radius)) + 1.0;
        dims[a] = d < 1.0 ? 1u : d > 1048576.0 ? 1048576u : (uint64_t)d;
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t c[3];
        for (int a = 0; a < 3; ++a) {
            double u = (double)xyz[3u * i + (unsigned)a] / (2.0 * (double)radius);
            c[a] = !(u > 0.0) ? 0u : u >= (double)dims[a] ? dims[a] - 1u : (uint64_t)u;
        }
        k[i].key = (c[2] * dims[1] + c[1]) * dims[0] + c[0];
        memcpy(k[i].xyz, xyz + 3u * i, sizeof k[i].xyz);
    }
    qsort(k, n, sizeof *k, by_key);
    for (uint32_t i = 0; i < n; ++i) memcpy(xyz + 3u * i, k[i].xyz, sizeof k[i].xyz);
    free(k);
    return 1;
}

static int parse_u32(const char *s, uint32_t lo, uint32_t *out) {
    char *end;
    errno = 0;
    if (!s || *s == '-') return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > 0xFFFFFFFFull) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int parse_radius(const char *s, float *out) {
    char *end;
    if (!s) return 0;
    float v = strtof(s, &end);
    if (*end || end == s || !isfinite(v) || v <= 0.0f) return 0;
    *out = v;
    return 1;
}

typedef struct options {
    const char *scenario, *method, *passes_csv, *plot, *json;
    uint32_t n, reps;
    float radius;
    int device, passes, host, sorted_order, paper_grid, frame_order, pipelines;
} options;

static int parse_options(int argc, char **argv, int profile, options *o) {
    memset(o, 0, sizeof *o);
    o->reps = 10;
    o->device = -1;
    o->host = !profile;
    if (profile) o->n = 1u << 20;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, profile), -1;
        else if (!strcmp(a, "--scenario") && v) o->scenario = v;
        else if (!strcmp(a, "--method") && v) o->method = v;
        else if (!strcmp(a, "--n") && v) {
            if (!parse_u32(v, 1, &o->n)) return error_line("--n needs a particle count >= 1, got '%s'", v), 0;
        } else if (!strcmp(a, "--radius") && v) {
            if (!parse_radius(v, &o->radius)) return error_line("--radius needs a finite number > 0, got '%s'", v), 0;
        } else if (!strcmp(a, "--reps") && v) {
            if (!parse_u32(v, 1, &o->reps) || o->reps > 1000)
                return error_line("--reps needs a count from 1 to 1000, got '%s'", v), 0;
        } else if (!strcmp(a, "--device") && v) {
            uint32_t d;
            if (!parse_u32(v, 0, &d) || d > 64) return error_line("--device needs a device index, got '%s'", v), 0;
            o->device = (int)d;
        } else if (!profile && !strcmp(a, "--passes-csv") && v) o->passes_csv = v;
        else if (!profile && !strcmp(a, "--plot") && v) o->plot = v;
        else if (profile && !strcmp(a, "--json") && v) o->json = v;
        else if (profile && !strcmp(a, "--pipelines")) o->pipelines = 1, takes = 0;
        else if (!profile && !strcmp(a, "--passes")) o->passes = 1, takes = 0;
        else if (!profile && !strcmp(a, "--no-host")) o->host = 0, takes = 0;
        else if (!strcmp(a, "--sorted-order")) o->sorted_order = 1, takes = 0;
        else if (!strcmp(a, "--paper-grid")) o->paper_grid = 1, takes = 0;
        else if (!strcmp(a, "--frame-order")) o->frame_order = 1, takes = 0;
        else return error_line("unknown option or missing value: '%s' (try 'fenns %s --help')", a,
                               profile ? "profile" : "bench"), 0;
        i += takes;
    }
    int known = !o->scenario || (!strcmp(o->scenario, "all") && !profile);
    for (size_t s = 0; s < SCENARIO_COUNT && o->scenario; ++s) known |= !strcmp(o->scenario, scenarios[s].name);
    if (!o->method) o->method = profile ? "fenns" : "all";
    if (!known) return error_line("unknown scenario '%s' (s1, s2, s3, sph50, dam, cluster%s)", o->scenario,
                                  profile ? "" : " or all"), 0;
    fenns_method named;
    if (fenns_cli_parse_method(o->method, &named) && (profile || strcmp(o->method, "all")))
        return error_line("unknown method '%s' (fenns, fenns-paper, counting, octant, radix, auto%s)", o->method,
                          profile ? "" : " or all"), 0;
    if (!o->scenario) o->scenario = profile ? "sph50" : "all";
    return 1;
}

typedef struct run_state {
    fenns_headless headless;
    fenns_context context;
    fenns_device_limits limits;
    FILE *passes;
    FILE *statistics; /* profile --pipelines: the case's, printed after its table */
    bench_point *points;
    size_t point_count;
    uint32_t rows;
} run_state;

static void print_pass_rows(FILE *f, const char *method, const char *scenario_name, uint32_t n, float r,
                            const bench_result *res) {
    for (int k = 0; k < BENCH_CALLS; ++k)
        for (uint32_t p = 0; p < res->pass_count[k]; ++p) {
            double ms = res->pass_ms[k][p];
            fprintf(f, "%s,%s,%u,%g,%s,%s,%.4f,%llu,%.1f\n", method, scenario_name, n, (double)r, bench_call_names[k],
                    res->pass_names[k][p], ms, (unsigned long long)res->pass_bytes[k][p],
                    ms > 0.0 ? (double)res->pass_bytes[k][p] / (ms * 1e6) : 0.0);
        }
}

static const char *const pass_header = "method,scenario,n,radius,call,pass,ms,bytes,gb_per_s\n";

static int open_device(const options *o, run_state *st) {
    fenns_headless_create_info hci = {0};
    hci.use_device_index = o->device >= 0;
    hci.device_index = o->device;
    hci.pipeline_statistics = o->pipelines;
    fenns_result r = fenns_headless_create(&hci, &st->headless);
    if (r != FENNS_SUCCESS) return error_line("cannot open a Vulkan device: %s", fenns_result_string(r)), 0;
    fenns_context_create_info ci;
    fenns_headless_context_info(st->headless, &ci);
    if (o->pipelines && !ci.pipeline_statistics)
        return error_line("--pipelines: the device's driver reports no pipeline statistics "
                          "(VK_KHR_pipeline_executable_properties)"), 0;
    r = fenns_context_create(&ci, &st->context);
    if (r != FENNS_SUCCESS) return error_line("cannot create the fenns context: %s", fenns_result_string(r)), 0;
    fenns_context_get_limits(st->context, &st->limits);
    if (st->limits.timestamp_period_ns == 0.0f) return error_line("the device's queue writes no timestamps"), 0;
    return 1;
}

static void close_device(run_state *st) {
    fenns_context_destroy(st->context);
    fenns_headless_destroy(st->headless);
}

/* Runs every selected case; returns the number of rows printed, or -1 on a hard error. */
static int run_cases(const options *o, int profile, run_state *st, bench_result *last) {
    /* auto only by name: "all" runs the methods it picks among. */
    const fenns_method methods[] = {FENNS_METHOD_FENNS, FENNS_METHOD_FENNS_PAPER, FENNS_METHOD_COUNTING, FENNS_METHOD_OCTANT,
                                    FENNS_METHOD_RADIX, FENNS_METHOD_AUTO};
    static const char *const sorted_labels[] = {"fenns:sorted", "fenns-paper:sorted", "counting:sorted", "octant:sorted",
                                                "radix:sorted", "auto:sorted"};
    const int method_count = (int)(sizeof methods / sizeof methods[0]);
    uint32_t total = 0, done = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (size_t s = 0; s < SCENARIO_COUNT; ++s) {
            const scenario *sc = &scenarios[s];
            if (strcmp(o->scenario, "all") && strcmp(o->scenario, sc->name)) continue;
            for (int ni = 0; ni < 5 && (ni == 0 || !o->n); ++ni) {
                uint32_t n = o->n ? o->n : sc->ns[ni];
                if (!n) continue;
                for (int ri = 0; ri < 4 && (ri == 0 || !o->radius); ++ri) {
                    float r = o->radius ? o->radius : sc->radii[ri];
                    if (!(r > 0.0f)) continue;
                    for (int m = 0; m < method_count; ++m) {
                        const char *method = fenns_method_name(methods[m]);
                        if (strcmp(o->method, methods[m] == FENNS_METHOD_AUTO ? "auto" : "all") && strcmp(o->method, method))
                            continue;
                        if (pass == 0) {
                            ++total;
                            continue;
                        }
                        ++done;
                        fprintf(stderr, "[%u/%u] %s n=%u r=%g %s\n", done, total, sc->name, n, (double)r, method);
                        float *xyz = malloc(12u * (size_t)n);
                        if (!xyz) {
                            fprintf(stderr, "fenns: warning: skipping %s n=%u: out of host memory\n", sc->name, n);
                            continue;
                        }
                        bench_case c = {0};
                        c.method = methods[m];
                        c.xyz = xyz;
                        c.n = n;
                        c.radius = r;
                        c.reps = o->reps;
                        c.host = o->host;
                        c.sorted_order = o->sorted_order;
                        c.pipeline_statistics = st->statistics;
                        const char *label = sorted_labels[m];
                        if (!o->sorted_order) label = method;
                        float scene = make_points(sc->name, n, r, xyz, c.domain_max);
                        char auto_label[64], grid_label[64], order_label[96];
                        if (o->frame_order) {
                            if (!frame_order(xyz, n, r, c.domain_max)) {
                                fprintf(stderr, "fenns: warning: skipping %s n=%u: out of host memory\n", sc->name, n);
                                free(xyz);
                                continue;
                            }
                        }
                        if (o->paper_grid && (methods[m] == FENNS_METHOD_COUNTING || methods[m] == FENNS_METHOD_OCTANT ||
                                              methods[m] == FENNS_METHOD_RADIX)) {
                            /* Table 4 of the FENNS paper: 450^3 at r = 0.2 ... 90^3 at r = 1 */
                            c.grid_size = (uint32_t)(90.0 / (double)r + 1e-4);
                            c.host = 0; /* the host path has no grid_size: its time would be another grid's */
                            snprintf(grid_label, sizeof grid_label, "%s:paper-grid%s", method, o->sorted_order ? ":sorted" : "");
                            label = grid_label;
                        }
                        if (methods[m] == FENNS_METHOD_AUTO) { /* the row names the pick: auto:<method> */
                            fenns_pipeline_create_info pci = {.method = FENNS_METHOD_AUTO, .radius = r, .max_particles = n};
                            memcpy(pci.domain_max, c.domain_max, sizeof pci.domain_max);
                            fenns_method_choice choice;
                            if (fenns_method_choose(st->context, &pci, &choice) == FENNS_SUCCESS) {
                                snprintf(auto_label, sizeof auto_label, "auto:%s%s", fenns_method_name(choice.method),
                                         o->sorted_order ? ":sorted" : "");
                                label = auto_label;
                                fprintf(stderr, "  auto: %s\n", choice.reason);
                            }
                        }
                        if (o->frame_order) {
                            snprintf(order_label, sizeof order_label, "%s:frame-order", label);
                            label = order_label;
                        }
                        bench_result res;
                        char why[256];
                        int failed = bench_case_run(st->headless, st->context, &c, &res, why, sizeof why);
                        free(xyz);
                        if (failed) {
                            fprintf(stderr, "fenns: warning: skipping %s n=%u r=%g %s (%s)\n", sc->name, n, (double)r,
                                    method, why);
                            continue;
                        }
                        *last = res;
                        ++st->rows;
                        if (profile) continue;
                        char host[32] = "";
                        if (res.host_ms >= 0.0) snprintf(host, sizeof host, "%.3f", res.host_ms);
                        printf("%s,%s,%u,%g,%g,%.3f,%.4f,%.4f,%.4f,%.4f,%s,%llu,%s\n", label, sc->name, n, (double)r,
                               (double)scene, res.total_neighbors / (double)n, res.call_ms[BENCH_BUILD],
                               res.call_ms[BENCH_COUNTS], res.call_ms[BENCH_CSR], res.call_ms[BENCH_KERNEL], host,
                               (unsigned long long)res.gpu_mem_bytes, st->limits.device_name);
                        fflush(stdout);
                        if (st->passes) print_pass_rows(st->passes, label, sc->name, n, r, &res);
                        if (o->passes && st->passes != stderr) print_pass_rows(stderr, label, sc->name, n, r, &res);
                        bench_point *grown = realloc(st->points, (st->point_count + 1) * sizeof *grown);
                        if (grown) {
                            st->points = grown;
                            st->points[st->point_count++] =
                                (bench_point){label, sc->name, r, n, res.call_ms[BENCH_BUILD] + res.call_ms[BENCH_COUNTS],
                                              res.call_ms[BENCH_BUILD] + res.call_ms[BENCH_CSR]};
                        }
                    }
                }
            }
        }
    return (int)st->rows;
}

static int write_json(const char *path, const options *o, const run_state *st, const bench_result *res) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "{\n  \"device\": \"%s\",\n  \"method\": \"%s\",\n  \"scenario\": \"%s\",\n  \"n\": %u,\n",
            st->limits.device_name, o->method, o->scenario, o->n);
    fprintf(f, "  \"avg_neighbors\": %.3f,\n  \"passes\": [\n", res->total_neighbors / (double)o->n);
    int first = 1;
    for (int k = 0; k < BENCH_CALLS; ++k)
        for (uint32_t p = 0; p < res->pass_count[k]; ++p) {
            fprintf(f, "%s    {\"call\": \"%s\", \"pass\": \"%s\", \"ms\": %.4f, \"bytes\": %llu}", first ? "" : ",\n",
                    bench_call_names[k], res->pass_names[k][p], res->pass_ms[k][p],
                    (unsigned long long)res->pass_bytes[k][p]);
            first = 0;
        }
    fprintf(f, "\n  ]\n}\n");
    return fclose(f) == 0;
}

static int bench_or_profile(int argc, char **argv, int profile) {
    options o;
    int parsed = parse_options(argc, argv, profile, &o);
    if (parsed < 0) return FENNS_CLI_EXIT_OK;
    if (!parsed) return FENNS_CLI_EXIT_USAGE;
    if (profile && o.radius == 0.0f) o.radius = 1.0f;
    /* Output files are checked before any work (bad paths fail at once). */
    const char *outputs[2] = {o.plot, o.json};
    for (int k = 0; k < 2; ++k) {
        FILE *f = outputs[k] ? fopen(outputs[k], "w") : NULL;
        if (outputs[k] && !f) return error_line("cannot write '%s'", outputs[k]), FENNS_CLI_EXIT_FAILURE;
        if (f) fclose(f);
    }
    run_state st;
    memset(&st, 0, sizeof st);
    if (!open_device(&o, &st)) {
        close_device(&st);
        return FENNS_CLI_EXIT_FAILURE;
    }
    if (o.passes_csv) {
        st.passes = fopen(o.passes_csv, "w");
        if (!st.passes) {
            error_line("cannot write '%s'", o.passes_csv);
            close_device(&st);
            return FENNS_CLI_EXIT_FAILURE;
        }
    } else if (o.passes) {
        st.passes = stderr;
    }
    if (st.passes) fputs(pass_header, st.passes);
    if (o.pipelines && !(st.statistics = tmpfile())) {
        error_line("--pipelines: cannot create a temporary file");
        close_device(&st);
        return FENNS_CLI_EXIT_FAILURE;
    }
    if (!profile)
        printf("method,scenario,n,radius,scene,avg_neighbors,build_ms,counts_ms,csr_ms,kernel_ms,host_ms,gpu_mem_bytes,"
               "device\n");
    bench_result last;
    memset(&last, 0, sizeof last);
    int rows = run_cases(&o, profile, &st, &last);
    int ok = rows > 0;
    if (!ok) error_line("no case could be run on %s", st.limits.device_name);
    if (ok && profile) {
        double total = last.call_ms[BENCH_BUILD] + last.call_ms[BENCH_COUNTS] + last.call_ms[BENCH_CSR] +
                       last.call_ms[BENCH_KERNEL];
        printf("%s, %s n=%u r=%g, %s, avg %.2f neighbours, median of %u\n", st.limits.device_name, o.scenario, o.n,
               (double)o.radius, o.method, last.total_neighbors / (double)o.n, o.reps);
        printf("%-7s %-22s %10s %7s %14s %8s\n", "call", "pass", "ms", "share", "bytes", "GB/s");
        for (int k = 0; k < BENCH_CALLS; ++k)
            for (uint32_t p = 0; p < last.pass_count[k]; ++p)
                printf("%-7s %-22s %10.4f %6.1f%% %14llu %8.1f\n", bench_call_names[k], last.pass_names[k][p],
                       last.pass_ms[k][p], total > 0 ? 100.0 * last.pass_ms[k][p] / total : 0.0,
                       (unsigned long long)last.pass_bytes[k][p],
                       last.pass_ms[k][p] > 0 ? (double)last.pass_bytes[k][p] / (last.pass_ms[k][p] * 1e6) : 0.0);
        for (int k = 0; k < BENCH_CALLS; ++k) printf("%-7s %-22s %10.4f\n", bench_call_names[k], "total", last.call_ms[k]);
        if (st.statistics) {
            printf("\npipelines (as the driver names its statistics):\n");
            rewind(st.statistics);
            int ch;
            while ((ch = fgetc(st.statistics)) != EOF) putchar(ch);
        }
        if (o.json && !write_json(o.json, &o, &st, &last)) ok = 0, error_line("cannot write '%s'", o.json);
    }
    if (ok && o.plot && bench_plot_write(o.plot, st.points, st.point_count)) ok = 0, error_line("cannot write '%s'", o.plot);
    if (st.passes && st.passes != stderr && fclose(st.passes) != 0) ok = 0, error_line("cannot write '%s'", o.passes_csv);
    if (st.statistics) fclose(st.statistics);
    free(st.points);
    uint32_t messages = fenns_headless_validation_message_count(st.headless);
    close_device(&st);
    if (ok && messages) ok = 0, error_line("%u Vulkan validation message(s)", messages);
    return ok ? FENNS_CLI_EXIT_OK : FENNS_CLI_EXIT_FAILURE;
}

int fenns_cli_bench(int argc, char **argv) { return bench_or_profile(argc, argv, 0); }
int fenns_cli_profile(int argc, char **argv) { return bench_or_profile(argc, argv, 1); }
