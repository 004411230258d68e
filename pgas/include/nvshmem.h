/*
 * nvshmem.h: the NVSHMEM host API, implemented on CPU threads by shmemu.
 *
 * Names, signatures and constant values follow NVSHMEM (docs/design.md D2), so a program written
 * for NVSHMEM compiles unchanged. What differs is where it runs: every PE is a thread of one
 * process (the "threads backend"), so:
 *
 *   - Global and static variables are per PE when the program is built with bin/shmemu-cc
 *     (each PE runs its own loaded copy of the program, docs/pgas.md "Per-PE data"), and
 *     symmetric: a put to &global reaches the target PE's copy. With
 *     --shmemu-globals=shared (or a plain build) they are shared by all PEs and only the
 *     symmetric heap (nvshmem_malloc and friends) is per PE.
 *   - A program whose main() calls nvshmem_init() runs as N PE threads when it is built with
 *     bin/shmemu-cc and started with `bin/shmemu-run -n N ./prog` (or SHMEMU_NPES=N).
 *   - nvshmem_ptr() returns a usable pointer for every PE (all PEs share one address space),
 *     unless the put path is forced (SHMEMU_NO_PTR=1, see shmemu/pgas.h).
 *
 * Semantics (docs/design.md D4, D7):
 *   - A put-with-signal delivers its data before its signal.
 *   - nvshmem_fence orders puts to the same PE; nvshmem_quiet completes everything.
 *   - Signal updates and waits are release and acquire operations: a reader that waits on the
 *     signal may read the data without a race; one that does not wait is reported by
 *     helgrind, DRD and ThreadSanitizer.
 *   - Atomics (nvshmem_TYPE_atomic_*) are sequentially consistent read-modify-writes that also
 *     act as release (the writing ones) and acquire (the fetching ones).
 *
 * Misuse (a PE out of range, an address outside the symmetric heap, a size that runs past it,
 * a misaligned atomic, an unknown signal op or comparison, freeing non-heap memory, unequal
 * sizes in a collective allocation) prints "shmemu: PE p: call: what is wrong; what to do"
 * and aborts, except where NVSHMEM returns an error (allocation failure returns NULL; team
 * and registration calls return non-zero).
 */
#ifndef SHMEMU_NVSHMEM_H
#define SHMEMU_NVSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu/typelists.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants (NVSHMEM's values) ---------------------------------------------------- */

#define NVSHMEM_MAJOR_VERSION 3
#define NVSHMEM_MINOR_VERSION 0
#define NVSHMEM_VENDOR_STRING "shmemu (NVSHMEM API on CPU threads)"
#define NVSHMEM_MAX_NAME_LEN 256

enum {
    NVSHMEM_THREAD_SINGLE = 0,
    NVSHMEM_THREAD_FUNNELED,
    NVSHMEM_THREAD_SERIALIZED,
    NVSHMEM_THREAD_MULTIPLE
};

enum {
    NVSHMEM_STATUS_NOT_INITIALIZED = 0,
    NVSHMEM_STATUS_IS_BOOTSTRAPPED,
    NVSHMEM_STATUS_IS_INITIALIZED,
    NVSHMEM_STATUS_LIMITED_MPG,
    NVSHMEM_STATUS_FULL_MPG
};

enum {
    NVSHMEM_CMP_EQ = 0,
    NVSHMEM_CMP_NE = 1,
    NVSHMEM_CMP_GT = 2,
    NVSHMEM_CMP_LE = 3,
    NVSHMEM_CMP_LT = 4,
    NVSHMEM_CMP_GE = 5
};

enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 };

/* ---- teams --------------------------------------------------------------------------- */

typedef int32_t nvshmem_team_t;

