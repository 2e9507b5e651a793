// The look-back states of a one-dispatch scan (scan_lookback.glsl), zeroed
// by the pass before it: the coarse count before the cell scan, reset
// status before the offsets scan. Both run anyway, so the states cost no
// pass of their own. The host binds them (fenns__bind_lookback_states) and
// pushes their count in pc.capacity_hi: 0 where the scan after takes two
// dispatches, the binding then a placeholder never written.
layout(std430, binding = FENNS_BINDING_LOOKBACK_STATES) writeonly buffer LookbackStates { uvec4 lookback_states[]; };

// Every invocation of the dispatch takes its share, a state at a time.
void zero_lookback_states() {
    uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    for (uint i = linear_workgroup() * gl_WorkGroupSize.x + gl_LocalInvocationIndex; i < pc.capacity_hi; i += stride)
        lookback_states[i] = uvec4(0u);
}
