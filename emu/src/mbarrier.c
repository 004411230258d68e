/*
 * mbarrier.c: Hopper's mbarrier and bulk copies (TMA), emulated inside a block.
 *
 * An mbarrier is a 64-bit word in shared memory; its state (expected arrivals, pending
 * arrivals, transaction bytes, completed phases) lives in a side table of the block, keyed
 * by the word's address, because the emulator checks more than 64 bits can hold. A phase
 * completes when its pending arrivals reach 0 and its transaction count is 0; then the
 * phase number advances and pending is reset to the count given to mbar_init.
 *
 * Only the block's own threads touch its mbarriers, and bulk copies complete at once (the
 * issuing thread copies and completes the transaction bytes), so a wait that cannot be
 * satisfied now can only be satisfied by another fiber of the block: an mbarrier wait
 * blocks the fiber, never the pthread, and a phase nobody can complete is a deadlock that
 * the block reports.
 *
 * Misuse reported: an mbarrier outside shared memory or misaligned, use before mbar_init
 * (or after mbar_inval), re-initialization while a phase is in progress, more arrivals than
 * the count in one phase, bulk copies that are misaligned, not a multiple of 16 bytes, or
 * whose shared side is not shared memory, and reads of bulk-copied data before the copy's
 * phase was waited for (shared.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int find_slot(const emu_block *b, const uint64_t *bar)
{
    for (size_t i = 0; i < b->n_mbars; i++)
        if (b->mbars[i].addr == bar)
            return (int)i;
    return -1;
}

static void check_location(emu_thread *t, const char *call, const uint64_t *bar,
                           const char *file, int line)
{
    emu_block *b = t->block;
    if ((uintptr_t)bar % 8 != 0 || emu_shared_find(b, bar, 8) == NULL)
        emu_fail(t, "%s at %s:%d: the mbarrier %p is %s; an mbarrier is an 8-byte aligned "
                    "uint64_t in shared memory (SHARED_ARRAY(uint64_t, bar, 1))",
                 call, file, line, (const void *)bar,
                 (uintptr_t)bar % 8 != 0 ? "not 8-byte aligned" : "not in this block's shared memory");
}

static emu_mbar *lookup(emu_thread *t, const char *call, uint64_t *bar, const char *file,
                        int line)
{
    check_location(t, call, bar, file, line);
    int slot = find_slot(t->block, bar);
    if (slot < 0)
        emu_fail(t, "%s at %s:%d on the mbarrier at shared offset %zu, which is not "
                    "initialized (or was invalidated); call mbar_init (by one thread, then "
                    "__syncthreads) before using it",
                 call, file, line, (size_t)((char *)bar - t->block->smem));
    return &t->block->mbars[slot];
}

/* Whether another thread of the block can run (or poll) now. */
static bool others_runnable(const emu_block *b, const emu_thread *self)
{
    for (int i = 0; i < b->n_threads; i++) {
        const emu_thread *u = &b->threads[i];
        if (u != self && (u->state == EMU_RUNNABLE || u->state == EMU_POLLING))
            return true;
    }
    return false;
}

static void maybe_complete(emu_block *b, emu_mbar *m)
{
    if (m->pending != 0 || m->tx != 0)
        return;
    m->phase++;
    m->pending = m->expected;
    m->complete_seq = ++b->seq;
    m->complete_epoch = b->bar_epoch;
    int slot = (int)(m - b->mbars);
    for (int i = 0; i < b->n_threads; i++) {
        emu_thread *u = &b->threads[i];
        if (u->state == EMU_AT_MBAR && u->mbar_slot == slot && m->phase > u->mbar_target)
            emu_block_release(u);
    }
}

