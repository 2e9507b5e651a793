/* ctest `io`: particle readers and the FNNSCSR1 writer/reader against a matrix
 * of good and bad files. Usage: test_io TMPDIR (created if missing). Pure host
 * test; run it under AddressSanitizer to catch crashes on hostile input. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "particle_io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[2048];


static const char *path_of(const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ & 3];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

static void write_bytes(const char *name, const void *data, size_t size)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", path_of(name), strerror(errno));
        exit(1);
    }
}

static void write_text(const char *name, const char *text)
{
    write_bytes(name, text, strlen(text));
}

/* Expects the reader to fail with one line naming the file (and `needle` if given). */
static void expect_fail(const char *name, const char *needle)
{
    const char *path = path_of(name);
    float *xyz = (float *)&failures; /* must be reset to NULL */
    uint32_t n = 77, bad = 77;
    char err[512];
    int rc = fenns_io_read_points(path, &xyz, &n, &bad, err, sizeof err);
    CHECK(rc != 0, "%s: read succeeded (n %u), expected failure%s%s", name, n, needle ? " with " : "",
          needle ? needle : "");
    if (rc == 0) {
        free(xyz);
        return;
    }
    CHECK(xyz == NULL && n == 0, "%s: outputs not reset on failure", name);
    CHECK(strstr(err, path) != NULL, "%s: message does not name the file: %s", name, err);
    CHECK(strchr(err, '\n') == NULL && err[0] != '\0', "%s: message not one line: %s", name, err);
    CHECK(!needle || strstr(err, needle), "%s: message lacks '%s': %s", name, needle, err);
    printf("  ok (rejected) %s\n", err + strlen(tmpdir) + 1);
}

