/*
 * delivery.c: when a put's bytes reach the target, and in what order (docs/design.md D7).
 *
 * Normally a put is delivered at once, by the initiating thread, in program order. That is
 * one legal execution, and the one that hides a missing fence or quiet. In checking mode
 * (SHMEMU_CHECK_NBI=1) puts are queued on the initiating thread and delivered later, in a
 * seeded random order, within what the specification allows:
 *   - a put-with-signal delivers its data, then its signal, as one unit;
 *   - nvshmem_fence: puts to a PE issued before it are delivered before those issued after
 *     it (each queued put carries the fence epoch it was issued in);
 *   - nvshmem_quiet (and barrier_all, and a wait about to park) delivers everything;
 *   - a get, an atomic or a signal op on PE p first delivers what a fence put before it;
 *     a get also delivers everything queued to p, so a PE reads its own writes.
 * A get_nbi is queued the same way: its destination is written at delivery, so reading
 * it before nvshmem_quiet reads stale bytes.
 * A non-blocking put keeps a reference to its source, read at delivery (so reusing the
 * source before quiet changes the answer, as on a GPU); a blocking put takes a snapshot,
 * because its source may be reused as soon as it returns.
 * A put delivered for progress only (a wait about to park, a _test call, the end of an
 * emulated thread) is not complete: until nvshmem_quiet (or a barrier) on its thread, its
 * source is still in use, as on a GPU where the copy engine may still be reading it. Its
 * source's bytes are remembered (a hash, in the PE's reuse table); the next put from the same
 * source, and the issuer's quiet, check that they did not change, and fail naming both puts
 * when they did: the "missing quiet before the staging buffer is reused" mistake, which no
 * race checker sees because the bytes had in fact left.
 *
 * Layer: below the heap (an allocation quiets first) and the waits (a wait delivers its
 * thread's queue before it parks). A delivered put wakes parked waiters through the
 * backend's wake op in world->backend (backend.h): it reaches park.c at run time, and this
 * file does not name it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "nvshmem.h"
#include "ordering.h"

struct pgas_pending {
    int pe;
    uint32_t epoch;
    char *target;
    const void *src;
    void *snapshot; /* owned copy for blocking puts, else NULL */
    size_t bytes;
    bool is_get; /* a get_nbi: copy from the remote src into the local target */
    bool has_signal;
    uint64_t *sig_target;
    int sig_op;
    uint64_t signal;
    const char *call; /* the API call that issued it (for reports) */
};

/* The backend's put (a naturally aligned word is one atomic store), between the release
 * annotation and the wake-up. */
static void copy_and_publish(const pgas_world *w, int pe, char *target, const void *src,
                             size_t bytes)
{
    /* The start of a put is a release point: a waiter on this word (a flag written with
     * nvshmem_p after a fence) acquires everything the initiator did before. */
    pgas_hb_before(target);
    pgas_be_put(w, pe, target, src, bytes);
    pgas_be_wake(w, target, bytes);
}

static void deliver_now(const pgas_world *w, const pgas_pending *p)
{
    if (p->is_get) {
        pgas_be_get(w, p->pe, p->target, p->src, p->bytes);
        return;
    }
    const bool signal_first = p->has_signal && !pgas_ordering()->signal_after_data;
    if (signal_first)
        pgas_signal_apply(w, p->sig_target, p->sig_op, p->signal, PGAS_RELEASE);
    if (p->bytes > 0)
        copy_and_publish(w, p->pe, p->target, p->snapshot != NULL ? p->snapshot : p->src,
                         p->bytes);
    if (p->has_signal && !signal_first)
        pgas_signal_apply(w, p->sig_target, p->sig_op, p->signal, PGAS_RELEASE);
}

static void enqueue(pgas_thread *t, const pgas_pending *p)
{
    if (t->n_pending == t->cap_pending) {
        size_t cap = t->cap_pending ? t->cap_pending * 2 : 16;
        pgas_pending *q = realloc(t->pending, cap * sizeof *q);
        if (q == NULL) {
            fprintf(stderr, "shmemu: out of memory queueing a put\n");
            exit(2);
        }
        t->pending = q;
        t->cap_pending = cap;
    }
    t->pending[t->n_pending++] = *p;
}

/* An op may go when no op to the same PE from an earlier fence epoch is still queued. */
static bool eligible(const pgas_thread *t, size_t i)
{
    for (size_t j = 0; j < t->n_pending; j++) {
        if (t->pending[j].pe == t->pending[i].pe && t->pending[j].epoch < t->pending[i].epoch)
            return false;
    }
    return true;
}

/* ---- source reuse before completion --------------------------------------------------- */

