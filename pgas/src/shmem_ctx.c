/*
 * shmem_ctx.c: OpenSHMEM communication contexts (shmem_ctx_t) and the shmem_ctx_ forms of
 * RMA, put-with-signal, atomics, fence and quiet.
 *
 * A context is a pgas_ctx (internal.h) owned by the record of the thread that created it
 * until the job ends: destroying one only marks it, so a stale handle is reported, never
 * read after free (each created context costs sizeof(pgas_ctx) until the job ends).
 * SHMEM_CTX_DEFAULT is no record: its calls are the calls without ctx.
 *
 * Semantics live in delivery.c: in checking mode (SHMEMU_CHECK_NBI=1) each context has its
 * own queue on each thread that uses it. A shmem_ctx_ call on a created context points the
 * thread's current queue (t->q) at that context's for its duration, then the core puts,
 * gets and atomics issue there, and pgas_fence / pgas_quiet act on it alone. Outside
 * checking mode every put is delivered at once, so a context's fence and quiet have nothing
 * to do, and the calls without ctx take the same path as before contexts existed.
 *
 * PEs: a context of a team (shmem_team_create_ctx) takes team PE numbers; the team's
 * geometry is recorded at creation and each call translates pe to the world PE.
 *
 * Names: the calls pass their own name, shmem_ctx_X (contexts are OpenSHMEM's only), so a
 * message names the call the program made even on a thread that is no PE; on an OpenSHMEM
 * PE the core's routine names in the text are rewritten too (error.c: nvshmem_malloc ->
 * shmem_malloc).
 */
#include <stdio.h>
#include <stdlib.h>

#include "amo_bits.h"
#include "shmem_internal.h"

#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

/* ---- the check every call on a context starts with ----------------------------------- */

/* The record behind ctx, after checking that this thread may use it; NULL for
 * SHMEM_CTX_DEFAULT. */
static pgas_ctx *ctx_check(const pgas_thread *t, shmem_ctx_t ctx, const char *call)
{
    if (ctx == SHMEM_CTX_DEFAULT)
        return NULL;
    if (ctx == SHMEM_CTX_INVALID)
        pgas_fail(call, "ctx is SHMEM_CTX_INVALID, which names no context (a failed "
                        "shmem_ctx_create sets it); pass SHMEM_CTX_DEFAULT or a context from "
                        "shmem_ctx_create or shmem_team_create_ctx, and check their return "
                        "value");
    pgas_ctx *c = (pgas_ctx *)(void *)ctx;
    if (c->magic != PGAS_CTX_MAGIC)
        pgas_fail(call, "ctx %p is no communication context; pass SHMEM_CTX_DEFAULT or a "
                        "handle that shmem_ctx_create or shmem_team_create_ctx set",
                  (void *)ctx);
    if (atomic_load_explicit(&c->destroyed, memory_order_relaxed) != 0)
        pgas_fail(call, "ctx %p was destroyed by shmem_ctx_destroy; create a new context, or "
                        "destroy this one only after its last use", (void *)ctx);
    if (c->pe != t->pe)
        pgas_fail(call, "ctx %p belongs to PE %d, not to this PE %d: a context is local to "
                        "the PE that created it; create one on each PE",
                  (void *)ctx, c->pe, t->pe);
    if ((c->options & SHMEM_CTX_PRIVATE) != 0 && c->creator != t)
        pgas_fail(call, "ctx %p was created with SHMEM_CTX_PRIVATE by thread \"%s\" of PE %d, "
                        "and another thread, \"%s\" of PE %d, uses it; a private context "
                        "belongs to the thread that created it: create one per thread, or "
                        "create it without SHMEM_CTX_PRIVATE",
                  (void *)ctx, c->creator->label, c->pe, t->label, t->pe);
    return c;
}

/* A call on ctx in progress: the thread, the world PE it targets, and the queue to restore
 * (NULL when the call did not switch queues). */
typedef struct ctx_op {
    pgas_thread *t;
    pgas_queue *saved;
    int pe;
} ctx_op;

