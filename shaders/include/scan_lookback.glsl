// A device-wide scan in one dispatch (LOOKBACK 1, pipelines of their own:
// fenns_pass scan_lookback and scan64_lookback): a decoupled look-back.
// Each workgroup takes its block by ticket, so every block it waits on has
// started; it scans its block, publishes the block's total at once, then
// adds up the totals of the blocks before it, nearest first, until one
// that has published the sum of everything up to it (its inclusive sum),
// publishes its own inclusive sum, and writes its block from there. Where a
// scan is two dispatches (the blocks' totals, then the scan), each costs a
// GPU a launch and a drain, and the input is read twice.
//
// The states live at scan_sums, zeroed by a pass before the scan (the
// coarse count before the cell scan, reset status before the offsets scan:
// dispatches that run anyway, pc.capacity_hi there): 16 bytes each, the
// ticket's first, then block b's at 16 (b + 1): its state | the high word of
// its total << 2, the total's low word, its inclusive sum (low, high).
//
// Only GPUs run it, and only short scans (fenns_plan_scan_looks_back:
// longer ones wait along their chain of blocks). On lavapipe run on
// several threads, blocks that had waited wrote nothing and marked nothing
// (with polls bounded, and without `continue` or `break` in the poll loop:
// cause not found); fenns never looks back there, and its tests check the
// one-dispatch sums on GPUs and the giving up below everywhere. Where the
// driver stops loops after
// a fixed number of iterations (llvmpipe: LOOKBACK_POLLS 1), a block polls
// at most FENNS_SCAN_LOOKBACK_POLLS times; one that gives up starts from the totals
// it has added, no more than its true start, so everything written stays
// within the scanned range, and marks the pass's output incomplete
// (pc.mode & 16: the search's incomplete_queries, else the build's
// sort_incomplete, which every later search reports). LOOKBACK_POLLS 2
// gives up at once (the tests' FENNS_SCAN_LOOKBACK=2).
layout(constant_id = 4) const uint LOOKBACK = 0;
layout(constant_id = 7) const uint LOOKBACK_POLLS = 0;
// Every word read and written by atomics (in L2): declared coherent, the
// binding made the two-dispatch scans' reads of their block sums slower
// too (H200, the offsets scan of 4M counts 0.044 -> 0.048 ms).
layout(std430, binding = FENNS_BINDING_SCAN_SUMS) buffer Lookback { uint lookback[]; };

// A word the look-back reads: an atomic load, relaxed, on the device's
// scope (the memoryBarrierBuffer after a state orders its values' loads
// after it). Read by atomicOr(0) instead, each read a read-modify-write,
// the one-dispatch scans took 0.2-0.6 us longer (H200, run UD: the cell
// scan at sph50 65536 0.0114 -> 0.0110 ms, 131072 0.0125 -> 0.0120; the
// offsets scan at 16384 0.0110 -> 0.0107, dam 16384 0.0109 -> 0.0105).
uint polled(uint at) { return atomicLoad(lookback[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed); }

#define SCAN_PENDING 0u   // nothing published yet
#define SCAN_OWN 1u       // its block's total
#define SCAN_INCLUSIVE 2u // and the sum of every block before it

shared uint s_scan_block;
shared uvec2 s_scan_before;

bool scan_lookback() { return LOOKBACK != 0u; }

// The block this workgroup scans (every invocation calls it).
uint lookback_block() {
    if (gl_LocalInvocationIndex == 0u) s_scan_block = atomicAdd(lookback[0], 1u);
    barrier();
    return s_scan_block;
}

// The value words, then the state word after a barrier on buffer memory, so
// that a block that reads the state finds them.
void publish_block(uint block, uint state, uvec2 v) {
    uint at = 4u * (block + 1u);
    if (state == SCAN_OWN) atomicExchange(lookback[at + 1u], v.x);
    else {
        atomicExchange(lookback[at + 2u], v.x);
        atomicExchange(lookback[at + 3u], v.y);
    }
    memoryBarrierBuffer();
    atomicExchange(lookback[at], state | (state == SCAN_OWN ? v.y << 2u : 0u));
}

// The sum of the blocks before `block` (> 0), read by one subgroup, each
// lane a block. `failed`: the polls ran out (then the sum is of the blocks
// added so far).
uvec2 look_back(uint block, out bool failed) {
    uvec2 before = uvec2(0u);
    failed = false;
    uint lane = gl_SubgroupInvocationID, polls = 0u;
    uint poll_limit = LOOKBACK_POLLS == 2u ? 0u : FENNS_SCAN_LOOKBACK_POLLS;
    int nearest = int(block) - 1; // the nearest block not yet added
    bool done = false;
    while (!done) {
        if (LOOKBACK_POLLS != 0u && polls++ >= poll_limit) {
            failed = true;
            done = true;
        } else {
            int j = nearest - int(lane);
            uint word = j >= 0 ? polled(4u * uint(j + 1)) : SCAN_INCLUSIVE; // before block 0: nothing
            uint state = word & 3u;
            uvec4 ends = subgroupBallot(state == SCAN_INCLUSIVE);
            uint end = ends == uvec4(0u) ? gl_SubgroupSize : subgroupBallotFindLSB(ends);
            if (subgroupBallot(lane < end && state == SCAN_PENDING) == uvec4(0u)) { // else poll again
                memoryBarrierBuffer();
                uvec2 v = uvec2(0u);
                uint at = 4u * uint(max(j, 0) + 1);
                if (j >= 0 && lane < end) v = uvec2(polled(at + 1u), word >> 2u);
                if (j >= 0 && lane == end) v = uvec2(polled(at + 2u), polled(at + 3u));
                before = add64(before, subgroup_add64(v));
                done = end < gl_SubgroupSize;
                nearest -= int(gl_SubgroupSize);
            }
        }
    }
    return before;
}

// The sum of the blocks before `block`, whose own total is `own`: published,
// looked back, shared with the workgroup (every invocation calls it).
uvec2 lookback_start(uint block, uvec2 own) {
    if (gl_SubgroupID == 0u) {
        bool failed = false;
        uvec2 before = uvec2(0u);
        if (subgroupElect()) publish_block(block, block == 0u ? SCAN_INCLUSIVE : SCAN_OWN, own);
        if (block > 0u) {
            before = look_back(block, failed);
            if (subgroupElect()) publish_block(block, SCAN_INCLUSIVE, add64(before, own));
        }
        if (subgroupElect()) {
            s_scan_before = before;
            if (failed && (pc.mode & 16u) != 0u) atomicAdd(prm.incomplete_queries, 1u);
            else if (failed) atomicAdd(prm.sort_incomplete, 1u);
        }
    }
    barrier();
    return s_scan_before;
}
