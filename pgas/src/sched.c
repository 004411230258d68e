/*
 * sched.c: the deterministic scheduler (docs/design.md D5, docs/sched.md).
 *
 * In deterministic mode every schedulable entity (a PE's host thread, an emulated block's
 * pthread, a stream's pthread: every pgas_thread) runs only while it holds the job's one
 * turn. An entity gives the turn up only at a sync point (an NVSHMEM call, a wait, the
 * emulator's atomics, loads and stream calls, thread exit); there the scheduler picks the
 * next entity from a seed (uniform random, PCT or round robin), from a trace being
 * replayed, or from explore's shrinker's directions. A block's own fibers run one at a time
 * inside its turn, in the block's deterministic order.
 *
 * A wait whose condition is false makes its entity BLOCKED. A wait on one word becomes a
 * candidate again once a runtime write touched that word ("dirty"); any other wait (a
 * predicate over several words, a block whose fibers poll several words) once the "epoch"
 * (the count of runtime writes and writing sync points) moved past the one read before its
 * condition was evaluated. Chosen, it re-evaluates its condition itself, on its own thread:
 * the scheduler never reads the program's memory. When no entity is runnable and no
 * blocked one can have changed, nothing ever will: the deadlock is exact and is reported
 * (sched_report.c). A failed poll (a _test call, a spinning load) is
 * SOFT: it also runs as a last resort when nothing else can, so a polling loop with an
 * iteration bound still finishes, and PCT cannot starve the others behind a poller.
 *
 * Why the hand-off must not synchronize (docs/design.md D4): if the turn passed through a mutex or
 * a condition variable, helgrind, DRD and TSan would see one long happens-before chain
 * through the whole run and report no race at all. The turn passes through relaxed atomics
 * (each entity's futex word `go`) and raw futex calls; the hardware ordering of the
 * program's plain accesses comes from seq_cst fences, which none of the checkers treats as
 * synchronization. The scheduler's own memory is allocated before the PE threads start and
 * is touched only by relaxed atomics afterwards (sched.h), and is excluded from DRD.
 *
 * Entities are numbered by registration ("serial"): PE p's host thread is p, every later
 * thread takes the next number while its creator, which holds the turn, waits for it to
 * register (pgas_sched_spawn_mark/_wait). So the numbering, like every decision, depends
 * only on the seed and the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched.h"
#include "weak.h"
#include "shmemu/env.h"
#include "shmemu/internal/futex.h"

#define LIVELOCK_LIMIT 2000
#define TURN_SPIN_POLLS 256

pgas_sched *_Atomic pgas_sched_active;
int pgas_sched_jobs;

static shmemu_sched_stats last_stats;
static bool have_last_stats;

/* ---- small helpers ------------------------------------------------------------------- */

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define XCHG(x, v) ((void)atomic_exchange_explicit(&(x), (v), memory_order_relaxed))
#define INC(x) atomic_fetch_add_explicit(&(x), 1, memory_order_relaxed)

uint32_t pgas_sched_hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; s != NULL && *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static uint64_t next_random(pgas_sched *s)
{
    uint64_t state = LD(s->rng);
    uint64_t r = pgas_rng_next(&state);
    XCHG(s->rng, state);
    return r;
}

/* ---- the hand-off -------------------------------------------------------------------- */

static void give_turn(pgas_sched *s, int slot)
{
    pgas_sched_entity *e = &s->ents[slot];
    if (s->weak != NULL)
        pgas_weak_switch(s, LD(s->current), slot);
    XCHG(s->current, slot);
    XCHG(e->turn_epoch, LD(s->epoch));
    atomic_thread_fence(memory_order_seq_cst); /* the program's writes, for the hardware */
    INC(e->go);
    atomic_thread_fence(memory_order_seq_cst);
    if (LD(e->sleeping))
        shmemu_futex_wake_all(&e->go);
}

static void await_turn(pgas_sched *s, pgas_sched_entity *e, uint32_t seen)
{
    /* pinned to one CPU, a spin would only delay the holder of the turn */
    if (!s->world->config.under_valgrind && s->pin_cpu < 0) {
        for (int i = 0; i < TURN_SPIN_POLLS; i++) {
            if (LD(e->go) != seen)
                goto mine;
            __builtin_ia32_pause();
        }
    }
    for (;;) {
        XCHG(e->sleeping, 1);
        atomic_thread_fence(memory_order_seq_cst);
        if (LD(e->go) != seen)
            break;
        shmemu_futex_wait(&e->go, seen, 0);
    }
    XCHG(e->sleeping, 0);
mine:
    atomic_thread_fence(memory_order_seq_cst);
}

