/*
 * collective.c: broadcast, fcollect, alltoall and reductions over a team.
 *
 * All PEs share one address space, so a collective is: a team barrier (every source is
 * ready), each PE reads the peers' symmetric sources directly into its own result, a second
 * barrier (nobody overwrites a source another PE still reads). Reductions combine the
 * contributions in team PE order 0, 1, ..., n-1 on every PE, into a private buffer that is
 * copied to dest at the end, so dest may alias source and the bits never depend on timing.
 * barrier_all also completes this PE's puts (quiet), as NVSHMEM's does; sync_all does not.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core_types.h"
#include "nvshmem.h"

typedef struct coll_ctx {
    pgas_thread *t;
    pgas_team *team;
    int rank;
    const char *call;
} coll_ctx;

/* The arguments every member must pass alike (agree.c), named as the API names them. */
#define COLL_ARGS(name, team_id, ...)                                                         \
    ((pgas_coll_call){.call = (name), .team_id = (team_id), __VA_ARGS__})

/* Checks the caller and publishes its call (cc), before the first barrier. */
static coll_ctx coll_begin(const pgas_coll_call *cc)
{
    const char *call = cc->call;
    pgas_thread *t = pgas_require(call);
    pgas_team *team = pgas_team_get(t, call, cc->team_id);
    int rank = pgas_team_my_rank(team, t->pe);
    if (rank < 0)
        pgas_fail(call, "this PE is not a member of team %d; only members call its collectives",
                  cc->team_id);
    pgas_quiet(t);
    pgas_agree_publish(t, team, cc);
    return (coll_ctx){.t = t, .team = team, .rank = rank, .call = call};
}

/* In an exported collective, before its work: notes the program's call site for hang
 * reports (a macro: the return address must be the exported function's). */
#define NOTE_COLL_CALLER(call)                                                                \
    do {                                                                                      \
        pgas_thread *t_ = pgas_require(call);                                                 \
        PGAS_NOTE_CALLER(t_);                                                                 \
    } while (0)

static void coll_sync(const coll_ctx *c)
{
    pgas_barrier_wait(c->t, &c->team->barrier, c->team->size, c->call);
}

/* The first barrier: every source is ready and every member's call published; then every
 * member's arguments are compared with team PE 0's. */
static void coll_enter(const coll_ctx *c)
{
    coll_sync(c);
    pgas_agree_check(c->t, c->team);
}

/* The last barrier: nobody overwrites a source, or a published call, that another member
 * still reads. */
static void coll_leave(const coll_ctx *c)
{
    coll_sync(c);
    pgas_agree_end(c->t);
}

/* The address of symmetric object `local` on the team's rank-th PE. */
static const char *peer_copy(const coll_ctx *c, const char *what, const void *local,
                             size_t bytes, int rank)
{
    return pgas_heap_translate(c->t, c->call, what, local, bytes,
                               pgas_team_world_pe(c->team, rank));
}

static void peer_get(const coll_ctx *c, int rank, void *local_dest, const char *remote,
                     size_t bytes)
{
    pgas_be_get(c->t->world, pgas_team_world_pe(c->team, rank), local_dest, remote, bytes);
}

static size_t elems_bytes(const char *call, size_t nelems, size_t size)
{
    if (nelems > SIZE_MAX / size)
        pgas_fail(call, "nelems %zu overflows", nelems);
    return nelems * size;
}

/* Combines the sources of team ranks 0..last (each `bytes`, n elements) into acc, in rank
 * order, so the bits never depend on timing; acc is left as it is when last < 0. */
static void combine_ranks(const coll_ctx *c, char *acc, const void *source, size_t bytes,
                          size_t n, int last, pgas_combine_fn combine)
{
    if (bytes == 0 || last < 0)
        return;
    peer_get(c, 0, acc, peer_copy(c, "source", source, bytes, 0), bytes);
    char *fetched = NULL; /* a peer's source got through the backend (MPI across nodes) */
    for (int r = 1; r <= last; r++) {
        const char *src = peer_copy(c, "source", source, bytes, r);
        if (!pgas_be_direct(c->t->world, pgas_team_world_pe(c->team, r), src)) {
            if (fetched == NULL && (fetched = malloc(bytes)) == NULL)
                pgas_fail(c->call, "out of memory for a %zu-byte reduction buffer", bytes);
            peer_get(c, r, fetched, src, bytes);
            src = fetched;
        }
        combine(acc, src, n);
    }
    free(fetched);
}

/* A reduction, or (scatter) a reduce-scatter: source holds team size blocks of nreduce
 * elements, and each PE reduces the block of its own team rank (the same block of every
 * PE's source) into dest. */