#define NVSHMEM_TEAM_INVALID ((nvshmem_team_t)-1)
#define NVSHMEM_TEAM_WORLD ((nvshmem_team_t)0)
#define NVSHMEM_TEAM_SHARED ((nvshmem_team_t)1)
#define NVSHMEMX_TEAM_NODE ((nvshmem_team_t)2)
/* PEs with the same PE number within their node, one per node: on one node, this PE alone. */
#define NVSHMEMX_TEAM_SAME_MYPE_NODE ((nvshmem_team_t)3)
/* NVSHMEM's internal handles, which programs use too: the PEs sharing this PE's GPU (each PE
 * is its own emulated GPU: this PE alone), and one PE per GPU (every PE). */
#define NVSHMEMI_TEAM_SAME_GPU ((nvshmem_team_t)4)
#define NVSHMEMI_TEAM_GPU_LEADERS ((nvshmem_team_t)5)

typedef struct {
    int num_contexts;
} nvshmem_team_config_t;

int nvshmem_team_my_pe(nvshmem_team_t team);
int nvshmem_team_n_pes(nvshmem_team_t team);
int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team);
/* Collective over the parent team, every member passing the same start, stride and size
 * (a difference is misuse, naming two PEs and the values); team PE i is the parent's
 * start + stride * i, so stride may be negative, and 0 when size is 1. PEs outside the new
 * team get NVSHMEM_TEAM_INVALID.
 * Returns 0 on success, non-zero (with a message) on bad arguments or too many teams. With
 * bit 0 of config_mask set, the team keeps config->num_contexts (a negative one is a bad
 * argument); the same for each axis of nvshmem_team_split_2d. */
int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                               const nvshmem_team_config_t *config, long config_mask,
                               nvshmem_team_t *new_team);
/* Collective over the parent team: arranges its PEs in rows of xrange (parent PE i at column
 * i % xrange, row i / xrange) and gives each PE the team of its row (*xaxis_team) and of its
 * column (*yaxis_team), as OpenSHMEM's shmem_team_split_2d. An xrange larger than the parent
 * makes one row. Returns 0, or non-zero (with a message, both teams NVSHMEM_TEAM_INVALID) for
 * xrange < 1 or too many teams. */
int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                          const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                          nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team);
void nvshmem_team_destroy(nvshmem_team_t team);

/* ---- setup, query, exit -------------------------------------------------------------- */

void nvshmem_init(void);
/* nvshmem_init, with a thread level (NVSHMEM_THREAD_*): every level is provided, so
 * *provided (when not NULL) is NVSHMEM_THREAD_MULTIPLE. Returns 0, or non-zero (with a
 * message, the PE left uninitialized) for an unknown level. */
int nvshmem_init_thread(int requested, int *provided);
/* NVSHMEM_THREAD_MULTIPLE (when provided is not NULL). */
void nvshmem_query_thread(int *provided);
void nvshmem_finalize(void);
int nvshmem_my_pe(void);
int nvshmem_n_pes(void);
void nvshmem_info_get_version(int *major, int *minor);
void nvshmem_info_get_name(char *name);
/* Ends the whole program (every PE) with the given status. */
void nvshmem_global_exit(int status);

/* ---- symmetric heap ------------------------------------------------------------------ */
/* Collective: every PE calls with the same arguments and gets the same heap offset. The heap
 * holds NVSHMEM_SYMMETRIC_SIZE bytes per PE (suffixes K, M, G, T; default 256M).
 * nvshmem_align takes any power of two up to the largest one dividing the heap size; a
 * larger one returns NULL with a message. With SHMEMU_CHECK_BOUNDS (the default), an RMA,
 * atomic, signal, wait or collective address range must lie inside one live object: past
 * its end, or in freed memory, is misuse naming the object. */

void *nvshmem_malloc(size_t size);
void *nvshmem_calloc(size_t count, size_t size);
void *nvshmem_align(size_t alignment, size_t size);
void nvshmem_free(void *ptr);
/* The address of the symmetric object dest on PE pe, or NULL where only the put path reaches. */
void *nvshmem_ptr(const void *dest, int pe);

/* ---- ordering ------------------------------------------------------------------------ */

void nvshmem_fence(void);
void nvshmem_quiet(void);

/* ---- RMA ----------------------------------------------------------------------------- */
/* A transfer of zero bytes (or elements) moves nothing and accepts any pointers, NULL too;
 * the PE is still checked. A zero-byte put-with-signal still updates its signal. */

