/*
 * shmemx.c: the extensions of shmemx.h, as thin entry points into the core.
 *
 * signal_add/set are nvshmemx_signal_op under their own names. ibput/ibget are one strided
 * put (get) per block through the typed core routine, so they check ranges and order like
 * every put (get). The scans are the core's prefix reduction (collective.c), combining in
 * team PE order with the same combiners as the sum reductions.
 */
#include <time.h>

#include "shmem_internal.h"
#include "shmemx.h"

double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void shmemx_pcontrol(const int level, ...) { shmem_pcontrol(level); }

static void signal_update(const char *call, uint64_t *sig_addr, uint64_t signal, int op, int pe)
{
    pgas_thread *t = pgas_require(call);
    PGAS_NOTE_CALLER(t);
    pgas_signal_op(call, sig_addr, signal, op, pe);
}

void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmemx_signal_add", sig_addr, signal, NVSHMEM_SIGNAL_ADD, pe);
}

void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmemx_signal_set", sig_addr, signal, NVSHMEM_SIGNAL_SET, pe);
}

void shmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_signal_add", sig_addr, signal, NVSHMEM_SIGNAL_ADD, pe);
}

void shmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_signal_set", sig_addr, signal, NVSHMEM_SIGNAL_SET, pe);
}

/* Checks a blocked strided transfer's shape: both strides at least 1 element. */
static void check_blocks(const char *call, ptrdiff_t dst, ptrdiff_t sst)
{
    if (dst < 1 || sst < 1)
        pgas_fail(call, "block strides dst=%td and sst=%td must be at least 1 (in elements, "
                        "from one block's start to the next)", dst, sst);
}

#define DEFINE_IB(TYPE, NAME)                                                                 \
    void shmemx_##NAME##_ibput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t bsize, size_t nblocks, int pe)                          \
    {                                                                                         \
        check_blocks("shmemx_" #NAME "_ibput", dst, sst);                                     \
        for (size_t b = 0; b < nblocks && bsize > 0; b++)                                     \
            shmem_##NAME##_put(dest + b * (size_t)dst, source + b * (size_t)sst, bsize, pe);  \
    }                                                                                         \
    void shmemx_##NAME##_ibget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t bsize, size_t nblocks, int pe)                          \
    {                                                                                         \
        check_blocks("shmemx_" #NAME "_ibget", dst, sst);                                     \
        for (size_t b = 0; b < nblocks && bsize > 0; b++)                                     \
            shmem_##NAME##_get(dest + b * (size_t)dst, source + b * (size_t)sst, bsize, pe);  \
    }
SHMEMU_SHMEM_RMA_TYPES(DEFINE_IB)
#undef DEFINE_IB

#define DEFINE_SCAN_ONE(TYPE, NAME, KIND, INCLUSIVE)                                         \
    int shmemx_##NAME##_sum_##KIND(shmem_team_t team, TYPE *dest, const TYPE *source,         \
                                   size_t nelems)                                             \
    {                                                                                         \
        const char *call = "shmemx_" #NAME "_sum_" #KIND;                                     \
        nvshmem_team_t id = pgas_shmem_team_id(team, call);                                   \
        pgas_thread *t = pgas_require(call);                                                  \
        PGAS_NOTE_CALLER(t);                                                                  \
        return pgas_coll_scan(call, id, dest, source, nelems, sizeof(TYPE),                   \
                              pgas_combine_##NAME##_sum, INCLUSIVE);                          \
    }
#define DEFINE_SCAN(TYPE, NAME)                                                               \
    DEFINE_SCAN_ONE(TYPE, NAME, inscan, true) DEFINE_SCAN_ONE(TYPE, NAME, exscan, false)
SHMEMU_SHMEM_REDUCE_SUMPROD_TYPES(DEFINE_SCAN)
#undef DEFINE_SCAN
#undef DEFINE_SCAN_ONE
