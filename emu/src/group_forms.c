/*
 * group_forms.c: the rest of NVSHMEM 3.x's block and warp RMA and synchronization calls,
 * beside group.c's: typed get_nbi, strided iput/iget, the sized (8..128 bits) put, put_nbi,
 * get, get_nbi, put_signal(_nbi), iput and iget, the team barrier and sync
 * (nvshmemx_barrier_block(team), nvshmemx_team_sync_block(team)) and the reduce-scatters
 * (nvshmemx_TYPENAME_OP_reducescatter_block), each with its _warp twin.
 *
 * As in group.c: every thread of the group calls with the same arguments; the group
 * synchronizes, its first thread makes the one pgas call, and the group synchronizes again.
 */
#include "internal.h"

#define EMU_DEFINE_GROUP_SYNC(G, W)                                                           \
    int nvshmemx_barrier_##G(nvshmem_team_t team)                                             \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_barrier_" #G, nvshmem_barrier(team));                      \
    }                                                                                         \
    int nvshmemx_team_sync_##G(nvshmem_team_t team)                                           \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_team_sync_" #G, nvshmem_team_sync(team));                  \
    }
EMU_DEFINE_GROUP_SYNC(block, false)
EMU_DEFINE_GROUP_SYNC(warp, true)
#undef EMU_DEFINE_GROUP_SYNC

#define EMU_DEFINE_TYPED_FORMS_ONE(TYPE, NAME, G, W)                                          \
    void nvshmemx_##NAME##_get_nbi_##G(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_" #NAME "_get_nbi_" #G,                                     \
                 nvshmem_##NAME##_get_nbi(dest, source, nelems, pe));                         \
    }                                                                                         \
    void nvshmemx_##NAME##_iput_##G(TYPE *dest, const TYPE *source, ptrdiff_t dst,            \
                                    ptrdiff_t sst, size_t nelems, int pe)                     \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_" #NAME "_iput_" #G,                                        \
                 nvshmem_##NAME##_iput(dest, source, dst, sst, nelems, pe));                  \
    }                                                                                         \
    void nvshmemx_##NAME##_iget_##G(TYPE *dest, const TYPE *source, ptrdiff_t dst,            \
                                    ptrdiff_t sst, size_t nelems, int pe)                     \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_" #NAME "_iget_" #G,                                        \
                 nvshmem_##NAME##_iget(dest, source, dst, sst, nelems, pe));                  \
    }
#define EMU_DEFINE_TYPED_FORMS(TYPE, NAME)                                                    \
    EMU_DEFINE_TYPED_FORMS_ONE(TYPE, NAME, block, false)                                      \
    EMU_DEFINE_TYPED_FORMS_ONE(TYPE, NAME, warp, true)
SHMEMU_RMA_TYPES(EMU_DEFINE_TYPED_FORMS)
#undef EMU_DEFINE_TYPED_FORMS
#undef EMU_DEFINE_TYPED_FORMS_ONE

