/*
 * event.c: CUDA events. An event counts records requested (recorded, by the host) and
 * records completed (done, by the stream thread that reaches the record, in stream.c); a
 * wait or query compares the two, and acquires on done, which the completing stream
 * annotated "before": the work before the record happens before what follows the wait.
 * On a capturing stream a record and a wait are the capture's bookkeeping (capture.c): the
 * event stands for the nodes recorded so far, and a wait on it forks or joins a stream;
 * only an external record (cudaEventRecordWithFlags) is a node of the graph.
 */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    /* CUDA's flags: cudaEventBlockingSync, cudaEventDisableTiming, cudaEventInterprocess (4) */
    if (event == NULL || (flags & ~7u) != 0)
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
    emu_deps_free(&event->cap_deps);
    free(event);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    emu_pe *pe = emu_stream_device("cudaEventRecord");
    emu_stream *s = emu_stream_resolve(pe, stream);
    if (s->capture != NULL)
        return emu_capture_event_record(s, event);
    event->capture_id = 0;
    emu_op *op = emu_op_new(EMU_OP_EVENT_RECORD);
    op->event = event;
    op->event_gen = atomic_fetch_add(&event->recorded, 1) + 1;
    return emu_stream_enqueue(s, op);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    if ((flags & ~(unsigned)cudaEventRecordExternal) != 0)
        return emu_set_error(cudaErrorInvalidValue);
    emu_pe *pe = emu_stream_device("cudaEventRecordWithFlags");
    emu_stream *s = emu_stream_resolve(pe, stream);
    if (s->capture == NULL || flags == cudaEventRecordDefault)
        return cudaEventRecord(event, stream);
    /* an event record node: its generation is taken when a replay queues it (graph.c) */
    emu_op *op = emu_op_new(EMU_OP_EVENT_RECORD);
    op->event = event;
    return emu_stream_enqueue(s, op);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    cudaError_t e = emu_capture_event_sync(event, "cudaEventSynchronize");
    if (e != cudaSuccess)
        return e;
    pgas_thread_note_site(__builtin_return_address(0), NULL, 0); /* hang reports' line */
    pgas_wait_value(&event->done, PGAS_KIND_U64, NVSHMEM_CMP_GE,
                    atomic_load(&event->recorded), PGAS_ACQUIRE, "cudaEventSynchronize");
    pgas_thread_note_site(NULL, NULL, 0);
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (event == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    cudaError_t e = emu_capture_event_sync(event, "cudaEventQuery");
    if (e != cudaSuccess)
        return e;
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
    emu_stream *s = emu_stream_resolve(pe, stream);
    bool captured = false;
    cudaError_t e = emu_capture_event_wait(pe, s, event, &captured);
    if (captured)
        return e;
    uint64_t gen = atomic_load(&event->recorded);
    if (gen == 0)
        return cudaSuccess; /* never recorded: nothing to wait for, as in CUDA */
    emu_op *op = emu_op_new(EMU_OP_EVENT_WAIT);
    op->event = event;
    op->event_gen = gen;
    return emu_stream_enqueue(s, op);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (ms == NULL || start == NULL || end == NULL)
        return emu_set_error(cudaErrorInvalidValue);
    if (atomic_load(&start->recorded) == 0 || atomic_load(&end->recorded) == 0)
        return emu_set_error(cudaErrorInvalidResourceHandle); /* never recorded, as CUDA */
    if (cudaEventQuery(start) != cudaSuccess || cudaEventQuery(end) != cudaSuccess)
        return emu_set_error(cudaErrorNotReady);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    *ms = (float)((double)((int64_t)end->time_ns - (int64_t)start->time_ns) * 1e-6);
    return cudaSuccess;
}