static ctx_op ctx_begin(shmem_ctx_t ctx, const char *call, int pe)
{
    pgas_thread *t = pgas_require(call);
    ctx_op op = {.t = t, .saved = NULL, .pe = pe};
    const pgas_ctx *c = ctx_check(t, ctx, call);
    if (c == NULL)
        return op;
    if (c->team_id != NVSHMEM_TEAM_WORLD) {
        if (pe < 0 || pe >= c->team_size)
            pgas_fail(call, "PE %d is not in ctx's team of %d PEs: a context made by "
                            "shmem_team_create_ctx takes PE numbers of its team, 0 to %d "
                            "(shmem_team_translate_pe converts a world PE)",
                      pe, c->team_size, c->team_size - 1);
        op.pe = c->team_start + pe * c->team_stride;
    }
    if (t->world->config.check_nbi) {
        op.saved = t->q;
        t->q = pgas_ctx_queue(t, c);
    }
    return op;
}

static inline void ctx_end(ctx_op op)
{
    if (op.saved != NULL)
        op.t->q = op.saved;
}

/* ---- create, destroy, query ---------------------------------------------------------- */

static int create(const char *call, int team_id, long options, shmem_ctx_t *ctx)
{
    pgas_thread *t = pgas_require(call);
    if (ctx == NULL)
        pgas_fail(call, "ctx is NULL; pass the address of a shmem_ctx_t");
    *ctx = SHMEM_CTX_INVALID;
    if ((options & ~KNOWN_OPTIONS) != 0) {
        pgas_complain(call, "unknown option bits 0x%lx; combine SHMEM_CTX_SERIALIZED, "
                            "SHMEM_CTX_PRIVATE and SHMEM_CTX_NOSTORE, or pass 0",
                      (unsigned long)(options & ~KNOWN_OPTIONS));
        return 1;
    }
    const pgas_team *team = pgas_team_get(t, call, team_id);
    if (pgas_team_my_rank(team, t->pe) < 0) {
        pgas_complain(call, "this PE is not a member of the team; make contexts from a team "
                            "this PE belongs to");
        return 1;
    }
    pgas_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) {
        pgas_complain(call, "out of memory making a context");
        return 1;
    }
    c->magic = PGAS_CTX_MAGIC;
    c->pe = t->pe;
    c->options = options;
    c->team_id = team_id;
    c->team_start = team->start;
    c->team_stride = team->stride;
    c->team_size = team->size;
    c->creator = t;
    c->next_owned = t->contexts;
    t->contexts = c;
    *ctx = (shmem_ctx_t)(void *)c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return create("shmem_ctx_create", NVSHMEM_TEAM_WORLD, options, ctx);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    const char *call = "shmem_team_create_ctx";
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_team_create_ctx");
    if (id == NVSHMEM_TEAM_INVALID) {
        pgas_require(call);
        if (ctx == NULL)
            pgas_fail(call, "ctx is NULL; pass the address of a shmem_ctx_t");
        *ctx = SHMEM_CTX_INVALID;
        return 1;
    }
    return create(call, id, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    const char *call = "shmem_ctx_destroy";
    pgas_thread *t = pgas_require(call);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        pgas_fail(call, "SHMEM_CTX_DEFAULT cannot be destroyed; destroy only contexts from "
                        "shmem_ctx_create or shmem_team_create_ctx");
    pgas_ctx *c = ctx_check(t, ctx, call);
    /* The implicit quiet of the specification: this thread's operations on ctx complete. */
    if (t->world->config.check_nbi) {
        pgas_queue *saved = t->q;
        t->q = pgas_ctx_queue(t, c);
        pgas_quiet(t);
        t->q = saved;
        pgas_ctx_queue_drop(t, c);
    }
    atomic_exchange_explicit(&c->destroyed, 1, memory_order_relaxed);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    const char *call = "shmem_ctx_get_team";
    pgas_thread *t = pgas_require(call);
    if (team == NULL)
        pgas_fail(call, "team is NULL; pass the address of a shmem_team_t");
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    const pgas_ctx *c = ctx_check(t, ctx, call);
    *team = pgas_shmem_team_handle(c == NULL ? NVSHMEM_TEAM_WORLD : c->team_id);
    return 0;
}

/* ---- ordering ------------------------------------------------------------------------ */

/* A created context's fence and quiet act on its queue (checking mode; otherwise there is
 * nothing queued); the default context's are shmem_fence and shmem_quiet. */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    ctx_op op = ctx_begin(ctx, "shmem_ctx_fence", 0);
    if (op.saved != NULL || ctx == SHMEM_CTX_DEFAULT)
        pgas_fence(op.t);
    ctx_end(op);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    ctx_op op = ctx_begin(ctx, "shmem_ctx_quiet", 0);
    if (op.saved != NULL || ctx == SHMEM_CTX_DEFAULT)
        pgas_quiet(op.t);
    ctx_end(op);
}

