/*
 * shmem_lock.c: OpenSHMEM's distributed locks, shmem_set_lock, shmem_test_lock and
 * shmem_clear_lock, on a symmetric long that is 0 on every PE before its first use.
 *
 * The lock is a ticket lock in PE 0's copy of the word (the other PEs' copies are not
 * used): the high 32 bits count the tickets handed out, the low 32 bits the ticket now
 * served. set_lock takes a ticket (a relaxed fetch-add on the high half) and waits until it
 * is served, so waiting PEs get the lock first come, first served, as OpenSHMEM promises;
 * test_lock takes a ticket only when it would be served at once (compare-and-swap);
 * clear_lock completes the caller's puts (quiet, as OpenSHMEM requires) and serves the next
 * ticket. The free lock is the word 0 (both halves equal), and so is a lock used to the end.
 *
 * What the race checkers see (docs/design.md D4): a lock is program synchronization, so
 * clear_lock is a release (annotate "before" on the word, then a release RMW) and a set_lock
 * that gets the lock, or a test_lock that does, an acquire ("after" on the word). Taking a
 * ticket and a failed test_lock are relaxed: they promise no ordering, so they show none.
 * The wait is the runtime's (pgas_wait_predicate): it parks, it is a decision of the
 * deterministic scheduler, and a lock never released is named in hang and deadlock reports.
 *
 * Misuse: each PE keeps the locks it holds (pgas_pe.locks_held), so clearing a lock the PE
 * does not hold, and setting a lock it already holds (which would wait for ever), are
 * reported naming the PE, the call and the lock (and its holder).
 */
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "shmem_internal.h"

#define TICKET_ONE (UINT64_C(1) << 32)
#define SERVING(word) ((uint32_t)(word))
#define NEXT_TICKET(word) ((uint32_t)((word) >> 32))

typedef struct lock_ref {
    pgas_thread *t;
    uint64_t *word; /* PE 0's copy of the lock */
    const char *call;
    bool remote;    /* the word is reached through the backend's atomics (MPI backend) */
} lock_ref;

/* An atomic on the lock word: C atomics where the PE may (order as given), else through the
 * backend, whose atomics are sequentially consistent and complete on return. */
static uint64_t lock_atomic(const lock_ref *l, pgas_amo_op op, uint64_t value, uint64_t cond)
{
    const pgas_world *w = l->t->world;
    return w->backend->amo(w, 0, (char *)l->word, sizeof *l->word, op, value, cond);
}

static lock_ref lock_begin(const char *call, long *lock)
{
    pgas_thread *t = pgas_require(call);
    if (lock == NULL)
        pgas_fail(call, "lock is NULL; pass the address of a symmetric long that is 0 on "
                        "every PE before its first use");
    if ((uintptr_t)lock % sizeof(long) != 0)
        pgas_fail(call, "lock %p is not aligned to a long", (void *)lock);
    uint64_t *word = (uint64_t *)pgas_heap_translate(t, call, "lock", lock, sizeof(long), 0);
    bool remote = pgas_be_amo_remote(t->world, 0, (const char *)word);
    return (lock_ref){.t = t, .word = word, .call = call, .remote = remote};
}

/* The slot of locks_held that holds the lock, or -1. */
static int held_slot(const pgas_pe *pe, const uint64_t *word)
{
    for (int i = 0; i < PGAS_LOCKS_HELD; i++)
        if (atomic_load_explicit(&pe->locks_held[i], memory_order_relaxed) == (uintptr_t)word)
            return i;
    return -1;
}

static void note_held(const lock_ref *l)
{
    pgas_pe *pe = &l->t->world->pes[l->t->pe];
    for (int i = 0; i < PGAS_LOCKS_HELD; i++) {
        uintptr_t expected = 0;
        if (atomic_compare_exchange_strong(&pe->locks_held[i], &expected, (uintptr_t)l->word))
            return;
    }
    pgas_fail(l->call, "this PE holds %d locks at once, the most shmemu can track; clear some "
                       "before setting more", PGAS_LOCKS_HELD);
}

/* "held by PE p" or "not held by any PE", for messages. */
static void describe_holder(const lock_ref *l, char *out, size_t len)
{
    const pgas_world *w = l->t->world;
    for (int p = 0; p < w->n_pes; p++) {
        if (p != l->t->pe && held_slot(&w->pes[p], l->word) >= 0) {
            snprintf(out, len, "it is held by PE %d", p);
            return;
        }
    }
    snprintf(out, len, "no PE holds it");
}

