/*
 * park.c: waiting without burning the machine, and waking without synchronizing.
 *
 * A wait polls briefly (a signal between two cores takes a few hundred ns), then parks on a
 * futex; under valgrind, or when the job has more live threads than cores, it parks at once
 * (docs/design.md D4): 64 emulated blocks on 2 cores must make progress.
 *
 * Wake-ups go through a fixed table of buckets chosen by address. A waiter announces itself
 * in its bucket (and, for a heap word, in the owning PE's count), then re-checks its
 * condition and sleeps on the bucket's sequence word; a writer updates the word, then wakes
 * the bucket only if someone announced. Both sides put a seq_cst fence between their write
 * and their read (the Dekker pattern), so no wake-up is lost. Everything here is relaxed
 * atomics, fences and raw futex calls: helgrind, DRD and TSan see no happens-before edge in
 * it, so the bookkeeping hides no race (docs/design.md D4). The ordering users rely on comes only
 * from the acquire annotation a wait makes once satisfied.
 *
 * The table is process-wide (the one mutable global besides "who am I"): a word outside
 * every heap, such as an emulated kernel's flag, must be wakeable too. A process job moves
 * it into the job's shared records for the job's length, and its futex calls become
 * process-shared (futex.h), so PEs in different processes wake each other. Sleeps are bounded
 * (1 ms growing to 100 ms), so a plain store that nobody follows with a wake is still seen,
 * and the hang timeout is checked between sleeps.
 *
 * Layer: above what a wait calls: delivery (a wait delivers its thread's queue before it
 * parks), the heap (whose word it is), the scheduler (in deterministic mode a wait is its
 * decision) and the hang report; below the threads backend, whose wake and barrier are
 * built from this file. Writers (delivery.c, signal.c, amo.c) wake through the backend's
 * wake op in world->backend, so they and this file call each other at run time without
 * depending on each other at link time (docs/design.md, "Layering").
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "shmemu/internal/futex.h"

#define WAKE_BUCKETS 1024
#define SLEEP_MIN_NS 1000000ull
#define SLEEP_MAX_NS 100000000ull
/* On a ranks backend (MPI) a peer's put into this process's heap wakes no futex here: the
 * wait sleeps this long between polls, and lets the backend progress. */
#define RANKS_SLEEP_NS 20000ull
#define WAKE_RANGE_WORDS 64

typedef pgas_wake_bucket wake_bucket;

static wake_bucket private_wake_table[WAKE_BUCKETS] __attribute__((aligned(64)));
/* private_wake_table, or during a process job one in the job's shared records, so that a
 * write in one PE process wakes a waiter parked in another (pgas_park_share_wake_table). */
static wake_bucket *wake_table = private_wake_table;

/* Marked when the library is loaded, before any PE exists (as emu's pe.c makes its key): a
 * pthread_once on the wake path would be a happens-before edge the checkers honour, from the
 * first PE to wake anyone (which completes the once) to every PE that wakes later. */
__attribute__((constructor)) static void wake_table_ignore(void)
{
    pgas_checker_ignore(private_wake_table, sizeof private_wake_table);
}

void pgas_park_share_wake_table(void)
{
    wake_bucket *shared = pgas_job_calloc(WAKE_BUCKETS, sizeof *shared);
    if (shared == NULL) {
        fprintf(stderr, "shmemu: no room for the wake-up table in the job's shared records\n");
        exit(2);
    }
    pgas_checker_ignore(shared, WAKE_BUCKETS * sizeof *shared);
    wake_table = shared;
}

void pgas_park_private_wake_table(void) { wake_table = private_wake_table; }

static wake_bucket *bucket_of(const volatile void *addr)
{
    uint64_t h = ((uint64_t)(uintptr_t)addr >> 3) * 0x9e3779b97f4a7c15ull;
    return &wake_table[h >> (64 - 10)];
}

static _Atomic uint64_t wakes_sent;

