/* The methods: which passes a build and a search record, in which order,
 * with the buffers each touches (every method shares the search; radix
 * builds with its own sort); and the
 * argument checks of fenns_cmd_* and fenns_get_*_passes. */
#include <string.h>

#include "methods/arguments.h"
#include "passes/passes.h"

/* Checks what a build and a search share; logs and returns 0 on a bad argument. */
static int check_common(fenns_pipeline p, uint32_t n, const fenns_buffer_range *positions,
                        const fenns_buffer_range *scratch, const char *who) {
    const char *bad = NULL;
    if (n > p->plan.max_particles) bad = "particle_count exceeds the pipeline's max_particles";
    else if (n && !fenns__range_ok(positions, 16u * (VkDeviceSize)n)) bad = "positions range is null or smaller than 16*n bytes";
    else if (n && !fenns__aligned(p, positions->offset)) bad = "positions offset is not a multiple of minStorageBufferOffsetAlignment";
    else bad = fenns__scratch_problem(p, n, scratch);
    if (bad) fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: %s; nothing recorded", who, bad);
    return bad == NULL;
}

/* Recording needs a descriptor arena where the device has no push
 * descriptors (listing the passes does not). Without one: logged, and only
 * the status mark is recorded (the rest of the info is valid, so its scratch
 * is), so that neither this call nor a later search of its build passes
 * for complete. */
static int can_record(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *rec, const char *who) {
    if (p->ctx->push_descriptors || rec->f.arena) return 1;
    fenns__log(p->ctx, FENNS_LOG_ERROR,
               "%s: descriptors (a fenns_descriptor_arena) is required: the device has no push descriptors; "
               "only the status is recorded, marking every query incomplete",
               who);
    fenns__mark_incomplete(cmd, p, &rec->f);
    return 0;
}

static uint32_t describe(const fenns_steps *s, fenns_pass_info *out) {
    for (uint32_t k = 0; k < s->count; ++k) out[k] = s->items[k].info;
    return s->count;
}

static void record_pass(VkCommandBuffer cmd, fenns_pipeline p, const fenns_steps *s, const fenns_recording *rec,
                        uint32_t pass, const char *who) {
    if (pass >= s->count)
        fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: pass %u, but this info has %u passes; nothing recorded", who, pass,
                   s->count);
    else
        fenns__record_step(cmd, p, s, rec, pass);
}

/* Stages and accesses the steps declare: what the pass's pipelines may do to
 * each bound range (a binding the shader does not qualify readonly counts as
 * read and write, as synchronization validation counts it). */
#define CS VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
#define XFER VK_PIPELINE_STAGE_TRANSFER_BIT
#define R VK_ACCESS_SHADER_READ_BIT
#define RW (VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT)

static void clear_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) { fenns__pass_clear(cmd, p, &r->f); }
static void domain_reduce_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_domain_reduce(cmd, p, &r->f);
}
static void grid_setup_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_grid_setup(cmd, p, &r->f);
}
static void density_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_density(cmd, p, &r->f);
}
static void coarse_count_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_coarse_count(cmd, p, &r->f); /* Algorithm 1 */
}
static void cell_scan_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_cell_scan(cmd, p, &r->f);
}
static void cell_cursors_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_cell_cursors(cmd, p, &r->f);
}
static void reorder_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    /* Algorithm 2; fenns' cell order writes the sorted particles instead. */
    fenns__pass_reorder(cmd, p, &r->f, p->plan.method != FENNS_METHOD_FENNS);
}
static void section_order_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_section_order(cmd, p, &r->f);
}
static void cell_order_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_cell_order(cmd, p, &r->f);
}
static void cell_order_wide_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_cell_order_wide(cmd, p, &r->f);
}
static void section_sort_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_section_sort(cmd, p, &r->f); /* large cells only */
}
static void radix_keys_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_radix_keys(cmd, p, &r->f);
}
static void radix_sort_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_radix_sort(cmd, p, &r->f);
}
static void radix_bounds_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_radix_bounds(cmd, p, &r->f);
}
static void radix_gather_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_radix_gather(cmd, p, &r->f);
}
static void search_work_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_search_work(cmd, p, &r->f);
}

