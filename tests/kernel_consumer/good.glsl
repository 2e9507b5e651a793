struct fenns_state { float sum; };
void fenns_init(inout fenns_state s, uint i, vec3 pi) { s.sum = 0.0; }
void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) { s.sum += dist2; }
vec4 fenns_finish(fenns_state s, uint i, vec3 pi) { return vec4(s.sum); }
