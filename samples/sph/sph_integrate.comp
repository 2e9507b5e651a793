#version 450
#extension GL_GOOGLE_include_directive : require
// Symplectic Euler step of the dam break, with the tank's walls: v += dt *
// (a + g), x += dt * v; a particle past a wall is put back on it and loses
// most of its normal velocity. Also writes the particle's colour key for
// sph_splat.comp: speed.
layout(local_size_x = 256) in;
#include "sph_params.h"
layout(push_constant) uniform Push { uint n; } pc;
layout(std430, binding = 0) readonly buffer Params { float mass, h, pressure_b, dt; } sph;
layout(std430, binding = 1) buffer Positions { vec4 position[]; };
layout(std430, binding = 2) buffer Velocities { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Accel { vec4 accel[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;
    vec3 v = velocity[i].xyz + sph.dt * (accel[i].xyz + vec3(0.0, float(SPH_GRAVITY), 0.0));
    vec3 x = position[i].xyz + sph.dt * v;
    vec3 hi = vec3(float(SPH_TANK_X), float(SPH_TANK_Y), float(SPH_TANK_Z));
    for (int a = 0; a < 3; ++a) {
        if (x[a] < 0.0) { x[a] = 0.0; v[a] = -float(SPH_WALL_DAMPING) * v[a]; }
        if (x[a] > hi[a]) { x[a] = hi[a]; v[a] = -float(SPH_WALL_DAMPING) * v[a]; }
    }
    position[i] = vec4(x, 0.0);
    velocity[i] = vec4(v, length(v));
}