/* A compute pass of the build: it reads and writes the scratch, and some
 * read the positions too. */
static void build_step(fenns_steps *s, const fenns_build_info *info, int reads_positions, const char *name,
                       fenns_step_fn record, uint64_t bytes) {
    fenns_step *st = fenns__step(s, name, record, bytes);
    if (reads_positions) fenns__access(st, FENNS_RESOURCE_POSITIONS, &info->positions, CS, R);
    fenns__access(st, FENNS_RESOURCE_SCRATCH, &info->scratch, CS, RW);
}

/* A build step whose dispatch reads its workgroup count from the scratch
 * (as the search's does): its scratch access gains DRAW_INDIRECT. */
static void indirect(fenns_step *st) {
    for (uint32_t k = 0; k < st->info.access_count; ++k)
        if (st->info.accesses[k].resource == FENNS_RESOURCE_SCRATCH) {
            st->info.accesses[k].stages |= VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
            st->info.accesses[k].accesses |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
        }
}

/* The last step reads the caller's GPU count too. */
static void read_gpu_count(fenns_steps *s, const fenns_build_info *info) {
    fenns__access(&s->items[s->count - 1u], FENNS_RESOURCE_PARTICLE_COUNT, &info->particle_count_buffer, CS, R);
}

/* Whether two ranges share bytes of one buffer. */
static int overlap(const fenns_buffer_range *a, const fenns_buffer_range *b) {
    return a->buffer == b->buffer && a->offset < b->offset + b->range && b->offset < a->offset + a->range;
}

/* Point sets: what is wrong with a build's grid source, or NULL. The source
 * is another build's scratch, whose status block (at its start) the grid
 * setup reads. */
static const char *grid_source_problem(fenns_pipeline p, const fenns_build_info *info) {
    if (p->plan.method != FENNS_METHOD_FENNS) return "grid_source (point sets) needs the fenns method";
    if (info->radius != 0.0f || info->domain)
        return "grid_source takes the source build's radius and box: radius must be 0 and domain NULL";
    const char *bad = fenns__scratch_problem(p, 0, &info->grid_source);
    if (bad) return "grid_source range is null, misaligned or smaller than a scratch";
    if (overlap(&info->grid_source, &info->scratch)) return "grid_source overlaps the build's own scratch";
    return NULL;
}

