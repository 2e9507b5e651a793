// SPH density with the poly6 kernel (Müller et al. 2003), unit masses and
// the smoothing length h = the search radius: rho_i = W(0) + sum_j W(r_ij).
// Returns (rho, neighbours, 0, 0). `fenns bench` times it as kernel_ms;
// `fenns run --kernel samples/kernels/sph_density.glsl` evaluates it.
struct fenns_state {
    float rho;
    uint count;
};

float poly6(float r2, float h) {
    float h2 = h * h, d = h2 - r2;
    return 315.0 / (64.0 * 3.14159265 * pow(h, 9.0)) * d * d * d;
}

void fenns_init(inout fenns_state s, uint i, vec3 pi) {
    s.rho = poly6(0.0, fenns_radius());
    s.count = 0u;
}

void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {
    s.rho += poly6(dist2, fenns_radius());
    s.count += 1u;
}

vec4 fenns_finish(fenns_state s, uint i, vec3 pi) { return vec4(s.rho, float(s.count), 0.0, 0.0); }
