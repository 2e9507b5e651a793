/* The device-wide exclusive scan (reduce-then-scan over blocks of
 * FENNS_SCAN_ITEMS * workgroup elements, recursing on the block sums). */
#include "pipeline.h"

static void scan_level(VkCommandBuffer cmd, fenns_pipeline p, VkBuffer scratch, VkDeviceSize sums_offset,
                       VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer, VkDeviceSize out_offset,
                       uint32_t count_in, uint32_t count) {
    uint64_t block = fenns_plan_scan_block(&p->plan);
    uint64_t blocks = (count + block - 1) / block;
    VkDeviceSize in_bytes = 4u * (VkDeviceSize)(count_in ? count_in : 1u);
    VkDeviceSize out_bytes = 4u * (VkDeviceSize)count;
    VkDeviceSize sums_bytes = 4u * (VkDeviceSize)(blocks ? blocks : 1u);
    fenns_bindings b = {0};
    fenns__bind(&b, FENNS_BINDING_SCAN_IN, in_buffer, in_offset, in_bytes);
    fenns__bind(&b, FENNS_BINDING_SCAN_OUT, out_buffer, out_offset, out_bytes);
    fenns__bind(&b, FENNS_BINDING_SCAN_SUMS, scratch, sums_offset, sums_bytes);
    fenns_push pc = fenns__push_base(p, 0);
    pc.count = count;
    pc.count_in = count_in;
    pc.mode = blocks > 1 ? 1u : 0u;
    fenns__dispatch(cmd, p, FENNS_PASS_scan_block, &b, &pc, blocks);
    if (blocks <= 1) return;
    fenns__barrier(cmd, p);
    /* The block sums scanned in place; their own sums go right after them. */
    VkDeviceSize next = (sums_offset + sums_bytes + 255u) / 256u * 256u; /* offset alignment */
    scan_level(cmd, p, scratch, next, scratch, sums_offset, scratch, sums_offset, (uint32_t)blocks,
               (uint32_t)blocks);
    fenns__barrier(cmd, p);
    fenns_bindings add = {0};
    fenns__bind(&add, FENNS_BINDING_SCAN_OUT, out_buffer, out_offset, out_bytes);
    fenns__bind(&add, FENNS_BINDING_SCAN_SUMS, scratch, sums_offset, sums_bytes);
    fenns__dispatch(cmd, p, FENNS_PASS_scan_add, &add, &pc, blocks);
}

void fenns__record_scan(VkCommandBuffer cmd, fenns_pipeline p, VkBuffer scratch, VkDeviceSize sums_offset,
                        VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer, VkDeviceSize out_offset,
                        uint32_t count_in, uint32_t count) {
    if (count == 0) return;
    scan_level(cmd, p, scratch, sums_offset, in_buffer, in_offset, out_buffer, out_offset, count_in, count);
}

/* The CSR offsets: u32 counts in, u64 offsets out, u64 block sums (scanned
 * in place at the levels above). */
static void scan64_level(VkCommandBuffer cmd, fenns_pipeline p, VkBuffer scratch, VkDeviceSize sums_offset,
                         VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer, VkDeviceSize out_offset,
                         uint32_t count_in, uint32_t count, int wide_in) {
    uint64_t block = fenns_plan_scan_block(&p->plan);
    uint64_t blocks = (count + block - 1) / block;
    VkDeviceSize out_bytes = 8u * (VkDeviceSize)count;
    VkDeviceSize sums_bytes = 8u * (VkDeviceSize)(blocks ? blocks : 1u);
    fenns_bindings b = {0};
    if (wide_in) /* the input is the output itself; the u32 view stands in */
        fenns__bind(&b, FENNS_BINDING_SCAN_IN, out_buffer, out_offset, out_bytes);
    else
        fenns__bind(&b, FENNS_BINDING_SCAN_IN, in_buffer, in_offset, 4u * (VkDeviceSize)(count_in ? count_in : 1u));
    fenns__bind(&b, FENNS_BINDING_SCAN_OUT, out_buffer, out_offset, out_bytes);
    fenns__bind(&b, FENNS_BINDING_SCAN_SUMS, scratch, sums_offset, sums_bytes);
    fenns_push pc = fenns__push_base(p, 0);
    pc.count = count;
    pc.count_in = count_in;
    pc.mode = (blocks > 1 ? 1u : 0u) | (wide_in ? 2u : 0u);
    fenns__dispatch(cmd, p, FENNS_PASS_scan64_block, &b, &pc, blocks);
    if (blocks <= 1) return;
    fenns__barrier(cmd, p);
    VkDeviceSize next = (sums_offset + sums_bytes + 255u) / 256u * 256u; /* offset alignment */
    scan64_level(cmd, p, scratch, next, scratch, sums_offset, scratch, sums_offset, (uint32_t)blocks,
                 (uint32_t)blocks, 1);
    fenns__barrier(cmd, p);
    fenns_bindings add = {0};
    fenns__bind(&add, FENNS_BINDING_SCAN_OUT, out_buffer, out_offset, out_bytes);
    fenns__bind(&add, FENNS_BINDING_SCAN_SUMS, scratch, sums_offset, sums_bytes);
    fenns__dispatch(cmd, p, FENNS_PASS_scan64_add, &add, &pc, blocks);
}

void fenns__record_scan64(VkCommandBuffer cmd, fenns_pipeline p, VkBuffer scratch, VkDeviceSize sums_offset,
                          VkBuffer in_buffer, VkDeviceSize in_offset, VkBuffer out_buffer, VkDeviceSize out_offset,
                          uint32_t count_in, uint32_t count) {
    if (count == 0) return;
    scan64_level(cmd, p, scratch, sums_offset, in_buffer, in_offset, out_buffer, out_offset, count_in, count, 0);
}
