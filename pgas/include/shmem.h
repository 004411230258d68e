/*
 * shmem.h: the OpenSHMEM 1.5 C API, implemented by shmemu on the same core as nvshmem.h.
 *
 * A program that includes only this header is an ordinary OpenSHMEM program; one that also
 * includes nvshmem.h sees both APIs, with no definition in common. The PEs are threads of one
 * process, as described in nvshmem.h. A program linked by bin/shmemu-cc gets one copy of its
 * globals and statics per PE, and they are symmetric as in OpenSHMEM: shmem_put(&global, ...)
 * reaches the target PE's copy (docs/pgas.md, "Per-PE data"). Linked another way (shmemu-cc
 * --shmemu-globals=shared, pkg-config's shmemu-main) the PEs share one copy, and only the
 * symmetric heap is per PE.
 *
 * Constants are OpenSHMEM's own (Sandia OpenSHMEM's values), NOT NVSHMEM's (docs/design.md D2):
 *
 *     comparison      OpenSHMEM   NVSHMEM          signal op          OpenSHMEM  NVSHMEM
 *     SHMEM_CMP_EQ        1          0             SHMEM_SIGNAL_SET       0         9
 *     SHMEM_CMP_NE        2          1             SHMEM_SIGNAL_ADD       1        10
 *     SHMEM_CMP_GT        3          2
 *     SHMEM_CMP_GE        4          5
 *     SHMEM_CMP_LT        5          4
 *     SHMEM_CMP_LE        6          3
 *
 * Every shmem_ call translates its constants and calls the nvshmem_ one. Passing an NVSHMEM
 * constant to a shmem_ call is a bug that is not always caught: NVSHMEM_CMP_GT (2) means
 * SHMEM_CMP_NE here. A value that is no OpenSHMEM constant (NVSHMEM_CMP_EQ = 0,
 * NVSHMEM_SIGNAL_SET = 9, ...) is reported as misuse naming the shmem_ call, and aborts.
 *
 * Teams: shmem_team_t is a pointer to an incomplete struct, a different type from
 * nvshmem_team_t (an int32_t), so passing one API's team to the other's call does not compile
 * silently (GCC and Clang report an int/pointer conversion). The handle carries the core's
 * team id plus two; it is opaque: never dereference one. The null pointer is NOT a team, not
 * even SHMEM_TEAM_INVALID: NVSHMEM_TEAM_WORLD is the constant 0, which C converts to a null
 * pointer without a word, so a shmem_ call given a null team reports the mix-up and aborts.
 *
 * Threading: a thread that a PE's code creates (pthread_create, thrd_create, a GCC OpenMP
 * region, in a program linked by shmemu-cc or pkg-config's shmemu-main) belongs to that PE, and every call may be made by
 * several threads of a PE at once, so the library provides SHMEM_THREAD_MULTIPLE, whatever was
 * requested; shmem_query_thread reports it (docs/openshmem.md, "Threads").
 *
 * Types: OpenSHMEM's tables, long double in RMA and collectives and the complex types in
 * sum/prod included (SHMEMU_SHMEM_* in shmemu/typelists.h). The C11 type-generic interfaces
 * cover every type of those tables (SHMEMU_GENERIC_* there says how aliases are handled).
 * The deprecated interfaces 1.5 still defines (start_pes, shmem_TYPENAME_fadd, the pSync
 * collectives, ...) are in shmemu/shmem_deprecated.h, included below; the extensions 1.6
 * adopted are in shmemx.h.
 *
 * Misuse (a PE out of range, an address outside the symmetric heap or past the end of its
 * object, an unknown comparison or signal op, PEs that disagree on a collective's arguments,
 * ...) prints "shmemu: PE p: call: what is wrong; what to do" and aborts. On a PE that called
 * shmem_init, errors name the shmem_ call the program made.
 */
#ifndef SHMEMU_SHMEM_H
#define SHMEMU_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu/typelists.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants (OpenSHMEM's values, as Sandia OpenSHMEM defines them) ----------------- */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "shmemu (OpenSHMEM 1.5 API on CPU threads)"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Hints of shmem_malloc_with_hints; accepted and ignored (every PE is one thread's reach). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* ---- teams --------------------------------------------------------------------------- */

/* Opaque handle: (core team id + 2) carried in a pointer; NULL is no team at all (see the
 * comment at the top). */
typedef struct shmemu_shmem_team *shmem_team_t;

#define SHMEM_TEAM_INVALID ((shmem_team_t)(uintptr_t)1)
#define SHMEM_TEAM_WORLD ((shmem_team_t)(uintptr_t)2)
#define SHMEM_TEAM_SHARED ((shmem_team_t)(uintptr_t)3)

typedef struct {
    int num_contexts;
} shmem_team_config_t;