static int reduce(const char *call, int team_id, void *dest, const void *source, size_t nreduce,
                  size_t elem_size, pgas_combine_fn combine, bool scatter)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 1, .names = {"nreduce"},
                                  .values = {(int64_t)nreduce});
    coll_ctx c = coll_begin(&cc);
    size_t blocks = scatter ? (size_t)c.team->size : 1;
    if (nreduce > SIZE_MAX / elem_size / blocks)
        pgas_fail(call, "nreduce %zu overflows", nreduce);
    size_t bytes = nreduce * elem_size;
    if (bytes > 0) {
        pgas_heap_check_local(c.t, call, "dest", dest, bytes);
        pgas_heap_check_local(c.t, call, "source", source, bytes * blocks);
    }
    if (scatter)
        source = (const char *)source + (size_t)c.rank * bytes;
    char *acc = malloc(bytes > 0 ? bytes : 1);
    if (acc == NULL)
        pgas_fail(call, "out of memory for a %zu-byte reduction buffer", bytes);
    coll_enter(&c);
    combine_ranks(&c, acc, source, bytes, nreduce, c.team->size - 1, combine);
    coll_leave(&c);
    if (bytes > 0)
        memcpy(dest, acc, bytes);
    free(acc);
    /* dest is complete on this PE only; a third barrier would make it complete everywhere,
     * which NVSHMEM does not promise. The next collective's barrier orders reuse. */
    return 0;
}

int pgas_coll_reduce(const char *call, int team_id, void *dest, const void *source,
                     size_t nreduce, size_t elem_size, pgas_combine_fn combine)
{
    return reduce(call, team_id, dest, source, nreduce, elem_size, combine, false);
}

int pgas_coll_reducescatter(const char *call, int team_id, void *dest, const void *source,
                            size_t nreduce, size_t elem_size, pgas_combine_fn combine)
{
    return reduce(call, team_id, dest, source, nreduce, elem_size, combine, true);
}

/* A prefix reduction: team PE k combines the sources of PEs 0..k (inclusive) or 0..k-1
 * (exclusive; PE 0's dest becomes all zero bits, the identity of sum), in PE order, so the
 * bits never depend on timing. Like reduce, through a private buffer: dest may be source. */
int pgas_coll_scan(const char *call, int team_id, void *dest, const void *source,
                   size_t nelems, size_t elem_size, pgas_combine_fn combine, bool inclusive)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 1, .names = {"nelems"},
                                  .values = {(int64_t)nelems});
    coll_ctx c = coll_begin(&cc);
    if (nelems > SIZE_MAX / elem_size)
        pgas_fail(call, "nelems %zu overflows", nelems);
    size_t bytes = nelems * elem_size;
    if (bytes > 0) {
        pgas_heap_check_local(c.t, call, "dest", dest, bytes);
        pgas_heap_check_local(c.t, call, "source", source, bytes);
    }
    char *acc = calloc(1, bytes > 0 ? bytes : 1);
    if (acc == NULL)
        pgas_fail(call, "out of memory for a %zu-byte scan buffer", bytes);
    int last = inclusive ? c.rank : c.rank - 1;
    coll_enter(&c);
    combine_ranks(&c, acc, source, bytes, nelems, last, combine);
    coll_leave(&c);
    if (bytes > 0)
        memcpy(dest, acc, bytes);
    free(acc);
    return 0;
}

/* write_root: the root copies its source to its own dest too (the team form); OpenSHMEM's
 * deprecated active-set broadcast leaves the root's dest alone. */
static int broadcast(const char *call, int team_id, void *dest, const void *source,
                     size_t bytes, int root, bool write_root)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 2,
                                  .names = {"PE_root", "nelems (as bytes)"},
                                  .values = {root, (int64_t)bytes});
    coll_ctx c = coll_begin(&cc);
    if (root < 0 || root >= c.team->size)
        pgas_fail(call, "PE_root %d is out of range; team %d has PEs 0 to %d", root, team_id,
                  c.team->size - 1);
    if (bytes > 0)
        pgas_heap_check_local(c.t, call, "dest", dest, bytes);
    coll_enter(&c);
    if (bytes > 0 && (write_root || c.rank != root))
        peer_get(&c, root, dest, peer_copy(&c, "source", source, bytes, root), bytes);
    coll_leave(&c);
    return 0;
}

int pgas_coll_broadcast(const char *call, int team_id, void *dest, const void *source,
                        size_t bytes, int root)
{
    return broadcast(call, team_id, dest, source, bytes, root, true);
}

