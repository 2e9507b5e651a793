/* A build or search as steps: recorded all together (fenns_cmd_build,
 * fenns_cmd_search) or one at a time (fenns_cmd_*_pass), with the debug
 * labels and profile timestamps around each, and described to frame graphs
 * (fenns_get_*_passes). One list drives all three, so what a frame graph is
 * told is what is recorded. */
#include <stddef.h>
#include <stdio.h>

#include "descriptor_arena.h"
#include "passes.h"

fenns_step *fenns__step(fenns_steps *s, const char *name, fenns_step_fn record, uint64_t bytes) {
    fenns_step *step = &s->items[s->count++]; /* the method lists never exceed FENNS_MAX_PASSES */
    *step = (fenns_step){.record = record, .bytes = bytes};
    step->info.name = name;
    return step;
}

void fenns__access(fenns_step *step, fenns_resource resource, const fenns_buffer_range *range,
                   VkPipelineStageFlags stages, VkAccessFlags accesses) {
    fenns_pass_access *a = &step->info.accesses[step->info.access_count++];
    *a = (fenns_pass_access){.resource = resource, .stages = stages, .accesses = accesses};
    if (range) a->range = *range;
}

/* Debug labels (the context's debug_utils): nothing without them. */
static void label_begin(VkCommandBuffer cmd, fenns_pipeline p, const char *name) {
    if (!p->ctx->vk.vkCmdBeginDebugUtilsLabelEXT) return;
    char text[64];
    snprintf(text, sizeof text, "fenns: %s", name);
    VkDebugUtilsLabelEXT label = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT, .pLabelName = text};
    p->ctx->vk.vkCmdBeginDebugUtilsLabelEXT(cmd, &label);
}

static void label_end(VkCommandBuffer cmd, fenns_pipeline p) {
    if (p->ctx->vk.vkCmdEndDebugUtilsLabelEXT) p->ctx->vk.vkCmdEndDebugUtilsLabelEXT(cmd);
}

static void record_one(VkCommandBuffer cmd, fenns_pipeline p, const fenns_step *step, const fenns_recording *r) {
    label_begin(cmd, p, step->info.name);
    step->record(cmd, p, r);
    label_end(cmd, p);
}

void fenns__mark_incomplete(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns__barrier(cmd, p);
    const fenns_vk *vk = &p->ctx->vk;
    VkDeviceSize params = f->scratch.offset + f->layout.params.offset;
    vk->vkCmdFillBuffer(cmd, f->scratch.buffer, params + offsetof(fenns_gpu_params, sort_incomplete), 4u,
                        FENNS_UNBOUND_MARK);
    vk->vkCmdFillBuffer(cmd, f->scratch.buffer, params + offsetof(fenns_gpu_params, incomplete_queries), 4u,
                        FENNS_UNBOUND_MARK);
    vk->vkCmdFillBuffer(cmd, f->scratch.buffer, params + offsetof(fenns_gpu_params, dispatch_x), 12u, 0u);
    vk->vkCmdFillBuffer(cmd, f->scratch.buffer, params + offsetof(fenns_gpu_params, general_dispatch_x), 36u, 0u);
}

/* A pass that got no descriptor set (its arena failed, logged) recorded no
 * dispatch: what the later passes and the caller read must say so. */
static void mark_unbound(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r, uint64_t failures_before) {
    if (fenns__arena_failures(r->f.arena) != failures_before) fenns__mark_incomplete(cmd, p, &r->f);
}

void fenns__record_steps(VkCommandBuffer cmd, fenns_pipeline p, const fenns_steps *s, const fenns_recording *r,
                         const char *label) {
    uint64_t failures = fenns__arena_failures(r->f.arena);
    label_begin(cmd, p, label);
    fenns__profile_begin(cmd, p, r->profile);
    for (uint32_t k = 0; k < s->count; ++k) {
        record_one(cmd, p, &s->items[k], r);
        if (k + 1 < s->count) fenns__barrier(cmd, p);
        fenns__profile_mark(cmd, p, r->profile, s->items[k].info.name, s->items[k].bytes);
    }
    mark_unbound(cmd, p, r, failures);
    label_end(cmd, p);
}

void fenns__record_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_steps *s, const fenns_recording *r,
                        uint32_t k) {
    uint64_t failures = fenns__arena_failures(r->f.arena);
    if (k == 0) fenns__profile_begin(cmd, p, r->profile);
    record_one(cmd, p, &s->items[k], r);
    mark_unbound(cmd, p, r, failures);
    fenns__profile_mark(cmd, p, r->profile, s->items[k].info.name, s->items[k].bytes);
}
