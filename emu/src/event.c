/*
 * event.c: CUDA events. An event counts records requested (recorded, by the host) and
 * records completed (done, by the stream thread that reaches the record, in stream.c); a
 * wait or query compares the two, and acquires on done, which the completing stream
 * annotated "before": the work before the record happens before what follows the wait.
 */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidValue);
    struct emu_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        return emu_set_error(cudaErrorMemoryAllocation);
    e->pe = emu_stream_device("cudaEventCreate");
    e->flags = flags;
    emu_checker_ignore(&e->done, sizeof e->done);
    emu_checker_ignore(&e->recorded, sizeof e->recorded);
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    /* as in CUDA, work that still refers to the event may complete first */
    pgas_wait_value(&event->done, PGAS_KIND_U64, NVSHMEM_CMP_GE,
                    atomic_load(&event->recorded), PGAS_RELAXED, "cudaEventDestroy");
    free(event);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    emu_pe *pe = emu_stream_device("cudaEventRecord");
    emu_op *op = emu_op_new(EMU_OP_EVENT_RECORD);
    op->event = event;
    op->event_gen = atomic_fetch_add(&event->recorded, 1) + 1;
    emu_stream_enqueue(emu_stream_resolve(pe, stream), op);
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    pgas_wait_value(&event->done, PGAS_KIND_U64, NVSHMEM_CMP_GE,
                    atomic_load(&event->recorded), PGAS_ACQUIRE, "cudaEventSynchronize");
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    bool ready = atomic_load(&event->done) >= atomic_load(&event->recorded);
    pgas_sched_poll("cudaEventQuery", ready);
    if (!ready)
        return cudaErrorNotReady;
    pgas_hb_after(&event->done);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    emu_pe *pe = emu_stream_device("cudaStreamWaitEvent");
    uint64_t gen = atomic_load(&event->recorded);
    if (gen == 0)
        return cudaSuccess; /* never recorded: nothing to wait for, as in CUDA */
    emu_op *op = emu_op_new(EMU_OP_EVENT_WAIT);
    op->event = event;
    op->event_gen = gen;
    emu_stream_enqueue(emu_stream_resolve(pe, stream), op);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (ms == NULL || start == NULL || end == NULL)
        return emu_set_error(cudaErrorInvalidValue);
    if (cudaEventQuery(start) != cudaSuccess || cudaEventQuery(end) != cudaSuccess)
        return emu_set_error(cudaErrorNotReady);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    *ms = (float)((double)((int64_t)end->time_ns - (int64_t)start->time_ns) * 1e-6);
    return cudaSuccess;
}
