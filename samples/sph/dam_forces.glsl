// The dam break's force kernel (fenns_add_kernel): pressure (symmetric
// form) and Monaghan's artificial viscosity, over the neighbours found by
// fenns, in the fixed order fenns visits them. Returns the acceleration
// without gravity (sph_integrate.comp adds it).
#include "sph_common.glsl"

struct fenns_state {
    vec3 accel;
    vec3 vi;
    float rho_i, p_term_i;
    sph_spline spline; // read once per particle (sph_common.glsl)
};

void fenns_init(inout fenns_state s, uint i, vec3 pi) {
    s.accel = vec3(0.0);
    s.spline = sph_spline_of_params();
    s.vi = velocity[i].xyz;
    s.rho_i = fluid[i].x;
    s.p_term_i = fluid[i].y / (s.rho_i * s.rho_i);
}

void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {
    float d = sqrt(dist2);
    if (d <= 1e-9) return; // coincident particles push through their neighbours
    vec4 fj = fluid[j];
    vec3 x_ij = pi - pj, v_ij = s.vi - velocity[j].xyz;
    float term = s.p_term_i + fj.y / (fj.x * fj.x);
    float vx = dot(v_ij, x_ij);
    if (vx < 0.0) { // approaching: artificial viscosity
        float h = s.spline.h;
        float mu = h * vx / (dist2 + 0.01 * h * h);
        term += -float(SPH_VISCOSITY) * float(SPH_SOUND_SPEED) * mu / (0.5 * (s.rho_i + fj.x));
    }
    s.accel -= s.spline.mass * term * spline_dw(s.spline, d) * (x_ij / d);
}

// Small searches may split a particle's neighbours over several
// invocations (fenns_kernel.h); each part's acceleration is its
// neighbours' alone.
#define FENNS_KERNEL_COMBINE
void fenns_combine(inout fenns_state s, fenns_state part) { s.accel += part.accel; }

vec4 fenns_finish(fenns_state s, uint i, vec3 pi) { return vec4(s.accel, 0.0); }
