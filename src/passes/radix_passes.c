/* The radix method's build passes (Green's grid): keys, the stable radix
 * sort of (key, index) pairs 4 bits a pass, each key's run from where the
 * sorted keys change, and the gather of the sorted particles. The sort's
 * arrays ping-pong through the scratch's sorted-particle region; its last
 * pass writes the values straight into the permutation. */
#include "passes.h"

/* u32 array k (0..3) of the sort, in the sorted-particle region. */
static VkDeviceSize radix_array(const fenns_frame *f, uint32_t k) {
    return f->scratch.offset + f->layout.sorted.offset + k * f->layout.radix_array_stride;
}

static void bind_array(fenns_bindings *b, const fenns_frame *f, uint32_t binding, uint32_t k) {
    fenns__bind(b, binding, f->scratch.buffer, radix_array(f, k), 4u * (VkDeviceSize)(f->n ? f->n : 1u));
}

/* Where pass `pass` of `passes` reads (`pass`) and writes (`pass + 1`) its
 * keys and values: keys alternate between arrays 0 and 1, values between 2
 * and 3, and the last pass's values go to the permutation. */
static void bind_values(fenns_bindings *b, const fenns_frame *f, uint32_t binding, uint32_t pass, uint32_t passes) {
    if (pass == passes) fenns__bind_region(b, f, binding, f->layout.perm);
    else bind_array(b, f, binding, 2u + pass % 2u);
}

void fenns__pass_radix_keys(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_positions(&b, p, f);
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    bind_array(&b, f, FENNS_BINDING_RADIX_KEYS_OUT, 0);
    bind_values(&b, f, FENNS_BINDING_RADIX_VALUES_OUT, 0, fenns_plan_radix_passes(&p->plan));
    fenns_push pc = fenns__push_base(p, f->n);
    pc.gpu_count = fenns__uses_gpu_count(f);
    fenns__dispatch(cmd, p, FENNS_PASS_radix_keys, &b, &pc, fenns__grid_stride_groups(p, f));
}

void fenns__pass_radix_sort(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    const uint32_t passes = fenns_plan_radix_passes(&p->plan);
    const uint64_t tiles = fenns_plan_radix_tiles(&p->plan, f->n);
    const uint32_t entries = (uint32_t)(FENNS_RADIX_DIGITS * tiles);
    const VkDeviceSize histogram = f->scratch.offset + f->layout.radix_histogram.offset;
    if (tiles == 0) return;
    for (uint32_t pass = 0; pass < passes; ++pass) {
        if (pass) fenns__barrier(cmd, p);
        fenns_push pc = fenns__push_base(p, f->n);
        pc.count = (uint32_t)tiles;
        pc.mode = pass * FENNS_RADIX_BITS; /* the digit's shift */
        fenns_bindings count = {.arena = f->arena};
        bind_array(&count, f, FENNS_BINDING_RADIX_KEYS_IN, pass % 2u);
        fenns__bind_region(&count, f, FENNS_BINDING_RADIX_HISTOGRAM, f->layout.radix_histogram);
        fenns__dispatch(cmd, p, FENNS_PASS_radix_count, &count, &pc, tiles);
        fenns__barrier(cmd, p);
        fenns_scan_place at = {f->scratch.buffer, f->scratch.offset + f->layout.params.offset, FENNS_SCAN_TWO_DISPATCHES};
        fenns__record_scan(cmd, p, f->arena, &at, f->scratch.offset + f->layout.scan_sums.offset, f->scratch.buffer,
                           histogram, f->scratch.buffer, histogram, entries, entries);
        fenns__barrier(cmd, p);
        fenns_bindings scatter = {.arena = f->arena};
        bind_array(&scatter, f, FENNS_BINDING_RADIX_KEYS_IN, pass % 2u);
        bind_values(&scatter, f, FENNS_BINDING_RADIX_VALUES_IN, pass, passes);
        bind_array(&scatter, f, FENNS_BINDING_RADIX_KEYS_OUT, (pass + 1u) % 2u);
        bind_values(&scatter, f, FENNS_BINDING_RADIX_VALUES_OUT, pass + 1u, passes);
        fenns__bind_region(&scatter, f, FENNS_BINDING_RADIX_HISTOGRAM, f->layout.radix_histogram);
        fenns__dispatch(cmd, p, FENNS_PASS_radix_scatter, &scatter, &pc, tiles);
    }
}

void fenns__pass_radix_bounds(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_region(&b, f, FENNS_BINDING_CELLS, f->layout.cells);
    bind_array(&b, f, FENNS_BINDING_RADIX_KEYS_IN, fenns_plan_radix_passes(&p->plan) % 2u);
    fenns_push pc = fenns__push_base(p, f->n);
    fenns__dispatch(cmd, p, FENNS_PASS_radix_bounds, &b, &pc, fenns__grid_stride_groups(p, f));
}

void fenns__pass_radix_gather(VkCommandBuffer cmd, fenns_pipeline p, const fenns_frame *f) {
    fenns_bindings b = {.arena = f->arena};
    fenns__bind_positions(&b, p, f);
    fenns__bind_sorted(&b, p, f);
    fenns__bind_region(&b, f, FENNS_BINDING_PARAMS, f->layout.params);
    fenns__bind_region(&b, f, FENNS_BINDING_PERM, f->layout.perm);
    fenns_push pc = fenns__push_base(p, f->n);
    pc.gpu_count = fenns__uses_gpu_count(f);
    fenns__dispatch(cmd, p, FENNS_PASS_radix_gather, &b, &pc, fenns__grid_stride_groups(p, f));
}