static uint64_t bytes_hash(const void *src, size_t bytes)
{
    const unsigned char *c = src;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

/* The PE's slot for a source address: found, or claimed when `claim`; NULL when absent (or
 * the table is full: the check then skips that source, it never reports wrongly). */
static pgas_reuse_slot *reuse_slot(pgas_thread *t, const void *src, bool claim, int *index)
{
    pgas_reuse_slot *table = t->world->pes[t->pe].reuse;
    const uintptr_t key = (uintptr_t)src;
    for (int probe = 0; probe < PGAS_REUSE_SLOTS; probe++) {
        const int i = (int)((key / 8 + (uintptr_t)probe) % PGAS_REUSE_SLOTS);
        uintptr_t cur = atomic_load_explicit(&table[i].src, memory_order_relaxed);
        if (cur == 0 && claim &&
            atomic_compare_exchange_strong_explicit(&table[i].src, &cur, key,
                                                    memory_order_relaxed, memory_order_relaxed))
            cur = key;
        if (cur == key) {
            *index = i;
            return &table[i];
        }
        if (cur == 0)
            return NULL;
    }
    return NULL;
}

/* A non-blocking put from src was delivered, not completed: remember its source's bytes. */
static void reuse_arm(pgas_thread *t, const pgas_pending *p)
{
    if (t->n_armed == PGAS_REUSE_SLOTS)
        return; /* this thread holds a slot in every entry already: nothing left to track */
    int index;
    pgas_reuse_slot *s = reuse_slot(t, p->src, true, &index);
    if (s == NULL)
        return;
    atomic_exchange_explicit(&s->bytes, p->bytes, memory_order_relaxed);
    atomic_exchange_explicit(&s->hash, bytes_hash(p->src, p->bytes), memory_order_relaxed);
    atomic_exchange_explicit(&s->to_pe, (uint64_t)p->pe, memory_order_relaxed);
    atomic_exchange_explicit(&s->call, p->call, memory_order_relaxed);
    atomic_exchange_explicit(&s->issuer, t, memory_order_relaxed);
    atomic_exchange_explicit(&s->armed, 1, memory_order_relaxed);
    for (int k = 0; k < t->n_armed; k++)
        if (t->armed[k] == index)
            return;
    t->armed[t->n_armed++] = index;
}

/* Fails when an armed slot's source changed: `call` (on this thread) found it. */
static void reuse_check_slot(pgas_thread *t, pgas_reuse_slot *s, const char *call,
                             const char *found_by)
{
    if (atomic_load_explicit(&s->armed, memory_order_relaxed) == 0)
        return;
    const void *src = (const void *)atomic_load_explicit(&s->src, memory_order_relaxed);
    const size_t bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed);
    if (bytes_hash(src, bytes) == atomic_load_explicit(&s->hash, memory_order_relaxed))
        return;
    const pgas_thread *issuer = atomic_load_explicit(&s->issuer, memory_order_relaxed);
    const char *first = atomic_load_explicit(&s->call, memory_order_relaxed);
    char where[160];
    pgas_describe_address(t->world, src, where, sizeof where);
    pgas_fail(call,
              "the source of an earlier non-blocking put (%s of %zu bytes from %s to PE %d, "
              "issued by %s) was overwritten before that put was complete: no nvshmem_quiet "
              "(or barrier) followed it on its thread, and %s found the bytes changed; call "
              "nvshmem_quiet after a non-blocking put and before reusing its source buffer",
              first != NULL ? first : "a put", bytes, where,
              (int)atomic_load_explicit(&s->to_pe, memory_order_relaxed),
              issuer != NULL ? issuer->label : "?", found_by);
}

/* A new put reads src: an earlier incomplete put from the same source must still see the
 * bytes it was given. */
static void reuse_check_source(pgas_thread *t, const void *src, size_t bytes)
{
    int index;
    pgas_reuse_slot *s = reuse_slot(t, src, false, &index);
    if (s != NULL && atomic_load_explicit(&s->bytes, memory_order_relaxed) == bytes)
        reuse_check_slot(t, s, t->api_call != NULL ? t->api_call : "put",
                         "this put from the same source");
}

/* Quiet: this thread's puts are complete; their sources must not have changed before. */
static void reuse_complete(pgas_thread *t)
{
    pgas_reuse_slot *table = t->world->pes[t->pe].reuse;
    for (int k = 0; k < t->n_armed; k++) {
        pgas_reuse_slot *s = &table[t->armed[k]];
        reuse_check_slot(t, s, "nvshmem_quiet", "the issuing thread's nvshmem_quiet");
        if (atomic_load_explicit(&s->issuer, memory_order_relaxed) == t)
            atomic_exchange_explicit(&s->armed, 0, memory_order_relaxed);
    }
    t->n_armed = 0;
}

/* ---- queue ---------------------------------------------------------------------------- */

static void deliver_at(pgas_thread *t, size_t i, bool completes)
{
    pgas_pending p = t->pending[i];
    /* Keep queue order for the rest; the order of delivery comes from the random picks. */
    memmove(&t->pending[i], &t->pending[i + 1], (t->n_pending - i - 1) * sizeof *t->pending);
    t->n_pending--;
    deliver_now(t->world, &p);
    if (!completes && !p.is_get && p.snapshot == NULL && p.bytes > 0)
        reuse_arm(t, &p);
    free(p.snapshot);
}

/* Delivers, in random eligible order, the queued ops that match (pe < 0: all PEs);
 * `completes` when a quiet delivers them (their sources are then free). */
