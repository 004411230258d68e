/*
 * sm_pool.c: block admission ("SMs"), stream priorities, and the residency check.
 *
 * A PE has EMU_MAX_SMS slots, or SHMEMU_EMU_SMS (emu_set_sm_limit) of them. A block runs
 * only while it holds a slot; its stream thread waits for one before starting the block's
 * pthread. Blocks of a higher-priority stream are admitted first: a stream does not take a
 * slot while blocks of a higher priority level wait. Every word here is an atomic updated by
 * read-modify-writes; waits are pgas predicate waits; nothing synchronizes a finished block
 * with the block admitted after it (on a GPU, nothing does either).
 *
 * Residency check: with a limit, when every resident block is parked, the PE's host thread
 * is parked too, blocks wait for an SM, and none of these waits has changed for
 * SHMEMU_EMU_STALL seconds, the kernel would deadlock on a GPU with that many SMs: a
 * resident block waits for something that only a block which cannot start would do. The
 * report lists what each resident block waits for and which blocks are not resident, and
 * the process exits with status 4 instead of hanging. (It is a stall heuristic: a wait for
 * another PE that is merely slow for longer than SHMEMU_EMU_STALL is reported too.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "shmemu/internal/assert.h"

enum { SLOT_FREE = 0, SLOT_ADMITTED = 1, SLOT_RUNNING = 2 };

/* Defined here, not in atomic.c, whose spinning loads wait under it: the stall check below
 * must tell their waits apart, and atomic.c calls this file (emu_sm_note_progress). */
const char emu_spin_call[] = "a spinning load or CAS (emulated)";

static int effective_limit(const emu_sm_pool *pool)
{
    int l = atomic_load_explicit(&pool->limit, memory_order_relaxed);
    return l > 0 && l < EMU_MAX_SMS ? l : EMU_MAX_SMS;
}

static void pool_changed(emu_sm_pool *pool)
{
    atomic_fetch_add_explicit(&pool->changed, 1, memory_order_relaxed);
    pgas_wake(&pool->changed);
}

void emu_sm_register_waiting(emu_pe *pe, int level, int n)
{
    atomic_fetch_add_explicit(&pe->pool.waiting[level], n, memory_order_relaxed);
    pool_changed(&pe->pool);
}

static bool try_claim(emu_sm_pool *pool, int level)
{
    for (int q = 0; q < level; q++)
        if (atomic_load_explicit(&pool->waiting[q], memory_order_relaxed) > 0)
            return false;
    int limit = effective_limit(pool);
    int cur = atomic_load_explicit(&pool->in_use, memory_order_relaxed);
    while (cur < limit) {
        if (atomic_compare_exchange_weak_explicit(&pool->in_use, &cur, cur + 1,
                                                  memory_order_relaxed, memory_order_relaxed))
            return true;
    }
    return false;
}

typedef struct admit_wait {
    emu_pe *pe;
    emu_launch_rec *launch;
    int block_index;
    int level;
    uint64_t signature;
    uint64_t since_ns;
} admit_wait;

