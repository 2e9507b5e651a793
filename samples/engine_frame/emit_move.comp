#version 450
// The engine's pass before fenns: its emitter decides how many particles
// live this frame (written for fenns_build_info.particle_count_buffer, so the
// CPU never reads it back), and the live ones move, bouncing off the unit
// box's walls.
layout(local_size_x = 64) in;
layout(push_constant) uniform Push {
    uint capacity; // particles the buffers hold
    uint first;    // live at frame 0
    uint per_frame;// born each frame
    uint frame;
    float dt;
} pc;
layout(std430, binding = 0) buffer Positions { vec4 position[]; };
layout(std430, binding = 1) buffer Velocities { vec4 velocity[]; };
layout(std430, binding = 2) writeonly buffer Count { uint live_count; };

void main() {
    uint live = min(pc.capacity, pc.first + pc.frame * pc.per_frame);
    uint i = gl_GlobalInvocationID.x;
    if (i == 0u) live_count = live;
    if (i >= live) return;
    vec3 x = position[i].xyz + pc.dt * velocity[i].xyz, v = velocity[i].xyz;
    for (int a = 0; a < 3; ++a) {
        if (x[a] < 0.0) { x[a] = -x[a]; v[a] = -v[a]; }
        if (x[a] > 1.0) { x[a] = 2.0 - x[a]; v[a] = -v[a]; }
    }
    position[i] = vec4(x, 0.0);
    velocity[i] = vec4(v, 0.0);
}
