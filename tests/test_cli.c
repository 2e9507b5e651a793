/* ctest `cli`: runs the `fenns` executable on generated files.
 * Usage: test_cli PATH_TO_FENNS TMPDIR
 *  - bad inputs exit non-zero with exactly one "fenns: error:" line on stderr
 *    (usage errors with status 2);
 *  - good runs on a few hundred points in .f32, .xyz and .ply, for both
 *    methods, write an FNNSCSR1 file equal to the CPU reference, and
 *    `--output -` prints the same lists as text.
 * Needs a Vulkan device (lavapipe in CI); ctest sets FENNS_VALIDATION=1 and the
 * CLI fails on any validation message. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "particle_io.h"
#include "reference.h"
#include "scenes.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *fenns_exe;
static char tmpdir[2048];


/* Paths live in a ring of 128 buffers: plenty for the argument lists below. */
static const char *path_of(const char *name)
{
    static char paths[128][2200];
    static unsigned next;
    char *p = paths[next++ % 128];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

/* Whole file as a NUL-terminated string (empty when missing); free() it. */
static char *slurp(const char *path, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    if (!buf)
        exit(1);
    if (f) {
        size_t got;
        while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
            len += got;
            if (cap - len - 1 == 0) {
                char *grown = (char *)realloc(buf, cap * 2);
                if (!grown)
                    exit(1);
                buf = grown;
                cap *= 2;
            }
        }
        fclose(f);
    }
    buf[len] = '\0';
    if (out_len)
        *out_len = len;
    return buf;
}

typedef struct run_result {
    int status;  /* exit status, or -1 when killed by a signal */
    char *out;   /* stdout */
    char *err;   /* stderr */
    size_t out_len;
} run_result;

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Runs fenns with the NULL-terminated arguments (argv[0] is added). */
static run_result run_fenns(const char *const *args)
{
    run_result r = {-1, NULL, NULL, 0};
    char *argv[64];
    int n = 0;
    pid_t pid;
    int wstatus = 0;
    const char *out_path = path_of("run.stdout");
    const char *err_path = path_of("run.stderr");
    argv[n++] = (char *)fenns_exe;
    for (int k = 0; args[k] && n < 63; ++k)
        argv[n++] = (char *)args[k];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fork failed: %s\n", strerror(errno));
        exit(1);
    }
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        close(fo);
        close(fe);
        execv(fenns_exe, argv);
        _exit(127);
    }
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "waitpid failed: %s\n", strerror(errno));
            exit(1);
        }
    r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    r.out = slurp(out_path, &r.out_len);
    r.err = slurp(err_path, NULL);
    return r;
}

static unsigned count_lines(const char *s)
{
    unsigned lines = 0;
    for (; *s; ++s)
        lines += *s == '\n';
    return lines;
}