_Noreturn static void residency_report(admit_wait *w)
{
    static _Atomic int reporting;
    if (atomic_exchange(&reporting, 1) != 0) {
        for (;;)
            pause();
    }
    emu_pe *pe = w->pe;
    emu_sm_pool *pool = &pe->pool;
    emu_launch_rec *L = w->launch;
    int limit = effective_limit(pool);
    int waiting = 0;
    for (int q = 0; q < EMU_PRIORITY_LEVELS; q++)
        waiting += atomic_load(&pool->waiting[q]);
    FILE *f = stderr;
    fprintf(f, "shmemu: PE %d: residency deadlock: kernel %s (launch %u) cannot make progress "
               "with %d resident blocks per PE (SHMEMU_EMU_SMS=%d): every resident block and "
               "the host have waited for %.1f s, and %d block(s) wait for an SM.\n",
            pe->pe, L->kernel->name, L->id, limit, limit, pe->stall_s, waiting);
    for (int s = 0; s < EMU_MAX_SMS; s++) {
        if (atomic_load(&pool->slot_state[s]) != SLOT_RUNNING)
            continue;
        pgas_wait_info info;
        if (!pgas_thread_wait_info(atomic_load(&pool->slot_thread[s]), &info))
            continue;
        uint64_t blk = atomic_load(&pool->slot_block[s]);
        fprintf(f, "  resident on SM %d: kernel %s block (%u,%u,%u) waits in %s: ", s,
                atomic_load(&pool->slot_kernel[s]), (unsigned)(blk & 0x1fffff),
                (unsigned)((blk >> 21) & 0x1fffff), (unsigned)(blk >> 42), info.call);
        if (info.kind == PGAS_KIND_NONE)
            fprintf(f, "%s at %p\n", info.what != NULL ? info.what : "a condition",
                    (const void *)info.addr);
        else
            fprintf(f, "word %p cmp %d value %llu (now %llu)\n", (const void *)info.addr,
                    info.cmp, (unsigned long long)info.value,
                    (unsigned long long)pgas_load_kind(info.addr, info.kind));
    }
    const emu_block *first = &L->blocks[w->block_index];
    const emu_block *last = &L->blocks[L->n_blocks - 1];
    fprintf(f, "  not resident: blocks (%u,%u,%u) to (%u,%u,%u) of kernel %s (%d blocks)%s\n",
            first->idx.x, first->idx.y, first->idx.z, last->idx.x, last->idx.y, last->idx.z,
            L->kernel->name, L->n_blocks - w->block_index,
            waiting > L->n_blocks - w->block_index ? ", and blocks of other streams" : "");
    fprintf(f, "On a GPU with %d SMs (one resident block each) this kernel deadlocks: the "
               "resident blocks wait for work of blocks that cannot start until a resident "
               "block finishes. Make the waits independent of blocks launched later, launch "
               "at most %d blocks (LAUNCH_COOP checks this), or raise SHMEMU_EMU_SMS.\n",
            limit, limit);
    fflush(NULL);
    _exit(EMU_RESIDENCY_EXIT);
}

/* Called while waiting for a slot: reports when everything has been parked long enough. */
static void stall_check(admit_wait *w)
{
    emu_pe *pe = w->pe;
    emu_sm_pool *pool = &pe->pool;
    /* deterministic mode finds this deadlock exactly (and has no clock to read) */
    if (atomic_load_explicit(&pool->limit, memory_order_relaxed) <= 0 || pgas_sched_enabled()) {
        w->signature = 0;
        return;
    }
    uint64_t sig = 1469598103934665603ull;
    int n = 0;
    for (int s = 0; s < EMU_MAX_SMS; s++) {
        int state = atomic_load_explicit(&pool->slot_state[s], memory_order_relaxed);
        if (state == SLOT_FREE)
            continue;
        pgas_wait_info info;
        if (state != SLOT_RUNNING ||
            !atomic_load_explicit(&pool->slot_sleeping[s], memory_order_relaxed) ||
            !pgas_thread_wait_info(
                atomic_load_explicit(&pool->slot_thread[s], memory_order_relaxed), &info)) {
            w->signature = 0;
            return;
        }
        /* a spinning load re-enters its wait every few ms: there, only progress counts */
        uint64_t since = info.call == emu_spin_call ? 0 : info.since_ns;
        sig = (sig ^ since ^ (uint64_t)s) * 1099511628211ull;
        sig = (sig ^ atomic_load_explicit(&pool->slot_progress[s], memory_order_relaxed)) *
              1099511628211ull;
        n++;
    }
    pgas_wait_info host;
    if (n == 0 || !pgas_thread_wait_info(pe->host, &host)) {
        w->signature = 0;
        return;
    }
    sig = (sig ^ host.since_ns) * 1099511628211ull;
    uint64_t now = emu_now_ns();
    if (sig != w->signature) {
        w->signature = sig;
        w->since_ns = now;
        return;
    }
    if ((double)(now - w->since_ns) * 1e-9 >= pe->stall_s)
        residency_report(w);
}

static bool admit_ready(void *ctx)
{
    admit_wait *w = ctx;
    if (try_claim(&w->pe->pool, w->level))
        return true;
    stall_check(w);
    return false;
}