/* The build's steps; 0 (logged) for a refused info. */
static int build_steps(fenns_pipeline p, const fenns_build_info *info, const char *who, fenns_recording *rec,
                       fenns_steps *s) {
    if (!info) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: null info; nothing recorded", who);
        return 0;
    }
    if (!check_common(p, info->particle_count, &info->positions, &info->scratch, who)) return 0;
    const char *bad = NULL;
    if (info->radius != 0.0f && !fenns_plan_radius_ok(info->radius))
        bad = "radius must be 0 (the pipeline's) or finite and > 0";
    else if (info->domain)
        bad = fenns_plan_domain_problem(info->domain->min, info->domain->max);
    else if (info->particle_count_buffer.buffer && !fenns__range_ok(&info->particle_count_buffer, sizeof(uint32_t)))
        bad = "particle_count_buffer range is smaller than 4 bytes";
    else if (info->particle_count_buffer.buffer && !fenns__aligned(p, info->particle_count_buffer.offset))
        bad = "particle_count_buffer offset is not a multiple of minStorageBufferOffsetAlignment";
    else if (info->grid_source.buffer)
        bad = grid_source_problem(p, info);
    if (bad) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: %s; nothing recorded", who, bad);
        return 0;
    }
    *rec = (fenns_recording){.profile = info->profile};
    fenns__frame_init(&rec->f, p, info->particle_count, &info->positions, &info->scratch);
    if (info->radius != 0.0f) rec->f.radius = info->radius;
    if (info->domain) {
        rec->f.user_domain = 1;
        memcpy(rec->f.domain_min, info->domain->min, sizeof rec->f.domain_min);
        memcpy(rec->f.domain_max, info->domain->max, sizeof rec->f.domain_max);
    }
    rec->f.particle_count_buffer = info->particle_count_buffer;
    rec->f.grid_source = info->grid_source;
    rec->f.grid_particle_count = info->grid_particle_count;
    rec->f.arena = info->descriptors;
    s->count = 0;
    const uint64_t n = info->particle_count, keys = p->plan.section_keys;
    const int deterministic = p->plan.method == FENNS_METHOD_FENNS;
    /* The two passes before the count is in the scratch read the caller's. */
    const int gpu_count = info->particle_count_buffer.buffer != VK_NULL_HANDLE;
    const int grid_source = info->grid_source.buffer != VK_NULL_HANDLE; /* no box of its own to find */
    /* The status block's first values: a fill before the domain reduce,
     * else grid setup's first workgroup writes them (one pass and barrier
     * fewer: H100, sph50 4M build 0.4795 -> 0.4741 ms, s1 r=0.2 0.5074 -> 0.5051). */
    const int domain_reduce = !rec->f.user_domain && !grid_source;
    rec->f.grid_setup_clears = !domain_reduce;
    if (domain_reduce) {
        fenns__access(fenns__step(s, "clear", clear_step, sizeof(fenns_gpu_params)), FENNS_RESOURCE_SCRATCH,
                      &info->scratch, XFER, VK_ACCESS_TRANSFER_WRITE_BIT);
        build_step(s, info, 1, "domain reduce", domain_reduce_step, 16u * n);
        if (gpu_count) read_gpu_count(s, info);
    }
    /* fenns: the density a sample of the particles sees, where fine cells
     * would be wider than a margin (none where grid setup finds them
     * narrower), sizing the grid once more (below); grid setup zeroes its
     * histogram with the counted entries. */
    uint32_t sized_for = info->grid_particle_count > info->particle_count ? info->grid_particle_count : info->particle_count;
    if (!grid_source && fenns_plan_may_ask_density(p->plan.method, rec->f.radius, (int)rec->f.user_domain,
                                                  rec->f.domain_min, rec->f.domain_max, sized_for))
        rec->f.density_bins = fenns_plan_density_bins(&p->plan, info->particle_count);
    build_step(s, info, 0, "grid setup", grid_setup_step,
               4u * ((uint64_t)fenns_plan_count_entries(&p->plan) + 1u + rec->f.density_bins));
    if (gpu_count) read_gpu_count(s, info);
    if (grid_source) fenns__access(&s->items[s->count - 1u], FENNS_RESOURCE_GRID_SOURCE, &info->grid_source, CS, R);
    if (rec->f.density_bins) {
        build_step(s, info, 1, "density", density_step, 4u * (uint64_t)rec->f.density_bins);
        indirect(&s->items[s->count - 1u]);
    }
    if (p->plan.method == FENNS_METHOD_RADIX) {
        /* Green: keys, their sort (each digit pass reads keys and values
         * twice and writes them once), the cells' runs, the gather. */
        const uint64_t passes = fenns_plan_radix_passes(&p->plan);
        build_step(s, info, 1, "radix keys", radix_keys_step, 24u * n);
        build_step(s, info, 0, "radix sort", radix_sort_step, passes * 20u * n);
        build_step(s, info, 0, "cell bounds", radix_bounds_step, 8u * n + 4u * keys);
        build_step(s, info, 0, "cell scan", cell_scan_step, 8u * keys);
        build_step(s, info, 1, "gather", radix_gather_step, 36u * n);
    } else {
        const uint64_t counted = fenns_plan_count_entries(&p->plan);
        /* Keeping ranks, the count writes 8 bytes a particle and the reorder
         * reads them in place of its 16 (its pipeline may read positions, so
         * it still declares them). */
        const int ranked = fenns_plan_ranked(&p->plan);
        build_step(s, info, 1, "coarse count", coarse_count_step, (ranked ? 24u : 16u) * n + 4u * counted);
        build_step(s, info, 0, "cell scan", cell_scan_step, 8u * counted);
        /* fenns' reorder advances its sections' or coarse cells' starts themselves. */
        if (!deterministic) build_step(s, info, 0, "cell cursors", cell_cursors_step, 12u * keys);
        build_step(s, info, 1, "reorder", reorder_step, (ranked ? 16u : deterministic ? 24u : 40u) * n);
        if (deterministic) {
            if (p->plan.by_cell) {
                build_step(s, info, 1, "cell order", cell_order_step, 44u * n + 4u * keys);
                build_step(s, info, 1, "cell order (wide)", cell_order_wide_step, 4u * (uint64_t)p->plan.cell_capacity);
                indirect(&s->items[s->count - 1u]); /* its workgroup count from the cell order */
            } else {
                build_step(s, info, 1, "section order", section_order_step, 48u * n);
            }
            build_step(s, info, 1, "section sort", section_sort_step, 4u * (uint64_t)p->plan.cell_capacity);
            indirect(&s->items[s->count - 1u]); /* its workgroup count from the order pass */
        }
    }
    /* Ranked builds on a GPU list the search's work in the section order
     * (plan.work_list_in_order, fenns__pass_section_order). */
    if (!p->plan.work_list_in_order)
        build_step(s, info, 0, "search work", search_work_step, 12u * (uint64_t)p->plan.cell_capacity);
    return 1;
}

