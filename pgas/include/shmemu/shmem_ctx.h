/*
 * shmemu/shmem_ctx.h: OpenSHMEM 1.5 communication contexts (section 9.5) and the shmem_ctx_
 * forms of RMA, put-with-signal, atomics, fence and quiet. Included by shmem.h, inside its
 * extern "C" block; programs include shmem.h (this file alone brings shmem.h in first).
 *
 * A context is an independent stream of operations of one PE: shmem_ctx_fence(ctx) orders
 * and shmem_ctx_quiet(ctx) completes the operations issued on ctx only. SHMEM_CTX_DEFAULT is
 * the context of the calls without ctx (shmem_put, shmem_quiet, ...). A context made by
 * shmem_team_create_ctx addresses PEs by their number in that team: shmem_ctx_int_p(ctx,
 * dest, v, 1) writes to team PE 1. shmem_ctx_create makes a context of SHMEM_TEAM_WORLD.
 *
 * Here every put is delivered at once unless the checking mode (SHMEMU_CHECK_NBI=1) queues
 * it; there each context has its own queue, so a program that quiets or fences the wrong
 * context delivers its data late and reads stale bytes (docs/openshmem.md, "Contexts").
 *
 * Misuse, reported naming the shmem_ctx_ call and aborting: any call on SHMEM_CTX_INVALID
 * (the spec leaves it undefined), on a destroyed context, on another PE's context, on a
 * SHMEM_CTX_PRIVATE context from a thread other than its creator, and a PE number outside the
 * context's team. Creating a context never fails here: every option is accepted (PRIVATE is
 * checked, SERIALIZED and NOSTORE are hints) and a team's num_contexts is no limit.
 */
#ifndef SHMEMU_SHMEM_CTX_H
#define SHMEMU_SHMEM_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "shmem.h" /* alone: shmem.h first (it includes this file; the guard stops the loop) */
#include "typelists.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- contexts ------------------------------------------------------------------------ */

/* Opaque handle: never dereference one. */
typedef struct shmemu_shmem_ctx *shmem_ctx_t;

/* Options of shmem_ctx_create and shmem_team_create_ctx (Sandia OpenSHMEM's values). */
#define SHMEM_CTX_SERIALIZED (1L << 0) /* shared, but never used by two threads at once */
#define SHMEM_CTX_PRIVATE (1L << 1)    /* used only by the thread that created it */
#define SHMEM_CTX_NOSTORE (1L << 2)    /* its quiet need not complete stores (a hint) */

/* The context of the calls without one; and no context at all (what a failed create sets). */
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)(uintptr_t)1)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* Returns 0 and sets *ctx to a new context of SHMEM_TEAM_WORLD; an unknown option bit
 * returns non-zero (with a message) and sets *ctx to SHMEM_CTX_INVALID. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
/* The same for a context of team, whose calls take PE numbers of that team. team
 * SHMEM_TEAM_INVALID, or a team this PE is no member of, returns non-zero and sets *ctx to
 * SHMEM_CTX_INVALID. */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
/* Quiets ctx (on the calling thread), then destroys it. SHMEM_CTX_INVALID: nothing happens.
 * SHMEM_CTX_DEFAULT, a destroyed context, and a PRIVATE context destroyed by another thread
 * than its creator are misuse. */
void shmem_ctx_destroy(shmem_ctx_t ctx);
/* Sets *team to ctx's team (SHMEM_TEAM_WORLD for SHMEM_CTX_DEFAULT) and returns 0; for
 * SHMEM_CTX_INVALID sets SHMEM_TEAM_INVALID and returns non-zero. */
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* Orders (fence) or completes (quiet) the calling thread's operations on ctx only. */
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- RMA and put-with-signal on a context -------------------------------------------- */
/* As the forms without ctx (shmem.h); pe is a PE number of ctx's team. */

#define SHMEMU_SHMEM_DECLARE_CTX_RMA(TYPE, NAME)                                              \
    void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,              \
                                size_t nelems, int pe);                                       \
    void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,          \
                                    size_t nelems, int pe);                                   \
    void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,              \
                                size_t nelems, int pe);                                       \
    void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,          \
                                    size_t nelems, int pe);                                   \
    void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);               \
    TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);                   \
    void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
    void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
    void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                       int sig_op, int pe);                                   \
    void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,   \
                                           size_t nelems, uint64_t *sig_addr,                 \
                                           uint64_t signal, int sig_op, int pe);
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEM_DECLARE_CTX_RMA)
#undef SHMEMU_SHMEM_DECLARE_CTX_RMA

#define SHMEMU_SHMEM_DECLARE_CTX_SIZED(BITS, TYPE)                                            \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                             int pe);                                                         \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                   size_t nelems, int pe);                                    \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                             int pe);                                                         \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                   size_t nelems, int pe);                                    \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                          \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                          \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,        \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                      int sig_op, int pe);                                    \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,    \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                          int sig_op, int pe);
SHMEMU_SIZED_TYPES(SHMEMU_SHMEM_DECLARE_CTX_SIZED)
#undef SHMEMU_SHMEM_DECLARE_CTX_SIZED

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe);

/* ---- atomics on a context ------------------------------------------------------------ */

#define SHMEMU_SHMEM_DECLARE_CTX_AMO_EXTENDED(TYPE, NAME)                                     \
    TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe);        \
    void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, \
                                             int pe);                                         \
    void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);      \
    TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);     \
    void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,         \
                                            TYPE value, int pe);
SHMEMU_AMO_EXTENDED_TYPES(SHMEMU_SHMEM_DECLARE_CTX_AMO_EXTENDED)
#undef SHMEMU_SHMEM_DECLARE_CTX_AMO_EXTENDED

#define SHMEMU_SHMEM_DECLARE_CTX_AMO(TYPE, NAME)                                              \
    TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond,       \
                                                TYPE value, int pe);                          \
    void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                    TYPE cond, TYPE value, int pe);           \
    void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                  \
    TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);            \
    void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,    \
                                                 int pe);                                     \
    void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);      \
    TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value,         \
                                             int pe);                                         \
    void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,    \
                                                 TYPE value, int pe);
SHMEMU_AMO_TYPES(SHMEMU_SHMEM_DECLARE_CTX_AMO)
#undef SHMEMU_SHMEM_DECLARE_CTX_AMO

#define SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE_OP(TYPE, NAME, OP)                               \
    void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);     \
    TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value,        \
                                              int pe);                                        \
    void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                    TYPE value, int pe);
#define SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE(TYPE, NAME)                                      \
    SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE_OP(TYPE, NAME, and)                                  \
    SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE_OP(TYPE, NAME, or)                                   \
    SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE_OP(TYPE, NAME, xor)
SHMEMU_AMO_BITWISE_TYPES(SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE)
#undef SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE
#undef SHMEMU_SHMEM_DECLARE_CTX_AMO_BITWISE_OP

#ifdef __cplusplus
}
#endif

#endif
