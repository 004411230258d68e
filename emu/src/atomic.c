/*
 * atomic.c: the dialect's atomics, ordered loads and stores, and fences.
 *
 * Every operation is a real C11 atomic with the requested order. For helgrind and DRD
 * (which do not see C11 orders) the release side annotates "before" and the acquire side
 * "after" (docs/design.md D4), on a tag that encodes the scope:
 *   - block scope: no annotation. A block's threads share one pthread, so they are already
 *     ordered; a block-scope release read by another block is a race, as on a GPU.
 *   - gpu scope: the address tagged with the PE (bits 48 and up; the tag is only a name for
 *     the checkers), so a gpu-scope release orders nothing for another PE's acquire.
 *   - sys scope: the address itself (the tag the NVSHMEM signal calls use) plus the PE tag.
 * A release at scope S is seen by an acquire at scope S' when both scopes contain both
 * threads, as in PTX. Under ThreadSanitizer the tags must be real addresses, so gpu scope
 * is checked as sys scope there (TSan also sees the real atomics' orders, which is why a
 * block-scope operation is issued relaxed under TSan: see mem_order).
 *
 * Relaxed operations annotate nothing: a relaxed store where a release was needed leaves
 * the data it was meant to publish racing. A fence makes later relaxed writes of the thread
 * act as releases (at the smaller of the two scopes), and makes the relaxed loads the
 * thread did since its last fence act as acquires: the "volatile poll, then fence" and
 * "fence, then relaxed flag store" idioms of NVSHMEM (docs/design.md D6).
 *
 * Every store and read-modify-write is an atomic read-modify-write (valgrind sees it as a
 * read, so it never races with an atomic load), followed by a wake of that word's waiters.
 *
 * A thread that loads the same word and sees the same value many times in a row is taken
 * to spin: it parks (running the block's other fibers first) until the word changes or a
 * short while passes. Spins then cost no CPU, and 64 spinning blocks on 2 cores progress.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"

static void note_progress(emu_thread *t)
{
    if (t != NULL)
        emu_sm_note_progress(t->block);
}

static const volatile void *gpu_tag(const volatile void *addr)
{
#ifdef SHMEMU_TSAN
    return addr;
#else
    uintptr_t pe = (uintptr_t)(shmemu_my_pe() + 1) & 0x7fff;
    return (const volatile void *)((uintptr_t)addr ^ (pe << 48));
#endif
}

void emu_annotate_release(const volatile void *addr, int scope)
{
    if (scope <= SCOPE_BLOCK)
        return;
    if (pgas_sched_maybe())
        pgas_sched_before_release();
    pgas_hb_before_gpu(gpu_tag(addr));
    if (scope >= SCOPE_SYS)
        pgas_hb_before(addr);
}

void emu_annotate_acquire(const volatile void *addr, int scope)
{
    if (scope <= SCOPE_BLOCK)
        return;
    pgas_hb_after_gpu(gpu_tag(addr));
    if (scope >= SCOPE_SYS)
        pgas_hb_after(addr);
}

static size_t type_size(int type) { return (type == EMU_I64 || type == EMU_U64 || type == EMU_F64) ? 8 : 4; }

static const char *op_name(int op)
{
    static const char *const names[] = {"atom_add", "atom_inc", "atom_cas", "atom_exch",
                                        "atom_min", "atom_max", "atom_and", "atom_or",
                                        "atom_xor"};
    return op >= 0 && op <= EMU_ATOM_XOR ? names[op] : "atomic";
}

static void check_args(const char *call, const volatile void *p, int type, int scope,
                       int order)
{
    size_t size = type_size(type);
    const char *problem = NULL;
    if (p == NULL)
        problem = "the address is NULL";
    else if ((uintptr_t)p % size != 0)
        problem = "the address is not aligned to its type";
    else if (scope < SCOPE_BLOCK || scope > SCOPE_SYS)
        problem = "unknown scope; use SCOPE_BLOCK, SCOPE_GPU or SCOPE_SYS";
    else if (order < ORDER_RELAXED || order > ORDER_ACQ_REL)
        problem = "unknown order; use ORDER_RELAXED, _ACQUIRE, _RELEASE or _ACQ_REL";
    if (problem == NULL)
        return;
    emu_thread *t = emu_thread_current();
    if (t != NULL)
        emu_fail(t, "%s on %p: %s", call, (const void *)p, problem);
    fprintf(stderr, "shmemu: PE %d: %s on %p: %s\n", shmemu_my_pe(), call, (const void *)p,
            problem);
    fflush(NULL);
    abort();
}

static bool is_acquire(int order) { return order == ORDER_ACQUIRE || order == ORDER_ACQ_REL; }
static bool is_release(int order) { return order == ORDER_RELEASE || order == ORDER_ACQ_REL; }

/* The C11 order that carries `order` at `scope`. ThreadSanitizer derives happens-before
 * from the real atomics, so a block-scope operation is issued relaxed under it: a block's
 * fibers are already ordered by TSan's fiber switches, and another block must not
 * synchronize with it (PTX: both scopes must contain both threads). */
