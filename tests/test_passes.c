/*
 * Frame-graph recording: fenns_get_*_passes, fenns_cmd_*_pass and the debug
 * labels, against what is actually recorded; and fenns_cmd_reorder.
 *
 * Every vkCmd* fenns records goes through a logging wrapper of the
 * context's function table (the commands still reach lavapipe), and the
 * VK_EXT_debug_utils functions are stubs that only log. For both methods,
 * both domain modes and every output shape:
 *  - the all-in-one calls record "fenns: build"/"fenns: search" around one
 *    label per listed pass, in the listed order, each with commands in it,
 *    and exactly one barrier between consecutive passes (passes of several
 *    dispatches have their own barriers inside);
 *  - fenns_cmd_*_pass(k) records exactly the commands of pass k's label,
 *    and no barrier around them;
 *  - every buffer a pass binds, fills, copies or reads its dispatch from
 *    lies inside a range the pass declares with that kind of access;
 *  - recorded pass by pass with only the barriers a frame graph derives
 *    from the declared accesses, under synchronization validation, the
 *    outputs equal the all-in-one run's bit for bit and the CPU reference;
 *  - every pipeline is named "fenns: <pass>"; without debug_utils nothing
 *    is labelled or named; bad pass indices and infos are refused by name;
 *  - point sets: a build on another build's grid and a search among another
 *    build's particles bind only what their passes declare (the grid
 *    source, the candidates);
 *  - fenns_cmd_reorder moves attributes of 12 and 20 bytes to the sorted
 *    order (out of place and in place) and back, exactly by the build's
 *    permutation, and refuses bad strides, directions, overlaps, sizes,
 *    offsets, temps and a null info.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_test.h"
#include "reference.h"

/* CHECK as an expression: reports, counts, and gives the condition back. */
static int expect_(int cond, int line, const char *format, ...) {
    if (cond) return 1;
    va_list args;
    va_start(args, format);
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, line);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    ++failures;
    return 0;
}
#define EXPECT(cond, ...) expect_((cond) != 0, __LINE__, __VA_ARGS__)

/* FNV-1a of the push constants, so the log tells two recordings apart. */
static uint32_t hash_bytes(const void *data, uint32_t size) {
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < size; ++i) h = (h ^ ((const uint8_t *)data)[i]) * 16777619u;
    return h;
}

/* ---- the log of recorded commands ---------------------------------------- */

typedef enum { EV_LABEL_BEGIN, EV_LABEL_END, EV_BARRIER, EV_COMMAND, EV_BUFFER } event_kind;
typedef struct event {
    event_kind kind;
    char text[96];           /* label name, or the command with its arguments */
    VkBuffer buffer;         /* EV_BUFFER: a buffer range the command uses */
    VkDeviceSize offset, size;
    VkAccessFlags access;    /* EV_BUFFER: SHADER_READ|WRITE (descriptor), TRANSFER_*, INDIRECT_COMMAND_READ */
} event;

static struct {
    event events[65536]; /* lists in small windows (FENNS_LIST_WINDOW_LOG2=12) record thousands */
    uint32_t count;
    int overflow;
    uint32_t names;          /* pipelines named "fenns: ..." */
    uint32_t bad_names;
    VkPipeline bound;
} rec;

static PFN_vkGetDeviceProcAddr real_gdpa;
static PFN_vkGetInstanceProcAddr real_gipa;
static VkDevice real_device;
#define REAL(name) ((PFN_##name)real_gdpa(real_device, #name))

/* Starts the log afresh for a recording whose commands are checked (what
 * was recorded before, unchecked, may have filled it). */
static void log_restart(void) {
    rec.count = 0;
    rec.overflow = 0;
}

static event *log_event(event_kind kind, const char *format, ...) {
    if (rec.count >= sizeof rec.events / sizeof rec.events[0]) {
        rec.overflow = 1;
        return &rec.events[0];
    }
    event *e = &rec.events[rec.count++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    va_list args;
    va_start(args, format);
    vsnprintf(e->text, sizeof e->text, format, args);
    va_end(args);
    return e;
}

static void log_buffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, VkAccessFlags access) {
    event *e = log_event(EV_BUFFER, "buffer");
    e->buffer = buffer;
    e->offset = offset;
    e->size = size;
    e->access = access;
}