#define SHMEMU_DECLARE_RMA(TYPE, NAME)                                                        \
    void nvshmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);         \
    void nvshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);     \
    void nvshmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);         \
    void nvshmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);     \
    void nvshmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                                  \
    TYPE nvshmem_##NAME##_g(const TYPE *source, int pe);                                      \
    void nvshmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems, int pe);                                        \
    void nvshmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems, int pe);                                        \
    void nvshmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,           \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op,         \
                                     int pe);                                                 \
    void nvshmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                         int pe);
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_RMA)
/* SHMEMU_DECLARE_RMA and SHMEMU_DECLARE_COLL stay defined: the runtime declares the core
 * entries of OpenSHMEM's extra types with them (pgas/src/core_types.h). */

#define SHMEMU_DECLARE_SIZED(BITS, TYPE)                                                      \
    void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);            \
    void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);            \
    void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                            size_t nelems, int pe);                                           \
    void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                            size_t nelems, int pe);                                           \
    void nvshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,            \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void nvshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,        \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                        int pe);
SHMEMU_SIZED_TYPES(SHMEMU_DECLARE_SIZED)
#undef SHMEMU_DECLARE_SIZED

void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                           uint64_t signal, int sig_op, int pe);
void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                               uint64_t signal, int sig_op, int pe);

/* ---- signals ------------------------------------------------------------------------- */

uint64_t nvshmem_signal_fetch(const uint64_t *sig_addr);
/* Waits until *sig_addr cmp cmp_value holds; returns the value that satisfied it. */
uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- point-to-point synchronization -------------------------------------------------- */
/* The _any forms scan round robin, from one past the index the calling thread's last _any
 * call on the same ivars returned: calls in a row see every satisfied ivar in turn. */

#define SHMEMU_DECLARE_WAIT(TYPE, NAME)                                                       \
    void nvshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                    \
    void nvshmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,       \
                                         int cmp, TYPE cmp_value);                            \
    size_t nvshmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,     \
                                           int cmp, TYPE cmp_value);                          \
    size_t nvshmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,      \
                                            const int *status, int cmp, TYPE cmp_value);      \
    void nvshmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,                   \
                                                const int *status, int cmp,                   \
                                                TYPE *cmp_values);                            \
    size_t nvshmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                 \
                                                  const int *status, int cmp,                 \
                                                  TYPE *cmp_values);                          \
    size_t nvshmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,                \
                                                   size_t *indices, const int *status,        \
                                                   int cmp, TYPE *cmp_values);                \
    int nvshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                           \
    int nvshmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,     \
                                  TYPE cmp_value);                                            \
    size_t nvshmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,  \
                                     TYPE cmp_value);                                         \
    size_t nvshmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,            \
                                      const int *status, int cmp, TYPE cmp_value);            \
    int nvshmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,       \
                                         int cmp, TYPE *cmp_values);                          \
    size_t nvshmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,    \
                                            int cmp, TYPE *cmp_values);                       \
    size_t nvshmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,     \
                                             const int *status, int cmp, TYPE *cmp_values);
SHMEMU_WAIT_TYPES(SHMEMU_DECLARE_WAIT)
#undef SHMEMU_DECLARE_WAIT

/* ---- atomics ------------------------------------------------------------------------- */

#define SHMEMU_DECLARE_AMO_EXTENDED(TYPE, NAME)                                               \
    TYPE nvshmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                           \
    void nvshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                         \
    TYPE nvshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_EXTENDED_TYPES(SHMEMU_DECLARE_AMO_EXTENDED)
#undef SHMEMU_DECLARE_AMO_EXTENDED

#define SHMEMU_DECLARE_AMO(TYPE, NAME)                                                        \
    TYPE nvshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);     \
    void nvshmem_##NAME##_atomic_inc(TYPE *dest, int pe);                                     \
    TYPE nvshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                               \
    void nvshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                         \
    TYPE nvshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_TYPES(SHMEMU_DECLARE_AMO)
