/*
 * events.c: recording the event log (SHMEMU_EVENTS, events.h, docs/events.md).
 *
 * Each thread appends to its own log, a list of fixed chunks (no lock; chunks never move);
 * the only shared word is the job's sequence counter, a relaxed fetch-add, which the race
 * checkers see as no edge (docs/design.md D4), so recording adds no happens-before edge
 * between the program's threads. Where an event ran (a PE's thread, a stream, a block and
 * its emulated thread) is per pthread, set by the emulator through pgas_emu.h.
 *
 * Layer: just above "who am I" (self.c) and cond.c's clock, so that every file may record,
 * and the early ends (error.c, hang.c, sched_report.c) reach the writer (events_write.c,
 * above the reports) through the hook it sets here: a call that goes up at run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "events.h"

/* ---- where the calling pthread runs (set by the emulator) --------------------------- */

static _Thread_local struct {
    int where;
    int stream;
    const char *kernel;
    unsigned launch;
    int block;
    unsigned bx, by;
} here;

void pgas_events_here_stream(int stream)
{
    here.where = PGAS_EV_STREAM;
    here.stream = stream;
}

/* ---- recording ----------------------------------------------------------------------- */

static pgas_event *slot(pgas_thread *t)
{
    pgas_ev_log *log = t->events;
    pgas_ev_chunk *c = log->tail;
    size_t n = c != NULL ? atomic_load_explicit(&c->n, memory_order_relaxed) : PGAS_EV_CHUNK;
    if (n == PGAS_EV_CHUNK) {
        pgas_ev_chunk *fresh = calloc(1, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        pgas_checker_ignore(fresh, sizeof *fresh);
        if (c != NULL)
            c->next = fresh;
        else
            log->head = fresh;
        log->tail = fresh;
        c = fresh;
        n = 0;
    }
    atomic_store_explicit(&c->n, n + 1, memory_order_relaxed);
    return &c->ev[n];
}

pgas_event *pgas_ev_record(pgas_thread *t, pgas_ev_op op, const void *pc)
{
    pgas_ev_job *job = t->world->events;
    pgas_event *e = slot(t);
    if (e == NULL) {
        atomic_fetch_add_explicit(&job->dropped, 1, memory_order_relaxed);
        return NULL;
    }
    e->seq = atomic_fetch_add_explicit(&job->seq, 1, memory_order_relaxed);
    e->t_ns = job->sched ? 0 : pgas_now_ns() - job->t0_ns;
    e->op = (uint8_t)op;
    e->pe = t->pe;
    e->peer = -1;
    e->pc = pc;
    e->where = (uint8_t)here.where;
    e->stream = here.stream;
    e->thread = -1;
    if (here.where == PGAS_EV_BLOCK) {
        e->kernel = here.kernel;
        e->launch = here.launch;
        e->block = here.block;
        uint64_t f = pgas_thread_current_fiber(); /* x | y << 21 | z << 42, plus 1 */
        if (f != 0) {
            f--;
            uint64_t m = (1ull << 21) - 1;
            e->thread = (int)((f & m) + ((f >> 21) & m) * here.bx +
                              ((f >> 42) & m) * here.bx * here.by);
        }
    }
    return e;
}

const void *pgas_ev_noted_caller(const pgas_thread *t, const char *call)
{
    bool noted = t->caller_call != NULL && t->caller_call == t->api_call && call != NULL &&
                 strcmp(t->caller_call, call) == 0;
    return noted ? t->caller : NULL;
}

pgas_ev_addr pgas_ev_addr_of(const pgas_thread *t, const volatile void *addr)
{
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)t->heap_base;
    if (addr == NULL)
        return (pgas_ev_addr){PGAS_EV_NOWHERE, 0};
    if (a >= base && a - base < t->world->heap_size)
        return (pgas_ev_addr){PGAS_EV_HEAP, a - base};
    return (pgas_ev_addr){PGAS_EV_RAW, a};
}

pgas_event *pgas_ev_rma(pgas_thread *t, pgas_ev_op op, const void *pc, int peer,
                        const void *dest, const void *source, size_t bytes)
{
    pgas_event *e = pgas_ev_record(t, op, pc);
    if (e == NULL)
        return NULL;
    e->peer = peer;
    e->bytes = bytes;
    bool is_get = op == PGAS_EV_GET || op == PGAS_EV_GET_NBI;
    if (is_get) {
        e->src = pgas_ev_addr_of(t, source);
    } else {
        e->dst = pgas_ev_addr_of(t, dest);
        if (bytes >= 1 && bytes <= 8 && source != NULL) {
            uint64_t v = 0;
            memcpy(&v, source, bytes); /* little-endian: the word's value */
            e->size = (uint8_t)bytes;
            pgas_ev_after(e, v);
        }
    }
    return e;
}

uint64_t pgas_ev_amo_result(pgas_amo_op op, uint64_t old, uint64_t value, uint64_t cond,
                            size_t size)
{
    uint64_t mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
    uint64_t r = old;
    switch (op) {
    case PGAS_AMO_FETCH: break;
    case PGAS_AMO_SET:
    case PGAS_AMO_SWAP: r = value; break;
    case PGAS_AMO_CSWAP: r = (old & mask) == (cond & mask) ? value : old; break;
    case PGAS_AMO_ADD: r = old + value; break;
    case PGAS_AMO_AND: r = old & value; break;
    case PGAS_AMO_OR: r = old | value; break;
    case PGAS_AMO_XOR: r = old ^ value; break;
    }
    return r & mask;
}

