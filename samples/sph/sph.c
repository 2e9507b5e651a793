/*
 * fenns-sph: a weakly compressible SPH dam break entirely on the GPU, headless.
 *
 *   fenns-sph [--particles N] [--steps K] [--frames F] [--out DIR] [--device I]
 *
 * Every step records, into one reusable command buffer: fenns_cmd_build;
 * a kernel search with dam_density.glsl (density and pressure, written as
 * the kernel's vec4 output); a kernel search with dam_forces.glsl (pressure
 * and viscosity accelerations, reading density and velocity through the
 * kernels' own descriptor set); then this sample's sph_integrate.comp. No
 * neighbour list is ever stored. Both kernels are compiled at build time by
 * fenns_add_kernel. Every K/F steps sph_splat.comp draws the particles into
 * a side view, written as DIR/frame_NNNN.png (stb_image_write). One summary
 * line ends the run: particles, steps, ms per step, neighbours, density error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <volk.h>

#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include "png_write.h"
#include "sample_gpu.h"
#include "sph_params.h"

#include "fenns_kernel_dam_density.spv.h"
#include "fenns_kernel_dam_forces.spv.h"
#include "sph_integrate.spv.h"
#include "sph_splat.spv.h"

#define IMAGE_W 640u
#define IMAGE_H 448u

typedef struct options {
    uint32_t particles, steps, frames;
    const char *out;
    int device;
} options;


/* Everything the run holds; released by teardown() whatever failed. */
typedef struct sim {
    fenns_headless headless;
    fenns_context context;
    VkDevice device;
    VkPhysicalDevice physical_device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer steps_cmd, frame_cmd;
    VkFence fence;
    fenns_pipeline density, forces;
    fenns_descriptor_arena arena; /* descriptor sets where the device has no push descriptors */
    VkDescriptorSetLayout kernel_layout, integrate_layout, splat_layout;
    VkPipelineLayout integrate_pl, splat_pl;
    VkPipeline integrate, splat;
    VkDescriptorPool descriptor_pool;
    VkDescriptorSet kernel_set, integrate_set, splat_set;
    sample_buffer params, positions, velocities, fluid, accel, scratch, image, readback;
    uint32_t n;
} sim;

static int fail(const char *what, VkResult r) {
    fprintf(stderr, "fenns-sph: error: %s failed (VkResult %d)\n", what, (int)r);
    return 1;
}

#define VK_CHECK(call, what)                      \
    do {                                          \
        VkResult r_ = (call);                     \
        if (r_ != VK_SUCCESS) return fail(what, r_); \
    } while (0)

static VkResult submit_and_wait(sim *s, VkCommandBuffer cmd) {
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    VkResult r = vkResetFences(s->device, 1, &s->fence);
    if (r == VK_SUCCESS) r = vkQueueSubmit(s->queue, 1, &si, s->fence);
    if (r == VK_SUCCESS) r = vkWaitForFences(s->device, 1, &s->fence, VK_TRUE, UINT64_MAX);
    return r;
}

/* A compute pipeline of this sample: one descriptor set of `bindings`
 * storage buffers and `push` bytes of push constants. */
static VkResult own_pipeline(sim *s, const uint32_t *code, size_t size, uint32_t bindings, uint32_t push,
                             VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout, VkPipeline *pipeline) {
    VkDescriptorSetLayoutBinding b[4];
    for (uint32_t k = 0; k < bindings; ++k)
        b[k] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = bindings, .pBindings = b};
    VkResult r = vkCreateDescriptorSetLayout(s->device, &li, NULL, set_layout);
    if (r != VK_SUCCESS) return r;
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                      .pSetLayouts = set_layout, .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &range};
    r = vkCreatePipelineLayout(s->device, &pli, NULL, layout);
    if (r != VK_SUCCESS) return r;
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    VkShaderModule module;
    r = vkCreateShaderModule(s->device, &mi, NULL, &module);
    if (r != VK_SUCCESS) return r;
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main"},
                                      .layout = *layout};
    r = vkCreateComputePipelines(s->device, VK_NULL_HANDLE, 1, &ci, NULL, pipeline);
    vkDestroyShaderModule(s->device, module, NULL);
    return r;
}