uint64_t shmemu_wakes_sent(void) { return atomic_load_explicit(&wakes_sent, memory_order_relaxed); }

int shmemu_parked_on(int pe)
{
    pgas_thread *t = pgas_thread_self();
    if (t == NULL || pe < 0 || pe >= t->world->n_pes)
        return -1;
    return atomic_load_explicit(&t->world->pes[pe].parked, memory_order_relaxed);
}

static void wake_bucket_if_parked(wake_bucket *b)
{
    if (atomic_load_explicit(&b->parked, memory_order_relaxed) != 0) {
        atomic_fetch_add_explicit(&wakes_sent, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->seq, 1, memory_order_relaxed);
        shmemu_futex_wake_all(&b->seq);
    }
}

/* ---- the waiters of a PE's heap ------------------------------------------------------ */

/* Lists the word a thread is about to park on in its PE's slots; returns the slot, or -1
 * when all are taken (the waiter then counts in parked_unlisted). */
static int list_parked_word(pgas_pe *pe, const volatile void *addr)
{
    for (int i = 0; i < PGAS_PARKED_SLOTS; i++) {
        uintptr_t expected = 0;
        if (atomic_load_explicit(&pe->parked_words[i], memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&pe->parked_words[i], &expected, (uintptr_t)addr))
            return i;
    }
    atomic_fetch_add(&pe->parked_unlisted, 1);
    return -1;
}

static void unlist_parked_word(pgas_pe *pe, int slot)
{
    if (slot >= 0)
        atomic_store(&pe->parked_words[slot], 0);
    else
        atomic_fetch_sub(&pe->parked_unlisted, 1);
}

/* Wakes the listed waiters on a word of [addr, addr + bytes) in the owner's heap; false when
 * the list cannot tell (the range is not in a heap, or some waiter is unlisted). A long put
 * used to wake every parked thread of the job: each woke, found its word unchanged and
 * slept again, and under valgrind each of those context switches costs DRD a recomputed
 * conflict set (a 3D fused halo with put-with-signal ran 4x slower under DRD for it). The
 * waiter lists its word before its fence and its last look at the word; the writer looks at
 * the list after its fence (pgas_wake_range): one of the two sees the other's write. */
static bool wake_listed(pgas_world *world, const volatile void *addr, size_t bytes)
{
    size_t offset;
    int owner = pgas_be_owner(world, addr, &offset);
    if (owner < 0)
        return false;
    pgas_pe *pe = &world->pes[owner];
    if (atomic_load_explicit(&pe->parked_unlisted, memory_order_relaxed) != 0)
        return false;
    const uintptr_t lo = (uintptr_t)addr, hi = lo + bytes;
    for (int i = 0; i < PGAS_PARKED_SLOTS; i++) {
        uintptr_t w = atomic_load_explicit(&pe->parked_words[i], memory_order_relaxed);
        if (w != 0 && w + 8 > lo && w < hi)
            wake_bucket_if_parked(bucket_of((const void *)w));
    }
    return true;
}

void pgas_wake(const volatile void *addr) { pgas_wake_range(addr, 1); }

