/*
 * stream.c: streams: each a pthread attached to the PE ("stream N") that takes operations
 * from a lock-free queue (many producers, one consumer) and runs them in order; and the CUDA
 * runtime's stream and device-synchronize calls.
 *
 * Ordering edges for the race checkers are made explicitly, only where CUDA promises them
 * (docs/design.md D4):
 *   - enqueue annotates "before" on the operation, the stream thread "after" it: what the
 *     host did before a launch happens before the kernel;
 *   - finishing an operation annotates "before" on the stream's completion word; stream and
 *     device synchronization wait on it with acquire: the kernel happens before what the
 *     host does after synchronizing;
 *   - event record annotates on the event's word (event.c); an event wait or synchronize
 *     acquires it.
 * Nothing else links a stream thread to the host or to another stream: no mutex, no
 * condition variable. An idle stream thread sleeps on a raw futex (no hang timeout: an idle
 * stream is no hang).
 *
 * A capturing stream (capture.c) runs nothing: emu_stream_enqueue hands the operation to its
 * capture, and the calls that would wait for it fail as CUDA's do.
 *
 * This file and launch.c are the one import cycle of emu/src (docs/design.md "Layering"),
 * because a stream and its launches need each other: the stream's thread runs the launches
 * in its order (emu_run_launch, emu_launch_free) and, when the stream ends, drops the block
 * stacks launch.c cached on it; a launch is enqueued on its stream, which joins its blocks
 * before its next operation. Everything else here calls down only. The calling PE's device
 * is made here too (emu_stream_device): a device comes with its default stream, and its
 * end drains the streams.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "shmemu/internal/futex.h"

emu_op *emu_op_new(emu_op_kind kind)
{
    emu_op *op = calloc(1, sizeof *op);
    if (op == NULL) {
        fprintf(stderr, "shmemu: out of memory queueing a stream operation\n");
        exit(2);
    }
    op->kind = kind;
    emu_checker_ignore(&op->next, sizeof op->next);
    return op;
}

cudaError_t emu_stream_enqueue(emu_stream *s, emu_op *op)
{
    if (s->capture != NULL) /* recorded, not run (capture.c) */
        return emu_capture_record(s, op);
    atomic_init(&op->next, NULL);
    op->seq = atomic_load_explicit(&s->enqueued, memory_order_relaxed) + 1;
    pgas_hb_before(op);
    emu_op *prev = atomic_exchange_explicit(&s->tail, op, memory_order_acq_rel);
    /* an exchange, not a store: valgrind sees a read, which never races with the
     * consumer's load of the same link */
    (void)atomic_exchange_explicit(&prev->next, op, memory_order_release);
    atomic_fetch_add_explicit(&s->enqueued, 1, memory_order_release);
    atomic_fetch_add_explicit(&s->doorbell, 1, memory_order_release);
    shmemu_futex_wake_all(&s->doorbell);
    /* deterministic mode: the stream's idle wait may now hold; a place to switch */
    pgas_sched_note_store(&s->enqueued, sizeof s->enqueued);
    pgas_sched_sync_point("a stream operation queued", true);
    return cudaSuccess;
}

/* The stream thread reaches a record of event e (generation gen): what the stream ran before
 * it happens before what follows a wait for it (event.c). */
static void complete_event(struct emu_event *e, uint64_t gen)
{
    e->time_ns = emu_now_ns();
    pgas_hb_before(&e->done);
    (void)atomic_exchange(&e->done, gen);
    pgas_wake(&e->done);
}

/* Runs one operation on the stream thread; true for the last one. */
static bool run_op(emu_stream *s, emu_op *op)
{
    (void)s;
    switch (op->kind) {
    case EMU_OP_LAUNCH:
        emu_run_launch(op->launch);
        emu_launch_free(op->launch);
        break;
    case EMU_OP_EVENT_RECORD: complete_event(op->event, op->event_gen); break;
    case EMU_OP_EVENT_WAIT:
        pgas_wait_value(&op->event->done, PGAS_KIND_U64, NVSHMEM_CMP_GE, op->event_gen,
                        PGAS_ACQUIRE, "cudaStreamWaitEvent");
        break;
    case EMU_OP_PUT:
        if (op->sig_op != 0 && op->nbi)
            nvshmem_putmem_signal_nbi(op->dest, op->source, op->bytes, op->sig_addr, op->signal,
                                      op->sig_op, op->pe);
        else if (op->sig_op != 0)
            nvshmem_putmem_signal(op->dest, op->source, op->bytes, op->sig_addr, op->signal,
                                  op->sig_op, op->pe);
        else if (op->nbi)
            nvshmem_putmem_nbi(op->dest, op->source, op->bytes, op->pe);
        else
            nvshmem_putmem(op->dest, op->source, op->bytes, op->pe);
        break;
    case EMU_OP_GET:
        if (op->nbi)
            nvshmem_getmem_nbi(op->dest, op->source, op->bytes, op->pe);
        else
            nvshmem_getmem(op->dest, op->source, op->bytes, op->pe);
        break;
    case EMU_OP_SIGNAL: nvshmemx_signal_op(op->sig_addr, op->signal, op->sig_op, op->pe); break;
    case EMU_OP_SIGNAL_WAIT: nvshmem_signal_wait_until(op->sig_addr, op->cmp, op->signal); break;
    case EMU_OP_QUIET: nvshmem_quiet(); break;
    case EMU_OP_BARRIER_ALL: nvshmem_barrier_all(); break;
    case EMU_OP_SYNC_ALL: nvshmem_sync_all(); break;
    case EMU_OP_BARRIER_TEAM: (void)nvshmem_barrier(op->team); break;
    case EMU_OP_COLL: op->run(op); break;
    case EMU_OP_STOP: return true;
    }
    return false;
}

