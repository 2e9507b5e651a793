#version 450
// The engine's pass after fenns' searches: colour by density, in the build's
// sorted order (the searches wrote counts by sorted position), for
// fenns_cmd_reorder to bring back to the particles' own order. Each record
// is 32 bytes: the colour (blue where the particle touches the boundary),
// then the two neighbour counts themselves, which the sample checks.
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint capacity; float full; } pc; // full: the count drawn hottest
layout(std430, binding = 0) readonly buffer Counts { uint neighbours[]; };
layout(std430, binding = 1) readonly buffer BoundaryCounts { uint boundary_neighbours[]; };
struct record { vec4 colour; vec4 counts; };
layout(std430, binding = 2) writeonly buffer Colours { record colour[]; };

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= pc.capacity) return;
    float t = clamp(float(neighbours[k]) / pc.full, 0.0, 1.0);
    float wet = boundary_neighbours[k] > 0u ? 1.0 : 0.0;
    colour[k].colour = vec4(t, 0.25 + 0.5 * t * (1.0 - t), max(1.0 - t, wet), 1.0);
    colour[k].counts = vec4(float(neighbours[k]), float(boundary_neighbours[k]), 0.0, 0.0);
}
