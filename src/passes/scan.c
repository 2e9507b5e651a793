/* The device-wide exclusive scans over blocks of FENNS_SCAN_ITEMS * workgroup
 * elements: u32 -> u32 for the cell tables, u32 counts -> u64 CSR offsets.
 * Either reduce, then scan, recursing on the block sums (each level reads
 * its input twice and writes its output once), or, where the caller has
 * zeroed the look-back's states, one dispatch that reads the input once
 * (scan_lookback.glsl). */
#include "pipeline.h"

/* One flavour of the scan: its passes and the bytes of an output element. */
typedef struct scan_kind {
    fenns_pass reduce, block, lookback;
    VkDeviceSize out_bytes; /* 4 or 8; the block sums have the same width */
} scan_kind;

static const scan_kind scan_u32 = {FENNS_PASS_scan_reduce, FENNS_PASS_scan_block, FENNS_PASS_scan_lookback, 4};
static const scan_kind scan_u64 = {FENNS_PASS_scan64_reduce, FENNS_PASS_scan64_block, FENNS_PASS_scan64_lookback, 8};

/* wide_in: the input is `out` itself, already out_bytes wide (the block sums
 * of a lower level of the u64 scan, scanned in place). */
static void scan_level(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena, const scan_kind *kind,
                       const fenns_scan_place *at, VkDeviceSize sums_offset, VkBuffer in_buffer, VkDeviceSize in_offset,
                       VkBuffer out_buffer, VkDeviceSize out_offset, uint32_t count_in, uint32_t count, int wide_in) {
    VkBuffer scratch = at->scratch;
    uint64_t block = fenns_plan_scan_block(&p->plan);
    uint64_t blocks = (count + block - 1) / block;
    VkDeviceSize in_bytes = (wide_in ? kind->out_bytes : 4u) * (VkDeviceSize)(count_in ? count_in : 1u);
    VkDeviceSize out_bytes = kind->out_bytes * (VkDeviceSize)count;
    VkDeviceSize sums_bytes = kind->out_bytes * (VkDeviceSize)(blocks ? blocks : 1u);
    fenns_bindings b = {.arena = arena};
    fenns__bind(&b, FENNS_BINDING_SCAN_IN, in_buffer, in_offset, in_bytes);
    fenns__bind(&b, FENNS_BINDING_SCAN_OUT, out_buffer, out_offset, out_bytes);
    fenns__bind(&b, FENNS_BINDING_PARAMS, scratch, at->params_offset, sizeof(fenns_gpu_params));
    fenns_push pc = fenns__push_base(p, 0);
    pc.count = count;
    pc.count_in = count_in;
    if (blocks > 1 && at->lookback != FENNS_SCAN_TWO_DISPATCHES) {
        /* One dispatch: the blocks' states where the sums would go. */
        fenns__bind(&b, FENNS_BINDING_SCAN_SUMS, scratch, sums_offset, fenns_plan_scan_lookback_bytes(&p->plan, count));
        pc.mode = at->lookback == FENNS_SCAN_LOOKBACK_SEARCH ? 16u : 0u;
        fenns__dispatch(cmd, p, kind->lookback, &b, &pc, blocks);
        return;
    }
    fenns__bind(&b, FENNS_BINDING_SCAN_SUMS, scratch, sums_offset, sums_bytes);
    pc.mode = (blocks > 1 ? 1u : 0u) | (wide_in ? 2u : 0u);
    if (blocks > 1) {
        /* The blocks' totals first. */
        fenns__dispatch(cmd, p, kind->reduce, &b, &pc, blocks);
        fenns__barrier(cmd, p);
        if (blocks <= p->plan.scan_direct_blocks) {
            /* Few enough blocks that each sums the totals before it itself:
             * two dispatches instead of a level of recursion's three or more. */
            pc.mode |= 4u;
        } else {
            /* The totals scanned in place into each block's start; their own
             * sums go right after them. */
            VkDeviceSize next = (sums_offset + sums_bytes + 255u) / 256u * 256u; /* offset alignment */
            fenns_scan_place level = {at->scratch, at->params_offset, FENNS_SCAN_TWO_DISPATCHES};
            scan_level(cmd, p, arena, kind, &level, next, scratch, sums_offset, scratch, sums_offset,
                       (uint32_t)blocks, (uint32_t)blocks, kind->out_bytes == 8u);
            fenns__barrier(cmd, p);
        }
    }
    fenns__dispatch(cmd, p, kind->block, &b, &pc, blocks);
}

void fenns__record_scan(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena, const fenns_scan_place *at,
                        VkDeviceSize sums_offset, VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer,
                        VkDeviceSize out_offset, uint32_t count_in, uint32_t count) {
    if (count == 0) return;
    scan_level(cmd, p, arena, &scan_u32, at, sums_offset, in_buffer, in_offset, out_buffer, out_offset, count_in, count, 0);
}

void fenns__record_scan64(VkCommandBuffer cmd, fenns_pipeline p, fenns_descriptor_arena arena, const fenns_scan_place *at,
                          VkDeviceSize sums_offset, VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer,
                          VkDeviceSize out_offset, uint32_t count_in, uint32_t count) {
    if (count == 0) return;
    scan_level(cmd, p, arena, &scan_u64, at, sums_offset, in_buffer, in_offset, out_buffer, out_offset, count_in, count, 0);
}