void fenns_cmd_build(VkCommandBuffer cmd, fenns_pipeline p, const fenns_build_info *info) {
    if (!p) return;
    fenns_recording rec;
    fenns_steps s;
    if (!cmd) fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_build: null command buffer; nothing recorded");
    else if (build_steps(p, info, "fenns_cmd_build", &rec, &s) && can_record(cmd, p, &rec, "fenns_cmd_build"))
        fenns__record_steps(cmd, p, &s, &rec, "build");
}

uint32_t fenns_get_build_passes(fenns_pipeline p, const fenns_build_info *info, fenns_pass_info *out) {
    if (!p) return 0;
    fenns_recording rec;
    fenns_steps s;
    if (!out) fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_get_build_passes: out is null");
    else if (build_steps(p, info, "fenns_get_build_passes", &rec, &s)) return describe(&s, out);
    return 0;
}

void fenns_cmd_build_pass(VkCommandBuffer cmd, fenns_pipeline p, const fenns_build_info *info, uint32_t pass) {
    if (!p) return;
    fenns_recording rec;
    fenns_steps s;
    if (!cmd) fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_build_pass: null command buffer; nothing recorded");
    else if (build_steps(p, info, "fenns_cmd_build_pass", &rec, &s) && can_record(cmd, p, &rec, "fenns_cmd_build_pass"))
        record_pass(cmd, p, &s, &rec, pass, "fenns_cmd_build_pass");
}

void fenns_cmd_build_to_search_barrier(VkCommandBuffer cmd, fenns_pipeline p) {
    if (p && cmd) fenns__barrier(cmd, p);
}

/* Point sets: whether the candidates are another build's particles (a
 * candidate_scratch other than the search's own scratch). */
static int other_candidates(const fenns_search_info *info) {
    const fenns_buffer_range *c = &info->candidate_scratch;
    return c->buffer != VK_NULL_HANDLE && (c->buffer != info->scratch.buffer || c->offset != info->scratch.offset);
}

/* What is wrong with another build as the candidates, or NULL. */
static const char *candidates_problem(fenns_pipeline p, const fenns_search_info *info) {
    if (p->plan.method != FENNS_METHOD_FENNS) return "candidate_scratch (point sets) needs the fenns method";
    if (info->candidate_count > p->plan.max_particles) return "candidate_count exceeds the pipeline's max_particles";
    if (fenns__scratch_problem(p, info->candidate_count, &info->candidate_scratch))
        return "candidate_scratch range is misaligned or smaller than the scratch requirements of candidate_count";
    if (overlap(&info->candidate_scratch, &info->scratch)) return "candidate_scratch overlaps the search's scratch";
    return NULL;
}