void emu_mbar_init(uint64_t *bar, unsigned count, const char *file, int line)
{
    emu_thread *t = emu_thread_require("mbar_init");
    emu_block *b = t->block;
    check_location(t, "mbar_init", bar, file, line);
    if (count == 0 || count > (1u << 20) - 1)
        emu_fail(t, "mbar_init at %s:%d with count %u; the arrival count must be 1 to %u",
                 file, line, count, (1u << 20) - 1);
    int slot = find_slot(b, bar);
    if (slot >= 0) {
        emu_mbar *m = &b->mbars[slot];
        if (m->pending != m->expected || m->tx != 0)
            emu_fail(t, "mbar_init at %s:%d re-initializes the mbarrier at shared offset %zu "
                        "(initialized at %s:%d) while phase %llu is in progress (%u of %u "
                        "arrivals, %lld transaction bytes outstanding); wait for the phase "
                        "to complete, or mbar_inval it first",
                     file, line, (size_t)((char *)bar - b->smem), m->init_file, m->init_line,
                     (unsigned long long)m->phase, m->expected - m->pending, m->expected,
                     (long long)m->tx);
    } else {
        for (size_t i = 0; i < b->n_mbars && slot < 0; i++)
            if (b->mbars[i].addr == NULL)
                slot = (int)i;
        if (slot < 0) {
            emu_mbar *grown = realloc(b->mbars, (b->n_mbars + 1) * sizeof *grown);
            if (grown == NULL) {
                fprintf(stderr, "shmemu: out of memory for mbarriers\n");
                exit(2);
            }
            b->mbars = grown;
            slot = (int)b->n_mbars++;
        }
    }
    emu_mbar *m = &b->mbars[slot];
    memset(m, 0, sizeof *m);
    m->addr = bar;
    m->expected = count;
    m->pending = count;
    m->complete_epoch = b->bar_epoch;
    m->init_file = file;
    m->init_line = line;
    *bar = (uint64_t)count; /* something, as the hardware writes the word */
}

void emu_mbar_inval(uint64_t *bar, const char *file, int line)
{
    emu_thread *t = emu_thread_require("mbar_inval");
    emu_mbar *m = lookup(t, "mbar_inval", bar, file, line);
    for (int i = 0; i < t->block->n_threads; i++) {
        const emu_thread *u = &t->block->threads[i];
        if (u->state == EMU_AT_MBAR && &t->block->mbars[u->mbar_slot] == m)
            emu_fail(t, "mbar_inval at %s:%d while thread (%u,%u,%u) waits on it at %s:%d",
                     file, line, u->view.thread_idx.x, u->view.thread_idx.y,
                     u->view.thread_idx.z, u->wait_file, u->wait_line);
    }
    m->addr = NULL;
}

uint64_t emu_mbar_arrive(uint64_t *bar, unsigned tx_bytes, bool expect, const char *file,
                         int line)
{
    const char *call = expect ? "mbar_arrive_expect_tx" : "mbar_arrive";
    emu_thread *t = emu_thread_require(call);
    emu_mbar *m = lookup(t, call, bar, file, line);
    if (m->pending == 0)
        emu_fail(t, "%s at %s:%d: more arrivals than the count %u given to mbar_init (at "
                    "%s:%d) in phase %llu, which still waits for %lld transaction bytes; "
                    "arrive once per expected arrival and phase",
                 call, file, line, m->expected, m->init_file, m->init_line,
                 (unsigned long long)m->phase, (long long)m->tx);
    uint64_t token = m->phase;
    if (expect)
        m->tx += tx_bytes;
    m->pending--;
    maybe_complete(t->block, m);
    return token;
}

void emu_mbar_expect_tx(uint64_t *bar, unsigned bytes, const char *file, int line)
{
    emu_thread *t = emu_thread_require("mbar_expect_tx");
    emu_mbar *m = lookup(t, "mbar_expect_tx", bar, file, line);
    m->tx += bytes;
}

static void note_observed(emu_thread *t, int slot, const emu_mbar *m)
{
    int i = t->seen_next++ % EMU_SEEN_MBARS;
    for (int k = 0; k < EMU_SEEN_MBARS; k++)
        if (t->seen[k].slot == slot + 1) {
            i = k;
            break;
        }
    t->seen[i].slot = slot + 1;
    t->seen[i].phase = m->phase;
    if (m->complete_seq > t->mbar_seen_seq)
        t->mbar_seen_seq = m->complete_seq;
}