int emu_sm_acquire(emu_pe *pe, emu_launch_rec *L, int block_index)
{
    emu_sm_pool *pool = &pe->pool;
    int level = L->stream->level;
    admit_wait w = {pe, L, block_index, level, 0, 0};
    if (!try_claim(pool, level))
        pgas_wait_predicate(&pool->changed, admit_ready, &w, "block admission",
                            "a free SM for the next block (SHMEMU_EMU_SMS)");
    int slot = 0;
    for (;; slot = (slot + 1) % EMU_MAX_SMS) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&pool->slot_state[slot], &expected, SLOT_ADMITTED))
            break;
    }
    L->blocks[block_index].admitted = atomic_fetch_add(&pool->admitted, 1) + 1;
    /* its launch counted this block as waiting (emu_sm_register_waiting) */
    const int was_waiting =
        atomic_fetch_sub_explicit(&pool->waiting[level], 1, memory_order_relaxed);
    EMU_ASSERT(was_waiting > 0);
    pool_changed(pool);
    return slot;
}

void emu_sm_publish(emu_pe *pe, int sm, emu_block *b)
{
    emu_sm_pool *pool = &pe->pool;
    if (b != NULL) {
        uint64_t packed = (uint64_t)b->idx.x | (uint64_t)b->idx.y << 21 | (uint64_t)b->idx.z << 42;
        (void)atomic_exchange_explicit(&pool->slot_thread[sm], b->pt, memory_order_relaxed);
        (void)atomic_exchange_explicit(&pool->slot_kernel[sm], b->launch->kernel->name,
                                       memory_order_relaxed);
        (void)atomic_exchange_explicit(&pool->slot_block[sm], packed, memory_order_relaxed);
        (void)atomic_exchange_explicit(&pool->slot_sleeping[sm], 0, memory_order_relaxed);
    }
    (void)atomic_exchange_explicit(&pool->slot_state[sm], b != NULL ? SLOT_RUNNING : SLOT_ADMITTED,
                                   memory_order_relaxed);
}

void emu_sm_note_sleeping(const emu_block *b, bool sleeping)
{
    (void)atomic_exchange_explicit(&b->launch->pe->pool.slot_sleeping[b->sm], sleeping ? 1 : 0,
                                   memory_order_relaxed);
}

void emu_sm_note_progress(const emu_block *b)
{
    atomic_fetch_add_explicit(&b->launch->pe->pool.slot_progress[b->sm], 1,
                              memory_order_relaxed);
}

void emu_sm_release(emu_pe *pe, int sm)
{
    emu_sm_pool *pool = &pe->pool;
    /* a slot is released once per admission: a second release would let one more block
     * be resident than the limit allows */
    const int was = atomic_exchange_explicit(&pool->slot_state[sm], SLOT_FREE,
                                             memory_order_relaxed);
    EMU_ASSERT(was != SLOT_FREE);
    const int in_use = atomic_fetch_sub_explicit(&pool->in_use, 1, memory_order_relaxed);
    EMU_ASSERT(in_use > 0);
    pool_changed(pool);
}

void emu_sm_set_limit(emu_pe *pe, int sms)
{
    (void)atomic_exchange(&pe->pool.limit, sms);
    pool_changed(&pe->pool);
}

int emu_sm_waiting(emu_pe *pe)
{
    int n = 0;
    for (int q = 0; q < EMU_PRIORITY_LEVELS; q++)
        n += atomic_load(&pe->pool.waiting[q]);
    return n;
}

typedef struct count_wait {
    emu_pe *pe;
    int n;
} count_wait;

static bool enough_waiting(void *ctx)
{
    count_wait *c = ctx;
    return emu_sm_waiting(c->pe) >= c->n;
}

void emu_sm_wait_waiting(emu_pe *pe, int n)
{
    count_wait c = {pe, n};
    pgas_wait_predicate(&c.pe->pool.changed, enough_waiting, &c, "emu_wait_blocks_waiting_for_sm",
                        "blocks waiting for an SM");
}