static void *stream_main(void *arg)
{
    emu_stream *s = arg;
    char label[32];
    snprintf(label, sizeof label, "stream %d", s->id);
    if (pgas_thread_attach(s->pe->host, s->pe->pe, label) != 0) {
        fprintf(stderr, "shmemu: cannot attach stream %d to PE %d\n", s->id, s->pe->pe);
        abort();
    }
    pgas_events_here_stream(s->id); /* SHMEMU_EVENTS: this thread's events are the stream's */
    uint64_t done = 0;
    bool deterministic = pgas_sched_enabled();
    for (;;) {
        /* deterministic mode: waiting for work is a wait of the schedule (relaxed: the
         * operation's own annotation orders it, below) */
        if (deterministic)
            pgas_wait_value(&s->enqueued, PGAS_KIND_U64, NVSHMEM_CMP_NE, done, PGAS_RELAXED,
                            "a stream waiting for work");
        for (;;) {
            uint32_t bell = atomic_load_explicit(&s->doorbell, memory_order_acquire);
            if (atomic_load_explicit(&s->enqueued, memory_order_acquire) != done)
                break;
            shmemu_futex_wait(&s->doorbell, bell, 0);
        }
        emu_op *next;
        while ((next = atomic_load_explicit(&s->head->next, memory_order_acquire)) == NULL)
            sched_yield(); /* the producer is between its two exchanges */
        emu_op *prev = s->head;
        s->head = next;
        if (prev != &s->stub)
            free(prev);
        pgas_hb_after(next);
        bool stop = run_op(s, next);
        free(next->owned);
        next->owned = NULL;
        done++;
        pgas_hb_before(&s->completed);
        (void)atomic_exchange(&s->completed, next->seq);
        pgas_wake(&s->completed);
        if (stop)
            break;
    }
    emu_stack_cache_drop(s);
    free(s->block_records); /* the records themselves stay on the job's list */
    s->block_records = NULL;
    s->n_block_records = 0;
    pgas_thread_detach_notify((volatile uint32_t *)&s->exited);
    return NULL;
}

emu_stream *emu_stream_new(emu_pe *pe, int priority)
{
    emu_stream *s = calloc(1, sizeof *s);
    if (s == NULL) {
        fprintf(stderr, "shmemu: out of memory creating a stream\n");
        exit(2);
    }
    if (priority < -(EMU_PRIORITY_LEVELS - 1))
        priority = -(EMU_PRIORITY_LEVELS - 1);
    if (priority > 0)
        priority = 0;
    s->pe = pe;
    s->id = pe->next_stream_id++;
    s->priority = priority;
    s->level = priority + EMU_PRIORITY_LEVELS - 1;
    atomic_init(&s->stub.next, NULL);
    atomic_init(&s->tail, &s->stub);
    s->head = &s->stub;
    emu_checker_ignore(&s->stub.next, sizeof s->stub.next);
    emu_checker_ignore(&s->tail, sizeof s->tail);
    emu_checker_ignore(&s->enqueued, sizeof s->enqueued);
    emu_checker_ignore(&s->completed, sizeof s->completed);
    emu_checker_ignore(&s->doorbell, sizeof s->doorbell);
    emu_checker_ignore(&s->exited, sizeof s->exited);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, EMU_STREAM_STACK_BYTES);
    uint32_t mark = pgas_sched_spawn_mark();
    int rc = pgas_thread_create(&s->pthread, &attr, stream_main, s);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pgas_sched_spawn_wait(mark);
    if (rc != 0) {
        fprintf(stderr, "shmemu: cannot start the thread of stream %d of PE %d: %s\n", s->id,
                pe->pe, strerror(rc));
        exit(2);
    }
    emu_stream **tail = &pe->streams;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = s;
    return s;
}

