#version 450
#extension GL_GOOGLE_include_directive : require
// The frame: every particle as a small disc in a side view of the tank (x
// right, y up), the one nearest the camera (largest z) on top: atomicMax of
// (depth << 24 | colour). Colour by speed, deep blue (still) to white (3 m/s).
layout(local_size_x = 256) in;
#include "sph_params.h"
layout(push_constant) uniform Push { uint n, width, height, radius_px; } pc;
layout(std430, binding = 0) readonly buffer Positions { vec4 position[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 velocity[]; };
layout(std430, binding = 2) buffer Image { uint pixel[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;
    vec3 x = position[i].xyz;
    float scale = float(pc.width) / float(SPH_TANK_X);
    ivec2 c = ivec2(x.x * scale, float(pc.height) - 1.0 - x.y * scale);
    float t = clamp(velocity[i].w / 3.0, 0.0, 1.0);
    vec3 rgb = mix(vec3(0.05, 0.2, 0.7), vec3(1.0), t);
    float shade = 0.6 + 0.4 * clamp(x.z / float(SPH_TANK_Z), 0.0, 1.0);
    uvec3 q = uvec3(clamp(rgb * shade, 0.0, 1.0) * 255.0);
    uint depth = uint(clamp(x.z / float(SPH_TANK_Z), 0.0, 1.0) * 254.0) + 1u;
    uint value = (depth << 24) | (q.b << 16) | (q.g << 8) | q.r;
    int r = int(pc.radius_px);
    for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
        ivec2 p = c + ivec2(dx, dy);
        if (dx * dx + dy * dy > r * r || p.x < 0 || p.y < 0 || p.x >= int(pc.width) || p.y >= int(pc.height)) continue;
        atomicMax(pixel[uint(p.y) * pc.width + uint(p.x)], value);
    }
}
