/*
 * amo.c: remote atomic memory operations.
 *
 * Every AMO is a sequentially consistent hardware atomic on the target word. For the race
 * checkers an AMO that writes is a release (annotate "before", then an RMW: even a SET is
 * an exchange, never a plain store) and one that fetches is an acquire ("after"). So the
 * common pattern "put data, fence, atomic_set(flag); peer: wait_until(flag), read data" is
 * race-free, as the specification makes it. In checking mode an AMO first delivers the
 * queued puts to its PE that a fence put before it.
 */
#include "backend.h"
#include "events.h"

static bool op_writes(pgas_amo_op op) { return op != PGAS_AMO_FETCH; }

static bool op_fetches(pgas_amo_op op) { return op != PGAS_AMO_SET; }

#define APPLY_AMO(T, ptr, op, value, cond, old)                                              \
    do {                                                                                     \
        T *p_ = (T *)(ptr);                                                                  \
        T v_ = (T)(value);                                                                   \
        switch (op) {                                                                        \
        case PGAS_AMO_FETCH: old = __atomic_load_n(p_, __ATOMIC_SEQ_CST); break;            \
        case PGAS_AMO_SET: old = __atomic_exchange_n(p_, v_, __ATOMIC_SEQ_CST); break;      \
        case PGAS_AMO_SWAP: old = __atomic_exchange_n(p_, v_, __ATOMIC_SEQ_CST); break;     \
        case PGAS_AMO_CSWAP: {                                                               \
            T expected_ = (T)(cond);                                                         \
            __atomic_compare_exchange_n(p_, &expected_, v_, false, __ATOMIC_SEQ_CST,         \
                                        __ATOMIC_SEQ_CST);                                   \
            old = expected_;                                                                 \
            break;                                                                           \
        }                                                                                    \
        case PGAS_AMO_ADD: old = __atomic_fetch_add(p_, v_, __ATOMIC_SEQ_CST); break;       \
        case PGAS_AMO_AND: old = __atomic_fetch_and(p_, v_, __ATOMIC_SEQ_CST); break;       \
        case PGAS_AMO_OR: old = __atomic_fetch_or(p_, v_, __ATOMIC_SEQ_CST); break;         \
        case PGAS_AMO_XOR: old = __atomic_fetch_xor(p_, v_, __ATOMIC_SEQ_CST); break;       \
        }                                                                                    \
    } while (0)

uint64_t pgas_amo_at(const void *pc, const char *call, pgas_amo_op op, void *dest, int pe,
                     size_t size, uint64_t value, uint64_t cond)
{
    pgas_thread *t = pgas_require(call);
    if ((uintptr_t)dest % size != 0)
        pgas_fail(call, "address %p is not aligned to its %zu-byte type; atomics need "
                        "naturally aligned words", dest, size);
    char *target = pgas_heap_translate(t, call, "dest", dest, size, pe);
    pgas_deliver_before_op(t, pe, op == PGAS_AMO_FETCH);
    if (op_writes(op))
        pgas_hb_before(target);
    pgas_event *ev = NULL;
    if (pgas_ev_on(t) && (ev = pgas_ev_record(t, PGAS_EV_AMO, pc))) {
        ev->peer = pe;
        ev->dst = pgas_ev_addr_of(t, dest);
        ev->sub = (uint8_t)op;
        ev->value = value;
        ev->size = (uint8_t)size;
    }
    uint64_t old = 0;
    if (pgas_be_amo_remote(t->world, pe, target)) {
        old = t->world->backend->amo(t->world, pe, target, size, op, value, cond);
    } else if (size == 4) {
        uint32_t o32 = 0;
        APPLY_AMO(uint32_t, target, op, value, cond, o32);
        old = o32;
    } else {
        APPLY_AMO(uint64_t, target, op, value, cond, old);
    }
    if (ev != NULL) {
        ev->has_fetched = op_fetches(op);
        ev->seen = old;
        if (op_writes(op))
            pgas_ev_after(ev, pgas_ev_amo_result(op, old, value, cond, size));
    }
    if (op_fetches(op))
        pgas_hb_after(target);
    if (op_writes(op))
        pgas_be_wake(t->world, target, size);
    return old;
}
