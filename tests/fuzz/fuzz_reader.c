/*
 * libFuzzer target for one input reader: the input bytes become a file with
 * the extension FUZZ_EXTENSION (".f32", ".xyz", ".csv", ".ply" or ".csr")
 * and go through the same reader the CLI uses. A reader must either succeed
 * with consistent output or fail with a message that names the file; it
 * must never crash, leak or read out of bounds (the sanitizers watch).
 * Built by -DFENNS_FUZZ=ON with clang; replay_corpus.c runs the corpus
 * through it as an ordinary test with any compiler.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "particle_io.h"

#ifndef FUZZ_EXTENSION
#error "define FUZZ_EXTENSION"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/fenns-fuzz-%ld%s", (long)getpid(), FUZZ_EXTENSION);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f) != 0) abort();
    char err[512] = "";
    if (strcmp(FUZZ_EXTENSION, ".csr") == 0) {
        uint64_t n = 0, *offsets = NULL;
        uint32_t *indices = NULL;
        int rc = fenns_io_read_csr(path, &n, &offsets, &indices, err, sizeof err);
        if (rc == 0) {
            if (!offsets || !indices || offsets[0] != 0) abort();
            for (uint64_t i = 0; i < n; ++i)
                if (offsets[i + 1] < offsets[i]) abort();
            for (uint64_t k = 0; k < offsets[n]; ++k)
                if (indices[k] >= n) abort();
        } else if (!strstr(err, path)) {
            abort(); /* every error names the file */
        }
        free(offsets);
        free(indices);
    } else {
        float *xyz = NULL;
        uint32_t n = 0, nonfinite = 0;
        int rc = fenns_io_read_points(path, &xyz, &n, &nonfinite, err, sizeof err);
        if (rc == 0) {
            if (!xyz || nonfinite > n) abort();
            uint32_t counted = 0;
            for (uint32_t i = 0; i < n; ++i)
                counted += !(isfinite(xyz[3 * i]) && isfinite(xyz[3 * i + 1]) && isfinite(xyz[3 * i + 2]));
            if (counted != nonfinite) abort();
        } else if (xyz || n || !strstr(err, path)) {
            abort();
        }
        free(xyz);
    }
    unlink(path);
    return 0;
}
