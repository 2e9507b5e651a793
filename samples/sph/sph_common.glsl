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

float SPH_MASS() { return sph.mass; }

float spline_w(float d) {
    float q = d / sph.h, sigma = 1.0 / (3.14159265 * sph.h * sph.h * sph.h);
    if (q < 1.0) return sigma * (1.0 - 1.5 * q * q + 0.75 * q * q * q);
    if (q < 2.0) return sigma * 0.25 * (2.0 - q) * (2.0 - q) * (2.0 - q);
    return 0.0;
}

// dW/dd: the spline's slope at distance d.
float spline_dw(float d) {
    float q = d / sph.h, sigma = 1.0 / (3.14159265 * sph.h * sph.h * sph.h * sph.h);
    if (q < 1.0) return sigma * (-3.0 * q + 2.25 * q * q);
    if (q < 2.0) return -0.75 * sigma * (2.0 - q) * (2.0 - q);
    return 0.0;
}

// Tait's equation, without tension (no negative pressure at free surfaces).
float tait_pressure(float rho) {
    return max(sph.pressure_b * (pow(rho / float(SPH_REST_DENSITY), float(SPH_TAIT_GAMMA)) - 1.0), 0.0);
}