static int same_float(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

static void expect_points(const char *name, const float *want, uint32_t want_n, uint32_t want_bad)
{
    float *xyz = NULL;
    uint32_t n = 0, bad = 0;
    char err[512];
    int rc = fenns_io_read_points(path_of(name), &xyz, &n, &bad, err, sizeof err);
    CHECK(rc == 0, "%s: read failed: %s", name, err);
    if (rc != 0)
        return;
    CHECK(xyz != NULL, "%s: NULL points on success", name);
    CHECK(n == want_n, "%s: %u points, expected %u", name, n, want_n);
    CHECK(bad == want_bad, "%s: %u non-finite, expected %u", name, bad, want_bad);
    if (n == want_n)
        for (uint32_t k = 0; k < 3 * n; ++k)
            if (!same_float(xyz[k], want[k])) {
                CHECK(0, "%s: value %u is %.9g, expected %.9g", name, k, (double)xyz[k], (double)want[k]);
                break;
            }
    printf("  ok %s (%u points)\n", name, n);
    free(xyz);
}

/* ------------------------------------------------------------------------ */

static const float good[] = {0.5f, -1.25f, 3.0f, 1e-3f, 2e5f, -7.75f, 0.1f, 0.2f, 0.3f, -0.0f, 123456.789f, 1.0f};
#define GOOD_N 4u

static void test_f32(void)
{
    unsigned char buf[64];
    float with_nan[6] = {1.0f, 2.0f, 3.0f, NAN, 0.0f, INFINITY};
    printf("f32\n");
    write_bytes("good.f32", good, sizeof good);
    expect_points("good.f32", good, GOOD_N, 0);
    write_bytes("nan.f32", with_nan, sizeof with_nan);
    expect_points("nan.f32", with_nan, 2, 1);
    write_bytes("empty.f32", "", 0);
    expect_points("empty.f32", NULL, 0, 0);
    write_bytes("upper.F32", good, sizeof good);
    expect_points("upper.F32", good, GOOD_N, 0);
    memcpy(buf, good, sizeof good);
    write_bytes("truncated.f32", buf, sizeof good - 1);
    expect_fail("truncated.f32", "multiple of 12");
    write_bytes("short.f32", buf, 5);
    expect_fail("short.f32", "multiple of 12");
    write_bytes("long.f32", buf, 13);
    expect_fail("long.f32", "multiple of 12");
    expect_fail("missing.f32", "cannot open");
    mkdir(path_of("directory.f32"), 0777);
    expect_fail("directory.f32", NULL);
}

static void test_text(void)
{
    const char *exts[3] = {"xyz", "txt", "csv"};
    const float blanks[6] = {1, 2, 3, 4, 5, 6};
    printf("text\n");
    for (int e = 0; e < 3; ++e) {
        char name[64];
        const char *x = exts[e];
#define NAME(base) (snprintf(name, sizeof name, "%s.%s", base, x), name)
        write_text(NAME("good"), "# comment\n0.5 -1.25 3\n\n 1e-3, 2e5 ,-7.75\r\n0.1\t0.2\t0.3\n  # indented comment\n"
                                 "-0.0,123456.789,1\n");
        expect_points(NAME("good"), good, GOOD_N, 0);
        write_text(NAME("noeol"), "1 2 3\n4 5 6");
        expect_points(NAME("noeol"), blanks, 2, 0);
        write_text(NAME("bom"), "\xEF\xBB\xBF" "1 2 3\n4,5,6\n");
        expect_points(NAME("bom"), blanks, 2, 0);
        write_text(NAME("empty"), "");
        expect_points(NAME("empty"), NULL, 0, 0);
        write_text(NAME("comments"), "# nothing\n\n   \n#x y z\n");
        expect_points(NAME("comments"), NULL, 0, 0);
        {
            const float nf[9] = {NAN, 1, 2, INFINITY, -INFINITY, 0, 1, 2, 3};
            write_text(NAME("nan"), "nan 1 2\ninf -inf 0\n1 2 3\n");
            expect_points(NAME("nan"), nf, 3, 2);
        }
        write_text(NAME("malformed"), "1 2 3\n4 5 6\n1 2 abc\n");
        expect_fail(NAME("malformed"), "line 3");
        write_text(NAME("malformed2"), "1 2 3\n1.5.5 2 3\n");
        expect_fail(NAME("malformed2"), "malformed number '1.5.5'");
        write_text(NAME("twocols"), "1 2 3\n\n1 2\n");
        expect_fail(NAME("twocols"), "line 3");
        write_text(NAME("fourcols"), "1 2 3 4\n");
        expect_fail(NAME("fourcols"), "found 4");
        write_text(NAME("truncline"), "1 2 3\n4 5");
        expect_fail(NAME("truncline"), "line 2");
        write_text(NAME("emptyfield"), "1,,2,3\n");
        expect_fail(NAME("emptyfield"), "empty field");
        write_text(NAME("trailingcomma"), "1,2,3,\n");
        expect_fail(NAME("trailingcomma"), "empty field");
        write_text(NAME("range"), "1e39 0 0\n");
        expect_fail(NAME("range"), "float range");
        write_bytes(NAME("nul"), "1 2 3\n4 5\0 6\n", 13);
        expect_fail(NAME("nul"), "line 2");
        {
            char longtok[400];
            memset(longtok, '1', sizeof longtok);
            memcpy(longtok + sizeof longtok - 8, " 2 3\n", 6);
            write_text(NAME("longtoken"), longtok);
            expect_fail(NAME("longtoken"), "line 1");
        }
        {
            unsigned char junk[256];
            for (int k = 0; k < 256; ++k)
                junk[k] = (unsigned char)(k * 37 + 11);
            write_bytes(NAME("binaryjunk"), junk, sizeof junk);
            expect_fail(NAME("binaryjunk"), NULL);
        }
        write_text(NAME("header"), "x,y,z\n1,2,3\n4,5,6\n");
        if (e == 2)
            expect_points(NAME("header"), blanks, 2, 0);
        else
            expect_fail(NAME("header"), "line 1");
        write_text(NAME("header2"), "1,2,3\nx,y,z\n");
        expect_fail(NAME("header2"), "line 2");
        write_text(NAME("mixedheader"), "x,2,z\n1,2,3\n");
        expect_fail(NAME("mixedheader"), "line 1");
        expect_fail(NAME("missing"), "cannot open");
#undef NAME
    }
    {
        const float hdr[3] = {7, 8, 9};
        write_text("headerspace.csv", "# exported\nx y z\n7 8 9\n");
        expect_points("headerspace.csv", hdr, 1, 0);
    }
}

/* ------------------------------------------------------------------------ */
/* PLY                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct bytes {
    unsigned char data[8192];
    size_t n;
} bytes;

static void put(bytes *b, const void *p, size_t k)
{
    if (b->n + k > sizeof b->data) {
        fprintf(stderr, "test buffer overflow\n");
        exit(1);
    }
    memcpy(b->data + b->n, p, k);
    b->n += k;
}

static void put_str(bytes *b, const char *s)
{
    put(b, s, strlen(s));
}

static void put_le(bytes *b, uint64_t v, size_t k)
{
    unsigned char t[8];
    for (size_t i = 0; i < k; ++i) {
        t[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    put(b, t, k);
}

static void put_f32(bytes *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_le(b, u, 4);
}

static void put_f64(bytes *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_le(b, u, 8);
}

static void save(const char *name, const bytes *b)
{
    write_bytes(name, b->data, b->n);
}

/* Every prefix and a few hundred single-byte mutations of a file: the reader
 * may accept or reject them but must not crash (ASan) and must name the file. */
static void torture(const char *name, const bytes *b)
{
    bytes m;
    uint32_t state = 12345;
    char err[512];
    int accepted = 0;
    for (size_t len = 0; len < b->n; ++len) {
        float *xyz = NULL;
        uint32_t n = 0;
        write_bytes(name, b->data, len);
        if (fenns_io_read_points(path_of(name), &xyz, &n, NULL, err, sizeof err) == 0) {
            ++accepted;
            free(xyz);
        } else {
            CHECK(strstr(err, path_of(name)) && !strchr(err, '\n'), "%s prefix %zu: bad message %s", name,
                  len, err);
        }
    }
    for (int k = 0; k < 400; ++k) {
        float *xyz = NULL;
        uint32_t n = 0;
        size_t pos;
        m = *b;
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        pos = state % m.n;
        m.data[pos] = (unsigned char)(state >> 24);
        write_bytes(name, m.data, m.n);
        if (fenns_io_read_points(path_of(name), &xyz, &n, NULL, err, sizeof err) == 0)
            free(xyz);
        else
            CHECK(strstr(err, path_of(name)) != NULL, "%s mutation: bad message %s", name, err);
    }
    printf("  ok torture %s (%zu prefixes, %d accepted; 400 mutations)\n", name, b->n, accepted);
}

static void test_ply(void)
{
    bytes b;
    printf("ply\n");

    /* ascii, an element before the vertex element (with a list), extra
     * properties, a face element after, CRLF in the header */
    b.n = 0;
    put_str(&b, "ply\r\nformat ascii 1.0\r\ncomment made by test_io\r\nobj_info x\r\n"
                "element camera 2\r\nproperty list uchar float params\r\nproperty int id\r\n"
                "element vertex 4\nproperty float x\nproperty uchar red\nproperty float y\nproperty double z\n"
                "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                "3 1 2 3 7\n0 8\n"
                "0.5 255 -1.25 3\n1e-3 0 2e5 -7.75\n0.1 1 0.2 0.3\n-0.0 2 123456.789 1\n"
                "3 0 1 2\n");
    save("ascii.ply", &b);
    expect_points("ascii.ply", good, GOOD_N, 0);
    torture("ascii_torture.ply", &b);

    /* binary float, minimal */
    b.n = 0;
    put_str(&b, "ply\nformat binary_little_endian 1.0\nelement vertex 4\n"
                "property float x\nproperty float y\nproperty float z\nend_header\n");
    for (int k = 0; k < 12; ++k)
        put_f32(&b, good[k]);
    save("float.ply", &b);
    expect_points("float.ply", good, GOOD_N, 0);
    {
        bytes t = b;
        t.n -= 1;
        save("float_truncated.ply", &t);
        expect_fail("float_truncated.ply", "truncated");
        t.n = b.n - 12;
        save("float_truncated2.ply", &t);
        expect_fail("float_truncated2.ply", "truncated");
    }
    torture("float_torture.ply", &b);

    /* binary double with extra properties of every type, an element before
     * (fixed size and a list) and one after */
    b.n = 0;
    put_str(&b, "ply\nformat binary_little_endian 1.0\n"
                "element meta 2\nproperty short a\nproperty list ushort int idx\n"
                "element vertex 4\n"
                "property char c\nproperty double x\nproperty uchar uc\nproperty short s\nproperty double y\n"
                "property ushort us\nproperty int i\nproperty uint ui\nproperty float f\nproperty float64 z\n"
                "property int8 i8\nproperty uint8 u8\nproperty int16 i16\nproperty uint16 u16\n"
                "property int32 i32\nproperty uint32 u32\nproperty float32 f32\n"
                "element face 3\nproperty list uchar int vertex_indices\nend_header\n");
    /* meta: short, list(ushort count, ints) */
    put_le(&b, 0xffff, 2);
    put_le(&b, 3, 2);
    put_le(&b, 1, 4);
    put_le(&b, 2, 4);
    put_le(&b, 3, 4);
    put_le(&b, 7, 2);
    put_le(&b, 0, 2);
    for (int v = 0; v < 4; ++v) {
        put_le(&b, 0x80, 1);
        put_f64(&b, (double)good[3 * v]);
        put_le(&b, 0xff, 1);
        put_le(&b, 0x8000, 2);
        put_f64(&b, (double)good[3 * v + 1]);
        put_le(&b, 0xffff, 2);
        put_le(&b, 0x80000000u, 4);
        put_le(&b, 0xffffffffu, 4);
        put_f32(&b, NAN);
        put_f64(&b, (double)good[3 * v + 2]);
        put_le(&b, 1, 1);
        put_le(&b, 2, 1);
        put_le(&b, 3, 2);
        put_le(&b, 4, 2);
        put_le(&b, 5, 4);
        put_le(&b, 6, 4);
        put_f32(&b, 7.0f);
    }
    put_le(&b, 3, 1); /* one face only: elements after the vertex are not read */
    put_le(&b, 0, 4);
    save("double.ply", &b);
    expect_points("double.ply", good, GOOD_N, 0);
    torture("double_torture.ply", &b);

    /* binary with integer coordinates and a NaN double */
    b.n = 0;
    put_str(&b, "ply\nformat binary_little_endian 1.0\nelement vertex 2\n"
                "property int x\nproperty double y\nproperty short z\nend_header\n");
    put_le(&b, (uint64_t)(uint32_t)-5, 4);
    put_f64(&b, NAN);
    put_le(&b, 7, 2);
    put_le(&b, 1, 4);
    put_f64(&b, 2.0);
    put_le(&b, 3, 2);
    save("int.ply", &b);
    {
        const float want[6] = {-5.0f, NAN, 7.0f, 1.0f, 2.0f, 3.0f};
        expect_points("int.ply", want, 2, 1);
    }
    b.n = 0;
    put_str(&b, "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                "property double x\nproperty double y\nproperty double z\nend_header\n");
    put_f64(&b, 1e300);
    put_f64(&b, 0);
    put_f64(&b, 0);
    save("doublerange.ply", &b);
    expect_fail("doublerange.ply", "float range");

    write_text("zero.ply", "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
                           "property float z\nend_header\n");
    expect_points("zero.ply", NULL, 0, 0);

    /* header defects */
#define HDR_XYZ "property float x\nproperty float y\nproperty float z\n"
    write_text("empty.ply", "");
    expect_fail("empty.ply", "bad PLY header");
    write_text("magic.ply", "plx\nformat ascii 1.0\nelement vertex 1\n" HDR_XYZ "end_header\n1 2 3\n");
    expect_fail("magic.ply", "bad PLY header");
    write_text("noformat.ply", "ply\nelement vertex 1\n" HDR_XYZ "end_header\n1 2 3\n");
    expect_fail("noformat.ply", "bad PLY header");
    write_text("bigendian.ply", "ply\nformat binary_big_endian 1.0\nelement vertex 1\n" HDR_XYZ "end_header\n");
    expect_fail("bigendian.ply", "binary_big_endian");
    write_text("version.ply", "ply\nformat ascii 2.0\nelement vertex 1\n" HDR_XYZ "end_header\n1 2 3\n");
    expect_fail("version.ply", "version");
    write_text("noend.ply", "ply\nformat ascii 1.0\nelement vertex 1\n" HDR_XYZ "1 2 3\n");
    expect_fail("noend.ply", "bad PLY header");
    write_text("noendatall.ply", "ply\nformat ascii 1.0\nelement vertex 1\n" HDR_XYZ);
    expect_fail("noendatall.ply", "end_header");
    write_text("novertex.ply", "ply\nformat ascii 1.0\nelement point 1\n" HDR_XYZ "end_header\n1 2 3\n");
    expect_fail("novertex.ply", "no vertex element");
    write_text("noz.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                          "end_header\n1 2\n");
    expect_fail("noz.ply", "lacks property z");
    write_text("twox.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n" HDR_XYZ "end_header\n1 2 3 4\n");
    expect_fail("twox.ply", "twice");
    write_text("list.ply", "ply\nformat ascii 1.0\nelement vertex 1\n" HDR_XYZ
                           "property list uchar float normals\nend_header\n1 2 3 0\n");
    expect_fail("list.ply", "list property");
    write_text("type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nproperty float y\n"
                           "property float z\nend_header\n1 2 3\n");
    expect_fail("type.ply", "unknown property type");
    write_text("keyword.ply", "ply\nformat ascii 1.0\nelement vertex 1\n" HDR_XYZ "bogus line\nend_header\n1 2 3\n");
    expect_fail("keyword.ply", "unknown keyword");
    write_text("orphan.ply", "ply\nformat ascii 1.0\nproperty float x\nelement vertex 1\n" HDR_XYZ "end_header\n");
    expect_fail("orphan.ply", "bad PLY header");
    write_text("negative.ply", "ply\nformat ascii 1.0\nelement vertex -1\n" HDR_XYZ "end_header\n1 2 3\n");
    expect_fail("negative.ply", "not a count");
    write_text("overflow.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 18446744073709551616\n" HDR_XYZ
                               "end_header\n");
    expect_fail("overflow.ply", "overflows");
    write_text("toomany.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 2147483648\n" HDR_XYZ
                              "end_header\n");
    expect_fail("toomany.ply", "too many points");
    write_text("huge.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 2000000000\n" HDR_XYZ
                           "end_header\n\1\2\3\4\5\6\7\10\11\12\13\14");
    expect_fail("huge.ply", "truncated");
    write_text("hugeascii.ply", "ply\nformat ascii 1.0\nelement vertex 2147483647\n" HDR_XYZ "end_header\n1 2 3\n");
    expect_fail("hugeascii.ply", "truncated");
    write_text("hugebefore.ply", "ply\nformat binary_little_endian 1.0\nelement junk 18446744073709551615\n"
                                 "property double a\nelement vertex 1\n" HDR_XYZ "end_header\n");
    expect_fail("hugebefore.ply", "truncated");
    write_text("hugelist.ply", "ply\nformat binary_little_endian 1.0\nelement junk 1\nproperty list uint float a\n"
                               "element vertex 1\n" HDR_XYZ "end_header\n\377\377\377\377abc");
    expect_fail("hugelist.ply", "truncated");
    write_text("nopropsbefore.ply", "ply\nformat ascii 1.0\nelement nothing 18446744073709551615\n"
                                    "element vertex 1\n" HDR_XYZ "end_header\n1 2 3\n");
    {
        const float want[3] = {1, 2, 3};
        expect_points("nopropsbefore.ply", want, 1, 0);
    }
    write_text("asciishort.ply", "ply\nformat ascii 1.0\nelement vertex 3\n" HDR_XYZ "end_header\n1 2 3\n4 5 6\n7 8\n");
    expect_fail("asciishort.ply", "truncated");
    write_text("asciibad.ply", "ply\nformat ascii 1.0\nelement vertex 2\n" HDR_XYZ "end_header\n1 2 3\n4 five 6\n");
    expect_fail("asciibad.ply", "line 9");
    write_text("asciilistbad.ply", "ply\nformat ascii 1.0\nelement f 1\nproperty list uchar int a\nelement vertex 1\n"
                                   HDR_XYZ "end_header\n-3 1 2 3\n1 2 3\n");
    expect_fail("asciilistbad.ply", "list length");
    expect_fail("missing.ply", "cannot open");
#undef HDR_XYZ
}

static void test_extension(void)
{
    printf("extensions\n");
    write_bytes("points.bin", good, sizeof good);
    expect_fail("points.bin", "unknown extension");
    write_bytes("points", good, sizeof good);
    expect_fail("points", "no extension");
    write_bytes("points.ply.gz", good, sizeof good);
    expect_fail("points.ply.gz", "unknown extension");
    mkdir(path_of("dir.ply"), 0777);
    write_bytes("dir.ply/points", good, sizeof good);
    expect_fail("dir.ply/points", "no extension");
}

/* ------------------------------------------------------------------------ */
/* CSR                                                                      */
/* ------------------------------------------------------------------------ */

static void expect_csr_fail(const char *name, const char *needle)
{
    uint64_t n = 5, *o = (uint64_t *)&failures;
    uint32_t *ix = (uint32_t *)&failures;
    char err[512];
    const char *path = path_of(name);
    int rc = fenns_io_read_csr(path, &n, &o, &ix, err, sizeof err);
    CHECK(rc != 0, "%s: CSR read succeeded", name);
    if (rc == 0) {
        free(o);
        free(ix);
        return;
    }
    CHECK(o == NULL && ix == NULL && n == 0, "%s: outputs not reset", name);
    CHECK(strstr(err, path) && !strchr(err, '\n'), "%s: bad message: %s", name, err);
    CHECK(!needle || strstr(err, needle), "%s: message lacks '%s': %s", name, needle, err);
    printf("  ok (rejected) %s\n", err + strlen(tmpdir) + 1);
}

static void test_csr(void)
{
    const uint64_t offsets[6] = {0, 2, 2, 5, 5, 6};
    const uint32_t indices[6] = {1, 4, 0, 3, 4, 2};
    uint64_t n = 0, *o = NULL;
    uint32_t *ix = NULL;
    char err[512];
    bytes b;
    printf("csr\n");

    CHECK(fenns_io_write_csr(path_of("a.csr"), 5, offsets, indices, err, sizeof err) == 0, "write: %s", err);
    CHECK(fenns_io_read_csr(path_of("a.csr"), &n, &o, &ix, err, sizeof err) == 0, "read: %s", err);
    if (o && ix) {
        CHECK(n == 5 && memcmp(o, offsets, sizeof offsets) == 0 && memcmp(ix, indices, sizeof indices) == 0,
              "CSR round trip differs");
    }
    free(o);
    free(ix);
    {
        /* the exact bytes */
        FILE *f = fopen(path_of("a.csr"), "rb");
        unsigned char raw[256];
        size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;
        if (f)
            fclose(f);
        CHECK(got == 8 + 8 + 8 + 6 * 8 + 6 * 4, "CSR file size %zu", got);
        CHECK(memcmp(raw, "FNNSCSR1", 8) == 0 && raw[8] == 5 && raw[16] == 6 && raw[24 + 8] == 2 &&
                  raw[24 + 48] == 1 && raw[24 + 52] == 4,
              "CSR layout");
    }
    {
        const uint64_t zero = 0;
        CHECK(fenns_io_write_csr(path_of("zero.csr"), 0, &zero, NULL, err, sizeof err) == 0, "write n=0: %s", err);
        o = NULL;
        ix = NULL;
        CHECK(fenns_io_read_csr(path_of("zero.csr"), &n, &o, &ix, err, sizeof err) == 0 && n == 0 && o && ix &&
                  o[0] == 0,
              "read n=0: %s", err);
        free(o);
        free(ix);
    }
    {
        const uint64_t badoff[3] = {0, 3, 2};
        const uint64_t badfirst[2] = {1, 2};
        CHECK(fenns_io_write_csr(path_of("bad.csr"), 2, badoff, indices, err, sizeof err) != 0 &&
                  strstr(err, "bad.csr"),
              "decreasing offsets written");
        CHECK(fenns_io_write_csr(path_of("bad.csr"), 1, badfirst, indices, err, sizeof err) != 0,
              "offsets[0] != 0 written");
        CHECK(fenns_io_write_csr(path_of("no/such/dir/x.csr"), 5, offsets, indices, err, sizeof err) != 0 &&
                  strstr(err, "no/such/dir/x.csr"),
              "write into a missing directory: %s", err);
    }
    /* text to stdout */
    {
        int saved, fd;
        char text[256] = {0};
        FILE *f;
        fflush(stdout);
        saved = dup(1);
        fd = open(path_of("text.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (saved < 0 || fd < 0) {
            CHECK(0, "cannot redirect stdout");
        } else {
            int rc;
            dup2(fd, 1);
            close(fd);
            rc = fenns_io_write_csr("-", 5, offsets, indices, err, sizeof err);
            fflush(stdout);
            dup2(saved, 1);
            close(saved);
            CHECK(rc == 0, "text write: %s", err);
            f = fopen(path_of("text.out"), "rb");
            if (f) {
                size_t got = fread(text, 1, sizeof text - 1, f);
                text[got] = '\0';
                fclose(f);
            }
            CHECK(strcmp(text, "0: 1 4\n1:\n2: 0 3 4\n3:\n4: 2\n") == 0, "text output:\n%s", text);
        }
    }

    /* hostile and broken files */
    expect_csr_fail("missing.csr", "cannot open");
    write_text("short.csr", "FNNSCSR1\1\0\0");
    expect_csr_fail("short.csr", "truncated");
    write_bytes("magic.csr", "FNNSCSR2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32);
    expect_csr_fail("magic.csr", "magic");
    {
        FILE *f = fopen(path_of("a.csr"), "rb");
        unsigned char raw[256];
        size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;
        if (f)
            fclose(f);
        b.n = 0;
        put(&b, raw, got - 1);
        save("truncated.csr", &b);
        expect_csr_fail("truncated.csr", "truncated");
        b.n = 0;
        put(&b, raw, got);
        put_le(&b, 0, 1);
        save("extra.csr", &b);
        expect_csr_fail("extra.csr", NULL);
        b.n = 0;
        put(&b, raw, got);
        b.data[24 + 16] = 9; /* offsets[2] = 9 > offsets[3] */
        save("decreasing.csr", &b);
        expect_csr_fail("decreasing.csr", "decrease");
        b.data[24 + 16] = 2;
        b.data[24 + 48] = 5; /* index 5 with n = 5 */
        save("range.csr", &b);
        expect_csr_fail("range.csr", "not below");
        b.data[24 + 48] = 1;
        b.data[24 + 40] = 5; /* offsets[5] = 5 but m = 6 */
        save("last.csr", &b);
        expect_csr_fail("last.csr", NULL);
        b.data[24 + 40] = 6;
        b.data[24] = 1; /* offsets[0] = 1 */
        save("first.csr", &b);
        expect_csr_fail("first.csr", NULL);
        /* hostile sizes: must not allocate */
        b.n = 0;
        put_str(&b, "FNNSCSR1");
        put_le(&b, 0x0fffffffffffffffull, 8);
        put_le(&b, 1, 8);
        save("hugen.csr", &b);
        expect_csr_fail("hugen.csr", NULL);
        b.n = 0;
        put_str(&b, "FNNSCSR1");
        put_le(&b, UINT64_MAX, 8);
        put_le(&b, UINT64_MAX, 8);
        save("maxn.csr", &b);
        expect_csr_fail("maxn.csr", "overflow");
    }
    mkdir(path_of("dir.csr"), 0777);
    expect_csr_fail("dir.csr", NULL);
}

int main(int argc, char **argv)
{
    const char *base = argc > 1 ? argv[1] : "io_tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s", base);
    if (mkdir(tmpdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "test_io: cannot create %s: %s\n", tmpdir, strerror(errno));
        return 1;
    }
    test_f32();
    test_text();
    test_ply();
    test_extension();
    test_csr();
    if (failures) {
        fprintf(stderr, "test_io: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_io: ok\n");
    return 0;
}