int pgas_coll_broadcast_others(const char *call, int team_id, void *dest, const void *source,
                               size_t bytes, int root)
{
    return broadcast(call, team_id, dest, source, bytes, root, false);
}

int pgas_coll_fcollect(const char *call, int team_id, void *dest, const void *source,
                       size_t bytes)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 1, .names = {"nelems (as bytes)"},
                                  .values = {(int64_t)bytes});
    coll_ctx c = coll_begin(&cc);
    size_t n = (size_t)c.team->size;
    if (bytes != 0 && n > SIZE_MAX / bytes)
        pgas_fail(call, "nelems times %zu PEs overflows", n);
    if (bytes > 0)
        pgas_heap_check_local(c.t, call, "dest", dest, bytes * n);
    coll_enter(&c);
    for (int r = 0; r < c.team->size && bytes > 0; r++)
        peer_get(&c, r, (char *)dest + (size_t)r * bytes,
                 peer_copy(&c, "source", source, bytes, r), bytes);
    coll_leave(&c);
    return 0;
}

int pgas_coll_alltoall(const char *call, int team_id, void *dest, const void *source,
                       size_t bytes)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 1, .names = {"nelems (as bytes)"},
                                  .values = {(int64_t)bytes});
    coll_ctx c = coll_begin(&cc);
    size_t n = (size_t)c.team->size;
    if (bytes != 0 && n > SIZE_MAX / bytes)
        pgas_fail(call, "nelems times %zu PEs overflows", n);
    if (bytes > 0)
        pgas_heap_check_local(c.t, call, "dest", dest, bytes * n);
    coll_enter(&c);
    for (int r = 0; r < c.team->size && bytes > 0; r++)
        peer_get(&c, r, (char *)dest + (size_t)r * bytes,
                 peer_copy(&c, "source", source, bytes * n, r) + (size_t)c.rank * bytes, bytes);
    coll_leave(&c);
    return 0;
}

/* Each PE publishes its own nelems (it may differ per PE: the one argument that need not
 * agree) and, after the first barrier, reads every member's to place the blocks. */
int pgas_coll_collect(const char *call, int team_id, void *dest, const void *source,
                      size_t nelems, size_t elem_size)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 1, .vary = 1u, .names = {"nelems"},
                                  .values = {(int64_t)nelems});
    coll_ctx c = coll_begin(&cc);
    if (nelems > (size_t)INT64_MAX / elem_size)
        pgas_fail(call, "nelems %zu overflows", nelems);
    coll_enter(&c);
    size_t offset = 0;
    for (int r = 0; r < c.team->size; r++) {
        int pe = pgas_team_world_pe(c.team, r);
        size_t bytes = (size_t)pgas_agree_value(c.t->world, pe, 0) * elem_size;
        if (bytes > 0) {
            if (offset > SIZE_MAX - bytes)
                pgas_fail(call, "the PEs' nelems add up to more than SIZE_MAX bytes");
            pgas_heap_check_local(c.t, call, "dest", (char *)dest + offset, bytes);
            peer_get(&c, r, (char *)dest + offset, peer_copy(&c, "source", source, bytes, r),
                     bytes);
        }
        offset += bytes;
    }
    coll_leave(&c);
    return 0;
}

/* The elements a strided array of `count` elements spans: (count - 1) * stride + 1. */
static size_t strided_span(const char *call, const char *what, size_t count, ptrdiff_t stride)
{
    if (count == 0)
        return 0;
    if ((size_t)stride > (SIZE_MAX - 1) / count)
        pgas_fail(call, "%s: %zu elements at stride %td overflow", what, count, stride);
    return (count - 1) * (size_t)stride + 1;
}

/* Element i of the block for team PE j in source is source[sst * (j * nelems + i)]; it lands
 * at dest[dst * (k * nelems + i)] on PE j, where k is the sender's team rank. */