/* ---- RMA ----------------------------------------------------------------------------- */

static void ctx_put(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                    size_t bytes, int pe, bool nbi)
{
    ctx_op op = ctx_begin(ctx, call, pe);
    pgas_rma_put(call, dest, source, bytes, op.pe, nbi);
    ctx_end(op);
}

static void ctx_get(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                    size_t bytes, int pe, bool nbi)
{
    ctx_op op = ctx_begin(ctx, call, pe);
    pgas_rma_get(call, dest, source, bytes, op.pe, nbi);
    ctx_end(op);
}

static void ctx_iput(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size, int pe)
{
    ctx_op op = ctx_begin(ctx, call, pe);
    pgas_rma_iput(call, dest, source, dst, sst, nelems, elem_size, op.pe);
    ctx_end(op);
}

static void ctx_iget(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size, int pe)
{
    ctx_op op = ctx_begin(ctx, call, pe);
    pgas_rma_iget(call, dest, source, dst, sst, nelems, elem_size, op.pe);
    ctx_end(op);
}

static void ctx_put_signal(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                           size_t bytes, uint64_t *sig_addr, uint64_t signal, int sig_op,
                           int pe, bool nbi)
{
    int core_op = pgas_shmem_sig_op(sig_op, call + 2); /* its own message: the shmem_ name */
    ctx_op op = ctx_begin(ctx, call, pe);
    pgas_rma_put_signal(call, dest, source, bytes, sig_addr, signal, core_op, op.pe, nbi);
    ctx_end(op);
}

#define CALL(NAME) "shmem_ctx_" NAME

#define DEFINE_CTX_RMA(TYPE, NAME)                                                            \
    void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,              \
                                size_t nelems, int pe)                                        \
    {                                                                                         \
        const char *call = CALL(#NAME "_put");                                                \
        ctx_put(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                false);                                                                       \
    }                                                                                         \
    void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,          \
                                    size_t nelems, int pe)                                    \
    {                                                                                         \
        const char *call = CALL(#NAME "_put_nbi");                                            \
        ctx_put(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                true);                                                                        \
    }                                                                                         \
    void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,              \
                                size_t nelems, int pe)                                        \
    {                                                                                         \
        const char *call = CALL(#NAME "_get");                                                \
        ctx_get(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                false);                                                                       \
    }                                                                                         \
    void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,          \
                                    size_t nelems, int pe)                                    \
    {                                                                                         \
        const char *call = CALL(#NAME "_get_nbi");                                            \
        ctx_get(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                true);                                                                        \
    }                                                                                         \
    void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)                \
    {                                                                                         \
        ctx_put(CALL(#NAME "_p"), ctx, dest, &value, sizeof(TYPE), pe, false);                \
    }                                                                                         \
    TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe)                    \
    {                                                                                         \
        TYPE value;                                                                           \
        ctx_get(CALL(#NAME "_g"), ctx, &value, source, sizeof(TYPE), pe, false);              \
        return value;                                                                         \
    }                                                                                         \
    void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                         \
        ctx_iput(CALL(#NAME "_iput"), ctx, dest, source, dst, sst, nelems, sizeof(TYPE), pe); \
    }                                                                                         \
    void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,             \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                         \
        ctx_iget(CALL(#NAME "_iget"), ctx, dest, source, dst, sst, nelems, sizeof(TYPE), pe); \
    }                                                                                         \
    void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,       \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                       int sig_op, int pe)                                    \
    {                                                                                         \
        const char *call = CALL(#NAME "_put_signal");                                         \
        ctx_put_signal(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)),   \
                       sig_addr, signal, sig_op, pe, false);                                  \
    }                                                                                         \
    void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source,   \
                                           size_t nelems, uint64_t *sig_addr,                 \
                                           uint64_t signal, int sig_op, int pe)               \
    {                                                                                         \
        const char *call = CALL(#NAME "_put_signal_nbi");                                     \
        ctx_put_signal(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)),   \
                       sig_addr, signal, sig_op, pe, true);                                   \
    }
SHMEMU_SHMEM_RMA_TYPES(DEFINE_CTX_RMA)
#undef DEFINE_CTX_RMA

#define DEFINE_CTX_SIZED(BITS, TYPE)                                                          \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                             int pe)                                                          \
    {                                                                                         \
        const char *call = CALL("put" #BITS);                                                 \
        ctx_put(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                false);                                                                       \
    }                                                                                         \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                   size_t nelems, int pe)                                     \
    {                                                                                         \
        const char *call = CALL("put" #BITS "_nbi");                                          \
        ctx_put(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                true);                                                                        \
    }                                                                                         \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,  \
                             int pe)                                                          \
    {                                                                                         \
        const char *call = CALL("get" #BITS);                                                 \
        ctx_get(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                false);                                                                       \
    }                                                                                         \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,           \
                                   size_t nelems, int pe)                                     \
    {                                                                                         \
        const char *call = CALL("get" #BITS "_nbi");                                          \
        ctx_get(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)), pe,      \
                true);                                                                        \
    }                                                                                         \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                           \
    {                                                                                         \
        ctx_iput(CALL("iput" #BITS), ctx, dest, source, dst, sst, nelems, sizeof(TYPE), pe);  \
    }                                                                                         \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe)                           \
    {                                                                                         \
        ctx_iget(CALL("iget" #BITS), ctx, dest, source, dst, sst, nelems, sizeof(TYPE), pe);  \
    }                                                                                         \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,        \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                      int sig_op, int pe)                                     \
    {                                                                                         \
        const char *call = CALL("put" #BITS "_signal");                                       \
        ctx_put_signal(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)),   \
                       sig_addr, signal, sig_op, pe, false);                                  \
    }                                                                                         \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,    \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                          int sig_op, int pe)                                 \
    {                                                                                         \
        const char *call = CALL("put" #BITS "_signal_nbi");                                   \
        ctx_put_signal(call, ctx, dest, source, pgas_rma_bytes(call, nelems, sizeof(TYPE)),   \
                       sig_addr, signal, sig_op, pe, true);                                   \
    }
SHMEMU_SIZED_TYPES(DEFINE_CTX_SIZED)
#undef DEFINE_CTX_SIZED

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    ctx_put(CALL("putmem"), ctx, dest, source, nelems, pe, false);
}