static void describe(const char *const *args, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; args[k] && used + 1 < size; ++k) {
        int w = snprintf(buf + used, size - used, "%s%s", k ? " " : "", args[k]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* A failing run: non-zero status (want_status when > 0), exactly one stderr line. */
static void expect_error(const char *const *args, int want_status, const char *needle)
{
    char cmd[1024];
    run_result r = run_fenns(args);
    describe(args, cmd, sizeof cmd);
    CHECK(r.status != 0 && r.status != -1, "'fenns %s': status %d, expected an error exit", cmd, r.status);
    CHECK(want_status <= 0 || r.status == want_status, "'fenns %s': status %d, expected %d", cmd, r.status,
          want_status);
    CHECK(count_lines(r.err) == 1 && strncmp(r.err, "fenns: error: ", 14) == 0,
          "'fenns %s': stderr is not one 'fenns: error:' line:\n%s", cmd, r.err);
    CHECK(!needle || strstr(r.err, needle), "'fenns %s': stderr lacks '%s': %s", cmd, needle, r.err);
    printf("  ok (status %d) fenns %s\n      %s", r.status, cmd, r.err);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Files                                                                    */
/* ------------------------------------------------------------------------ */

static void write_or_die(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static void write_f32(const char *name, const float *xyz, uint32_t n)
{
    write_or_die(path_of(name), xyz, (size_t)n * 12);
}

static void write_xyz(const char *name, const float *xyz, uint32_t n)
{
    FILE *f = fopen(path_of(name), "w");
    if (!f)
        exit(1);
    fprintf(f, "# %u points\n", n);
    for (uint32_t i = 0; i < n; ++i)
        fprintf(f, "%.9g %.9g %.9g\n", (double)xyz[3 * i], (double)xyz[3 * i + 1], (double)xyz[3 * i + 2]);
    fclose(f);
}

static void write_ply(const char *name, const float *xyz, uint32_t n)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f)
        exit(1);
    fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment test_cli\nelement vertex %u\n"
               "property float x\nproperty float y\nproperty float z\nproperty uchar red\nend_header\n",
            n);
    for (uint32_t i = 0; i < n; ++i) {
        unsigned char rec[13];
        for (int a = 0; a < 3; ++a) {
            uint32_t u;
            memcpy(&u, &xyz[3 * i + (uint32_t)a], 4);
            for (int b = 0; b < 4; ++b)
                rec[4 * a + b] = (unsigned char)(u >> (8 * b));
        }
        rec[12] = (unsigned char)i;
        fwrite(rec, 1, sizeof rec, f);
    }
    fclose(f);
}

/* Parses "i: j1 j2 ..." lines into CSR; 0 on success. */
static int parse_text_csr(const char *text, uint32_t n, uint64_t **out_off, uint32_t **out_idx)
{
    size_t cap = 1024, m = 0;
    uint64_t *off = (uint64_t *)calloc((size_t)n + 1, sizeof(uint64_t));
    uint32_t *idx = (uint32_t *)malloc(cap * sizeof(uint32_t));
    const char *p = text;
    if (!off || !idx)
        exit(1);
    for (uint32_t i = 0; i < n; ++i) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || v != i || *end != ':')
            goto bad;
        p = end + 1;
        while (*p == ' ') {
            v = strtoull(p + 1, &end, 10);
            if (end == p + 1)
                goto bad;
            if (m == cap) {
                uint32_t *grown = (uint32_t *)realloc(idx, cap * 2 * sizeof(uint32_t));
                if (!grown)
                    exit(1);
                idx = grown;
                cap *= 2;
            }
            idx[m++] = (uint32_t)v;
            p = end;
        }
        if (*p != '\n')
            goto bad;
        ++p;
        off[i + 1] = m;
    }
    if (*p != '\0')
        goto bad;
    *out_off = off;
    *out_idx = idx;
    return 0;
bad:
    free(off);
    free(idx);
    return 1;
}

/* ------------------------------------------------------------------------ */

static void expect_matches_reference(const char *what, const char *csr_path, const float *xyz, uint32_t n,
                                     float r)
{
    uint64_t *ro = NULL, *go = NULL, gn = 0, tol = 0;
    uint32_t *ri = NULL, *gi = NULL;
    char err[512], msg[512];
    if (fenns_io_read_csr(csr_path, &gn, &go, &gi, err, sizeof err)) {
        CHECK(0, "%s: %s", what, err);
        return;
    }
    if (fenns_reference_csr(xyz, n, r, &ro, &ri) != 0) {
        CHECK(0, "%s: reference failed", what);
    } else {
        CHECK(fenns_reference_compare(xyz, n, r, ro, ri, gn, go, gi, 0, &tol, msg, sizeof msg) == 0,
              "%s: differs from the reference: %s", what, msg);
        printf("  ok %s: %llu neighbours match the reference (%llu at exactly r tolerated)\n", what,
               (unsigned long long)ro[n], (unsigned long long)tol);
    }
    fenns_reference_free(&ro, &ri);
    free(go);
    free(gi);
}

/* The CSV field `col` (0-based) of `line`, copied into buf. */
static const char *csv_field(const char *line, int col, char *buf, size_t size)
{
    for (int c = 0; c < col && line; ++c) {
        line = strchr(line, ',');
        if (line) ++line;
    }
    buf[0] = '\0';
    if (!line) return buf;
    size_t k = 0;
    while (line[k] && line[k] != ',' && line[k] != '\n' && k + 1 < size) {
        buf[k] = line[k];
        ++k;
    }
    buf[k] = '\0';
    return buf;
}

/* fenns bench / fenns profile on small cases: the CSV's shape, the measured
 * average against a CPU count of the same generated set, pass rows, plot,
 * JSON, and bad options. Timings are only checked to be positive. */
