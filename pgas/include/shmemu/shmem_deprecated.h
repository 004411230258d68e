/*
 * shmemu/shmem_deprecated.h: the interfaces OpenSHMEM 1.5 still defines but deprecates
 * (its annex "Deprecated API"), included by shmem.h. Every name here has a current
 * replacement, named next to it; new code should use that one.
 *
 * Declarations carry no __attribute__((deprecated)): programs from other implementations'
 * suites build with -Wall -Werror and must build unchanged.
 *
 * Active sets: the pSync collectives work on the active set (PE_start, logPE_stride,
 * PE_size), the world PEs PE_start + i * 2^logPE_stride for i < PE_size. Only its members
 * call, all with the same arguments. pSync is a symmetric array of at least the routine's
 * SHMEM_*_SYNC_SIZE longs, each SHMEM_SYNC_VALUE when the call starts (misuse otherwise: the
 * call reports the first word that is not, and aborts); shmemu keeps its synchronization
 * elsewhere, so pSync holds SHMEM_SYNC_VALUE on return, and may be reused at once. pWrk is
 * not used. Each distinct active set becomes an internal team the first time a collective
 * names it (at most 64 distinct sets per job); reductions combine in active-set PE order, so
 * every member gets the same bits. nelems / nreduce count elements (32- or 64-bit words for
 * the sized forms). The broadcast leaves the root's dest unchanged, unlike shmem_broadcast.
 */
#ifndef SHMEMU_SHMEM_DEPRECATED_H
#define SHMEMU_SHMEM_DEPRECATED_H

#include <stddef.h>

#include "shmemu/typelists.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants (OpenSHMEM leaves the sizes to the implementation) --------------------- */

#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 2
#define SHMEM_BCAST_SYNC_SIZE 64
#define SHMEM_REDUCE_SYNC_SIZE 128
#define SHMEM_COLLECT_SYNC_SIZE 64
#define SHMEM_ALLTOALL_SYNC_SIZE 64
#define SHMEM_ALLTOALLS_SYNC_SIZE 64
#define SHMEM_SYNC_SIZE 128 /* the largest of the above */
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 64

/* The pre-1.3 spellings with a leading underscore. */
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- setup, query, memory ------------------------------------------------------------- */

/* shmem_init; npes is ignored (the job's size comes from shmemu-run). */
void start_pes(int npes);
int _my_pe(void);  /* shmem_my_pe */
int _num_pes(void); /* shmem_n_pes */
void *shmalloc(size_t size);                       /* shmem_malloc */
void shfree(void *ptr);                            /* shmem_free */
void *shrealloc(void *ptr, size_t size);           /* shmem_realloc */
void *shmemalign(size_t alignment, size_t size);   /* shmem_align */

/* Cache management: no-ops (there is no cache to manage on one process's threads). */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

/* ---- pre-1.4 atomics: shmem_TYPENAME_atomic_* under their old names ------------------ */

#define SHMEMU_SHMEM_DECLARE_OLD_AMO_EXTENDED(TYPE, NAME)                                     \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe);                                    \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe);                                  \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_EXTENDED_TYPES(SHMEMU_SHMEM_DECLARE_OLD_AMO_EXTENDED)
#undef SHMEMU_SHMEM_DECLARE_OLD_AMO_EXTENDED

#define SHMEMU_SHMEM_DECLARE_OLD_AMO(TYPE, NAME)                                              \
    TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe);                     \
    TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe);                                 \
    TYPE shmem_##NAME##_finc(TYPE *dest, int pe);                                             \
    void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe);                                  \
    void shmem_##NAME##_inc(TYPE *dest, int pe);
SHMEMU_AMO_TYPES(SHMEMU_SHMEM_DECLARE_OLD_AMO)
#undef SHMEMU_SHMEM_DECLARE_OLD_AMO

/* ---- shmem_wait: shmem_TYPENAME_wait_until(ivar, SHMEM_CMP_NE, cmp_value) ------------- */
/* volatile, as in the versions that defined them: a pointer with or without it converts. */

#define SHMEMU_SHMEM_DECLARE_OLD_WAIT(TYPE, NAME)                                             \
    void shmem_##NAME##_wait(volatile TYPE *ivar, TYPE cmp_value);
SHMEMU_WAIT_TYPES(SHMEMU_SHMEM_DECLARE_OLD_WAIT)
#undef SHMEMU_SHMEM_DECLARE_OLD_WAIT

/* ---- active-set collectives (see the top of this file) -------------------------------- */

/* shmem_barrier: quiet, then synchronize the set; shmem_sync: synchronize only. (With C11,
 * shmem.h's shmem_sync macro sends four arguments here and one to shmem_team_sync.) */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* PE_root is the root's number within the active set. */
void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root,
                       int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root,
                       int PE_start, int logPE_stride, int PE_size, long *pSync);
/* collect: nelems may differ per PE; fcollect: the same on every PE. */
void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync);
void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start,
                     int logPE_stride, int PE_size, long *pSync);
void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start,
                      int logPE_stride, int PE_size, long *pSync);
void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync);
void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems, int PE_start, int logPE_stride, int PE_size,
                       long *pSync);

