/* The host path's first step: the caller's positions into the upload the
 * GPU reads. Spread over the CPU's cores: one thread writes a mapped
 * device-local buffer (a PCIe BAR) at about 9 GB/s, well short of what the
 * bus takes (H100 host, s1 4M: the run's 10.3 ms -> 7.1). */
#ifndef FENNS_HOST_PACK_H
#define FENNS_HOST_PACK_H

#include <stddef.h>
#include <stdint.h>

/* Packs n particles' x, y, z (floats at `stride` bytes from one particle to
 * the next; 0 means 12) into dst, in order: packed x,y,z, 12 bytes a
 * particle (vec4 == 0: the GPU widens them), or vec4 with w = 1. In
 * contiguous parts, one a thread, the calling thread taking the first;
 * where n is small, the platform has no threads or creating one fails, the
 * calling thread packs it (all of it, or that part). Nothing to report. */
void fenns__host_pack(const float *positions, size_t stride, uint32_t n, float *dst, int vec4);

#endif
