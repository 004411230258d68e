/*
 * stream.c: a PE's emulator state, its streams and events, and the CUDA runtime calls.
 *
 * Each stream is a pthread attached to the PE ("stream N") that takes operations from a
 * lock-free queue (many producers, one consumer) and runs them in order. Ordering edges
 * for the race checkers are made explicitly, only where CUDA promises them (docs/design.md D4):
 *   - enqueue annotates "before" on the operation, the stream thread "after" it: what the
 *     host did before a launch happens before the kernel;
 *   - finishing an operation annotates "before" on the stream's completion word; stream and
 *     device synchronization wait on it with acquire: the kernel happens before what the
 *     host does after synchronizing;
 *   - event record annotates on the event's word; an event wait or synchronize acquires it.
 * Nothing else links a stream thread to the host or to another stream: no mutex, no
 * condition variable. An idle stream thread sleeps on a raw futex (no hang timeout: an idle
 * stream is no hang).
 *
 * The emulator state of a PE belongs to the PE's host thread (a thread-local pointer) and
 * is torn down by a thread-specific-data destructor when that thread ends: every stream is
 * drained and joined before the job that owns the PE is destroyed.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"
#include "shmemu/internal/futex.h"

static _Thread_local emu_pe *host_pe;
static _Thread_local cudaError_t last_error;
static pthread_key_t pe_key;

void emu_set_error(cudaError_t e) { last_error = e; }

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    }
    return "unknown error";
}

/* ---- streams ------------------------------------------------------------------------- */

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

void emu_stream_enqueue(emu_stream *s, emu_op *op)
{
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
}

static void event_complete(struct emu_event *e, uint64_t gen)
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
    case EMU_OP_EVENT_RECORD: event_complete(op->event, op->event_gen); break;
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

static emu_stream *stream_new(emu_pe *pe, int priority)
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

static void stream_wait_done(emu_stream *s, const char *call)
{
    uint64_t target = atomic_load_explicit(&s->enqueued, memory_order_relaxed);
    pgas_wait_value(&s->completed, PGAS_KIND_U64, NVSHMEM_CMP_GE, target, PGAS_ACQUIRE, call);
}

