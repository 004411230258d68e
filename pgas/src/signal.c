/*
 * signal.c: signal words, the 64-bit flags of put-with-signal.
 *
 * A signal update is a release: annotate "before" on the word, then update it with an
 * atomic read-modify-write (an exchange for SET: valgrind sees an RMW as a read, so it never
 * races with a waiter's load, while a user's plain store to the word still does), then wake
 * the waiters. A signal wait is an acquire: poll, park, and annotate "after" once satisfied.
 */
#include "backend.h"
#include "nvshmem.h"
#include "ordering.h"

bool pgas_signal_op_valid(int sig_op)
{
    return sig_op == NVSHMEM_SIGNAL_SET || sig_op == NVSHMEM_SIGNAL_ADD;
}

void pgas_signal_apply(const pgas_world *w, uint64_t *sig_target, int sig_op, uint64_t signal,
                       pgas_order order)
{
    bool release = (order == PGAS_RELEASE || order == PGAS_ACQ_REL) &&
                   pgas_ordering()->signal_update == PGAS_RELEASE;
    int mo = release ? __ATOMIC_RELEASE : __ATOMIC_RELAXED;
    if (release)
        pgas_hb_before(sig_target);
    if (sig_op == NVSHMEM_SIGNAL_SET)
        __atomic_exchange_n(sig_target, signal, mo);
    else
        __atomic_fetch_add(sig_target, signal, mo);
    pgas_be_wake(w, sig_target, sizeof *sig_target);
}

void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    const char *call = "nvshmemx_signal_op";
    pgas_thread *t = pgas_require(call);
    if (!pgas_signal_op_valid(sig_op))
        pgas_fail(call, "unknown signal operation %d; use NVSHMEM_SIGNAL_SET (%d) or "
                        "NVSHMEM_SIGNAL_ADD (%d)", sig_op, NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD);
    if ((uintptr_t)sig_addr % sizeof(uint64_t) != 0)
        pgas_fail(call, "sig_addr %p is not 8-byte aligned; signal words are uint64_t",
                  (void *)sig_addr);
    uint64_t *target =
        (uint64_t *)pgas_heap_translate(t, call, "sig_addr", sig_addr, sizeof *sig_addr, pe);
    pgas_deliver_before_op(t, pe, false);
    pgas_signal_apply(t->world, target, sig_op, signal, PGAS_RELEASE);
}

uint64_t nvshmem_signal_fetch(const uint64_t *sig_addr)
{
    const char *call = "nvshmem_signal_fetch";
    pgas_thread *t = pgas_require(call);
    pgas_heap_check_local(t, call, "sig_addr", sig_addr, sizeof *sig_addr);
    uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    pgas_hb_after(sig_addr);
    return v;
}

uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    const char *call = "nvshmem_signal_wait_until";
    pgas_thread *t = pgas_require(call);
    PGAS_NOTE_CALLER(t);
    if (!pgas_cmp_valid(cmp))
        pgas_fail(call, "unknown comparison %d; use NVSHMEM_CMP_EQ, _NE, _GT, _LE, _LT or _GE "
                        "(%d to %d)", cmp, NVSHMEM_CMP_EQ, NVSHMEM_CMP_GE);
    pgas_heap_check_local(t, call, "sig_addr", sig_addr, sizeof *sig_addr);
    if ((uintptr_t)sig_addr % sizeof(uint64_t) != 0)
        pgas_fail(call, "sig_addr %p is not 8-byte aligned; signal words are uint64_t",
                  (void *)sig_addr);
    return pgas_wait_value(sig_addr, PGAS_KIND_U64, cmp, cmp_value,
                           pgas_ordering()->signal_wait, call);
}