static void refuse_if_held(const lock_ref *l, long *lock)
{
    if (held_slot(&l->t->world->pes[l->t->pe], l->word) >= 0)
        pgas_fail(l->call, "lock %p is already held by this PE (PE %d): setting it again would "
                           "wait for ever; call shmem_clear_lock first", (void *)lock, l->t->pe);
}

typedef struct served_ctx {
    const lock_ref *l;
    const uint64_t *word;
    uint32_t ticket;
} served_ctx;

static bool ticket_served(void *ctx)
{
    const served_ctx *s = ctx;
    if (s->l->remote) {
        pgas_be_progress(s->l->t->world);
        return SERVING(lock_atomic(s->l, PGAS_AMO_FETCH, 0, 0)) == s->ticket;
    }
    return SERVING(__atomic_load_n(s->word, __ATOMIC_RELAXED)) == s->ticket;
}

/* The lock is this PE's: the acquire that pairs with the previous holder's clear. */
static void acquired(const lock_ref *l)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    pgas_hb_after(l->word);
    note_held(l);
}

void shmem_set_lock(long *lock)
{
    lock_ref l = lock_begin("shmem_set_lock", lock);
    PGAS_NOTE_CALLER(l.t);
    refuse_if_held(&l, lock);
    uint64_t old = l.remote ? lock_atomic(&l, PGAS_AMO_ADD, TICKET_ONE, 0)
                            : __atomic_fetch_add(l.word, TICKET_ONE, __ATOMIC_RELAXED);
    pgas_sched_point(l.t, l.call, false);
    served_ctx s = {.l = &l, .word = l.word, .ticket = NEXT_TICKET(old)};
    if (SERVING(old) != s.ticket)
        pgas_wait_predicate(l.word, ticket_served, &s, l.call,
                            "the lock to be cleared by its holder (shmem_clear_lock)");
    acquired(&l);
}

int shmem_test_lock(long *lock)
{
    lock_ref l = lock_begin("shmem_test_lock", lock);
    pgas_sched_point(l.t, l.call, false);
    if (l.remote) {
        uint64_t old = lock_atomic(&l, PGAS_AMO_FETCH, 0, 0);
        while (SERVING(old) == NEXT_TICKET(old)) {
            uint64_t seen = lock_atomic(&l, PGAS_AMO_CSWAP, old + TICKET_ONE, old);
            if (seen == old) {
                acquired(&l);
                return 0;
            }
            old = seen;
        }
        pgas_be_progress(l.t->world);
        return 1;
    }
    uint64_t old = __atomic_load_n(l.word, __ATOMIC_RELAXED);
    while (SERVING(old) == NEXT_TICKET(old)) {
        if (__atomic_compare_exchange_n(l.word, &old, old + TICKET_ONE, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            acquired(&l);
            return 0;
        }
    }
    pgas_sched_poll(l.call, false); /* a polling loop must let the holder run */
    return 1;
}

void shmem_clear_lock(long *lock)
{
    lock_ref l = lock_begin("shmem_clear_lock", lock);
    pgas_pe *pe = &l.t->world->pes[l.t->pe];
    int slot = held_slot(pe, l.word);
    if (slot < 0) {
        char holder[64];
        describe_holder(&l, holder, sizeof holder);
        pgas_fail(l.call, "lock %p is not held by this PE (PE %d; %s); clear only a lock this "
                          "PE set with shmem_set_lock or shmem_test_lock",
                  (void *)lock, l.t->pe, holder);
    }
    /* Everything the PE did in the critical section is complete before the next holder
     * gets the lock. */
    pgas_quiet(l.t);
    atomic_exchange(&pe->locks_held[slot], 0);
    pgas_hb_before(l.word);
    if (l.remote) {
        uint64_t old = lock_atomic(&l, PGAS_AMO_FETCH, 0, 0), next, seen;
        for (;;) {
            next = (old & ~(uint64_t)UINT32_MAX) | (uint32_t)(SERVING(old) + 1);
            if ((seen = lock_atomic(&l, PGAS_AMO_CSWAP, next, old)) == old)
                break;
            old = seen;
        }
        return;
    }
    uint64_t old = __atomic_load_n(l.word, __ATOMIC_RELAXED), next;
    do {
        /* serve the next ticket; the count of tickets (high half) is left alone */
        next = (old & ~(uint64_t)UINT32_MAX) | (uint32_t)(SERVING(old) + 1);
    } while (!__atomic_compare_exchange_n(l.word, &old, next, false, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED));
    pgas_be_wake(l.t->world, l.word, sizeof *l.word);
}
