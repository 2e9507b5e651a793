// What the dam break's kernels and passes share: the parameters (set 1,
// binding 0, written once by sph.c), the particles' velocities and fluid
// state, and the cubic spline kernel (Monaghan 1992) of smoothing length
// h = r/2, whose support is the search radius r.
#include "sph_params.h"

layout(std430, set = 1, binding = 0) readonly buffer SphParams {
    float mass;     // kg per particle
    float h;        // smoothing length (m)
    float pressure_b; // Tait stiffness B = rho0 c^2 / gamma
    float dt;       // s
} sph;
layout(std430, set = 1, binding = 1) readonly buffer SphVelocity { vec4 velocity[]; };
layout(std430, set = 1, binding = 2) readonly buffer SphFluid { vec4 fluid[]; }; // rho, p, neighbours

// The cubic spline's constants, read from the parameters once per particle
// (each kernel keeps them in its fenns_state): read per neighbour, the
// kernels loaded sph.h and divided by it again for every neighbour (H200,
// 986078 particles: 2.004 -> 1.857 ms a step, the force search 1.234 ->
// 1.105 ms; 65536: 0.345 -> 0.329).
struct sph_spline {
    float mass;
    float h, inv_h;
    float sigma_w;  // 1 / (pi h^3): W's factor
    float sigma_dw; // 1 / (pi h^4): dW/dd's
};

sph_spline sph_spline_of_params() {
    sph_spline c;
    c.mass = sph.mass;
    c.h = sph.h;
    c.inv_h = 1.0 / c.h;
    c.sigma_w = 1.0 / (3.14159265 * c.h * c.h * c.h);
    c.sigma_dw = c.sigma_w * c.inv_h;
    return c;
}

// W at distance d.
float spline_w(sph_spline c, float d) {
    float q = d * c.inv_h;
    if (q < 1.0) return c.sigma_w * (1.0 - 1.5 * q * q + 0.75 * q * q * q);
    if (q < 2.0) return c.sigma_w * 0.25 * (2.0 - q) * (2.0 - q) * (2.0 - q);
    return 0.0;
}

// dW/dd: the spline's slope at distance d.
float spline_dw(sph_spline c, float d) {
    float q = d * c.inv_h;
    if (q < 1.0) return c.sigma_dw * (-3.0 * q + 2.25 * q * q);
    if (q < 2.0) return -0.75 * c.sigma_dw * (2.0 - q) * (2.0 - q);
    return 0.0;
}

// Tait's equation, without tension (no negative pressure at free surfaces).
float tait_pressure(float rho) {
    return max(sph.pressure_b * (pow(rho / float(SPH_REST_DENSITY), float(SPH_TAIT_GAMMA)) - 1.0), 0.0);
}