void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe)
{
    ctx_put(CALL("putmem_nbi"), ctx, dest, source, nelems, pe, true);
}

void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    ctx_get(CALL("getmem"), ctx, dest, source, nelems, pe, false);
}

void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                          int pe)
{
    ctx_get(CALL("getmem_nbi"), ctx, dest, source, nelems, pe, true);
}

void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    ctx_put_signal(CALL("putmem_signal"), ctx, dest, source, nelems, sig_addr, signal, sig_op,
                   pe, false);
}

void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe)
{
    ctx_put_signal(CALL("putmem_signal_nbi"), ctx, dest, source, nelems, sig_addr, signal,
                   sig_op, pe, true);
}

/* ---- atomics ------------------------------------------------------------------------- */
/* The fetching _nbi forms complete before they return, as the forms without ctx do. */

static uint64_t ctx_amo(const char *call, shmem_ctx_t ctx, pgas_amo_op amo, void *dest,
                        int pe, size_t size, uint64_t value, uint64_t cond)
{
    ctx_op op = ctx_begin(ctx, call, pe);
    uint64_t old = pgas_amo(call, amo, dest, op.pe, size, value, cond);
    ctx_end(op);
    return old;
}

#define AMO(TYPE, NAME, OP, dest, pe, value, cond)                                            \
    PGAS_AMO_FROM_BITS(TYPE, ctx_amo(CALL(NAME), ctx, OP, (void *)(uintptr_t)(dest), pe,      \
                                     sizeof(TYPE), value, cond))