static VkResult allocate_set(sim *s, VkDescriptorSetLayout layout, VkDescriptorSet *set, const sample_buffer *const *bufs,
                             uint32_t count) {
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = s->descriptor_pool, .descriptorSetCount = 1,
                                      .pSetLayouts = &layout};
    VkResult r = vkAllocateDescriptorSets(s->device, &ai, set);
    if (r != VK_SUCCESS) return r;
    VkDescriptorBufferInfo info[4];
    VkWriteDescriptorSet w[4];
    for (uint32_t k = 0; k < count; ++k) {
        info[k] = (VkDescriptorBufferInfo){bufs[k]->buffer, 0, VK_WHOLE_SIZE};
        w[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = *set,
                                      .dstBinding = k, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &info[k]};
    }
    vkUpdateDescriptorSets(s->device, count, w, 0, NULL);
    return VK_SUCCESS;
}

/* The water column: a lattice of spacing `spacing`, jittered by a hair so
 * that no two particles share a plane exactly. Returns the particle count. */
static uint32_t column(float spacing, float *xyzw, uint32_t capacity) {
    uint32_t nx = (uint32_t)(SPH_COLUMN_X / spacing), ny = (uint32_t)(SPH_COLUMN_Y / spacing),
             nz = (uint32_t)(SPH_TANK_Z / spacing), n = 0, seed = 12345u;
    for (uint32_t z = 0; z < nz; ++z)
        for (uint32_t y = 0; y < ny; ++y)
            for (uint32_t x = 0; x < nx && n < capacity; ++x) {
                float jitter[3];
                for (int a = 0; a < 3; ++a) {
                    seed = seed * 1664525u + 1013904223u;
                    jitter[a] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 0.01f * spacing;
                }
                float *p = xyzw + 4u * n++;
                p[0] = ((float)x + 0.5f) * spacing + jitter[0];
                p[1] = ((float)y + 0.5f) * spacing + jitter[1];
                p[2] = ((float)z + 0.5f) * spacing + jitter[2];
                p[3] = 0.0f;
            }
    return n;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || v < lo || v > hi) return 1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o) {
    o->particles = 6000;
    o->steps = 500;
    o->frames = 10;
    o->out = "sph_frames";
    o->device = -1;
    for (int a = 1; a < argc; ++a) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        uint32_t d;
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            printf("usage: fenns-sph [--particles N] [--steps K] [--frames F] [--out DIR] [--device I]\n"
                   "A dam break (weakly compressible SPH) on the GPU with fenns neighbour kernels.\n"
                   "  --particles N  water particles (default 6000; 1000000 is a real GPU workload)\n"
                   "  --steps K      time steps (default 500)\n"
                   "  --frames F     PNG frames written, evenly over the run (default 10; 0: none)\n"
                   "  --out DIR      where frame_NNNN.png go (default sph_frames; created)\n"
                   "  --device I     Vulkan physical device index (else FENNS_DEVICE, else the best)\n");
            return 0;
        }
        if (!v) {
            fprintf(stderr, "fenns-sph: error: %s needs a value (try --help)\n", argv[a]);
            return 2;
        }
        if (!strcmp(argv[a], "--particles")) {
            if (parse_u32(v, 64, 64u << 20, &o->particles)) {
                fprintf(stderr, "fenns-sph: error: --particles needs 64..67108864, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(argv[a], "--steps")) {
            if (parse_u32(v, 1, 10000000, &o->steps)) {
                fprintf(stderr, "fenns-sph: error: --steps needs 1..10000000, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(argv[a], "--frames")) {
            if (parse_u32(v, 0, 100000, &o->frames)) {
                fprintf(stderr, "fenns-sph: error: --frames needs 0..100000, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(argv[a], "--out")) {
            if (!*v) {
                fprintf(stderr, "fenns-sph: error: --out needs a directory\n");
                return 2;
            }
            o->out = v;
        } else if (!strcmp(argv[a], "--device")) {
            if (parse_u32(v, 0, 1000, &d)) {
                fprintf(stderr, "fenns-sph: error: --device needs an index, got '%s'\n", v);
                return 2;
            }
            o->device = (int)d;
        } else {
            fprintf(stderr, "fenns-sph: error: unknown option '%s' (try --help)\n", argv[a]);
            return 2;
        }
        ++a;
    }
    if (o->frames > o->steps) o->frames = o->steps;
    return -1;
}

static void log_fn(fenns_log_level level, const char *message, void *user) {
    (void)user;
    if (level != FENNS_LOG_INFO) fprintf(stderr, "fenns-sph: %s: %s\n", level == FENNS_LOG_ERROR ? "error" : "warning",
                                         message);
}

/* Device, context, fenns pipelines (one per kernel, same plan), buffers,
 * this sample's pipelines and descriptor sets. */
static int setup(sim *s, const options *o, float *spacing_out, float *dt_out) {
    fenns_headless_create_info hci;
    memset(&hci, 0, sizeof hci);
    hci.use_device_index = o->device >= 0;
    hci.device_index = o->device;
    hci.log = log_fn;
    fenns_result fr = fenns_headless_create(&hci, &s->headless);
    if (fr != FENNS_SUCCESS) {
        fprintf(stderr, "fenns-sph: error: no usable Vulkan device: %s\n", fenns_result_string(fr));
        return 1;
    }
    fenns_context_create_info cci;
    fenns_headless_context_info(s->headless, &cci);
    cci.log = log_fn;
    fr = fenns_context_create(&cci, &s->context);
    if (fr != FENNS_SUCCESS) {
        fprintf(stderr, "fenns-sph: error: fenns_context_create: %s\n", fenns_result_string(fr));
        return 1;
    }
    s->device = fenns_headless_device(s->headless);
    s->physical_device = fenns_headless_physical_device(s->headless);
    s->queue = fenns_headless_queue(s->headless);

    /* Particles and the numbers of the method. */
    float volume = (float)(SPH_COLUMN_X * SPH_COLUMN_Y * SPH_TANK_Z);
    float spacing = cbrtf(volume / (float)o->particles);
    float *xyzw = malloc(16u * (size_t)o->particles);
    if (!xyzw) return fail("malloc", VK_ERROR_OUT_OF_HOST_MEMORY);
    s->n = column(spacing, xyzw, o->particles);
    float h = 1.2f * spacing, radius = 2.0f * h;
    float dt = 0.3f * h / (float)SPH_SOUND_SPEED;
    float params[4] = {(float)SPH_REST_DENSITY * spacing * spacing * spacing, h,
                       (float)(SPH_REST_DENSITY * SPH_SOUND_SPEED * SPH_SOUND_SPEED / SPH_TAIT_GAMMA), dt};
    *spacing_out = spacing;
    *dt_out = dt;

    VkDeviceSize v4 = 16u * (VkDeviceSize)s->n;
    VkResult r = sample_buffer_create(s->device, s->physical_device, sizeof params, 1, &s->params);
    if (r == VK_SUCCESS) r = sample_buffer_create(s->device, s->physical_device, v4, 0, &s->positions);
    if (r == VK_SUCCESS) r = sample_buffer_create(s->device, s->physical_device, v4, 0, &s->velocities);
    if (r == VK_SUCCESS) r = sample_buffer_create(s->device, s->physical_device, v4, 0, &s->fluid);
    if (r == VK_SUCCESS) r = sample_buffer_create(s->device, s->physical_device, v4, 0, &s->accel);
    if (r == VK_SUCCESS) r = sample_buffer_create(s->device, s->physical_device, 4u * IMAGE_W * IMAGE_H, 1, &s->image);
    if (r == VK_SUCCESS) r = sample_buffer_create(s->device, s->physical_device, v4 + 256u, 1, &s->readback);
    if (r != VK_SUCCESS) {
        free(xyzw);
        return fail("creating the buffers", r);
    }
    memcpy(s->params.mapped, params, sizeof params);

    /* The kernels' own set: parameters, velocities, fluid state. */
    VkDescriptorSetLayoutBinding kb[3];
    for (uint32_t k = 0; k < 3; ++k)
        kb[k] = (VkDescriptorSetLayoutBinding){k, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo kli = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = 3, .pBindings = kb};
    r = vkCreateDescriptorSetLayout(s->device, &kli, NULL, &s->kernel_layout);
    if (r != VK_SUCCESS) {
        free(xyzw);
        return fail("vkCreateDescriptorSetLayout", r);
    }
    fenns_kernel_info density = {fenns_kernel_dam_density, sizeof fenns_kernel_dam_density, s->kernel_layout};
    fenns_kernel_info forces = {fenns_kernel_dam_forces, sizeof fenns_kernel_dam_forces, s->kernel_layout};
    fenns_pipeline_create_info pci = {0};
    pci.radius = radius;
    pci.max_particles = s->n;
    pci.domain_max[0] = (float)SPH_TANK_X;
    pci.domain_max[1] = (float)SPH_TANK_Y;
    pci.domain_max[2] = (float)SPH_TANK_Z;
    pci.kernel = &density;
    fr = fenns_pipeline_create(s->context, &pci, &s->density);
    pci.kernel = &forces;
    if (fr == FENNS_SUCCESS) fr = fenns_pipeline_create(s->context, &pci, &s->forces);
    if (fr == FENNS_SUCCESS) fr = fenns_descriptor_arena_create(s->context, &s->arena);
    if (fr != FENNS_SUCCESS) {
        free(xyzw);
        fprintf(stderr, "fenns-sph: error: fenns_pipeline_create: %s\n", fenns_result_string(fr));
        return 1;
    }
    fenns_memory_requirements req;
    fenns_pipeline_get_scratch_requirements(s->density, s->n, &req);
    r = sample_buffer_create(s->device, s->physical_device, req.size, 0, &s->scratch);
    if (r != VK_SUCCESS) {
        free(xyzw);
        return fail("creating the scratch", r);
    }

    r = own_pipeline(s, sph_integrate_spv, sizeof sph_integrate_spv, 4, 4, &s->integrate_layout, &s->integrate_pl,
                     &s->integrate);
    if (r == VK_SUCCESS)
        r = own_pipeline(s, sph_splat_spv, sizeof sph_splat_spv, 3, 16, &s->splat_layout, &s->splat_pl, &s->splat);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 10};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 3,
                                      .poolSizeCount = 1, .pPoolSizes = &ps};
    if (r == VK_SUCCESS) r = vkCreateDescriptorPool(s->device, &dpi, NULL, &s->descriptor_pool);
    const sample_buffer *kernel_bufs[3] = {&s->params, &s->velocities, &s->fluid};
    const sample_buffer *integrate_bufs[4] = {&s->params, &s->positions, &s->velocities, &s->accel};
    const sample_buffer *splat_bufs[3] = {&s->positions, &s->velocities, &s->image};
    if (r == VK_SUCCESS) r = allocate_set(s, s->kernel_layout, &s->kernel_set, kernel_bufs, 3);
    if (r == VK_SUCCESS) r = allocate_set(s, s->integrate_layout, &s->integrate_set, integrate_bufs, 4);
    if (r == VK_SUCCESS) r = allocate_set(s, s->splat_layout, &s->splat_set, splat_bufs, 3);
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = fenns_headless_queue_family(s->headless)};
    if (r == VK_SUCCESS) r = vkCreateCommandPool(s->device, &cpi, NULL, &s->pool);
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (r == VK_SUCCESS) r = vkCreateFence(s->device, &fi, NULL, &s->fence);
    VkCommandBuffer cmds[2];
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = s->pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 2};
    if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(s->device, &cai, cmds);
    if (r != VK_SUCCESS) {
        free(xyzw);
        return fail("creating the sample's pipelines and command buffers", r);
    }
    s->steps_cmd = cmds[0];
    s->frame_cmd = cmds[1];

    /* Upload: positions, zero velocities. */
    memcpy(s->readback.mapped, xyzw, (size_t)v4);
    free(xyzw);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkBeginCommandBuffer(s->frame_cmd, &bi), "vkBeginCommandBuffer");
    VkBufferCopy c = {0, 0, v4};
    vkCmdCopyBuffer(s->frame_cmd, s->readback.buffer, s->positions.buffer, 1, &c);
    vkCmdFillBuffer(s->frame_cmd, s->velocities.buffer, 0, VK_WHOLE_SIZE, 0u);
    sample_full_barrier(s->frame_cmd);
    VK_CHECK(vkEndCommandBuffer(s->frame_cmd), "vkEndCommandBuffer");
    VK_CHECK(submit_and_wait(s, s->frame_cmd), "the upload");
    return 0;
}