/* config_mask bit: config->num_contexts is meaningful. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* -1 when team is SHMEM_TEAM_INVALID. */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
/* The PE number in dest_team of PE src_pe of src_team; -1 when either team is invalid or
 * that PE is not a member of dest_team. */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/* Collective over parent_team (every member calls, with the same arguments: different ones
 * are misuse, reported naming two PEs and their values). The new team's PE i is the parent's
 * start + stride * i: stride may be negative, and 0 when size is 1. Members of the
 * new team get its handle, the others SHMEM_TEAM_INVALID. Returns 0, or non-zero with a
 * message. config may be NULL; with SHMEM_TEAM_NUM_CONTEXTS in config_mask the new team
 * keeps config->num_contexts (shmem_team_get_config returns it; it is no limit here). */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
/* Collective over parent_team: its PEs in rows of xrange; each PE gets the team of its row
 * (*xaxis_team) and of its column (*yaxis_team). Returns 0, or non-zero with a message
 * (xrange < 1, too many teams, SHMEM_TEAM_INVALID). */
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
/* Fills the fields of config selected by config_mask; returns 0, or non-zero for
 * SHMEM_TEAM_INVALID. */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
/* Collective over team. Destroying SHMEM_TEAM_INVALID does nothing. */
void shmem_team_destroy(shmem_team_t team);

/* ---- setup, query, exit -------------------------------------------------------------- */

void shmem_init(void);
/* Returns 0 and sets *provided to SHMEM_THREAD_MULTIPLE; a requested level outside
 * SHMEM_THREAD_SINGLE..SHMEM_THREAD_MULTIPLE returns non-zero with a message. */
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
/* Ends the whole program (every PE) with the given status. */
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
/* 1 when pe is a PE of the job, else 0. */
int shmem_pe_accessible(int pe);
/* 1 when addr lies in the caller's symmetric heap and pe is accessible, else 0. Global and
 * static variables are not symmetric in the threads backend: they give 0. */
int shmem_addr_accessible(const void *addr, int pe);
/* The address of the symmetric object dest on PE pe, for loads and stores; NULL where only
 * the put path reaches (SHMEMU_NO_PTR=1). */
void *shmem_ptr(const void *dest, int pe);
/* shmem_ptr for PE pe of team (a PE number of the team); NULL for SHMEM_TEAM_INVALID. A pe
 * outside the team is misuse. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* Profiling control: no profiling library is attached, so every level is accepted and the
 * call does nothing. */
void shmem_pcontrol(const int level, ...);
void shmem_info_get_version(int *major, int *minor);
/* Copies SHMEM_VENDOR_STRING (at most SHMEM_MAX_NAME_LEN bytes with its NUL) to name. */
void shmem_info_get_name(char *name);

/* ---- symmetric heap ------------------------------------------------------------------ */
/* Collective over SHMEM_TEAM_WORLD: every PE calls with the same arguments and gets the
 * same heap offset. A size (or count) of zero returns NULL and does nothing else, and
 * shmem_free(NULL) does nothing, as OpenSHMEM specifies. */

void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
/* Any power-of-two alignment up to the largest power of two dividing the heap size
 * (SHMEM_SYMMETRIC_SIZE); a larger one returns NULL with a message, one that is no power of
 * two is misuse. */
void *shmem_align(size_t alignment, size_t size);
void shmem_free(void *ptr);
/* Collective: resizes ptr's object, keeping its contents up to the smaller size, in place or
 * moved (returns where; a moved object loses shmem_align's alignment). ptr NULL allocates;
 * size 0 frees and returns NULL; no room returns NULL and leaves ptr unchanged. */
void *shmem_realloc(void *ptr, size_t size);

/* ---- RMA ----------------------------------------------------------------------------- */
/* A transfer of zero bytes (or elements) moves nothing and accepts any pointers, NULL too;
 * the PE is still checked. A zero-byte put-with-signal still updates its signal. */

#define SHMEMU_SHMEM_DECLARE_RMA(TYPE, NAME)                                                  \
    void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);           \
    void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);       \
    void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);           \
    void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);       \
    void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                                    \
    TYPE shmem_##NAME##_g(const TYPE *source, int pe);                                        \
    void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,    \
                             size_t nelems, int pe);                                          \
    void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,    \
                             size_t nelems, int pe);                                          \
    void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,             \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
    void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,         \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                       int pe);
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEM_DECLARE_RMA)
#undef SHMEMU_SHMEM_DECLARE_RMA

#define SHMEMU_SHMEM_DECLARE_SIZED(BITS, TYPE)                                                \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);              \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);        \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);              \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);        \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int pe);                                             \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int pe);                                             \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,              \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);   \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,          \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op,        \
                                      int pe);
