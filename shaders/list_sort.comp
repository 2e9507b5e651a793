#version 450
#extension GL_GOOGLE_include_directive : require
// FENNS_OUTPUT_SORTED_LISTS: sort each written CSR list ascending. A
// workgroup takes pc.count consecutive lists; when their entries fit in
// shared memory, every entry finds its place by counting the smaller entries
// of its list (entries of a list are distinct) and is written straight there.
// Otherwise each list is sorted by one invocation.
#include "header.glsl"
layout(constant_id = 1) const uint SORT_CAPACITY = 1024;
#define USE_OFFSETS
#define USE_INDICES
#define INDICES_ACCESS
#define INDICES_READ
#include "bindings.glsl"

shared uint s_values[SORT_CAPACITY];
shared uint s_list_begin[FENNS_MAX_WORKGROUP + 1u]; // relative to the group's first entry

// Heapsort: O(k log k) and no quadratic worst case for long lists (lavapipe
// also caps a loop at 65535 iterations per invocation).
void sift_down(uvec2 base, uint root, uint len) {
    uint v = load_index(add64(base, root));
    for (uint child = 2u * root + 1u; child < len; child = 2u * root + 1u) {
        uint c = load_index(add64(base, child));
        if (child + 1u < len) {
            uint right = load_index(add64(base, child + 1u));
            if (right > c) {
                c = right;
                ++child;
            }
        }
        if (c <= v) break;
        store_index(add64(base, root), c);
        root = child;
    }
    store_index(add64(base, root), v);
}

// Short lists are sorted in private memory, long ones by heapsort in place.
#define PRIVATE_SORT 64u
void sort_one_list(uvec2 b, uint len) {
    if (len <= PRIVATE_SORT) {
        uint v[PRIVATE_SORT];
        for (uint k = 0u; k < len; ++k) {
            uint x = load_index(add64(b, k));
            uint j = k;
            for (; j > 0u && v[j - 1u] > x; --j) v[j] = v[j - 1u];
            v[j] = x;
        }
        for (uint k = 0u; k < len; ++k) store_index(add64(b, k), v[k]);
        return;
    }
    for (uint root = len / 2u; root > 0u; --root) sift_down(b, root - 1u, len);
    for (uint end = len; end > 1u; --end) {
        uint top = load_index(b);
        store_index(b, load_index(add64(b, end - 1u)));
        store_index(add64(b, end - 1u), top);
        sift_down(b, 0u, end - 1u);
    }
}

void main() {
    uint lists = pc.count;
    uint first = linear_workgroup() * lists;
    if (first >= pc.n) return;
    uint count = min(lists, pc.n - first);
    uint t = gl_LocalInvocationIndex;
    // Only lists that were written (ending within the capacity) are sorted;
    // offsets grow, so they are a prefix. Entries are placed relative to the
    // group's first one, in u32 unless the group's lists pass 2^32 entries.
    uvec2 capacity = uvec2(pc.capacity, pc.capacity_hi);
    uvec2 base = offsets[first];
    uvec2 limit = max64(capacity, base);
    uvec2 span = sub64(min64(offsets[first + count], limit), base);
    if (span.y != 0u) { // each invocation sorts one list
        if (t < count) {
            uvec2 b = offsets[first + t], e = offsets[first + t + 1u];
            if (le64(e, capacity) && !le64(e, b)) sort_one_list(b, sub64(e, b).x);
        }
        return;
    }
    if (t <= count) s_list_begin[t] = sub64(min64(offsets[first + t], limit), base).x;
    barrier();
    uint total = s_list_begin[count];
    if (total > SORT_CAPACITY) {
        if (t < count) {
            uint b = s_list_begin[t], e = s_list_begin[t + 1u];
            if (le64(add64(base, e), capacity) && e > b) sort_one_list(add64(base, b), e - b);
        }
        return;
    }
    for (uint k = t; k < total; k += gl_WorkGroupSize.x) s_values[k] = load_index(add64(base, k));
    barrier();
    for (uint k = t; k < total; k += gl_WorkGroupSize.x) {
        uint lo = 0u, hi = count; // the list holding entry k
        while (hi - lo > 1u) {
            uint mid = (lo + hi) >> 1u;
            if (s_list_begin[mid] <= k) lo = mid; else hi = mid;
        }
        uint b = s_list_begin[lo], e = s_list_begin[lo + 1u], v = s_values[k], place = b;
        for (uint j = b; j < e; ++j) place += s_values[j] < v ? 1u : 0u;
        store_index(add64(base, place), v);
    }
}
