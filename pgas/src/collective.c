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
#include "nvshmem.h"

typedef struct coll_ctx {
    pgas_thread *t;
    pgas_team *team;
    int rank;
} coll_ctx;

static coll_ctx coll_begin(const char *call, int team_id)
{
    pgas_thread *t = pgas_require(call);
    pgas_team *team = pgas_team_get(t, call, team_id);
    int rank = pgas_team_my_rank(team, t->pe);
    if (rank < 0)
        pgas_fail(call, "this PE is not a member of team %d; only members call its collectives",
                  team_id);
    pgas_quiet(t);
    return (coll_ctx){.t = t, .team = team, .rank = rank};
}

/* In an exported collective, before its work: notes the program's call site for hang
 * reports (a macro: the return address must be the exported function's). */
#define NOTE_COLL_CALLER(call)                                                                \
    do {                                                                                      \
        pgas_thread *t_ = pgas_require(call);                                                 \
        PGAS_NOTE_CALLER(t_);                                                                 \
    } while (0)

static void coll_sync(const coll_ctx *c, const char *call)
{
    pgas_barrier_wait(c->t, &c->team->barrier, c->team->size, call);
}

/* The address of symmetric object `local` on the team's rank-th PE. */
static const char *peer_copy(const coll_ctx *c, const char *call, const char *what,
                             const void *local, size_t bytes, int rank)
{
    return pgas_heap_translate(c->t, call, what, local, bytes,
                               pgas_team_world_pe(c->team, rank));
}

/* A reduction, or (scatter) a reduce-scatter: source holds team size blocks of nreduce
 * elements, and each PE reduces the block of its own team rank (the same block of every
 * PE's source) into dest. */