static int mem_order(int order, int scope)
{
#ifdef SHMEMU_TSAN
    if (scope <= SCOPE_BLOCK)
        return __ATOMIC_RELAXED;
#else
    (void)scope;
#endif
    switch (order) {
    case ORDER_ACQUIRE: return __ATOMIC_ACQUIRE;
    case ORDER_RELEASE: return __ATOMIC_RELEASE;
    case ORDER_ACQ_REL: return __ATOMIC_ACQ_REL;
    default: return __ATOMIC_RELAXED;
    }
}

/* The scope at which a write of this order publishes earlier writes, or -1. */
static int release_scope(const emu_thread *t, int scope, int order)
{
    if (is_release(order))
        return scope;
    if (t != NULL && t->fenced_scope >= 0)
        return t->fenced_scope < scope ? t->fenced_scope : scope;
    return -1;
}

static void note_relaxed_load(emu_thread *t, const volatile void *p, int scope)
{
    if (t == NULL)
        return;
    int i = t->n_relaxed_loads % 4;
    t->relaxed_loads[i] = p;
    t->relaxed_scopes[i] = scope;
    t->n_relaxed_loads++;
}

/* ---- spin detection ------------------------------------------------------------------ */

typedef struct change_wait {
    const volatile void *p;
    int type;
    uint64_t value;
    uint64_t deadline_ns;
    bool timed_out;
} change_wait;

static uint64_t raw_load(const volatile void *p, int type, int mo)
{
    if (type_size(type) == 4)
        return __atomic_load_n((const volatile uint32_t *)p, mo);
    return __atomic_load_n((const volatile uint64_t *)p, mo);
}

static bool changed_or_late(void *ctx)
{
    change_wait *w = ctx;
    if (raw_load(w->p, w->type, __ATOMIC_RELAXED) != w->value)
        return true;
    if (emu_now_ns() > w->deadline_ns) {
        w->timed_out = true;
        return true;
    }
    return false;
}

/* True when the thread has seen this value at this address spin_limit times in a row:
 * then it waits for a change (or a short timeout, which doubles its limit). `pc`: the
 * return address into the program of the load or atomic, which a hang report names. */
static bool spin_park(emu_thread *t, const volatile void *p, int type, uint64_t value,
                      const void *pc)
{
    if (t == NULL)
        return false;
    if (t->spin_addr != p || t->spin_value != value) {
        t->spin_addr = p;
        t->spin_value = value;
        t->spin_count = 0;
        return false;
    }
    if (++t->spin_count < t->spin_limit)
        return false;
    t->spin_count = 0;
    change_wait w = {p, type, value, 0, false};
    pgas_thread_note_site(pc, NULL, 0);
    if (pgas_sched_enabled()) {
        /* deterministic mode: no clock; the spin waits until the word changes, or runs on
         * as a last resort when nothing else can run (a loop rereading a constant) */
        if (pgas_wait_value_soft(p, type_size(type) == 4 ? PGAS_KIND_U32 : PGAS_KIND_U64,
                                 NVSHMEM_CMP_NE, value, emu_spin_call))
            note_progress(t);
        pgas_thread_note_site(NULL, NULL, 0);
        return true;
    }
    w.deadline_ns = emu_now_ns() + (shmemu_under_valgrind() ? EMU_SPIN_TIMEOUT_NS_VALGRIND
                                                            : EMU_SPIN_TIMEOUT_NS);
    pgas_wait_predicate(p, changed_or_late, &w, emu_spin_call,
                        "the word the kernel polls to change");
    pgas_thread_note_site(NULL, NULL, 0);
    if (!w.timed_out)
        note_progress(t);
    /* A timeout may mean a slow writer or a loop that merely rereads a constant: spin a
     * little longer next time, within a bound that keeps waits cheap under valgrind. */
    unsigned most = shmemu_under_valgrind() ? EMU_SPIN_LIMIT_MAX_VALGRIND : EMU_SPIN_LIMIT_MAX;
    if (w.timed_out && t->spin_limit < most)
        t->spin_limit *= 2;
    return true;
}