void pgas_wake_range(const volatile void *addr, size_t bytes)
{
    atomic_thread_fence(memory_order_seq_cst);
    pgas_thread *t = pgas_current();
    if (t != NULL && __builtin_expect(t->ent != NULL, 0)) {
        /* deterministic mode: waits are re-evaluated by the scheduler, nobody parks here;
         * a runtime write is a sync point */
        pgas_sched_note_write(t, addr, bytes);
        pgas_sched_point_slow(t, t->api_call != NULL ? t->api_call : "a runtime write", false);
        return;
    }
    if (t != NULL) {
        size_t offset;
        int owner = pgas_be_owner(t->world, addr, &offset);
        if (owner >= 0) {
            pgas_pe *pe = &t->world->pes[owner];
            if (atomic_load_explicit(&pe->parked, memory_order_relaxed) == 0)
                return; /* the common case: nobody waits on that PE */
            wake_bucket_if_parked(&pe->any_word_bucket);
        }
    }
    size_t words = (bytes + 7) / 8;
    if (words > WAKE_RANGE_WORDS && t != NULL && wake_listed(t->world, addr, bytes))
        return;
    if (words <= WAKE_RANGE_WORDS) {
        uintptr_t first = (uintptr_t)addr & ~(uintptr_t)7;
        for (size_t i = 0; i < words + 1; i++)
            wake_bucket_if_parked(bucket_of((const void *)(first + 8 * i)));
    } else {
        for (size_t i = 0; i < WAKE_BUCKETS; i++)
            wake_bucket_if_parked(&wake_table[i]);
    }
}

/* ---- the wait loop ------------------------------------------------------------------- */

typedef struct wait_condition {
    const volatile void *addr;
    pgas_kind kind;
    int cmp;
    uint64_t value;
    pgas_order order;
    bool (*ready)(void *ctx);
    void *ctx;
    uint64_t seen; /* the value that satisfied a value wait */
} wait_condition;

static bool condition_holds(wait_condition *c)
{
    if (c->ready != NULL)
        return c->ready(c->ctx);
    c->seen = pgas_load_ordered(c->addr, c->kind, c->order);
    return pgas_compare(c->seen, c->kind, c->cmp, c->value);
}

static bool may_spin(const pgas_thread *t)
{
    if (t == NULL)
        return true;
    const pgas_config *cfg = &t->world->config;
    return !cfg->under_valgrind && cfg->spin_polls > 0 &&
           atomic_load_explicit(&t->world->live_threads, memory_order_relaxed) <= cfg->n_cores;
}

/* Set by the wait hook when it lets the thread park while other fibers of it also poll:
 * then the scheduler cannot evaluate the one condition alone. */
static _Thread_local bool other_pollers;

void pgas_thread_note_other_pollers(void) { other_pollers = true; }

static void record_wait(pgas_thread *t, const wait_condition *c, const char *call,
                        const char *what)
{
    pgas_wait_record *r = &t->wait;
    atomic_exchange(&r->fiber, pgas_thread_current_fiber());
    atomic_exchange(&r->addr, (uintptr_t)c->addr);
    atomic_exchange(&r->kind, (int)c->kind);
    atomic_exchange(&r->cmp, c->cmp);
    atomic_exchange(&r->value, c->value);
    atomic_exchange(&r->call, call);
    atomic_exchange(&r->what, what);
    /* the program's call site, if this API call noted it: not a stale one of an earlier call
     * (the emulator's own waits, a grid sync, make no API call that would replace it) */
    bool noted = t->caller_call != NULL && t->caller_call == t->api_call && call != NULL &&
                 strcmp(t->caller_call, call) == 0;
    atomic_exchange(&r->caller, noted ? (uintptr_t)t->caller : 0);
    atomic_exchange(&r->site_pc, (uintptr_t)t->site.pc);
    atomic_exchange(&r->site_file, t->site.file);
    atomic_exchange(&r->site_line, t->site.line);
    atomic_exchange(&r->since_ns, pgas_now_ns());
    atomic_exchange(&r->active, 1);
}

/* The wait hook of this thread (pgas_thread_set_wait_hook): the emulator's block threads
 * run other fibers from it instead of parking while some of them can still run. */
static _Thread_local bool (*wait_hook)(void *ctx);
static _Thread_local void *wait_hook_ctx;

void pgas_thread_set_wait_hook(bool (*hook)(void *ctx), void *ctx)
{
    wait_hook = hook;
    wait_hook_ctx = ctx;
}

/* Runs the wait hook for t's waiting fiber. The fibers it runs make API calls of their own
 * on the same pgas_thread, which overwrite the call in progress and its call sites; they
 * are this fiber's again when it resumes, so that its wait record names its own call and
 * line, and its later writes its own call. */
