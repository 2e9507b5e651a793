// The candidate-driven loop of search_paper.comp.
shared uint s_fine[FINE_CELLS];            // gridOffsets of Algorithm 3
shared uvec4 s_queries[FENNS_MAX_WORKGROUP]; // `particles` of Algorithm 3
shared uint s_found[FENNS_MAX_WORKGROUP];    // neighbours found per query slot
shared uvec2 s_base[FENNS_MAX_WORKGROUP];    // list base (u64) per query slot
shared uint s_room[FENNS_MAX_WORKGROUP];     // list capacity per query slot
shared uint s_over_limit, s_fullest;

// Algorithm 4: the queries in the 27 fine cells around a candidate.
// The candidate lies in the grid cell at offset d from the queries' cell.
void lookup_neighbor_cells(uvec4 candidate, ivec3 d) {
    vec3 p = uintBitsToFloat(candidate.xyz);
    ivec3 cf = ivec3(fine_cell(local_position(p, d)));
    ivec3 fdims = ivec3(fine_dims());
    for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
        ivec3 f = cf + ivec3(dx, dy, dz);
        if (any(lessThan(f, ivec3(0))) || any(greaterThanEqual(f, fdims))) continue;
        uint key = fine_key(uvec3(f));
        uint e = s_fine[key + 1u];
        for (uint slot = s_fine[key]; slot < e; ++slot) {
            uvec4 query = s_queries[slot];
            if (query.w == candidate.w || !within_radius(uintBitsToFloat(query.xyz), p)) continue;
            uint k = atomicAdd(s_found[slot], 1u);
            if (k < s_room[slot]) store_index(add64(s_base[slot], k), candidate.w);
        }
    }
}

void search_cell(work_item w, uint q) {
    uvec3 center = table_cell_of_key(w.cell);
    uint fine_count = prm.fine_x * prm.fine_y * prm.fine_z;
    uint t = gl_LocalInvocationIndex;

    // Lines 7-19: sort this chunk of queries into the local grid.
    for (uint f = t; f < fine_count; f += gl_WorkGroupSize.x) s_fine[f] = 0u;
    barrier();
    bool has_query = q < w.query_end;
    uvec4 query = uvec4(0u);
    uint fine = 0u, rank = 0u;
    if (has_query) {
        query = load_sorted(q);
        fine = fine_key(fine_cell(local_position(uintBitsToFloat(query.xyz), ivec3(0))));
        rank = atomicAdd(s_fine[fine], 1u);
    }
    barrier();
    uint queries;
    SHARED_ARRAY_EXCLUSIVE_SCAN(s_fine, fine_count, queries)
    if (t == 0u) s_fine[fine_count] = queries;
    if (has_query) {
        uint slot = s_fine[fine] + rank;
        list_target target = list_target_of(query.w);
        s_queries[slot] = query;
        s_found[slot] = 0u;
        s_base[slot] = target.base;
        s_room[slot] = target.capacity;
    }
    barrier();

    // llvmpipe stops an invocation after pc.loop_limit loop iterations in
    // all: when any invocation's share of the loops below could pass that,
    // the chunk is reported incomplete instead of searched short.
    if (pc.loop_limit != 0u) {
        // A candidate visits 27 fine cells and, in them, at most 27 times the
        // fullest fine cell's queries (and never more than the chunk's).
        if (t == 0u) s_over_limit = s_fullest = 0u;
        barrier();
        uint fullest = 0u;
        for (uint f = t; f < fine_count; f += gl_WorkGroupSize.x) fullest = max(fullest, s_fine[f + 1u] - s_fine[f]);
        fullest = subgroupMax(fullest);
        if (subgroupElect()) atomicMax(s_fullest, fullest);
        barrier();
        uint per_candidate = 2u * 27u + min(queries, 27u * s_fullest);
        uint rounds = (w.query_end - cell_begin(w.cell) + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
        for (uint k = gl_SubgroupID; k < 27u; k += gl_NumSubgroups) {
            uint key;
            if (k == 13u || !neighbour_cell(center, k, key)) continue;
            uint border = KEY_START(key * pc.sections + 1u) - cell_begin(key);
            rounds += (border + gl_SubgroupSize - 1u) / gl_SubgroupSize;
        }
        if (1024u + fine_count / gl_WorkGroupSize.x + rounds * per_candidate > pc.loop_limit) atomicOr(s_over_limit, 1u);
        barrier();
        if (s_over_limit != 0u) {
            if (t == 0u && queries != 0u) atomicAdd(prm.incomplete_queries, queries);
            add_total(0u);
            return;
        }
    }

    // Lines 21-24: every particle of the own cell.
    for (uint j = cell_begin(w.cell) + t; j < w.query_end; j += gl_WorkGroupSize.x)
        lookup_neighbor_cells(load_sorted(j), ivec3(0));
    // Lines 26-35: the border particles of each neighbouring cell, one
    // subgroup per cell (looping when there are fewer than 26 subgroups).
    for (uint k = gl_SubgroupID; k < 27u; k += gl_NumSubgroups) {
        uint key;
        if (k == 13u || !neighbour_cell(center, k, key)) continue;
        uint end = KEY_START(key * pc.sections + 1u); // the border section
        for (uint j = cell_begin(key) + gl_SubgroupInvocationID; j < end; j += gl_SubgroupSize)
            lookup_neighbor_cells(load_sorted(j), neighbour_offset(k));
    }
    barrier();

    // Lines 37-39: finish every valid query.
    uint count = 0u;
    if (t < queries) {
        count = s_found[t];
        list_target target;
        target.base = s_base[t];
        target.capacity = s_room[t];
        finish_query(s_queries[t].w, count, target);
    }
    add_total(count);
}
