/* ctest `host_pack`: the host path's packing of the caller's positions
 * (src/host/host_pack.c) writes every particle once, in order, in both
 * layouts and at every stride, at sizes packed by one thread and by
 * several (unequal parts included). Pure host test. */
#include "check.h"
#include "host/host_pack.h"

#include <stdlib.h>
#include <string.h>

/* Coordinate c of particle i: exact in a float, and (x, y) names i. */
static float coordinate(size_t i, unsigned c) {
    return c == 0u ? (float)(i & 0xFFFFFu) : c == 1u ? (float)(i >> 20) + 0.25f : (float)(i & 0xFFFu) + 0.5f;
}

static void check_pack(uint32_t n, size_t stride, int vec4) {
    size_t step = stride ? stride : 12u;
    char *src = malloc(step * n + 16u);
    size_t width = vec4 ? 4u : 3u;
    float *dst = malloc(sizeof(float) * width * ((size_t)n + 1u));
    if (!src || !dst) {
        CHECK(0, "out of memory");
        free(src);
        free(dst);
        return;
    }
    memset(src, 0xAB, step * n + 16u); /* the bytes between particles: not positions */
    for (size_t i = 0; i < n; ++i)
        for (unsigned c = 0; c < 3u; ++c) {
            float v = coordinate(i, c);
            memcpy(src + i * step + c * sizeof(float), &v, sizeof v);
        }
    const float sentinel = -7.0f;
    for (size_t i = 0; i < width * ((size_t)n + 1u); ++i) dst[i] = sentinel;
    fenns__host_pack((const float *)(const void *)src, stride, n, dst, vec4);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < n; ++i)
        for (unsigned c = 0; c < width; ++c) {
            float want = c < 3u ? coordinate(i, c) : 1.0f;
            if (dst[i * width + c] != want && !wrong++) first = i;
        }
    CHECK(wrong == 0, "n %u stride %zu %s: %zu values wrong, first at particle %zu", n, stride,
          vec4 ? "vec4" : "xyz", wrong, first);
    for (unsigned c = 0; c < width; ++c)
        CHECK(dst[(size_t)n * width + c] == sentinel, "n %u stride %zu: written past the end", n, stride);
    free(src);
    free(dst);
}

int main(void) {
    /* 0 and small sets: one thread; 3 * 2^18 + 7 and 2^21 + 13: up to 3 and
     * 8 threads (as many as the machine has cores), parts of unequal size. */
    const uint32_t sizes[] = {0u, 1u, 1000u, 3u * (1u << 18) + 7u, (1u << 21) + 13u};
    const size_t strides[] = {0u, 12u, 16u, 20u};
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; ++a)
        for (size_t b = 0; b < sizeof strides / sizeof strides[0]; ++b)
            for (int vec4 = 0; vec4 < 2; ++vec4) check_pack(sizes[a], strides[b], vec4);
    fenns__host_pack(NULL, 0, 0, NULL, 0); /* n = 0: positions may be NULL */
    if (failures) fprintf(stderr, "%d failures\n", failures);
    else printf("host_pack: passed\n");
    return failures != 0;
}
