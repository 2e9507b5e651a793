/* A user's program built against an installed (or add_subdirectory'd) fenns:
 * counts the neighbours of 3000 pseudo-random points through the public API
 * and checks every count against brute force. Built as C99 and, from
 * consumer.cpp, as C++17 (tests/package.cmake). Exit 0 only when exact. */
#include <fenns/fenns.h>
#include <fenns/fenns_headless.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POINTS 3000u
#define RADIUS 0.08f

static float next_unit(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

static unsigned brute_count(const float *xyz, unsigned i) {
    unsigned count = 0;
    for (unsigned j = 0; j < POINTS; ++j) {
        float dx = xyz[3 * j] - xyz[3 * i], dy = xyz[3 * j + 1] - xyz[3 * i + 1], dz = xyz[3 * j + 2] - xyz[3 * i + 2];
        float d2 = dx * dx;
        d2 += dy * dy;
        d2 += dz * dz;
        count += (j != i && d2 <= RADIUS * RADIUS) ? 1u : 0u;
    }
    return count;
}

int main(void) {
    static float xyz[3 * POINTS];
    unsigned state = 12345u, wrong = 0;
    for (unsigned k = 0; k < 3 * POINTS; ++k) xyz[k] = next_unit(&state);

    fenns_headless_create_info hinfo;
    memset(&hinfo, 0, sizeof hinfo); /* `= {0}` warns in C++ */
    fenns_headless headless = NULL;
    fenns_context context = NULL;
    fenns_result r = fenns_headless_create(&hinfo, &headless);
    if (r == FENNS_SUCCESS) {
        fenns_context_create_info cinfo;
        fenns_headless_context_info(headless, &cinfo);
        r = fenns_context_create(&cinfo, &context);
    }
    if (r == FENNS_SUCCESS) {
        fenns_host_search_info info; /* zero means default in every field, new ones too */
        memset(&info, 0, sizeof info);
        info.method = FENNS_METHOD_FENNS;
        info.radius = RADIUS;
        info.positions = xyz;
        info.particle_count = POINTS;
        info.queue = fenns_headless_queue(headless);
        fenns_host_csr csr;
        memset(&csr, 0, sizeof csr);
        r = fenns_host_search(context, &info, &csr);
        if (r == FENNS_SUCCESS) {
            for (unsigned i = 0; i < POINTS; ++i) wrong += csr.counts[i] != brute_count(xyz, i);
            printf("consumer (%s): %llu neighbour pairs, %u counts wrong\n", CONSUMER_LANGUAGE,
                   (unsigned long long)csr.total, wrong);
        }
        fenns_host_csr_free(context, &csr);
    }
    /* FENNS_VALIDATION=1 (ctest) turns the validation layer on: it must stay silent. */
    if (r == FENNS_SUCCESS && fenns_headless_validation_message_count(headless) != 0) wrong = 1;
    if (r != FENNS_SUCCESS) fprintf(stderr, "consumer (%s): %s\n", CONSUMER_LANGUAGE, fenns_result_string(r));
    fenns_context_destroy(context);
    fenns_headless_destroy(headless);
    return r == FENNS_SUCCESS && wrong == 0 ? 0 : 1;
}
