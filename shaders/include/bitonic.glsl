// Bitonic sort of a power-of-two prefix of a shared array, ascending.
shared uint s_bitonic[SORT_CAPACITY];

void bitonic_sort_shared(uint padded) {
    for (uint k = 2u; k <= padded; k <<= 1u) {
        for (uint j = k >> 1u; j > 0u; j >>= 1u) {
            for (uint i = gl_LocalInvocationIndex; i < padded; i += gl_WorkGroupSize.x) {
                uint l = i ^ j;
                if (l > i) {
                    uint a = s_bitonic[i], b = s_bitonic[l];
                    bool ascending = (i & k) == 0u;
                    if ((a > b) == ascending) {
                        s_bitonic[i] = b;
                        s_bitonic[l] = a;
                    }
                }
            }
            barrier();
        }
    }
}
