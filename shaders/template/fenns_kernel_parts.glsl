// Spliced between a user kernel and the rest of the kernel search as it
// stands, not flattened with it: whether the kernel defines
// FENNS_KERNEL_COMBINE is known only once it is there. A kernel that does
// gives fenns a way to split a query's neighbours over several invocations
// (local_grid_fenns.glsl's finish_kernel_lanes): fenns_combine, and the
// shared slots the parts' states meet in, FENNS_KERNEL_PART_SLOTS_ of them
// (specialization constant 11: the host sets the workgroup's queries where
// it splits them, 1 elsewhere). The constant's SpecId is also how the host
// tells that the kernel combines (fenns__spirv_declares_spec_id).
#ifdef FENNS_KERNEL_COMBINE
layout(constant_id = 11) const uint FENNS_KERNEL_PART_SLOTS_ = 1;
shared fenns_state fenns_kernel_parts_[FENNS_KERNEL_PART_SLOTS_];
void fenns_store_part_(uint slot, fenns_state s) { fenns_kernel_parts_[slot] = s; }
void fenns_combine_part_(inout fenns_state s, uint slot) { fenns_combine(s, fenns_kernel_parts_[slot]); }
#else
void fenns_store_part_(uint slot, fenns_state s) {}
void fenns_combine_part_(inout fenns_state s, uint slot) {}
#endif
