/*
 * barrier.c: the team barrier under every collective.
 *
 * The backend's barrier primitive (backend.h) does the counting and the waiting; this file
 * adds what the race checkers see: each member announces "before" on the generation's token
 * when it arrives and "after" when it leaves. The tokens alternate by generation parity (see
 * pgas_barrier), so a PE that races ahead into the next barrier cannot lend its later work
 * to a PE still leaving this one. The generation read here is the one the primitive waits
 * out: it cannot advance before this member has arrived.
 */
#include "backend.h"
#include "events.h"
#include "ordering.h"

void pgas_barrier_wait(pgas_thread *t, pgas_barrier *b, int n_members, const char *call)
{
    uint32_t gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    const char *token = &b->hb_token[gen & 1];
    const bool hb = pgas_ordering()->barrier_hb;
    pgas_event *ev = NULL;
    if (pgas_ev_on(t) && (ev = pgas_ev_record(t, PGAS_EV_BARRIER_START,
                                              pgas_ev_noted_caller(t, call))) != NULL) {
        ev->obj = b;
        ev->gen = gen;
    }
    if (hb)
        pgas_hb_before(token);
    /* A ranks backend's barrier blocks in MPI, not in park.c's waits, which deliver the
     * thread's queued puts (checking mode) before they block: deliver them here, or a peer
     * waiting for one of them at this barrier's far side would wait for ever. */
    if (t->world->backend->ranks && t->n_pending > 0)
        pgas_deliver_all(t);
    pgas_be_barrier(t, b, n_members, call);
    if (hb)
        pgas_hb_after(token);
    if (pgas_ev_on(t) && (ev = pgas_ev_record(t, PGAS_EV_BARRIER_DONE,
                                              pgas_ev_noted_caller(t, call))) != NULL) {
        ev->obj = b;
        ev->gen = gen;
    }
}
