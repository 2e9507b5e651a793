/* fenns__host_pack: POSIX threads where the platform has them. */
#include "host_pack.h"

#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <unistd.h>
#define FENNS_PACK_THREADS 1
#endif

/* Below this many particles a thread costs more than it copies. */
#define PACK_MIN_PER_THREAD (1u << 18)
/* Past this many, the bus, not the cores, is the limit (H100 host, s1 4M:
 * 1, 2, 4, 8, 16 threads packed in 5.1, 3.0, 1.9, 1.8, 2.1 ms). */
#define PACK_MAX_THREADS 8u

/* x,y,z -> vec4 (w = 1), particles [begin, end). Scalar loads and stores:
 * assembling each vec4 in a stack array and copying it out stalls on store
 * forwarding (H100 host: 30 ms for 4M particles, 4x a plain copy). */
static void pack_vec4(const float *positions, size_t stride, float *dst, size_t begin, size_t end) {
    if (stride == 3u * sizeof(float)) {
        const float *src = positions;
        for (size_t i = begin; i < end; ++i) {
            dst[4u * i] = src[3u * i];
            dst[4u * i + 1u] = src[3u * i + 1u];
            dst[4u * i + 2u] = src[3u * i + 2u];
            dst[4u * i + 3u] = 1.0f;
        }
        return;
    }
    const char *src = (const char *)positions;
    for (size_t i = begin; i < end; ++i) {
        float x, y, z;
        const char *p = src + i * stride;
        memcpy(&x, p, sizeof x);
        memcpy(&y, p + sizeof x, sizeof y);
        memcpy(&z, p + 2u * sizeof x, sizeof z);
        dst[4u * i] = x;
        dst[4u * i + 1u] = y;
        dst[4u * i + 2u] = z;
        dst[4u * i + 3u] = 1.0f;
    }
}

/* Packed x,y,z, particles [begin, end): a quarter fewer bytes for the CPU
 * to write and the bus to carry than vec4, and a plain copy where the
 * caller's stride is 12 (H100, s1 4M: the vec4 pack took 9.5 of the run's
 * 16.5 ms). */
static void pack_xyz(const float *positions, size_t stride, float *dst, size_t begin, size_t end) {
    if (stride == 3u * sizeof(float)) {
        memcpy(dst + 3u * begin, positions + 3u * begin, 3u * sizeof(float) * (end - begin));
        return;
    }
    const char *src = (const char *)positions;
    for (size_t i = begin; i < end; ++i) memcpy(dst + 3u * i, src + i * stride, 3u * sizeof(float));
}

typedef struct pack_part {
    const float *positions;
    size_t stride;
    float *dst;
    int vec4;
    size_t begin, end;
} pack_part;

static void pack_part_run(const pack_part *p) {
    if (p->vec4) pack_vec4(p->positions, p->stride, p->dst, p->begin, p->end);
    else pack_xyz(p->positions, p->stride, p->dst, p->begin, p->end);
}

#ifdef FENNS_PACK_THREADS
static void *pack_thread(void *arg) {
    pack_part_run(arg);
    return NULL;
}

static unsigned pack_threads(uint32_t n) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned t = cores > 0 ? (unsigned)cores : 1u;
    if (t > PACK_MAX_THREADS) t = PACK_MAX_THREADS;
    unsigned by_size = n / PACK_MIN_PER_THREAD;
    return t < by_size ? t : by_size ? by_size : 1u;
}
#endif

void fenns__host_pack(const float *positions, size_t stride, uint32_t n, float *dst, int vec4) {
    if (n == 0) return; /* positions may be NULL then */
    if (!stride) stride = 3u * sizeof(float);
#ifdef FENNS_PACK_THREADS
    unsigned t = pack_threads(n);
    if (t > 1u) {
        pack_part parts[PACK_MAX_THREADS];
        pthread_t threads[PACK_MAX_THREADS];
        int started[PACK_MAX_THREADS] = {0};
        for (unsigned i = 0; i < t; ++i) {
            parts[i] = (pack_part){positions, stride, dst, vec4, (size_t)n * i / t, (size_t)n * (i + 1u) / t};
            if (i) started[i] = pthread_create(&threads[i], NULL, pack_thread, &parts[i]) == 0;
        }
        pack_part_run(&parts[0]);
        for (unsigned i = 1; i < t; ++i) {
            if (started[i]) pthread_join(threads[i], NULL);
            else pack_part_run(&parts[i]); /* no thread: packed here */
        }
        return;
    }
#endif
    pack_part_run(&(pack_part){positions, stride, dst, vec4, 0, n});
}
