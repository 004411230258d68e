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
 * Communication contexts (shmem_ctx.c): each context has its own queue on each thread that
 * uses it (pgas_queue), with its own fence epochs and armed sources. A call issues to the
 * queue t->q, the default context's unless a shmem_ctx_ call is running, so a fence orders
 * and a quiet completes that context's operations only, as OpenSHMEM 1.5 defines them; a
 * get or an atomic delivers what its own context owes its PE. Delivery for progress (a wait
 * about to park, detach) delivers every queue of the thread.
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
#include "events.h"
#include "nvshmem.h"
#include "ordering.h"
#include "shmemu/internal/pgas_emu.h"

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
    struct pgas_event *ev; /* a put-with-signal's event in the log (events.h), or NULL */
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
        pgas_ev_after(p->ev, pgas_signal_apply(w, p->pe, p->sig_target, p->sig_op, p->signal,
                                               PGAS_RELEASE));
    if (p->bytes > 0)
        copy_and_publish(w, p->pe, p->target, p->snapshot != NULL ? p->snapshot : p->src,
                         p->bytes);
    if (p->has_signal && !signal_first)
        pgas_ev_after(p->ev, pgas_signal_apply(w, p->pe, p->sig_target, p->sig_op, p->signal,
                                               PGAS_RELEASE));
}

static void enqueue(pgas_thread *t, pgas_queue *q, const pgas_pending *p)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        pgas_pending *grown = realloc(q->pending, cap * sizeof *grown);
        if (grown == NULL) {
            fprintf(stderr, "shmemu: out of memory queueing a put\n");
            exit(2);
        }
        q->pending = grown;
        q->cap = cap;
    }
    q->pending[q->n++] = *p;
    t->n_pending++;
}