/* Checks a search info; logs and returns 0 on a bad argument. */
static int check_search(fenns_pipeline p, const fenns_search_info *info, const char *who) {
    if (!check_common(p, info->particle_count, &info->positions, &info->scratch, who)) return 0;
    uint32_t n = info->particle_count;
    fenns_output_flags out = info->outputs;
    const char *bad = NULL;
    const VkDeviceSize bytes_n = 4u * (VkDeviceSize)(n ? n : 1u);
    const fenns_output_flags known = FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED | FENNS_OUTPUT_SORTED_LISTS |
                                      FENNS_OUTPUT_COUNTS_READY | FENNS_OUTPUT_SORTED_ORDER | FENNS_OUTPUT_KERNEL;
    const int kernel = (out & FENNS_OUTPUT_KERNEL) != 0;
    if (!out || (out & ~known)) bad = "outputs is 0 or has unknown bits";
    else if (kernel && !p->pipelines[FENNS_PASS_search_kernel]) bad = "KERNEL output, but the pipeline has no kernel";
    else if (kernel && (out & ~(fenns_output_flags)(FENNS_OUTPUT_KERNEL | FENNS_OUTPUT_COUNTS | FENNS_OUTPUT_SORTED_ORDER)))
        bad = "KERNEL combines only with COUNTS and SORTED_ORDER";
    else if (kernel && info->kernel_output.buffer &&
             (!fenns__range_ok(&info->kernel_output, 16u * (VkDeviceSize)(n ? n : 1u)) || !fenns__aligned(p, info->kernel_output.offset)))
        bad = "kernel_output range is misaligned or smaller than 16*n bytes";
    else if (kernel && p->kernel_layout && info->user_set == VK_NULL_HANDLE)
        bad = "user_set is null, but the kernel has a user_set_layout";
    else if ((out & FENNS_OUTPUT_CSR) && (out & FENNS_OUTPUT_FIXED)) bad = "CSR and FIXED outputs are exclusive";
    else if ((out & FENNS_OUTPUT_COUNTS_READY) && !(out & FENNS_OUTPUT_CSR)) bad = "COUNTS_READY needs CSR";
    else if ((!kernel || (out & FENNS_OUTPUT_COUNTS)) && (!fenns__range_ok(&info->counts, bytes_n) || !fenns__aligned(p, info->counts.offset)))
        bad = "counts range is null, misaligned or smaller than 4*n bytes";
    else if ((out & FENNS_OUTPUT_CSR) && (!fenns__range_ok(&info->offsets, 8u * ((VkDeviceSize)n + 1u)) || !fenns__aligned(p, info->offsets.offset)))
        bad = "offsets range is null, misaligned or smaller than 8*(n+1) bytes";
    else if ((out & (FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED)) && (!fenns__range_ok(&info->indices, 4u) || !fenns__aligned(p, info->indices.offset)))
        bad = "indices range is null, misaligned or empty";
    else if ((out & FENNS_OUTPUT_FIXED) && info->fixed_capacity == 0) bad = "fixed_capacity is 0";
    else if ((out & FENNS_OUTPUT_FIXED) && info->indices.range < 4u * (VkDeviceSize)n * info->fixed_capacity)
        bad = "indices range is smaller than 4*n*fixed_capacity bytes";
    else if ((out & (FENNS_OUTPUT_CSR | FENNS_OUTPUT_FIXED)) && info->indices.range / 4u > p->ctx->limits.max_list_entries)
        bad = "indices range exceeds fenns_device_limits.max_list_entries";
    else if ((out & FENNS_OUTPUT_SORTED_ORDER) && info->sorted_to_original.buffer != VK_NULL_HANDLE &&
             (!fenns__range_ok(&info->sorted_to_original, bytes_n) || info->sorted_to_original.offset % 4u))
        bad = "sorted_to_original range is smaller than 4*n bytes or its offset not a multiple of 4";
    else if (other_candidates(info))
        bad = candidates_problem(p, info);
    if (bad) fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: %s; nothing recorded", who, bad);
    return bad == NULL;
}

static void reset_status_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_reset_status(cmd, p, &r->f, r->counts_ready, r->counts_ready || r->counts_for_lists);
    /* Another scratch region than the status: no barrier between the two. */
    if (r->sorted_to_original.buffer != VK_NULL_HANDLE && r->f.n)
        fenns__copy_permutation(cmd, p, &r->f, &r->sorted_to_original);
}
static void kernel_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_search_kernel(cmd, p, &r->f, &r->candidates, &r->o, &r->k);
}
static void fixed_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_search(cmd, p, &r->f, &r->candidates, &r->o, FENNS_MODE_FIXED, 0, 0);
}
static void count_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_search(cmd, p, &r->f, &r->candidates, &r->o, FENNS_MODE_COUNT, r->counts_for_lists, r->counts_for_lists);
}
static void offsets_scan_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_offsets_scan(cmd, p, &r->f, &r->o);
}
static void fill_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_search(cmd, p, &r->f, &r->candidates, &r->o, FENNS_MODE_CSR, !r->counts_ready || r->counts_own,
                       !r->counts_ready);
}
static void list_sort_step(VkCommandBuffer cmd, fenns_pipeline p, const fenns_recording *r) {
    fenns__pass_list_sort(cmd, p, &r->f, &r->o);
}