SHMEMU_SIZED_TYPES(SHMEMU_SHMEM_DECLARE_SIZED)
#undef SHMEMU_SHMEM_DECLARE_SIZED

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);

/* ---- signals ------------------------------------------------------------------------- */

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
/* Waits until *sig_addr cmp cmp_value holds (cmp: SHMEM_CMP_*); returns the value that
 * satisfied it. The data of the put-with-signal that set it is visible on return. */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- point-to-point synchronization -------------------------------------------------- */
/* cmp takes SHMEM_CMP_*. status (may be NULL) excludes ivars[i] where status[i] != 0. */

#define SHMEMU_SHMEM_DECLARE_WAIT(TYPE, NAME)                                                 \
    void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                      \
    void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,         \
                                       int cmp, TYPE cmp_value);                              \
    size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,       \
                                         int cmp, TYPE cmp_value);                            \
    size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,        \
                                          const int *status, int cmp, TYPE cmp_value);        \
    void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status,  \
                                              int cmp, TYPE *cmp_values);                     \
    size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                   \
                                                const int *status, int cmp,                   \
                                                TYPE *cmp_values);                            \
    size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices, \
                                                 const int *status, int cmp,                  \
                                                 TYPE *cmp_values);                           \
    int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                             \
    int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,       \
                                TYPE cmp_value);                                              \
    size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,    \
                                   TYPE cmp_value);                                           \
    size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,              \
                                    const int *status, int cmp, TYPE cmp_value);              \
    int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,         \
                                       int cmp, TYPE *cmp_values);                            \
    size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,      \
                                          int cmp, TYPE *cmp_values);                         \
    size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,       \
                                           const int *status, int cmp, TYPE *cmp_values);
SHMEMU_WAIT_TYPES(SHMEMU_SHMEM_DECLARE_WAIT)
#undef SHMEMU_SHMEM_DECLARE_WAIT

/* ---- atomics ------------------------------------------------------------------------- */
/* The _nbi forms store the fetched value to *fetch; here they complete before returning,
 * which OpenSHMEM allows (completion is guaranteed by shmem_quiet at the latest). */

#define SHMEMU_SHMEM_DECLARE_AMO_EXTENDED(TYPE, NAME)                                         \
    TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                             \
    void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe);            \
    void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                           \
    TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);                          \
    void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_EXTENDED_TYPES(SHMEMU_SHMEM_DECLARE_AMO_EXTENDED)
#undef SHMEMU_SHMEM_DECLARE_AMO_EXTENDED

#define SHMEMU_SHMEM_DECLARE_AMO(TYPE, NAME)                                                  \
    TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);       \
    void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,           \
                                                TYPE value, int pe);                          \
    void shmem_##NAME##_atomic_inc(TYPE *dest, int pe);                                       \
    TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                                 \
    void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);                \
    void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                           \
    TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);                     \
    void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_TYPES(SHMEMU_SHMEM_DECLARE_AMO)
#undef SHMEMU_SHMEM_DECLARE_AMO

#define SHMEMU_SHMEM_DECLARE_AMO_BITWISE(TYPE, NAME)                                          \
    void shmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe);                           \
    TYPE shmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe);                     \
    void shmem_##NAME##_atomic_fetch_and_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);    \
    void shmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe);                            \
    TYPE shmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe);                      \
    void shmem_##NAME##_atomic_fetch_or_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);     \
    void shmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe);                           \
    TYPE shmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe);                     \
    void shmem_##NAME##_atomic_fetch_xor_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);
SHMEMU_AMO_BITWISE_TYPES(SHMEMU_SHMEM_DECLARE_AMO_BITWISE)
#undef SHMEMU_SHMEM_DECLARE_AMO_BITWISE

/* ---- communication contexts: shmem_ctx_t, shmem_ctx_* -------------------------------- */

#include "shmemu/shmem_ctx.h"

/* ---- ordering and barriers ----------------------------------------------------------- */

void shmem_fence(void);
void shmem_quiet(void);
/* shmem_barrier_all completes the caller's puts (a quiet) and synchronizes every PE;
 * shmem_sync_all and shmem_team_sync only synchronize. */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);

/* ---- distributed locks --------------------------------------------------------------- */
/* lock: a symmetric long, 0 on every PE before its first use. Mutual exclusion across all
 * PEs; waiting PEs get the lock first come, first served. shmem_clear_lock completes the
 * caller's puts (quiet) before it releases. shmem_test_lock returns 0 when it set the lock,
 * 1 when the lock was already set (it does not wait). Clearing a lock the PE does not hold,
 * or setting one it holds already (a certain deadlock), is misuse. */

void shmem_set_lock(long *lock);
int shmem_test_lock(long *lock);
void shmem_clear_lock(long *lock);

