/* The one translation unit with stb_image_write's implementation (built
 * without fenns' warning flags: it is third-party code). */
#include "png_write.h"

#include <stdlib.h>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

int png_write_rgb_from_packed(const char *path, const uint32_t *pixels, uint32_t width, uint32_t height) {
    unsigned char *rgb = malloc((size_t)width * height * 3u);
    if (!rgb) return 1;
    for (size_t i = 0; i < (size_t)width * height; ++i) {
        uint32_t p = pixels[i];
        unsigned char *o = rgb + 3u * i;
        if (p == 0u) { /* background: the tank, dark */
            o[0] = 18; o[1] = 20; o[2] = 28;
        } else {
            o[0] = (unsigned char)(p & 0xFFu);
            o[1] = (unsigned char)((p >> 8) & 0xFFu);
            o[2] = (unsigned char)((p >> 16) & 0xFFu);
        }
    }
    int ok = stbi_write_png(path, (int)width, (int)height, 3, rgb, (int)width * 3);
    free(rgb);
    return ok ? 0 : 1;
}