/* `count` steps: build, density, forces, integrate; reusable. */
static int record_steps(sim *s, uint32_t count) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkResetCommandBuffer(s->steps_cmd, 0), "vkResetCommandBuffer");
    fenns_descriptor_arena_reset(s->arena); /* the only command buffer using it is not pending */
    VK_CHECK(vkBeginCommandBuffer(s->steps_cmd, &bi), "vkBeginCommandBuffer");
    VkCommandBuffer cmd = s->steps_cmd;
    sample_full_barrier(cmd); /* the previous submission's integrate -> this build */
    for (uint32_t k = 0; k < count; ++k) {
        fenns_build_info b = {.particle_count = s->n, .positions = sample_whole(&s->positions),
                              .scratch = sample_whole(&s->scratch), .descriptors = s->arena};
        fenns_cmd_build(cmd, s->density, &b);
        fenns_cmd_build_to_search_barrier(cmd, s->density);
        fenns_search_info si = {0};
        si.particle_count = s->n;
        si.positions = b.positions;
        si.scratch = b.scratch;
        si.descriptors = s->arena;
        si.outputs = FENNS_OUTPUT_KERNEL;
        si.kernel_output = sample_whole(&s->fluid);
        si.user_set = s->kernel_set;
        fenns_cmd_search(cmd, s->density, &si);
        sample_full_barrier(cmd);
        /* The forces pipeline has the density pipeline's plan (same create
         * info but the kernel), so it searches the same build. */
        si.kernel_output = sample_whole(&s->accel);
        fenns_cmd_search(cmd, s->forces, &si);
        sample_full_barrier(cmd);
        uint32_t n = s->n;
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->integrate);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->integrate_pl, 0, 1, &s->integrate_set, 0, NULL);
        vkCmdPushConstants(cmd, s->integrate_pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &n);
        vkCmdDispatch(cmd, (n + 255u) / 256u, 1, 1);
        sample_full_barrier(cmd);
    }
    fenns_scratch_layout layout;
    fenns_pipeline_get_scratch_layout(s->density, s->n, &layout);
    VkBufferCopy status = {layout.status_offset, 0, sizeof(fenns_status)};
    vkCmdCopyBuffer(cmd, s->scratch.buffer, s->readback.buffer, 1, &status);
    sample_full_barrier(cmd);
    VK_CHECK(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    return 0;
}