/* ---- collectives --------------------------------------------------------------------- */
/* Collective over team; return 0 on success. Reductions combine in team PE order on every
 * PE, so every PE gets the same bits. nelems counts elements (bytes for the *mem forms).
 * Every PE of the team must make the same collective calls in the same order, with the same
 * arguments where OpenSHMEM requires them equal (PE_root; nelems, except for collect; dst
 * and sst): a PE that differs is reported as misuse naming two PEs and the argument, and a
 * PE blocked in a collective of another team that needs this PE as a certain deadlock. */

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);

/* collect: like fcollect, but nelems may differ per PE; dest receives every PE's nelems
 * elements concatenated in team PE order (so it must hold the sum over the team). */
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
/* alltoalls: alltoall with strides (in elements, >= 1, the same on every PE): element i of
 * the block for team PE j is source[sst * (j * nelems + i)], and it lands on PE j at
 * dest[dst * (k * nelems + i)], k being the sender's team PE number. */
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define SHMEMU_SHMEM_DECLARE_COLL(TYPE, NAME)                                                 \
    int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,             \
                               size_t nelems);                                                \
    int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems);                \
    int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                 size_t nelems, int PE_root);                                 \
    int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,            \
                                size_t nelems);                                               \
    int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,            \
                                size_t nelems);
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEM_DECLARE_COLL)
#undef SHMEMU_SHMEM_DECLARE_COLL

#define SHMEMU_SHMEM_DECLARE_REDUCE_BITWISE(TYPE, NAME)                                       \
    int shmem_##NAME##_and_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                  size_t nreduce);                                            \
    int shmem_##NAME##_or_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                 size_t nreduce);                                             \
    int shmem_##NAME##_xor_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                  size_t nreduce);
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_SHMEM_DECLARE_REDUCE_BITWISE)
#undef SHMEMU_SHMEM_DECLARE_REDUCE_BITWISE

/* min/max: SHMEMU_SHMEM_REDUCE_MINMAX_TYPES; sum/prod also take the complex types. */
#define SHMEMU_SHMEM_DECLARE_REDUCE_MINMAX(TYPE, NAME)                                        \
    int shmem_##NAME##_min_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                  size_t nreduce);                                            \
    int shmem_##NAME##_max_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                  size_t nreduce);
SHMEMU_SHMEM_REDUCE_MINMAX_TYPES(SHMEMU_SHMEM_DECLARE_REDUCE_MINMAX)
#undef SHMEMU_SHMEM_DECLARE_REDUCE_MINMAX

#define SHMEMU_SHMEM_DECLARE_REDUCE_SUMPROD(TYPE, NAME)                                       \
    int shmem_##NAME##_sum_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                  size_t nreduce);                                            \
    int shmem_##NAME##_prod_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,         \
                                   size_t nreduce);
SHMEMU_SHMEM_REDUCE_SUMPROD_TYPES(SHMEMU_SHMEM_DECLARE_REDUCE_SUMPROD)
#undef SHMEMU_SHMEM_DECLARE_REDUCE_SUMPROD

#ifdef __cplusplus
}
#endif

/* ---- deprecated interfaces that 1.5 still defines (start_pes, shmem_*_fadd, pSync
 * collectives, ...) ------------------------------------------------------------------- */

#include "shmemu/shmem_deprecated.h"

/* ---- C11 type-generic interfaces ----------------------------------------------------- */
/* shmem_put(dest, source, nelems, pe) and friends select the typed routine from the type of
 * the first pointer argument. A type outside the family fails to compile. */

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* RMA and atomics take an optional context first, as OpenSHMEM 1.5 defines them:
 * shmem_put(ctx, dest, source, nelems, pe) and shmem_put(dest, source, nelems, pe) both
 * work. SHMEMU_GEN_CTX(LIST, PLAIN, CTX, first, ...) selects, when `first` is a shmem_ctx_t,
 * the shmem_ctx_ routine of LIST for the next argument's type (CTX associations), and
 * otherwise the routine without ctx for `first`'s type (PLAIN). The branch not taken names
 * shmemu_generic_no_routine_for_this_type, so that every selection has a match; a call whose
 * selected branch does (a type outside the family) fails to compile: "called object
 * 'shmemu_generic_no_routine_for_this_type' is not a function". Each argument is evaluated
 * once. */
enum { shmemu_generic_no_routine_for_this_type = 0 };
#define SHMEMU_GEN_ARG1(a, ...) a
#define SHMEMU_GEN_CTX(LIST, PLAIN, CTX, first, ...)                                          \
    _Generic((first),                                                                         \
        shmem_ctx_t: _Generic((SHMEMU_GEN_ARG1(__VA_ARGS__, ~)) LIST(CTX),                    \
                              default: shmemu_generic_no_routine_for_this_type),              \
        default: _Generic((first) LIST(PLAIN),                                                \
                          shmem_ctx_t: shmemu_generic_no_routine_for_this_type))(first,       \
                                                                                 __VA_ARGS__)

