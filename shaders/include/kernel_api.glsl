// What a user kernel may call besides GLSL itself (search_kernel.comp
// splices the kernel in right after this file). Set 0 is fenns' own; the
// kernel declares its buffers in set 1 (fenns_kernel_info.user_set_layout).

// The radius r of the build searched: neighbours have dist2 <= r*r. Read
// from the build's parameters once per invocation (main): prm is written by
// atomics, so a read inside the neighbour loop would be a load per call
// (H100, sph50 4M density kernel: 2.19 -> 2.41 ms).
float fenns_build_radius;
float fenns_radius() { return fenns_build_radius; }
// Particles of this search (n); indices i and j run over 0..n-1.
uint fenns_particle_count() { return pc.n; }
