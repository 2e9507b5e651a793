// Workgroup-wide exclusive scan on subgroup operations, correct for every
// subgroup size from 4 to 128 (shared totals sized for the worst case).
shared uint s_subgroup_totals[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];

// Must be called by every invocation of the workgroup (uniform control flow).
uint workgroup_exclusive_scan(uint v, out uint total) {
    uint inclusive = subgroupInclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) s_subgroup_totals[gl_SubgroupID] = inclusive;
    barrier();
    // Hillis-Steele over the (at most 64) subgroup totals.
    uint t = gl_LocalInvocationIndex;
    for (uint offset = 1u; offset < gl_NumSubgroups; offset <<= 1u) {
        uint add = (t < gl_NumSubgroups && t >= offset) ? s_subgroup_totals[t - offset] : 0u;
        barrier();
        if (t < gl_NumSubgroups) s_subgroup_totals[t] += add;
        barrier();
    }
    uint before = gl_SubgroupID > 0u ? s_subgroup_totals[gl_SubgroupID - 1u] : 0u;
    total = s_subgroup_totals[gl_NumSubgroups - 1u];
    barrier(); // the totals are reused by the next call
    return before + inclusive - v;
}

// A block of a device-wide scan, read and written coalesced: each
// subgroup takes FENNS_SCAN_ITEMS * (its invocations) consecutive elements
// of the block, its invocation l the elements l, l + lanes, l + 2 lanes,
// ... of them. Consecutive invocations then load and store consecutive
// elements. (Each invocation's elements consecutive instead spread a
// subgroup's loads over 4 * FENNS_SCAN_ITEMS bytes an invocation and its
// u64 stores over 8 * FENNS_SCAN_ITEMS. H100, striped against that: the
// offsets scan of 4M counts 0.065 -> 0.048 ms, of 16M 0.242 -> 0.159, of
// 1M 0.027 -> 0.023; the cell scan of 4M keys 0.040 -> 0.037; run FD.
// Eight consecutive elements an invocation were slower still: the cell
// scan 0.039 -> 0.062, run FC.)
// Subgroups are the workgroup's consecutive invocations (as
// workgroup_exclusive_scan assumes); `lanes` is this one's size.
uint striped_lanes() {
    return min(gl_SubgroupSize, gl_WorkGroupSize.x - (gl_LocalInvocationIndex - gl_SubgroupInvocationID));
}
uint striped_element(uint block_first, uint k) {
    uint subgroup_first = gl_LocalInvocationIndex - gl_SubgroupInvocationID;
    return block_first + subgroup_first * FENNS_SCAN_ITEMS + k * striped_lanes() + gl_SubgroupInvocationID;
}

// The exclusive scan of a block held striped (v[k]: element
// striped_element(first, k)), in place; returns the block's total. Sums
// must fit 32 bits. Must be called by every invocation of the workgroup.
uint striped_block_scan(inout uint v[FENNS_SCAN_ITEMS]) {
    uint segment = 0u; // the subgroup's elements before row k
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) {
        uint x = v[k];
        v[k] = segment + subgroupExclusiveAdd(x);
        segment += subgroupAdd(x);
    }
    // The segments before this subgroup's: each subgroup's last invocation
    // brings its segment's total into the workgroup's scan, the others 0.
    uint total;
    uint before = workgroup_exclusive_scan(gl_SubgroupInvocationID == striped_lanes() - 1u ? segment : 0u, total);
    for (uint k = 0u; k < FENNS_SCAN_ITEMS; ++k) v[k] += before;
    return total;
}

// This invocation's share of the sum of array[0..count) (type T, summed
// with ADD), the workgroup's invocations striding over it with four loads
// in flight each: one at a time, the last blocks of a device-wide scan
// would wait on chains of 32 L2 round trips (scan_block.comp, the work
// list's second pass). `share` holds the start (zero) and the result.
uint add32(uint a, uint b) { return a + b; }
#define WORKGROUP_SHARE_OF_SUM(T, ADD, array, count, share)                              \
    for (uint b0_ = gl_LocalInvocationIndex; b0_ < (count); b0_ += 4u * gl_WorkGroupSize.x) { \
        T v4_[4];                                                                        \
        for (uint k_ = 0u; k_ < 4u; ++k_) v4_[k_] = array[min(b0_ + k_ * gl_WorkGroupSize.x, (count) - 1u)]; \
        for (uint k_ = 0u; k_ < 4u; ++k_)                                                \
            if (b0_ + k_ * gl_WorkGroupSize.x < (count)) share = ADD(share, v4_[k_]);   \
    }

// A workgroup's sum that costs no barrier of its own where one follows
// anyway (a workgroup scan's): each subgroup posts its sum to shared memory
// before the barrier; after it, every invocation adds the posts up (at most
// 64). On a CPU driver each barrier is a switch through all invocations.
// Declared only where asked for (FENNS_POSTED_SUMS, FENNS_POSTED_SUMS64):
// shared arrays count against every includer's budget.
#ifdef FENNS_POSTED_SUMS
shared uint s_posted[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];
void post_workgroup_sum(uint v) {
    uint s = subgroupAdd(v);
    if (subgroupElect()) s_posted[gl_SubgroupID] = s;
}
uint posted_workgroup_sum() {
    uint s = 0u;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) s += s_posted[i];
    return s;
}
#endif
#ifdef FENNS_POSTED_SUMS64
shared uvec2 s_posted64[FENNS_MAX_WORKGROUP / FENNS_MIN_SUBGROUP];
void post_workgroup_sum64(uvec2 v) {
    uvec2 s = subgroup_add64(v);
    if (subgroupElect()) s_posted64[gl_SubgroupID] = s;
}
uvec2 posted_workgroup_sum64() {
    uvec2 s = uvec2(0u);
    for (uint i = 0u; i < gl_NumSubgroups; ++i) s = add64(s, s_posted64[i]);
    return s;
}
#endif

// Exclusive scan of a shared array of `len` entries in place, each thread
// owning a run of consecutive entries; returns the sum of all entries.
#define SHARED_ARRAY_EXCLUSIVE_SCAN(array, len, result_total)                      \
    {                                                                              \
        uint per_ = ((len) + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;         \
        uint begin_ = min(gl_LocalInvocationIndex * per_, (len));                  \
        uint end_ = min(begin_ + per_, (len));                                     \
        uint sum_ = 0u;                                                            \
        for (uint i_ = begin_; i_ < end_; ++i_) sum_ += array[i_];                 \
        uint run_ = workgroup_exclusive_scan(sum_, result_total);                  \
        for (uint i_ = begin_; i_ < end_; ++i_) {                                  \
            uint v_ = array[i_];                                                   \
            array[i_] = run_;                                                      \
            run_ += v_;                                                            \
        }                                                                          \
        barrier();                                                                 \
    }

// x << (16 * digit) as u64: a 16-bit digit's scan put back in its place
// (scan64_block.comp's wide blocks).
uvec2 shifted64(uint x, uint digit) {
    if (digit == 0u) return uvec2(x, 0u);
    if (digit == 1u) return uvec2(x << 16u, x >> 16u);
    if (digit == 2u) return uvec2(0u, x);
    return uvec2(0u, x << 16u);
}
