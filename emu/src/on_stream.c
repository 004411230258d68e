/*
 * on_stream.c: NVSHMEM's stream calls (nvshmemx_*_on_stream). Each queues one operation on
 * the stream; the stream thread performs it with the host API when it reaches it (stream.c's
 * run_op), so it is ordered after the stream's earlier work and before its later work.
 * A put of a value (_p_on_stream) captures the value now, as a kernel argument would be.
 * A team collective (_reduce_on_stream, _broadcast_on_stream, ...) is queued with a
 * function that makes it, so the queue carries no per-type case.
 * On a capturing stream the operation is recorded instead (capture.c), and each replay of the
 * graph queues a copy of it (graph.c; a _p value is copied with it).
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static void queue_rma_owned(emu_op_kind kind, void *dest, const void *source, size_t bytes,
                            int pe, bool nbi, uint64_t *sig, uint64_t signal, int sig_op,
                            cudaStream_t stream, const char *call, void *owned)
{
    emu_pe *p = emu_stream_device(call);
    emu_op *op = emu_op_new(kind);
    op->owned = owned;
    op->owned_bytes = owned != NULL ? bytes : 0; /* the value of a _p call: the source */
    op->dest = dest;
    op->source = source;
    op->bytes = bytes;
    op->pe = pe;
    op->nbi = nbi;
    op->sig_addr = sig;
    op->signal = signal;
    op->sig_op = sig_op;
    emu_stream_enqueue(emu_stream_resolve(p, stream), op);
}

static void queue_rma(emu_op_kind kind, void *dest, const void *source, size_t bytes, int pe,
                      bool nbi, uint64_t *sig, uint64_t signal, int sig_op, cudaStream_t stream,
                      const char *call)
{
    queue_rma_owned(kind, dest, source, bytes, pe, nbi, sig, signal, sig_op, stream, call, NULL);
}

void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe,
                               cudaStream_t stream)
{
    queue_rma(EMU_OP_PUT, dest, source, bytes, pe, false, NULL, 0, 0, stream,
              "nvshmemx_putmem_on_stream");
}

void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                   cudaStream_t stream)
{
    queue_rma(EMU_OP_PUT, dest, source, bytes, pe, true, NULL, 0, 0, stream,
              "nvshmemx_putmem_nbi_on_stream");
}

void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe,
                               cudaStream_t stream)
{
    queue_rma(EMU_OP_GET, dest, source, bytes, pe, false, NULL, 0, 0, stream,
              "nvshmemx_getmem_on_stream");
}

void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                   cudaStream_t stream)
{
    queue_rma(EMU_OP_GET, dest, source, bytes, pe, true, NULL, 0, 0, stream,
              "nvshmemx_getmem_nbi_on_stream");
}

void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                      cudaStream_t stream)
{
    queue_rma(EMU_OP_PUT, dest, source, bytes, pe, false, sig_addr, signal, sig_op, stream,
              "nvshmemx_putmem_signal_on_stream");
}

void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,
                                          int pe, cudaStream_t stream)
{
    queue_rma(EMU_OP_PUT, dest, source, bytes, pe, true, sig_addr, signal, sig_op, stream,
              "nvshmemx_putmem_signal_nbi_on_stream");
}

void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                  cudaStream_t stream)
{
    queue_rma(EMU_OP_SIGNAL, NULL, NULL, 0, pe, false, sig_addr, signal, sig_op, stream,
              "nvshmemx_signal_op_on_stream");
}

void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                          cudaStream_t stream)
{
    emu_pe *p = emu_stream_device("nvshmemx_signal_wait_until_on_stream");
    emu_op *op = emu_op_new(EMU_OP_SIGNAL_WAIT);
    op->sig_addr = sig_addr;
    op->cmp = cmp;
    op->signal = cmp_value;
    emu_stream_enqueue(emu_stream_resolve(p, stream), op);
}

static void queue_simple(emu_op_kind kind, int team, cudaStream_t stream, const char *call)
{
    emu_pe *p = emu_stream_device(call);
    emu_op *op = emu_op_new(kind);
    op->team = team;
    emu_stream_enqueue(emu_stream_resolve(p, stream), op);
}

