// What both search variants share: which coarse cell and query chunk a
// workgroup owns, and how a found neighbour is emitted in each output mode.
// Needs USE_PARAMS, USE_CELLS, USE_SORTED, USE_PERM, USE_COUNTS,
// USE_OFFSETS, USE_INDICES and grid.glsl.

struct work_item {
    uint cell;        // coarse cell key (cell_capacity: the invalid particles)
    uint query_begin; // sorted index of the chunk's first query
    uint query_end;   // one past the cell's last particle
};

#ifdef USE_WORK_ITEMS
// The workgroup's work item, as the search work pass listed it (WORK_ITEM);
// false past the end. One load, with the item count beside it, where each
// workgroup had found its cell among the scanned WORK_START table itself
// (search_work_item, below) and then loaded the cell's bounds (H100, 4M
// particles, counts search: s1 r=0.2 0.328 -> 0.303 ms, s3 r=0.3 0.322 ->
// 0.293, sph50 1.400 -> 1.379, 16M 5.617 -> 5.496; SPH-kernel search sph50
// 1.659 -> 1.623; run CG).
bool find_work(out work_item w) {
    uint id = linear_workgroup();
    // A dispatch of one row (workgroup_rows: up to 65535 items) has an item
    // for every workgroup, so the item is loaded at once; a longer one's
    // last row runs past the items, and the table's room.
    bool one_row = gl_NumWorkGroups.y == 1u && gl_NumWorkGroups.z == 1u;
    if (!one_row && id >= WORK_START(cell_count_with_invalid())) return false;
    uvec4 item = WORK_ITEM(id);
    if (one_row && id >= WORK_START(cell_count_with_invalid())) return false;
    w.cell = item.x;
    w.query_begin = item.y;
    w.query_end = item.z;
    return true;
}
#endif

// The same item, found by the workgroup among the scanned WORK_START table
// (kary_search.glsl: three rounds of one load where a binary search takes
// ~16 dependent loads). Every invocation must call it (it has barriers).
// fenns' list fill takes its items so: with them listed, its dense sets
// filled slower, however it still found them (H100, fill sph50 4M 2.980 ->
// 3.022 ms, in frame order 2.657 -> 2.846, cluster 3.90 -> 4.13, 16M 13.23
// -> 13.87; a barrier after the listed item's load as slow), though the
// searching took about as long as in the counts search, where it was
// dropped (run CG). (Declared where a search defines SEARCH_WORK_ITEM, so
// that the others hold no shared word for it.)
#ifdef SEARCH_WORK_ITEM
#include "kary_search.glsl"
shared uint s_work_cell;
// `chunk`: the queries a workgroup takes.
bool search_work_item(uint chunk, out work_item w) {
    uint id = linear_workgroup();
#ifdef USE_INDICES
    // The windowed fill runs a window's run of items, from the first
    // (window_items.comp). Added in either order: behind a test of the
    // order, the fills ran slower (H200, sph50 2^26, run SC: sorted order
    // 36.84 -> 37.44 ms, frame order 42.88 -> 43.39).
    if (LIST_WINDOWED != 0u) id += prm.window_item_base;
#endif
    uint cell_total = cell_count_with_invalid();
    if (id >= WORK_START(cell_total)) return false;
    // The largest cell whose work starts at or before id (cell 0's does).
    uint lo = 0u, hi = cell_total;
    KARY_SEARCH_LARGEST(lo, hi, s_work_cell, probe, WORK_START(probe) <= id)
    w.cell = lo;
    w.query_begin = cell_begin(lo) + (id - WORK_START(lo)) * chunk;
    w.query_end = cell_end(lo);
    return true;
}
#endif

// Where a particle's outputs go, and how lists name it: its original index,
// or with FENNS_OUTPUT_SORTED_ORDER its sorted position.
uint output_index(uint original, uint sorted_position) { return pc.sorted_order != 0u ? sorted_position : original; }

// Invalid particles have no neighbours: report 0 and write no list.
void finish_invalid(uint q) {
    if (q < pc.n && pc.mode != FENNS_MODE_CSR) counts[output_index(perm[q], q)] = 0u;
}

