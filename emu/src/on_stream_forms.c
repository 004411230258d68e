/*
 * on_stream_forms.c: the rest of NVSHMEM 3.x's stream calls, beside on_stream.c's core: the
 * typed and sized (8..128 bits) put, put_nbi, get, get_nbi, put_signal(_nbi), iput and iget
 * on a stream, g on a stream, the typed wait_until(_all, _all_vector) on a stream,
 * nvshmemx_team_sync_on_stream and the reduce-scatters on a stream.
 *
 * Contiguous transfers are on_stream.c's putmem/getmem operations of nelems * size bytes. A
 * call with more arguments than an emu_op has fields (strided transfers, waits) is queued as
 * one EMU_OP_COLL whose run function makes nvshmem.h's call on the stream's thread, with its
 * arguments in a block the operation owns (freed once it has run). Everything an argument
 * points to (sources, the status and cmp_values arrays of a wait) is read when the stream
 * reaches the operation, as on a GPU.
 *
 * g on a stream returns a value, so it waits for the stream (as NVSHMEM does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *owned_copy(const void *args, size_t bytes, const char *call)
{
    void *copy = malloc(bytes);
    if (copy == NULL) {
        fprintf(stderr, "shmemu: out of memory in %s\n", call);
        exit(2);
    }
    memcpy(copy, args, bytes);
    return copy;
}

/* Queues run(op) on the stream, with a copy of args in op->owned. */
static void queue_call(void (*run)(const emu_op *op), const void *args, size_t bytes,
                       cudaStream_t stream, const char *call)
{
    emu_pe *p = emu_stream_device(call);
    emu_op *op = emu_op_new(EMU_OP_COLL);
    op->run = run;
    op->owned = owned_copy(args, bytes, call);
    op->owned_bytes = bytes; /* a graph capture copies the arguments for each replay */
    (void)emu_stream_enqueue(emu_stream_resolve(p, stream), op);
}

typedef struct {
    void *dest;
    const void *source;
    ptrdiff_t dst, sst;
    size_t nelems;
    int pe;
} strided_args;

static void queue_strided(void (*run)(const emu_op *op), void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe,
                          cudaStream_t stream, const char *call)
{
    strided_args a = {dest, source, dst, sst, nelems, pe};
    queue_call(run, &a, sizeof a, stream, call);
}

static void run_team_sync(const emu_op *op)
{
    (void)nvshmem_team_sync(*(const nvshmem_team_t *)op->owned);
}

int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream)
{
    queue_call(run_team_sync, &team, sizeof team, stream, "nvshmemx_team_sync_on_stream");
    return 0;
}

/* ---- typed RMA ------------------------------------------------------------------------- */

