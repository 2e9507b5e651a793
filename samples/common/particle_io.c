/* Particle readers and the FNNSCSR1 writer/reader; see particle_io.h. */
#include "particle_io.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define IO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define IO_PRINTF(a, b)
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

IO_PRINTF(4, 5)
static void set_err(char *err, size_t err_size, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (!err || err_size == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, err_size, "%s: %s", path ? path : "(null)", msg);
    /* The caller prints this as one line: no control characters survive. */
    for (char *c = err; *c; ++c)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
}

/* A token from the file, quoted for a message: at most 24 printable chars. */
static void quote_token(const unsigned char *s, size_t len, char *out, size_t out_size)
{
    size_t k = 0;
    size_t shown = len < 24 ? len : 24;
    for (size_t i = 0; i < shown && k + 1 < out_size; ++i)
        out[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
    for (int d = 0; len > shown && d < 3 && k + 1 < out_size; ++d)
        out[k++] = '.';
    out[k] = '\0';
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static int host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static uint64_t load_le(const unsigned char *p, size_t nbytes)
{
    uint64_t v = 0;
    for (size_t i = nbytes; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

static void store_le(unsigned char *p, uint64_t v, size_t nbytes)
{
    for (size_t i = 0; i < nbytes; ++i) {
        p[i] = (unsigned char)(v & 0xffu);
        v >>= 8;
    }
}

static int lower_ascii(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int ext_is(const char *ext, const char *want)
{
    for (; *ext && *want; ++ext, ++want)
        if (lower_ascii((unsigned char)*ext) != *want)
            return 0;
    return *ext == '\0' && *want == '\0';
}

/* The part after the last '.' of the file name (not of a directory), or "". */
static const char *path_extension(const char *path)
{
    const char *name = path;
    const char *dot = NULL;
    for (const char *c = path; *c; ++c)
        if (*c == '/' || *c == '\\')
            name = c + 1;
    for (const char *c = name; *c; ++c)
        if (*c == '.')
            dot = c;
    return dot ? dot + 1 : "";
}

/* Reads a whole file; works for files whose size cannot be asked up front. */
static int read_whole_file(const char *path, unsigned char **out, size_t *out_size, char *err,
                           size_t err_size)
{
    FILE *f;
    unsigned char *buf;
    size_t cap = 1u << 16;
    size_t size = 0;

    *out = NULL;
    *out_size = 0;
    errno = 0;
    f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_size, path, "cannot open: %s", errno ? strerror(errno) : "unknown error");
        return 1;
    }
    buf = (unsigned char *)malloc(cap);
    if (!buf) {
        fclose(f);
        set_err(err, err_size, path, "out of memory");
        return 1;
    }
    for (;;) {
        size_t got;
        if (size == cap) {
            unsigned char *grown;
            if (cap > SIZE_MAX / 2) {
                free(buf);
                fclose(f);
                set_err(err, err_size, path, "file too large");
                return 1;
            }
            grown = (unsigned char *)realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                fclose(f);
                set_err(err, err_size, path, "out of memory reading %zu bytes", cap * 2);
                return 1;
            }
            buf = grown;
            cap *= 2;
        }
        errno = 0;
        got = fread(buf + size, 1, cap - size, f);
        size += got;
        if (got == 0 || size < cap) {
            if (ferror(f)) {
                int e = errno;
                free(buf);
                fclose(f);
                set_err(err, err_size, path, "read error: %s", e ? strerror(e) : "unknown error");
                return 1;
            }
            if (feof(f))
                break;
        }
    }
    fclose(f);
    *out = buf;
    *out_size = size;
    return 0;
}

/* Parses a whole token as a float. 0: ok, 1: not a number, 2: beyond float range. */
static int parse_float(const unsigned char *s, size_t len, float *out)
{
    char tmp[128];
    char *end;
    float v;
    if (len == 0 || len >= sizeof tmp)
        return 1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    /* strtof would skip leading blanks; tokens never have any, but a NUL or
     * other junk inside one leaves `end` short of the token end. */
    if (tmp[0] == ' ' || tmp[0] == '\t')
        return 1;
    errno = 0;
    v = strtof(tmp, &end);
    if (end != tmp + len)
        return 1;
    if (errno == ERANGE && isinf(v))
        return 2;
    *out = v;
    return 0;
}

/* Parses a whole token as an unsigned decimal. 0: ok, 1: not a count, 2: overflow. */
static int parse_u64(const unsigned char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0)
        return 1;
    for (size_t i = 0; i < len; ++i) {
        unsigned d;
        if (s[i] < '0' || s[i] > '9')
            return 1;
        d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return 2;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static uint32_t count_nonfinite(const float *xyz, uint32_t n)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (!isfinite(xyz[3 * (size_t)i]) || !isfinite(xyz[3 * (size_t)i + 1]) ||
            !isfinite(xyz[3 * (size_t)i + 2]))
            ++bad;
    return bad;
}

/* ------------------------------------------------------------------------ */
/* .f32                                                                     */
/* ------------------------------------------------------------------------ */

static int read_f32(const char *path, unsigned char *buf, size_t size, float **out_xyz,
                    uint32_t *out_n, char *err, size_t err_size)
{
    size_t n = size / 12;
    float *xyz;
    if (size % 12 != 0) {
        free(buf);
        set_err(err, err_size, path,
                "size %zu bytes is not a multiple of 12 (float32 x,y,z triplets); truncated?", size);
        return 1;
    }
    if (n > FENNS_IO_MAX_POINTS) {
        free(buf);
        set_err(err, err_size, path, "too many points (%zu; at most %u)", n, FENNS_IO_MAX_POINTS);
        return 1;
    }
    if (!host_is_little_endian()) {
        for (size_t k = 0; k < size; k += 4) {
            unsigned char t0 = buf[k], t1 = buf[k + 1];
            buf[k] = buf[k + 3];
            buf[k + 1] = buf[k + 2];
            buf[k + 2] = t1;
            buf[k + 3] = t0;
        }
    }
    /* Give back the read-ahead slack; keep at least one triplet so the result is never NULL. */
    xyz = (float *)realloc(buf, size > 12 ? size : 12);
    if (!xyz)
        xyz = (float *)buf;
    *out_xyz = xyz;
    *out_n = (uint32_t)n;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Growing output array                                                     */
/* ------------------------------------------------------------------------ */

typedef struct point_array {
    float *xyz;
    size_t n;
    size_t cap; /* points */
} point_array;

static int point_array_reserve(point_array *a, size_t want)
{
    float *grown;
    size_t cap;
    if (want <= a->cap)
        return 0;
    if (want > FENNS_IO_MAX_POINTS)
        return 1;
    cap = a->cap ? a->cap : 1024;
    while (cap < want)
        cap *= 2;
    if (cap > FENNS_IO_MAX_POINTS)
        cap = FENNS_IO_MAX_POINTS;
    if (cap > SIZE_MAX / (3 * sizeof(float)))
        return 1;
    grown = (float *)realloc(a->xyz, cap * 3 * sizeof(float));
    if (!grown)
        return 1;
    a->xyz = grown;
    a->cap = cap;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Text: .xyz .txt .csv                                                     */
/* ------------------------------------------------------------------------ */

static int is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int read_text(const char *path, const unsigned char *buf, size_t size, int allow_header,
                     float **out_xyz, uint32_t *out_n, char *err, size_t err_size)
{
    point_array pts = {NULL, 0, 0};
    size_t pos = 0;
    unsigned long long line = 0;
    int first_content = 1;
    char shown[40];

    if (size >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
        pos = 3;
    while (pos < size) {
        size_t eol = pos, lend, s, next;
        size_t fstart[4], flen[4];
        unsigned nfields = 0;
        float v[3];

        ++line;
        while (eol < size && buf[eol] != '\n')
            ++eol;
        next = eol < size ? eol + 1 : size;
        lend = eol;
        while (lend > pos && is_blank(buf[lend - 1]))
            --lend;
        s = pos;
        while (s < lend && is_blank(buf[s]))
            ++s;
        pos = next;
        if (s == lend || buf[s] == '#')
            continue;

        /* Fields: separated by blanks, or by one comma with optional blanks around it. */
        for (;;) {
            size_t e = s;
            while (e < lend && !is_blank(buf[e]) && buf[e] != ',')
                ++e;
            if (e == s) {
                set_err(err, err_size, path, "line %llu: empty field", line);
                goto fail;
            }
            if (nfields < 4) {
                fstart[nfields] = s;
                flen[nfields] = e - s;
            }
            ++nfields;
            s = e;
            while (s < lend && is_blank(buf[s]))
                ++s;
            if (s < lend && buf[s] == ',') {
                ++s;
                while (s < lend && is_blank(buf[s]))
                    ++s;
                if (s == lend) {
                    set_err(err, err_size, path, "line %llu: empty field after ','", line);
                    goto fail;
                }
            }
            if (s >= lend)
                break;
        }

        if (first_content) {
            /* A header is a first line made only of non-numbers. */
            unsigned checked = nfields < 4 ? nfields : 4;
            unsigned numbers = 0;
            float dummy;
            first_content = 0;
            for (unsigned k = 0; k < checked; ++k)
                if (parse_float(buf + fstart[k], flen[k], &dummy) != 1)
                    ++numbers;
            if (numbers == 0) {
                if (allow_header)
                    continue;
                quote_token(buf + fstart[0], flen[0], shown, sizeof shown);
                set_err(err, err_size, path,
                        "line %llu: malformed number '%s' (a header line is accepted only in .csv files)",
                        line, shown);
                goto fail;
            }
        }
        if (nfields != 3) {
            set_err(err, err_size, path, "line %llu: expected 3 numbers (x y z), found %u fields",
                    line, nfields);
            goto fail;
        }
        for (unsigned k = 0; k < 3; ++k) {
            int r = parse_float(buf + fstart[k], flen[k], &v[k]);
            if (r != 0) {
                quote_token(buf + fstart[k], flen[k], shown, sizeof shown);
                set_err(err, err_size, path, "line %llu: %s '%s'", line,
                        r == 1 ? "malformed number" : "number beyond the float range", shown);
                goto fail;
            }
        }
        if (pts.n >= FENNS_IO_MAX_POINTS) {
            set_err(err, err_size, path, "too many points (more than %u)", FENNS_IO_MAX_POINTS);
            goto fail;
        }
        if (point_array_reserve(&pts, pts.n + 1)) {
            set_err(err, err_size, path, "out of memory at line %llu", line);
            goto fail;
        }
        memcpy(pts.xyz + 3 * pts.n, v, sizeof v);
        ++pts.n;
    }
    if (pts.n == 0 && point_array_reserve(&pts, 1)) {
        set_err(err, err_size, path, "out of memory");
        goto fail;
    }
    *out_xyz = pts.xyz;
    *out_n = (uint32_t)pts.n;
    return 0;
fail:
    free(pts.xyz);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* PLY                                                                      */
/* ------------------------------------------------------------------------ */

typedef enum ply_type {
    PLY_NONE = 0,
    PLY_INT8, PLY_UINT8, PLY_INT16, PLY_UINT16, PLY_INT32, PLY_UINT32, PLY_FLOAT32, PLY_FLOAT64
} ply_type;

static const struct {
    const char *name;
    ply_type type;
} ply_type_names[] = {
    {"char", PLY_INT8},     {"int8", PLY_INT8},       {"uchar", PLY_UINT8},   {"uint8", PLY_UINT8},
    {"short", PLY_INT16},   {"int16", PLY_INT16},     {"ushort", PLY_UINT16}, {"uint16", PLY_UINT16},
    {"int", PLY_INT32},     {"int32", PLY_INT32},     {"uint", PLY_UINT32},   {"uint32", PLY_UINT32},
    {"float", PLY_FLOAT32}, {"float32", PLY_FLOAT32}, {"double", PLY_FLOAT64}, {"float64", PLY_FLOAT64},
};

static size_t ply_type_size(ply_type t)
{
    switch (t) {
    case PLY_INT8: case PLY_UINT8: return 1;
    case PLY_INT16: case PLY_UINT16: return 2;
    case PLY_INT32: case PLY_UINT32: case PLY_FLOAT32: return 4;
    case PLY_FLOAT64: return 8;
    case PLY_NONE: break;
    }
    return 0;
}

/* A little-endian scalar of type t at p, as a double (exact for every PLY type). */
static double ply_load(const unsigned char *p, ply_type t)
{
    uint64_t bits = load_le(p, ply_type_size(t));
    switch (t) {
    case PLY_INT8: return (double)(int8_t)(uint8_t)bits;
    case PLY_INT16: return (double)(int16_t)(uint16_t)bits;
    case PLY_INT32: return (double)(int32_t)(uint32_t)bits;
    case PLY_UINT8: case PLY_UINT16: case PLY_UINT32: return (double)bits;
    case PLY_FLOAT32: {
        uint32_t b32 = (uint32_t)bits;
        float f;
        memcpy(&f, &b32, sizeof f);
        return (double)f;
    }
    case PLY_FLOAT64: {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    case PLY_NONE: break;
    }
    return 0.0;
}

#define PLY_MAX_ELEMENTS 32
#define PLY_MAX_PROPERTIES 64

typedef struct ply_property {
    ply_type type;       /* scalar type, or the item type of a list */
    ply_type count_type; /* PLY_NONE for a scalar */
    int axis;            /* 0,1,2 for x,y,z of the vertex element; -1 otherwise */
} ply_property;

typedef struct ply_element {
    uint64_t count;
    unsigned nprops;
    int is_vertex;
    int has_list;
    ply_property props[PLY_MAX_PROPERTIES];
} ply_element;

typedef struct ply_header {
    int binary;
    unsigned nelements;
    ply_element elements[PLY_MAX_ELEMENTS];
    size_t data_start;
    unsigned long long lines; /* header lines, for ascii line numbers */
} ply_header;

typedef struct token {
    const unsigned char *s;
    size_t n;
} token;

static int tok_eq(token t, const char *word)
{
    size_t len = strlen(word);
    return t.n == len && memcmp(t.s, word, len) == 0;
}

static ply_type ply_type_from(token t)
{
    for (size_t i = 0; i < sizeof ply_type_names / sizeof ply_type_names[0]; ++i)
        if (tok_eq(t, ply_type_names[i].name))
            return ply_type_names[i].type;
    return PLY_NONE;
}

static int parse_ply_header(const char *path, const unsigned char *buf, size_t size,
                            ply_header *h, char *err, size_t err_size)
{
    size_t pos = 0;
    unsigned long long line = 0;
    int have_format = 0;
    int vertex_index = -1;
    char shown[40];

    memset(h, 0, sizeof *h);
    for (;;) {
        size_t eol = pos, lend;
        token toks[8];
        unsigned ntok = 0;
        size_t s;

        if (pos >= size) {
            set_err(err, err_size, path, "bad PLY header: no end_header line");
            return 1;
        }
        ++line;
        while (eol < size && buf[eol] != '\n')
            ++eol;
        lend = eol;
        s = pos;
        pos = eol < size ? eol + 1 : size;
        while (s < lend) {
            size_t e;
            while (s < lend && is_blank(buf[s]))
                ++s;
            if (s >= lend)
                break;
            e = s;
            while (e < lend && !is_blank(buf[e]))
                ++e;
            if (ntok < 8) {
                toks[ntok].s = buf + s;
                toks[ntok].n = e - s;
            }
            ++ntok;
            s = e;
        }

        if (line == 1) {
            if (ntok != 1 || !tok_eq(toks[0], "ply")) {
                set_err(err, err_size, path, "bad PLY header: the file does not start with 'ply'");
                return 1;
            }
            continue;
        }
        if (ntok == 0)
            continue;
        if (tok_eq(toks[0], "comment") || tok_eq(toks[0], "obj_info"))
            continue;
        if (tok_eq(toks[0], "format")) {
            if (ntok != 3 || have_format) {
                set_err(err, err_size, path, "bad PLY header: malformed format line %llu", line);
                return 1;
            }
            if (tok_eq(toks[1], "ascii")) {
                h->binary = 0;
            } else if (tok_eq(toks[1], "binary_little_endian")) {
                h->binary = 1;
            } else {
                quote_token(toks[1].s, toks[1].n, shown, sizeof shown);
                set_err(err, err_size, path,
                        "unsupported PLY format '%s' (ascii or binary_little_endian)", shown);
                return 1;
            }
            if (!tok_eq(toks[2], "1.0")) {
                quote_token(toks[2].s, toks[2].n, shown, sizeof shown);
                set_err(err, err_size, path, "unsupported PLY version '%s' (1.0)", shown);
                return 1;
            }
            have_format = 1;
            continue;
        }
        if (tok_eq(toks[0], "element")) {
            ply_element *el;
            int r;
            if (!have_format) {
                set_err(err, err_size, path, "bad PLY header: element before the format line");
                return 1;
            }
            if (ntok != 3) {
                set_err(err, err_size, path, "bad PLY header: malformed element line %llu", line);
                return 1;
            }
            if (h->nelements == PLY_MAX_ELEMENTS) {
                set_err(err, err_size, path, "bad PLY header: more than %d elements", PLY_MAX_ELEMENTS);
                return 1;
            }
            el = &h->elements[h->nelements++];
            r = parse_u64(toks[2].s, toks[2].n, &el->count);
            if (r != 0) {
                quote_token(toks[2].s, toks[2].n, shown, sizeof shown);
                set_err(err, err_size, path, "bad PLY header: element count '%s' at line %llu %s",
                        shown, line, r == 2 ? "overflows" : "is not a count");
                return 1;
            }
            if (tok_eq(toks[1], "vertex")) {
                if (vertex_index >= 0) {
                    set_err(err, err_size, path, "bad PLY header: two vertex elements");
                    return 1;
                }
                vertex_index = (int)h->nelements - 1;
                el->is_vertex = 1;
            }
            continue;
        }
        if (tok_eq(toks[0], "property")) {
            ply_element *el;
            ply_property *p;
            token name;
            if (h->nelements == 0) {
                set_err(err, err_size, path, "bad PLY header: property before any element (line %llu)",
                        line);
                return 1;
            }
            el = &h->elements[h->nelements - 1];
            if (el->nprops == PLY_MAX_PROPERTIES) {
                set_err(err, err_size, path, "bad PLY header: more than %d properties in an element",
                        PLY_MAX_PROPERTIES);
                return 1;
            }
            p = &el->props[el->nprops++];
            p->axis = -1;
            if (ntok >= 2 && tok_eq(toks[1], "list")) {
                if (ntok != 5) {
                    set_err(err, err_size, path, "bad PLY header: malformed list property at line %llu",
                            line);
                    return 1;
                }
                if (el->is_vertex) {
                    quote_token(toks[4].s, toks[4].n, shown, sizeof shown);
                    set_err(err, err_size, path,
                            "list property '%s' on the vertex element is not supported", shown);
                    return 1;
                }
                p->count_type = ply_type_from(toks[2]);
                p->type = ply_type_from(toks[3]);
                if (p->count_type == PLY_NONE || p->type == PLY_NONE ||
                    p->count_type == PLY_FLOAT32 || p->count_type == PLY_FLOAT64) {
                    set_err(err, err_size, path, "bad PLY header: bad list types at line %llu", line);
                    return 1;
                }
                el->has_list = 1;
                continue;
            }
            if (ntok != 3) {
                set_err(err, err_size, path, "bad PLY header: malformed property line %llu", line);
                return 1;
            }
            p->type = ply_type_from(toks[1]);
            if (p->type == PLY_NONE) {
                quote_token(toks[1].s, toks[1].n, shown, sizeof shown);
                set_err(err, err_size, path, "bad PLY header: unknown property type '%s' at line %llu",
                        shown, line);
                return 1;
            }
            name = toks[2];
            if (el->is_vertex && name.n == 1 && (name.s[0] == 'x' || name.s[0] == 'y' || name.s[0] == 'z')) {
                int axis = name.s[0] - 'x';
                for (unsigned k = 0; k + 1 < el->nprops; ++k)
                    if (el->props[k].axis == axis) {
                        set_err(err, err_size, path, "bad PLY header: vertex property %c given twice",
                                name.s[0]);
                        return 1;
                    }
                p->axis = axis;
            }
            continue;
        }
        if (tok_eq(toks[0], "end_header")) {
            if (ntok != 1)
                break; /* reported below */
            h->data_start = pos;
            h->lines = line;
            break;
        }
        quote_token(toks[0].s, toks[0].n, shown, sizeof shown);
        set_err(err, err_size, path, "bad PLY header: unknown keyword '%s' at line %llu", shown, line);
        return 1;
    }
    if (h->lines == 0) {
        set_err(err, err_size, path, "bad PLY header: malformed end_header line");
        return 1;
    }
    if (!have_format) {
        set_err(err, err_size, path, "bad PLY header: no format line");
        return 1;
    }
    if (vertex_index < 0) {
        set_err(err, err_size, path, "bad PLY header: no vertex element");
        return 1;
    }
    {
        const ply_element *v = &h->elements[vertex_index];
        int seen[3] = {0, 0, 0};
        for (unsigned k = 0; k < v->nprops; ++k)
            if (v->props[k].axis >= 0)
                seen[v->props[k].axis] = 1;
        if (!seen[0] || !seen[1] || !seen[2]) {
            set_err(err, err_size, path, "bad PLY header: the vertex element lacks property %c",
                    !seen[0] ? 'x' : !seen[1] ? 'y' : 'z');
            return 1;
        }
        if (v->count > FENNS_IO_MAX_POINTS) {
            set_err(err, err_size, path, "too many points (vertex count %llu; at most %u)",
                    (unsigned long long)v->count, FENNS_IO_MAX_POINTS);
            return 1;
        }
    }
    return 0;
}

/* Stores one vertex coordinate; values beyond the float range are errors. */
static int ply_store(const char *path, double value, unsigned long long vertex, float *dst,
                     char *err, size_t err_size)
{
    if (isfinite(value) && fabs(value) > (double)FLT_MAX) {
        set_err(err, err_size, path, "vertex %llu: coordinate %g beyond the float range", vertex, value);
        return 1;
    }
    *dst = (float)value;
    return 0;
}

static int read_ply_binary(const char *path, const unsigned char *buf, size_t size,
                           const ply_header *h, float *xyz, char *err, size_t err_size)
{
    size_t pos = h->data_start;
    for (unsigned e = 0; e < h->nelements; ++e) {
        const ply_element *el = &h->elements[e];
        size_t record = 0;
        size_t offset[3] = {0, 0, 0};
        ply_type type[3] = {PLY_NONE, PLY_NONE, PLY_NONE};

        if (el->has_list) {
            /* Every instance holds at least one count byte, so this loop ends
             * with the data however large the declared count. */
            for (uint64_t k = 0; k < el->count; ++k) {
                for (unsigned q = 0; q < el->nprops; ++q) {
                    const ply_property *p = &el->props[q];
                    size_t item = ply_type_size(p->type);
                    if (p->count_type == PLY_NONE) {
                        if (size - pos < item)
                            goto truncated;
                        pos += item;
                    } else {
                        size_t csize = ply_type_size(p->count_type);
                        double c;
                        if (size - pos < csize)
                            goto truncated;
                        c = ply_load(buf + pos, p->count_type);
                        pos += csize;
                        if (c < 0) {
                            set_err(err, err_size, path, "negative list length in a PLY element");
                            return 1;
                        }
                        if ((double)((size - pos) / item) < c)
                            goto truncated;
                        pos += (size_t)c * item;
                    }
                }
            }
            continue;
        }
        for (unsigned q = 0; q < el->nprops; ++q) {
            const ply_property *p = &el->props[q];
            if (p->axis >= 0) {
                offset[p->axis] = record;
                type[p->axis] = p->type;
            }
            record += ply_type_size(p->type);
        }
        if (record > 0 && el->count > (uint64_t)((size - pos) / record)) {
            if (el->is_vertex) {
                set_err(err, err_size, path,
                        "truncated: %llu vertices of %zu bytes need %llu bytes, %zu follow the header",
                        (unsigned long long)el->count, record,
                        (unsigned long long)el->count * record, size - h->data_start);
                return 1;
            }
            goto truncated;
        }
        if (!el->is_vertex) {
            pos += (size_t)el->count * record;
            continue;
        }
        for (size_t k = 0; k < (size_t)el->count; ++k) {
            const unsigned char *rec = buf + pos + k * record;
            for (int a = 0; a < 3; ++a)
                if (ply_store(path, ply_load(rec + offset[a], type[a]), (unsigned long long)k,
                              &xyz[3 * k + (size_t)a], err, err_size))
                    return 1;
        }
        return 0; /* elements after the vertex element are not needed */
    }
    return 0;
truncated:
    set_err(err, err_size, path, "truncated PLY data before the vertex element");
    return 1;
}

typedef struct ascii_reader {
    const unsigned char *buf;
    size_t pos, size;
    unsigned long long line;
} ascii_reader;

static int ascii_next(ascii_reader *r, token *t)
{
    size_t e;
    while (r->pos < r->size && (is_blank(r->buf[r->pos]) || r->buf[r->pos] == '\n')) {
        if (r->buf[r->pos] == '\n')
            ++r->line;
        ++r->pos;
    }
    if (r->pos >= r->size)
        return 0;
    e = r->pos;
    while (e < r->size && !is_blank(r->buf[e]) && r->buf[e] != '\n')
        ++e;
    t->s = r->buf + r->pos;
    t->n = e - r->pos;
    r->pos = e;
    return 1;
}

static int read_ply_ascii(const char *path, const unsigned char *buf, size_t size,
                          const ply_header *h, float *xyz, char *err, size_t err_size)
{
    ascii_reader r;
    token t;
    char shown[40];
    r.buf = buf;
    r.pos = h->data_start;
    r.size = size;
    r.line = h->lines + 1;
    for (unsigned e = 0; e < h->nelements; ++e) {
        const ply_element *el = &h->elements[e];
        if (el->nprops == 0)
            continue;
        if (el->is_vertex) {
            /* Each vertex needs at least nprops tokens of one byte plus a blank
             * between them: refuse counts the file cannot hold. */
            size_t left = size - r.pos;
            if (el->count > 0 && el->count - 1 > (uint64_t)(left / (2u * el->nprops))) {
                set_err(err, err_size, path,
                        "truncated: the header declares %llu vertices but only %zu bytes follow",
                        (unsigned long long)el->count, left);
                return 1;
            }
        }
        for (uint64_t k = 0; k < el->count; ++k) {
            for (unsigned q = 0; q < el->nprops; ++q) {
                const ply_property *p = &el->props[q];
                if (!ascii_next(&r, &t))
                    goto truncated;
                if (p->count_type != PLY_NONE) {
                    uint64_t items;
                    if (parse_u64(t.s, t.n, &items) != 0) {
                        quote_token(t.s, t.n, shown, sizeof shown);
                        set_err(err, err_size, path, "line %llu: malformed list length '%s'", r.line,
                                shown);
                        return 1;
                    }
                    for (uint64_t i = 0; i < items; ++i)
                        if (!ascii_next(&r, &t))
                            goto truncated;
                    continue;
                }
                if (el->is_vertex && p->axis >= 0) {
                    float v;
                    int res = parse_float(t.s, t.n, &v);
                    if (res != 0) {
                        quote_token(t.s, t.n, shown, sizeof shown);
                        set_err(err, err_size, path, "line %llu: %s '%s'", r.line,
                                res == 1 ? "malformed number" : "number beyond the float range", shown);
                        return 1;
                    }
                    xyz[3 * (size_t)k + (size_t)p->axis] = v;
                }
            }
        }
        if (el->is_vertex)
            return 0;
    }
    return 0;
truncated:
    set_err(err, err_size, path, "truncated: the data ends at line %llu before the last vertex", r.line);
    return 1;
}

static int read_ply(const char *path, const unsigned char *buf, size_t size, float **out_xyz,
                    uint32_t *out_n, char *err, size_t err_size)
{
    ply_header *h = (ply_header *)malloc(sizeof(ply_header));
    const ply_element *vertex = NULL;
    float *xyz;
    size_t n;
    int rc;
    if (!h) {
        set_err(err, err_size, path, "out of memory");
        return 1;
    }
    if (parse_ply_header(path, buf, size, h, err, err_size)) {
        free(h);
        return 1;
    }
    for (unsigned e = 0; e < h->nelements; ++e)
        if (h->elements[e].is_vertex)
            vertex = &h->elements[e];
    n = (size_t)vertex->count; /* <= FENNS_IO_MAX_POINTS, checked by the header */
    /* Refuse counts the file cannot hold before allocating: a binary vertex
     * takes at least 3 bytes, an ascii one at least 6. */
    if (n > (size - h->data_start) / (h->binary ? 3u : 5u) + 1u) {
        set_err(err, err_size, path,
                "truncated: the header declares %zu vertices but only %zu bytes follow", n,
                size - h->data_start);
        free(h);
        return 1;
    }
    xyz = (float *)malloc((n > 0 ? n : 1) * 3 * sizeof(float));
    if (!xyz) {
        set_err(err, err_size, path, "out of memory for %zu points", n);
        free(h);
        return 1;
    }
    rc = h->binary ? read_ply_binary(path, buf, size, h, xyz, err, err_size)
                   : read_ply_ascii(path, buf, size, h, xyz, err, err_size);
    free(h);
    if (rc) {
        free(xyz);
        return 1;
    }
    *out_xyz = xyz;
    *out_n = (uint32_t)n;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Public readers                                                           */
/* ------------------------------------------------------------------------ */

int fenns_io_read_points(const char *path, float **out_xyz, uint32_t *out_n,
                         uint32_t *out_nonfinite, char *err, size_t err_size)
{
    const char *ext;
    unsigned char *buf = NULL;
    size_t size = 0;
    int rc;

    if (err && err_size)
        err[0] = '\0';
    if (out_xyz)
        *out_xyz = NULL;
    if (out_n)
        *out_n = 0;
    if (out_nonfinite)
        *out_nonfinite = 0;
    if (!path || !out_xyz || !out_n) {
        set_err(err, err_size, path ? path : "(null)", "invalid arguments to fenns_io_read_points");
        return 1;
    }
    ext = path_extension(path);
    if (!(ext_is(ext, "f32") || ext_is(ext, "xyz") || ext_is(ext, "txt") || ext_is(ext, "csv") ||
          ext_is(ext, "ply"))) {
        if (*ext)
            set_err(err, err_size, path, "unknown extension '.%s' (expected .f32, .xyz, .txt, .csv or .ply)",
                    ext);
        else
            set_err(err, err_size, path, "no extension to tell the format (.f32, .xyz, .txt, .csv or .ply)");
        return 1;
    }
    if (read_whole_file(path, &buf, &size, err, err_size))
        return 1;
    if (ext_is(ext, "f32")) {
        rc = read_f32(path, buf, size, out_xyz, out_n, err, err_size); /* takes buf */
        buf = NULL;
    } else if (ext_is(ext, "ply")) {
        rc = read_ply(path, buf, size, out_xyz, out_n, err, err_size);
    } else {
        rc = read_text(path, buf, size, ext_is(ext, "csv"), out_xyz, out_n, err, err_size);
    }
    free(buf);
    if (rc) {
        *out_xyz = NULL;
        *out_n = 0;
        return 1;
    }
    if (out_nonfinite)
        *out_nonfinite = count_nonfinite(*out_xyz, *out_n);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* CSR                                                                      */
/* ------------------------------------------------------------------------ */

static const char csr_magic[8] = {'F', 'N', 'N', 'S', 'C', 'S', 'R', '1'};

/* Writes `count` values of `width` bytes each (u32 or u64 arrays) little-endian. */
static int write_le_array(FILE *f, const void *values, size_t count, size_t width)
{
    unsigned char chunk[8192];
    const unsigned char *src = (const unsigned char *)values;
    size_t per = sizeof chunk / width;
    if (host_is_little_endian())
        return fwrite(values, width, count, f) == count ? 0 : 1;
    for (size_t done = 0; done < count;) {
        size_t k = count - done < per ? count - done : per;
        for (size_t i = 0; i < k; ++i) {
            uint64_t v;
            if (width == 8) {
                uint64_t v64;
                memcpy(&v64, src + (done + i) * 8, 8);
                v = v64;
            } else {
                uint32_t v32;
                memcpy(&v32, src + (done + i) * 4, 4);
                v = v32;
            }
            store_le(chunk + i * width, v, width);
        }
        if (fwrite(chunk, width, k, f) != k)
            return 1;
        done += k;
    }
    return 0;
}

static char *append_u64(char *p, uint64_t v)
{
    char digits[20];
    int k = 0;
    do {
        digits[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    while (k > 0)
        *p++ = digits[--k];
    return p;
}

static int write_csr_text(uint64_t n, const uint64_t *offsets, const uint32_t *indices, char *err,
                          size_t err_size)
{
    char buf[1 << 16];
    size_t used = 0;
    for (uint64_t i = 0; i < n; ++i) {
        char *p;
        if (used > sizeof buf - 32) {
            if (fwrite(buf, 1, used, stdout) != used)
                goto fail;
            used = 0;
        }
        p = append_u64(buf + used, i);
        *p++ = ':';
        used = (size_t)(p - buf);
        for (uint64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
            if (used > sizeof buf - 32) {
                if (fwrite(buf, 1, used, stdout) != used)
                    goto fail;
                used = 0;
            }
            p = buf + used;
            *p++ = ' ';
            p = append_u64(p, indices[k]);
            used = (size_t)(p - buf);
        }
        buf[used++] = '\n';
    }
    if (used && fwrite(buf, 1, used, stdout) != used)
        goto fail;
    if (fflush(stdout) != 0)
        goto fail;
    return 0;
fail:
    set_err(err, err_size, "-", "write error on standard output: %s", strerror(errno));
    return 1;
}

int fenns_io_write_csr(const char *path, uint64_t n, const uint64_t *offsets,
                       const uint32_t *indices, char *err, size_t err_size)
{
    unsigned char header[24];
    uint64_t m;
    FILE *f;
    int bad;

    if (err && err_size)
        err[0] = '\0';
    if (!path || !offsets) {
        set_err(err, err_size, path ? path : "(null)", "invalid arguments to fenns_io_write_csr");
        return 1;
    }
    if (n >= (uint64_t)(SIZE_MAX / sizeof(uint64_t))) {
        set_err(err, err_size, path, "particle count %llu too large", (unsigned long long)n);
        return 1;
    }
    if (offsets[0] != 0) {
        set_err(err, err_size, path, "CSR offsets[0] is %llu, not 0", (unsigned long long)offsets[0]);
        return 1;
    }
    for (uint64_t i = 0; i < n; ++i)
        if (offsets[i + 1] < offsets[i]) {
            set_err(err, err_size, path, "CSR offsets decrease at particle %llu", (unsigned long long)i);
            return 1;
        }
    m = offsets[n];
    if (m > 0 && !indices) {
        set_err(err, err_size, path, "CSR has %llu entries but no indices", (unsigned long long)m);
        return 1;
    }
    if (m >= (uint64_t)(SIZE_MAX / sizeof(uint32_t))) {
        set_err(err, err_size, path, "CSR entry count %llu too large", (unsigned long long)m);
        return 1;
    }
    if (strcmp(path, "-") == 0)
        return write_csr_text(n, offsets, indices, err, err_size);

    errno = 0;
    f = fopen(path, "wb");
    if (!f) {
        set_err(err, err_size, path, "cannot open for writing: %s", errno ? strerror(errno) : "unknown error");
        return 1;
    }
    memcpy(header, csr_magic, 8);
    store_le(header + 8, n, 8);
    store_le(header + 16, m, 8);
    bad = fwrite(header, 1, sizeof header, f) != sizeof header;
    bad = bad || write_le_array(f, offsets, (size_t)n + 1, 8);
    bad = bad || (m > 0 && write_le_array(f, indices, (size_t)m, 4));
    if (bad) {
        int e = errno;
        fclose(f);
        set_err(err, err_size, path, "write error: %s", e ? strerror(e) : "unknown error");
        return 1;
    }
    if (fclose(f) != 0) {
        set_err(err, err_size, path, "write error: %s", strerror(errno));
        return 1;
    }
    return 0;
}

/* Reads `count` little-endian values of `width` bytes into dst (u64 or u32 array). */
static int read_le_array(FILE *f, void *dst, size_t count, size_t width)
{
    unsigned char *out = (unsigned char *)dst;
    if (fread(dst, width, count, f) != count)
        return 1;
    if (!host_is_little_endian()) {
        for (size_t i = 0; i < count; ++i) {
            uint64_t v = load_le(out + i * width, width);
            if (width == 8) {
                memcpy(out + i * 8, &v, 8);
            } else {
                uint32_t v32 = (uint32_t)v;
                memcpy(out + i * 4, &v32, 4);
            }
        }
    }
    return 0;
}

int fenns_io_read_csr(const char *path, uint64_t *out_n, uint64_t **out_offsets,
                      uint32_t **out_indices, char *err, size_t err_size)
{
    unsigned char header[24];
    uint64_t n, m, need;
    uint64_t *offsets = NULL;
    uint32_t *indices = NULL;
    long end;
    FILE *f;

    if (err && err_size)
        err[0] = '\0';
    if (!path || !out_n || !out_offsets || !out_indices) {
        set_err(err, err_size, path ? path : "(null)", "invalid arguments to fenns_io_read_csr");
        return 1;
    }
    *out_n = 0;
    *out_offsets = NULL;
    *out_indices = NULL;
    errno = 0;
    f = fopen(path, "rb");
    if (!f) {
        set_err(err, err_size, path, "cannot open: %s", errno ? strerror(errno) : "unknown error");
        return 1;
    }
    errno = 0;
    if (fread(header, 1, sizeof header, f) != sizeof header) {
        int e = errno;
        fclose(f);
        if (e)
            set_err(err, err_size, path, "read error: %s", strerror(e));
        else
            set_err(err, err_size, path, "truncated: shorter than the 24-byte FNNSCSR1 header");
        return 1;
    }
    if (memcmp(header, csr_magic, 8) != 0) {
        fclose(f);
        set_err(err, err_size, path, "not an FNNSCSR1 file (bad magic)");
        return 1;
    }
    n = load_le(header + 8, 8);
    m = load_le(header + 16, 8);
    if (n >= (UINT64_MAX - 24) / 8 - 1 || m >= UINT64_MAX / 4 ||
        (n + 1) * 8 > UINT64_MAX - 24 - m * 4) {
        fclose(f);
        set_err(err, err_size, path, "header sizes overflow (n %llu, m %llu)", (unsigned long long)n,
                (unsigned long long)m);
        return 1;
    }
    need = 24 + (n + 1) * 8 + m * 4;
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0) {
        fclose(f);
        set_err(err, err_size, path, "cannot determine the file size");
        return 1;
    }
    if ((uint64_t)end != need) {
        fclose(f);
        set_err(err, err_size, path, "size %ld bytes, but n %llu and m %llu need %llu (truncated or trailing data)", end,
                (unsigned long long)n, (unsigned long long)m, (unsigned long long)need);
        return 1;
    }
    if (need > SIZE_MAX || fseek(f, 24, SEEK_SET) != 0) {
        fclose(f);
        set_err(err, err_size, path, "file too large");
        return 1;
    }
    offsets = (uint64_t *)malloc(((size_t)n + 1) * sizeof(uint64_t));
    indices = (uint32_t *)malloc((m > 0 ? (size_t)m : 1) * sizeof(uint32_t));
    if (!offsets || !indices) {
        fclose(f);
        free(offsets);
        free(indices);
        set_err(err, err_size, path, "out of memory");
        return 1;
    }
    if (read_le_array(f, offsets, (size_t)n + 1, 8) || (m > 0 && read_le_array(f, indices, (size_t)m, 4))) {
        fclose(f);
        free(offsets);
        free(indices);
        set_err(err, err_size, path, "read error");
        return 1;
    }
    fclose(f);
    if (offsets[0] != 0 || offsets[n] != m) {
        set_err(err, err_size, path, "offsets[0] is %llu and offsets[n] %llu (expected 0 and m = %llu)",
                (unsigned long long)offsets[0], (unsigned long long)offsets[n], (unsigned long long)m);
        goto invalid;
    }
    for (uint64_t i = 0; i < n; ++i)
        if (offsets[i + 1] < offsets[i]) {
            set_err(err, err_size, path, "offsets decrease at particle %llu", (unsigned long long)i);
            goto invalid;
        }
    for (uint64_t k = 0; k < m; ++k)
        if (indices[k] >= n) {
            set_err(err, err_size, path, "index %u at entry %llu is not below n = %llu", indices[k],
                    (unsigned long long)k, (unsigned long long)n);
            goto invalid;
        }
    *out_n = n;
    *out_offsets = offsets;
    *out_indices = indices;
    return 0;
invalid:
    free(offsets);
    free(indices);
    return 1;
}