/* Every entity runs on one CPU (s->pin_cpu): only one runs at a time anyway, and a hand-off
 * is then a switch on that CPU's run queue instead of waking another CPU, which costs tens
 * of microseconds in a VM (SHMEMU_SCHED_PIN=0 turns it off). */
static void pin_thread(const pgas_sched *s)
{
    if (s->pin_cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->pin_cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* ---- choosing ------------------------------------------------------------------------ */

typedef struct candidates {
    int n_hard, n_soft, n_live;
} candidates;

static bool is_hard(const pgas_sched_entity *e, uint64_t epoch)
{
    int st = LD(e->state);
    if (st == ENT_RUNNABLE)
        return true;
    if (st != ENT_BLOCKED && st != ENT_SOFT)
        return false;
    if (LD(e->has_cond))
        return LD(e->dirty) != 0;
    return LD(e->eval_epoch) < epoch;
}

static bool in_set(const pgas_sched_entity *e, uint64_t epoch, bool hard)
{
    if (hard)
        return is_hard(e, epoch);
    return LD(e->state) == ENT_SOFT;
}

static candidates count(pgas_sched *s, uint64_t epoch)
{
    candidates c = {0, 0, 0};
    int hwm = LD(s->hwm);
    for (int i = 0; i < hwm; i++) {
        const pgas_sched_entity *e = &s->ents[i];
        int st = LD(e->state);
        if (st == ENT_FREE || st == ENT_NEW)
            continue;
        c.n_live++;
        if (is_hard(e, epoch))
            c.n_hard++;
        else if (st == ENT_SOFT)
            c.n_soft++;
    }
    return c;
}

static int kth(pgas_sched *s, uint64_t epoch, bool hard, int k)
{
    int hwm = LD(s->hwm);
    for (int i = 0; i < hwm; i++)
        if (in_set(&s->ents[i], epoch, hard) && k-- == 0)
            return i;
    return -1;
}

static int slot_of_serial(pgas_sched *s, uint32_t serial, uint64_t epoch, bool hard)
{
    int hwm = LD(s->hwm);
    for (int i = 0; i < hwm; i++)
        if (LD(s->ents[i].serial) == serial && in_set(&s->ents[i], epoch, hard))
            return i;
    return -1;
}

static int pick_rr(pgas_sched *s, int me, uint64_t epoch, bool hard)
{
    int hwm = LD(s->hwm);
    for (int j = 1; j <= hwm; j++) {
        int i = ((me < 0 ? -1 : me) + j) % hwm;
        if (in_set(&s->ents[i], epoch, hard))
            return i;
    }
    return -1;
}

static int pick_pct(pgas_sched *s, int me, uint64_t d, uint64_t epoch, bool hard)
{
    /* At a change point the entity that ran the step just ended drops below every
     * initial priority (change point i gives priority i + 1, initial ones are >= 2^40). */
    for (int i = 0; i < s->n_change_points; i++)
        if (s->change_points[i] == d && me >= 0)
            XCHG(s->ents[me].priority, (uint64_t)i + 1);
    int best = -1;
    uint64_t best_p = 0;
    int hwm = LD(s->hwm);
    for (int i = 0; i < hwm; i++) {
        if (!in_set(&s->ents[i], epoch, hard))
            continue;
        uint64_t p = LD(s->ents[i].priority);
        if (best < 0 || p > best_p) {
            best = i;
            best_p = p;
        }
    }
    return best;
}

/* The shrinker's strategy: the guide's switches (keyed by the deciding entity's serial and
 * its count of decisions so far; UINT64_MAX for its exit, and serial NO_ENTITY for the
 * start), otherwise keep the running entity, otherwise round robin. */
static int pick_guided(pgas_sched *s, int me, uint32_t me_serial, uint64_t epoch, bool hard)
{
    uint64_t y = me >= 0 ? LD(s->ents[me].yields) : UINT64_MAX;
    if (me_serial == PGAS_SCHED_NO_ENTITY)
        y = 0;
    for (size_t i = 0; i < s->n_guide; i++) {
        if (s->guide[i].from == me_serial && s->guide[i].yield == y) {
            int t = slot_of_serial(s, s->guide[i].target, epoch, hard);
            if (t >= 0)
                return t;
        }
    }
    if (me >= 0 && in_set(&s->ents[me], epoch, hard))
        return me; /* by default, no preemption */
    return pick_rr(s, me, epoch, hard);
}

/* Delay bounding (Emmi, Qadeer and Rakamaric, POPL 2011; docs/sched.md): a deterministic base
 * choice (keep the running entity while it can run, else the next that can in round-robin
 * order of slots, which registration fills deterministically) and a set of delays. A choice
 * point is a decision with two candidates or more, counted from 0; at each choice point
 * SHMEMU_DELAYS names, the base choice is skipped for the next candidate after it in round-
 * robin order. So every delay changes the schedule, and the delay sets of size 0..K over
 * the choice points of a run are the schedules of at most K delays (bin/shmemu-explore
 * --strategy delay enumerates them). */
static int pick_delay(pgas_sched *s, int me, int n, uint64_t epoch, bool hard)
{
    int base = me >= 0 && in_set(&s->ents[me], epoch, hard) ? me : pick_rr(s, me, epoch, hard);
    if (n < 2)
        return base;
    uint64_t c = LD(s->choices);
    XCHG(s->choices, c + 1);
    int k = LD(s->next_delay);
    if (k >= s->n_delays || s->delays[k] != c)
        return base;
    XCHG(s->next_delay, k + 1);
    return pick_rr(s, base, epoch, hard);
}

/* Remembers the name of a call hash, for the trace's table of call names. */
static void note_call(pgas_sched *s, uint32_t hash, const char *call)
{
    for (int k = 0; k < PGAS_SCHED_CALLS; k++) {
        int i = (int)((hash + (uint32_t)k) % PGAS_SCHED_CALLS);
        uint32_t h = LD(s->call_hash[i]);
        if (h == hash)
            return;
        if (h == 0) {
            XCHG(s->call_name[i], call);
            XCHG(s->call_hash[i], hash);
            return;
        }
    }
}

static void log_decision(pgas_sched *s, uint64_t d, uint32_t from, uint32_t to, uint32_t call,
                         unsigned flags, int n)
{
    uint64_t w0 = (uint64_t)from << 32 | to;
    uint64_t w1 = (uint64_t)call << 32 | (uint64_t)(flags & 0xffff) << 16 |
                  (uint64_t)(n > 0xffff ? 0xffff : n);
    uint64_t h = LD(s->hash);
    for (int i = 0; i < 16; i++)
        h = (h ^ ((i < 8 ? w0 : w1) >> (8 * (i % 8)) & 0xff)) * 0x100000001b3ull;
    XCHG(s->hash, h);
    if (d < s->max_decisions) {
        XCHG(s->log[2 * d], w0);
        XCHG(s->log[2 * d + 1], w1);
    } else {
        XCHG(s->log_overflow, 1);
    }
}

/* Picks the entity to run after `me` (a slot, or -1 at the start and for a finished
 * entity, whose serial is then `me_serial`), records the decision and returns its slot, or
 * -1 when no entity is left. Runs on the turn holder's thread. */
static int decide(pgas_sched *s, int me, uint32_t me_serial, const char *call)
{
    uint64_t epoch = LD(s->epoch);
    candidates c = count(s, epoch);
    if (c.n_live == 0)
        return -1;
    if (c.n_hard == 0 && c.n_soft == 0)
        pgas_sched_deadlock(s, "no entity can run");
    bool hard = c.n_hard > 0;
    int n = hard ? c.n_hard : c.n_soft;
    if (!hard) {
        if (LD(s->last_resort_epoch) == epoch) {
            if (INC(s->last_resort_run) + 1 > LIVELOCK_LIMIT)
                pgas_sched_deadlock(s, "livelock: every entity that can still run only "
                                       "polls, and no poll has seen a change in 2000 turns");
        } else {
            XCHG(s->last_resort_epoch, epoch);
            XCHG(s->last_resort_run, 1);
        }
    }
    uint64_t d = LD(s->decisions);
    int pick = -1;
    if (s->replaying) {
        if (d >= s->replay_n)
            pgas_trace_diverged(s, d, me >= 0 ? &s->ents[me] : NULL, call,
                                "this run makes more scheduling decisions than the trace "
                                "holds");
        uint64_t w0 = s->replay_log[2 * d], w1 = s->replay_log[2 * d + 1];
        if ((uint32_t)(w0 >> 32) != me_serial)
            pgas_trace_diverged(s, d, me >= 0 ? &s->ents[me] : NULL, call,
                                "a different entity reached this decision");
        if ((uint32_t)(w1 >> 32) != pgas_sched_hash_str(call))
            pgas_trace_diverged(s, d, me >= 0 ? &s->ents[me] : NULL, call,
                                "the entity is at a different call");
        pick = slot_of_serial(s, (uint32_t)w0, epoch, hard);
        if (pick < 0)
            pgas_trace_diverged(s, d, me >= 0 ? &s->ents[me] : NULL, call,
                                "the entity the trace runs next cannot run here");
    } else {
        switch (s->strategy) {
        case PGAS_SCHED_PCT: pick = pick_pct(s, me, d, epoch, hard); break;
        case PGAS_SCHED_RR: pick = pick_rr(s, me, epoch, hard); break;
        case PGAS_SCHED_GUIDE: pick = pick_guided(s, me, me_serial, epoch, hard); break;
        case PGAS_SCHED_DELAY: pick = pick_delay(s, me, n, epoch, hard); break;
        default: pick = kth(s, epoch, hard, (int)(next_random(s) % (uint64_t)n)); break;
        }
    }
    unsigned flags = hard ? 0 : DEC_LAST_RESORT;
    if (me < 0)
        flags |= DEC_NOENT;
    bool me_could = me >= 0 && in_set(&s->ents[me], epoch, hard);
    if (me >= 0 && !me_could)
        flags |= DEC_FORCED;
    if (pick != me) {
        flags |= DEC_SWITCH;
        INC(s->switches);
        if (me_could && LD(s->ents[me].state) == ENT_RUNNABLE) {
            flags |= DEC_PREEMPT;
            INC(s->preemptions);
        }
    }
    uint32_t call_hash = pgas_sched_hash_str(call);
    note_call(s, call_hash, call);
    log_decision(s, d, me_serial, LD(s->ents[pick].serial), call_hash, flags, n);
    XCHG(s->decisions, d + 1);
    if (me >= 0)
        INC(s->ents[me].yields);
    XCHG(s->ents[pick].last_resort, hard ? 0 : 1);
    return pick;
}

/* The turn holder `e` yields at `call`; returns once it holds the turn again. */
static bool yield(pgas_sched *s, pgas_sched_entity *e, const char *call)
{
    int me = (int)(e - s->ents);
    XCHG(e->call, call);
    uint32_t seen = LD(e->go);
    int next = decide(s, me, LD(e->serial), call);
    if (next != me) {
        give_turn(s, next);
        await_turn(s, e, seen);
    } else {
        XCHG(e->turn_epoch, LD(s->epoch));
    }
    return LD(e->last_resort) != 0;
}

/* ---- the API of the rest of the runtime ---------------------------------------------- */

void pgas_sched_point_slow(pgas_thread *t, const char *call, bool writes)
{
    pgas_sched *s = t->world->sched;
    pgas_sched_entity *e = t->ent;
    if (writes)
        INC(s->epoch);
    XCHG(e->state, ENT_RUNNABLE);
    yield(s, e, call);
}

/* A runtime write others may wait for (signal: a sync point's write, which the weak mode's
 * report of late stores can name; else a relaxed read-modify-write). */
static void note_write(pgas_thread *t, const volatile void *addr, size_t bytes, bool signal)
{
    pgas_sched *s = t->world->sched;
    if (s->weak != NULL)
        pgas_weak_strong_write(t, addr, bytes, signal);
    INC(s->epoch);
    /* waits on a word in the range become candidates */
    uintptr_t lo = (uintptr_t)addr, hi = lo + (bytes > 0 ? bytes : 1);
    int hwm = LD(s->hwm);
    for (int i = 0; i < hwm; i++) {
        pgas_sched_entity *b = &s->ents[i];
        if (!LD(b->has_cond))
            continue;
        uintptr_t c = LD(b->cond_addr);
        if (c + 8 > lo && c < hi)
            XCHG(b->dirty, 1);
    }
    /* the last writer of each word (the first 64 of a long range: flags and signals are
     * single words, and a report names one word) */
    uintptr_t first = (uintptr_t)addr & ~(uintptr_t)7;
    size_t words = (bytes + ((uintptr_t)addr & 7) + 7) / 8;
    if (words > 64)
        words = 64;
    uint64_t fiber = pgas_thread_current_fiber();
    uint64_t d = LD(s->decisions);
    const char *call = t->api_call != NULL ? t->api_call : LD(t->ent->call);
    bool small = bytes <= 8;
    for (size_t i = 0; i < words; i++) {
        uintptr_t a = first + 8 * i;
        pgas_last_writer *set = &s->writers[pgas_last_writer_set(a)], *w = NULL;
        pgas_last_writer *empty = NULL, *bulk = NULL;
        for (int k = 0; k < PGAS_LAST_WRITER_WAYS && w == NULL; k++) {
            if (LD(set[k].addr) == a && LD(set[k].thread) != NULL)
                w = &set[k];
            else if (LD(set[k].thread) == NULL)
                empty = empty != NULL ? empty : &set[k];
            else if (!LD(set[k].small))
                bulk = bulk != NULL ? bulk : &set[k];
        }
        if (w == NULL)
            w = empty != NULL ? empty : bulk;
        if (w == NULL && small) /* a set of small words overflows: one of them goes */
            w = &set[(a >> 3) & (PGAS_LAST_WRITER_WAYS - 1)];
        if (w == NULL)
            continue; /* a put's data never displaces a flag's record */
        if (LD(w->addr) != a || LD(w->thread) == NULL)
            XCHG(w->small, small);
        else if (small)
            XCHG(w->small, 1);
        XCHG(w->addr, a);
        XCHG(w->thread, t);
        XCHG(w->fiber, fiber);
        XCHG(w->decision, d);
        XCHG(w->call, call);
    }
}

void pgas_sched_note_write(pgas_thread *t, const volatile void *addr, size_t bytes)
{
    note_write(t, addr, bytes, true);
}

uint64_t pgas_sched_epoch(const pgas_thread *t)
{
    return LD(t->world->sched->epoch);
}

bool pgas_sched_block(pgas_thread *t, const char *call, bool soft, uint64_t eval_epoch)
{
    pgas_sched *s = t->world->sched;
    pgas_sched_entity *e = t->ent;
    pgas_hb_before_checkers(&e->report_token); /* the deadlock report only (sched_report.c) */
    XCHG(e->eval_epoch, eval_epoch);
    XCHG(e->state, soft ? ENT_SOFT : ENT_BLOCKED);
    bool last_resort = yield(s, e, call);
    XCHG(e->state, ENT_RUNNABLE);
    return last_resort;
}

bool pgas_sched_block_value(pgas_thread *t, const char *call, bool soft,
                            const volatile void *addr, pgas_kind kind, int cmp, uint64_t value)
{
    pgas_sched *s = t->world->sched;
    pgas_sched_entity *e = t->ent;
    XCHG(e->cond_addr, (uintptr_t)addr);
    XCHG(e->cond_kind, (int)kind);
    XCHG(e->cond_cmp, cmp);
    XCHG(e->cond_value, value);
    pgas_hb_before_checkers(&e->report_token); /* the deadlock report only (sched_report.c) */
    XCHG(e->dirty, 0);
    if (s->weak != NULL && pgas_weak_wait_word(t, addr))
        XCHG(e->dirty, 1); /* it read its stale view of the word: look again */
    XCHG(e->has_cond, 1);
    XCHG(e->state, soft ? ENT_SOFT : ENT_BLOCKED);
    bool last_resort = yield(s, e, call);
    XCHG(e->has_cond, 0);
    XCHG(e->state, ENT_RUNNABLE);
    return last_resort;
}

void pgas_sched_attach(pgas_thread *t, bool host)
{
    pgas_sched *s = t->world->sched;
    pin_thread(s);
    if (host) {
        pgas_sched_entity *e = &s->ents[t->pe];
        XCHG(e->thread, t);
        t->ent = e;
        uint32_t seen = LD(e->go);
        XCHG(e->state, ENT_RUNNABLE);
        atomic_thread_fence(memory_order_seq_cst);
        if (INC(s->hosts_attached) + 1 == t->world->n_pes) {
            atomic_thread_fence(memory_order_seq_cst);
            /* every PE is here: the first decision (any host may make it; the state is
             * the same whichever does) */
            int first = decide(s, -1, PGAS_SCHED_NO_ENTITY, "start");
            if (first == t->pe) {
                if (s->weak != NULL)
                    pgas_weak_switch(s, -1, first);
                return;
            }
            give_turn(s, first);
        }
        await_turn(s, e, seen);
        return;
    }
    /* A thread created by the turn holder, which waits in pgas_sched_spawn_wait. */
    int slot = -1;
    for (int i = t->world->n_pes; i < s->capacity; i++) {
        if (LD(s->ents[i].state) == ENT_FREE) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        fprintf(stderr, "shmemu: deterministic mode: more than %d threads (PEs, blocks, "
                        "streams) at once; launch fewer blocks\n", s->capacity);
        exit(2);
    }
    pgas_sched_entity *e = &s->ents[slot];
    if (slot + 1 > LD(s->hwm))
        XCHG(s->hwm, slot + 1);
    XCHG(e->serial, INC(s->next_serial));
    XCHG(e->priority, (next_random(s) >> 24) | (1ull << 40));
    XCHG(e->yields, 0);
    XCHG(e->thread, t);
    t->ent = e;
    uint32_t seen = LD(e->go);
    XCHG(e->state, ENT_RUNNABLE);
    INC(s->registered);
    shmemu_futex_wake_all(&s->registered);
    await_turn(s, e, seen);
}

void pgas_sched_detach(pgas_thread *t)
{
    pgas_sched *s = t->world->sched;
    pgas_sched_entity *e = t->ent;
    uint32_t serial = LD(e->serial);
    /* a thread's end publishes its stores (weak mode): an emulated block's to its PE (gpu
     * scope: the kernel's completion, which its stream observes, publishes them further),
     * any other thread's to every PE */
    pgas_weak_release(t, strncmp(t->label, "kernel ", 7) == 0);
    INC(s->epoch);
    pgas_hb_before_checkers(&e->report_token); /* for the deadlock report only (sched_report.c) */
    XCHG(e->call, "exit");
    XCHG(e->state, ENT_FREE);
    t->ent = NULL;
    int next = decide(s, -1, serial, "exit");
    if (next >= 0)
        give_turn(s, next);
    else
        XCHG(s->current, -1);
}

/* ---- the public API ------------------------------------------------------------------ */

bool pgas_sched_enabled(void)
{
    pgas_thread *t = pgas_current();
    return t != NULL && t->ent != NULL;
}

void pgas_sched_sync_point(const char *call, bool writes)
{
    pgas_thread *t = pgas_current();
    if (t != NULL)
        pgas_sched_point(t, call, writes);
}

void pgas_sched_note_store(const volatile void *addr, size_t bytes)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL)
        note_write(t, addr, bytes, false);
}

