// A search of a workgroup (uniform control flow: it has barriers) for the
// largest x in [lo, hi) for which `pred` holds, given that it holds for lo
// and, past some point, no longer: each round every invocation tests one
// candidate, `probe`, of the remaining range, so 2^24 candidates take three
// rounds where a binary search takes 24 dependent steps. `slot`: a shared
// uint. Leaves the answer in lo.
#ifndef FENNS_KARY_SEARCH_GLSL
#define FENNS_KARY_SEARCH_GLSL
#define KARY_SEARCH_LARGEST(lo, hi, slot, probe, pred)                        \
    {                                                                         \
        uint t_ = gl_LocalInvocationIndex, probes_ = gl_WorkGroupSize.x;      \
        while (hi - lo > 1u) {                                                \
            uint step_ = (hi - lo + probes_ - 1u) / probes_;                  \
            uint probe = lo + t_ * step_;                                     \
            if (t_ == 0u) slot = lo;                                          \
            barrier();                                                        \
            if (t_ != 0u && probe < hi && (pred)) atomicMax(slot, probe);     \
            barrier();                                                        \
            lo = slot;                                                        \
            hi = min(lo + step_, hi); /* the next probe, lo + step_, failed */ \
            barrier();                                                        \
        }                                                                     \
    }
#endif