static int write_frame(sim *s, const char *dir, uint32_t index) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkCommandBuffer cmd = s->frame_cmd;
    VK_CHECK(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    vkCmdFillBuffer(cmd, s->image.buffer, 0, VK_WHOLE_SIZE, 0u);
    sample_full_barrier(cmd);
    uint32_t push[4] = {s->n, IMAGE_W, IMAGE_H, s->n > 200000u ? 0u : s->n > 30000u ? 1u : 2u};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->splat);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->splat_pl, 0, 1, &s->splat_set, 0, NULL);
    vkCmdPushConstants(cmd, s->splat_pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    vkCmdDispatch(cmd, (s->n + 255u) / 256u, 1, 1);
    sample_full_barrier(cmd);
    VK_CHECK(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VK_CHECK(submit_and_wait(s, cmd), "drawing a frame");
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%04u.png", dir, index);
    if (png_write_rgb_from_packed(path, s->image.mapped, IMAGE_W, IMAGE_H)) {
        fprintf(stderr, "fenns-sph: error: cannot write %s\n", path);
        return 1;
    }
    printf("fenns-sph: frame %u -> %s\n", index, path);
    fflush(stdout);
    return 0;
}

/* Mean and largest compression (rho / rho0 - 1 where positive) over the
 * particles, from the last density search's output. */
static int density_error(sim *s, double *mean, double *largest) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkResetCommandBuffer(s->frame_cmd, 0), "vkResetCommandBuffer");
    VK_CHECK(vkBeginCommandBuffer(s->frame_cmd, &bi), "vkBeginCommandBuffer");
    VkBufferCopy c = {0, 256u, 16u * (VkDeviceSize)s->n};
    vkCmdCopyBuffer(s->frame_cmd, s->fluid.buffer, s->readback.buffer, 1, &c);
    sample_full_barrier(s->frame_cmd);
    VK_CHECK(vkEndCommandBuffer(s->frame_cmd), "vkEndCommandBuffer");
    VK_CHECK(submit_and_wait(s, s->frame_cmd), "reading the densities");
    const float *fluid = (const float *)((const char *)s->readback.mapped + 256);
    double sum = 0.0, most = 0.0;
    for (uint32_t i = 0; i < s->n; ++i) {
        double e = fluid[4 * i] / SPH_REST_DENSITY - 1.0;
        if (e > 0.0) sum += e;
        if (e > most) most = e;
    }
    *mean = s->n ? sum / s->n : 0.0;
    *largest = most;
    return 0;
}

