// SPH density with the poly6 kernel (Müller et al. 2003), unit masses and
// the smoothing length h = the search radius: rho_i = W(0) + sum_j W(r_ij),
// W(r) = 315 / (64 pi h^9) (h^2 - r^2)^3. The constant factor is applied
// once in fenns_finish, so a neighbour costs a subtraction, two products
// and a sum. Returns (rho, neighbours, 0, 0). `fenns bench` times it as
// kernel_ms; `fenns run --kernel samples/kernels/sph_density.glsl`
// evaluates it.
struct fenns_state {
    float sum; // sum of (h^2 - r^2)^3, the particle itself included
    uint count;
};

void fenns_init(inout fenns_state s, uint i, vec3 pi) {
    float h2 = fenns_radius() * fenns_radius();
    s.sum = h2 * h2 * h2;
    s.count = 0u;
}

void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {
    float d = fenns_radius() * fenns_radius() - dist2;
    s.sum += d * d * d;
    s.count += 1u;
}

// Small searches may split a particle's neighbours over several
// invocations (fenns_kernel.h): each part began with the particle's own
// term, which the first part keeps.
#define FENNS_KERNEL_COMBINE
void fenns_combine(inout fenns_state s, fenns_state part) {
    float h2 = fenns_radius() * fenns_radius();
    s.sum += part.sum - h2 * h2 * h2;
    s.count += part.count;
}

vec4 fenns_finish(fenns_state s, uint i, vec3 pi) {
    float h = fenns_radius(), h3 = h * h * h;
    return vec4(315.0 / (64.0 * 3.14159265 * h3 * h3 * h3) * s.sum, float(s.count), 0.0, 0.0);
}
