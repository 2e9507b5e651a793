/*
 * Runs a fuzz target over every file of a corpus folder, with any compiler:
 * the inputs the fuzzers found stay as a regression test.
 *   replay_<target> CORPUS_DIR
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
        return 1;
    }
    unsigned files = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t *data = NULL;
        size_t size = 0, cap = 0, got;
        uint8_t chunk[65536];
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            if (size + got > cap) {
                cap = (size + got) * 2;
                uint8_t *grown = realloc(data, cap);
                if (!grown) abort();
                data = grown;
            }
            memcpy(data + size, chunk, got);
            size += got;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(data ? data : (const uint8_t *)"", size);
        free(data);
        ++files;
    }
    closedir(dir);
    printf("%s: %u inputs replayed\n", argv[0], files);
    return files ? 0 : 1;
}