/* A search pass reads the build (and its workgroup count) from the scratch
 * and updates the status there. */
static fenns_step *search_step(fenns_steps *s, const char *name, fenns_step_fn record, uint64_t bytes,
                               const fenns_search_info *info) {
    fenns_step *st = fenns__step(s, name, record, bytes);
    fenns__access(st, FENNS_RESOURCE_SCRATCH, &info->scratch, CS | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                  RW | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    if (other_candidates(info)) fenns__access(st, FENNS_RESOURCE_CANDIDATE_SCRATCH, &info->candidate_scratch, CS, R);
    return st;
}

/* The search's steps; 0 (logged) for a refused info. */
static int search_steps(fenns_pipeline p, const fenns_search_info *info, const char *who, fenns_recording *rec,
                        fenns_steps *s) {
    if (!info) {
        fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: null info; nothing recorded", who);
        return 0;
    }
    if (!check_search(p, info, who)) return 0;
    const uint32_t n = info->particle_count;
    const fenns_output_flags out = info->outputs;
    const int kernel = (out & FENNS_OUTPUT_KERNEL) != 0;
    *rec = (fenns_recording){.profile = info->profile,
                             .counts_ready = (out & FENNS_OUTPUT_CSR) && (out & FENNS_OUTPUT_COUNTS_READY)};
    fenns__frame_init(&rec->f, p, n, &info->positions, &info->scratch);
    rec->f.arena = info->descriptors;
    rec->candidates = rec->f;
    if (other_candidates(info)) {
        const fenns_buffer_range none = {0};
        fenns__frame_init(&rec->candidates, p, info->candidate_count, &none, &info->candidate_scratch);
    }
    rec->o = (fenns_outputs){info->counts, info->offsets, info->indices, info->fixed_capacity,
                             (out & FENNS_OUTPUT_SORTED_ORDER) ? 1u : 0u};
    rec->k = (fenns_kernel_outputs){info->kernel_output, (out & FENNS_OUTPUT_COUNTS) != 0, info->user_set};
    if (out & FENNS_OUTPUT_SORTED_ORDER) rec->sorted_to_original = info->sorted_to_original;
    s->count = 0;
    const fenns_buffer_range *scr = &info->scratch;
    const uint64_t entries = (out & FENNS_OUTPUT_CSR) ? info->indices.range / 4u : 0u;

    /* The status cleared by a dispatch; the permutation copied out by a transfer. */
    fenns_step *st = fenns__step(s, "reset status", reset_status_step, 16u);
    fenns__access(st, FENNS_RESOURCE_SCRATCH, scr, CS | XFER, RW | VK_ACCESS_TRANSFER_READ_BIT);
    if (rec->sorted_to_original.buffer != VK_NULL_HANDLE)
        fenns__access(st, FENNS_RESOURCE_SORTED_TO_ORIGINAL, &rec->sorted_to_original, XFER, VK_ACCESS_TRANSFER_WRITE_BIT);
    if (kernel) {
        st = search_step(s, "search (kernel)", kernel_step, (16u + 16u) * (uint64_t)n, info);
        if (out & FENNS_OUTPUT_COUNTS) fenns__access(st, FENNS_RESOURCE_COUNTS, &info->counts, CS, RW);
        if (info->kernel_output.buffer) fenns__access(st, FENNS_RESOURCE_KERNEL_OUTPUT, &info->kernel_output, CS, RW);
        if (p->kernel_layout) fenns__access(st, FENNS_RESOURCE_USER_SET, NULL, CS, RW);
        return 1;
    }
    if (out & FENNS_OUTPUT_FIXED) {
        st = search_step(s, "search (fixed lists)", fixed_step, (16u + 4u) * (uint64_t)n, info);
        fenns__access(st, FENNS_RESOURCE_COUNTS, &info->counts, CS, RW);
        fenns__access(st, FENNS_RESOURCE_INDICES, &info->indices, CS, RW);
        return 1;
    }
    if (!rec->counts_ready) {
        rec->counts_for_lists = (out & FENNS_OUTPUT_CSR) != 0;
        /* (A counts search alone reads its counts once more for its total.) */
        st = search_step(s, "search (counts)", count_step, (16u + (rec->counts_for_lists ? 4u : 8u)) * (uint64_t)n, info);
        fenns__access(st, FENNS_RESOURCE_COUNTS, &info->counts, CS, RW);
        if (!(out & FENNS_OUTPUT_CSR)) return 1;
    }
    st = fenns__step(s, "offsets scan", offsets_scan_step, 12u * (uint64_t)n);
    fenns__access(st, FENNS_RESOURCE_COUNTS, &info->counts, CS, R);
    fenns__access(st, FENNS_RESOURCE_OFFSETS, &info->offsets, CS, RW);
    fenns__access(st, FENNS_RESOURCE_SCRATCH, scr, CS, RW);
    st = search_step(s, "search (fill lists)", fill_step, (16u + 8u) * (uint64_t)n + 4u * entries, info);
    fenns__access(st, FENNS_RESOURCE_COUNTS, &info->counts, CS, RW);
    fenns__access(st, FENNS_RESOURCE_OFFSETS, &info->offsets, CS, RW);
    fenns__access(st, FENNS_RESOURCE_INDICES, &info->indices, CS, RW);
    if (out & FENNS_OUTPUT_SORTED_LISTS) {
        st = fenns__step(s, "list sort", list_sort_step, 8u * entries + 8u * (uint64_t)n);
        fenns__access(st, FENNS_RESOURCE_SCRATCH, scr, CS, RW);
        fenns__access(st, FENNS_RESOURCE_OFFSETS, &info->offsets, CS, RW);
        fenns__access(st, FENNS_RESOURCE_INDICES, &info->indices, CS, RW);
    }
    return 1;
}

static void record_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_search_info *info, int counts_own,
                          const char *who) {
    if (!p) return;
    fenns_recording rec;
    fenns_steps s;
    if (!cmd) fenns__log(p->ctx, FENNS_LOG_ERROR, "%s: null command buffer; nothing recorded", who);
    else if (search_steps(p, info, who, &rec, &s) && can_record(cmd, p, &rec, who)) {
        rec.counts_own = counts_own && rec.counts_ready;
        fenns__record_steps(cmd, p, &s, &rec, "search");
    }
}