static void teardown(sim *s) {
    if (s->device) vkDeviceWaitIdle(s->device);
    sample_buffer *bufs[] = {&s->params, &s->positions, &s->velocities, &s->fluid, &s->accel, &s->scratch, &s->image,
                      &s->readback};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; ++k) sample_buffer_destroy(s->device, bufs[k]);
    if (s->fence) vkDestroyFence(s->device, s->fence, NULL);
    if (s->pool) vkDestroyCommandPool(s->device, s->pool, NULL);
    if (s->descriptor_pool) vkDestroyDescriptorPool(s->device, s->descriptor_pool, NULL);
    VkPipeline pipes[2] = {s->integrate, s->splat};
    VkPipelineLayout layouts[2] = {s->integrate_pl, s->splat_pl};
    VkDescriptorSetLayout sets[3] = {s->integrate_layout, s->splat_layout, s->kernel_layout};
    for (int k = 0; k < 2; ++k) {
        if (pipes[k]) vkDestroyPipeline(s->device, pipes[k], NULL);
        if (layouts[k]) vkDestroyPipelineLayout(s->device, layouts[k], NULL);
    }
    fenns_pipeline_destroy(s->density);
    fenns_pipeline_destroy(s->forces);
    fenns_descriptor_arena_destroy(s->arena);
    for (int k = 0; k < 3; ++k)
        if (sets[k]) vkDestroyDescriptorSetLayout(s->device, sets[k], NULL);
    fenns_context_destroy(s->context);
    fenns_headless_destroy(s->headless);
}

