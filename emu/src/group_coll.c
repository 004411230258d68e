/*
 * group_coll.c: NVSHMEM's team collectives in their block and warp forms
 * (nvshmemx_TYPENAME_OP_reduce_block, _broadcast_block, _fcollect_block, _alltoall_block,
 * the *mem forms, and each one's _warp twin).
 *
 * Every thread of the group calls with the same arguments, and the group makes one call of
 * the collective: the group synchronizes (so every thread's writes to the source are in it),
 * its first thread makes the host collective of pgas (collective.c: barrier, read the peers'
 * sources, barrier), and the group synchronizes again (so no thread reads dest, or rewrites
 * the source, before the collective is done). A GPU shares the copy among the threads; the
 * result is the same. The collectives of pgas abort on a wrong argument rather than
 * return an error, so every thread returns the one thread's 0.
 */
#include "internal.h"

#define EMU_DEFINE_GROUP_MEM(G, W)                                                            \
    int nvshmemx_broadcastmem_##G(nvshmem_team_t team, void *dest, const void *source,        \
                                  size_t nelems, int PE_root)                                 \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_broadcastmem_" #G,                                         \
                       nvshmem_broadcastmem(team, dest, source, nelems, PE_root));            \
    }                                                                                         \
    int nvshmemx_fcollectmem_##G(nvshmem_team_t team, void *dest, const void *source,         \
                                 size_t nelems)                                               \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_fcollectmem_" #G,                                          \
                       nvshmem_fcollectmem(team, dest, source, nelems));                      \
    }                                                                                         \
    int nvshmemx_alltoallmem_##G(nvshmem_team_t team, void *dest, const void *source,         \
                                 size_t nelems)                                               \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_alltoallmem_" #G,                                          \
                       nvshmem_alltoallmem(team, dest, source, nelems));                      \
    }
EMU_DEFINE_GROUP_MEM(block, false)
EMU_DEFINE_GROUP_MEM(warp, true)
#undef EMU_DEFINE_GROUP_MEM

#define EMU_DEFINE_GROUP_COLL_ONE(TYPE, NAME, G, W)                                           \
    int nvshmemx_##NAME##_broadcast_##G(nvshmem_team_t team, TYPE *dest, const TYPE *source,  \
                                        size_t nelems, int PE_root)                           \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_" #NAME "_broadcast_" #G,                                  \
                       nvshmem_##NAME##_broadcast(team, dest, source, nelems, PE_root));      \
    }                                                                                         \
    int nvshmemx_##NAME##_fcollect_##G(nvshmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems)                                         \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_" #NAME "_fcollect_" #G,                                   \
                       nvshmem_##NAME##_fcollect(team, dest, source, nelems));                \
    }                                                                                         \
    int nvshmemx_##NAME##_alltoall_##G(nvshmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems)                                         \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_" #NAME "_alltoall_" #G,                                   \
                       nvshmem_##NAME##_alltoall(team, dest, source, nelems));                \
    }
#define EMU_DEFINE_GROUP_COLL(TYPE, NAME)                                                     \
    EMU_DEFINE_GROUP_COLL_ONE(TYPE, NAME, block, false)                                       \
    EMU_DEFINE_GROUP_COLL_ONE(TYPE, NAME, warp, true)
SHMEMU_RMA_TYPES(EMU_DEFINE_GROUP_COLL)
#undef EMU_DEFINE_GROUP_COLL
#undef EMU_DEFINE_GROUP_COLL_ONE

#define EMU_DEFINE_GROUP_REDUCE_OP(TYPE, NAME, OP, G, W)                                      \
    int nvshmemx_##NAME##_##OP##_reduce_##G(nvshmem_team_t team, TYPE *dest,                  \
                                            const TYPE *source, size_t nreduce)               \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_" #NAME "_" #OP "_reduce_" #G,                             \
                       nvshmem_##NAME##_##OP##_reduce(team, dest, source, nreduce));          \
    }
#define EMU_DEFINE_GROUP_REDUCE_BOTH(TYPE, NAME, OP)                                          \
    EMU_DEFINE_GROUP_REDUCE_OP(TYPE, NAME, OP, block, false)                                  \
    EMU_DEFINE_GROUP_REDUCE_OP(TYPE, NAME, OP, warp, true)
#define EMU_DEFINE_GROUP_REDUCE_BITWISE(TYPE, NAME)                                           \
    SHMEMU_REDUCE_BITWISE_OPS(EMU_DEFINE_GROUP_REDUCE_BOTH, TYPE, NAME)
#define EMU_DEFINE_GROUP_REDUCE_ARITH(TYPE, NAME)                                             \
    SHMEMU_REDUCE_ARITH_OPS(EMU_DEFINE_GROUP_REDUCE_BOTH, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(EMU_DEFINE_GROUP_REDUCE_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(EMU_DEFINE_GROUP_REDUCE_ARITH)
#undef EMU_DEFINE_GROUP_REDUCE_ARITH
#undef EMU_DEFINE_GROUP_REDUCE_BITWISE
#undef EMU_DEFINE_GROUP_REDUCE_BOTH
#undef EMU_DEFINE_GROUP_REDUCE_OP