void pgas_sched_joined(void)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL && t->world->sched->weak != NULL)
        pgas_weak_acquire(t);
}

void pgas_sched_fence(bool sys)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL && t->world->sched->weak != NULL)
        pgas_weak_release(t, !sys);
}

void pgas_sched_before_release(void)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL && t->world->sched->weak != NULL &&
        pgas_weak_has_stores(t))
        pgas_sched_point(t, "a release (weak memory: its stores still buffered)", false);
}

void pgas_sched_observe(const volatile void *addr)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL && t->world->sched->weak != NULL)
        pgas_weak_observe(t, addr);
}

void pgas_sched_poll(const char *call, bool ready)
{
    pgas_thread *t = pgas_current();
    if (t == NULL || t->ent == NULL)
        return;
    if (ready)
        pgas_sched_point_slow(t, call, false);
    else
        (void)pgas_sched_block(t, call, true, pgas_sched_epoch(t));
}

uint32_t pgas_sched_spawn_mark(void)
{
    pgas_thread *t = pgas_current();
    if (t == NULL || t->ent == NULL)
        return 0;
    pgas_weak_release(t, false); /* the new thread sees what its creator stored (weak mode) */
    return LD(t->world->sched->registered);
}

void pgas_sched_spawn_wait(uint32_t mark)
{
    pgas_thread *t = pgas_current();
    if (t == NULL || t->ent == NULL)
        return;
    pgas_sched *s = t->world->sched;
    while (LD(s->registered) == mark)
        shmemu_futex_wait(&s->registered, mark, 0);
    atomic_thread_fence(memory_order_seq_cst);
}