void fenns_cmd_search(VkCommandBuffer cmd, fenns_pipeline p, const fenns_search_info *info) {
    record_search(cmd, p, info, 0, "fenns_cmd_search");
}

void fenns__cmd_search_own_counts(VkCommandBuffer cmd, fenns_pipeline p, const fenns_search_info *info) {
    record_search(cmd, p, info, 1, "fenns_cmd_search");
}

uint32_t fenns_get_search_passes(fenns_pipeline p, const fenns_search_info *info, fenns_pass_info *out) {
    if (!p) return 0;
    fenns_recording rec;
    fenns_steps s;
    if (!out) fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_get_search_passes: out is null");
    else if (search_steps(p, info, "fenns_get_search_passes", &rec, &s)) return describe(&s, out);
    return 0;
}

void fenns_cmd_search_pass(VkCommandBuffer cmd, fenns_pipeline p, const fenns_search_info *info, uint32_t pass) {
    if (!p) return;
    fenns_recording rec;
    fenns_steps s;
    if (!cmd) fenns__log(p->ctx, FENNS_LOG_ERROR, "fenns_cmd_search_pass: null command buffer; nothing recorded");
    else if (search_steps(p, info, "fenns_cmd_search_pass", &rec, &s) && can_record(cmd, p, &rec, "fenns_cmd_search_pass"))
        record_pass(cmd, p, &s, &rec, pass, "fenns_cmd_search_pass");
}