#define DEFINE_CTX_AMO_EXTENDED(TYPE, NAME)                                                   \
    TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe)         \
    {                                                                                         \
        return AMO(TYPE, #NAME "_atomic_fetch", PGAS_AMO_FETCH, source, pe, 0, 0);            \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, \
                                             int pe)                                          \
    {                                                                                         \
        *fetch = AMO(TYPE, #NAME "_atomic_fetch_nbi", PGAS_AMO_FETCH, source, pe, 0, 0);      \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)       \
    {                                                                                         \
        (void)AMO(TYPE, #NAME "_atomic_set", PGAS_AMO_SET, dest, pe,                          \
                  PGAS_AMO_BITS(TYPE, value), 0);                                             \
    }                                                                                         \
    TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)      \
    {                                                                                         \
        return AMO(TYPE, #NAME "_atomic_swap", PGAS_AMO_SWAP, dest, pe,                       \
                   PGAS_AMO_BITS(TYPE, value), 0);                                            \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,         \
                                            TYPE value, int pe)                               \
    {                                                                                         \
        *fetch = AMO(TYPE, #NAME "_atomic_swap_nbi", PGAS_AMO_SWAP, dest, pe,                 \
                     PGAS_AMO_BITS(TYPE, value), 0);                                          \
    }
SHMEMU_AMO_EXTENDED_TYPES(DEFINE_CTX_AMO_EXTENDED)
#undef DEFINE_CTX_AMO_EXTENDED

#define DEFINE_CTX_AMO(TYPE, NAME)                                                            \
    TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond,       \
                                                TYPE value, int pe)                           \
    {                                                                                         \
        return AMO(TYPE, #NAME "_atomic_compare_swap", PGAS_AMO_CSWAP, dest, pe,              \
                   PGAS_AMO_BITS(TYPE, value), PGAS_AMO_BITS(TYPE, cond));                    \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                    TYPE cond, TYPE value, int pe)            \
    {                                                                                         \
        *fetch = AMO(TYPE, #NAME "_atomic_compare_swap_nbi", PGAS_AMO_CSWAP, dest, pe,        \
                     PGAS_AMO_BITS(TYPE, value), PGAS_AMO_BITS(TYPE, cond));                  \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe)                   \
    {                                                                                         \
        (void)AMO(TYPE, #NAME "_atomic_inc", PGAS_AMO_ADD, dest, pe, 1, 0);                   \
    }                                                                                         \
    TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe)             \
    {                                                                                         \
        return AMO(TYPE, #NAME "_atomic_fetch_inc", PGAS_AMO_ADD, dest, pe, 1, 0);            \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,    \
                                                 int pe)                                      \
    {                                                                                         \
        *fetch = AMO(TYPE, #NAME "_atomic_fetch_inc_nbi", PGAS_AMO_ADD, dest, pe, 1, 0);      \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)       \
    {                                                                                         \
        (void)AMO(TYPE, #NAME "_atomic_add", PGAS_AMO_ADD, dest, pe,                          \
                  PGAS_AMO_BITS(TYPE, value), 0);                                             \
    }                                                                                         \
    TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe) \
    {                                                                                         \
        return AMO(TYPE, #NAME "_atomic_fetch_add", PGAS_AMO_ADD, dest, pe,                   \
                   PGAS_AMO_BITS(TYPE, value), 0);                                            \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest,    \
                                                 TYPE value, int pe)                          \
    {                                                                                         \
        *fetch = AMO(TYPE, #NAME "_atomic_fetch_add_nbi", PGAS_AMO_ADD, dest, pe,             \
                     PGAS_AMO_BITS(TYPE, value), 0);                                          \
    }
SHMEMU_AMO_TYPES(DEFINE_CTX_AMO)
#undef DEFINE_CTX_AMO

#define DEFINE_CTX_AMO_BITWISE_OP(TYPE, NAME, OP, PGAS_OP)                                    \
    void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe)      \
    {                                                                                         \
        (void)AMO(TYPE, #NAME "_atomic_" #OP, PGAS_OP, dest, pe, PGAS_AMO_BITS(TYPE, value),  \
                  0);                                                                         \
    }                                                                                         \
    TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value,        \
                                              int pe)                                         \
    {                                                                                         \
        return AMO(TYPE, #NAME "_atomic_fetch_" #OP, PGAS_OP, dest, pe,                       \
                   PGAS_AMO_BITS(TYPE, value), 0);                                            \
    }                                                                                         \
    void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, \
                                                    TYPE value, int pe)                       \
    {                                                                                         \
        *fetch = AMO(TYPE, #NAME "_atomic_fetch_" #OP "_nbi", PGAS_OP, dest, pe,              \
                     PGAS_AMO_BITS(TYPE, value), 0);                                          \
    }
#define DEFINE_CTX_AMO_BITWISE(TYPE, NAME)                                                    \
    DEFINE_CTX_AMO_BITWISE_OP(TYPE, NAME, and, PGAS_AMO_AND)                                  \
    DEFINE_CTX_AMO_BITWISE_OP(TYPE, NAME, or, PGAS_AMO_OR)                                    \
    DEFINE_CTX_AMO_BITWISE_OP(TYPE, NAME, xor, PGAS_AMO_XOR)
SHMEMU_AMO_BITWISE_TYPES(DEFINE_CTX_AMO_BITWISE)
#undef DEFINE_CTX_AMO_BITWISE
#undef DEFINE_CTX_AMO_BITWISE_OP