void nvshmemx_quiet_on_stream(cudaStream_t stream)
{
    queue_simple(EMU_OP_QUIET, 0, stream, "nvshmemx_quiet_on_stream");
}

void nvshmemx_barrier_all_on_stream(cudaStream_t stream)
{
    queue_simple(EMU_OP_BARRIER_ALL, 0, stream, "nvshmemx_barrier_all_on_stream");
}

void nvshmemx_sync_all_on_stream(cudaStream_t stream)
{
    queue_simple(EMU_OP_SYNC_ALL, 0, stream, "nvshmemx_sync_all_on_stream");
}

int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream)
{
    queue_simple(EMU_OP_BARRIER_TEAM, team, stream, "nvshmemx_barrier_on_stream");
    return 0;
}

#define EMU_DEFINE_RMA_ON_STREAM(TYPE, NAME)                                                  \
    void nvshmemx_##NAME##_put_on_stream(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         int pe, cudaStream_t stream)                         \
    {                                                                                         \
        queue_rma(EMU_OP_PUT, dest, source, nelems * sizeof(TYPE), pe, false, NULL, 0, 0,     \
                  stream, "nvshmemx_" #NAME "_put_on_stream");                                \
    }                                                                                         \
    void nvshmemx_##NAME##_get_on_stream(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         int pe, cudaStream_t stream)                         \
    {                                                                                         \
        queue_rma(EMU_OP_GET, dest, source, nelems * sizeof(TYPE), pe, false, NULL, 0, 0,     \
                  stream, "nvshmemx_" #NAME "_get_on_stream");                                \
    }                                                                                         \
    void nvshmemx_##NAME##_p_on_stream(TYPE *dest, TYPE value, int pe, cudaStream_t stream)   \
    {                                                                                         \
        /* the value is captured now, as a kernel argument would be */                        \
        TYPE *copy = malloc(sizeof(TYPE));                                                    \
        if (copy == NULL) {                                                                   \
            fprintf(stderr, "shmemu: out of memory in nvshmemx_" #NAME "_p_on_stream\n");     \
            exit(2);                                                                          \
        }                                                                                     \
        *copy = value;                                                                        \
        queue_rma_owned(EMU_OP_PUT, dest, copy, sizeof(TYPE), pe, false, NULL, 0, 0, stream,  \
                        "nvshmemx_" #NAME "_p_on_stream", copy);                              \
    }
SHMEMU_RMA_TYPES(EMU_DEFINE_RMA_ON_STREAM)
#undef EMU_DEFINE_RMA_ON_STREAM

/* ---- team collectives on a stream ----------------------------------------------------------
 * One EMU_OP_COLL carries the team, dest, source, count and root; its run function (one per
 * collective and type, generated below) makes nvshmem.h's collective on the stream's thread.
 * The stream thread is attached to the PE, so the collective is this PE's call, in stream
 * order; its barriers wait for the other PEs' calls (from their streams or threads). */

static int queue_coll(void (*run)(const emu_op *op), nvshmem_team_t team, void *dest,
                      const void *source, size_t nelems, int root, cudaStream_t stream,
                      const char *call)
{
    emu_pe *p = emu_stream_device(call);
    emu_op *op = emu_op_new(EMU_OP_COLL);
    op->run = run;
    op->team = team;
    op->dest = dest;
    op->source = source;
    op->nelems = nelems;
    op->pe = root;
    emu_stream_enqueue(emu_stream_resolve(p, stream), op);
    return 0;
}

static void run_broadcastmem(const emu_op *op)
{
    (void)nvshmem_broadcastmem(op->team, op->dest, op->source, op->nelems, op->pe);
}

static void run_fcollectmem(const emu_op *op)
{
    (void)nvshmem_fcollectmem(op->team, op->dest, op->source, op->nelems);
}

static void run_alltoallmem(const emu_op *op)
{
    (void)nvshmem_alltoallmem(op->team, op->dest, op->source, op->nelems);
}

int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source,
                                    size_t nelems, int PE_root, cudaStream_t stream)
{
    return queue_coll(run_broadcastmem, team, dest, source, nelems, PE_root, stream,
                      "nvshmemx_broadcastmem_on_stream");
}

int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source,
                                   size_t nelems, cudaStream_t stream)
{
    return queue_coll(run_fcollectmem, team, dest, source, nelems, 0, stream,
                      "nvshmemx_fcollectmem_on_stream");
}

int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source,
                                   size_t nelems, cudaStream_t stream)
{
    return queue_coll(run_alltoallmem, team, dest, source, nelems, 0, stream,
                      "nvshmemx_alltoallmem_on_stream");
}

#define EMU_DEFINE_COLL_ON_STREAM(TYPE, NAME)                                                 \
    static void run_##NAME##_broadcast(const emu_op *op)                                      \
    {                                                                                         \
        (void)nvshmem_##NAME##_broadcast(op->team, op->dest, op->source, op->nelems, op->pe); \
    }                                                                                         \
    static void run_##NAME##_fcollect(const emu_op *op)                                       \
    {                                                                                         \
        (void)nvshmem_##NAME##_fcollect(op->team, op->dest, op->source, op->nelems);          \
    }                                                                                         \
    static void run_##NAME##_alltoall(const emu_op *op)                                       \
    {                                                                                         \
        (void)nvshmem_##NAME##_alltoall(op->team, op->dest, op->source, op->nelems);          \
    }                                                                                         \
    int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nelems, int PE_root, \
                                              cudaStream_t stream)                            \
    {                                                                                         \
        return queue_coll(run_##NAME##_broadcast, team, dest, source, nelems, PE_root,        \
                          stream, "nvshmemx_" #NAME "_broadcast_on_stream");                  \
    }                                                                                         \
    int nvshmemx_##NAME##_fcollect_on_stream(nvshmem_team_t team, TYPE *dest,                 \
                                             const TYPE *source, size_t nelems,               \
                                             cudaStream_t stream)                             \
    {                                                                                         \
        return queue_coll(run_##NAME##_fcollect, team, dest, source, nelems, 0, stream,       \
                          "nvshmemx_" #NAME "_fcollect_on_stream");                           \
    }                                                                                         \
    int nvshmemx_##NAME##_alltoall_on_stream(nvshmem_team_t team, TYPE *dest,                 \
                                             const TYPE *source, size_t nelems,               \
                                             cudaStream_t stream)                             \
    {                                                                                         \
        return queue_coll(run_##NAME##_alltoall, team, dest, source, nelems, 0, stream,       \
                          "nvshmemx_" #NAME "_alltoall_on_stream");                           \
    }
SHMEMU_RMA_TYPES(EMU_DEFINE_COLL_ON_STREAM)
#undef EMU_DEFINE_COLL_ON_STREAM

#define EMU_DEFINE_REDUCE_ON_STREAM_OP(TYPE, NAME, OP)                                        \
    static void run_##NAME##_##OP##_reduce(const emu_op *op)                                  \
    {                                                                                         \
        (void)nvshmem_##NAME##_##OP##_reduce(op->team, op->dest, op->source, op->nelems);     \
    }                                                                                         \
    int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, TYPE *dest,            \
                                                  const TYPE *source, size_t nreduce,         \
                                                  cudaStream_t stream)                        \
    {                                                                                         \
        return queue_coll(run_##NAME##_##OP##_reduce, team, dest, source, nreduce, 0, stream, \
                          "nvshmemx_" #NAME "_" #OP "_reduce_on_stream");                     \
    }
#define EMU_DEFINE_REDUCE_ON_STREAM_BITWISE(TYPE, NAME)                                       \
    SHMEMU_REDUCE_BITWISE_OPS(EMU_DEFINE_REDUCE_ON_STREAM_OP, TYPE, NAME)
#define EMU_DEFINE_REDUCE_ON_STREAM_ARITH(TYPE, NAME)                                         \
    SHMEMU_REDUCE_ARITH_OPS(EMU_DEFINE_REDUCE_ON_STREAM_OP, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(EMU_DEFINE_REDUCE_ON_STREAM_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(EMU_DEFINE_REDUCE_ON_STREAM_ARITH)
#undef EMU_DEFINE_REDUCE_ON_STREAM_ARITH
#undef EMU_DEFINE_REDUCE_ON_STREAM_BITWISE
#undef EMU_DEFINE_REDUCE_ON_STREAM_OP