static int run(sim *s, const options *o) {
    float spacing, dt;
    if (setup(s, o, &spacing, &dt)) return 1;
    if (o->frames && mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "fenns-sph: error: cannot create %s: %s\n", o->out, strerror(errno));
        return 1;
    }
    printf("fenns-sph: %u particles, spacing %.4g m, radius %.4g m, dt %.3g s, %u steps (%.3f s of flow)\n", s->n,
           (double)spacing, (double)(2.4f * spacing), (double)dt, o->steps, (double)(dt * (float)o->steps));
    uint32_t per_block = o->frames ? (o->steps + o->frames - 1u) / o->frames : o->steps, recorded = 0, frame = 0;
    if (o->frames && write_frame(s, o->out, frame++)) return 1;
    double gpu_ms = 0.0;
    for (uint32_t done = 0; done < o->steps;) {
        uint32_t count = o->steps - done < per_block ? o->steps - done : per_block;
        if (count != recorded) {
            if (record_steps(s, count)) return 1;
            recorded = count;
        }
        double t0 = now_ms();
        VK_CHECK(submit_and_wait(s, s->steps_cmd), "the steps");
        gpu_ms += now_ms() - t0;
        done += count;
        const fenns_status *st = s->readback.mapped;
        if (st->incomplete_queries) {
            fprintf(stderr, "fenns-sph: error: %u particles need more loop iterations than this driver runs in one "
                            "shader invocation (llvmpipe); use fewer particles per neighbourhood or a GPU\n",
                    st->incomplete_queries);
            return 1;
        }
        printf("fenns-sph: step %u/%u, %.2f ms per step\n", done, o->steps, gpu_ms / done);
        if (o->frames && write_frame(s, o->out, frame++)) return 1;
    }
    const fenns_status *st = s->readback.mapped;
    double neighbours = s->n ? (double)st->total_neighbors / s->n : 0.0, mean = 0.0, largest = 0.0;
    if (density_error(s, &mean, &largest)) return 1;
    if (fenns_headless_validation_message_count(s->headless) > 0) {
        fprintf(stderr, "fenns-sph: error: %u Vulkan validation messages\n",
                fenns_headless_validation_message_count(s->headless));
        return 1;
    }
    printf("fenns-sph: %u particles, %u steps, %.3f ms per step, %.1f neighbours on average, density error %.2f%% "
           "mean / %.2f%% max compression, %u frames in %s\n",
           s->n, o->steps, gpu_ms / o->steps, neighbours, 100.0 * mean, 100.0 * largest, o->frames ? frame : 0u,
           o->frames ? o->out : "(none)");
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    sim s;
    memset(&s, 0, sizeof s);
    rc = run(&s, &o);
    teardown(&s);
    return rc;
}
