/*
 * group.c: NVSHMEM's block and warp calls (nvshmemx_*_block, nvshmemx_*_warp).
 *
 * Every thread of the group calls with the same arguments. The group synchronizes
 * (__syncthreads or __syncwarp), its first thread issues the one operation with the pgas
 * runtime, and the group synchronizes again. So the data every thread wrote before the call
 * is in the sources when the put starts, a put-with-signal delivers the data before the
 * signal, and no thread reuses a source or reads a get's destination before the operation
 * is done. On a GPU the threads share the copy; the result is the same.
 */
#include "internal.h"

typedef enum { GROUP_BLOCK, GROUP_WARP } group_kind;

static emu_thread *group_sync(group_kind g, const char *call)
{
    emu_thread *t = emu_thread_require(call);
    /* the call's name stands for the source position: every thread passes the same one */
    if (g == GROUP_BLOCK)
        emu_syncthreads(call, 0);
    else
        emu_syncwarp(emu_warp_lanes(t), call, 0);
    return t;
}

static bool group_leader(const emu_thread *t, group_kind g)
{
    return g == GROUP_BLOCK ? t->tid == 0 : (t->tid & 31) == 0;
}

/* The entry and exit of a group call for the other files of the family (group_coll.c). */
bool emu_group_begin(bool warp, const char *call)
{
    group_kind g = warp ? GROUP_WARP : GROUP_BLOCK;
    return group_leader(group_sync(g, call), g);
}

void emu_group_end(bool warp, const char *call)
{
    (void)group_sync(warp ? GROUP_WARP : GROUP_BLOCK, call);
}

#define GROUP_CALL(g, name, op)                                                               \
    do {                                                                                      \
        emu_thread *t_ = group_sync((g), (name));                                             \
        if (group_leader(t_, (g)))                                                            \
            EMU_GROUP_LEADER_CALL(op);                                                        \
        group_sync((g), (name));                                                              \
    } while (0)

#define EMU_DEFINE_GROUP(G, GK)                                                               \
    void nvshmemx_putmem_##G(void *dest, const void *source, size_t bytes, int pe)            \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_putmem_" #G, nvshmem_putmem(dest, source, bytes, pe));       \
    }                                                                                         \
    void nvshmemx_putmem_nbi_##G(void *dest, const void *source, size_t bytes, int pe)        \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_putmem_nbi_" #G, nvshmem_putmem_nbi(dest, source, bytes, pe)); \
    }                                                                                         \
    void nvshmemx_getmem_##G(void *dest, const void *source, size_t bytes, int pe)            \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_getmem_" #G, nvshmem_getmem(dest, source, bytes, pe));       \
    }                                                                                         \
    void nvshmemx_getmem_nbi_##G(void *dest, const void *source, size_t bytes, int pe)        \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_getmem_nbi_" #G, nvshmem_getmem_nbi(dest, source, bytes, pe)); \
    }                                                                                         \
    void nvshmemx_putmem_signal_##G(void *dest, const void *source, size_t bytes,             \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)  \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_putmem_signal_" #G,                                          \
                   nvshmem_putmem_signal(dest, source, bytes, sig_addr, signal, sig_op, pe)); \
    }                                                                                         \
    void nvshmemx_putmem_signal_nbi_##G(void *dest, const void *source, size_t bytes,         \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                        int pe)                                               \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_putmem_signal_nbi_" #G,                                      \
                   nvshmem_putmem_signal_nbi(dest, source, bytes, sig_addr, signal, sig_op,   \
                                             pe));                                            \
    }                                                                                         \
    void nvshmemx_barrier_all_##G(void)                                                       \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_barrier_all_" #G, nvshmem_barrier_all());                    \
    }                                                                                         \
    void nvshmemx_sync_all_##G(void)                                                          \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_sync_all_" #G, nvshmem_sync_all());                          \
    }
EMU_DEFINE_GROUP(block, GROUP_BLOCK)
EMU_DEFINE_GROUP(warp, GROUP_WARP)
#undef EMU_DEFINE_GROUP

#define EMU_DEFINE_TYPED_GROUP_ONE(TYPE, NAME, G, GK)                                         \
    void nvshmemx_##NAME##_put_##G(TYPE *dest, const TYPE *source, size_t nelems, int pe)     \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_" #NAME "_put_" #G,                                          \
                   nvshmem_##NAME##_put(dest, source, nelems, pe));                           \
    }                                                                                         \
    void nvshmemx_##NAME##_put_nbi_##G(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_" #NAME "_put_nbi_" #G,                                      \
                   nvshmem_##NAME##_put_nbi(dest, source, nelems, pe));                       \
    }                                                                                         \
    void nvshmemx_##NAME##_get_##G(TYPE *dest, const TYPE *source, size_t nelems, int pe)     \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_" #NAME "_get_" #G,                                          \
                   nvshmem_##NAME##_get(dest, source, nelems, pe));                           \
    }                                                                                         \
    void nvshmemx_##NAME##_put_signal_##G(TYPE *dest, const TYPE *source, size_t nelems,      \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,    \
                                          int pe)                                             \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_" #NAME "_put_signal_" #G,                                   \
                   nvshmem_##NAME##_put_signal(dest, source, nelems, sig_addr, signal,        \
                                               sig_op, pe));                                  \
    }                                                                                         \
    void nvshmemx_##NAME##_put_signal_nbi_##G(TYPE *dest, const TYPE *source, size_t nelems,  \
                                              uint64_t *sig_addr, uint64_t signal,            \
                                              int sig_op, int pe)                             \
    {                                                                                         \
        GROUP_CALL(GK, "nvshmemx_" #NAME "_put_signal_nbi_" #G,                               \
                   nvshmem_##NAME##_put_signal_nbi(dest, source, nelems, sig_addr, signal,    \
                                                   sig_op, pe));                              \
    }
#define EMU_DEFINE_TYPED_GROUP(TYPE, NAME)                                                    \
    EMU_DEFINE_TYPED_GROUP_ONE(TYPE, NAME, block, GROUP_BLOCK)                                \
    EMU_DEFINE_TYPED_GROUP_ONE(TYPE, NAME, warp, GROUP_WARP)
SHMEMU_RMA_TYPES(EMU_DEFINE_TYPED_GROUP)
#undef EMU_DEFINE_TYPED_GROUP
#undef EMU_DEFINE_TYPED_GROUP_ONE
