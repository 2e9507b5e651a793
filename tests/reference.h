/*
 * CPU reference for fenns tests (docs/semantics.md).
 *
 * Neighbour definition, exactly as the library's: j is a neighbour of i when
 * j != i, both points are finite, and the float32 value
 *     dx*dx + dy*dy + dz*dz <= r*r      (dx = xj - xi etc., r*r in float)
 * evaluated left to right in float without fma (this file is compiled with
 * -ffp-contract=off). Lists are ascending by index.
 *
 * Results are CSR: offsets[n+1] (offsets[0] = 0, offsets[n] = m) and
 * indices[m]. Both arrays come from malloc, are never NULL on success (also
 * for n = 0 or m = 0) and are released with fenns_reference_free.
 */
#ifndef FENNS_TESTS_REFERENCE_H
#define FENNS_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FENNS_REFERENCE_OK 0
#define FENNS_REFERENCE_INVALID_ARGUMENT (-1) /* r not finite or <= 0, NULL pointers */
#define FENNS_REFERENCE_OUT_OF_MEMORY (-2)    /* also when the lists cannot be addressed */

/* Relative tolerance on |dist2 - r*r| / r*r within which a pair may differ
 * between a result and the reference (a GPU may round dist2 differently, e.g.
 * with fma): 8 float ulps. */
#define FENNS_REFERENCE_REL_TOLERANCE 1e-6

/* Grid reference: points sorted by a hashed uniform grid of cell size r*1.001
 * (cell coordinates floor(x / cell) in double, taken relative to the smallest
 * cell of the finite points and packed into one 64-bit key when the occupied
 * box allows, else hashed), each cell searched against its 27 neighbours.
 * Memory about 40 bytes per point plus twice the lists while they are
 * assembled; no dense grid, whatever the spread of the points. Cost about
 * 27 * cell occupancy distance tests per point, in one pass; 1M points with
 * ~50 neighbours take 2-3 s on one core. r*r = inf (r > ~1.8e19) puts all
 * points in one cell, as every finite pair is then a neighbour.
 * xyz: 3*n floats (may be NULL when n = 0). Returns FENNS_REFERENCE_*. */
int fenns_reference_csr(const float *xyz, uint32_t n, float r, uint64_t **offsets,
                        uint32_t **indices);

/* Brute force, O(n^2) distance tests; for small n and for checking the grid. */
int fenns_reference_csr_brute(const float *xyz, uint32_t n, float r, uint64_t **offsets,
                              uint32_t **indices);

/* Releases the arrays of either function (NULL-safe) and sets them to NULL. */
void fenns_reference_free(uint64_t **offsets, uint32_t **indices);

/* The float32 dist2 of the definition, for messages and tolerances. */
float fenns_reference_dist2(const float *xyz, uint32_t i, uint32_t j);

/* Flags for fenns_reference_compare. */
#define FENNS_REFERENCE_ANY_ORDER 0x1u /* lists in `got` may be in any order */

/* Compares a result CSR (`got`, got_n particles) with the reference CSR for
 * the same points and radius. Every list must hold exactly the reference's
 * entries, ascending unless FENNS_REFERENCE_ANY_ORDER, without duplicates,
 * self, or out-of-range indices. A pair present in only one of them is
 * tolerated only when both points are finite and its float32 dist2 lies within
 * FENNS_REFERENCE_REL_TOLERANCE of r*r; *out_tolerated (may be NULL) counts them.
 * Returns 0 when they agree; otherwise 1 and the first difference in msg,
 * e.g. "particle 17: missing neighbour 42 (dist2 1.0001 vs r*r 1)".
 * Returns FENNS_REFERENCE_OUT_OF_MEMORY when scratch for ANY_ORDER fails. */
int fenns_reference_compare(const float *xyz, uint32_t n, float r,
                            const uint64_t *ref_offsets, const uint32_t *ref_indices,
                            uint64_t got_n, const uint64_t *got_offsets, const uint32_t *got_indices,
                            unsigned flags, uint64_t *out_tolerated, char *msg, size_t msg_size);

/* Point sets: the reference lists of nq queries among nc candidates (two
 * sets, so no j != i condition: a query and a candidate at one place are
 * neighbours). List i holds candidate indices, ascending. The self-search
 * reference of the union (queries first), cut to the candidates. */
int fenns_reference_cross_csr(const float *query_xyz, uint32_t nq, const float *candidate_xyz, uint32_t nc, float r,
                              uint64_t **offsets, uint32_t **indices);

/* Compares a point-set result (lists per query of candidate indices, in any
 * order) with fenns_reference_cross_csr's, as fenns_reference_compare does
 * (messages number the candidates nq + j). */
int fenns_reference_compare_cross(const float *query_xyz, uint32_t nq, const float *candidate_xyz, uint32_t nc,
                                  float r, const uint64_t *ref_offsets, const uint32_t *ref_indices,
                                  const uint64_t *got_offsets, const uint32_t *got_indices, char *msg,
                                  size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif /* FENNS_TESTS_REFERENCE_H */