/* shmem_TYPENAME_OP_to_all: the shmem_TYPENAME_OP_reduce of the active set. */
#define SHMEMU_SHMEM_DECLARE_TO_ALL(TYPE, NAME, OP)                                           \
    void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,            \
                                      int PE_start, int logPE_stride, int PE_size,            \
                                      TYPE *pWrk, long *pSync);
#define SHMEMU_SHMEM_DECLARE_TO_ALL_BITWISE(TYPE, NAME)                                       \
    SHMEMU_REDUCE_BITWISE_OPS(SHMEMU_SHMEM_DECLARE_TO_ALL, TYPE, NAME)
#define SHMEMU_SHMEM_DECLARE_TO_ALL_MINMAX(TYPE, NAME)                                        \
    SHMEMU_SHMEM_DECLARE_TO_ALL(TYPE, NAME, min) SHMEMU_SHMEM_DECLARE_TO_ALL(TYPE, NAME, max)
#define SHMEMU_SHMEM_DECLARE_TO_ALL_SUMPROD(TYPE, NAME)                                       \
    SHMEMU_SHMEM_DECLARE_TO_ALL(TYPE, NAME, sum) SHMEMU_SHMEM_DECLARE_TO_ALL(TYPE, NAME, prod)
SHMEMU_SHMEM_TO_ALL_BITWISE_TYPES(SHMEMU_SHMEM_DECLARE_TO_ALL_BITWISE)
SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(SHMEMU_SHMEM_DECLARE_TO_ALL_MINMAX)
SHMEMU_SHMEM_TO_ALL_SUMPROD_TYPES(SHMEMU_SHMEM_DECLARE_TO_ALL_SUMPROD)
#undef SHMEMU_SHMEM_DECLARE_TO_ALL_SUMPROD
#undef SHMEMU_SHMEM_DECLARE_TO_ALL_MINMAX
#undef SHMEMU_SHMEM_DECLARE_TO_ALL_BITWISE
#undef SHMEMU_SHMEM_DECLARE_TO_ALL

/* ---- the untyped and type-generic old names ------------------------------------------ */
/* shmem_wait and shmem_swap are functions on long; with C11 they select by type, as the
 * other old generic names (shmem_fadd, shmem_finc, ...) do. */

void shmem_wait(volatile long *ivar, long cmp_value);
long shmem_swap(long *dest, long value, int pe);

#ifdef __cplusplus
}
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

#define SHMEMU_GEN_OLD(TYPE, NAME, OP) , TYPE * : shmem_##NAME##_##OP
#define SHMEMU_GEN_OLD_FETCH(TYPE, NAME)                                                      \
    SHMEMU_GEN_OLD(TYPE, NAME, fetch), const TYPE * : shmem_##NAME##_fetch
#define SHMEMU_GEN_OLD_SET(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, set)
#define SHMEMU_GEN_OLD_SWAP(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, swap)
#define SHMEMU_GEN_OLD_CSWAP(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, cswap)
#define SHMEMU_GEN_OLD_FADD(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, fadd)
#define SHMEMU_GEN_OLD_FINC(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, finc)
#define SHMEMU_GEN_OLD_ADD(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, add)
#define SHMEMU_GEN_OLD_INC(TYPE, NAME) SHMEMU_GEN_OLD(TYPE, NAME, inc)
#define SHMEMU_GEN_OLD_WAIT(TYPE, NAME)                                                       \
    SHMEMU_GEN_OLD(TYPE, NAME, wait), volatile TYPE * : shmem_##NAME##_wait

#define shmem_fetch(source, ...)                                                              \
    _Generic((source) SHMEMU_GENERIC_AMO_EXTENDED_TYPES(SHMEMU_GEN_OLD_FETCH))(source,        \
                                                                               __VA_ARGS__)
#define shmem_set(dest, ...)                                                                  \
    _Generic((dest) SHMEMU_GENERIC_AMO_EXTENDED_TYPES(SHMEMU_GEN_OLD_SET))(dest, __VA_ARGS__)
#define shmem_swap(dest, ...)                                                                 \
    _Generic((dest) SHMEMU_GENERIC_AMO_EXTENDED_TYPES(SHMEMU_GEN_OLD_SWAP))(dest, __VA_ARGS__)
#define shmem_cswap(dest, ...)                                                                \
    _Generic((dest) SHMEMU_GENERIC_AMO_TYPES(SHMEMU_GEN_OLD_CSWAP))(dest, __VA_ARGS__)
#define shmem_fadd(dest, ...)                                                                 \
    _Generic((dest) SHMEMU_GENERIC_AMO_TYPES(SHMEMU_GEN_OLD_FADD))(dest, __VA_ARGS__)
#define shmem_finc(dest, ...)                                                                 \
    _Generic((dest) SHMEMU_GENERIC_AMO_TYPES(SHMEMU_GEN_OLD_FINC))(dest, __VA_ARGS__)
#define shmem_add(dest, ...)                                                                  \
    _Generic((dest) SHMEMU_GENERIC_AMO_TYPES(SHMEMU_GEN_OLD_ADD))(dest, __VA_ARGS__)
#define shmem_inc(dest, ...)                                                                  \
    _Generic((dest) SHMEMU_GENERIC_AMO_TYPES(SHMEMU_GEN_OLD_INC))(dest, __VA_ARGS__)
#define shmem_wait(ivar, ...)                                                                 \
    _Generic((ivar) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_OLD_WAIT))(ivar, __VA_ARGS__)

#endif /* C11 */

#endif