/* parity: v is the parity of the phase waited for; otherwise v is a token (the phase
 * number at the arrival). Returns true once that phase has completed. */
bool emu_mbar_test(uint64_t *bar, uint64_t v, bool parity, bool block, const char *file,
                   int line)
{
    const char *call = parity ? (block ? "mbar_wait_parity" : "mbar_try_wait_parity")
                              : (block ? "mbar_wait" : "mbar_test_wait");
    emu_thread *t = emu_thread_require(call);
    emu_block *b = t->block;
    emu_mbar *m = lookup(t, call, bar, file, line);
    int slot = (int)(m - b->mbars);
    uint64_t target; /* done when m->phase > target */
    if (parity) {
        if (v > 1)
            emu_fail(t, "%s at %s:%d with parity %llu; the parity is 0 or 1", call, file, line,
                     (unsigned long long)v);
        /* The current phase has parity phase & 1; a wait for the other parity refers to
         * the phase before it, which has completed (also before the first phase). */
        if ((m->phase & 1u) != v) {
            note_observed(t, slot, m);
            return true;
        }
        target = m->phase;
    } else {
        if (v > m->phase)
            emu_fail(t, "%s at %s:%d with token %llu, from a phase that has not begun (the "
                        "current phase is %llu); pass the value mbar_arrive returned",
                     call, file, line, (unsigned long long)v, (unsigned long long)m->phase);
        target = v;
    }
    if (m->phase > target) {
        note_observed(t, slot, m);
        return true;
    }
    if (!block && others_runnable(b, t)) {
        /* a try_wait in a loop: let the others run before the next try */
        t->wait_file = file;
        t->wait_line = line;
        emu_block_park(t, EMU_RUNNABLE);
        if (m->phase > target) {
            note_observed(t, slot, m);
            return true;
        }
        return false;
    }
    /* Nobody else can run now (or this is a wait): block until the phase completes; if it
     * never can, the block reports the deadlock. */
    t->mbar_slot = slot;
    t->mbar_target = target;
    t->wait_file = file;
    t->wait_line = line;
    emu_block_park(t, EMU_AT_MBAR);
    note_observed(t, slot, m);
    return true;
}

void emu_fence_proxy_async(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

void emu_tma(void *dst, const void *src, unsigned bytes, uint64_t *bar, bool to_shared,
             const char *file, int line)
{
    const char *call = to_shared ? "tma_ld" : "tma_st";
    emu_thread *t = emu_thread_require(call);
    emu_block *b = t->block;
    emu_mbar *m = lookup(t, call, bar, file, line);
    if (bytes == 0 || bytes % 16 != 0 || (uintptr_t)dst % 16 != 0 || (uintptr_t)src % 16 != 0)
        emu_fail(t, "%s at %s:%d of %u bytes from %p to %p: bulk copies need 16-byte aligned "
                    "addresses and a size that is a non-zero multiple of 16",
                 call, file, line, bytes, src, dst);
    const void *smem_side = to_shared ? dst : src;
    const emu_shared_alloc *a = emu_shared_find(b, smem_side, bytes);
    if (a == NULL)
        emu_fail(t, "%s at %s:%d: the shared-memory side %p (%u bytes) is not within one "
                    "shared array of this block; %s",
                 call, file, line, smem_side, bytes,
                 to_shared ? "tma_ld copies global -> shared" : "tma_st copies shared -> global");
    /* the copy reads (tma_st) or overwrites (tma_ld) shared memory as the issuing thread */
    emu_shared_check_range(t, smem_side, bytes, to_shared, a->name, file, line);
    memcpy(dst, src, bytes);
    if (to_shared)
        emu_shared_mark_tma(b, dst, bytes, (int)(m - b->mbars), m->phase);
    m->tx -= bytes;
    maybe_complete(b, m);
}

void emu_mbar_teardown(emu_block *b)
{
    free(b->mbars);
    b->mbars = NULL;
    b->n_mbars = 0;
}