/* An op may go when no op to the same PE from an earlier fence epoch is still queued. */
static bool eligible(const pgas_queue *q, size_t i)
{
    for (size_t j = 0; j < q->n; j++) {
        if (q->pending[j].pe == q->pending[i].pe && q->pending[j].epoch < q->pending[i].epoch)
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
static void reuse_arm(pgas_thread *t, pgas_queue *q, const pgas_pending *p)
{
    if (q->n_armed == PGAS_REUSE_SLOTS)
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
    atomic_exchange_explicit(&s->grid_mark,
                             atomic_load_explicit(&t->world->pes[t->pe].grid_syncs,
                                                  memory_order_relaxed),
                             memory_order_relaxed);
    atomic_exchange_explicit(&s->armed, 1, memory_order_relaxed);
    for (int k = 0; k < q->n_armed; k++)
        if (q->armed[k] == index)
            return;
    q->armed[q->n_armed++] = index;
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

/* Quiet: this thread's puts on q's context are complete; their sources must not have
 * changed before. */
static void reuse_complete(pgas_thread *t, pgas_queue *q)
{
    pgas_reuse_slot *table = t->world->pes[t->pe].reuse;
    for (int k = 0; k < q->n_armed; k++) {
        pgas_reuse_slot *s = &table[q->armed[k]];
        reuse_check_slot(t, s, "nvshmem_quiet", "the issuing thread's nvshmem_quiet");
        if (atomic_load_explicit(&s->issuer, memory_order_relaxed) == t)
            atomic_exchange_explicit(&s->armed, 0, memory_order_relaxed);
    }
    q->n_armed = 0;
}

/* Quiet after a grid sync: the puts other threads of the PE delivered before a grid sync
 * this thread has since left happen before this quiet, which completes them too (NVSHMEM's
 * quiet completes the PE's operations; a grid sync orders the other blocks' issue before it).
 * Their sources must not have changed before; a put delivered after that sync is not ordered
 * before this quiet and stays armed. (A slot its issuer re-arms while this runs may be
 * disarmed with it: a missed report, never a false one.) */
static void reuse_complete_synced(pgas_thread *t)
{
    const uint64_t seen = t->grid_syncs_seen;
    if (seen == 0 || !t->world->config.check_nbi)
        return; /* only the checking mode arms slots: nothing to scan */
    pgas_reuse_slot *table = t->world->pes[t->pe].reuse;
    for (int i = 0; i < PGAS_REUSE_SLOTS; i++) {
        pgas_reuse_slot *s = &table[i];
        if (atomic_load_explicit(&s->armed, memory_order_relaxed) == 0 ||
            atomic_load_explicit(&s->issuer, memory_order_relaxed) == t ||
            atomic_load_explicit(&s->grid_mark, memory_order_relaxed) >= seen)
            continue;
        reuse_check_slot(t, s, "nvshmem_quiet", "an nvshmem_quiet after a grid sync");
        atomic_exchange_explicit(&s->armed, 0, memory_order_relaxed);
    }
}

void pgas_grid_sync_arrive(void)
{
    pgas_thread *t = pgas_current();
    if (t != NULL)
        pgas_deliver_all(t);
}

void pgas_grid_sync_release(void)
{
    pgas_thread *t = pgas_current();
    if (t != NULL)
        atomic_fetch_add_explicit(&t->world->pes[t->pe].grid_syncs, 1, memory_order_relaxed);
}

void pgas_grid_sync_leave(void)
{
    pgas_thread *t = pgas_current();
    if (t != NULL)
        t->grid_syncs_seen =
            atomic_load_explicit(&t->world->pes[t->pe].grid_syncs, memory_order_relaxed);
}

/* ---- queue ---------------------------------------------------------------------------- */

static void deliver_at(pgas_thread *t, pgas_queue *q, size_t i, bool completes)
{
    pgas_pending p = q->pending[i];
    /* Keep queue order for the rest; the order of delivery comes from the random picks. */
    memmove(&q->pending[i], &q->pending[i + 1], (q->n - i - 1) * sizeof *q->pending);
    q->n--;
    t->n_pending--;
    deliver_now(t->world, &p);
    if (!completes && !p.is_get && p.snapshot == NULL && p.bytes > 0)
        reuse_arm(t, q, &p);
    free(p.snapshot);
}

/* Delivers, in random eligible order, q's queued ops that match (pe < 0: all PEs);
 * `completes` when a quiet delivers them (their sources are then free). */
static void deliver_matching(pgas_thread *t, pgas_queue *q, int pe, uint32_t below_epoch,
                             bool completes)
{
    for (;;) {
        size_t candidates[64];
        size_t n = 0;
        for (size_t i = 0; i < q->n && n < 64; i++) {
            const pgas_pending *p = &q->pending[i];
            if ((pe < 0 || p->pe == pe) && p->epoch < below_epoch && eligible(q, i))
                candidates[n++] = i;
        }
        if (n == 0)
            return;
        deliver_at(t, q, candidates[pgas_rng_next(&t->rng) % n], completes);
    }
}

/* At each new op on q, deliver a random number of q's eligible queued ops: late, but not
 * only at quiet, so that orders other than "all at the end" occur too. */
static void deliver_some(pgas_thread *t, pgas_queue *q)
{
    while (q->n > 0 && pgas_rng_next(&t->rng) % 3 == 0) {
        size_t i = pgas_rng_next(&t->rng) % q->n;
        if (eligible(q, i))
            deliver_at(t, q, i, false);
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
    deliver_some(t, t->q);
    enqueue(t, t->q, p);
}

/* Whether this put or get_nbi is queued for late delivery: in checking mode, except on the
 * default context of a PE whose program threads run (internal.h, program_threads): a quiet
 * or barrier by one of its threads completes every thread's default-context operations in
 * OpenSHMEM, and one thread cannot deliver another's queue, so those are delivered at once. */
static bool late_delivery(const pgas_thread *t)
{
    if (!t->world->config.check_nbi)
        return false;
    return t->q != &t->queue ||
           atomic_load_explicit(&t->world->pes[t->pe].program_threads, memory_order_relaxed) == 0;
}

void pgas_deliver_put(pgas_thread *t, int pe, char *target, const void *src, size_t bytes,
                      bool nbi)
{
    if (!late_delivery(t)) {
        if (bytes > 0)
            copy_and_publish(t->world, pe, target, src, bytes);
        return;
    }
    pgas_pending p = {.pe = pe, .epoch = t->q->fence_epoch, .target = target, .src = src,
                      .bytes = bytes};
    queue_put(t, &p, nbi);
}

void pgas_deliver_put_signal(pgas_thread *t, int pe, char *target, const void *src,
                             size_t bytes, uint64_t *sig_target, int sig_op, uint64_t signal,
                             bool nbi)
{
    if (!late_delivery(t)) {
        const bool signal_first = !pgas_ordering()->signal_after_data;
        if (signal_first)
            pgas_ev_after(t->ev_writer, pgas_signal_apply(t->world, pe, sig_target, sig_op,
                                                          signal, PGAS_RELEASE));
        if (bytes > 0)
            copy_and_publish(t->world, pe, target, src, bytes);
        if (!signal_first)
            pgas_ev_after(t->ev_writer, pgas_signal_apply(t->world, pe, sig_target, sig_op,
                                                          signal, PGAS_RELEASE));
        return;
    }
    pgas_pending p = {.pe = pe, .epoch = t->q->fence_epoch, .target = target, .src = src,
                      .bytes = bytes, .has_signal = true, .sig_target = sig_target,
                      .sig_op = sig_op, .signal = signal, .ev = t->ev_writer};
    queue_put(t, &p, nbi);
}

void pgas_deliver_get(pgas_thread *t, int pe, char *local_dest, const char *remote_src,
                      size_t bytes, bool nbi)
{
    /* A PE reads its own earlier puts to that PE, as a blocking get must. */
    pgas_deliver_before_op(t, pe, true);
    if (!late_delivery(t) || !nbi) {
        pgas_be_get(t->world, pe, local_dest, remote_src, bytes);
        return;
    }
    pgas_pending p = {.pe = pe, .epoch = t->q->fence_epoch, .target = local_dest,
                      .src = remote_src, .bytes = bytes, .is_get = true};
    deliver_some(t, t->q);
    enqueue(t, t->q, &p);
}

void pgas_fence(pgas_thread *t)
{
    if (t->q->n > 0 && pgas_ordering()->fence_orders)
        t->q->fence_epoch++;
    if (pgas_ordering()->fence_orders && pgas_sched_maybe())
        pgas_sched_fence(true); /* weak-memory mode: the puts' data is published first */
}

void pgas_quiet(pgas_thread *t)
{
    if (!pgas_ordering()->quiet_completes)
        return;
    pgas_queue *q = t->q;
    if (q->n > 0)
        deliver_matching(t, q, -1, UINT32_MAX, true);
    if (q->n_armed > 0)
        reuse_complete(t, q);
    if (q == &t->queue) /* the default context's quiet: the PE's puts */
        reuse_complete_synced(t);
    if (pgas_sched_maybe())
        pgas_sched_fence(true); /* weak-memory mode: completed puts are visible to all */
}

/* ---- the queues of communication contexts ------------------------------------------- */

/* One context's queue on one thread: a list, since a thread uses few contexts at a time (a
 * destroyed context's queue is dropped by the thread that destroys it). */
struct pgas_ctx_queue {
    const pgas_ctx *ctx;
    pgas_queue q;
    struct pgas_ctx_queue *next;
};

pgas_queue *pgas_ctx_queue(pgas_thread *t, const pgas_ctx *ctx)
{
    for (struct pgas_ctx_queue *c = t->ctx_queues; c != NULL; c = c->next)
        if (c->ctx == ctx)
            return &c->q;
    struct pgas_ctx_queue *c = calloc(1, sizeof *c);
    if (c == NULL) {
        fprintf(stderr, "shmemu: out of memory making a context's queue\n");
        exit(2);
    }
    c->ctx = ctx;
    c->next = t->ctx_queues;
    t->ctx_queues = c;
    return &c->q;
}

static void queue_free(pgas_thread *t, pgas_queue *q)
{
    for (size_t i = 0; i < q->n; i++)
        free(q->pending[i].snapshot);
    t->n_pending -= q->n;
    free(q->pending);
    *q = (pgas_queue){0};
}

void pgas_ctx_queue_drop(pgas_thread *t, const pgas_ctx *ctx)
{
    for (struct pgas_ctx_queue **link = &t->ctx_queues; *link != NULL; link = &(*link)->next) {
        struct pgas_ctx_queue *c = *link;
        if (c->ctx == ctx) {
            queue_free(t, &c->q);
            *link = c->next;
            free(c);
            return;
        }
    }
}

void pgas_deliver_all(pgas_thread *t)
{
    if (t->n_pending == 0)
        return;
    deliver_matching(t, &t->queue, -1, UINT32_MAX, false);
    for (struct pgas_ctx_queue *c = t->ctx_queues; c != NULL; c = c->next)
        deliver_matching(t, &c->q, -1, UINT32_MAX, false);
}

void pgas_deliver_before_op(pgas_thread *t, int pe, bool all_to_pe)
{
    if (t->n_pending == 0 || t->q->n == 0)
        return;
    deliver_matching(t, t->q, pe, all_to_pe ? UINT32_MAX : t->q->fence_epoch, false);
}

void pgas_queues_reset(pgas_thread *t)
{
    t->queue.fence_epoch = 0;
    t->queue.n_armed = 0;
    for (struct pgas_ctx_queue *c = t->ctx_queues; c != NULL; c = c->next) {
        c->q.fence_epoch = 0;
        c->q.n_armed = 0;
    }
}

void pgas_pending_free(pgas_thread *t)
{
    queue_free(t, &t->queue);
    while (t->ctx_queues != NULL) {
        struct pgas_ctx_queue *c = t->ctx_queues;
        t->ctx_queues = c->next;
        queue_free(t, &c->q);
        free(c);
    }
    t->q = &t->queue;
    while (t->contexts != NULL) {
        pgas_ctx *ctx = t->contexts;
        t->contexts = ctx->next_owned;
        free(ctx);
    }
}

void nvshmem_fence(void)
{
    pgas_thread *t = pgas_require("nvshmem_fence");
    if (pgas_ev_on(t))
        pgas_ev_record(t, PGAS_EV_FENCE, __builtin_return_address(0));
    pgas_fence(t);
}

void nvshmem_quiet(void)
{
    pgas_thread *t = pgas_require("nvshmem_quiet");
    if (pgas_ev_on(t))
        pgas_ev_record(t, PGAS_EV_QUIET, __builtin_return_address(0));
    pgas_quiet(t);
}