// Offset of neighbour number k (0..26, 13 is the cell itself).
ivec3 neighbour_offset(uint k) { return ivec3(int(k % 3u), int((k / 3u) % 3u), int(k / 9u)) - ivec3(1); }

// Table cell `center` moved by neighbour number k; false outside the grid.
// Along a folded axis (fewer table cells than grid cells) the table wraps
// around, as the grid cells folded onto it do.
bool neighbour_cell(uvec3 center, uint k, out uint key) {
    ivec3 n = ivec3(center) + neighbour_offset(k);
    ivec3 t = ivec3(table_dims());
    bvec3 folded = lessThan(table_dims(), coarse_dims());
    n = mix(n, (n + t) % t, folded);
    key = 0u;
    if (any(lessThan(n, ivec3(0))) || any(greaterThanEqual(n, t))) return false;
    key = table_key(uvec3(n));
    return true;
}

// Where list entries of query i go, and whether they fit.
struct list_target {
    uvec2 base;    // u64 entry index of the list's first entry
    uint capacity; // entries that may be written
};

#include "list_windows.glsl"

list_target list_target_of(uint i) {
    list_target t;
    t.base = list_start(i);
    t.capacity = 0u;
    if (pc.mode == FENNS_MODE_FIXED) {
        t.capacity = pc.capacity;
    } else if (pc.mode == FENNS_MODE_CSR) {
        uvec2 end = offsets[i + 1u];
        t.capacity = le64(end, uvec2(pc.capacity, pc.capacity_hi)) ? sub64(end, t.base).x : 0u;
    }
#ifdef USE_INDICES
    // The windowed searches' binding starts at their window's first entry:
    // a list there starts below pc.list_window_entries, a list of another
    // window (in_list_window) at a base whose high word wrapped or past it.
    // Those lists are never written, so only the low word is stored from.
    if (INDEX_CHUNKS == 1u && LIST_WINDOWED != 0u) {
        t.base = sub64(t.base, list_window_first());
        return t;
    }
    // The one-binding pipelines run only where every list lies within
    // 2^30 entries (lists_fit_one_binding in search_passes.c; fixed lists
    // are checked to fit their range, and a CSR list past the range has no
    // room): every entry they write has a high word of 0. Said so, the
    // compiler drops the carries of the list's 64-bit entry indices (H100,
    // with the fill's self test by sorted position, local_grid_fenns.glsl's
    // query_state.self: CSR sph50 4M 4.436 -> 4.372 ms, in frame order
    // 4.116 -> 3.971, dam 2.886 -> 2.776, cluster 4.71 -> 4.54; run EG).
    if (INDEX_CHUNKS == 1u) t.base.y = 0u;
#endif
    return t;
}

#ifdef USE_INDICES
// Whether this dispatch writes the list that starts at entry `base`
// (list_target_of's): every list, or those that start in its window
// (pc.list_window and _entries; see FENNS_LIST_WINDOW_SHIFT). Windows
// are recorded with the windowed and the chunked pipelines only, so the
// one-binding ones carry no test (H100, CSR with the test there: sph50 4M
// +1.3%, dam +2.4%, s1 r=0.2 +3.6%). The windowed ones' base is the
// window's already.
bool in_list_window(uvec2 base) {
    if (INDEX_CHUNKS == 1u && LIST_WINDOWED == 0u) return true;
    if (pc.list_window_entries == 0u) return true;
    uvec2 in_window = LIST_WINDOWED != 0u ? base : sub64(base, list_window_first());
    return in_window.y == 0u && in_window.x < pc.list_window_entries;
}

// Whether any of the queries at sorted positions [first, end) (end > first)
// writes its list in this dispatch. In sorted order their lists lie in
// query order, so a workgroup whose window this is not leaves before it
// builds anything; in original order they lie anywhere (true).
bool window_holds_lists(uint first, uint end) {
    if (INDEX_CHUNKS == 1u && LIST_WINDOWED == 0u) return true;
    if (pc.list_window_entries == 0u || pc.sorted_order == 0u) return true;
    uvec2 window = list_window_first();
    uvec2 window_end = add64(window, pc.list_window_entries);
    // Some list starts at or past the window's first entry, and some before its end.
    return le64(window, list_start(end - 1u)) && !le64(window_end, list_start(first));
}
#endif