static bool run_wait_hook(pgas_thread *t)
{
    if (t == NULL)
        return wait_hook(wait_hook_ctx);
    const char *api_call = t->api_call, *caller_call = t->caller_call;
    const void *caller = t->caller;
    pgas_call_site site = t->site;
    bool ran = wait_hook(wait_hook_ctx);
    t->api_call = api_call;
    t->caller_call = caller_call;
    t->caller = caller;
    t->site = site;
    return ran;
}

/* Deterministic mode: the wait is a sync point; while the condition is false the thread
 * gives the turn away until memory may have changed (the scheduler's epoch moved), running
 * its block's other fibers first. Returns false when a soft wait (a poll) was resumed as a
 * last resort with its condition still false. */
static bool wait_deterministic(pgas_thread *t, wait_condition *c, const char *call,
                               const char *what, bool soft)
{
    pgas_sched_point_slow(t, call, !soft);
    bool holds = true;
    for (;;) {
        uint64_t epoch = pgas_sched_epoch(t);
        if (condition_holds(c))
            break;
        other_pollers = false;
        if (wait_hook != NULL && run_wait_hook(t))
            continue; /* other fibers of this block ran: check again */
        if (t->n_pending > 0) {
            /* About to give the turn away blocked: deliver this thread's queued puts (all of
             * its fibers'), as a wait about to park does. Nobody else delivers them, so a
             * wait on a reply to one of them would deadlock. Delivery may satisfy the
             * condition (a put to this PE) and is a sync point: check again. */
            pgas_deliver_all(t);
            continue;
        }
        record_wait(t, c, call, what);
        bool last_resort;
        if (c->ready == NULL && !other_pollers)
            last_resort = pgas_sched_block_value(t, call, soft, c->addr, c->kind, c->cmp,
                                                 c->value);
        else
            last_resort = pgas_sched_block(t, call, soft, epoch);
        if (last_resort && !condition_holds(c)) {
            holds = false;
            break;
        }
    }
    atomic_exchange(&t->wait.active, 0);
    return holds;
}

/* any_word_of_pe >= 0: the condition reads several words of that PE's heap, so park on
 * the PE's bucket, which every write into that heap wakes while someone is parked. */
