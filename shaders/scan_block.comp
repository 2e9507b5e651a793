#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require // scan_lookback.glsl's atomic loads
// Device-wide exclusive scan of u32 (reduce, then scan): each block of
// FENNS_SCAN_ITEMS * workgroup elements scanned and written once, from the
// block's start in scan_sums when pc.mode & 1 (more than one block:
// scan_reduce.comp's totals, scanned in place) -- or, pc.mode & 4, from the
// sum of the unscanned totals before it, which each block adds itself where
// there are at most fenns_plan.scan_direct_blocks (two dispatches instead
// of a level of recursion's three or more: H100, the cell scan of 4M keys
// 0.056 -> 0.038 ms, the offsets scan of 4M counts 0.085 -> 0.067, of 1M
// 0.048 -> 0.028). Reading the input twice and writing once beats scanning
// blocks, then adding their starts (a second read and write of the
// output): H100, the cell scan of 4M keys 0.058 -> 0.056 ms, the offsets
// scan of 4M counts 0.100 -> 0.085, of 2^26 1.18 -> 0.93.
//
// LOOKBACK 1: the whole scan in this one dispatch (scan_lookback.glsl).
#include "header.glsl"
#define USE_SCAN
#define USE_PARAMS
#define PARAMS_ACCESS
#include "bindings.glsl"
#define FENNS_POSTED_SUMS
#include "scan.glsl"
#include "scan_lookback.glsl"

void main() {
    uint block = scan_lookback() ? lookback_block() : linear_workgroup();
    uint first = block * gl_WorkGroupSize.x * FENNS_SCAN_ITEMS;
    if (first >= pc.count) return;
    uint v[FENNS_SCAN_ITEMS];
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = striped_element(first, k);
        v[k] = idx < pc.count_in ? scan_in[idx] : 0u;
    }
    // pc.mode & 4: the totals of the blocks before, unscanned, summed here
    // (scan.glsl's WORKGROUP_SHARE_OF_SUM), posted before the block's scan,
    // whose barriers make the sum readable.
    if ((pc.mode & 4u) != 0u) {
        uint before = 0u;
        WORKGROUP_SHARE_OF_SUM(uint, add32, scan_sums, block, before)
        post_workgroup_sum(before);
    }
    uint total = striped_block_scan(v);
    uint start = scan_lookback()        ? lookback_start(block, uvec2(total, 0u)).x
                 : (pc.mode & 4u) != 0u ? posted_workgroup_sum()
                 : (pc.mode & 1u) != 0u ? scan_sums[block]
                                        : 0u;
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint idx = striped_element(first, k);
        if (idx < pc.count) scan_out[idx] = start + v[k];
    }
}