static VKAPI_ATTR void VKAPI_CALL w_bind_pipeline(VkCommandBuffer cmd, VkPipelineBindPoint point, VkPipeline pipeline) {
    rec.bound = pipeline;
    log_event(EV_COMMAND, "bind pipeline %p", (void *)pipeline);
    REAL(vkCmdBindPipeline)(cmd, point, pipeline);
}
/* A pass's descriptors, pushed or in a set: logged the same way either way. */
static void log_descriptors(uint32_t set, uint32_t count, const VkDescriptorBufferInfo *const *infos) {
    log_event(EV_COMMAND, "descriptors set %u count %u", set, count);
    for (uint32_t i = 0; i < count; ++i)
        log_buffer(infos[i]->buffer, infos[i]->offset, infos[i]->range, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}
static VKAPI_ATTR void VKAPI_CALL w_push_descriptors(VkCommandBuffer cmd, VkPipelineBindPoint point, VkPipelineLayout layout,
                                                    uint32_t set, uint32_t count, const VkWriteDescriptorSet *writes) {
    const VkDescriptorBufferInfo *infos[32];
    for (uint32_t i = 0; i < count && i < 32u; ++i) infos[i] = writes[i].pBufferInfo;
    log_descriptors(set, count < 32u ? count : 32u, infos);
    REAL(vkCmdPushDescriptorSetKHR)(cmd, point, layout, set, count, writes);
}

/* The descriptor-set path: what each set was written with, logged when it is bound. */
static struct written_set {
    VkDescriptorSet set;
    uint32_t count;
    VkDescriptorBufferInfo infos[32];
} written[64];
static uint32_t written_next;
static VKAPI_ATTR void VKAPI_CALL w_update_sets(VkDevice device, uint32_t count, const VkWriteDescriptorSet *writes,
                                               uint32_t copy_count, const VkCopyDescriptorSet *copies) {
    VkDescriptorSet set = count ? writes[0].dstSet : VK_NULL_HANDLE;
    for (uint32_t k = 0; k < 64u; ++k) /* a set handed out again after a reset */
        if (written[k].set == set) written[k].set = VK_NULL_HANDLE;
    struct written_set *w = &written[written_next++ % 64u];
    w->set = set;
    w->count = 0;
    for (uint32_t i = 0; i < count && w->count < 32u; ++i) w->infos[w->count++] = *writes[i].pBufferInfo;
    REAL(vkUpdateDescriptorSets)(device, count, writes, copy_count, copies);
}
static VKAPI_ATTR void VKAPI_CALL w_push_constants(VkCommandBuffer cmd, VkPipelineLayout layout, VkShaderStageFlags stages,
                                                  uint32_t offset, uint32_t size, const void *values) {
    log_event(EV_COMMAND, "push constants %u bytes, hash %08x", size, hash_bytes(values, size));
    REAL(vkCmdPushConstants)(cmd, layout, stages, offset, size, values);
}
static VKAPI_ATTR void VKAPI_CALL w_dispatch(VkCommandBuffer cmd, uint32_t x, uint32_t y, uint32_t z) {
    log_event(EV_COMMAND, "dispatch %u %u %u", x, y, z);
    REAL(vkCmdDispatch)(cmd, x, y, z);
}
static VKAPI_ATTR void VKAPI_CALL w_dispatch_indirect(VkCommandBuffer cmd, VkBuffer buffer, VkDeviceSize offset) {
    log_event(EV_COMMAND, "dispatch indirect at %llu", (unsigned long long)offset);
    log_buffer(buffer, offset, 12u, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    REAL(vkCmdDispatchIndirect)(cmd, buffer, offset);
}
static VKAPI_ATTR void VKAPI_CALL w_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                                           VkDependencyFlags flags, uint32_t memory_count, const VkMemoryBarrier *memory,
                                           uint32_t buffer_count, const VkBufferMemoryBarrier *buffers,
                                           uint32_t image_count, const VkImageMemoryBarrier *images) {
    log_event(EV_BARRIER, "barrier");
    REAL(vkCmdPipelineBarrier)(cmd, src, dst, flags, memory_count, memory, buffer_count, buffers, image_count, images);
}
static VKAPI_ATTR void VKAPI_CALL w_fill(VkCommandBuffer cmd, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                        uint32_t value) {
    log_event(EV_COMMAND, "fill %llu bytes at %llu with %08x", (unsigned long long)size, (unsigned long long)offset, value);
    log_buffer(buffer, offset, size, VK_ACCESS_TRANSFER_WRITE_BIT);
    REAL(vkCmdFillBuffer)(cmd, buffer, offset, size, value);
}
static VKAPI_ATTR void VKAPI_CALL w_copy(VkCommandBuffer cmd, VkBuffer src, VkBuffer dst, uint32_t count,
                                        const VkBufferCopy *regions) {
    log_event(EV_COMMAND, "copy %u regions", count);
    for (uint32_t i = 0; i < count; ++i) {
        log_buffer(src, regions[i].srcOffset, regions[i].size, VK_ACCESS_TRANSFER_READ_BIT);
        log_buffer(dst, regions[i].dstOffset, regions[i].size, VK_ACCESS_TRANSFER_WRITE_BIT);
    }
    REAL(vkCmdCopyBuffer)(cmd, src, dst, count, regions);
}
static VKAPI_ATTR void VKAPI_CALL w_bind_sets(VkCommandBuffer cmd, VkPipelineBindPoint point, VkPipelineLayout layout,
                                             uint32_t first, uint32_t count, const VkDescriptorSet *sets,
                                             uint32_t dynamic_count, const uint32_t *dynamic_offsets) {
    log_event(EV_COMMAND, "bind descriptor sets %u+%u", first, count);
    for (uint32_t k = 0; first == 0 && count > 0 && k < 64u; ++k)
        if (written[k].set == sets[0]) {
            const VkDescriptorBufferInfo *infos[32];
            for (uint32_t i = 0; i < written[k].count; ++i) infos[i] = &written[k].infos[i];
            log_descriptors(0, written[k].count, infos);
            break;
        }
    REAL(vkCmdBindDescriptorSets)(cmd, point, layout, first, count, sets, dynamic_count, dynamic_offsets);
}
static VKAPI_ATTR void VKAPI_CALL w_timestamp(VkCommandBuffer cmd, VkPipelineStageFlagBits stage, VkQueryPool pool,
                                             uint32_t query) {
    log_event(EV_COMMAND, "timestamp %u", query);
    REAL(vkCmdWriteTimestamp)(cmd, stage, pool, query);
}

/* VK_EXT_debug_utils stubs: logged, not forwarded. */
static VKAPI_ATTR void VKAPI_CALL s_label_begin(VkCommandBuffer cmd, const VkDebugUtilsLabelEXT *label) {
    (void)cmd;
    log_event(EV_LABEL_BEGIN, "%s", label->pLabelName);
}
static VKAPI_ATTR void VKAPI_CALL s_label_end(VkCommandBuffer cmd) {
    (void)cmd;
    log_event(EV_LABEL_END, "end");
}
static VKAPI_ATTR VkResult VKAPI_CALL s_object_name(VkDevice device, const VkDebugUtilsObjectNameInfoEXT *info) {
    (void)device;
    if (info->objectType == VK_OBJECT_TYPE_PIPELINE && info->pObjectName && !strncmp(info->pObjectName, "fenns: ", 7))
        ++rec.names;
    else
        ++rec.bad_names;
    return VK_SUCCESS;
}

static int debug_stubs_missing; /* 1: the instance "lacks" VK_EXT_debug_utils */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL logging_gdpa(VkDevice device, const char *name) {
#define WRAP_(vk_name, fn) \
    if (!strcmp(name, #vk_name)) return (PFN_vkVoidFunction)fn;
    WRAP_(vkCmdBindPipeline, w_bind_pipeline)
    if (!strcmp(name, "vkCmdPushDescriptorSetKHR")) /* only where the device has it enabled */
        return real_gdpa(device, name) ? (PFN_vkVoidFunction)w_push_descriptors : NULL;
    WRAP_(vkUpdateDescriptorSets, w_update_sets)
    WRAP_(vkCmdPushConstants, w_push_constants)
    WRAP_(vkCmdDispatch, w_dispatch)
    WRAP_(vkCmdDispatchIndirect, w_dispatch_indirect)
    WRAP_(vkCmdPipelineBarrier, w_barrier)
    WRAP_(vkCmdFillBuffer, w_fill)
    WRAP_(vkCmdCopyBuffer, w_copy)
    WRAP_(vkCmdBindDescriptorSets, w_bind_sets)
    WRAP_(vkCmdWriteTimestamp, w_timestamp)
#undef WRAP_
    return real_gdpa(device, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL logging_gipa(VkInstance instance, const char *name) {
    if (!strcmp(name, "vkCmdBeginDebugUtilsLabelEXT")) return debug_stubs_missing ? NULL : (PFN_vkVoidFunction)s_label_begin;
    if (!strcmp(name, "vkCmdEndDebugUtilsLabelEXT")) return debug_stubs_missing ? NULL : (PFN_vkVoidFunction)s_label_end;
    if (!strcmp(name, "vkSetDebugUtilsObjectNameEXT")) return debug_stubs_missing ? NULL : (PFN_vkVoidFunction)s_object_name;
    return real_gipa(instance, name);
}

/* ---- the checks on the log ------------------------------------------------ */

/* Whether [offset, offset+size) of buffer lies inside a range the pass
 * declares with an access of `kind`. */
static int declared(const fenns_pass_info *pass, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                    VkAccessFlags kind) {
    for (uint32_t a = 0; a < pass->access_count; ++a) {
        const fenns_pass_access *x = &pass->accesses[a];
        if (x->range.buffer == buffer && offset >= x->range.offset && offset + size <= x->range.offset + x->range.range &&
            (x->accesses & kind))
            return 1;
    }
    return 0;
}

/* Checks one all-in-one recording (rec.events from `first`) against its pass
 * list: the outer label, one label per pass in order with commands and
 * declared buffers only, one barrier between passes. Returns the index of
 * each pass's label begin in begins[] (and of the matching end in ends[]). */
static int check_structure(const char *what, uint32_t first, const char *outer, const fenns_pass_info *passes,
                           uint32_t count, uint32_t *begins, uint32_t *ends) {
    int ok = 1;
    uint32_t i = first, k = 0;
    EXPECT(i < rec.count && rec.events[i].kind == EV_LABEL_BEGIN && !strcmp(rec.events[i].text, outer),
          "%s: starts with the label '%s'", what, outer);
    ++i;
    while (i < rec.count && k < count) {
        const event *e = &rec.events[i];
        if (e->kind == EV_COMMAND && !strncmp(e->text, "timestamp", 9)) { ++i; continue; }
        char want[64];
        snprintf(want, sizeof want, "fenns: %s", passes[k].name);
        if (!EXPECT(e->kind == EV_LABEL_BEGIN && !strcmp(e->text, want), "%s: event %u is '%s', want the label '%s'", what,
                   i - first, e->text, want))
            return 0;
        begins[k] = i++;
        uint32_t commands = 0;
        int dispatched = 0; /* a dispatch since the pass's last barrier */
        for (; i < rec.count && rec.events[i].kind != EV_LABEL_END; ++i) {
            const event *c = &rec.events[i];
            if (c->kind == EV_COMMAND) ++commands;
            /* Every dispatch of a pass writes its status block at least as far
             * as validation can tell, so two in a row need a barrier between:
             * checked here, as synchronization validation (1.3.239) did not
             * flag two dispatches of one pipeline without one (session 53). */
            if (c->kind == EV_BARRIER) dispatched = 0;
            if (c->kind == EV_COMMAND && !strncmp(c->text, "dispatch", 8)) {
                ok &= EXPECT(!dispatched, "%s: pass '%s' records two dispatches with no barrier between", what,
                             passes[k].name);
                dispatched = 1;
            }
            if (c->kind == EV_LABEL_BEGIN) ok &= EXPECT(0, "%s: a label inside pass '%s'", what, passes[k].name);
            if (c->kind == EV_BUFFER && !declared(&passes[k], c->buffer, c->offset, c->size, c->access))
                ok &= EXPECT(0, "%s: pass '%s' uses [%llu, +%llu) of a buffer it does not declare (access %x)", what,
                            passes[k].name, (unsigned long long)c->offset, (unsigned long long)c->size, c->access);
        }
        ok &= EXPECT(commands > 0, "%s: pass '%s' records no command", what, passes[k].name);
        ends[k] = i++;
        uint32_t barriers = 0;
        while (i < rec.count && (rec.events[i].kind == EV_BARRIER ||
                                 (rec.events[i].kind == EV_COMMAND && !strncmp(rec.events[i].text, "timestamp", 9))))
            barriers += rec.events[i++].kind == EV_BARRIER;
        ok &= EXPECT(barriers == (k + 1 < count ? 1u : 0u), "%s: %u barriers after pass '%s'", what, barriers,
                    passes[k].name);
        ++k;
    }
    ok &= EXPECT(k == count, "%s: %u of %u passes recorded", what, k, count);
    ok &= EXPECT(i < rec.count && rec.events[i].kind == EV_LABEL_END && i + 1 == rec.count, "%s: the outer label ends last",
                what);
    return ok;
}

/* Whether the commands of pass k recorded alone (events from `first`) are
 * those of the all-in-one recording's pass k. */
static int same_commands(const char *what, const char *name, uint32_t begin, uint32_t end, uint32_t first) {
    uint32_t i = first, j = begin;
    for (;;) {
        while (i < rec.count && rec.events[i].kind == EV_COMMAND && !strncmp(rec.events[i].text, "timestamp", 9)) ++i;
        if (j > end || i >= rec.count) break;
        const event *a = &rec.events[j], *b = &rec.events[i];
        if (a->kind != b->kind || strcmp(a->text, b->text) || a->buffer != b->buffer || a->offset != b->offset ||
            a->size != b->size)
            return EXPECT(0, "%s: pass '%s' alone records '%s' where the sequence has '%s'", what, name, b->text, a->text);
        ++i;
        ++j;
    }
    return EXPECT(j == end + 1 && i == rec.count, "%s: pass '%s' alone records %u events, in the sequence %u", what, name,
                 rec.count - first, end + 1 - begin);
}

/* ---- a frame graph in miniature ------------------------------------------- */

/* Per resource: every write so far (a pass may write part of a range, so
 * a later write does not supersede an earlier one), and the stages that
 * read since the last write. */
typedef struct resource_state {
    VkPipelineStageFlags write_stages, read_stages;
    VkAccessFlags write_accesses;
} resource_state;

#define WRITES (VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT)

/* The barrier before `pass` that its accesses need after what came before
 * (read after write, write after write, write after read), as a frame graph
 * would derive it from the pass lists alone. */
static void graph_barrier(VkCommandBuffer cmd, resource_state *state, const fenns_pass_info *pass) {
    VkPipelineStageFlags src = 0, dst = 0;
    VkAccessFlags src_access = 0, dst_access = 0;
    for (uint32_t a = 0; a < pass->access_count; ++a) {
        const fenns_pass_access *x = &pass->accesses[a];
        resource_state *s = &state[x->resource];
        if (s->write_stages) {
            src |= s->write_stages;
            src_access |= s->write_accesses;
            dst |= x->stages;
            dst_access |= x->accesses;
        }
        if ((x->accesses & WRITES) && s->read_stages) {
            src |= s->read_stages;
            dst |= x->stages;
        }
    }
    for (uint32_t a = 0; a < pass->access_count; ++a) {
        const fenns_pass_access *x = &pass->accesses[a];
        resource_state *s = &state[x->resource];
        if (x->accesses & WRITES) {
            s->write_stages |= x->stages;
            s->write_accesses |= x->accesses & WRITES;
            s->read_stages = 0;
        } else {
            s->read_stages |= x->stages;
        }
    }
    if (!src) return;
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access,
                               .dstAccessMask = dst_access};
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* ---- the cases ------------------------------------------------------------ */

typedef struct outputs {
    fenns_test_buffer counts, offsets, indices, sorted_to_original, status;
} outputs;

enum { N = 3000 };
static const float RADIUS = 0.09f;

typedef struct search_case {
    const char *name;
    fenns_output_flags outputs;
    uint32_t fixed_capacity;
    int count_first; /* a COUNTS search first (COUNTS_READY) */
} search_case;

static const search_case search_cases[] = {
    {"counts", FENNS_OUTPUT_COUNTS, 0, 0},
    {"csr", FENNS_OUTPUT_CSR, 0, 0},
    {"csr sorted lists", FENNS_OUTPUT_CSR | FENNS_OUTPUT_SORTED_LISTS, 0, 0},
    {"csr counts ready", FENNS_OUTPUT_CSR | FENNS_OUTPUT_COUNTS_READY | FENNS_OUTPUT_SORTED_LISTS, 0, 1},
    {"fixed", FENNS_OUTPUT_FIXED, 64, 0},
    {"sorted order csr", FENNS_OUTPUT_SORTED_ORDER | FENNS_OUTPUT_CSR, 0, 0},
};

typedef struct setup {
    fenns_test_gpu *g;
    fenns_pipeline pipe;
    fenns_test_buffer positions, scratch;
    uint32_t n;
} setup;

/* The N points into s->positions as vec4 (w = 0); 1 on success. */
static int upload_positions(setup *s, const float *xyz) {
    float *vec4 = malloc(16u * N);
    if (!vec4) return 0;
    for (uint32_t i = 0; i < N; ++i) {
        memcpy(vec4 + 4 * i, xyz + 3 * i, 12);
        vec4[4 * i + 3] = 0.0f;
    }
    int ok = fenns_test_upload(s->g, &s->positions, 0, vec4, 16u * N) == VK_SUCCESS;
    free(vec4);
    return ok;
}

/* The tests' pipeline: `method` at RADIUS for N particles. */
static fenns_pipeline_create_info pipeline_info(fenns_method method) {
    fenns_pipeline_create_info pi = {0};
    pi.method = method;
    pi.radius = RADIUS;
    pi.max_particles = N;
    return pi;
}

/* Frees a setup's buffers and pipeline (any of them may be null). */
static void setup_free(setup *s) {
    fenns_test_buffer_destroy(s->g, &s->positions);
    fenns_test_buffer_destroy(s->g, &s->scratch);
    fenns_pipeline_destroy(s->pipe);
}

static fenns_descriptor_arena arena; /* the test device's (fenns_test_gpu.arena) */

static fenns_build_info build_info(const setup *s) {
    fenns_build_info b = {0};
    b.descriptors = arena;
    b.particle_count = s->n;
    b.positions = fenns_test_range(&s->positions, 0, VK_WHOLE_SIZE);
    b.scratch = fenns_test_range(&s->scratch, 0, VK_WHOLE_SIZE);
    return b;
}

static fenns_search_info search_info(const setup *s, const search_case *c, const outputs *o, int counting) {
    fenns_search_info info = {0};
    info.descriptors = arena;
    info.particle_count = s->n;
    info.positions = fenns_test_range(&s->positions, 0, VK_WHOLE_SIZE);
    info.scratch = fenns_test_range(&s->scratch, 0, VK_WHOLE_SIZE);
    info.outputs = counting ? (FENNS_OUTPUT_COUNTS | (c->outputs & FENNS_OUTPUT_SORTED_ORDER)) : c->outputs;
    info.counts = fenns_test_range(&o->counts, 0, VK_WHOLE_SIZE);
    info.offsets = fenns_test_range(&o->offsets, 0, VK_WHOLE_SIZE);
    info.indices = fenns_test_range(&o->indices, 0, VK_WHOLE_SIZE);
    info.fixed_capacity = c->fixed_capacity;
    if (c->outputs & FENNS_OUTPUT_SORTED_ORDER) info.sorted_to_original = fenns_test_range(&o->sorted_to_original, 0, VK_WHOLE_SIZE);
    return info;
}

/* Records build + search (+ the counting search first) all in one, or pass by
 * pass with graph barriers; submits; downloads the outputs into `bytes`. */
static int run_case(setup *s, const search_case *c, outputs *o, int by_pass, uint8_t *bytes, size_t *size) {
    fenns_test_gpu *g = s->g;
    VkCommandBuffer cmd;
    if (fenns_test_begin(g, &cmd) != VK_SUCCESS) return 0;
    vkCmdFillBuffer(cmd, o->indices.buffer, 0, VK_WHOLE_SIZE, 0xEEEEEEEEu);
    vkCmdFillBuffer(cmd, o->counts.buffer, 0, VK_WHOLE_SIZE, 0xEEEEEEEEu);
    fenns_test_cmd_barrier(cmd);
    fenns_build_info b = build_info(s);
    fenns_search_info first = search_info(s, c, o, 1), second = search_info(s, c, o, 0);
    if (!by_pass) {
        fenns_cmd_build(cmd, s->pipe, &b);
        fenns_cmd_build_to_search_barrier(cmd, s->pipe);
        if (c->count_first) {
            fenns_cmd_search(cmd, s->pipe, &first);
            fenns_test_cmd_barrier(cmd);
        }
        fenns_cmd_search(cmd, s->pipe, &second);
    } else {
        /* Everything before (the fills, the caller's positions) is covered by
         * the test's full barrier above; from here on only graph barriers. */
        resource_state state[8] = {{0}};
        fenns_pass_info passes[FENNS_MAX_PASSES];
        uint32_t count = fenns_get_build_passes(s->pipe, &b, passes);
        for (uint32_t k = 0; k < count; ++k) {
            graph_barrier(cmd, state, &passes[k]);
            fenns_cmd_build_pass(cmd, s->pipe, &b, k);
        }
        for (int part = c->count_first ? 0 : 1; part < 2; ++part) {
            const fenns_search_info *info = part ? &second : &first;
            count = fenns_get_search_passes(s->pipe, info, passes);
            for (uint32_t k = 0; k < count; ++k) {
                graph_barrier(cmd, state, &passes[k]);
                fenns_cmd_search_pass(cmd, s->pipe, info, k);
            }
        }
    }
    fenns_test_cmd_barrier(cmd);
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(s->pipe, s->n, &layout);
    VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, s->scratch.buffer, o->status.buffer, 1, &status);
    fenns_test_cmd_barrier(cmd);
    if (fenns_test_submit(g, cmd) != VK_SUCCESS) return 0;
    size_t at = 0;
    const fenns_test_buffer *parts[5] = {&o->counts, &o->offsets, &o->indices, &o->sorted_to_original, &o->status};
    for (int p = 0; p < 5; ++p) {
        if (fenns_test_download(g, parts[p], 0, bytes + at, parts[p]->size) != VK_SUCCESS) return 0;
        at += parts[p]->size;
    }
    *size = at;
    return 1;
}

/* The record-only checks of one configuration. */
static int check_recording(setup *s, const search_case *c, outputs *o, const char *what) {
    int ok = 1;
    fenns_test_gpu *g = s->g;
    fenns_build_info b = build_info(s);
    fenns_search_info info = search_info(s, c, o, 0);
    for (int which = 0; which < 2; ++which) {
        fenns_pass_info passes[FENNS_MAX_PASSES];
        uint32_t count = which ? fenns_get_search_passes(s->pipe, &info, passes) : fenns_get_build_passes(s->pipe, &b, passes);
        if (!EXPECT(count > 0 && count <= FENNS_MAX_PASSES, "%s: %u passes listed", what, count)) return 0;
        VkCommandBuffer cmd;
        if (fenns_test_begin(g, &cmd) != VK_SUCCESS) return 0;
        log_restart();
        if (which) fenns_cmd_search(cmd, s->pipe, &info);
        else fenns_cmd_build(cmd, s->pipe, &b);
        uint32_t begins[FENNS_MAX_PASSES], ends[FENNS_MAX_PASSES];
        uint32_t sequence_end = rec.count;
        char label[256];
        snprintf(label, sizeof label, "%s %s", what, which ? "search" : "build");
        ok &= check_structure(label, 0, which ? "fenns: search" : "fenns: build", passes, count, begins, ends);
        /* Each pass alone in a command buffer of its own (recorded back to
         * back without barriers they would be hazards, and synchronization
         * validation checks at record time). */
        for (uint32_t k = 0; ok && k < count; ++k) {
            VkCommandBuffer alone;
            if (fenns_test_begin(g, &alone) != VK_SUCCESS) return 0;
            uint32_t first = rec.count;
            if (which) fenns_cmd_search_pass(alone, s->pipe, &info, k);
            else fenns_cmd_build_pass(alone, s->pipe, &b, k);
            ok &= same_commands(label, passes[k].name, begins[k], ends[k], first);
            vkEndCommandBuffer(alone);
            vkFreeCommandBuffers(g->device, g->command_pool, 1, &alone);
        }
        (void)sequence_end;
        /* Past the list: refused by name, nothing recorded. */
        uint32_t before = rec.count, errors = g->error_messages;
        g->quiet = 1;
        if (which) fenns_cmd_search_pass(cmd, s->pipe, &info, count);
        else fenns_cmd_build_pass(cmd, s->pipe, &b, count);
        g->quiet = 0;
        ok &= EXPECT(rec.count == before && g->error_messages == errors + 1, "%s: pass %u past the list is refused", label,
                    count);
        g->error_messages = errors;
        vkEndCommandBuffer(cmd);
        vkFreeCommandBuffers(g->device, g->command_pool, 1, &cmd);
        ok &= EXPECT(!rec.overflow, "%s: the log overflowed", label);
    }
    return ok;
}

/* Point sets (fenns): a build of the same positions into `peer` on the
 * setup's grid, and the setup's particles searched among the peer's (CSR):
 * the recorded bindings lie in the declared ranges, which name the grid
 * source and the candidates. */
static int check_point_set_recording(setup *s, const fenns_test_buffer *peer, outputs *o, const char *what) {
    fenns_test_gpu *g = s->g;
    fenns_build_info b = build_info(s);
    b.scratch = fenns_test_range(peer, 0, VK_WHOLE_SIZE);
    b.grid_source = fenns_test_range(&s->scratch, 0, VK_WHOLE_SIZE);
    fenns_search_info info = search_info(s, &search_cases[1], o, 0);
    info.candidate_count = s->n;
    info.candidate_scratch = b.scratch;
    int ok = 1;
    for (int which = 0; ok && which < 2; ++which) {
        fenns_pass_info passes[FENNS_MAX_PASSES];
        uint32_t count = which ? fenns_get_search_passes(s->pipe, &info, passes) : fenns_get_build_passes(s->pipe, &b, passes);
        fenns_resource named = which ? FENNS_RESOURCE_CANDIDATE_SCRATCH : FENNS_RESOURCE_GRID_SOURCE;
        uint32_t naming = 0;
        for (uint32_t k = 0; k < count; ++k)
            for (uint32_t a = 0; a < passes[k].access_count; ++a) naming += passes[k].accesses[a].resource == named;
        VkCommandBuffer cmd;
        if (!EXPECT(count > 0 && naming > 0, "%s: %u passes, %u name the %s", what, count, naming,
                    which ? "candidates" : "grid source") ||
            fenns_test_begin(g, &cmd) != VK_SUCCESS)
            return 0;
        log_restart();
        if (which) fenns_cmd_search(cmd, s->pipe, &info);
        else fenns_cmd_build(cmd, s->pipe, &b);
        uint32_t begins[FENNS_MAX_PASSES], ends[FENNS_MAX_PASSES];
        char label[256];
        snprintf(label, sizeof label, "%s, point sets %s", what, which ? "search" : "build");
        ok &= check_structure(label, 0, which ? "fenns: search" : "fenns: build", passes, count, begins, ends);
        ok &= EXPECT(!rec.overflow, "%s: the log overflowed", label);
        vkEndCommandBuffer(cmd);
        vkFreeCommandBuffers(g->device, g->command_pool, 1, &cmd);
    }
    if (ok) printf("ok   %s, point sets: recorded bindings within the declared ranges\n", what);
    return ok;
}

static int buffers_create(fenns_test_gpu *g, uint32_t n, outputs *o) {
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    return fenns_test_buffer_create(g, 4u * n, storage, FENNS_TEST_DEVICE_LOCAL, &o->counts) == VK_SUCCESS &&
           fenns_test_buffer_create(g, 8u * (n + 1u), storage, FENNS_TEST_DEVICE_LOCAL, &o->offsets) == VK_SUCCESS &&
           fenns_test_buffer_create(g, 4u * 64u * n, storage, FENNS_TEST_DEVICE_LOCAL, &o->indices) == VK_SUCCESS &&
           fenns_test_buffer_create(g, 4u * n, storage, FENNS_TEST_DEVICE_LOCAL, &o->sorted_to_original) == VK_SUCCESS &&
           fenns_test_buffer_create(g, sizeof(fenns_status), storage, FENNS_TEST_DEVICE_LOCAL, &o->status) == VK_SUCCESS;
}

static void buffers_destroy(fenns_test_gpu *g, outputs *o) {
    fenns_test_buffer_destroy(g, &o->counts);
    fenns_test_buffer_destroy(g, &o->offsets);
    fenns_test_buffer_destroy(g, &o->indices);
    fenns_test_buffer_destroy(g, &o->sorted_to_original);
    fenns_test_buffer_destroy(g, &o->status);
}

/* The CSR of a "csr sorted lists" run against the CPU reference. */
static int check_reference(const float *xyz, uint32_t n, const uint8_t *bytes, const char *what) {
    const uint64_t *offsets = (const uint64_t *)(const void *)(bytes + 4u * n);
    const uint32_t *indices = (const uint32_t *)(const void *)(bytes + 4u * n + 8u * (n + 1u));
    uint64_t *ref_offsets = NULL;
    uint32_t *ref_indices = NULL;
    char msg[256] = "";
    if (fenns_reference_csr(xyz, n, RADIUS, &ref_offsets, &ref_indices)) return EXPECT(0, "%s: reference failed", what);
    int differ = fenns_reference_compare(xyz, n, RADIUS, ref_offsets, ref_indices, n, offsets, indices, 0, NULL, msg,
                                         sizeof msg);
    fenns_reference_free(&ref_offsets, &ref_indices);
    return EXPECT(!differ, "%s: pass by pass differs from the reference: %s", what, msg);
}

static int run_configuration(fenns_test_gpu *g, fenns_context ctx, fenns_method method, int user_domain,
                             const float *xyz) {
    int ok = 1;
    char what[128];
    snprintf(what, sizeof what, "%s, %s domain", fenns_method_name(method), user_domain ? "caller's" : "GPU");
    fenns_pipeline_create_info pi = pipeline_info(method);
    if (user_domain)
        for (int a = 0; a < 3; ++a) pi.domain_max[a] = 1.0f;
    setup s = {g, NULL, {0}, {0}, N};
    outputs o;
    memset(&o, 0, sizeof o);
    fenns_memory_requirements req;
    size_t capacity = 4u * N + 8u * (N + 1u) + 4u * 64u * N + 4u * N + sizeof(fenns_status);
    uint8_t *all = malloc(capacity), *passes = malloc(capacity);
    if (!EXPECT(all && passes && fenns_pipeline_create(ctx, &pi, &s.pipe) == FENNS_SUCCESS, "%s: pipeline", what)) goto done;
    fenns_pipeline_get_scratch_requirements(s.pipe, N, &req);
    if (!EXPECT(fenns_test_buffer_create(g, 16u * N, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL,
                                        &s.positions) == VK_SUCCESS &&
                   fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &s.scratch) == VK_SUCCESS &&
                   buffers_create(g, N, &o),
               "%s: buffers", what))
        goto done;
    ok &= EXPECT(upload_positions(&s, xyz), "%s: upload", what);
    for (size_t c = 0; ok && c < sizeof search_cases / sizeof search_cases[0]; ++c) {
        char label[192];
        snprintf(label, sizeof label, "%s, %s", what, search_cases[c].name);
        ok &= check_recording(&s, &search_cases[c], &o, label);
        size_t size_all = 0, size_passes = 0;
        ok &= EXPECT(run_case(&s, &search_cases[c], &o, 0, all, &size_all), "%s: all-in-one run", label);
        ok &= EXPECT(run_case(&s, &search_cases[c], &o, 1, passes, &size_passes), "%s: pass-by-pass run", label);
        /* fenns-paper and counting fill lists with atomics: only sorted lists compare bit for bit. */
        int comparable = method == FENNS_METHOD_FENNS || !(search_cases[c].outputs & (FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED)) ||
                         (search_cases[c].outputs & FENNS_OUTPUT_SORTED_LISTS);
        if (comparable && method != FENNS_METHOD_FENNS && (search_cases[c].outputs & FENNS_OUTPUT_SORTED_ORDER))
            comparable = 0; /* its permutation varies too */
        if (ok && comparable)
            ok &= EXPECT(size_all == size_passes && !memcmp(all, passes, size_all), "%s: pass by pass differs from all in one",
                        label);
        if (ok && (search_cases[c].outputs & FENNS_OUTPUT_SORTED_LISTS)) ok &= check_reference(xyz, N, passes, label);
        if (ok) printf("ok   %s\n", label);
    }
    if (ok && method == FENNS_METHOD_FENNS) {
        fenns_test_buffer peer = {0};
        ok &= EXPECT(fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &peer) == VK_SUCCESS,
                     "%s: peer scratch", what) &&
              check_point_set_recording(&s, &peer, &o, what);
        fenns_test_buffer_destroy(g, &peer);
    }
done:
    free(all);
    free(passes);
    buffers_destroy(g, &o);
    setup_free(&s);
    return ok;
}

/* fenns_cmd_reorder after a build: to the sorted order (out of place and in
 * place), back to the original order, and refused arguments. */
static int check_reorder(fenns_test_gpu *g, fenns_context ctx, fenns_method method, const float *xyz) {
    int ok = 1;
    const char *what = fenns_method_name(method);
    fenns_pipeline_create_info pi = pipeline_info(method);
    setup s = {g, NULL, {0}, {0}, N};
    const uint32_t strides[2] = {12u, 20u};
    const VkDeviceSize max_bytes = 20u * N;
    fenns_test_buffer src = {0}, dst = {0}, back = {0}, temp = {0}, perm_buffer = {0};
    uint32_t *data = malloc(max_bytes), *got = malloc(max_bytes), *perm = malloc(4u * N);
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (!EXPECT(data && got && perm && fenns_pipeline_create(ctx, &pi, &s.pipe) == FENNS_SUCCESS,
                "%s reorder: pipeline", what))
        goto done;
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(s.pipe, N, &req);
    ok &= EXPECT(fenns_test_buffer_create(g, 16u * N, storage, FENNS_TEST_DEVICE_LOCAL, &s.positions) == VK_SUCCESS &&
                     fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &s.scratch) == VK_SUCCESS &&
                     fenns_test_buffer_create(g, max_bytes, storage, FENNS_TEST_DEVICE_LOCAL, &src) == VK_SUCCESS &&
                     fenns_test_buffer_create(g, max_bytes, storage, FENNS_TEST_DEVICE_LOCAL, &dst) == VK_SUCCESS &&
                     fenns_test_buffer_create(g, max_bytes, storage, FENNS_TEST_DEVICE_LOCAL, &back) == VK_SUCCESS &&
                     fenns_test_buffer_create(g, max_bytes, storage, FENNS_TEST_DEVICE_LOCAL, &temp) == VK_SUCCESS &&
                     fenns_test_buffer_create(g, 4u * N, storage, FENNS_TEST_DEVICE_LOCAL, &perm_buffer) == VK_SUCCESS,
                 "%s reorder: buffers", what);
    if (!ok) goto done;
    if (!EXPECT(upload_positions(&s, xyz), "%s reorder: upload", what)) goto done;
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(s.pipe, N, &layout);
    for (int t = 0; ok && t < 2; ++t) {
        uint32_t stride = strides[t], words = stride / 4u;
        for (uint32_t k = 0; k < N * words; ++k) data[k] = k * 2654435761u + 12345u;
        ok &= EXPECT(fenns_test_upload(g, &src, 0, data, (VkDeviceSize)stride * N) == VK_SUCCESS &&
                         fenns_test_upload(g, &back, 0, data, (VkDeviceSize)stride * N) == VK_SUCCESS,
                     "%s reorder: upload", what);
        VkCommandBuffer cmd;
        if (!ok || fenns_test_begin(g, &cmd) != VK_SUCCESS) break;
        fenns_build_info b = build_info(&s);
        fenns_cmd_build(cmd, s.pipe, &b);
        fenns_cmd_build_to_search_barrier(cmd, s.pipe);
        VkBufferCopy perm_copy = {layout.permutation_offset, 0, 4u * N};
        vkCmdCopyBuffer(cmd, s.scratch.buffer, perm_buffer.buffer, 1, &perm_copy);
        fenns_reorder_info r = {0};
        r.descriptors = arena;
        r.particle_count = N;
        r.scratch = fenns_test_range(&s.scratch, 0, VK_WHOLE_SIZE);
        r.stride = stride;
        r.direction = FENNS_REORDER_TO_SORTED;
        r.src = fenns_test_range(&src, 0, VK_WHOLE_SIZE);
        r.dst = fenns_test_range(&dst, 0, VK_WHOLE_SIZE);
        fenns_cmd_reorder(cmd, s.pipe, &r); /* dst = sorted */
        fenns_test_cmd_barrier(cmd);
        r.direction = FENNS_REORDER_TO_ORIGINAL;
        r.src = fenns_test_range(&dst, 0, VK_WHOLE_SIZE);
        r.dst = fenns_test_range(&temp, 0, VK_WHOLE_SIZE);
        fenns_cmd_reorder(cmd, s.pipe, &r); /* temp = original again */
        fenns_test_cmd_barrier(cmd);
        r.direction = FENNS_REORDER_TO_SORTED;
        r.src = r.dst = fenns_test_range(&back, 0, VK_WHOLE_SIZE);
        r.temp = fenns_test_range(&src, 0, VK_WHOLE_SIZE);
        fenns_cmd_reorder(cmd, s.pipe, &r); /* back = sorted, in place (src is its temp) */
        fenns_test_cmd_barrier(cmd);
        if (!EXPECT(fenns_test_submit(g, cmd) == VK_SUCCESS, "%s reorder: submit", what)) break;
        ok &= EXPECT(fenns_test_download(g, &perm_buffer, 0, perm, 4u * N) == VK_SUCCESS, "download");
        uint32_t wrong = 0;
        ok &= EXPECT(fenns_test_download(g, &dst, 0, got, (VkDeviceSize)stride * N) == VK_SUCCESS, "download");
        for (uint32_t k = 0; k < N; ++k)
            for (uint32_t w = 0; w < words; ++w) wrong += got[k * words + w] != data[perm[k] * words + w];
        ok &= EXPECT(wrong == 0, "%s reorder stride %u to sorted: %u words wrong", what, stride, wrong);
        ok &= EXPECT(fenns_test_download(g, &temp, 0, got, (VkDeviceSize)stride * N) == VK_SUCCESS, "download");
        ok &= EXPECT(!memcmp(got, data, (size_t)stride * N), "%s reorder stride %u: back to the original order differs",
                     what, stride);
        ok &= EXPECT(fenns_test_download(g, &back, 0, got, (VkDeviceSize)stride * N) == VK_SUCCESS, "download");
        wrong = 0;
        for (uint32_t k = 0; k < N; ++k)
            for (uint32_t w = 0; w < words; ++w) wrong += got[k * words + w] != data[perm[k] * words + w];
        ok &= EXPECT(wrong == 0, "%s reorder stride %u in place: %u words wrong", what, stride, wrong);
    }
    /* Refused: nothing recorded, one error each. */
    if (ok) {
        VkCommandBuffer cmd;
        if (fenns_test_begin(g, &cmd) == VK_SUCCESS) {
            fenns_reorder_info good = {0};
            good.descriptors = arena;
            good.particle_count = N;
            good.scratch = fenns_test_range(&s.scratch, 0, VK_WHOLE_SIZE);
            good.stride = 8;
            good.src = fenns_test_range(&src, 0, 8u * N);
            good.dst = fenns_test_range(&dst, 0, 8u * N);
            enum { BAD = 10 };
            fenns_reorder_info bad[BAD];
            for (int k = 0; k < BAD; ++k) bad[k] = good;
            bad[0].stride = 6;
            bad[1].direction = (fenns_reorder_direction)2;
            bad[2].dst = fenns_test_range(&src, 4u * N, 8u * N); /* overlaps src */
            bad[3].dst = bad[3].src;                             /* in place without temp */
            bad[4].src.range = 8u * N - 4u;
            bad[5].particle_count = N + 1u;
            bad[6].stride = 0xFFFFFFFCu; /* N * stride / 4 past 2^32 words */
            bad[7].dst = bad[7].src;     /* in place, temp overlapping src */
            bad[7].temp = fenns_test_range(&src, 0, 8u * N);
            int tries = 8;
            /* Where the device has them: a dst offset off its alignment, and
             * no arena on a context without push descriptors (elsewhere
             * these would be good infos, and record). */
            VkDeviceSize align = g->limits.min_storage_buffer_offset_alignment;
            if (align > 1u) bad[tries++].dst = fenns_test_range(&dst, align / 2u, 8u * N);
            if (!fenns_context_uses_push_descriptors(ctx)) bad[tries++].descriptors = NULL;
            const uint32_t refusals = (uint32_t)tries + 1u; /* and the null info */
            g->quiet = 1;
            log_restart();
            uint32_t errors = g->error_messages;
            for (int k = 0; k < tries; ++k) fenns_cmd_reorder(cmd, s.pipe, &bad[k]);
            fenns_cmd_reorder(cmd, s.pipe, NULL);
            ok &= EXPECT(g->error_messages == errors + refusals && rec.count == 0,
                         "%s reorder: %u of %u bad infos refused, %u commands", what, g->error_messages - errors, refusals,
                         rec.count);
            g->error_messages = errors;
            g->quiet = 0;
            vkEndCommandBuffer(cmd);
            vkFreeCommandBuffers(g->device, g->command_pool, 1, &cmd);
        }
    }
    if (ok) printf("ok   %s reorder (strides 12 and 20, both directions, in place)\n", what);
done:
    free(data);
    free(got);
    free(perm);
    fenns_test_buffer_destroy(g, &src);
    fenns_test_buffer_destroy(g, &dst);
    fenns_test_buffer_destroy(g, &back);
    fenns_test_buffer_destroy(g, &temp);
    fenns_test_buffer_destroy(g, &perm_buffer);
    setup_free(&s);
    return ok;
}

/* A frame graph that changes the CSR offsets between the offsets scan and
 * the fill (here: lists of 8 and 1 entries in turn, most of them too short)
 * costs the lists that no longer fit, counted in list_overflow, and nothing
 * else: every stored entry is one of its query's neighbours, and nothing is
 * written past the last list. The fills have no overflow path, only stores
 * bounded by each list (local_grid_fenns.glsl's emit_pair). */
static int check_changed_offsets(fenns_test_gpu *g, fenns_context ctx, fenns_method method, const float *xyz) {
    int ok = 1;
    const char *what = fenns_method_name(method);
    fenns_pipeline_create_info pi = pipeline_info(method);
    setup s = {g, NULL, {0}, {0}, N};
    outputs o;
    memset(&o, 0, sizeof o);
    uint64_t *offsets = malloc(8u * (N + 1u)), *ref_offsets = NULL;
    uint32_t *indices = malloc(4u * 64u * N), *ref_indices = NULL;
    fenns_status status;
    if (!EXPECT(offsets && indices && fenns_pipeline_create(ctx, &pi, &s.pipe) == FENNS_SUCCESS, "%s changed offsets: pipeline",
                what))
        goto done;
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(s.pipe, N, &req);
    if (!EXPECT(fenns_test_buffer_create(g, 16u * N, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL,
                                        &s.positions) == VK_SUCCESS &&
                    fenns_test_buffer_create(g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &s.scratch) == VK_SUCCESS &&
                    buffers_create(g, N, &o) && upload_positions(&s, xyz),
                "%s changed offsets: buffers", what))
        goto done;
    offsets[0] = 0;
    for (uint32_t i = 0; i < N; ++i) offsets[i + 1u] = offsets[i] + (i % 2u ? 1u : 8u);
    search_case c = {"csr", FENNS_OUTPUT_CSR, 0, 0};
    fenns_build_info b = build_info(&s);
    fenns_search_info info = search_info(&s, &c, &o, 0);
    VkCommandBuffer cmd;
    if (!EXPECT(fenns_test_begin(g, &cmd) == VK_SUCCESS, "%s changed offsets: begin", what)) goto done;
    vkCmdFillBuffer(cmd, o.indices.buffer, 0, VK_WHOLE_SIZE, 0xEEEEEEEEu);
    fenns_test_cmd_barrier(cmd);
    fenns_cmd_build(cmd, s.pipe, &b);
    fenns_cmd_build_to_search_barrier(cmd, s.pipe);
    fenns_pass_info passes[FENNS_MAX_PASSES];
    uint32_t count = fenns_get_search_passes(s.pipe, &info, passes);
    for (uint32_t k = 0; k < count; ++k) {
        fenns_test_cmd_barrier(cmd);
        if (k == count - 1u) { /* the fill: its offsets replaced */
            vkCmdUpdateBuffer(cmd, o.offsets.buffer, 0, 8u * (N + 1u), offsets);
            fenns_test_cmd_barrier(cmd);
        }
        fenns_cmd_search_pass(cmd, s.pipe, &info, k);
    }
    fenns_test_cmd_barrier(cmd);
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(s.pipe, N, &layout);
    VkBufferCopy copy = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, s.scratch.buffer, o.status.buffer, 1, &copy);
    fenns_test_cmd_barrier(cmd);
    if (!EXPECT(fenns_test_submit(g, cmd) == VK_SUCCESS &&
                    fenns_test_download(g, &o.indices, 0, indices, 4u * 64u * N) == VK_SUCCESS &&
                    fenns_test_download(g, &o.status, 0, &status, sizeof status) == VK_SUCCESS,
                "%s changed offsets: run", what))
        goto done;
    if (!EXPECT(fenns_reference_csr(xyz, N, RADIUS, &ref_offsets, &ref_indices) == 0, "%s: reference", what)) goto done;
    uint32_t overflowing = 0, foreign = 0, stored = 0, past = 0;
    for (uint32_t i = 0; i < N; ++i) {
        overflowing += ref_offsets[i + 1u] - ref_offsets[i] > offsets[i + 1u] - offsets[i];
        for (uint64_t e = offsets[i]; e < offsets[i + 1u]; ++e) {
            uint32_t v = indices[e], is_neighbour = 0;
            if (v == 0xEEEEEEEEu) continue;
            ++stored;
            for (uint64_t r = ref_offsets[i]; r < ref_offsets[i + 1u]; ++r) is_neighbour |= ref_indices[r] == v;
            foreign += !is_neighbour;
        }
    }
    for (uint64_t e = offsets[N]; e < 64u * N; ++e) past += indices[e] != 0xEEEEEEEEu;
    ok &= EXPECT(overflowing > 0 && status.list_overflow == overflowing,
                 "%s changed offsets: list_overflow %u, %u lists too short", what, status.list_overflow, overflowing);
    ok &= EXPECT(stored > 0 && foreign == 0 && past == 0,
                 "%s changed offsets: %u of %u stored entries not their query's neighbours, %u written past the lists", what,
                 foreign, stored, past);
    if (ok) printf("ok   %s offsets changed before the fill: %u short lists counted, no entry outside its list\n", what,
                   overflowing);
done:
    fenns_reference_free(&ref_offsets, &ref_indices);
    free(offsets);
    free(indices);
    buffers_destroy(g, &o);
    setup_free(&s);
    return ok;
}