#define SHMEMU_GEN_PUT(TYPE, NAME) , TYPE * : shmem_##NAME##_put
#define SHMEMU_GEN_CTX_PUT(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_put
#define SHMEMU_GEN_PUT_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_put_nbi
#define SHMEMU_GEN_CTX_PUT_NBI(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_put_nbi
#define SHMEMU_GEN_GET(TYPE, NAME) , TYPE * : shmem_##NAME##_get
#define SHMEMU_GEN_CTX_GET(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_get
#define SHMEMU_GEN_GET_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_get_nbi
#define SHMEMU_GEN_CTX_GET_NBI(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_get_nbi
#define SHMEMU_GEN_P(TYPE, NAME) , TYPE * : shmem_##NAME##_p
#define SHMEMU_GEN_CTX_P(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_p
#define SHMEMU_GEN_G(TYPE, NAME) , TYPE * : shmem_##NAME##_g, const TYPE * : shmem_##NAME##_g
#define SHMEMU_GEN_CTX_G(TYPE, NAME)                                                          \
    , TYPE * : shmem_ctx_##NAME##_g, const TYPE * : shmem_ctx_##NAME##_g
#define SHMEMU_GEN_IPUT(TYPE, NAME) , TYPE * : shmem_##NAME##_iput
#define SHMEMU_GEN_CTX_IPUT(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_iput
#define SHMEMU_GEN_IGET(TYPE, NAME) , TYPE * : shmem_##NAME##_iget
#define SHMEMU_GEN_CTX_IGET(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_iget
#define SHMEMU_GEN_PUT_SIGNAL(TYPE, NAME) , TYPE * : shmem_##NAME##_put_signal
#define SHMEMU_GEN_CTX_PUT_SIGNAL(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_put_signal
#define SHMEMU_GEN_PUT_SIGNAL_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_put_signal_nbi
#define SHMEMU_GEN_CTX_PUT_SIGNAL_NBI(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_put_signal_nbi

#define shmem_put(...)                                                                        \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_PUT, SHMEMU_GEN_CTX_PUT, __VA_ARGS__)
#define shmem_put_nbi(...)                                                                    \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_PUT_NBI, SHMEMU_GEN_CTX_PUT_NBI,      \
                   __VA_ARGS__)
#define shmem_get(...)                                                                        \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_GET, SHMEMU_GEN_CTX_GET, __VA_ARGS__)
#define shmem_get_nbi(...)                                                                    \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_GET_NBI, SHMEMU_GEN_CTX_GET_NBI,      \
                   __VA_ARGS__)
#define shmem_p(...)                                                                          \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_P, SHMEMU_GEN_CTX_P, __VA_ARGS__)
#define shmem_g(...)                                                                          \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_G, SHMEMU_GEN_CTX_G, __VA_ARGS__)
#define shmem_iput(...)                                                                       \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_IPUT, SHMEMU_GEN_CTX_IPUT,            \
                   __VA_ARGS__)
#define shmem_iget(...)                                                                       \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_IGET, SHMEMU_GEN_CTX_IGET,            \
                   __VA_ARGS__)
#define shmem_put_signal(...)                                                                 \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_PUT_SIGNAL, SHMEMU_GEN_CTX_PUT_SIGNAL,\
                   __VA_ARGS__)
#define shmem_put_signal_nbi(...)                                                             \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_RMA_TYPES, SHMEMU_GEN_PUT_SIGNAL_NBI,                       \
                   SHMEMU_GEN_CTX_PUT_SIGNAL_NBI, __VA_ARGS__)

#define SHMEMU_GEN_WAIT_UNTIL(TYPE, NAME) , TYPE * : shmem_##NAME##_wait_until
#define SHMEMU_GEN_WAIT_UNTIL_ALL(TYPE, NAME) , TYPE * : shmem_##NAME##_wait_until_all
#define SHMEMU_GEN_WAIT_UNTIL_ANY(TYPE, NAME) , TYPE * : shmem_##NAME##_wait_until_any
#define SHMEMU_GEN_WAIT_UNTIL_SOME(TYPE, NAME) , TYPE * : shmem_##NAME##_wait_until_some
#define SHMEMU_GEN_WAIT_UNTIL_ALL_VECTOR(TYPE, NAME)                                          \
    , TYPE * : shmem_##NAME##_wait_until_all_vector
#define SHMEMU_GEN_WAIT_UNTIL_ANY_VECTOR(TYPE, NAME)                                          \
    , TYPE * : shmem_##NAME##_wait_until_any_vector
