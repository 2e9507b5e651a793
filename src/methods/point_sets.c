/* Point sets by an activation table: fenns_cmd_search for every active
 * (query set, candidate set) pair, with a barrier between two searches: a
 * search writes its query build's status block and reads its candidate
 * build's, so two searches of the sets' builds are never free of each
 * other. */
#include "passes/passes.h"

/* The pair's search: the caller's outputs, the sets' builds. */
static fenns_search_info pair_search(const fenns_point_sets_search_info *info, uint32_t q, uint32_t c) {
    fenns_search_info s = info->searches[q * info->set_count + c];
    const fenns_point_set *queries = &info->sets[q], *candidates = &info->sets[c];
    s.particle_count = queries->particle_count;
    s.positions = queries->positions;
    s.scratch = queries->scratch;
    s.candidate_count = q == c ? 0u : candidates->particle_count;
    s.candidate_scratch = q == c ? (fenns_buffer_range){0} : candidates->scratch;
    return s;
}

void fenns_cmd_search_point_sets(VkCommandBuffer cmd, fenns_pipeline p, const fenns_point_sets_search_info *info) {
    if (!p) return;
    if (!cmd || !info || (info->set_count && (!info->sets || !info->active || !info->searches))) {
        fenns__log(p->ctx, FENNS_LOG_ERROR,
                   "fenns_cmd_search_point_sets: null command buffer, info, sets, active or searches; nothing recorded");
        return;
    }
    int earlier = 0; /* a search came before: the next one needs a barrier */
    for (uint32_t q = 0; q < info->set_count; ++q)
        for (uint32_t c = 0; c < info->set_count; ++c) {
            if (!info->active[q * info->set_count + c]) continue;
            if (earlier) fenns__barrier(cmd, p);
            fenns_search_info s = pair_search(info, q, c);
            fenns_cmd_search(cmd, p, &s); /* a refused pair is logged there and records nothing */
            earlier = 1;
        }
}