int shmemu_sched_last_stats(shmemu_sched_stats *out)
{
    if (!have_last_stats || out == NULL)
        return -1;
    *out = last_stats;
    return 0;
}

/* ---- creation ------------------------------------------------------------------------ */

static void flush_at_exit(void)
{
    pgas_sched *s = atomic_load(&pgas_sched_active);
    if (s != NULL)
        pgas_trace_flush(s);
}

static void flush_on_signal(int sig)
{
    flush_at_exit();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_flush_handlers(void)
{
    static _Atomic int installed;
    if (atomic_exchange(&installed, 1) != 0)
        return;
    atexit(flush_at_exit);
    int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = flush_on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

static void *alloc_or_die(size_t n, size_t size, const char *what)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        fprintf(stderr, "shmemu: deterministic mode: out of memory for %s; lower "
                        "SHMEMU_SCHED_MAX_DECISIONS\n", what);
        exit(2);
    }
    return p;
}

/* SHMEMU_TRACE_OUT (and SHMEMU_EVENTS, events_write.c) must be writable before the job
 * runs: a file that cannot be written is found at the start (exit 2), not after a long run
 * that then exits 0 without it. The probe is the temporary file the output is written to
 * (PATH.tmp.PID, then renamed). */
void pgas_check_output(const char *var, const char *path, const char *what)
{
    struct stat st;
    const char *why = NULL;
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        why = S_ISDIR(st.st_mode) ? "it is a directory" : "it exists and is not a regular file";
    } else {
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) {
            why = strerror(errno);
        } else {
            close(fd);
            unlink(tmp);
        }
    }
    if (why == NULL)
        return;
    fprintf(stderr, "shmemu: %s=%s cannot be written: %s (%s is written to %s, then "
                    "renamed); give a file in a writable directory\n", var, path, why, what, tmp);
    exit(2);
}