int main(void) {
    fenns_test_gpu g;
    if (fenns_test_gpu_open(&g, 0) != FENNS_SUCCESS) return 1;
    arena = g.arena;
    int ok = 1;
    static float xyz[3 * N];
    uint32_t state = 99u;
    for (uint32_t k = 0; k < 3 * N; ++k) {
        state = state * 1664525u + 1013904223u;
        xyz[k] = (float)(state >> 8) / 16777216.0f;
    }

    fenns_context_create_info ci;
    fenns_headless_context_info(g.headless, &ci);
    real_gipa = ci.get_instance_proc_addr;
    real_gdpa = ci.get_device_proc_addr ? ci.get_device_proc_addr
                                        : (PFN_vkGetDeviceProcAddr)real_gipa(ci.instance, "vkGetDeviceProcAddr");
    real_device = ci.device;
    ci.get_instance_proc_addr = logging_gipa;
    ci.get_device_proc_addr = logging_gdpa;

    /* debug_utils asked for where the instance lacks it: refused by name. */
    fenns_context ctx = NULL;
    ci.debug_utils = 1;
    debug_stubs_missing = 1;
    g.quiet = 1;
    ok &= EXPECT(fenns_context_create(&ci, &ctx) == FENNS_ERROR_UNSUPPORTED_DEVICE && !ctx && g.error_messages == 1,
                "debug_utils without the extension is refused");
    g.error_messages = 0;
    g.quiet = 0;
    debug_stubs_missing = 0;

    ok &= EXPECT(fenns_context_create(&ci, &ctx) == FENNS_SUCCESS, "context with debug_utils");
    for (int method = 0; ok && method <= FENNS_METHOD_RADIX; ++method)
        for (int user_domain = 0; ok && user_domain < 2; ++user_domain)
            ok &= run_configuration(&g, ctx, (fenns_method)method, user_domain, xyz);
    for (int method = 0; ok && method <= FENNS_METHOD_RADIX; ++method) ok &= check_reorder(&g, ctx, (fenns_method)method, xyz);
    for (int method = 0; ok && method <= FENNS_METHOD_RADIX; ++method)
        ok &= check_changed_offsets(&g, ctx, (fenns_method)method, xyz);
    ok &= EXPECT(rec.names > 0 && rec.bad_names == 0, "%u pipelines named 'fenns: ...', %u otherwise", rec.names,
                rec.bad_names);

    /* Refused infos list no passes. */
    if (ok) {
        fenns_pipeline_create_info pi = pipeline_info(FENNS_METHOD_FENNS);
        fenns_pipeline pipe = NULL;
        fenns_pass_info passes[FENNS_MAX_PASSES];
        fenns_build_info b = {0};
        b.particle_count = N; /* no positions, no scratch */
        fenns_search_info info = {0};
        ok &= EXPECT(fenns_pipeline_create(ctx, &pi, &pipe) == FENNS_SUCCESS, "pipeline");
        g.quiet = 1;
        ok &= EXPECT(fenns_get_build_passes(pipe, &b, passes) == 0 && fenns_get_build_passes(pipe, NULL, passes) == 0 &&
                        fenns_get_search_passes(pipe, &info, passes) == 0 && fenns_get_build_passes(pipe, &b, NULL) == 0 &&
                        g.error_messages == 4,
                    "refused infos list no passes (%u errors logged)", g.error_messages);
        g.error_messages = 0;
        g.quiet = 0;
        fenns_pipeline_destroy(pipe);
    }
    fenns_context_destroy(ctx);

    /* Without debug_utils: no label, no name. */
    ci.debug_utils = 0;
    uint32_t names = rec.names;
    ctx = NULL;
    if (ok && EXPECT(fenns_context_create(&ci, &ctx) == FENNS_SUCCESS, "context without debug_utils")) {
        fenns_pipeline_create_info pi = pipeline_info(FENNS_METHOD_FENNS);
        fenns_pipeline pipe = NULL;
        ok &= EXPECT(fenns_pipeline_create(ctx, &pi, &pipe) == FENNS_SUCCESS, "pipeline");
        fenns_test_buffer scratch = {0}, positions = {0};
        fenns_memory_requirements req;
        fenns_pipeline_get_scratch_requirements(pipe, N, &req);
        VkCommandBuffer cmd;
        if (ok && fenns_test_buffer_create(&g, req.size, req.usage, FENNS_TEST_DEVICE_LOCAL, &scratch) == VK_SUCCESS &&
            fenns_test_buffer_create(&g, 16u * N, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, FENNS_TEST_DEVICE_LOCAL, &positions) ==
                VK_SUCCESS &&
            fenns_test_begin(&g, &cmd) == VK_SUCCESS) {
            fenns_build_info b = {0};
            b.descriptors = arena;
            b.particle_count = N;
            b.positions = fenns_test_range(&positions, 0, VK_WHOLE_SIZE);
            b.scratch = fenns_test_range(&scratch, 0, VK_WHOLE_SIZE);
            log_restart();
            fenns_cmd_build(cmd, pipe, &b);
            uint32_t labels = 0, commands = 0;
            for (uint32_t i = 0; i < rec.count; ++i) {
                labels += rec.events[i].kind == EV_LABEL_BEGIN || rec.events[i].kind == EV_LABEL_END;
                commands += rec.events[i].kind == EV_COMMAND;
            }
            ok &= EXPECT(commands > 0 && labels == 0 && rec.names == names, "no labels or names without debug_utils");
            vkEndCommandBuffer(cmd);
            vkFreeCommandBuffers(g.device, g.command_pool, 1, &cmd);
        }
        fenns_test_buffer_destroy(&g, &scratch);
        fenns_test_buffer_destroy(&g, &positions);
        fenns_pipeline_destroy(pipe);
        fenns_context_destroy(ctx);
    }
    if (ok) printf("ok   labels, names and refusals\n");
    return fenns_test_gpu_close(&g) == 0 && ok && failures == 0 ? 0 : 1;
}