int pgas_coll_alltoalls(const char *call, int team_id, void *dest, const void *source,
                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem_size)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id, .n_args = 3, .names = {"dst", "sst", "nelems"},
                                  .values = {dst, sst, (int64_t)nelems});
    coll_ctx c = coll_begin(&cc);
    if (dst < 1 || sst < 1)
        pgas_fail(call, "strides dst %td and sst %td must both be at least 1 (1: contiguous)",
                  dst, sst);
    size_t n = (size_t)c.team->size;
    if (nelems != 0 && n > SIZE_MAX / nelems)
        pgas_fail(call, "nelems %zu times %zu PEs overflows", nelems, n);
    size_t dspan = strided_span(call, "dest", n * nelems, dst);
    size_t sspan = strided_span(call, "source", n * nelems, sst);
    if (dspan > SIZE_MAX / elem_size || sspan > SIZE_MAX / elem_size)
        pgas_fail(call, "the strided arrays overflow the address space");
    if (dspan > 0)
        pgas_heap_check_local(c.t, call, "dest", dest, dspan * elem_size);
    coll_enter(&c);
    for (int r = 0; r < c.team->size && nelems > 0; r++) {
        const char *remote = peer_copy(&c, "source", source, sspan * elem_size, r);
        for (size_t i = 0; i < nelems; i++) {
            size_t from = ((size_t)c.rank * nelems + i) * (size_t)sst;
            size_t to = ((size_t)r * nelems + i) * (size_t)dst;
            peer_get(&c, r, (char *)dest + to * elem_size, remote + from * elem_size,
                     elem_size);
        }
    }
    coll_leave(&c);
    return 0;
}

/* ---- barriers ------------------------------------------------------------------------ */
/* A barrier publishes its call, so that a collective that meets it at the same team barrier
 * names it, but compares nothing itself: with one barrier, a fast PE could publish its next
 * call before a slow one had read this one. */

static void barrier_call(const char *call, int team_id)
{
    pgas_coll_call cc = COLL_ARGS(call, team_id);
    coll_ctx c = coll_begin(&cc);
    coll_leave(&c);
}

void nvshmem_barrier_all(void)
{
    NOTE_COLL_CALLER("nvshmem_barrier_all");
    barrier_call("nvshmem_barrier_all", NVSHMEM_TEAM_WORLD);
}

int nvshmem_barrier(nvshmem_team_t team)
{
    NOTE_COLL_CALLER("nvshmem_barrier");
    barrier_call("nvshmem_barrier", team);
    return 0;
}

/* A sync completes no puts (no quiet): only the barrier. */
static void sync_call(const char *call, int team_id)
{
    pgas_thread *t = pgas_require(call);
    pgas_team *team = pgas_team_get(t, call, team_id);
    if (pgas_team_my_rank(team, t->pe) < 0)
        pgas_fail(call, "this PE is not a member of team %d", team_id);
    pgas_coll_call cc = COLL_ARGS(call, team_id);
    pgas_agree_publish(t, team, &cc);
    pgas_barrier_wait(t, &team->barrier, team->size, call);
    pgas_agree_end(t);
}

void nvshmem_sync_all(void)
{
    NOTE_COLL_CALLER("nvshmem_sync_all");
    sync_call("nvshmem_sync_all", NVSHMEM_TEAM_WORLD);
}

int nvshmem_team_sync(nvshmem_team_t team_id)
{
    NOTE_COLL_CALLER("nvshmem_team_sync");
    sync_call("nvshmem_team_sync", team_id);
    return 0;
}

/* For OpenSHMEM's active-set shmem_barrier and shmem_sync (shmem_deprecated.c), which note
 * their own caller. */
void pgas_coll_barrier(const char *call, int team_id) { barrier_call(call, team_id); }
void pgas_coll_sync(const char *call, int team_id) { sync_call(call, team_id); }

/* ---- typed entry points -------------------------------------------------------------- */

int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                         int PE_root)
{
    const char *call = "nvshmem_broadcastmem";
    NOTE_COLL_CALLER(call);
    return pgas_coll_broadcast(call, team, dest, source, nelems, PE_root);
}

int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "nvshmem_fcollectmem";
    NOTE_COLL_CALLER(call);
    return pgas_coll_fcollect(call, team, dest, source, nelems);
}

int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "nvshmem_alltoallmem";
    NOTE_COLL_CALLER(call);
    return pgas_coll_alltoall(call, team, dest, source, nelems);
}

#define DEFINE_COLL(TYPE, NAME)                                                               \
    int nvshmem_##NAME##_broadcast(nvshmem_team_t team, TYPE *dest, const TYPE *source,       \
                                   size_t nelems, int PE_root)                                \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_broadcast";                                    \
        NOTE_COLL_CALLER(call);                                                               \
        return pgas_coll_broadcast(call, team, dest, source,                                  \
                                   elems_bytes(call, nelems, sizeof(TYPE)), PE_root);         \
    }                                                                                         \
    int nvshmem_##NAME##_fcollect(nvshmem_team_t team, TYPE *dest, const TYPE *source,        \
                                  size_t nelems)                                              \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_fcollect";                                     \
        NOTE_COLL_CALLER(call);                                                               \
        return pgas_coll_fcollect(call, team, dest, source,                                   \
                                  elems_bytes(call, nelems, sizeof(TYPE)));                   \
    }                                                                                         \
    int nvshmem_##NAME##_alltoall(nvshmem_team_t team, TYPE *dest, const TYPE *source,        \
                                  size_t nelems)                                              \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_alltoall";                                     \
        NOTE_COLL_CALLER(call);                                                               \
        return pgas_coll_alltoall(call, team, dest, source,                                   \
                                  elems_bytes(call, nelems, sizeof(TYPE)));                   \
    }