/* SHMEMU_DELAYS: the delay strategy's set (pgas_delays_parse), refused with exit 2 when
 * malformed or given without SHMEMU_SCHED=delay (a replay or a guide ignores it, as they
 * ignore SHMEMU_SEED). */
static void delays_read(const pgas_config *cfg, uint64_t *delays, int *n)
{
    *n = 0;
    const char *v = shmemu_env_get("SHMEMU_DELAYS");
    if (v == NULL || cfg->replay[0] != '\0' || cfg->guide[0] != '\0')
        return;
    if (cfg->sched_strategy != PGAS_SCHED_DELAY) {
        fprintf(stderr, "shmemu: environment: SHMEMU_DELAYS=\"%.100s\" is given but SHMEMU_SCHED "
                        "is %s, not delay: set SHMEMU_SCHED=delay or unset SHMEMU_DELAYS "
                        "(docs/sched.md)\n", v, pgas_sched_strategy_name(cfg->sched_strategy));
        exit(2);
    }
    char err[256];
    if (pgas_delays_parse(v, delays, n, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu: environment: SHMEMU_DELAYS=%s (docs/sched.md)\n", err);
        exit(2);
    }
}

void pgas_sched_create(pgas_world *world)
{
    pgas_config *cfg = &world->config;
    uint64_t delays[PGAS_SCHED_MAX_DELAYS] = {0};
    int n_delays = 0;
    delays_read(cfg, delays, &n_delays);
    if (cfg->sched_strategy == PGAS_SCHED_OFF && cfg->replay[0] == '\0' &&
        cfg->guide[0] == '\0') {
        const char *m = shmemu_env_get("SHMEMU_MEMORY");
        if (m != NULL && strcmp(m, "weak") == 0) {
            fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak needs the deterministic scheduler: set "
                            "SHMEMU_SCHED=random, pct or rr (or replay a trace)\n");
            exit(2);
        }
        return;
    }
    if (cfg->trace_out[0] != '\0')
        pgas_check_output("SHMEMU_TRACE_OUT", cfg->trace_out, "the trace");
    pgas_sched *s = alloc_or_die(1, sizeof *s, "the scheduler");
    s->world = world;
    if (cfg->replay[0] != '\0') {
        char err[512];
        if (pgas_trace_read(cfg->replay, &s->replay_header, &s->replay_log, &s->replay_n, err,
                            sizeof err) != 0) {
            fprintf(stderr, "shmemu: SHMEMU_REPLAY: %s\n", err);
            exit(2);
        }
        s->replaying = true;
        cfg->sched_strategy = s->replay_header.strategy;
        cfg->sched_seed = s->replay_header.seed;
        cfg->pct_depth = s->replay_header.pct_depth;
        cfg->pct_steps = s->replay_header.pct_steps;
    }
    if (cfg->guide[0] != '\0' && !s->replaying) {
        char err[512];
        if (pgas_guide_read(cfg->guide, &s->guide, &s->n_guide, err, sizeof err) != 0) {
            fprintf(stderr, "shmemu: SHMEMU_SCHED_GUIDE: %s\n", err);
            exit(2);
        }
        cfg->sched_strategy = PGAS_SCHED_GUIDE;
    }
    if (!cfg->check_seed_set)
        cfg->check_seed = cfg->sched_seed; /* nbi delivery order follows the schedule's seed */
    s->strategy = cfg->sched_strategy;
    s->seed = cfg->sched_seed;
    s->pct_depth = cfg->pct_depth;
    s->pct_steps = cfg->pct_steps;
    if (s->replaying) {
        memcpy(s->delays, s->replay_header.delays, sizeof s->delays);
        s->n_delays = s->replay_header.n_delays;
    } else if (s->strategy == PGAS_SCHED_DELAY) {
        memcpy(s->delays, delays, sizeof delays);
        s->n_delays = n_delays;
    }
    s->capacity = world->n_pes + PGAS_SCHED_MAX_SPAWNED;
    s->pin_cpu = -1;
    cpu_set_t allowed;
    if (!cfg->under_valgrind && shmemu_env_bool("SHMEMU_SCHED_PIN", true) &&
        pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) == 0) {
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed)) {
                s->pin_cpu = c;
                break;
            }
    }
    s->ents = alloc_or_die((size_t)s->capacity, sizeof *s->ents, "entities");
    s->max_decisions = cfg->max_decisions;
    s->log = alloc_or_die(s->max_decisions * 2, sizeof *s->log, "the decision log");
    s->writers = alloc_or_die(PGAS_LAST_WRITERS, sizeof *s->writers, "last writers");
    uint64_t rng = s->seed * 0x9e3779b97f4a7c15ull + 0x5eed;
    for (int p = 0; p < world->n_pes; p++) {
        atomic_init(&s->ents[p].state, ENT_NEW);
        atomic_init(&s->ents[p].serial, (uint32_t)p);
        atomic_init(&s->ents[p].priority, (pgas_rng_next(&rng) >> 24) | (1ull << 40));
    }
    s->n_change_points = s->pct_depth > 1 ? s->pct_depth - 1 : 0;
    if (s->n_change_points > 16)
        s->n_change_points = 16;
    for (int i = 0; i < s->n_change_points; i++)
        s->change_points[i] = 1 + pgas_rng_next(&rng) % (s->pct_steps ? s->pct_steps : 1);
    atomic_init(&s->rng, rng);
    atomic_init(&s->hwm, world->n_pes);
    atomic_init(&s->next_serial, (uint32_t)world->n_pes);
    atomic_init(&s->current, -1);
    atomic_init(&s->epoch, 1);
    atomic_init(&s->hash, 0xcbf29ce484222325ull);
    pgas_trace_fill_header(s);
    pgas_checker_ignore(s, sizeof *s);
    pgas_checker_ignore(s->ents, (size_t)s->capacity * sizeof *s->ents);
    pgas_checker_ignore(s->log, s->max_decisions * 2 * sizeof *s->log);
    pgas_checker_ignore(s->writers, PGAS_LAST_WRITERS * sizeof *s->writers);
    world->sched = s;
    atomic_store(&pgas_sched_active, s);
    pgas_checker_ignore(&pgas_sched_jobs, sizeof pgas_sched_jobs);
    (void)__atomic_fetch_add(&pgas_sched_jobs, 1, __ATOMIC_RELAXED);
    if (cfg->trace_out[0] != '\0')
        install_flush_handlers();
    pgas_weak_create(s); /* after the flush handlers: its fault handler passes theirs on */
}

