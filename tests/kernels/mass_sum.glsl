// Test kernel with its own descriptor set, compiled at build time by
// fenns_add_kernel: sums mass[j] * (r^2 - dist2) over the neighbours and
// writes it, with the neighbour count, into the kernel's own buffer.
layout(set = 1, binding = 0) readonly buffer Masses { float mass[]; };
layout(set = 1, binding = 1) writeonly buffer Sums { vec2 weighted[]; };

struct fenns_state {
    float sum;
    uint count;
};

void fenns_init(inout fenns_state s, uint i, vec3 pi) {
    s.sum = 0.0;
    s.count = 0u;
}

void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2) {
    float r = fenns_radius();
    s.sum += mass[j] * (r * r - dist2);
    s.count += 1u;
}

// Parts of a particle's neighbours (fenns_kernel.h), combined: built into
// this test's kernel at build time (fenns_add_kernel) to test that path.
#define FENNS_KERNEL_COMBINE
void fenns_combine(inout fenns_state s, fenns_state part) {
    s.sum += part.sum;
    s.count += part.count;
}

vec4 fenns_finish(fenns_state s, uint i, vec3 pi) {
    weighted[i] = vec2(s.sum, float(s.count));
    return vec4(0.0);
}
