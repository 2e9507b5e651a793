/* fenns_kernel_compile: a user kernel spliced into fenns' search template
 * (generated from shaders/search_kernel.comp) and compiled with glslang's C
 * interface. Lives in fenns::glslang, apart from the core library. */
#include <stdlib.h>
#include <string.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include "fenns/fenns_kernel.h"
#include "fenns_kernel_template.h"

static char *copy_string(const char *s) {
    if (!s || !*s) return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* head + `#line 1 "name"` + source + tail: the kernel's messages carry its
 * own name and line numbers, the template's its files'. */
static char *splice(const char *source, const char *name) {
    static const char line_fmt_a[] = "\n#line 1 \"", line_fmt_b[] = "\"\n";
    size_t nh = strlen(fenns_kernel_head), nn = strlen(name), ns = strlen(source), nt = strlen(fenns_kernel_tail);
    size_t total = nh + sizeof line_fmt_a - 1 + nn + sizeof line_fmt_b - 1 + ns + 1 + nt + 1;
    char *text = malloc(total), *at = text;
    if (!text) return NULL;
    memcpy(at, fenns_kernel_head, nh), at += nh;
    memcpy(at, line_fmt_a, sizeof line_fmt_a - 1), at += sizeof line_fmt_a - 1;
    memcpy(at, name, nn), at += nn;
    memcpy(at, line_fmt_b, sizeof line_fmt_b - 1), at += sizeof line_fmt_b - 1;
    memcpy(at, source, ns), at += ns;
    *at++ = '\n';
    memcpy(at, fenns_kernel_tail, nt + 1);
    return text;
}

/* A name safe inside the #line directive's quotes. */
static int name_ok(const char *name) {
    for (const char *c = name; *c; ++c)
        if (*c == '"' || *c == '\\' || *c == '\n' || *c == '\r') return 0;
    return *name != '\0';
}

fenns_result fenns_kernel_compile(const char *source, const char *source_name, fenns_kernel_spirv *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!source || !out) return FENNS_ERROR_INVALID_ARGUMENT;
    const char *name = source_name && name_ok(source_name) ? source_name : "kernel";
    char *text = splice(source, name);
    if (!text) return FENNS_ERROR_OUT_OF_HOST_MEMORY;

    glslang_input_t input = {
        .language = GLSLANG_SOURCE_GLSL,
        .stage = GLSLANG_STAGE_COMPUTE,
        .client = GLSLANG_CLIENT_VULKAN,
        .client_version = GLSLANG_TARGET_VULKAN_1_1,
        .target_language = GLSLANG_TARGET_SPV,
        .target_language_version = GLSLANG_TARGET_SPV_1_3,
        .code = text,
        .default_version = 450,
        .default_profile = GLSLANG_NO_PROFILE,
        .force_default_version_and_profile = 0,
        .forward_compatible = 0,
        .messages = GLSLANG_MSG_DEFAULT_BIT | GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT,
        .resource = glslang_default_resource(),
    };
    fenns_result result = FENNS_ERROR_KERNEL_COMPILE;
    glslang_initialize_process(); /* reference-counted by glslang */
    glslang_shader_t *shader = glslang_shader_create(&input);
    glslang_program_t *program = NULL;
    if (!shader) {
        result = FENNS_ERROR_OUT_OF_HOST_MEMORY;
    } else if (!glslang_shader_preprocess(shader, &input) || !glslang_shader_parse(shader, &input)) {
        out->log = copy_string(glslang_shader_get_info_log(shader));
    } else if (!(program = glslang_program_create())) {
        result = FENNS_ERROR_OUT_OF_HOST_MEMORY;
    } else {
        glslang_program_add_shader(program, shader);
        if (!glslang_program_link(program, (int)input.messages)) {
            out->log = copy_string(glslang_program_get_info_log(program));
        } else {
            glslang_program_SPIRV_generate(program, GLSLANG_STAGE_COMPUTE);
            size_t words = glslang_program_SPIRV_get_size(program);
            out->log = copy_string(glslang_shader_get_info_log(shader)); /* warnings */
            out->code = words ? malloc(words * sizeof *out->code) : NULL;
            if (out->code) {
                glslang_program_SPIRV_get(program, out->code);
                out->size = words * sizeof *out->code;
                result = FENNS_SUCCESS;
            } else {
                result = FENNS_ERROR_OUT_OF_HOST_MEMORY;
            }
        }
    }
    if (program) glslang_program_delete(program);
    if (shader) glslang_shader_delete(shader);
    glslang_finalize_process();
    free(text);
    return result;
}

void fenns_kernel_spirv_free(fenns_kernel_spirv *spirv) {
    if (!spirv) return;
    free(spirv->code);
    free(spirv->log);
    memset(spirv, 0, sizeof *spirv);
}
