#version 450
// The engine's pass after fenns' search: colour by density, in the build's
// sorted order (the search wrote counts by sorted position), for
// fenns_cmd_reorder to bring back to the particles' own order. w keeps the
// neighbour count itself, which the sample checks.
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint capacity; float full; } pc; // full: the count drawn hottest
layout(std430, binding = 0) readonly buffer Counts { uint neighbours[]; };
layout(std430, binding = 1) writeonly buffer Colours { vec4 colour[]; };

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= pc.capacity) return;
    float t = clamp(float(neighbours[k]) / pc.full, 0.0, 1.0);
    colour[k] = vec4(t, 0.25 + 0.5 * t * (1.0 - t), 1.0 - t, float(neighbours[k]));
}
