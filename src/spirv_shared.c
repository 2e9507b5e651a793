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

/* One instruction of the stream: its words, word count and opcode. */
typedef struct instruction {
    const uint32_t *w;
    uint32_t len;
    uint32_t op;
} instruction;

/* The instruction at *at, stepping *at past it; 0 at the end. The stream's
 * word counts are checked once (well_formed) before any walk. */
static int next_instruction(const module *m, size_t *at, instruction *in) {
    if (*at >= m->count) return 0;
    in->w = m->words + *at;
    in->len = in->w[0] >> 16;
    in->op = in->w[0] & 0xFFFFu;
    *at += in->len;
    return 1;
}

/* Whether every instruction's word count is non-zero and ends inside the
 * module (so next_instruction always makes progress and stays in bounds). */
static int well_formed(const module *m) {
    for (size_t at = HEADER_WORDS; at < m->count;) {
        uint32_t n = m->words[at] >> 16;
        if (n == 0 || n > m->count - at) return 0;
        at += n;
    }
    return 1;
}

/* Where the result id of an instruction sits: word 1 for types, word 2 for
 * constants and variables (after their result type). */
static uint32_t result_word(uint32_t op) {
    if (op == OP_CONSTANT || op == OP_SPEC_CONSTANT || op == OP_VARIABLE) return 2;
    if (op >= OP_TYPE_BOOL && op <= OP_TYPE_POINTER) return 1;
    return 0;
}

/* The instruction defining `id`, or 0. */
static int definition(const module *m, uint32_t id, instruction *def) {
    instruction in;
    for (size_t at = HEADER_WORDS; next_instruction(m, &at, &in);) {
        uint32_t r = result_word(in.op);
        if (r && r < in.len && in.w[r] == id) {
            *def = in;
            return 1;
        }
    }
    return 0;
}

/* The value of an integer constant, a specialization constant as specialized. */
static uint64_t constant_value(const module *m, uint32_t id) {
    instruction d, in;
    if (!definition(m, id, &d) || d.len < 4) return FENNS_SPIRV_UNKNOWN;
    if (d.op == OP_CONSTANT) return d.w[3];
    if (d.op != OP_SPEC_CONSTANT) return FENNS_SPIRV_UNKNOWN;
    for (size_t at = HEADER_WORDS; next_instruction(m, &at, &in);)
        if (in.op == OP_DECORATE && in.len >= 4 && in.w[1] == id && in.w[2] == DECORATION_SPEC_ID)
            return in.w[3] < m->spec_count ? m->spec[in.w[3]] : d.w[3];
    return d.w[3];
}

static uint64_t times(uint64_t a, uint64_t b) {
    if (a == FENNS_SPIRV_UNKNOWN || b == FENNS_SPIRV_UNKNOWN) return FENNS_SPIRV_UNKNOWN;
    if (a != 0 && b > (FENNS_SPIRV_UNKNOWN - 1) / a) return FENNS_SPIRV_UNKNOWN;
    return a * b;
}

static uint64_t type_size(const module *m, uint32_t id, int depth) {
    instruction d;
    if (depth >= MAX_DEPTH || !definition(m, id, &d)) return FENNS_SPIRV_UNKNOWN;
    switch (d.op) {
    case OP_TYPE_BOOL: return 4;
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT: return d.len >= 3 ? d.w[2] / 8u : FENNS_SPIRV_UNKNOWN;
    case OP_TYPE_VECTOR:
    case OP_TYPE_MATRIX: return d.len >= 4 ? times(d.w[3], type_size(m, d.w[2], depth + 1)) : FENNS_SPIRV_UNKNOWN;
    case OP_TYPE_ARRAY:
        return d.len >= 4 ? times(constant_value(m, d.w[3]), type_size(m, d.w[2], depth + 1)) : FENNS_SPIRV_UNKNOWN;
    case OP_TYPE_STRUCT: {
        uint64_t sum = 0;
        for (uint32_t k = 2; k < d.len; ++k) {
            uint64_t s = type_size(m, d.w[k], depth + 1);
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
    if (!well_formed(&m)) return FENNS_SPIRV_UNKNOWN;
    uint64_t total = 0;
    instruction in, pointer;
    for (size_t at = HEADER_WORDS; next_instruction(&m, &at, &in);) {
        if (in.op != OP_VARIABLE || in.len < 4 || in.w[3] != STORAGE_WORKGROUP) continue;
        if (!definition(&m, in.w[1], &pointer) || pointer.op != OP_TYPE_POINTER || pointer.len < 4)
            return FENNS_SPIRV_UNKNOWN;
        uint64_t s = type_size(&m, pointer.w[3], 0);
        if (s == FENNS_SPIRV_UNKNOWN || total + s < total) return FENNS_SPIRV_UNKNOWN;
        total += s;
    }
    return total;
}

int fenns__spirv_declares_spec_id(const uint32_t *words, size_t word_count, uint32_t spec_id) {
    if (!words || word_count < HEADER_WORDS || words[0] != SPIRV_MAGIC) return 0;
    module m = {words, word_count, NULL, 0};
    if (!well_formed(&m)) return 0;
    instruction in;
    for (size_t at = HEADER_WORDS; next_instruction(&m, &at, &in);)
        if (in.op == OP_DECORATE && in.len >= 4 && in.w[2] == DECORATION_SPEC_ID && in.w[3] == spec_id) return 1;
    return 0;
}