static void stream_free(emu_pe *pe, emu_stream *s)
{
    stream_wait_done(s, "cudaStreamDestroy");
    emu_stream_enqueue(s, emu_op_new(EMU_OP_STOP));
    if (pgas_sched_enabled()) /* the join must not block the turn holder */
        pgas_wait_value(&s->exited, PGAS_KIND_U32, NVSHMEM_CMP_NE, 0, PGAS_RELAXED,
                        "cudaStreamDestroy (the stream thread's exit)");
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

/* ---- the PE's state -------------------------------------------------------------------- */

static double read_seconds(const char *name, double fallback)
{
    return shmemu_env_double(name, 1e-3, 1e6, "seconds", fallback);
}

static void pe_destroy(void *p)
{
    emu_pe *pe = p;
    while (pe->streams != NULL)
        stream_free(pe, pe->streams);
    if (pe->trace_path[0] != '\0') {
        char path[600];
        const char *pct = strstr(pe->trace_path, "%d");
        if (pct != NULL)
            snprintf(path, sizeof path, "%.*s%d%s", (int)(pct - pe->trace_path), pe->trace_path,
                     pe->pe, pct + 2);
        else
            snprintf(path, sizeof path, "%s.%d", pe->trace_path, pe->pe);
        host_pe = pe; /* emu_trace_write reads the calling thread's state */
        if (emu_trace_write(path) != 0)
            fprintf(stderr, "shmemu: PE %d: could not write the trace %s\n", pe->pe, path);
    }
    host_pe = NULL;
    emu_record_chunk *c = atomic_load(&pe->records);
    while (c != NULL) {
        emu_record_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(pe);
}

/* The PE's main returned: stop its streams while the host thread still belongs to the job
 * (deterministic mode needs every stream thread to leave the schedule before the host). */
static void pe_exit_hook(void)
{
    emu_pe *pe = host_pe;
    if (pe == NULL)
        return;
    pthread_setspecific(pe_key, NULL);
    pe_destroy(pe);
}

/* Created when the library is loaded, before any thread: pthread_once would be an ordering
 * that helgrind does not understand. */
__attribute__((constructor)) static void make_pe_key(void)
{
    pthread_key_create(&pe_key, pe_destroy);
}

emu_pe *emu_pe_get(const char *call)
{
    if (host_pe != NULL)
        return host_pe;
    if (emu_thread_current() != NULL) {
        fprintf(stderr, "shmemu: PE %d: %s: called inside a kernel; host calls (launches, "
                        "streams, events) are not available to device code\n",
                shmemu_my_pe(), call);
        fflush(NULL);
        abort();
    }
    pgas_thread *self = pgas_thread_self();
    if (self == NULL) {
        fprintf(stderr, "shmemu: %s: called on a thread that is no PE; call nvshmem_init() "
                        "first (kernels run on the calling PE)\n", call);
        fflush(NULL);
        abort();
    }
    emu_pe *pe = calloc(1, sizeof *pe);
    if (pe == NULL) {
        fprintf(stderr, "shmemu: out of memory for the emulator state\n");
        exit(2);
    }
    pe->pe = shmemu_my_pe();
    pe->host = self;
    emu_checker_ignore(&pe->pool, sizeof pe->pool);
    emu_checker_ignore(&pe->records, sizeof pe->records);
    emu_checker_ignore(&pe->next_launch, sizeof pe->next_launch);
    if (shmemu_env_get("SHMEMU_EMU_SMS") != NULL) /* 0: no limit */
        atomic_init(&pe->pool.limit, (int)shmemu_env_int("SHMEMU_EMU_SMS", 0, EMU_MAX_SMS, 0));
    pe->stall_s = read_seconds("SHMEMU_EMU_STALL", shmemu_under_valgrind() ? 20.0 : 5.0);
    const char *v = shmemu_env_path("SHMEMU_EMU_TRACE", sizeof pe->trace_path);
    if (v != NULL) {
        snprintf(pe->trace_path, sizeof pe->trace_path, "%s", v);
        pe->timing = true;
    }
    host_pe = pe;
    pthread_setspecific(pe_key, pe);
    pgas_thread_set_exit_hook(pe_exit_hook);
    stream_new(pe, 0); /* the default stream, number 0 */
    return pe;
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
    (void)flags;
    if (stream == NULL)
        return last_error = cudaErrorInvalidValue;
    emu_pe *pe = emu_pe_get("cudaStreamCreate");
    *stream = stream_new(pe, priority);
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
    emu_pe *pe = emu_pe_get("cudaStreamDestroy");
    if (stream == NULL)
        return last_error = cudaErrorInvalidResourceHandle;
    stream_free(pe, emu_stream_resolve(pe, stream));
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    emu_pe *pe = emu_pe_get("cudaStreamSynchronize");
    stream_wait_done(emu_stream_resolve(pe, stream), "cudaStreamSynchronize");
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    emu_pe *pe = emu_pe_get("cudaStreamQuery");
    emu_stream *s = emu_stream_resolve(pe, stream);
    bool ready = atomic_load(&s->completed) >= atomic_load(&s->enqueued);
    pgas_sched_poll("cudaStreamQuery", ready);
    if (!ready)
        return cudaErrorNotReady;
    pgas_hb_after(&s->completed);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    emu_pe *pe = emu_pe_get("cudaDeviceSynchronize");
    for (emu_stream *s = pe->streams; s != NULL; s = s->next)
        stream_wait_done(s, "cudaDeviceSynchronize");
    return cudaSuccess;
}

/* ---- CUDA runtime: events ------------------------------------------------------------- */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (event == NULL)
        return last_error = cudaErrorInvalidValue;
    struct emu_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        return last_error = cudaErrorMemoryAllocation;
    e->pe = emu_pe_get("cudaEventCreate");
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
        return last_error = cudaErrorInvalidResourceHandle;
    /* as in CUDA, work that still refers to the event may complete first */
    pgas_wait_value(&event->done, PGAS_KIND_U64, NVSHMEM_CMP_GE,
                    atomic_load(&event->recorded), PGAS_RELAXED, "cudaEventDestroy");
    free(event);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (event == NULL)
        return last_error = cudaErrorInvalidResourceHandle;
    emu_pe *pe = emu_pe_get("cudaEventRecord");
    emu_op *op = emu_op_new(EMU_OP_EVENT_RECORD);
    op->event = event;
    op->event_gen = atomic_fetch_add(&event->recorded, 1) + 1;
    emu_stream_enqueue(emu_stream_resolve(pe, stream), op);
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (event == NULL)
        return last_error = cudaErrorInvalidResourceHandle;
    pgas_wait_value(&event->done, PGAS_KIND_U64, NVSHMEM_CMP_GE,
                    atomic_load(&event->recorded), PGAS_ACQUIRE, "cudaEventSynchronize");
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (event == NULL)
        return last_error = cudaErrorInvalidResourceHandle;
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
        return last_error = cudaErrorInvalidResourceHandle;
    emu_pe *pe = emu_pe_get("cudaStreamWaitEvent");
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
        return last_error = cudaErrorInvalidValue;
    if (cudaEventQuery(start) != cudaSuccess || cudaEventQuery(end) != cudaSuccess)
        return last_error = cudaErrorNotReady;
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return last_error = cudaErrorInvalidResourceHandle;
    *ms = (float)((double)((int64_t)end->time_ns - (int64_t)start->time_ns) * 1e-6);
    return cudaSuccess;
}

/* ---- CUDA runtime: memory ------------------------------------------------------------ */

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    if (ptr == NULL)
        return last_error = cudaErrorInvalidValue;
    size_t rounded = (size + 255) & ~(size_t)255;
    *ptr = aligned_alloc(256, rounded ? rounded : 256);
    if (*ptr == NULL)
        return last_error = cudaErrorMemoryAllocation;
    memset(*ptr, 0, rounded ? rounded : 256);
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    if (ptr == NULL && count > 0)
        return last_error = cudaErrorInvalidValue;
    memset(ptr, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    (void)kind;
    if ((dst == NULL || src == NULL) && count > 0)
        return last_error = cudaErrorInvalidValue;
    memmove(dst, src, count);
    return cudaSuccess;
}

/* ---- NVSHMEM's stream calls ------------------------------------------------------------ */

static void queue_rma_owned(emu_op_kind kind, void *dest, const void *source, size_t bytes,
                            int pe, bool nbi, uint64_t *sig, uint64_t signal, int sig_op,
                            cudaStream_t stream, const char *call, void *owned)
{
    emu_pe *p = emu_pe_get(call);
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
    emu_pe *p = emu_pe_get("nvshmemx_signal_wait_until_on_stream");
    emu_op *op = emu_op_new(EMU_OP_SIGNAL_WAIT);
    op->sig_addr = sig_addr;
    op->cmp = cmp;
    op->signal = cmp_value;
    emu_stream_enqueue(emu_stream_resolve(p, stream), op);
}

static void queue_simple(emu_op_kind kind, int team, cudaStream_t stream, const char *call)
{
    emu_pe *p = emu_pe_get(call);
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
