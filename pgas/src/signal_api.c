/*
 * signal_api.c: the NVSHMEM entry points on signal words, over signal.c's update.
 *
 * nvshmemx_signal_op updates a peer's signal word as a put-with-signal's signal does, after
 * delivering what a fence put before it (checking mode). nvshmem_signal_fetch reads this
 * PE's word with an acquire. nvshmem_signal_wait_until waits (polls, then parks) until the
 * word compares as asked, and acquires. They check their arguments first, as every entry
 * point does: the PE, the symmetric range, the alignment of the word, the operation.
 */
#include "events.h"
#include "nvshmem.h"
#include "ordering.h"

void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    pgas_signal_op("nvshmemx_signal_op", sig_addr, signal, sig_op, pe);
}

void pgas_signal_op(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
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
    pgas_event *ev = NULL;
    if (pgas_ev_on(t) && (ev = pgas_ev_record(t, PGAS_EV_SIGNAL, __builtin_return_address(0)))) {
        ev->peer = pe;
        ev->sig = pgas_ev_addr_of(t, sig_addr);
        ev->sub = (uint8_t)sig_op;
        ev->value = signal;
        ev->size = sizeof *sig_addr;
    }
    pgas_ev_after(ev, pgas_signal_apply(t->world, pe, target, sig_op, signal, PGAS_RELEASE));
}

uint64_t nvshmem_signal_fetch(const uint64_t *sig_addr)
{
    const char *call = "nvshmem_signal_fetch";
    pgas_thread *t = pgas_require(call);
    pgas_check_device_only(t, call);
    pgas_heap_check_local(t, call, "sig_addr", sig_addr, sizeof *sig_addr);
    uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    pgas_hb_after(sig_addr);
    return v;
}

uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    const char *call = "nvshmem_signal_wait_until";
    pgas_thread *t = pgas_require(call);
    pgas_check_device_only(t, call);
    PGAS_NOTE_CALLER(t);
    if (!pgas_cmp_valid(cmp))
        pgas_fail(call, "unknown comparison %d; use NVSHMEM_CMP_EQ, _NE, _GT, _LE, _LT or _GE "
                        "(%d to %d)", cmp, NVSHMEM_CMP_EQ, NVSHMEM_CMP_GE);
    pgas_heap_check_local(t, call, "sig_addr", sig_addr, sizeof *sig_addr);
    if ((uintptr_t)sig_addr % sizeof(uint64_t) != 0)
        pgas_fail(call, "sig_addr %p is not 8-byte aligned; signal words are uint64_t",
                  (void *)sig_addr);
    if (__builtin_expect(!pgas_ev_on(t), 1))
        return pgas_wait_value(sig_addr, PGAS_KIND_U64, cmp, cmp_value,
                               pgas_ordering()->signal_wait, call);
    pgas_ev_wait(t, PGAS_EV_WAIT_START, t->caller, sig_addr, PGAS_KIND_U64, cmp, cmp_value);
    uint64_t seen = pgas_wait_value(sig_addr, PGAS_KIND_U64, cmp, cmp_value,
                                    pgas_ordering()->signal_wait, call);
    pgas_event *done =
        pgas_ev_wait(t, PGAS_EV_WAIT_DONE, t->caller, sig_addr, PGAS_KIND_U64, cmp, cmp_value);
    if (done != NULL)
        done->seen = seen;
    return seen;
}