#define SHMEMU_GEN_WAIT_UNTIL_SOME_VECTOR(TYPE, NAME)                                         \
    , TYPE * : shmem_##NAME##_wait_until_some_vector
#define SHMEMU_GEN_TEST(TYPE, NAME) , TYPE * : shmem_##NAME##_test
#define SHMEMU_GEN_TEST_ALL(TYPE, NAME) , TYPE * : shmem_##NAME##_test_all
#define SHMEMU_GEN_TEST_ANY(TYPE, NAME) , TYPE * : shmem_##NAME##_test_any
#define SHMEMU_GEN_TEST_SOME(TYPE, NAME) , TYPE * : shmem_##NAME##_test_some
#define SHMEMU_GEN_TEST_ALL_VECTOR(TYPE, NAME) , TYPE * : shmem_##NAME##_test_all_vector
#define SHMEMU_GEN_TEST_ANY_VECTOR(TYPE, NAME) , TYPE * : shmem_##NAME##_test_any_vector
#define SHMEMU_GEN_TEST_SOME_VECTOR(TYPE, NAME) , TYPE * : shmem_##NAME##_test_some_vector

#define shmem_wait_until(ivar, ...)                                                           \
    _Generic((ivar) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL))(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...)                                                      \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL_ALL))(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...)                                                      \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL_ANY))(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...)                                                     \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL_SOME))(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...)                                               \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL_ALL_VECTOR))(            \
        ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...)                                               \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL_ANY_VECTOR))(            \
        ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...)                                              \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_WAIT_UNTIL_SOME_VECTOR))(           \
        ivars, __VA_ARGS__)
#define shmem_test(ivar, ...)                                                                 \
    _Generic((ivar) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST))(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...)                                                            \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST_ALL))(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...)                                                            \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST_ANY))(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...)                                                           \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST_SOME))(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...)                                                     \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST_ALL_VECTOR))(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...)                                                     \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST_ANY_VECTOR))(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...)                                                    \
    _Generic((ivars) SHMEMU_GENERIC_WAIT_TYPES(SHMEMU_GEN_TEST_SOME_VECTOR))(ivars, __VA_ARGS__)

#define SHMEMU_GEN_AMO_FETCH(TYPE, NAME)                                                      \
    , TYPE * : shmem_##NAME##_atomic_fetch, const TYPE * : shmem_##NAME##_atomic_fetch
#define SHMEMU_GEN_CTX_AMO_FETCH(TYPE, NAME)                                                  \
    , TYPE * : shmem_ctx_##NAME##_atomic_fetch, const TYPE * : shmem_ctx_##NAME##_atomic_fetch
#define SHMEMU_GEN_AMO_FETCH_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_nbi
#define SHMEMU_GEN_CTX_AMO_FETCH_NBI(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_fetch_nbi
#define SHMEMU_GEN_AMO_SET(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_set
#define SHMEMU_GEN_CTX_AMO_SET(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_set
#define SHMEMU_GEN_AMO_SWAP(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_swap
#define SHMEMU_GEN_CTX_AMO_SWAP(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_swap
#define SHMEMU_GEN_AMO_SWAP_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_swap_nbi
#define SHMEMU_GEN_CTX_AMO_SWAP_NBI(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_swap_nbi
#define SHMEMU_GEN_AMO_CSWAP(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_compare_swap
#define SHMEMU_GEN_CTX_AMO_CSWAP(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_compare_swap
#define SHMEMU_GEN_AMO_CSWAP_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_compare_swap_nbi
#define SHMEMU_GEN_CTX_AMO_CSWAP_NBI(TYPE, NAME)                                              \
    , TYPE * : shmem_ctx_##NAME##_atomic_compare_swap_nbi
#define SHMEMU_GEN_AMO_INC(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_inc
#define SHMEMU_GEN_CTX_AMO_INC(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_inc
#define SHMEMU_GEN_AMO_FETCH_INC(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_inc
#define SHMEMU_GEN_CTX_AMO_FETCH_INC(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_fetch_inc
#define SHMEMU_GEN_AMO_FETCH_INC_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_inc_nbi
#define SHMEMU_GEN_CTX_AMO_FETCH_INC_NBI(TYPE, NAME)                                          \
    , TYPE * : shmem_ctx_##NAME##_atomic_fetch_inc_nbi
#define SHMEMU_GEN_AMO_ADD(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_add
#define SHMEMU_GEN_CTX_AMO_ADD(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_add
#define SHMEMU_GEN_AMO_FETCH_ADD(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_add
#define SHMEMU_GEN_CTX_AMO_FETCH_ADD(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_fetch_add
#define SHMEMU_GEN_AMO_FETCH_ADD_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_add_nbi
#define SHMEMU_GEN_CTX_AMO_FETCH_ADD_NBI(TYPE, NAME)                                          \
    , TYPE * : shmem_ctx_##NAME##_atomic_fetch_add_nbi
