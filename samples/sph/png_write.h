/* PNG frames of fenns-sph, through Debian's libstb-dev (stb_image_write). */
#ifndef FENNS_SPH_PNG_WRITE_H
#define FENNS_SPH_PNG_WRITE_H
#include <stdint.h>

/* Writes a width x height RGB PNG from pixels packed as (depth << 24 | b << 16
 * | g << 8 | r), 0 meaning background. Returns 0 on success. */
int png_write_rgb_from_packed(const char *path, const uint32_t *pixels, uint32_t width, uint32_t height);

#endif
