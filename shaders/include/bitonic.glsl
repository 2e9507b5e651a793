// Bitonic sort of a power-of-two prefix of shared (section, value) pairs,
// ascending by section, then value. Needs SORT_CAPACITY.
shared uint s_bitonic[SORT_CAPACITY];
shared uint s_bitonic_section[SORT_CAPACITY];

void bitonic_sort_shared(uint padded) {
    for (uint k = 2u; k <= padded; k <<= 1u) {
        for (uint j = k >> 1u; j > 0u; j >>= 1u) {
            for (uint i = gl_LocalInvocationIndex; i < padded; i += gl_WorkGroupSize.x) {
                uint l = i ^ j;
                if (l > i) {
                    uint a = s_bitonic[i], b = s_bitonic[l];
                    uint sa = s_bitonic_section[i], sb = s_bitonic_section[l];
                    bool greater = sa > sb || (sa == sb && a > b);
                    if (greater == ((i & k) == 0u)) {
                        s_bitonic[i] = b;
                        s_bitonic[l] = a;
                        s_bitonic_section[i] = sb;
                        s_bitonic_section[l] = sa;
                    }
                }
            }
            barrier();
        }
    }
}

uint next_pow2_at_least_2(uint len) {
    uint padded = 2u;
    while (padded < len) padded <<= 1u;
    return padded;
}