static int reduce(const char *call, int team_id, void *dest, const void *source, size_t nreduce,
                  size_t elem_size, pgas_combine_fn combine, bool scatter)
{
    coll_ctx c = coll_begin(call, team_id);
    size_t blocks = scatter ? (size_t)c.team->size : 1;
    if (nreduce > SIZE_MAX / elem_size / blocks)
        pgas_fail(call, "nreduce %zu overflows", nreduce);
    size_t bytes = nreduce * elem_size;
    pgas_heap_check_local(c.t, call, "dest", dest, bytes);
    pgas_heap_check_local(c.t, call, "source", source, bytes * blocks);
    if (scatter)
        source = (const char *)source + (size_t)c.rank * bytes;
    char *acc = malloc(bytes > 0 ? bytes : 1);
    if (acc == NULL)
        pgas_fail(call, "out of memory for a %zu-byte reduction buffer", bytes);
    coll_sync(&c, call);
    pgas_be_get(c.t->world, pgas_team_world_pe(c.team, 0), acc,
                peer_copy(&c, call, "source", source, bytes, 0), bytes);
    for (int r = 1; r < c.team->size; r++)
        combine(acc, peer_copy(&c, call, "source", source, bytes, r), nreduce);
    coll_sync(&c, call);
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

int pgas_coll_broadcast(const char *call, int team_id, void *dest, const void *source,
                        size_t bytes, int root)
{
    coll_ctx c = coll_begin(call, team_id);
    if (root < 0 || root >= c.team->size)
        pgas_fail(call, "PE_root %d is out of range; team %d has PEs 0 to %d", root, team_id,
                  c.team->size - 1);
    pgas_heap_check_local(c.t, call, "dest", dest, bytes);
    coll_sync(&c, call);
    pgas_be_get(c.t->world, pgas_team_world_pe(c.team, root), dest,
                peer_copy(&c, call, "source", source, bytes, root), bytes);
    coll_sync(&c, call);
    return 0;
}

int pgas_coll_fcollect(const char *call, int team_id, void *dest, const void *source,
                       size_t bytes)
{
    coll_ctx c = coll_begin(call, team_id);
    size_t n = (size_t)c.team->size;
    if (bytes != 0 && n > SIZE_MAX / bytes)
        pgas_fail(call, "nelems times %zu PEs overflows", n);
    pgas_heap_check_local(c.t, call, "dest", dest, bytes * n);
    coll_sync(&c, call);
    for (int r = 0; r < c.team->size; r++)
        pgas_be_get(c.t->world, pgas_team_world_pe(c.team, r), (char *)dest + (size_t)r * bytes,
                    peer_copy(&c, call, "source", source, bytes, r), bytes);
    coll_sync(&c, call);
    return 0;
}

int pgas_coll_alltoall(const char *call, int team_id, void *dest, const void *source,
                       size_t bytes)
{
    coll_ctx c = coll_begin(call, team_id);
    size_t n = (size_t)c.team->size;
    if (bytes != 0 && n > SIZE_MAX / bytes)
        pgas_fail(call, "nelems times %zu PEs overflows", n);
    pgas_heap_check_local(c.t, call, "dest", dest, bytes * n);
    coll_sync(&c, call);
    for (int r = 0; r < c.team->size; r++)
        pgas_be_get(c.t->world, pgas_team_world_pe(c.team, r), (char *)dest + (size_t)r * bytes,
                    peer_copy(&c, call, "source", source, bytes * n, r) + (size_t)c.rank * bytes,
                    bytes);
    coll_sync(&c, call);
    return 0;
}

/* ---- barriers ------------------------------------------------------------------------ */

void nvshmem_barrier_all(void)
{
    coll_ctx c = coll_begin("nvshmem_barrier_all", NVSHMEM_TEAM_WORLD);
    PGAS_NOTE_CALLER(c.t);
    coll_sync(&c, "nvshmem_barrier_all");
}

void nvshmem_sync_all(void)
{
    const char *call = "nvshmem_sync_all";
    pgas_thread *t = pgas_require(call);
    PGAS_NOTE_CALLER(t);
    pgas_barrier_wait(t, &t->world->teams[0].barrier, t->world->n_pes, call);
}

int nvshmem_barrier(nvshmem_team_t team)
{
    coll_ctx c = coll_begin("nvshmem_barrier", team);
    PGAS_NOTE_CALLER(c.t);
    coll_sync(&c, "nvshmem_barrier");
    return 0;
}

int nvshmem_team_sync(nvshmem_team_t team_id)
{
    const char *call = "nvshmem_team_sync";
    pgas_thread *t = pgas_require(call);
    PGAS_NOTE_CALLER(t);
    pgas_team *team = pgas_team_get(t, call, team_id);
    if (pgas_team_my_rank(team, t->pe) < 0)
        pgas_fail(call, "this PE is not a member of team %d", team_id);
    pgas_barrier_wait(t, &team->barrier, team->size, call);
    return 0;
}

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

static size_t elems_bytes(const char *call, size_t nelems, size_t size)
{
    if (nelems > SIZE_MAX / size)
        pgas_fail(call, "nelems %zu overflows", nelems);
    return nelems * size;
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
#undef DEFINE_COLL

/* Element-wise combiners, one per (type, op). Integer sum and prod wrap as unsigned
 * arithmetic does, so signed overflow is not undefined behaviour here. */
#define WRAP_ADD(T, a, b) ((T)((uintmax_t)(a) + (uintmax_t)(b)))
#define WRAP_MUL(T, a, b) ((T)((uintmax_t)(a) * (uintmax_t)(b)))
#define IS_FLOAT(T) ((T)0.5 != 0)

#define DEFINE_COMBINER(TYPE, NAME, OP, EXPR)                                                 \
    static void combine_##NAME##_##OP(void *acc_, const void *in_, size_t n)                  \
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
                                combine_##NAME##_##OP);                                       \
    }                                                                                         \
    int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nreduce)             \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_" #OP "_reducescatter";                         \
        NOTE_COLL_CALLER(call);                                                               \
        return pgas_coll_reducescatter(call, team, dest, source, nreduce, sizeof(TYPE),       \
                                       combine_##NAME##_##OP);                                \
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
#undef DEFINE_REDUCE_ARITH