#define SHMEMU_GEN_AMO_AND(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_and
#define SHMEMU_GEN_CTX_AMO_AND(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_and
#define SHMEMU_GEN_AMO_FETCH_AND(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_and
#define SHMEMU_GEN_CTX_AMO_FETCH_AND(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_fetch_and
#define SHMEMU_GEN_AMO_FETCH_AND_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_and_nbi
#define SHMEMU_GEN_CTX_AMO_FETCH_AND_NBI(TYPE, NAME)                                          \
    , TYPE * : shmem_ctx_##NAME##_atomic_fetch_and_nbi
#define SHMEMU_GEN_AMO_OR(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_or
#define SHMEMU_GEN_CTX_AMO_OR(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_or
#define SHMEMU_GEN_AMO_FETCH_OR(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_or
#define SHMEMU_GEN_CTX_AMO_FETCH_OR(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_fetch_or
#define SHMEMU_GEN_AMO_FETCH_OR_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_or_nbi
#define SHMEMU_GEN_CTX_AMO_FETCH_OR_NBI(TYPE, NAME)                                           \
    , TYPE * : shmem_ctx_##NAME##_atomic_fetch_or_nbi
#define SHMEMU_GEN_AMO_XOR(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_xor
#define SHMEMU_GEN_CTX_AMO_XOR(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_xor
#define SHMEMU_GEN_AMO_FETCH_XOR(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_xor
#define SHMEMU_GEN_CTX_AMO_FETCH_XOR(TYPE, NAME) , TYPE * : shmem_ctx_##NAME##_atomic_fetch_xor
#define SHMEMU_GEN_AMO_FETCH_XOR_NBI(TYPE, NAME) , TYPE * : shmem_##NAME##_atomic_fetch_xor_nbi
#define SHMEMU_GEN_CTX_AMO_FETCH_XOR_NBI(TYPE, NAME)                                          \
    , TYPE * : shmem_ctx_##NAME##_atomic_fetch_xor_nbi

/* The _nbi forms select on the fetch pointer, their first argument after ctx. */
#define shmem_atomic_fetch(...)                                                               \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_EXTENDED_TYPES, SHMEMU_GEN_AMO_FETCH,                   \
                   SHMEMU_GEN_CTX_AMO_FETCH, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                                           \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_EXTENDED_TYPES, SHMEMU_GEN_AMO_FETCH_NBI,               \
                   SHMEMU_GEN_CTX_AMO_FETCH_NBI, __VA_ARGS__)
#define shmem_atomic_set(...)                                                                 \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_EXTENDED_TYPES, SHMEMU_GEN_AMO_SET,                     \
                   SHMEMU_GEN_CTX_AMO_SET, __VA_ARGS__)
#define shmem_atomic_swap(...)                                                                \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_EXTENDED_TYPES, SHMEMU_GEN_AMO_SWAP,                    \
                   SHMEMU_GEN_CTX_AMO_SWAP, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                                            \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_EXTENDED_TYPES, SHMEMU_GEN_AMO_SWAP_NBI,                \
                   SHMEMU_GEN_CTX_AMO_SWAP_NBI, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                        \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_CSWAP, SHMEMU_GEN_CTX_AMO_CSWAP,  \
                   __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                    \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_CSWAP_NBI,                        \
                   SHMEMU_GEN_CTX_AMO_CSWAP_NBI, __VA_ARGS__)
#define shmem_atomic_inc(...)                                                                 \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_INC, SHMEMU_GEN_CTX_AMO_INC,      \
                   __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                                           \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_FETCH_INC,                        \
                   SHMEMU_GEN_CTX_AMO_FETCH_INC, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                       \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_FETCH_INC_NBI,                    \
                   SHMEMU_GEN_CTX_AMO_FETCH_INC_NBI, __VA_ARGS__)
#define shmem_atomic_add(...)                                                                 \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_ADD, SHMEMU_GEN_CTX_AMO_ADD,      \
                   __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                                           \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_FETCH_ADD,                        \
                   SHMEMU_GEN_CTX_AMO_FETCH_ADD, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                       \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_TYPES, SHMEMU_GEN_AMO_FETCH_ADD_NBI,                    \
                   SHMEMU_GEN_CTX_AMO_FETCH_ADD_NBI, __VA_ARGS__)
#define shmem_atomic_and(...)                                                                 \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_AND,                      \
                   SHMEMU_GEN_CTX_AMO_AND, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                                           \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_FETCH_AND,                \
                   SHMEMU_GEN_CTX_AMO_FETCH_AND, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                       \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_FETCH_AND_NBI,            \
                   SHMEMU_GEN_CTX_AMO_FETCH_AND_NBI, __VA_ARGS__)