/* fenns run: a counting kernel against the reference lists, for both
 * methods and with NaN points; a kernel that does not compile (its file and
 * line in the one error line), a missing kernel file, missing options. */
static void check_run(const float *xyz_in, uint32_t n, float radius, const char *rtext)
{
    static const char kernel[] =
        "struct fenns_state { uint count; uint min_j; uint max_j; };\n"
        "void fenns_init(inout fenns_state s, uint i, vec3 pi) { s.count = 0u; s.min_j = 0xFFFFFFFFu; s.max_j = 0u; }\n"
        "void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {\n"
        "    s.count += 1u; s.min_j = min(s.min_j, j); s.max_j = max(s.max_j, j);\n"
        "}\n"
        "vec4 fenns_finish(fenns_state s, uint i, vec3 pi) {\n"
        "    return vec4(float(s.count), float(s.min_j), float(s.max_j), float(i));\n"
        "}\n";
    static const char broken[] = "struct fenns_state { float x; };\n\n\nvoid fenns_init(inout fenns_state s) { oops; }\n";
    const char *methods[5] = {"fenns", "fenns-paper", "counting", "octant", "radix"};
    float *xyz = malloc(12u * n);
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    if (!xyz)
        return;
    memcpy(xyz, xyz_in, 12u * n);
    xyz[3 * 5] = NAN;
    write_f32("run_points.f32", xyz, n);
    write_or_die(path_of("count.glsl"), kernel, sizeof kernel - 1);
    write_or_die(path_of("broken.glsl"), broken, sizeof broken - 1);
    printf("run\n");
    if (fenns_reference_csr(xyz, n, radius, &ro, &ri) != 0) {
        CHECK(0, "fenns run: reference failed");
        free(xyz);
        return;
    }
    for (int m = 0; m < 5; ++m) {
        const char *out = path_of("values.f32");
        const char *a[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                           path_of("count.glsl"), "--output", out, "--method", methods[m], NULL};
        run_result r;
        size_t len = 0;
        float *v;
        remove(out);
        r = run_fenns(a);
        CHECK(r.status == 0 && count_lines(r.out) == 1, "fenns run (%s): status %d: %s", methods[m], r.status, r.err);
        v = (float *)slurp(out, &len);
        CHECK(v && len == 16u * n, "fenns run (%s): %zu bytes written, expected %u", methods[m], len, 16u * n);
        if (v && len == 16u * n) {
            uint32_t bad = 0;
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t count = (uint32_t)(ro[i + 1] - ro[i]);
                float lo = count ? (float)ri[ro[i]] : 4294967296.0f, hi = count ? (float)ri[ro[i + 1] - 1] : 0.0f;
                bad += v[4 * i] != (float)count || v[4 * i + 1] != lo || v[4 * i + 2] != hi || v[4 * i + 3] != (float)i;
            }
            CHECK(bad == 0, "fenns run (%s): %u points differ from the reference", methods[m], bad);
            printf("  ok fenns run --method %s: %u vec4 match the reference\n", methods[m], n);
        }
        free(v);
        run_free(&r);
    }
    {
        const char *a1[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                            path_of("broken.glsl"), "--output", path_of("x.f32"), NULL};
        const char *a2[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                            path_of("missing.glsl"), "--output", path_of("x.f32"), NULL};
        const char *a3[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--output",
                            path_of("x.f32"), NULL};
        const char *a4[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                            path_of("count.glsl"), NULL};
        run_result r = run_fenns(a1);
        CHECK(r.status == 1 && strncmp(r.err, "fenns: error: ", 14) == 0 && strstr(r.err, "broken.glsl:4"),
              "a broken kernel: status %d, stderr: %s", r.status, r.err);
        printf("  ok (status %d) broken kernel: %.*s\n", r.status, (int)strcspn(r.err, "\n"), r.err);
        run_free(&r);
        expect_error(a2, 1, "missing.glsl");
        expect_error(a3, 2, "--kernel");
        expect_error(a4, 2, "--output");
        /* A kernel file with a NUL byte, one past 1 MiB (GLSL comments), and
         * an output that cannot be created (after the search). */
        static const char nul_kernel[] = "// a NUL \0 inside\n";
        write_or_die(path_of("nul.glsl"), nul_kernel, sizeof nul_kernel - 1);
        size_t big = (1u << 20) + 2u;
        char *huge = malloc(big);
        CHECK(huge != NULL, "host memory");
        if (huge) {
            memset(huge, '/', big);
            huge[big - 1] = '\n';
            write_or_die(path_of("huge.glsl"), huge, big);
            free(huge);
        }
        const char *a5[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                            path_of("nul.glsl"), "--output", path_of("x.f32"), NULL};
        const char *a6[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                            path_of("huge.glsl"), "--output", path_of("x.f32"), NULL};
        const char *a7[] = {"run", "--input", path_of("run_points.f32"), "--radius", rtext, "--kernel",
                            path_of("count.glsl"), "--output", path_of("no_such_dir/x.f32"), NULL};
        expect_error(a5, 1, "NUL byte");
        expect_error(a6, 1, "larger than 1 MiB");
        /* (run_points.f32's NaN points are warned about before it) */
        r = run_fenns(a7);
        const char *last = r.err ? strstr(r.err, "fenns: error: ") : NULL;
        CHECK(r.status == 1 && last && strstr(last, "cannot create") && count_lines(last) == 1,
              "an output that cannot be created: status %d, stderr: %s", r.status, r.err ? r.err : "");
        run_free(&r);
    }
    fenns_reference_free(&ro, &ri);
    free(xyz);
}