static uint8_t kind_bytes(pgas_kind kind)
{
    switch (kind) {
    case PGAS_KIND_I8: case PGAS_KIND_U8: return 1;
    case PGAS_KIND_I16: case PGAS_KIND_U16: return 2;
    case PGAS_KIND_I32: case PGAS_KIND_U32: return 4;
    default: return 8;
    }
}

pgas_event *pgas_ev_wait(pgas_thread *t, pgas_ev_op op, const void *pc,
                         const volatile void *addr, pgas_kind kind, int cmp, uint64_t value)
{
    pgas_event *e = pgas_ev_record(t, op, pc);
    if (e == NULL)
        return NULL;
    e->sig = pgas_ev_addr_of(t, addr);
    e->size = kind_bytes(kind);
    e->sub = (uint8_t)cmp;
    e->value = value;
    e->bytes = (uint64_t)kind; /* for printing values signed or not */
    return e;
}

/* ---- the emulator's events (pgas_emu.h) ---------------------------------------------- */

int pgas_events_jobs;

void *pgas_events_store(const volatile void *addr, unsigned size, uint64_t value, bool rmw,
                        const char *name, const void *pc)
{
    pgas_thread *t = pgas_current();
    size_t offset = 0;
    int owner;
    if (t == NULL || !pgas_ev_on(t) || (owner = pgas_be_owner(t->world, addr, &offset)) < 0)
        return NULL;
    pgas_event *e = pgas_ev_record(t, rmw ? PGAS_EV_AMO : PGAS_EV_SIGNAL, pc);
    if (e == NULL)
        return NULL;
    e->peer = owner;
    pgas_ev_addr a = {PGAS_EV_HEAP, offset};
    if (rmw) {
        e->dst = a;
        e->kernel_op = name;
    } else {
        e->sig = a;
    }
    e->sub = 0; /* NVSHMEM_SIGNAL_SET */
    e->value = value;
    e->size = (uint8_t)size;
    return e;
}

void pgas_events_after(void *handle, uint64_t after) { pgas_ev_after(handle, after); }

void pgas_events_launch(const char *kernel, unsigned launch, const unsigned grid[3],
                        const unsigned block[3], int stream, const void *pc)
{
    pgas_thread *t = pgas_current();
    if (t == NULL || !pgas_ev_on(t))
        return;
    pgas_event *e = pgas_ev_record(t, PGAS_EV_LAUNCH, pc);
    if (e == NULL)
        return;
    e->kernel = kernel;
    e->launch = launch;
    e->stream = stream;
    memcpy(e->dims, grid, 3 * sizeof *grid);
    memcpy(e->dims + 3, block, 3 * sizeof *block);
}

void pgas_events_block(bool start, const char *kernel, unsigned launch, int block, int sm,
                       const unsigned block_dim[3])
{
    if (start) {
        here.where = PGAS_EV_BLOCK;
        here.kernel = kernel;
        here.launch = launch;
        here.block = block;
        here.bx = block_dim[0];
        here.by = block_dim[1];
    }
    pgas_thread *t = pgas_current();
    if (t != NULL && pgas_ev_on(t)) {
        pgas_event *e = pgas_ev_record(t, start ? PGAS_EV_BLOCK_START : PGAS_EV_BLOCK_END, NULL);
        if (e != NULL)
            e->sm = sm;
    }
    if (!start)
        here.where = PGAS_EV_HOST;
}

/* ---- the job's logs ------------------------------------------------------------------ */

void pgas_ev_job_attach_thread(pgas_thread *t)
{
    pgas_ev_job *job = t->world->events;
    if (job == NULL || t->events != NULL)
        return; /* off, or a reused record keeps its log */
    pgas_ev_log *log = calloc(1, sizeof *log);
    if (log == NULL) {
        fprintf(stderr, "shmemu: out of memory for the event log (SHMEMU_EVENTS)\n");
        exit(2);
    }
    pgas_checker_ignore(log, sizeof *log);
    pgas_ev_log *head = atomic_load_explicit(&job->logs, memory_order_relaxed);
    do {
        log->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&job->logs, &head, log,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    t->events = log;
}

static void (*writer)(pgas_world *world);
static _Atomic(pgas_world *) active_job;

void pgas_ev_set_writer(void (*write)(pgas_world *world), pgas_world *active)
{
    writer = write;
    atomic_store(&active_job, active);
}

pgas_world *pgas_ev_active_job(void) { return atomic_load(&active_job); }

void pgas_ev_early_end(pgas_world *world, pgas_ev_op op, const char *text)
{
    pgas_thread *t = pgas_current();
    if (world == NULL)
        world = t != NULL ? t->world : atomic_load(&active_job);
    if (world == NULL || world->events == NULL || writer == NULL)
        return;
    if (t != NULL && t->world == world && pgas_ev_on(t)) {
        pgas_event *e = pgas_ev_record(t, op, NULL);
        if (e != NULL)
            e->text = strdup(text != NULL ? text : "");
    }
    writer(world);
}
