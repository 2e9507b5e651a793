/* Workgroup memory of a SPIR-V module (see spirv_shared.h). Modules are
 * small and declare few shared variables, so every lookup scans the words
 * again rather than building id tables (no allocation). */
#include "spirv_shared.h"

enum {
    SPIRV_MAGIC = 0x07230203u,
    OP_DECORATE = 71,
    OP_TYPE_BOOL = 20,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_MATRIX = 24,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_SPEC_CONSTANT = 50,
    OP_VARIABLE = 59,
    DECORATION_SPEC_ID = 1,
    STORAGE_WORKGROUP = 4,
    HEADER_WORDS = 5,
    MAX_DEPTH = 16, /* nested types followed; deeper is refused */
};

typedef struct module {
    const uint32_t *words;
    size_t count;
    const uint32_t *spec;
    uint32_t spec_count;
} module;

/* Where the result id of an instruction sits: word 1 for types, word 2 for
 * constants and variables (after their result type). */
static int result_word(uint32_t op) {
    if (op == OP_CONSTANT || op == OP_SPEC_CONSTANT || op == OP_VARIABLE) return 2;
    if (op >= OP_TYPE_BOOL && op <= OP_TYPE_POINTER) return 1;
    return 0;
}

/* The instruction defining `id` (its word count in *len), or NULL. */
static const uint32_t *definition(const module *m, uint32_t id, uint32_t *len) {
    for (size_t at = HEADER_WORDS; at < m->count;) {
        uint32_t n = m->words[at] >> 16, op = m->words[at] & 0xFFFFu;
        if (n == 0 || at + n > m->count) return NULL;
        int r = result_word(op);
        if (r && (uint32_t)r < n && m->words[at + (uint32_t)r] == id) {
            *len = n;
            return m->words + at;
        }
        at += n;
    }
    return NULL;
}

/* The value of an integer constant, a specialization constant as specialized. */
static uint64_t constant_value(const module *m, uint32_t id) {
    uint32_t n;
    const uint32_t *d = definition(m, id, &n);
    if (!d || n < 4) return FENNS_SPIRV_UNKNOWN;
    uint32_t op = d[0] & 0xFFFFu;
    if (op == OP_CONSTANT) return d[3];
    if (op != OP_SPEC_CONSTANT) return FENNS_SPIRV_UNKNOWN;
    for (size_t at = HEADER_WORDS; at < m->count;) {
        uint32_t k = m->words[at] >> 16;
        if (k == 0 || at + k > m->count) return FENNS_SPIRV_UNKNOWN;
        if ((m->words[at] & 0xFFFFu) == OP_DECORATE && k >= 4 && m->words[at + 1] == id &&
            m->words[at + 2] == DECORATION_SPEC_ID)
            return m->words[at + 3] < m->spec_count ? m->spec[m->words[at + 3]] : d[3];
        at += k;
    }
    return d[3];
}

static uint64_t times(uint64_t a, uint64_t b) {
    if (a == FENNS_SPIRV_UNKNOWN || b == FENNS_SPIRV_UNKNOWN) return FENNS_SPIRV_UNKNOWN;
    if (a != 0 && b > (FENNS_SPIRV_UNKNOWN - 1) / a) return FENNS_SPIRV_UNKNOWN;
    return a * b;
}

static uint64_t type_size(const module *m, uint32_t id, int depth) {
    uint32_t n;
    const uint32_t *d = depth < MAX_DEPTH ? definition(m, id, &n) : NULL;
    if (!d) return FENNS_SPIRV_UNKNOWN;
    switch (d[0] & 0xFFFFu) {
    case OP_TYPE_BOOL: return 4;
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT: return n >= 3 ? d[2] / 8u : FENNS_SPIRV_UNKNOWN;
    case OP_TYPE_VECTOR:
    case OP_TYPE_MATRIX: return n >= 4 ? times(d[3], type_size(m, d[2], depth + 1)) : FENNS_SPIRV_UNKNOWN;
    case OP_TYPE_ARRAY: return n >= 4 ? times(constant_value(m, d[3]), type_size(m, d[2], depth + 1)) : FENNS_SPIRV_UNKNOWN;
    case OP_TYPE_STRUCT: {
        uint64_t sum = 0;
        for (uint32_t k = 2; k < n; ++k) {
            uint64_t s = type_size(m, d[k], depth + 1);
            if (s == FENNS_SPIRV_UNKNOWN || sum + s < sum) return FENNS_SPIRV_UNKNOWN;
            sum += s;
        }
        return sum;
    }
    default: return FENNS_SPIRV_UNKNOWN;
    }
}

uint64_t fenns__spirv_shared_bytes(const uint32_t *words, size_t word_count, const uint32_t *spec,
                                   uint32_t spec_count) {
    if (!words || word_count < HEADER_WORDS || words[0] != SPIRV_MAGIC) return FENNS_SPIRV_UNKNOWN;
    module m = {words, word_count, spec, spec_count};
    uint64_t total = 0;
    for (size_t at = HEADER_WORDS; at < word_count;) {
        uint32_t n = words[at] >> 16;
        if (n == 0 || at + n > word_count) return FENNS_SPIRV_UNKNOWN;
        if ((words[at] & 0xFFFFu) == OP_VARIABLE && n >= 4 && words[at + 3] == STORAGE_WORKGROUP) {
            uint32_t len;
            const uint32_t *pointer = definition(&m, words[at + 1], &len);
            if (!pointer || (pointer[0] & 0xFFFFu) != OP_TYPE_POINTER || len < 4) return FENNS_SPIRV_UNKNOWN;
            uint64_t s = type_size(&m, pointer[3], 0);
            if (s == FENNS_SPIRV_UNKNOWN || total + s < total) return FENNS_SPIRV_UNKNOWN;
            total += s;
        }
        at += n;
    }
    return total;
}