static bool wait_until_holds(wait_condition *c, const char *call, const char *what,
                             int any_word_of_pe, bool soft)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && __builtin_expect(t->ent != NULL, 0))
        return wait_deterministic(t, c, call, what, soft);
    if (may_spin(t)) {
        int polls = t != NULL ? t->world->config.spin_polls : 2000;
        for (int i = 0; i < polls; i++) {
            if (condition_holds(c))
                return true;
            __builtin_ia32_pause();
        }
    }
    if (condition_holds(c))
        return true;
    wake_bucket *b = bucket_of(c->addr);
    _Atomic int *pe_parked = NULL;
    pgas_pe *listing = NULL; /* the PE whose list names this wait's word while it parks */
    if (t != NULL) {
        int owner = any_word_of_pe >= 0 ? any_word_of_pe : pgas_heap_owner(t->world, c->addr);
        if (owner >= 0)
            pe_parked = &t->world->pes[owner].parked;
        if (owner >= 0 && any_word_of_pe < 0)
            listing = &t->world->pes[owner];
        if (any_word_of_pe >= 0)
            b = &t->world->pes[any_word_of_pe].any_word_bucket;
        record_wait(t, c, call, what);
    }
    uint64_t start = pgas_now_ns();
    const bool ranks = t != NULL && t->world->backend->ranks;
    uint64_t sleep_ns = ranks ? RANKS_SLEEP_NS : SLEEP_MIN_NS;
    double timeout_s = t != NULL ? t->world->config.hang_timeout_s : 0.0;
    for (;;) {
        if (wait_hook != NULL && run_wait_hook(t)) {
            /* Other fibers of this thread ran (and may have waited themselves): check
             * again, and restore this wait's record, before parking. */
            if (condition_holds(c))
                break;
            if (t != NULL)
                record_wait(t, c, call, what);
            if (timeout_s > 0.0 && (double)(pgas_now_ns() - start) * 1e-9 > timeout_s)
                pgas_hang_report(t->world, t);
            continue;
        }
        /* About to park: deliver this thread's queued puts first, those of the fibers the
         * wait hook just ran included. A wait must never depend on puts that only this
         * thread's later progress would deliver. */
        if (t != NULL && t->n_pending > 0) {
            pgas_deliver_all(t);
            if (condition_holds(c))
                break;
        }
        if (ranks)
            pgas_be_progress(t->world);
        uint32_t seq = atomic_load_explicit(&b->seq, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->parked, 1, memory_order_relaxed);
        if (pe_parked != NULL)
            atomic_fetch_add_explicit(pe_parked, 1, memory_order_relaxed);
        int slot = listing != NULL ? list_parked_word(listing, c->addr) : -1;
        atomic_thread_fence(memory_order_seq_cst);
        bool done = condition_holds(c);
        if (!done)
            shmemu_futex_wait(&b->seq, seq, sleep_ns);
        if (listing != NULL)
            unlist_parked_word(listing, slot);
        atomic_fetch_sub_explicit(&b->parked, 1, memory_order_relaxed);
        if (pe_parked != NULL)
            atomic_fetch_sub_explicit(pe_parked, 1, memory_order_relaxed);
        if (done || condition_holds(c))
            break;
        if (sleep_ns < SLEEP_MAX_NS && !ranks)
            sleep_ns *= 2;
        if (timeout_s > 0.0 && (double)(pgas_now_ns() - start) * 1e-9 > timeout_s)
            pgas_hang_report(t->world, t);
    }
    if (t != NULL)
        atomic_exchange(&t->wait.active, 0);
    return true;
}

uint64_t pgas_wait_value(const volatile void *addr, pgas_kind kind, int cmp, uint64_t value,
                         pgas_order order, const char *call)
{
    wait_condition c = {.addr = addr, .kind = kind, .cmp = cmp, .value = value, .order = order};
    wait_until_holds(&c, call, NULL, -1, false);
    if (order == PGAS_ACQUIRE || order == PGAS_ACQ_REL)
        pgas_hb_after(addr);
    if (pgas_sched_maybe())
        pgas_sched_observe(addr);
    return c.seen;
}

void pgas_wait_predicate(const volatile void *addr, bool (*ready)(void *ctx), void *ctx,
                         const char *call, const char *what)
{
    wait_condition c = {.addr = addr, .kind = PGAS_KIND_NONE, .ready = ready, .ctx = ctx};
    wait_until_holds(&c, call, what, -1, false);
}

bool pgas_wait_value_soft(const volatile void *addr, pgas_kind kind, int cmp, uint64_t value,
                          const char *call)
{
    wait_condition c = {.addr = addr, .kind = kind, .cmp = cmp, .value = value,
                         .order = PGAS_RELAXED};
    return wait_until_holds(&c, call, NULL, -1, true);
}

bool pgas_wait_predicate_soft(const volatile void *addr, bool (*ready)(void *ctx), void *ctx,
                              const char *call, const char *what)
{
    wait_condition c = {.addr = addr, .kind = PGAS_KIND_NONE, .ready = ready, .ctx = ctx};
    return wait_until_holds(&c, call, what, -1, true);
}

void pgas_wait_heap_predicate(int pe, const volatile void *addr, bool (*ready)(void *ctx),
                              void *ctx, const char *call, const char *what)
{
    wait_condition c = {.addr = addr, .kind = PGAS_KIND_NONE, .ready = ready, .ctx = ctx};
    wait_until_holds(&c, call, what, pe, false);
}