#define shmem_atomic_or(...)                                                                  \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_OR, SHMEMU_GEN_CTX_AMO_OR,\
                   __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                                            \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_FETCH_OR,                 \
                   SHMEMU_GEN_CTX_AMO_FETCH_OR, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                        \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_FETCH_OR_NBI,             \
                   SHMEMU_GEN_CTX_AMO_FETCH_OR_NBI, __VA_ARGS__)
#define shmem_atomic_xor(...)                                                                 \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_XOR,                      \
                   SHMEMU_GEN_CTX_AMO_XOR, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                                           \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_FETCH_XOR,                \
                   SHMEMU_GEN_CTX_AMO_FETCH_XOR, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                       \
    SHMEMU_GEN_CTX(SHMEMU_GENERIC_AMO_BITWISE_TYPES, SHMEMU_GEN_AMO_FETCH_XOR_NBI,            \
                   SHMEMU_GEN_CTX_AMO_FETCH_XOR_NBI, __VA_ARGS__)

#define SHMEMU_GEN_COLLECT(TYPE, NAME) , TYPE * : shmem_##NAME##_collect
#define SHMEMU_GEN_ALLTOALLS(TYPE, NAME) , TYPE * : shmem_##NAME##_alltoalls
#define SHMEMU_GEN_BROADCAST(TYPE, NAME) , TYPE * : shmem_##NAME##_broadcast
#define SHMEMU_GEN_FCOLLECT(TYPE, NAME) , TYPE * : shmem_##NAME##_fcollect
#define SHMEMU_GEN_ALLTOALL(TYPE, NAME) , TYPE * : shmem_##NAME##_alltoall
#define SHMEMU_GEN_AND_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_and_reduce
#define SHMEMU_GEN_OR_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_or_reduce
#define SHMEMU_GEN_XOR_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_xor_reduce
#define SHMEMU_GEN_MIN_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_min_reduce
#define SHMEMU_GEN_MAX_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_max_reduce
#define SHMEMU_GEN_SUM_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_sum_reduce
#define SHMEMU_GEN_PROD_REDUCE(TYPE, NAME) , TYPE * : shmem_##NAME##_prod_reduce

/* Team collectives select on dest, their second argument. */
#define shmem_broadcast(team, dest, ...)                                                      \
    _Generic((dest) SHMEMU_GENERIC_RMA_TYPES(SHMEMU_GEN_BROADCAST))(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...)                                                       \
    _Generic((dest) SHMEMU_GENERIC_RMA_TYPES(SHMEMU_GEN_FCOLLECT))(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...)                                                       \
    _Generic((dest) SHMEMU_GENERIC_RMA_TYPES(SHMEMU_GEN_ALLTOALL))(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...)                                                        \
    _Generic((dest) SHMEMU_GENERIC_RMA_TYPES(SHMEMU_GEN_COLLECT))(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...)                                                      \
    _Generic((dest) SHMEMU_GENERIC_RMA_TYPES(SHMEMU_GEN_ALLTOALLS))(team, dest, __VA_ARGS__)

/* shmem_sync(team) is OpenSHMEM 1.5's C11 name of shmem_team_sync; the deprecated
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync) keeps its name: the macro picks by the
 * number of arguments (inside its own expansion the name is not a macro again). */
#define SHMEMU_SYNC_PICK(a1, a2, a3, a4, picked, ...) picked
#define shmem_sync(...)                                                                       \
    SHMEMU_SYNC_PICK(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, )      \
    (__VA_ARGS__)
#define shmem_and_reduce(team, dest, ...)                                                     \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_BITWISE_TYPES(SHMEMU_GEN_AND_REDUCE))(team, dest,   \
                                                                                __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...)                                                      \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_BITWISE_TYPES(SHMEMU_GEN_OR_REDUCE))(team, dest,    \
                                                                               __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...)                                                     \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_BITWISE_TYPES(SHMEMU_GEN_XOR_REDUCE))(team, dest,   \
                                                                                __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...)                                                     \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_ARITH_TYPES(SHMEMU_GEN_MIN_REDUCE))(team, dest,     \
                                                                              __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...)                                                     \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_ARITH_TYPES(SHMEMU_GEN_MAX_REDUCE))(team, dest,     \
                                                                              __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...)                                                     \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_SUMPROD_TYPES(SHMEMU_GEN_SUM_REDUCE))(team, dest,   \
                                                                                __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...)                                                    \
    _Generic((dest) SHMEMU_GENERIC_REDUCE_SUMPROD_TYPES(SHMEMU_GEN_PROD_REDUCE))(team, dest,  \
                                                                                 __VA_ARGS__)

#endif /* C11 */

#endif
