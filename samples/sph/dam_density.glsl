// The dam break's density kernel (fenns_add_kernel): rho_i = m sum_j W(r_ij)
// with the cubic spline of smoothing length h = r/2 (support r), the
// particle's own term included. Returns (rho, pressure, neighbours, 0).
// The mass and the spline come from sph_common.glsl, read once per particle.
#include "sph_common.glsl"

struct fenns_state {
    float rho;
    uint count;
    sph_spline spline;
};

void fenns_init(inout fenns_state s, uint i, vec3 pi) {
    s.spline = sph_spline_of_params();
    s.rho = s.spline.mass * spline_w(s.spline, 0.0);
    s.count = 0u;
}

void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {
    s.rho += s.spline.mass * spline_w(s.spline, sqrt(dist2));
    s.count += 1u;
}

// Small searches may split a particle's neighbours over several
// invocations (fenns_kernel.h): each part began with the particle's own
// term, which the first part keeps.
#define FENNS_KERNEL_COMBINE
void fenns_combine(inout fenns_state s, fenns_state part) {
    s.rho += part.rho - s.spline.mass * spline_w(s.spline, 0.0);
    s.count += part.count;
}

vec4 fenns_finish(fenns_state s, uint i, vec3 pi) {
    return vec4(s.rho, tait_pressure(s.rho), float(s.count), 0.0);
}
