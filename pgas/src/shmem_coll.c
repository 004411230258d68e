/*
 * shmem_coll.c: OpenSHMEM team collectives (broadcast, fcollect, alltoall, reductions), as
 * thin entry points into the nvshmem_ routines of the same names; collect and alltoalls
 * (OpenSHMEM only) call the core directly.
 *
 * The team handle is translated to the core's team id (shmem_internal.h); SHMEM_TEAM_INVALID
 * becomes NVSHMEM_TEAM_INVALID, which the core reports, and a null handle (the likely result
 * of passing NVSHMEM_TEAM_WORLD) is reported here. The core combines reductions in team PE
 * order, so every PE gets the same bits.
 */
#include "shmem_internal.h"

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_broadcastmem");
    return nvshmem_broadcastmem(id, dest, source, nelems, PE_root);
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_fcollectmem");
    return nvshmem_fcollectmem(id, dest, source, nelems);
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_alltoallmem");
    return nvshmem_alltoallmem(id, dest, source, nelems);
}

/* collect and alltoalls are OpenSHMEM's alone (NVSHMEM has neither): they call the core
 * with their own names. */

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    const char *call = "shmem_collectmem";
    nvshmem_team_t id = pgas_shmem_team_id(team, call);
    pgas_thread *t = pgas_require(call);
    PGAS_NOTE_CALLER(t);
    return pgas_coll_collect(call, id, dest, source, nelems, 1);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    const char *call = "shmem_alltoallsmem";
    nvshmem_team_t id = pgas_shmem_team_id(team, call);
    pgas_thread *t = pgas_require(call);
    PGAS_NOTE_CALLER(t);
    return pgas_coll_alltoalls(call, id, dest, source, dst, sst, nelems, 1);
}

#define SHMEMU_SHMEM_DEFINE_COLLECT(TYPE, NAME)                                               \
    int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,             \
                               size_t nelems)                                                 \
    {                                                                                         \
        const char *call = "shmem_" #NAME "_collect";                                         \
        nvshmem_team_t id = pgas_shmem_team_id(team, call);                                   \
        pgas_thread *t = pgas_require(call);                                                  \
        PGAS_NOTE_CALLER(t);                                                                  \
        return pgas_coll_collect(call, id, dest, source, nelems, sizeof(TYPE));               \
    }                                                                                         \
    int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems)                 \
    {                                                                                         \
        const char *call = "shmem_" #NAME "_alltoalls";                                       \
        nvshmem_team_t id = pgas_shmem_team_id(team, call);                                   \
        pgas_thread *t = pgas_require(call);                                                  \
        PGAS_NOTE_CALLER(t);                                                                  \
        return pgas_coll_alltoalls(call, id, dest, source, dst, sst, nelems, sizeof(TYPE));   \
    }
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEM_DEFINE_COLLECT)
#undef SHMEMU_SHMEM_DEFINE_COLLECT

#define SHMEMU_SHMEM_DEFINE_COLL(TYPE, NAME)                                                  \
    int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                 size_t nelems, int PE_root)                                  \
    {                                                                                         \
        nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_" #NAME "_broadcast");            \
        return nvshmem_##NAME##_broadcast(id, dest, source, nelems, PE_root);                 \
    }                                                                                         \
    int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,            \
                                size_t nelems)                                                \
    {                                                                                         \
        nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_" #NAME "_fcollect");             \
        return nvshmem_##NAME##_fcollect(id, dest, source, nelems);                           \
    }                                                                                         \
    int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,            \
                                size_t nelems)                                                \
    {                                                                                         \
        nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_" #NAME "_alltoall");             \
        return nvshmem_##NAME##_alltoall(id, dest, source, nelems);                           \
    }
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEM_DEFINE_COLL)
#undef SHMEMU_SHMEM_DEFINE_COLL

#define SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, OP)                                            \
    int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source,       \
                                     size_t nreduce)                                          \
    {                                                                                         \
        nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_" #NAME "_" #OP "_reduce");       \
        return nvshmem_##NAME##_##OP##_reduce(id, dest, source, nreduce);                     \
    }

#define SHMEMU_SHMEM_DEFINE_REDUCE_BITWISE(TYPE, NAME)                                        \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, and)                                               \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, or)                                                \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, xor)
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_SHMEM_DEFINE_REDUCE_BITWISE)
#undef SHMEMU_SHMEM_DEFINE_REDUCE_BITWISE

#define SHMEMU_SHMEM_DEFINE_REDUCE_MINMAX(TYPE, NAME)                                         \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, min)                                               \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, max)
SHMEMU_SHMEM_REDUCE_MINMAX_TYPES(SHMEMU_SHMEM_DEFINE_REDUCE_MINMAX)
#undef SHMEMU_SHMEM_DEFINE_REDUCE_MINMAX

#define SHMEMU_SHMEM_DEFINE_REDUCE_SUMPROD(TYPE, NAME)                                        \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, sum)                                               \
    SHMEMU_SHMEM_DEFINE_REDUCE(TYPE, NAME, prod)
SHMEMU_SHMEM_REDUCE_SUMPROD_TYPES(SHMEMU_SHMEM_DEFINE_REDUCE_SUMPROD)
#undef SHMEMU_SHMEM_DEFINE_REDUCE_SUMPROD
#undef SHMEMU_SHMEM_DEFINE_REDUCE
