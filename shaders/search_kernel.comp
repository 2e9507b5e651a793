#version 450
#extension GL_GOOGLE_include_directive : require
// The search with a user neighbour kernel in place of lists: the template
// that fenns_kernel_compile (at run time) and fenns_add_kernel (at build
// time) splice a kernel into. The build flattens this file into a head and
// a tail around include/../template/fenns_user_kernel.glsl's marker; the
// kernel goes between them, after every declaration it may use.
//
// The kernel defines (see include/fenns/fenns_kernel.h):
//   struct fenns_state { ... };
//   void fenns_init(inout fenns_state s, uint i, vec3 pi);
//   void fenns_neighbor(inout fenns_state s, uint i, uint j, vec3 pi, vec3 pj, float dist2);
//   vec4 fenns_finish(fenns_state s, uint i, vec3 pi);
// and, optionally, with #define FENNS_KERNEL_COMBINE,
//   void fenns_combine(inout fenns_state s, fenns_state part);
// One invocation owns query i and its state from init to finish, so a
// kernel never needs atomics; with fenns (KERNEL_METHOD 0) neighbours come
// in the search's fixed order, so its sums are bit-identical run to run.
// A kernel that combines may have its query split over several
// invocations (each from fenns_init, over a fixed share of the stencil's
// rows), their states combined in a fixed order before fenns_finish
// (local_grid_fenns.glsl's finish_kernel_lanes); the template's
// fenns_kernel_parts.glsl goes between the kernel and the tail.
#include "header.glsl"
layout(constant_id = 1) const uint LOCAL_ROWS = 81; // fenns: the local grid's rows (FENNS_LOCAL_DIM_MAX^2); the others: 1
layout(constant_id = 6) const uint KERNEL_METHOD = 0; // fenns_method: 0 fenns, 1 fenns-paper, 2 counting, 3 octant
#define WALK_OCTANT (KERNEL_METHOD == 3u)
#define FENNS_KERNEL
#define USE_PARAMS
#define PARAMS_ACCESS
#define USE_CELLS
#define USE_WORK_ITEMS
#define CELLS_ACCESS readonly
#define USE_SORTED
#define USE_CANDIDATES
#define USE_PERM
#define PERM_ACCESS readonly
#define USE_COUNTS
#define USE_OFFSETS
#include "bindings.glsl"
// The kernel's vec4 per particle (FENNS_BINDING_KERNEL_OUTPUT).
layout(std430, binding = FENNS_BINDING_KERNEL_OUTPUT) writeonly buffer KernelOutput { vec4 kernel_output[]; };
#include "grid.glsl"
#include "scan.glsl"
#include "search_common.glsl"
#include "kernel_api.glsl"
#include "fenns_user_kernel.glsl"

// A query's last step: what the kernel returns and, if asked, its count.
void finish_kernel(uint id, uint i, vec3 p, uint count, fenns_state user) {
    vec4 v = fenns_finish(user, i, p);
    if ((pc.kernel_outputs & FENNS_KERNEL_WRITES_VALUES) != 0u) kernel_output[id] = v;
    if ((pc.kernel_outputs & FENNS_KERNEL_WRITES_COUNTS) != 0u) counts[id] = count;
}

// Invalid particles have no neighbours: init then finish.
void finish_invalid_kernel(uint q) {
    if (q >= pc.n) return;
    uvec4 own = load_sorted(q);
    fenns_state s;
    fenns_init(s, own.w, uintBitsToFloat(own.xyz));
    finish_kernel(output_index(own.w, q), own.w, uintBitsToFloat(own.xyz), 0u, s);
}

#include "local_grid_fenns.glsl"
#include "cell_walk.glsl"
#include "kernel_walk_paper.glsl"

void main() {
    fenns_build_radius = prm.radius;
    if (KERNEL_METHOD >= 2u) {
        search_particle_kernel();
        return;
    }
    work_item w;
    if (!find_work(w)) return;
    // (query_slot: fenns' kernel searches may split a query over several
    // invocations; the others have one a query and QUERY_LANES 1.)
    uint q = w.query_begin + query_slot();
    if (w.cell == pc.cell_capacity) {
        if (q < w.query_end && query_part() == 0u) finish_invalid_kernel(q);
        return;
    }
    if (KERNEL_METHOD == 0u) search_cell(w, q);
    else search_cell_paper(w, q);
}
