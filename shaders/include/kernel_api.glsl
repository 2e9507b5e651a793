// What a user kernel may call besides GLSL itself (search_kernel.comp
// splices the kernel in right after this file). Set 0 is fenns' own; the
// kernel declares its buffers in set 1 (fenns_kernel_info.user_set_layout).

// The radius r of the build searched: neighbours have dist2 <= r*r.
float fenns_radius() { return prm.radius; }
// Particles of this search (n); indices i and j run over 0..n-1.
uint fenns_particle_count() { return pc.n; }