#undef SHMEMU_DECLARE_AMO

#define SHMEMU_DECLARE_AMO_BITWISE(TYPE, NAME)                                                \
    void nvshmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe);                         \
    TYPE nvshmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe);                   \
    void nvshmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe);                          \
    TYPE nvshmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe);                    \
    void nvshmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe);                         \
    TYPE nvshmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_BITWISE_TYPES(SHMEMU_DECLARE_AMO_BITWISE)
#undef SHMEMU_DECLARE_AMO_BITWISE

/* ---- collectives --------------------------------------------------------------------- */
/* Team collectives return 0 on success. Reductions combine the PEs' contributions in team PE
 * order (0, 1, ..., n-1) on every PE, so the result has the same bits whatever the timing.
 * dest may equal source. */

void nvshmem_barrier_all(void);
void nvshmem_sync_all(void);
int nvshmem_barrier(nvshmem_team_t team);
int nvshmem_team_sync(nvshmem_team_t team);

int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                         int PE_root);
int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);
int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);

#define SHMEMU_DECLARE_COLL(TYPE, NAME)                                                       \
    int nvshmem_##NAME##_broadcast(nvshmem_team_t team, TYPE *dest, const TYPE *source,       \
                                   size_t nelems, int PE_root);                               \
    int nvshmem_##NAME##_fcollect(nvshmem_team_t team, TYPE *dest, const TYPE *source,        \
                                  size_t nelems);                                             \
    int nvshmem_##NAME##_alltoall(nvshmem_team_t team, TYPE *dest, const TYPE *source,        \
                                  size_t nelems);
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_COLL)

#define SHMEMU_DECLARE_REDUCE_BITWISE(TYPE, NAME)                                             \
    int nvshmem_##NAME##_and_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                    size_t nreduce);                                          \
    int nvshmem_##NAME##_or_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,       \
                                   size_t nreduce);                                           \
    int nvshmem_##NAME##_xor_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                    size_t nreduce);
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_DECLARE_REDUCE_BITWISE)
#undef SHMEMU_DECLARE_REDUCE_BITWISE

#define SHMEMU_DECLARE_REDUCE_ARITH(TYPE, NAME)                                               \
    int nvshmem_##NAME##_min_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                    size_t nreduce);                                          \
    int nvshmem_##NAME##_max_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                    size_t nreduce);                                          \
    int nvshmem_##NAME##_sum_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,      \
                                    size_t nreduce);                                          \
    int nvshmem_##NAME##_prod_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,     \
                                     size_t nreduce);
SHMEMU_REDUCE_ARITH_TYPES(SHMEMU_DECLARE_REDUCE_ARITH)
#undef SHMEMU_DECLARE_REDUCE_ARITH

/* Reduce-scatter: source holds team size blocks of nreduce elements; each PE gets in dest the
 * reduction (in team PE order) of block number (its team rank) of every PE's source. */
#define SHMEMU_DECLARE_REDUCESCATTER_OP(TYPE, NAME, OP)                                       \
    int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nreduce);
#define SHMEMU_DECLARE_REDUCESCATTER_BITWISE(TYPE, NAME)                                      \
    SHMEMU_REDUCE_BITWISE_OPS(SHMEMU_DECLARE_REDUCESCATTER_OP, TYPE, NAME)
#define SHMEMU_DECLARE_REDUCESCATTER_ARITH(TYPE, NAME)                                        \
    SHMEMU_REDUCE_ARITH_OPS(SHMEMU_DECLARE_REDUCESCATTER_OP, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_DECLARE_REDUCESCATTER_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(SHMEMU_DECLARE_REDUCESCATTER_ARITH)
#undef SHMEMU_DECLARE_REDUCESCATTER_ARITH
#undef SHMEMU_DECLARE_REDUCESCATTER_BITWISE
#undef SHMEMU_DECLARE_REDUCESCATTER_OP

#ifdef __cplusplus
}
#endif

#include "nvshmemx.h"

#endif
