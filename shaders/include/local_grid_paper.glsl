// The candidate-driven loop of search_paper.comp.
shared uint s_fine[FINE_CELLS];            // gridOffsets of Algorithm 3
shared uvec4 s_queries[FENNS_MAX_WORKGROUP]; // `particles` of Algorithm 3; w: output_index
shared uint s_found[FENNS_MAX_WORKGROUP];    // neighbours found per query slot
shared uvec2 s_base[FENNS_MAX_WORKGROUP];    // list base (u64) per query slot
shared uint s_room[FENNS_MAX_WORKGROUP];     // list capacity per query slot
shared uint s_over_limit;

// The fine cells a candidate at local position l reaches: cf-1..cf+1 per
// axis, clipped to the local grid. Fine keys run x-fastest, so each of the
// up to 9 (y, z) rows is one contiguous run of query slots.
void stencil_of(vec3 l, out ivec3 lo, out ivec3 hi) {
    ivec3 cf = ivec3(fine_cell(l));
    lo = max(cf - 1, ivec3(0));
    hi = min(cf + 1, ivec3(fine_dims()) - 1);
}
uint row_key(int y, int z) { return fine_key(uvec3(0u, uint(y), uint(z))); }

// Algorithm 4: the queries in the 27 fine cells around a candidate.
// The candidate, at sorted position j, lies in the grid cell at offset d
// from the queries' cell.
void lookup_neighbor_cells(uvec4 candidate, uint j, ivec3 d, float radius2) {
    vec3 p = uintBitsToFloat(candidate.xyz);
    uint id = output_index(candidate.w, j);
    vec3 l = local_position(p, d);
    // A border particle lies within the margin of some face of its cell, not
    // necessarily of the face towards the queries: skip the others (and
    // particles of far cells folded onto a neighbouring table cell).
    if (!in_local_box(l)) return;
    ivec3 lo, hi;
    stencil_of(l, lo, hi);
    for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y) {
        uint row = row_key(y, z);
        uint e = s_fine[row + uint(hi.x) + 1u];
        for (uint slot = s_fine[row + uint(lo.x)]; slot < e; ++slot) {
            uvec4 query = s_queries[slot];
            if (query.w == id || !within_radius(uintBitsToFloat(query.xyz), p, radius2)) continue;
            uint k = atomicAdd(s_found[slot], 1u);
            if (k < s_room[slot]) store_index(add64(s_base[slot], k), id);
        }
    }
}

// Loop iterations lookup_neighbor_cells runs for one candidate (llvmpipe
// counts each loop's iterations): up to 3 + 9 for the rows and one per query
// slot; counting the slots takes the same 3 + 9.
uint lookup_steps(uvec4 candidate, ivec3 d) {
    vec3 l = local_position(uintBitsToFloat(candidate.xyz), d);
    if (!in_local_box(l)) return 0u;
    ivec3 lo, hi;
    stencil_of(l, lo, hi);
    uint slots = 0u;
    for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y) {
        uint row = row_key(y, z);
        slots += s_fine[row + uint(hi.x) + 1u] - s_fine[row + uint(lo.x)];
    }
    return 2u * 12u + slots;
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
        uint id = output_index(query.w, q);
        list_target target = list_target_of(id);
        s_queries[slot] = uvec4(query.xyz, id);
        s_found[slot] = 0u;
        s_base[slot] = target.base;
        s_room[slot] = target.capacity;
    }
    barrier();

    // llvmpipe stops an invocation (a subgroup: lanes share the loop
    // counter) after pc.loop_limit loop iterations in all. A first pass over
    // the same candidates counts the search's iterations; when they could
    // pass the limit the chunk is reported incomplete instead of searched short.
    if (pc.loop_limit != 0u) {
        if (t == 0u) s_over_limit = 0u;
        barrier();
        // Per round of candidates: this pass's and the search's iteration and
        // the costliest lane's lookups (a subgroup runs each round together).
        // The count stops once past the limit: the verdict is known, and a
        // crowded cell (10^5 coincident particles) would otherwise spend as
        // long counting as the search it refuses.
        uint steps = 1024u + fine_count / gl_WorkGroupSize.x;
        for (uint j = cell_begin(w.cell) + t; j < w.query_end && steps <= pc.loop_limit; j += gl_WorkGroupSize.x)
            steps += 2u + subgroupMax(lookup_steps(load_sorted(j), ivec3(0)));
        for (uint k = gl_SubgroupID; k < 27u && steps <= pc.loop_limit; k += gl_NumSubgroups) {
            uint key;
            if (k == 13u || !neighbour_cell(center, k, key)) continue;
            uint end = KEY_START(key * pc.sections + 1u);
            for (uint j = cell_begin(key) + gl_SubgroupInvocationID; j < end && steps <= pc.loop_limit; j += gl_SubgroupSize)
                steps += 2u + subgroupMax(lookup_steps(load_sorted(j), neighbour_offset(k)));
        }
        if (steps > pc.loop_limit) atomicOr(s_over_limit, 1u);
        barrier();
        if (s_over_limit != 0u) {
            if (t == 0u && queries != 0u) atomicAdd(prm.incomplete_queries, queries);
            add_total(0u);
            return;
        }
    }

    // Lines 21-24: every particle of the own cell.
    float radius2 = prm.radius2; // read once (see within_radius)
    for (uint j = cell_begin(w.cell) + t; j < w.query_end; j += gl_WorkGroupSize.x)
        lookup_neighbor_cells(load_sorted(j), j, ivec3(0), radius2);
    // Lines 26-35: the border particles of each neighbouring cell, one
    // subgroup per cell (looping when there are fewer than 26 subgroups).
    for (uint k = gl_SubgroupID; k < 27u; k += gl_NumSubgroups) {
        uint key;
        if (k == 13u || !neighbour_cell(center, k, key)) continue;
        uint end = KEY_START(key * pc.sections + 1u); // the border section
        for (uint j = cell_begin(key) + gl_SubgroupInvocationID; j < end; j += gl_SubgroupSize)
            lookup_neighbor_cells(load_sorted(j), j, neighbour_offset(k), radius2);
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
