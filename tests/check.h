/* The one assertion macro of the test programs: report and count, never
 * abort, so a run lists every failure. Each test returns failures != 0. */
#ifndef FENNS_TESTS_CHECK_H
#define FENNS_TESTS_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            ++failures;                                                    \
        }                                                                  \
    } while (0)

#endif