static void spin_reset(emu_thread *t)
{
    if (t != NULL) {
        t->spin_addr = NULL;
        t->acq_poll_addr = NULL;
    }
}

/* The acquire annotation of a load, or of a CAS that failed, that read v at p. A poll that
 * rereads the value this thread's previous acquire poll of p returned, with no write of its
 * own in between, skips it: the edge it would add is to a store the poller cannot tell from
 * the one it already acquired, so no correct protocol relies on it; and under valgrind each
 * edge opens a new segment (DRD) or a new vector clock (helgrind), which made a wait that
 * polls for minutes cost more than the whole job. */
static void annotate_acquire_poll(emu_thread *t, const volatile void *p, uint64_t v, int scope)
{
    if (t != NULL && t->acq_poll_addr == p && t->acq_poll_value == v)
        return;
    emu_annotate_acquire(p, scope);
    if (t != NULL) {
        t->acq_poll_addr = p;
        t->acq_poll_value = v;
    }
}

/* ---- operations ------------------------------------------------------------------------ */

static uint64_t combine(int type, int op, uint64_t old, uint64_t v)
{
    bool wide = type_size(type) == 8;
    uint64_t mask = wide ? ~0ull : 0xffffffffull;
    switch (op) {
    case EMU_ATOM_ADD:
        if (type == EMU_F32) {
            float a, b;
            uint32_t oa = (uint32_t)old, ob = (uint32_t)v;
            memcpy(&a, &oa, 4);
            memcpy(&b, &ob, 4);
            a = a + b;
            memcpy(&oa, &a, 4);
            return oa;
        }
        if (type == EMU_F64) {
            double a, b;
            memcpy(&a, &old, 8);
            memcpy(&b, &v, 8);
            a = a + b;
            uint64_t r;
            memcpy(&r, &a, 8);
            return r;
        }
        return (old + v) & mask;
    case EMU_ATOM_INC: return ((old & mask) >= (v & mask)) ? 0 : ((old + 1) & mask);
    case EMU_ATOM_EXCH: return v & mask;
    case EMU_ATOM_AND: return old & v & mask;
    case EMU_ATOM_OR: return (old | v) & mask;
    case EMU_ATOM_XOR: return (old ^ v) & mask;
    case EMU_ATOM_MIN:
    case EMU_ATOM_MAX: {
        bool less;
        if (type == EMU_I32)
            less = (int32_t)(uint32_t)v < (int32_t)(uint32_t)old;
        else if (type == EMU_I64)
            less = (int64_t)v < (int64_t)old;
        else
            less = (v & mask) < (old & mask);
        bool take = op == EMU_ATOM_MIN ? less : (!less && (v & mask) != (old & mask));
        return take ? (v & mask) : (old & mask);
    }
    default: return old;
    }
}

static uint64_t sign_extend(int type, uint64_t w)
{
    if (type == EMU_I32)
        return (uint64_t)(int64_t)(int32_t)(uint32_t)w;
    return w;
}

