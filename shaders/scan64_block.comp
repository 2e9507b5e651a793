#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require // scan_lookback.glsl's atomic loads
// The CSR offsets scan (reduce, then scan; see scan_block.comp): each block
// of FENNS_SCAN_ITEMS * workgroup u32 counts (pc.mode & 2: u64 block sums
// of a lower level, in place) scanned into u64 offsets and written once,
// from the block's start in scan_sums when pc.mode & 1 (more than one
// block: scan64_reduce.comp's totals, scanned in place) or, pc.mode & 4,
// from the sum of the unscanned totals before it (scan_block.comp).
// LOOKBACK 1: the whole scan in this one dispatch (scan_lookback.glsl).
#include "header.glsl"
#define USE_SCAN64
#define USE_PARAMS
#define PARAMS_ACCESS
#include "bindings.glsl"
#define FENNS_POSTED_SUMS64
#include "scan.glsl"
#include "scan_lookback.glsl"

// The block's exclusive scan, striped (scan.glsl's striped_block_scan), of
// u64 values: one u32 scan where no value passes 2^32 - 1 over the block's
// size (its total then fits 32 bits: neighbour counts, nearly always), else
// four scans of 16-bit digits put back together with carries.
shared uint s_block_wide; // nonzero: some value of the block is larger
void striped_block_scan64(uvec2 v[FENNS_SCAN_ITEMS], out uvec2 prefix[FENNS_SCAN_ITEMS]) {
    if (gl_LocalInvocationIndex == 0u) s_block_wide = 0u;
    barrier();
    uint narrow_most = 0xFFFFFFFFu / (gl_WorkGroupSize.x * FENNS_SCAN_ITEMS);
    bool wide = false;
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) wide = wide || v[k].y != 0u || v[k].x > narrow_most;
    if (subgroupBallot(wide) != uvec4(0u) && subgroupElect()) atomicOr(s_block_wide, 1u);
    barrier();
    uint part[FENNS_SCAN_ITEMS];
    if (s_block_wide == 0u) { // (written once a dispatch: no barrier needed after this read)
        for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) part[k] = v[k].x;
        striped_block_scan(part);
        for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) prefix[k] = uvec2(part[k], 0u);
        return;
    }
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) prefix[k] = uvec2(0u);
    for (uint d = 0u; d < 4u; ++d) {
        for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) part[k] = ((d < 2u ? v[k].x : v[k].y) >> (16u * (d & 1u))) & 0xFFFFu;
        striped_block_scan(part);
        for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) prefix[k] = add64(prefix[k], shifted64(part[k], d));
    }
}

void main() {
    uint block = scan_lookback() ? lookback_block() : linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    bool wide_in = (pc.mode & 2u) != 0u;
    uvec2 v[FENNS_SCAN_ITEMS];
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = striped_element(first, k);
        v[k] = idx >= pc.count_in ? uvec2(0u) : wide_in ? scan_out[idx] : uvec2(scan_in[idx], 0u);
    }
    // pc.mode & 4: the totals of the blocks before (scan_block.comp).
    if ((pc.mode & 4u) != 0u) {
        uvec2 before = uvec2(0u);
        WORKGROUP_SHARE_OF_SUM(uvec2, add64, scan_sums, block, before)
        post_workgroup_sum64(before);
    }
    // Looking back: the block's total, posted before the scan's barriers.
    if (scan_lookback()) {
        uvec2 mine = uvec2(0u);
        for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) mine = add64(mine, v[k]);
        post_workgroup_sum64(mine);
    }
    uvec2 prefix[FENNS_SCAN_ITEMS];
    striped_block_scan64(v, prefix);
    uvec2 start = scan_lookback()        ? lookback_start(block, posted_workgroup_sum64())
                  : (pc.mode & 4u) != 0u ? posted_workgroup_sum64()
                  : (pc.mode & 1u) != 0u ? scan_sums[block]
                                         : uvec2(0u);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = striped_element(first, k);
        if (idx < pc.count) scan_out[idx] = add64(start, prefix[k]);
    }
}
