/* Exits 0 when the SPIR-V fenns_add_kernel made looks like a compute module
 * with fenns' entry point. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "my_kernel.spv.h"

int main(void) {
    size_t words = sizeof my_kernel / sizeof my_kernel[0];
    int main_found = 0;
    for (size_t w = 0; w + 1 < words; ++w) main_found |= memcmp(&my_kernel[w], "main", 5) == 0;
    if (words < 100 || my_kernel[0] != 0x07230203u || !main_found) {
        fprintf(stderr, "consumer: %zu words, magic %08x: not fenns' kernel search\n", words, (unsigned)my_kernel[0]);
        return 1;
    }
    printf("consumer: kernel search of %zu SPIR-V words\n", words);
    return 0;
}