#define EMU_DEFINE_SIZED_FORMS_ONE(BITS, G, W)                                                \
    void nvshmemx_put##BITS##_##G(void *dest, const void *source, size_t nelems, int pe)      \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_put" #BITS "_" #G, nvshmem_put##BITS(dest, source, nelems, pe)); \
    }                                                                                         \
    void nvshmemx_put##BITS##_nbi_##G(void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_put" #BITS "_nbi_" #G,                                      \
                 nvshmem_put##BITS##_nbi(dest, source, nelems, pe));                          \
    }                                                                                         \
    void nvshmemx_get##BITS##_##G(void *dest, const void *source, size_t nelems, int pe)      \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_get" #BITS "_" #G, nvshmem_get##BITS(dest, source, nelems, pe)); \
    }                                                                                         \
    void nvshmemx_get##BITS##_nbi_##G(void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_get" #BITS "_nbi_" #G,                                      \
                 nvshmem_get##BITS##_nbi(dest, source, nelems, pe));                          \
    }                                                                                         \
    void nvshmemx_put##BITS##_signal_##G(void *dest, const void *source, size_t nelems,       \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                         int pe)                                              \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_put" #BITS "_signal_" #G,                                   \
                 nvshmem_put##BITS##_signal(dest, source, nelems, sig_addr, signal, sig_op,   \
                                            pe));                                             \
    }                                                                                         \
    void nvshmemx_put##BITS##_signal_nbi_##G(void *dest, const void *source, size_t nelems,   \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                             int pe)                                          \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_put" #BITS "_signal_nbi_" #G,                               \
                 nvshmem_put##BITS##_signal_nbi(dest, source, nelems, sig_addr, signal,       \
                                                sig_op, pe));                                 \
    }                                                                                         \
    void nvshmemx_iput##BITS##_##G(void *dest, const void *source, ptrdiff_t dst,             \
                                   ptrdiff_t sst, size_t nelems, int pe)                      \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_iput" #BITS "_" #G,                                         \
                 nvshmem_iput##BITS(dest, source, dst, sst, nelems, pe));                     \
    }                                                                                         \
    void nvshmemx_iget##BITS##_##G(void *dest, const void *source, ptrdiff_t dst,             \
                                   ptrdiff_t sst, size_t nelems, int pe)                      \
    {                                                                                         \
        EMU_GROUP_DO(W, "nvshmemx_iget" #BITS "_" #G,                                         \
                 nvshmem_iget##BITS(dest, source, dst, sst, nelems, pe));                     \
    }
#define EMU_DEFINE_SIZED_FORMS(BITS, TYPE)                                                    \
    EMU_DEFINE_SIZED_FORMS_ONE(BITS, block, false)                                            \
    EMU_DEFINE_SIZED_FORMS_ONE(BITS, warp, true)
SHMEMU_SIZED_TYPES(EMU_DEFINE_SIZED_FORMS)
#undef EMU_DEFINE_SIZED_FORMS
#undef EMU_DEFINE_SIZED_FORMS_ONE

#define EMU_DEFINE_GROUP_REDUCESCATTER_ONE(TYPE, NAME, OP, G, W)                              \
    int nvshmemx_##NAME##_##OP##_reducescatter_##G(nvshmem_team_t team, TYPE *dest,           \
                                                   const TYPE *source, size_t nreduce)        \
    {                                                                                         \
        EMU_GROUP_RET(W, "nvshmemx_" #NAME "_" #OP "_reducescatter_" #G,                      \
                  nvshmem_##NAME##_##OP##_reducescatter(team, dest, source, nreduce));        \
    }
#define EMU_DEFINE_GROUP_REDUCESCATTER_OP(TYPE, NAME, OP)                                     \
    EMU_DEFINE_GROUP_REDUCESCATTER_ONE(TYPE, NAME, OP, block, false)                          \
    EMU_DEFINE_GROUP_REDUCESCATTER_ONE(TYPE, NAME, OP, warp, true)
#define EMU_DEFINE_GROUP_REDUCESCATTER_BITWISE(TYPE, NAME)                                    \
    SHMEMU_REDUCE_BITWISE_OPS(EMU_DEFINE_GROUP_REDUCESCATTER_OP, TYPE, NAME)
#define EMU_DEFINE_GROUP_REDUCESCATTER_ARITH(TYPE, NAME)                                      \
    SHMEMU_REDUCE_ARITH_OPS(EMU_DEFINE_GROUP_REDUCESCATTER_OP, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(EMU_DEFINE_GROUP_REDUCESCATTER_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(EMU_DEFINE_GROUP_REDUCESCATTER_ARITH)
#undef EMU_DEFINE_GROUP_REDUCESCATTER_ARITH
#undef EMU_DEFINE_GROUP_REDUCESCATTER_BITWISE
#undef EMU_DEFINE_GROUP_REDUCESCATTER_OP
#undef EMU_DEFINE_GROUP_REDUCESCATTER_ONE