static void check_bench(void)
{
    const uint32_t n = 8192;
    float *xyz = malloc(12u * n);
    fenns_scene_uniform(xyz, n, 180.0f);
    uint64_t *ro = NULL;
    uint32_t *ri = NULL;
    CHECK(fenns_reference_csr(xyz, n, 8.0f, &ro, &ri) == 0, "reference failed");
    double want = ro ? (double)ro[n] / n : -1.0;
    fenns_reference_free(&ro, &ri);
    free(xyz);

    const char *a[] = {"bench", "--scenario", "s1", "--n", "8192", "--radius", "8", "--reps", "2", "--method", "all",
                       "--passes-csv", path_of("passes.csv"), "--plot", path_of("plot.svg"), NULL};
    run_result r = run_fenns(a);
    CHECK(r.status == 0, "bench: status %d: %s", r.status, r.err);
    CHECK(count_lines(r.out) == 6 && strncmp(r.out, "method,scenario,n,radius,scene,avg_neighbors,build_ms,counts_ms,"
                                                  "csr_ms,kernel_ms,host_ms,gpu_mem_bytes,device\n", 110) == 0,
          "bench: expected the header and 5 rows, got: %s", r.out);
    const char *row = strchr(r.out, '\n');
    const char *bench_methods[5] = {"fenns", "fenns-paper", "counting", "octant", "radix"};
    for (int k = 0; k < 5 && row; ++k, row = strchr(row + 1, '\n')) {
        char f[128];
        CHECK(strcmp(csv_field(row + 1, 0, f, sizeof f), bench_methods[k]) == 0, "bench row %d method %s", k, f);
        double avg = atof(csv_field(row + 1, 5, f, sizeof f));
        CHECK(fabs(avg - want) < 0.006, "bench row %d: avg_neighbors %g, the CPU count gives %.3f", k, avg, want);
        for (int col = 6; col <= 10; ++col)
            CHECK(atof(csv_field(row + 1, col, f, sizeof f)) > 0.0, "bench row %d: column %d is %s", k, col, f);
        CHECK(strtoull(csv_field(row + 1, 11, f, sizeof f), NULL, 10) > 16u * n, "bench row %d: gpu_mem_bytes %s", k, f);
    }
    run_free(&r);
    char *passes = slurp(path_of("passes.csv"), NULL);
    CHECK(passes && strncmp(passes, "method,scenario,n,radius,call,pass,ms,bytes,gb_per_s\n", 53) == 0 &&
              strstr(passes, ",build,coarse count,") && strstr(passes, ",csr,offsets scan,") &&
              !strstr(passes, ",,"),
          "bench --passes-csv: %s", passes ? passes : "(missing)");
    free(passes);
    char *svg = slurp(path_of("plot.svg"), NULL);
    CHECK(svg && strncmp(svg, "<svg", 4) == 0 && strstr(svg, "polyline") && strstr(svg, "</svg>"), "bench --plot");
    free(svg);

    const char *so[] = {"bench", "--scenario", "s1", "--n", "8192", "--radius", "8", "--reps", "1", "--method",
                        "fenns", "--no-host", "--sorted-order", NULL};
    r = run_fenns(so);
    row = strchr(r.out ? r.out : "", '\n');
    char f0[128], f5[128];
    CHECK(r.status == 0 && count_lines(r.out) == 2 && row &&
              strcmp(csv_field(row + 1, 0, f0, sizeof f0), "fenns:sorted") == 0 &&
              fabs(atof(csv_field(row + 1, 5, f5, sizeof f5)) - want) < 0.006,
          "bench --sorted-order: status %d: %s %s", r.status, r.out, r.err);
    run_free(&r);

    const char *p[] = {"profile", "--scenario", "s1", "--n", "4096", "--radius", "4", "--reps", "2", "--json",
                       path_of("profile.json"), NULL};
    r = run_fenns(p);
    CHECK(r.status == 0 && strstr(r.out, "search (counts)") && strstr(r.out, "share"), "profile: status %d: %s %s",
          r.status, r.out, r.err);
    run_free(&r);
    char *json = slurp(path_of("profile.json"), NULL);
    CHECK(json && json[0] == '{' && strstr(json, "\"passes\"") && strstr(json, "\"pass\": \"section sort\""),
          "profile --json: %s", json ? json : "(missing)");
    free(json);

    /* --pipelines: the driver's statistics after the table where it offers
     * them (a line a pass), else a named error and no table. */
    const char *pp[] = {"profile", "--scenario", "s1", "--n", "4096", "--radius", "4", "--reps", "1", "--pipelines", NULL};
    r = run_fenns(pp);
    const char *listed = strstr(r.out, "pipelines (as the driver names its statistics):");
    CHECK((r.status == 0 && listed && strstr(r.out, "share") < listed && strstr(listed, "\nsearch_count")) ||
              (r.status == 1 && strstr(r.err, "--pipelines: the device's driver reports no pipeline statistics") &&
               !strstr(r.out, "share")),
          "profile --pipelines: status %d: %s %s", r.status, r.out, r.err);
    run_free(&r);

    const char *b1[] = {"bench", "--reps", "0", NULL};
    const char *b2[] = {"bench", "--scenario", "nope", NULL};
    const char *b3[] = {"bench", "--n", "-3", NULL};
    const char *b4[] = {"bench", "--method", "Radix", NULL};
    const char *b5[] = {"bench", "--radius", "nan", NULL};
    const char *b6[] = {"profile", "--scenario", "all", NULL};
    const char *b7[] = {"bench", "--plot", path_of("no/such/dir/p.svg"), "--n", "1024", "--scenario", "s1",
                        "--radius", "1", "--method", "fenns", "--reps", "1", "--no-host", NULL};
    expect_error(b1, 2, "--reps");
    expect_error(b2, 2, "nope");
    expect_error(b3, 2, "--n");
    expect_error(b4, 2, "unknown method 'Radix'");
    expect_error(b5, 2, "--radius");
    expect_error(b6, 2, "all");
    expect_error(b7, 1, "p.svg");
    printf("  ok bench, profile\n");
}