uint64_t emu_atomic(void *p, int type, int op, uint64_t value, uint64_t compare, int scope,
                    int order)
{
    check_args(op_name(op), p, type, scope, order);
    bool fp = type == EMU_F32 || type == EMU_F64;
    if (op < EMU_ATOM_ADD || op > EMU_ATOM_XOR ||
        (fp && op != EMU_ATOM_ADD && op != EMU_ATOM_EXCH))
        check_args("atomic: this operation does not take floating point", NULL, type, scope,
                   order);
    emu_thread *t = emu_thread_current();
    int rel = release_scope(t, scope, order);
    if (rel >= 0)
        emu_annotate_release(p, rel);
    int mo = mem_order(order, scope);
    int fail_mo = is_acquire(order) ? mem_order(ORDER_ACQUIRE, scope) : __ATOMIC_RELAXED;
    void *ev = NULL; /* SHMEMU_EVENTS: a system-scope atomic on a symmetric word */
    if (pgas_events_maybe() && scope >= SCOPE_SYS)
        ev = pgas_events_store(p, (unsigned)type_size(type), value, true, op_name(op),
                               __builtin_return_address(0));
    uint64_t old;
    bool wrote = true;
    if (type_size(type) == 4) {
        uint32_t *q = p;
        uint32_t o = __atomic_load_n(q, __ATOMIC_RELAXED);
        if (op == EMU_ATOM_CAS) {
            o = (uint32_t)compare;
            wrote = __atomic_compare_exchange_n(q, &o, (uint32_t)value, false, mo, fail_mo);
        } else {
            while (!__atomic_compare_exchange_n(q, &o, (uint32_t)combine(type, op, o, value),
                                                true, mo, fail_mo)) {
            }
        }
        old = o;
    } else {
        uint64_t *q = p;
        uint64_t o = __atomic_load_n(q, __ATOMIC_RELAXED);
        if (op == EMU_ATOM_CAS) {
            o = compare;
            wrote = __atomic_compare_exchange_n(q, &o, value, false, mo, fail_mo);
        } else {
            while (!__atomic_compare_exchange_n(q, &o, combine(type, op, o, value), true, mo,
                                                fail_mo)) {
            }
        }
        old = o;
    }
    if (is_acquire(order) && wrote)
        emu_annotate_acquire(p, scope);
    else if (is_acquire(order))
        annotate_acquire_poll(t, p, old, scope);
    else
        note_relaxed_load(t, p, scope);
    if (wrote) {
        pgas_events_after(ev, op == EMU_ATOM_CAS ? value : combine(type, op, old, value));
        if (pgas_sched_maybe())
            pgas_thread_note_call(op_name(op));
        /* deterministic mode: a relaxed read-modify-write with no fence before it orders
         * nothing (data accumulation, counters): a recorded write, not a preemption point */
        if (order == ORDER_RELAXED && rel < 0 && pgas_sched_maybe() && pgas_sched_enabled())
            pgas_sched_note_store(p, type_size(type));
        else
            pgas_wake(p);
        spin_reset(t);
        note_progress(t);
    } else {
        /* a failing CAS in a loop is a spin */
        (void)spin_park(t, p, type, old, __builtin_return_address(0));
    }
    return sign_extend(type, old);
}

uint64_t emu_load(const volatile void *p, int type, int scope, int order)
{
    check_args(order == ORDER_ACQUIRE ? "ld_acquire" : "ld_relaxed", p, type, scope, order);
    emu_thread *t = emu_thread_current();
    if (pgas_sched_maybe())
        pgas_sched_sync_point(order == ORDER_ACQUIRE ? "ld_acquire" : "ld_relaxed", false);
    for (;;) {
        uint64_t v = raw_load(p, type, is_acquire(order) ? mem_order(ORDER_ACQUIRE, scope)
                                                         : __ATOMIC_RELAXED);
        if (is_acquire(order))
            annotate_acquire_poll(t, p, v, scope);
        else
            note_relaxed_load(t, p, scope);
        if (pgas_sched_maybe())
            pgas_sched_observe(p);
        if (!spin_park(t, p, type, v, __builtin_return_address(0)))
            return sign_extend(type, v);
    }
}

void emu_store(volatile void *p, int type, uint64_t value, int scope, int order)
{
    check_args(order == ORDER_RELEASE ? "st_release" : "st_relaxed", p, type, scope, order);
    emu_thread *t = emu_thread_current();
    int rel = release_scope(t, scope, order);
    if (rel >= 0)
        emu_annotate_release(p, rel);
    int mo = is_release(order) ? mem_order(ORDER_RELEASE, scope) : __ATOMIC_RELAXED;
    if (pgas_events_maybe() && scope >= SCOPE_SYS) /* SHMEMU_EVENTS: a signal word's store */
        pgas_events_after(pgas_events_store(p, (unsigned)type_size(type), value, false, NULL,
                                            __builtin_return_address(0)),
                          value);
    if (type_size(type) == 4)
        (void)__atomic_exchange_n((volatile uint32_t *)p, (uint32_t)value, mo);
    else
        (void)__atomic_exchange_n((volatile uint64_t *)p, value, mo);
    if (pgas_sched_maybe())
        pgas_thread_note_call(is_release(order) ? "st_release" : "st_relaxed");
    pgas_wake(p);
    spin_reset(t);
    note_progress(t);
}

void emu_fence(int scope)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    emu_thread *t = emu_thread_current();
    if (t == NULL || scope <= SCOPE_BLOCK)
        return;
    if (pgas_sched_maybe()) /* weak-memory mode: the block's earlier stores are published */
        pgas_sched_fence(scope >= SCOPE_SYS);
    if (t->fenced_scope < scope)
        t->fenced_scope = scope;
    int n = t->n_relaxed_loads < 4 ? t->n_relaxed_loads : 4;
    for (int i = 0; i < n; i++) {
        int s = t->relaxed_scopes[i] < scope ? t->relaxed_scopes[i] : scope;
        emu_annotate_acquire(t->relaxed_loads[i], s);
    }
    t->n_relaxed_loads = 0;
    spin_reset(t);
}
