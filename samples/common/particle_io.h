/*
 * Particle files for the fenns CLI, samples and tests (docs/formats.md).
 *
 * Readers choose the format by the file extension (case-insensitive):
 *   .f32              raw little-endian float32 x,y,z triplets; the size must be
 *                     a multiple of 12 bytes.
 *   .xyz .txt .csv    text, three numbers a line separated by a comma and/or
 *                     whitespace. Blank lines and lines whose first non-blank
 *                     character is '#' are skipped; CRLF line ends and a UTF-8
 *                     BOM are accepted. A .csv file may start with one header
 *                     line made only of non-numbers (e.g. "x,y,z"). "nan" and
 *                     "inf" are accepted (counted in *out_nonfinite); numbers
 *                     beyond the float range are errors.
 *   .ply              "format ascii 1.0" or "format binary_little_endian 1.0";
 *                     a `vertex` element whose scalar properties include x, y
 *                     and z (float or double; integer types are converted).
 *                     Other scalar properties of any PLY type are skipped, other
 *                     elements before the vertex element are skipped (list
 *                     properties included) and elements after it are not read.
 *                     List properties on the vertex element are rejected.
 *
 * Every function returns 0 on success. On failure it returns nonzero and writes
 * ONE line (no newline) into err naming the file and the problem, e.g.
 * "pts.xyz: line 7: malformed number 'abc'". err may be NULL or err_size 0.
 * Readers check every count against the file size (and against overflow)
 * before allocating, so hostile files fail cleanly instead of exhausting memory.
 *
 * Thread safety: no global state; calls on different files may run
 * concurrently (the "-" output writes to stdout).
 */
#ifndef FENNS_PARTICLE_IO_H
#define FENNS_PARTICLE_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most points a file may hold (the library's particle counts are u32 and
 * planned for up to 2^31-1). */
#define FENNS_IO_MAX_POINTS 2147483647u

/* Reads the points of `path` as x,y,z float triplets.
 * On success *out_xyz holds 3 * *out_n floats (never NULL, also for 0 points;
 * release it with free()), and *out_nonfinite (may be NULL) the number of
 * points with a NaN or Inf coordinate. On failure *out_xyz is NULL, *out_n 0.
 * Cost: one pass over the file; memory about the file size plus the output. */
int fenns_io_read_points(const char *path, float **out_xyz, uint32_t *out_n,
                         uint32_t *out_nonfinite, char *err, size_t err_size);

/* Writes a CSR neighbour table (offsets: n+1 entries, offsets[0] = 0,
 * non-decreasing; indices: offsets[n] entries) to `path` in the FNNSCSR1
 * binary format, all little-endian:
 *   "FNNSCSR1" (8 bytes), u64 n, u64 m = offsets[n], u64 offsets[n+1], u32 indices[m].
 * When path is "-", prints one text line per particle to stdout instead:
 * "i: j1 j2 ..." ("i:" alone for an empty list).
 * Errors: offsets not starting at 0 or decreasing, open/write failures. */
int fenns_io_write_csr(const char *path, uint64_t n, const uint64_t *offsets,
                       const uint32_t *indices, char *err, size_t err_size);

/* Reads an FNNSCSR1 file back. Validates the magic, that the file size is
 * exactly what n and m need, offsets[0] = 0, non-decreasing offsets,
 * offsets[n] = m and every index < n. On success *out_offsets (n+1 entries)
 * and *out_indices (m entries) are never NULL; release them with free(). */
int fenns_io_read_csr(const char *path, uint64_t *out_n, uint64_t **out_offsets,
                      uint32_t **out_indices, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_PARTICLE_IO_H */
