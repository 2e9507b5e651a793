// The query-driven loop of search_fenns.comp.
shared uint s_fine[FINE_CELLS];      // counts, then starts, of the local grid
shared uvec4 s_candidates[CANDIDATES];
// Candidate ranges: up to RANGE_SLOTS per neighbour k (0..26, 13 = own cell).
#define RANGE_SLOTS 9u
#define RANGES (27u * RANGE_SLOTS)
shared uint s_range_begin[RANGES];   // sorted index of each candidate range
shared uint s_range_prefix[RANGES + 1u]; // candidates before each range

// The whole own cell; from a neighbour only the zones facing this cell: on
// an axis where the neighbour lies above, its low zone; below, its high
// zone; level, all three. Zones adjacent in key order merge into one range.
void gather_ranges(uvec3 center, work_item w) {
    uint k = gl_LocalInvocationIndex;
    if (k < 27u) {
        uint first = k * RANGE_SLOTS, used = 0u;
        for (uint r = 0u; r < RANGE_SLOTS; ++r) {
            s_range_begin[first + r] = 0u;
            s_range_prefix[first + r] = 0u;
        }
        uint key;
        if (k == 13u) {
            s_range_begin[first] = cell_begin(w.cell);
            s_range_prefix[first] = w.query_end - cell_begin(w.cell);
        } else if (neighbour_cell(center, k, key)) {
            ivec3 d = neighbour_offset(k);
            uvec3 lo = uvec3(mix(mix(ivec3(0), ivec3(2), equal(d, ivec3(-1))), ivec3(0), equal(d, ivec3(1))));
            uvec3 hi = uvec3(mix(ivec3(2), ivec3(0), equal(d, ivec3(1))));
            uint base = key * FENNS_SECTIONS_ZONES, last_end_key = 0xFFFFFFFFu;
            for (uint zx = lo.x; zx <= hi.x; ++zx)
            for (uint zy = lo.y; zy <= hi.y; ++zy) {
                uint a = base + 9u * zx + 3u * zy + lo.z, b = base + 9u * zx + 3u * zy + hi.z + 1u;
                uint len = KEY_START(b) - KEY_START(a);
                if (used > 0u && last_end_key == a) {
                    s_range_prefix[first + used - 1u] += len;
                } else {
                    s_range_begin[first + used] = KEY_START(a);
                    s_range_prefix[first + used] = len;
                    ++used;
                }
                last_end_key = b;
            }
        }
    }
    barrier();
    uint total;
    SHARED_ARRAY_EXCLUSIVE_SCAN(s_range_prefix, RANGES, total)
    if (k == 0u) s_range_prefix[RANGES] = total;
    barrier();
}

// Sorted index of candidate e, and which neighbour (0..26) it comes from.
uint candidate_sorted_index(uint e, out uint neighbour) {
    uint lo = 0u, hi = RANGES; // last range starting at or before e
    while (hi - lo > 1u) {
        uint mid = (lo + hi) >> 1u;
        if (s_range_prefix[mid] <= e) lo = mid; else hi = mid;
    }
    neighbour = lo / RANGE_SLOTS;
    return s_range_begin[lo] + (e - s_range_prefix[lo]);
}

void search_cell(work_item w, uint q) {
    uvec3 center = table_cell_of_key(w.cell);
    uint fine_count = prm.fine_x * prm.fine_y * prm.fine_z;

    gather_ranges(center, w);
    uint total = s_range_prefix[RANGES];

    bool has_query = q < w.query_end;
    vec3 qp = vec3(0.0);
    uint qi = 0u;
    ivec3 qf = ivec3(0);
    if (has_query) {
        uvec4 s = load_sorted(q);
        qp = uintBitsToFloat(s.xyz);
        qi = s.w;
        qf = ivec3(fine_cell(local_position(qp, ivec3(0))));
    }
    list_target target = list_target_of(qi);
    uint count = 0u;
    ivec3 fdims = ivec3(fine_dims());

    for (uint base = 0u; base < total; base += CANDIDATES) {
        for (uint f = gl_LocalInvocationIndex; f < fine_count; f += gl_WorkGroupSize.x) s_fine[f] = 0u;
        barrier();
        uint cell_of[FENNS_SEARCH_ITEMS], rank_of[FENNS_SEARCH_ITEMS];
        uvec4 cand[FENNS_SEARCH_ITEMS];
        for (uint it = 0u; it < FENNS_SEARCH_ITEMS; ++it) {
            uint e = base + it * gl_WorkGroupSize.x + gl_LocalInvocationIndex;
            cell_of[it] = 0xFFFFFFFFu;
            if (e >= total) continue;
            uint k;
            cand[it] = load_sorted(candidate_sorted_index(e, k));
            // Candidates outside the cell grown by the margin cannot be neighbours.
            vec3 l = local_position(uintBitsToFloat(cand[it].xyz), neighbour_offset(k));
            if (in_local_box(l)) {
                cell_of[it] = fine_key(fine_cell(l));
                rank_of[it] = atomicAdd(s_fine[cell_of[it]], 1u);
            }
        }
        barrier();
        uint binned;
        SHARED_ARRAY_EXCLUSIVE_SCAN(s_fine, fine_count, binned)
        if (gl_LocalInvocationIndex == 0u) s_fine[fine_count] = binned;
        for (uint it = 0u; it < FENNS_SEARCH_ITEMS; ++it)
            if (cell_of[it] != 0xFFFFFFFFu) s_candidates[s_fine[cell_of[it]] + rank_of[it]] = cand[it];
        barrier();
        // Order each fine cell by original index: the atomics above ranked
        // its candidates in whatever order the hardware ran them. Each
        // candidate's place is the number of smaller indices in its cell.
        for (uint it = 0u; it < FENNS_SEARCH_ITEMS; ++it) {
            if (cell_of[it] == 0xFFFFFFFFu) continue;
            uint b = s_fine[cell_of[it]], e = s_fine[cell_of[it] + 1u], place = b;
            for (uint k = b; k < e; ++k) place += s_candidates[k].w < cand[it].w ? 1u : 0u;
            rank_of[it] = place;
        }
        barrier();
        for (uint it = 0u; it < FENNS_SEARCH_ITEMS; ++it)
            if (cell_of[it] != 0xFFFFFFFFu) s_candidates[rank_of[it]] = cand[it];
        barrier();
        if (has_query) {
            // Fine cells are at least margin / reach wide, so neighbours lie
            // within `reach` cells; each row of the stencil is one contiguous
            // run of candidates (x is the fastest key axis).
            int reach = int(prm.fine_reach);
            int x0 = max(qf.x - reach, 0), x1 = min(qf.x + reach, fdims.x - 1);
            for (int fz = max(qf.z - reach, 0); fz <= min(qf.z + reach, fdims.z - 1); ++fz)
            for (int fy = max(qf.y - reach, 0); fy <= min(qf.y + reach, fdims.y - 1); ++fy) {
                uint e = s_fine[fine_key(uvec3(x1, fy, fz)) + 1u];
                for (uint j = s_fine[fine_key(uvec3(x0, fy, fz))]; j < e; ++j) {
                    uvec4 c = s_candidates[j];
                    if (c.w == qi || !within_radius(qp, uintBitsToFloat(c.xyz))) continue;
                    if (count < target.capacity) store_index(add64(target.base, count), c.w);
                    ++count;
                }
            }
        }
        barrier();
    }
    if (has_query) finish_query(qi, count, target);
    add_total(has_query ? count : 0u);
}
