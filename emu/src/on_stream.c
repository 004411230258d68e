/*
 * on_stream.c: NVSHMEM's stream calls (nvshmemx_*_on_stream). Each queues one operation on
 * the stream; the stream thread performs it with the host API when it reaches it (stream.c's
 * run_op), so it is ordered after the stream's earlier work and before its later work.
 * A put of a value (_p_on_stream) captures the value now, as a kernel argument would be.
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