// Whether this dispatch is the fill's first window (or its only one): what a
// search counts once per query whatever its window, such as a query it
// cannot search, it counts there (the particle-walking methods, whose
// windows each walk every query).
bool first_list_window() {
    return pc.list_window == 0u;
}

// A list that did not fit counts as one overflow; counts.
void finish_query(uint i, uint count, list_target t) {
    if (pc.mode != FENNS_MODE_CSR) counts[i] = count;
    if (pc.mode != FENNS_MODE_COUNT && count > t.capacity) atomicAdd(prm.list_overflow, 1u);
}

void add_to_total(uint v) {
    uint before = atomicAdd(prm.total_neighbors, v);
    if (before + v < before) atomicAdd(prm.total_neighbors_hi, 1u);
}

// The status's total and longest list. The total: sums added to the low
// word, each wrap carried into the high word (the carries add up to the
// same total in any order), one atomic per subgroup unless its sum could
// pass 2^32. A counts search (FENNS_MODE_COUNT) posts neither: every
// subgroup's atomic on the one word queues at one L2 slice, which short
// walks feel, so count_total.comp sums its counts after it and keeps the
// longest (H100, counts search: s1 4M r=1 0.535 -> 0.454 ms, octant's 0.739
// -> 0.574, sph50 4M 1.347 -> 1.342, s3 r=0.3 0.286 -> 0.285; runs KD and
// KF), where the CSR search's counting pass needs no total (its fill writes
// it from the offsets) and leaves the longest list to the fill, which
// walks the same queries (CSR s1 r=1 1.232 -> 1.226, sph50 4M 4.303 ->
// 4.290; run KF). Where its counts were the caller's (COUNTS_READY), the
// fill leaves the longest list as their search found it.
void add_total(uint count) {
#ifndef FENNS_KERNEL
    if (pc.mode == FENNS_MODE_COUNT) return; // count_total.comp posts both, or the fill the longest
#endif
    uint longest = subgroupMax(count);
    bool small = longest <= 0xFFFFFFFFu / gl_SubgroupSize;
#ifdef FENNS_KERNEL
    uint summed = count; // (kernel searches run in FENNS_MODE_KERNEL only)
#else
    uint summed = pc.mode == FENNS_MODE_CSR ? 0u : count;
#endif
    uint total = subgroupAdd(small ? summed : 0u);
    // CSR: the longest list where this search's own counting pass sized them.
    bool posts_longest = pc.mode != FENNS_MODE_CSR || pc.count != 0u;
    if (subgroupElect() && longest != 0u) {
        if (total != 0u) add_to_total(total);
        // Every subgroup's atomics on one address queue at one L2 slice,
        // so the atomicMax is skipped where it could change nothing: the
        // maximum only grows from the reset before the search, so a value
        // read at or above this subgroup's longest, however stale, means
        // the stored one already is (a plain read: an atomic load queues at
        // the same slice and kept only half the gain). Nearly every
        // subgroup skips once the first few have written (H100, counts
        // search: s1 4M r=1 0.679 -> 0.553 ms, s1 r=0.2 0.359 -> 0.335,
        // cluster 4M 2.081 -> 2.035, sph50 4M 1.417 -> 1.408). The sum
        // stays one atomic a subgroup: summed per workgroup first, its
        // barriers or shared counters cost the dense sets more than the
        // sparse ones gained (runs BN, BP).
        if (posts_longest && longest > prm.max_neighbors) atomicMax(prm.max_neighbors, longest);
    }
    if (!small && summed != 0u) add_to_total(summed);
    if (pc.mode == FENNS_MODE_CSR && linear_workgroup() == 0u && gl_LocalInvocationIndex == 0u) {
        uvec2 m = offsets[pc.n];
        prm.total_neighbors = m.x;
        prm.total_neighbors_hi = m.y;
    }
}