int main(int argc, char **argv)
{
    const uint32_t n = 400;
    const float scene = 10.0f, radius = 1.8f; /* about 10 neighbours */
    float *xyz;
    char rtext[32];
    const char *methods[6] = {"fenns", "fenns-paper", "counting", "octant", "radix", "auto"};

    if (argc < 3) {
        fprintf(stderr, "usage: test_cli PATH_TO_FENNS TMPDIR\n");
        return 2;
    }
    fenns_exe = argv[1];
    snprintf(tmpdir, sizeof tmpdir, "%s", argv[2]);
    if (mkdir(tmpdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "test_cli: cannot create %s: %s\n", tmpdir, strerror(errno));
        return 1;
    }
    snprintf(rtext, sizeof rtext, "%.9g", (double)radius);

    xyz = (float *)malloc((size_t)n * 3 * sizeof(float));
    if (!xyz)
        return 1;
    fenns_scene_uniform(xyz, n, scene);
    write_f32("points.f32", xyz, n);
    write_xyz("points.xyz", xyz, n);
    write_ply("points.ply", xyz, n);
    {
        unsigned char part[30];
        memcpy(part, xyz, sizeof part);
        write_or_die(path_of("truncated.f32"), part, sizeof part);
    }
    write_or_die(path_of("malformed.xyz"), "1 2 3\n4 five 6\n", 15);
    write_or_die(path_of("empty.f32"), "", 0);

    printf("usage and bad input\n");
    {
        const char *good = path_of("points.f32");
        const char *none[] = {NULL};
        const char *a1[] = {"frobnicate", NULL};
        const char *a2[] = {"--frobnicate", NULL};
        const char *a3[] = {"neighbors", "--input", good, "--radius", "1", "--frobnicate", NULL};
        const char *a4[] = {"neighbors", "--input", path_of("missing.f32"), "--radius", "1", NULL};
        const char *a5[] = {"neighbors", "--input", path_of("truncated.f32"), "--radius", "1", NULL};
        const char *a6[] = {"neighbors", "--input", path_of("malformed.xyz"), "--radius", "1", NULL};
        const char *a7[] = {"neighbors", "--input", good, "--radius", "1", "--method", "bogus", NULL};
        const char *a8[] = {"neighbors", "--input", good, "--radius", "1", "--method", "", NULL};
        const char *a9[] = {"neighbors", "--input", good, NULL};
        const char *a10[] = {"neighbors", "--radius", "1", NULL};
        const char *a11[] = {"neighbors", "--input", good, "--radius", NULL};
        const char *a12[] = {"neighbors", "--input", good, "--radius", "1", "--memory-budget", "1000", NULL};
        const char *a13[] = {"neighbors", "--input", good, "--radius", "1", "--device", "abc", NULL};
        const char *a14[] = {"neighbors", "--input", path_of("points.bin"), "--radius", "1", NULL};
        const char *a15[] = {"neighbors", "--input", good, "--radius", "1", "stray", NULL};
        const char *a16[] = {"neighbors", "--input", good, "--radius=1", "--stats=yes", NULL};
        const char *bad_radius[] = {"0", "-1", "nan", "abc", "inf", "1e-50", "", "1.5x", "-0"};
        const char *bad_domain[] = {"0,0,0,1,1", "0,0,0,1,1,x", "1,0,0,0,1,1", "0,0,0,1,1,1,2", "0,0,0,1,1,inf",
                                    "0,,0,1,1,1", "0,0,0,1,0,1", ""};
        expect_error(none, 2, "no command");
        expect_error(a1, 2, "frobnicate");
        expect_error(a2, 2, "frobnicate");
        expect_error(a3, 2, "--frobnicate");
        expect_error(a4, 0, "missing.f32");
        expect_error(a5, 0, "truncated.f32");
        expect_error(a6, 0, "line 2");
        expect_error(a7, 2, "bogus");
        expect_error(a8, 2, "unknown --method ''");
        expect_error(a9, 2, "--radius");
        expect_error(a10, 2, "--input");
        expect_error(a11, 2, "--radius");
        expect_error(a12, 2, "not implemented");
        expect_error(a13, 2, "--device");
        expect_error(a14, 0, "points.bin");
        expect_error(a15, 2, "stray");
        expect_error(a16, 2, "--stats");
        for (size_t k = 0; k < sizeof bad_radius / sizeof bad_radius[0]; ++k) {
            const char *a[] = {"neighbors", "--input", good, "--radius", bad_radius[k], NULL};
            expect_error(a, 2, "--radius");
        }
        for (size_t k = 0; k < sizeof bad_domain / sizeof bad_domain[0]; ++k) {
            const char *a[] = {"neighbors", "--input", good, "--radius", "1", "--domain", bad_domain[k], NULL};
            expect_error(a, 2, "--domain");
        }
    }
    {
        const char *h1[] = {"--help", NULL};
        const char *h2[] = {"neighbors", "--help", NULL};
        run_result r = run_fenns(h1);
        CHECK(r.status == 0 && strstr(r.out, "neighbors") && r.err[0] == '\0', "fenns --help: status %d", r.status);
        run_free(&r);
        r = run_fenns(h2);
        CHECK(r.status == 0 && strstr(r.out, "--radius") && r.err[0] == '\0', "fenns neighbors --help: status %d",
              r.status);
        run_free(&r);
    }

    printf("searches\n");
    {
        const char *files[3] = {"points.f32", "points.xyz", "points.ply"};
        for (int f = 0; f < 3; ++f)
            for (int m = 0; m < 6; ++m) {
                char what[128];
                const char *out = path_of("out.csr");
                const char *a[] = {"neighbors", "--input", path_of(files[f]), "--radius", rtext,
                                   "--method", methods[m], "--output", out, NULL};
                run_result r;
                remove(out);
                r = run_fenns(a);
                snprintf(what, sizeof what, "%s --method %s", files[f], methods[m]);
                CHECK(r.status == 0, "%s: status %d, stderr: %s", what, r.status, r.err);
                if (r.status == 0)
                    expect_matches_reference(what, out, xyz, n, radius);
                run_free(&r);
            }
    }
    /* text output */
    for (int m = 0; m < 6; ++m) {
        const char *a[] = {"neighbors", "--input", path_of("points.f32"), "--radius", rtext, "--method",
                           methods[m], "--output", "-", NULL};
        run_result r = run_fenns(a);
        uint64_t *go = NULL, *ro = NULL, tol = 0;
        uint32_t *gi = NULL, *ri = NULL;
        char msg[512];
        CHECK(r.status == 0, "--output - (%s): status %d: %s", methods[m], r.status, r.err);
        if (r.status == 0) {
            CHECK(parse_text_csr(r.out, n, &go, &gi) == 0, "--output - (%s): malformed text", methods[m]);
            if (go && fenns_reference_csr(xyz, n, radius, &ro, &ri) == 0) {
                CHECK(fenns_reference_compare(xyz, n, radius, ro, ri, n, go, gi, 0, &tol, msg, sizeof msg) == 0,
                      "--output - (%s): %s", methods[m], msg);
                printf("  ok --output - (%s): text lists match the reference\n", methods[m]);
            }
        }
        fenns_reference_free(&ro, &ri);
        free(go);
        free(gi);
        run_free(&r);
    }
    /* auto's pick and its reason, the plan of the pick */
    printf("info\n");
    {
        const char *sparse[] = {"info", "--n", "8192", "--radius", "0.2", "--domain", "0,0,0,180,180,180", NULL};
        const char *dense[] = {"info", "--n=262144", "--radius=2", "--domain=0,0,0,28,28,28", NULL};
        const char *no_box[] = {"info", "--n", "100000", NULL};
        const char *named[] = {"info", "--n", "1000", "--method", "radix", NULL};
        const char *const *cases[4] = {sparse, dense, no_box, named};
        const char *want[4][2] = {{"auto: picks octant: n 8192, r 0.2, ", "plan: method octant (auto's pick), radius 0.2, n 8192, domain 0,0,0 .. 180,180,180"},
                                  {"auto: picks counting: n 262144, r 2, 400 expected neighbours", "plan: method counting (auto's pick)"},
                                  {"auto: picks fenns: no caller's box", "plan: method fenns (auto's pick), radius 1, n 100000, domain computed on the GPU"},
                                  {"auto: picks ", "plan: method radix, radius 1, n 1000"}};
        for (int k = 0; k < 4; ++k) {
            run_result r = run_fenns(cases[k]);
            CHECK(r.status == 0 && strstr(r.out, want[k][0]) && strstr(r.out, want[k][1]),
                  "info case %d: status %d, expected '%s' and '%s' in: %s%s", k, r.status, want[k][0], want[k][1], r.out, r.err);
            run_free(&r);
        }
        const char *bad_method[] = {"info", "--method", "fastest", NULL};
        const char *bad_domain[] = {"info", "--domain", "0,0,0,1,1", NULL};
        expect_error(bad_method, 2, "unknown --method 'fastest'");
        expect_error(bad_domain, 2, "--domain");
    }
    /* bench --method auto: one row, named after the pick */
    {
        const char *a[] = {"bench", "--scenario", "s1", "--n", "8192", "--radius", "8", "--reps", "1", "--method", "auto",
                           "--no-host", NULL};
        run_result r = run_fenns(a);
        const char *row = r.out ? strchr(r.out, '\n') : NULL;
        CHECK(r.status == 0 && count_lines(r.out) == 2 && row && strncmp(row + 1, "auto:", 5) == 0 &&
                  strstr(r.err, "auto: n 8192, r 8, "),
              "bench --method auto: status %d: %s%s", r.status, r.out, r.err);
        run_free(&r);
    }
    /* bench --paper-grid: the baselines on the paper's 90/r cells per axis, named so, no host time */
    {
        const char *a[] = {"bench", "--scenario", "s1", "--n", "8192", "--radius", "1", "--reps", "1", "--method", "radix",
                           "--paper-grid", NULL};
        run_result r = run_fenns(a);
        const char *row = r.out ? strchr(r.out, '\n') : NULL;
        char f[64] = "";
        CHECK(r.status == 0 && count_lines(r.out) == 2 && row && strncmp(row + 1, "radix:paper-grid,s1,8192,1,", 27) == 0 &&
                  csv_field(row + 1, 10, f, sizeof f) && f[0] == '\0' &&
                  strtoull(csv_field(row + 1, 11, f, sizeof f), NULL, 10) > 12u * 90u * 90u * 90u,
              "bench --paper-grid: status %d: %s%s", r.status, r.out, r.err);
        run_free(&r);
    }
    /* a domain that leaves points outside (still found exactly) */
    {
        const char *out = path_of("domain.csr");
        const char *a[] = {"neighbors", "--input", path_of("points.f32"), "--radius", rtext, "--domain",
                           "2,2,2,7.5,8,6", "--output", out, NULL};
        run_result r = run_fenns(a);
        CHECK(r.status == 0, "--domain: status %d: %s", r.status, r.err);
        if (r.status == 0)
            expect_matches_reference("points.f32 --domain 2,2,2,7.5,8,6", out, xyz, n, radius);
        run_free(&r);
    }
    /* NaN in a text file: allowed, reported on stderr, no neighbours */
    {
        const char *out = path_of("nan.csr");
        const char *a[] = {"neighbors", "--input", path_of("nan.xyz"), "--radius", rtext, "--output", out, NULL};
        run_result r;
        xyz[3 * 7] = NAN;
        xyz[3 * 9 + 2] = INFINITY;
        write_xyz("nan.xyz", xyz, n);
        r = run_fenns(a);
        CHECK(r.status == 0, "nan.xyz: status %d: %s", r.status, r.err);
        CHECK(strstr(r.err, "2 of 400") != NULL, "nan.xyz: the NaN count is not reported: %s", r.err);
        if (r.status == 0)
            expect_matches_reference("nan.xyz", out, xyz, n, radius);
        run_free(&r);
        fenns_scene_uniform(xyz, n, scene);
    }
    /* summary line and --stats */
    {
        const char *a[] = {"neighbors", "--input", path_of("points.ply"), "--radius", rtext, "--stats", NULL};
        run_result r = run_fenns(a);
        CHECK(r.status == 0 && count_lines(r.out) == 1 && strstr(r.out, "400 points"),
              "summary: status %d, stdout: %s, stderr: %s", r.status, r.out, r.err);
        CHECK(strstr(r.err, "build_ms") && strstr(r.err, "coarse_dims") && strstr(r.err, "device") &&
                  strstr(r.err, "total_neighbors"),
              "--stats output incomplete: %s", r.err);
        printf("  ok --stats\n%s", r.err);
        run_free(&r);
    }
    /* no points */
    {
        const char *out = path_of("empty.csr");
        const char *a[] = {"neighbors", "--input", path_of("empty.f32"), "--radius", "1", "--output", out, NULL};
        run_result r = run_fenns(a);
        uint64_t gn = 1, *go = NULL;
        uint32_t *gi = NULL;
        char err[512];
        CHECK(r.status == 0, "empty.f32: status %d: %s", r.status, r.err);
        if (r.status == 0) {
            CHECK(fenns_io_read_csr(out, &gn, &go, &gi, err, sizeof err) == 0 && gn == 0, "empty.f32: %s", err);
            printf("  ok empty input\n");
        }
        free(go);
        free(gi);
        run_free(&r);
    }
    /* an unwritable output */
    {
        const char *a[] = {"neighbors", "--input", path_of("points.f32"), "--radius", rtext, "--output",
                           path_of("no/such/dir/out.csr"), NULL};
        expect_error(a, 0, "out.csr");
    }

    check_run(xyz, n, radius, rtext);
    free(xyz);
    check_bench();
    if (failures) {
        fprintf(stderr, "test_cli: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_cli: ok\n");
    return 0;
}