void emu_stream_wait_done(emu_stream *s, const char *call)
{
    uint64_t target = atomic_load_explicit(&s->enqueued, memory_order_relaxed);
    pgas_wait_value(&s->completed, PGAS_KIND_U64, NVSHMEM_CMP_GE, target, PGAS_ACQUIRE, call);
}

void emu_stream_free(emu_pe *pe, emu_stream *s)
{
    emu_stream_wait_done(s, "cudaStreamDestroy");
    emu_stream_enqueue(s, emu_op_new(EMU_OP_STOP));
    if (pgas_sched_enabled()) /* the join must not block the turn holder */
    {
        pgas_wait_value(&s->exited, PGAS_KIND_U32, NVSHMEM_CMP_NE, 0, PGAS_RELAXED,
                        "cudaStreamDestroy (the stream thread's exit)");
        pgas_sched_joined();
    }
    pthread_join(s->pthread, NULL);
    for (emu_stream **p = &pe->streams; *p != NULL; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    if (s->head != &s->stub)
        free(s->head);
    free(s);
}

emu_stream *emu_stream_resolve(emu_pe *pe, cudaStream_t s)
{
    if (s == NULL)
        return pe->streams;
    for (emu_stream *t = pe->streams; t != NULL; t = t->next)
        if (t == s)
            return t;
    fprintf(stderr, "shmemu: PE %d: stream %p is not a stream of this PE (destroyed, or "
                    "created by another PE); pass a stream from cudaStreamCreate on this PE\n",
            pe->pe, (void *)s);
    fflush(NULL);
    abort();
}

/* ---- the PE's device ------------------------------------------------------------------- */

/* The device's end, which current.c runs when the PE's main returns or its host thread ends:
 * every stream drained and joined, then the trace written. */
static void device_end(emu_pe *pe)
{
    while (pe->captures != NULL) /* never ended: their graphs are dropped */
        emu_graph_free(emu_capture_end(pe->captures));
    while (pe->streams != NULL)
        emu_stream_free(pe, pe->streams);
    emu_trace_end(pe);
}

emu_pe *emu_stream_device(const char *call)
{
    emu_pe *pe = emu_pe_current();
    if (pe != NULL)
        return pe;
    pe = emu_pe_create(call, device_end);
    emu_stream_new(pe, 0); /* the default stream, number 0 */
    return pe;
}

/* ---- CUDA runtime: streams ------------------------------------------------------------- */

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority != NULL)
        *leastPriority = 0;
    if (greatestPriority != NULL)
        *greatestPriority = -(EMU_PRIORITY_LEVELS - 1);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    if (stream == NULL || (flags & ~(unsigned)cudaStreamNonBlocking) != 0)
        return emu_set_error(cudaErrorInvalidValue);
    emu_pe *pe = emu_stream_device("cudaStreamCreate");
    *stream = emu_stream_new(pe, priority);
    (*stream)->flags = flags;
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithPriority(stream, 0, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    emu_pe *pe = emu_stream_device("cudaStreamDestroy");
    if (stream == NULL)
        return emu_set_error(cudaErrorInvalidResourceHandle);
    emu_stream *s = emu_stream_resolve(pe, stream);
    cudaError_t e = emu_capture_stream_sync(s, "cudaStreamDestroy");
    if (e != cudaSuccess)
        return e; /* the capture needs it until cudaStreamEndCapture */
    emu_stream_free(pe, s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    emu_pe *pe = emu_stream_device("cudaStreamSynchronize");
    emu_stream *s = emu_stream_resolve(pe, stream);
    cudaError_t e = emu_capture_stream_sync(s, "cudaStreamSynchronize");
    if (e != cudaSuccess)
        return e;
    pgas_thread_note_site(__builtin_return_address(0), NULL, 0); /* hang reports' line */
    emu_stream_wait_done(s, "cudaStreamSynchronize");
    pgas_thread_note_site(NULL, NULL, 0);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    emu_pe *pe = emu_stream_device("cudaStreamQuery");
    emu_stream *s = emu_stream_resolve(pe, stream);
    cudaError_t e = emu_capture_stream_sync(s, "cudaStreamQuery");
    if (e != cudaSuccess)
        return e;
    bool ready = atomic_load(&s->completed) >= atomic_load(&s->enqueued);
    pgas_sched_poll("cudaStreamQuery", ready);
    if (!ready)
        return cudaErrorNotReady;
    pgas_hb_after(&s->completed);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    emu_pe *pe = emu_stream_device("cudaDeviceSynchronize");
    cudaError_t e = emu_capture_sync_allowed("cudaDeviceSynchronize", false);
    if (e != cudaSuccess)
        return e;
    pgas_thread_note_site(__builtin_return_address(0), NULL, 0); /* hang reports' line */
    for (emu_stream *s = pe->streams; s != NULL; s = s->next)
        emu_stream_wait_done(s, "cudaDeviceSynchronize");
    pgas_thread_note_site(NULL, NULL, 0);
    return cudaSuccess;
}
