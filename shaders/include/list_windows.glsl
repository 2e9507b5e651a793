// Where lists start, and the window of them a dispatch of the fill writes
// (search_common.glsl, window_items.comp). Needs USE_PARAMS, USE_OFFSETS
// and u64.glsl.
#ifndef FENNS_LIST_WINDOWS_GLSL
#define FENNS_LIST_WINDOWS_GLSL

// The first entry of this dispatch's window of lists (pc.list_window).
uvec2 list_window_first() { return mul64(pc.list_window, pc.list_window_entries); }

// The u64 entry index where the list of query i (its output index) starts.
uvec2 list_start(uint i) {
    return pc.mode == FENNS_MODE_FIXED ? mul64(i, pc.capacity) : pc.mode == FENNS_MODE_CSR ? offsets[i] : uvec2(0u);
}
#endif
