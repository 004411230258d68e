/*
 * shmemx.h: shmemu's OpenSHMEM extensions, the widely used ones that OpenSHMEM 1.6 adopted,
 * under the shmemx_ names other implementations ship them with (Sandia OpenSHMEM's
 * argument orders). Include it after, or instead of, shmem.h; it includes shmem.h.
 *
 *   shmemx_signal_add, shmemx_signal_set   update a remote signal word atomically, with the
 *                                          ordering of a put-with-signal's signal: the
 *                                          caller's earlier puts to that PE (fenced) land
 *                                          first. OpenSHMEM 1.6 calls them shmem_signal_add
 *                                          and shmem_signal_set; those names are here too,
 *                                          since shmem.h is 1.5's and does not have them.
 *   shmemx_TYPENAME_ibput, _ibget          blocked strided put and get: nblocks blocks of
 *                                          bsize contiguous elements; block i goes from
 *                                          source + i * sst to dest + i * dst (strides in
 *                                          elements between block starts, >= bsize is not
 *                                          required, >= 1 is). For the put dest is
 *                                          symmetric, for the get source. 1.6: shmem_ibput.
 *   shmemx_TYPENAME_sum_inscan, _exscan    prefix sums over a team, in team PE order: PE k
 *                                          gets the sum of the sources of PEs 0..k
 *                                          (inscan) or 0..k-1 (exscan; PE 0 gets 0).
 *                                          Deterministic: the same bits on every run.
 *                                          Collective over team; return 0 on success.
 *
 * TYPENAME ranges over OpenSHMEM's standard RMA types for ibput/ibget and over the sum
 * reduction types (complex included) for the scans.
 *
 * Also, as Sandia OpenSHMEM ships them (programs of its test suite use them): shmemx_wtime,
 * the seconds of a monotonic clock (announced by HAVE_SHMEMX_WTIME, which programs test
 * before defining their own), and shmemx_pcontrol, the old name of shmem_pcontrol.
 */
#ifndef SHMEMU_SHMEMX_H
#define SHMEMU_SHMEMX_H

#include <stddef.h>
#include <stdint.h>

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HAVE_SHMEMX_WTIME 1
double shmemx_wtime(void);
void shmemx_pcontrol(const int level, ...);

void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);

#define SHMEMU_SHMEMX_DECLARE_IB(TYPE, NAME)                                                  \
    void shmemx_##NAME##_ibput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t bsize, size_t nblocks, int pe);                         \
    void shmemx_##NAME##_ibget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t bsize, size_t nblocks, int pe);
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEMX_DECLARE_IB)
#undef SHMEMU_SHMEMX_DECLARE_IB

#define SHMEMU_SHMEMX_DECLARE_SCAN(TYPE, NAME)                                                \
    int shmemx_##NAME##_sum_inscan(shmem_team_t team, TYPE *dest, const TYPE *source,         \
                                   size_t nelems);                                            \
    int shmemx_##NAME##_sum_exscan(shmem_team_t team, TYPE *dest, const TYPE *source,         \
                                   size_t nelems);
SHMEMU_SHMEM_REDUCE_SUMPROD_TYPES(SHMEMU_SHMEMX_DECLARE_SCAN)
#undef SHMEMU_SHMEMX_DECLARE_SCAN

#ifdef __cplusplus
}
#endif

#endif