SHMEMU_RMA_TYPES(DEFINE_COLL)
SHMEMU_SHMEM_RMA_EXTRA_TYPES(DEFINE_COLL) /* OpenSHMEM's extra types (shmem_internal.h) */
#undef DEFINE_COLL

/* Element-wise combiners, one per (type, op), pgas_combine_NAME_OP (the OpenSHMEM layer's
 * active-set reductions use them too). Integer sum and prod wrap as unsigned arithmetic
 * does, so signed overflow is not undefined behaviour here. */
#define WRAP_ADD(T, a, b) ((T)((uintmax_t)(a) + (uintmax_t)(b)))
#define WRAP_MUL(T, a, b) ((T)((uintmax_t)(a) * (uintmax_t)(b)))
#define IS_FLOAT(T) ((T)0.5 != 0)

#define DEFINE_COMBINER(TYPE, NAME, OP, EXPR)                                                 \
    void pgas_combine_##NAME##_##OP(void *acc_, const void *in_, size_t n)                    \
    {                                                                                         \
        TYPE *acc = acc_;                                                                     \
        const TYPE *in = in_;                                                                 \
        for (size_t i = 0; i < n; i++) {                                                      \
            TYPE a = acc[i], b = in[i];                                                       \
            acc[i] = (EXPR);                                                                  \
        }                                                                                     \
    }                                                                                         \
    int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nreduce)                                        \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_" #OP "_reduce";                                \
        NOTE_COLL_CALLER(call);                                                               \
        return pgas_coll_reduce(call, team, dest, source, nreduce, sizeof(TYPE),              \
                                pgas_combine_##NAME##_##OP);                                  \
    }                                                                                         \
    int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nreduce)             \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_" #OP "_reducescatter";                         \
        NOTE_COLL_CALLER(call);                                                               \
        return pgas_coll_reducescatter(call, team, dest, source, nreduce, sizeof(TYPE),       \
                                       pgas_combine_##NAME##_##OP);                           \
    }

#define DEFINE_REDUCE_BITWISE(TYPE, NAME)                                                     \
    DEFINE_COMBINER(TYPE, NAME, and, (TYPE)(a & b))                                           \
    DEFINE_COMBINER(TYPE, NAME, or, (TYPE)(a | b))                                            \
    DEFINE_COMBINER(TYPE, NAME, xor, (TYPE)(a ^ b))
SHMEMU_REDUCE_BITWISE_TYPES(DEFINE_REDUCE_BITWISE)
#undef DEFINE_REDUCE_BITWISE

#define DEFINE_REDUCE_ARITH(TYPE, NAME)                                                       \
    DEFINE_COMBINER(TYPE, NAME, min, (b < a ? b : a))                                         \
    DEFINE_COMBINER(TYPE, NAME, max, (b > a ? b : a))                                         \
    DEFINE_COMBINER(TYPE, NAME, sum, (IS_FLOAT(TYPE) ? (TYPE)(a + b) : WRAP_ADD(TYPE, a, b))) \
    DEFINE_COMBINER(TYPE, NAME, prod, (IS_FLOAT(TYPE) ? (TYPE)(a * b) : WRAP_MUL(TYPE, a, b)))
SHMEMU_REDUCE_ARITH_TYPES(DEFINE_REDUCE_ARITH)
/* OpenSHMEM's extra types (shmem_internal.h declares their entries): long double takes all
 * four operators; the complex types have no order, so only sum and prod. */
SHMEMU_SHMEM_REDUCE_MINMAX_EXTRA_TYPES(DEFINE_REDUCE_ARITH)
#undef DEFINE_REDUCE_ARITH
#define DEFINE_REDUCE_COMPLEX(TYPE, NAME)                                                     \
    DEFINE_COMBINER(TYPE, NAME, sum, (TYPE)(a + b))                                           \
    DEFINE_COMBINER(TYPE, NAME, prod, (TYPE)(a * b))
SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(DEFINE_REDUCE_COMPLEX)
#undef DEFINE_REDUCE_COMPLEX