void pgas_sched_destroy(pgas_world *world)
{
    pgas_sched *s = world->sched;
    if (s == NULL)
        return;
    pgas_weak_destroy(s);
    if (pgas_trace_flush(s) != 0) {
        fflush(NULL);
        exit(2); /* the trace asked for is not there (the message is printed) */
    }
    if (s->replaying && LD(s->decisions) != s->replay_n && !LD(s->finished)) {
        fprintf(stderr, "shmemu: replay: the run ended after %llu scheduling decisions; the "
                        "trace %s holds %llu: the program or its input changed\n",
                (unsigned long long)LD(s->decisions), world->config.replay,
                (unsigned long long)s->replay_n);
        fflush(NULL);
        _exit(PGAS_SCHED_DIVERGED_EXIT);
    }
    last_stats = (shmemu_sched_stats){
        .deterministic = true,
        .strategy = s->strategy,
        .seed = s->seed,
        .decisions = LD(s->decisions),
        .switches = LD(s->switches),
        .preemptions = LD(s->preemptions),
        .schedule_hash = LD(s->hash),
        .entities = LD(s->next_serial),
    };
    have_last_stats = true;
    atomic_store(&pgas_sched_active, NULL);
    (void)__atomic_fetch_sub(&pgas_sched_jobs, 1, __ATOMIC_RELAXED);
    free(s->replay_log);
    free(s->guide);
    free(s->log);
    free(s->writers);
    free(s->ents);
    free(s);
    world->sched = NULL;
}