#define EMU_DEFINE_TYPED_ON_STREAM(TYPE, NAME)                                                \
    void nvshmemx_##NAME##_put_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,   \
                                             int pe, cudaStream_t stream)                     \
    {                                                                                         \
        nvshmemx_putmem_nbi_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream);       \
    }                                                                                         \
    void nvshmemx_##NAME##_get_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,   \
                                             int pe, cudaStream_t stream)                     \
    {                                                                                         \
        nvshmemx_getmem_nbi_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream);       \
    }                                                                                         \
    void nvshmemx_##NAME##_put_signal_on_stream(TYPE *dest, const TYPE *source,               \
                                                size_t nelems, uint64_t *sig_addr,            \
                                                uint64_t signal, int sig_op, int pe,          \
                                                cudaStream_t stream)                          \
    {                                                                                         \
        nvshmemx_putmem_signal_on_stream(dest, source, nelems * sizeof(TYPE), sig_addr,       \
                                         signal, sig_op, pe, stream);                         \
    }                                                                                         \
    void nvshmemx_##NAME##_put_signal_nbi_on_stream(TYPE *dest, const TYPE *source,           \
                                                    size_t nelems, uint64_t *sig_addr,        \
                                                    uint64_t signal, int sig_op, int pe,      \
                                                    cudaStream_t stream)                      \
    {                                                                                         \
        nvshmemx_putmem_signal_nbi_on_stream(dest, source, nelems * sizeof(TYPE), sig_addr,   \
                                             signal, sig_op, pe, stream);                     \
    }                                                                                         \
    TYPE nvshmemx_##NAME##_g_on_stream(const TYPE *source, int pe, cudaStream_t stream)       \
    {                                                                                         \
        TYPE value;                                                                           \
        nvshmemx_getmem_on_stream(&value, source, sizeof(TYPE), pe, stream);                  \
        (void)cudaStreamSynchronize(stream);                                                  \
        return value;                                                                         \
    }                                                                                         \
    static void run_##NAME##_iput(const emu_op *op)                                           \
    {                                                                                         \
        const strided_args *a = op->owned;                                                    \
        nvshmem_##NAME##_iput(a->dest, a->source, a->dst, a->sst, a->nelems, a->pe);          \
    }                                                                                         \
    static void run_##NAME##_iget(const emu_op *op)                                           \
    {                                                                                         \
        const strided_args *a = op->owned;                                                    \
        nvshmem_##NAME##_iget(a->dest, a->source, a->dst, a->sst, a->nelems, a->pe);          \
    }                                                                                         \
    void nvshmemx_##NAME##_iput_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,      \
                                          ptrdiff_t sst, size_t nelems, int pe,               \
                                          cudaStream_t stream)                                \
    {                                                                                         \
        queue_strided(run_##NAME##_iput, dest, source, dst, sst, nelems, pe, stream,          \
                      "nvshmemx_" #NAME "_iput_on_stream");                                   \
    }                                                                                         \
    void nvshmemx_##NAME##_iget_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,      \
                                          ptrdiff_t sst, size_t nelems, int pe,               \
                                          cudaStream_t stream)                                \
    {                                                                                         \
        queue_strided(run_##NAME##_iget, dest, source, dst, sst, nelems, pe, stream,          \
                      "nvshmemx_" #NAME "_iget_on_stream");                                   \
    }
SHMEMU_RMA_TYPES(EMU_DEFINE_TYPED_ON_STREAM)
#undef EMU_DEFINE_TYPED_ON_STREAM

/* ---- sized RMA (nelems elements of BITS bits) ------------------------------------------- */

#define EMU_DEFINE_SIZED_ON_STREAM(BITS, TYPE)                                                \
    void nvshmemx_put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                        cudaStream_t stream)                                  \
    {                                                                                         \
        nvshmemx_putmem_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream);           \
    }                                                                                         \
    void nvshmemx_put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems,    \
                                            int pe, cudaStream_t stream)                      \
    {                                                                                         \
        nvshmemx_putmem_nbi_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream);       \
    }                                                                                         \
    void nvshmemx_get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                        cudaStream_t stream)                                  \
    {                                                                                         \
        nvshmemx_getmem_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream);           \
    }                                                                                         \
    void nvshmemx_get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems,    \
                                            int pe, cudaStream_t stream)                      \
    {                                                                                         \
        nvshmemx_getmem_nbi_on_stream(dest, source, nelems * sizeof(TYPE), pe, stream);       \
    }                                                                                         \
    void nvshmemx_put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems, \
                                               uint64_t *sig_addr, uint64_t signal,           \
                                               int sig_op, int pe, cudaStream_t stream)       \
    {                                                                                         \
        nvshmemx_putmem_signal_on_stream(dest, source, nelems * sizeof(TYPE), sig_addr,       \
                                         signal, sig_op, pe, stream);                         \
    }                                                                                         \
    void nvshmemx_put##BITS##_signal_nbi_on_stream(void *dest, const void *source,            \
                                                   size_t nelems, uint64_t *sig_addr,         \
                                                   uint64_t signal, int sig_op, int pe,       \
                                                   cudaStream_t stream)                       \
    {                                                                                         \
        nvshmemx_putmem_signal_nbi_on_stream(dest, source, nelems * sizeof(TYPE), sig_addr,   \
                                             signal, sig_op, pe, stream);                     \
    }                                                                                         \
    static void run_iput##BITS(const emu_op *op)                                              \
    {                                                                                         \
        const strided_args *a = op->owned;                                                    \
        nvshmem_iput##BITS(a->dest, a->source, a->dst, a->sst, a->nelems, a->pe);             \
    }                                                                                         \
    static void run_iget##BITS(const emu_op *op)                                              \
    {                                                                                         \
        const strided_args *a = op->owned;                                                    \
        nvshmem_iget##BITS(a->dest, a->source, a->dst, a->sst, a->nelems, a->pe);             \
    }                                                                                         \
    void nvshmemx_iput##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst,       \
                                         ptrdiff_t sst, size_t nelems, int pe,                \
                                         cudaStream_t stream)                                 \
    {                                                                                         \
        queue_strided(run_iput##BITS, dest, source, dst, sst, nelems, pe, stream,             \
                      "nvshmemx_iput" #BITS "_on_stream");                                    \
    }                                                                                         \
    void nvshmemx_iget##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst,       \
                                         ptrdiff_t sst, size_t nelems, int pe,                \
                                         cudaStream_t stream)                                 \
    {                                                                                         \
        queue_strided(run_iget##BITS, dest, source, dst, sst, nelems, pe, stream,             \
                      "nvshmemx_iget" #BITS "_on_stream");                                    \
    }
SHMEMU_SIZED_TYPES(EMU_DEFINE_SIZED_ON_STREAM)
#undef EMU_DEFINE_SIZED_ON_STREAM

/* ---- typed waits ------------------------------------------------------------------------ */

#define EMU_DEFINE_WAIT_ON_STREAM(TYPE, NAME)                                                 \
    typedef struct {                                                                          \
        TYPE *ivars;                                                                          \
        size_t nelems;                                                                        \
        const int *status;                                                                    \
        int cmp;                                                                              \
        TYPE value;                                                                           \
        TYPE *values;                                                                         \
    } NAME##_wait_args;                                                                       \
    static void run_##NAME##_wait_until(const emu_op *op)                                     \
    {                                                                                         \
        const NAME##_wait_args *a = op->owned;                                                \
        nvshmem_##NAME##_wait_until(a->ivars, a->cmp, a->value);                              \
    }                                                                                         \
    static void run_##NAME##_wait_until_all(const emu_op *op)                                 \
    {                                                                                         \
        const NAME##_wait_args *a = op->owned;                                                \
        nvshmem_##NAME##_wait_until_all(a->ivars, a->nelems, a->status, a->cmp, a->value);    \
    }                                                                                         \
    static void run_##NAME##_wait_until_all_vector(const emu_op *op)                          \
    {                                                                                         \
        const NAME##_wait_args *a = op->owned;                                                \
        nvshmem_##NAME##_wait_until_all_vector(a->ivars, a->nelems, a->status, a->cmp,        \
                                               a->values);                                    \
    }                                                                                         \
    void nvshmemx_##NAME##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value,          \
                                                cudaStream_t stream)                          \
    {                                                                                         \
        NAME##_wait_args a = {ivar, 1, NULL, cmp, cmp_value, NULL};                           \
        queue_call(run_##NAME##_wait_until, &a, sizeof a, stream,                             \
                   "nvshmemx_" #NAME "_wait_until_on_stream");                                \
    }                                                                                         \
    void nvshmemx_##NAME##_wait_until_all_on_stream(TYPE *ivars, size_t nelems,               \
                                                    const int *status, int cmp,               \
                                                    TYPE cmp_value, cudaStream_t stream)      \
    {                                                                                         \
        NAME##_wait_args a = {ivars, nelems, status, cmp, cmp_value, NULL};                   \
        queue_call(run_##NAME##_wait_until_all, &a, sizeof a, stream,                         \
                   "nvshmemx_" #NAME "_wait_until_all_on_stream");                            \
    }                                                                                         \
    void nvshmemx_##NAME##_wait_until_all_vector_on_stream(TYPE *ivars, size_t nelems,        \
                                                           const int *status, int cmp,        \
                                                           TYPE *cmp_values,                  \
                                                           cudaStream_t stream)               \
    {                                                                                         \
        NAME##_wait_args a = {ivars, nelems, status, cmp, 0, cmp_values};                     \
        queue_call(run_##NAME##_wait_until_all_vector, &a, sizeof a, stream,                  \
                   "nvshmemx_" #NAME "_wait_until_all_vector_on_stream");                     \
    }
SHMEMU_WAIT_TYPES(EMU_DEFINE_WAIT_ON_STREAM)
#undef EMU_DEFINE_WAIT_ON_STREAM

/* ---- reduce-scatter --------------------------------------------------------------------- */

typedef struct {
    nvshmem_team_t team;
    void *dest;
    const void *source;
    size_t nreduce;
} reducescatter_args;

#define EMU_DEFINE_REDUCESCATTER_ON_STREAM_OP(TYPE, NAME, OP)                                 \
    static void run_##NAME##_##OP##_reducescatter(const emu_op *op)                           \
    {                                                                                         \
        const reducescatter_args *a = op->owned;                                              \
        (void)nvshmem_##NAME##_##OP##_reducescatter(a->team, a->dest, a->source, a->nreduce); \
    }                                                                                         \
    int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, TYPE *dest,     \
                                                         const TYPE *source, size_t nreduce,  \
                                                         cudaStream_t stream)                 \
    {                                                                                         \
        reducescatter_args a = {team, dest, source, nreduce};                                 \
        queue_call(run_##NAME##_##OP##_reducescatter, &a, sizeof a, stream,                   \
                   "nvshmemx_" #NAME "_" #OP "_reducescatter_on_stream");                     \
        return 0;                                                                             \
    }
#define EMU_DEFINE_REDUCESCATTER_ON_STREAM_BITWISE(TYPE, NAME)                                \
    SHMEMU_REDUCE_BITWISE_OPS(EMU_DEFINE_REDUCESCATTER_ON_STREAM_OP, TYPE, NAME)
#define EMU_DEFINE_REDUCESCATTER_ON_STREAM_ARITH(TYPE, NAME)                                  \
    SHMEMU_REDUCE_ARITH_OPS(EMU_DEFINE_REDUCESCATTER_ON_STREAM_OP, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(EMU_DEFINE_REDUCESCATTER_ON_STREAM_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(EMU_DEFINE_REDUCESCATTER_ON_STREAM_ARITH)
#undef EMU_DEFINE_REDUCESCATTER_ON_STREAM_ARITH
#undef EMU_DEFINE_REDUCESCATTER_ON_STREAM_BITWISE
#undef EMU_DEFINE_REDUCESCATTER_ON_STREAM_OP
