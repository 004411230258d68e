/*
 * signal.c: signal words, the 64-bit flags of put-with-signal: the update.
 *
 * A signal update is a release: annotate "before" on the word, then update it with an
 * atomic read-modify-write (an exchange for SET: valgrind sees an RMW as a read, so it never
 * races with a waiter's load, while a user's plain store to the word still does), then wake
 * the waiters. A signal wait is an acquire: poll, park, and annotate "after" once satisfied
 * (signal_api.c).
 *
 * Layer: delivery.c applies a put-with-signal's update through this file, so the update
 * calls nothing that delivers or waits; the entry points that do (nvshmemx_signal_op,
 * nvshmem_signal_fetch, nvshmem_signal_wait_until) live above in signal_api.c.
 */
#include "backend.h"
#include "nvshmem.h"
#include "ordering.h"

bool pgas_signal_op_valid(int sig_op)
{
    return sig_op == NVSHMEM_SIGNAL_SET || sig_op == NVSHMEM_SIGNAL_ADD;
}

uint64_t pgas_signal_apply(const pgas_world *w, int pe, uint64_t *sig_target, int sig_op,
                           uint64_t signal, pgas_order order)
{
    if (pgas_be_amo_remote(w, pe, (const char *)sig_target)) {
        /* Through the backend (MPI's atomics): complete at the target on return, and after
         * every put this PE issued to it before (a backend's put is complete on return). */
        uint64_t old = w->backend->amo(w, pe, (char *)sig_target, sizeof *sig_target,
                                       sig_op == NVSHMEM_SIGNAL_SET ? PGAS_AMO_SET : PGAS_AMO_ADD,
                                       signal, 0);
        pgas_be_wake(w, sig_target, sizeof *sig_target);
        return sig_op == NVSHMEM_SIGNAL_SET ? signal : old + signal;
    }
    bool release = (order == PGAS_RELEASE || order == PGAS_ACQ_REL) &&
                   pgas_ordering()->signal_update == PGAS_RELEASE;
    int mo = release ? __ATOMIC_RELEASE : __ATOMIC_RELAXED;
    if (release)
        pgas_hb_before(sig_target);
    uint64_t after = signal;
    if (sig_op == NVSHMEM_SIGNAL_SET)
        __atomic_exchange_n(sig_target, signal, mo);
    else
        after = __atomic_fetch_add(sig_target, signal, mo) + signal;
    pgas_be_wake(w, sig_target, sizeof *sig_target);
    return after;
}