static void deliver_matching(pgas_thread *t, int pe, uint32_t below_epoch, bool completes)
{
    for (;;) {
        size_t candidates[64];
        size_t n = 0;
        for (size_t i = 0; i < t->n_pending && n < 64; i++) {
            const pgas_pending *p = &t->pending[i];
            if ((pe < 0 || p->pe == pe) && p->epoch < below_epoch && eligible(t, i))
                candidates[n++] = i;
        }
        if (n == 0)
            return;
        deliver_at(t, candidates[pgas_rng_next(&t->rng) % n], completes);
    }
}

/* At each new put, deliver a random number of eligible queued ops: late, but not only at
 * quiet, so that orders other than "all at the end" occur too. */
static void deliver_some(pgas_thread *t)
{
    while (t->n_pending > 0 && pgas_rng_next(&t->rng) % 3 == 0) {
        size_t i = pgas_rng_next(&t->rng) % t->n_pending;
        if (eligible(t, i))
            deliver_at(t, i, false);
    }
}

/* Queues a put (checking mode): a blocking put snapshots its source, since the caller may
 * reuse it on return; a non-blocking one reads the source at delivery. */
static void queue_put(pgas_thread *t, pgas_pending *p, bool nbi)
{
    if (!nbi && p->bytes > 0) {
        p->snapshot = malloc(p->bytes);
        if (p->snapshot == NULL) {
            fprintf(stderr, "shmemu: out of memory queueing a put of %zu bytes\n", p->bytes);
            exit(2);
        }
        memcpy(p->snapshot, p->src, p->bytes);
    }
    if (p->bytes > 0)
        reuse_check_source(t, p->src, p->bytes);
    p->call = t->api_call;
    deliver_some(t);
    enqueue(t, p);
}

void pgas_deliver_put(pgas_thread *t, int pe, char *target, const void *src, size_t bytes,
                      bool nbi)
{
    if (!t->world->config.check_nbi) {
        if (bytes > 0)
            copy_and_publish(t->world, pe, target, src, bytes);
        return;
    }
    pgas_pending p = {.pe = pe, .epoch = t->fence_epoch, .target = target, .src = src,
                      .bytes = bytes};
    queue_put(t, &p, nbi);
}

void pgas_deliver_put_signal(pgas_thread *t, int pe, char *target, const void *src,
                             size_t bytes, uint64_t *sig_target, int sig_op, uint64_t signal,
                             bool nbi)
{
    if (!t->world->config.check_nbi) {
        const bool signal_first = !pgas_ordering()->signal_after_data;
        if (signal_first)
            pgas_signal_apply(t->world, sig_target, sig_op, signal, PGAS_RELEASE);
        if (bytes > 0)
            copy_and_publish(t->world, pe, target, src, bytes);
        if (!signal_first)
            pgas_signal_apply(t->world, sig_target, sig_op, signal, PGAS_RELEASE);
        return;
    }
    pgas_pending p = {.pe = pe, .epoch = t->fence_epoch, .target = target, .src = src,
                      .bytes = bytes, .has_signal = true, .sig_target = sig_target,
                      .sig_op = sig_op, .signal = signal};
    queue_put(t, &p, nbi);
}

void pgas_deliver_get(pgas_thread *t, int pe, char *local_dest, const char *remote_src,
                      size_t bytes, bool nbi)
{
    /* A PE reads its own earlier puts to that PE, as a blocking get must. */
    pgas_deliver_before_op(t, pe, true);
    if (!t->world->config.check_nbi || !nbi) {
        pgas_be_get(t->world, pe, local_dest, remote_src, bytes);
        return;
    }
    pgas_pending p = {.pe = pe, .epoch = t->fence_epoch, .target = local_dest,
                      .src = remote_src, .bytes = bytes, .is_get = true};
    deliver_some(t);
    enqueue(t, &p);
}

void pgas_fence(pgas_thread *t)
{
    if (t->n_pending > 0 && pgas_ordering()->fence_orders)
        t->fence_epoch++;
}

void pgas_quiet(pgas_thread *t)
{
    if (!pgas_ordering()->quiet_completes)
        return;
    if (t->n_pending > 0)
        deliver_matching(t, -1, UINT32_MAX, true);
    if (t->n_armed > 0)
        reuse_complete(t);
}

void pgas_deliver_all(pgas_thread *t)
{
    if (t->n_pending > 0)
        deliver_matching(t, -1, UINT32_MAX, false);
}

void pgas_deliver_before_op(pgas_thread *t, int pe, bool all_to_pe)
{
    if (t->n_pending == 0)
        return;
    deliver_matching(t, pe, all_to_pe ? UINT32_MAX : t->fence_epoch, false);
}

void pgas_pending_free(pgas_thread *t)
{
    for (size_t i = 0; i < t->n_pending; i++)
        free(t->pending[i].snapshot);
    free(t->pending);
    t->pending = NULL;
    t->n_pending = t->cap_pending = 0;
}

void nvshmem_fence(void) { pgas_fence(pgas_require("nvshmem_fence")); }

void nvshmem_quiet(void) { pgas_quiet(pgas_require("nvshmem_quiet")); }
