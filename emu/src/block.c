/*
 * block.c: one thread block = one pthread running the block's threads as fibers.
 *
 * The block's scheduler (on the pthread's own stack) switches to a runnable fiber, which
 * runs until it blocks: at __syncthreads, at a warp collective (__syncwarp, shuffles,
 * votes), at an mbarrier wait, or at a wait that would park (a signal wait, a spin on a
 * flag). Barriers and warp collectives complete inside the block, on this pthread, so they
 * need no atomics and create no happens-before edge that the checkers could see: to them
 * the block is one thread (docs/emu.md says what that hides).
 *
 * Waits (pgas_wait_value and friends, from NVSHMEM calls or the dialect's loads) call the
 * block's wait hook before they park. The hook runs the other fibers while any can run, so
 * a thread waiting on a flag that another thread of its own block sets makes progress; only
 * when every fiber is blocked does the pthread park. Pollers take turns ("baton"): each
 * gets a re-check before one of them parks.
 *
 * A block in which no fiber can continue and none waits on memory can never finish: that
 * is reported (a __syncthreads not reached by all threads, a warp collective with a missing
 * lane, an mbarrier phase that nobody can complete) with each thread's position.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <valgrind/helgrind.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"

/* ---- the wait hook ------------------------------------------------------------------- */

/* Which emulated thread runs now, for wait records and last writers (pgas fiber hook). */
static uint64_t block_fiber(void *ctx)
{
    const emu_block *b = ctx;
    if (b->current < 0)
        return 0;
    dim3 i = b->threads[b->current].view.thread_idx;
    return ((uint64_t)i.x | (uint64_t)i.y << 21 | (uint64_t)i.z << 42) + 1;
}

static bool block_wait_hook(void *ctx)
{
    emu_block *b = ctx;
    if (b->current < 0)
        return false;
    emu_thread *me = &b->threads[b->current];
    emu_sm_note_sleeping(b, false);
    bool runnable = false, polling = false;
    for (int i = 0; i < b->n_threads; i++) {
        const emu_thread *u = &b->threads[i];
        if (u == me)
            continue;
        runnable = runnable || u->state == EMU_RUNNABLE;
        polling = polling || u->state == EMU_POLLING;
    }
    if (runnable || (polling && !me->baton)) {
        if (!runnable)
            me->baton = true;
        emu_block_park(me, EMU_POLLING);
        return true;
    }
    me->baton = false;
    if (polling)
        pgas_thread_note_other_pollers();
    emu_sm_note_sleeping(b, true);
    return false;
}

/* ---- __syncthreads --------------------------------------------------------------------- */

static const emu_thread *first_done(const emu_block *b)
{
    for (int i = 0; i < b->n_threads; i++)
        if (b->threads[i].state == EMU_DONE)
            return &b->threads[i];
    return NULL;
}

void emu_syncthreads(const char *file, int line)
{
    emu_thread *t = emu_thread_require("__syncthreads");
    emu_block *b = t->block;
    if (b->n_done > 0) {
        const emu_thread *d = first_done(b);
        emu_fail(t, "__syncthreads() at %s:%d is not reached by every thread of the block: "
                    "%d of %d threads (first: thread (%u,%u,%u)) already exited; every "
                    "thread must reach each __syncthreads (make the condition around it "
                    "uniform across the block)",
                 file, line, b->n_done, b->n_threads, d->view.thread_idx.x,
                 d->view.thread_idx.y, d->view.thread_idx.z);
    }
    if (b->bar_arrived == 0) {
        b->bar_file = file;
        b->bar_line = line;
    } else if (b->bar_line != line || strcmp(b->bar_file, file) != 0) {
        emu_fail(t, "divergent __syncthreads: this thread reached the one at %s:%d while %d "
                    "thread(s) wait at the one at %s:%d; every thread must reach the same "
                    "__syncthreads (make the condition around it uniform across the block)",
                 file, line, b->bar_arrived, b->bar_file, b->bar_line);
    }
    t->wait_file = file;
    t->wait_line = line;
    if (++b->bar_arrived == b->n_threads) {
        b->bar_arrived = 0;
        b->bar_epoch++;
        b->seq++;
        for (int i = 0; i < b->n_threads; i++)
            if (b->threads[i].state == EMU_AT_BARRIER)
                emu_block_release(&b->threads[i]);
        return;
    }
    emu_block_park(t, EMU_AT_BARRIER);
}

/* ---- warp collectives ------------------------------------------------------------------- */

static unsigned warp_lanes(const emu_block *b, int w)
{
    int n = b->n_threads - 32 * w;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

unsigned emu_warp_lanes(const emu_thread *t) { return warp_lanes(t->block, t->tid >> 5); }

static const char *warp_op_name(int op)
{
    switch (op) {
    case EMU_WARP_SHFL: return "__shfl_sync";
    case EMU_WARP_SHFL_UP: return "__shfl_up_sync";
    case EMU_WARP_SHFL_DOWN: return "__shfl_down_sync";
    case EMU_WARP_SHFL_XOR: return "__shfl_xor_sync";
    case EMU_WARP_BALLOT: return "__ballot_sync";
    case EMU_WARP_ANY: return "__any_sync";
    case EMU_WARP_ALL: return "__all_sync";
    default: return "__syncwarp";
    }
}

static void warp_complete(emu_block *b, int w, unsigned mask)
{
    emu_thread *base = &b->threads[32 * w];
    uint64_t ballot = 0;
    for (int l = 0; l < 32; l++)
        if ((mask >> l) & 1u)
            ballot |= (uint64_t)(base[l].warp_value != 0) << l;
    for (int l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u))
            continue;
        emu_thread *u = &base[l];
        int src = l;
        switch (u->warp_op) {
        case EMU_WARP_SHFL: src = u->warp_arg & 31; break;
        case EMU_WARP_SHFL_UP: src = l - u->warp_arg; break;
        case EMU_WARP_SHFL_DOWN: src = l + u->warp_arg; break;
        case EMU_WARP_SHFL_XOR: src = l ^ (u->warp_arg & 31); break;
        default: break;
        }
        if (src < 0 || src > 31 || !((mask >> src) & 1u))
            src = l; /* outside the warp or the mask: the lane keeps its own value */
        switch (u->warp_op) {
        case EMU_WARP_BALLOT: u->warp_result = ballot; break;
        case EMU_WARP_ANY: u->warp_result = ballot != 0; break;
        case EMU_WARP_ALL: u->warp_result = ballot == (uint64_t)mask; break;
        default: u->warp_result = base[src].warp_value; break;
        }
    }
}

static uint64_t warp_collective(int op, unsigned mask, uint64_t value, int arg,
                                const char *file, int line)
{
    emu_thread *t = emu_thread_require(warp_op_name(op));
    emu_block *b = t->block;
    int lane = t->tid & 31, w = t->tid >> 5;
    emu_warp *W = &b->warps[w];
    if (!((mask >> lane) & 1u))
        emu_fail(t, "%s at %s:%d with mask 0x%08x, which does not include the calling lane "
                    "%d; include every lane that calls it", warp_op_name(op), file, line, mask,
                 lane);
    if (mask & ~warp_lanes(b, w))
        emu_fail(t, "%s at %s:%d with mask 0x%08x names lanes that do not exist (this warp "
                    "has lanes 0x%08x); pass __activemask() or the lanes of the block",
                 warp_op_name(op), file, line, mask, warp_lanes(b, w));
    for (int l = 0; l < 32; l++) {
        if (((mask >> l) & 1u) && b->threads[32 * w + l].state == EMU_DONE)
            emu_fail(t, "%s at %s:%d with mask 0x%08x waits for lane %d, which has already "
                        "exited; leave exited lanes out of the mask", warp_op_name(op), file,
                     line, mask, l);
    }
    t->warp_op = op;
    t->warp_mask = mask;
    t->warp_value = value;
    t->warp_arg = arg;
    t->wait_file = file;
    t->wait_line = line;
    W->arrived |= 1u << lane;
    if ((W->arrived & mask) != mask) {
        emu_block_park(t, EMU_AT_WARP);
        return t->warp_result;
    }
    for (int l = 0; l < 32; l++) {
        const emu_thread *u = &b->threads[32 * w + l];
        if (((mask >> l) & 1u) && l != lane && (u->warp_op != op || u->warp_mask != mask))
            emu_fail(t, "%s at %s:%d with mask 0x%08x meets lane %d in %s at %s:%d with mask "
                        "0x%08x; the lanes of a mask must make the same warp call",
                     warp_op_name(op), file, line, mask, l, warp_op_name(u->warp_op),
                     u->wait_file, u->wait_line, u->warp_mask);
    }
    warp_complete(b, w, mask);
    for (int l = 0; l < 32; l++)
        if (((mask >> l) & 1u) && l != lane)
            emu_block_release(&b->threads[32 * w + l]);
    W->arrived &= ~mask;
    W->epoch++;
    b->seq++;
    return t->warp_result;
}

void emu_syncwarp(unsigned mask, const char *file, int line)
{
    (void)warp_collective(-1, mask, 0, 0, file, line);
}

uint64_t emu_warp_op(int op, unsigned mask, uint64_t value, int arg, const char *file,
                     int line)
{
    return warp_collective(op, mask, value, arg, file, line);
}

unsigned emu_activemask(void)
{
    emu_thread *t = emu_thread_require("__activemask");
    emu_block *b = t->block;
    int w = t->tid >> 5;
    unsigned mask = 0;
    for (int l = 0; l < 32; l++)
        if (((warp_lanes(b, w) >> l) & 1u) && b->threads[32 * w + l].state != EMU_DONE)
            mask |= 1u << l;
    return mask;
}

/* ---- exit and deadlock ------------------------------------------------------------------ */

static void thread_finished(emu_thread *t)
{
    emu_block *b = t->block;
    t->state = EMU_DONE;
    b->n_done++;
    if (b->bar_arrived > 0)
        emu_fail(t, "exited while %d thread(s) wait at __syncthreads() at %s:%d; every thread "
                    "of the block must reach each __syncthreads (make the condition around it "
                    "uniform across the block)",
                 b->bar_arrived, b->bar_file, b->bar_line);
    int lane = t->tid & 31, w = t->tid >> 5;
    for (int l = 0; l < 32 && 32 * w + l < b->n_threads; l++) {
        const emu_thread *u = &b->threads[32 * w + l];
        if (u->state == EMU_AT_WARP && ((u->warp_mask >> lane) & 1u))
            emu_fail(t, "exited while lane %d waits for it in %s at %s:%d (mask 0x%08x); "
                        "leave exited lanes out of the mask", l, warp_op_name(u->warp_op),
                     u->wait_file, u->wait_line, u->warp_mask);
    }
}

static const char *state_text(const emu_thread *t, char *out, size_t len)
{
    const emu_block *b = t->block;
    switch (t->state) {
    case EMU_AT_BARRIER:
        snprintf(out, len, "waits at __syncthreads() at %s:%d", t->wait_file, t->wait_line);
        break;
    case EMU_AT_WARP:
        snprintf(out, len, "waits in %s at %s:%d (mask 0x%08x)", warp_op_name(t->warp_op),
                 t->wait_file, t->wait_line, t->warp_mask);
        break;
    case EMU_AT_MBAR: {
        const emu_mbar *m = &b->mbars[t->mbar_slot];
        snprintf(out, len, "waits on the mbarrier at shared offset %zu (initialized at %s:%d "
                           "with count %u) at %s:%d for phase %llu to complete; it has %u of "
                           "%u arrivals and %lld transaction bytes outstanding",
                 (size_t)((char *)m->addr - b->smem), m->init_file, m->init_line, m->expected,
                 t->wait_file, t->wait_line, (unsigned long long)t->mbar_target,
                 m->expected - m->pending, m->expected, (long long)m->tx);
        break;
    }
    case EMU_DONE: snprintf(out, len, "has exited"); break;
    default: snprintf(out, len, "is running"); break;
    }
    return out;
}

_Noreturn static void block_deadlock(emu_block *b)
{
    char text[8192];
    size_t used = 0;
    int i = 0;
    while (i < b->n_threads && used + 256 < sizeof text) {
        char s[512], s2[512];
        state_text(&b->threads[i], s, sizeof s);
        int j = i + 1;
        while (j < b->n_threads && strcmp(state_text(&b->threads[j], s2, sizeof s2), s) == 0)
            j++;
        used += (size_t)snprintf(text + used, sizeof text - used, "\n  threads %d..%d %s", i,
                                 j - 1, s);
        i = j;
    }
    emu_fail_block(b, "no thread of the block can continue (deadlock inside the block): "
                      "%d of %d threads exited and none of the others waits on memory:%s\n"
                      "Every thread must reach each __syncthreads, every lane of a warp "
                      "mask must reach the warp call, and every mbarrier phase needs its "
                      "arrivals and transaction bytes",
                   b->n_done, b->n_threads, text);
}

/* ---- the block pthread ------------------------------------------------------------------ */

static void fiber_entry(void)
{
    emu_block *b = emu_block_current();
    emu_thread *t = &b->threads[b->current];
    emu_fiber_started(&t->fiber);
    b->launch->kernel->entry(b->launch->args);
    thread_finished(t);
    emu_fiber_exit(&t->fiber, &b->sched);
}

static int pick_next(const emu_block *b, int start)
{
    for (int pass = 0; pass < 2; pass++) {
        emu_thread_state want = pass == 0 ? EMU_RUNNABLE : EMU_POLLING;
        for (int i = 0; i < b->n_threads; i++) {
            int k = (start + i) % b->n_threads;
            if (b->threads[k].state == want)
                return k;
        }
    }
    return -1;
}

static void run_block(emu_block *b)
{
    int next = 0;
    while (b->n_done < b->n_threads) {
        int k = pick_next(b, next);
        if (k < 0)
            block_deadlock(b);
        emu_thread *t = &b->threads[k];
        t->state = EMU_RUNNABLE;
        b->current = k;
        emu_view = &t->view;
        emu_fiber_switch(&b->sched, &t->fiber);
        b->current = -1;
        emu_view = NULL;
        next = k + 1;
    }
}

static void setup_threads(emu_block *b)
{
    const emu_launch_rec *L = b->launch;
    dim3 bd = L->block;
    b->n_threads = (int)(bd.x * bd.y * bd.z);
    b->n_warps = (b->n_threads + 31) / 32;
    b->threads = calloc((size_t)b->n_threads, sizeof *b->threads);
    b->warps = calloc((size_t)b->n_warps, sizeof *b->warps);
    if (b->threads == NULL || b->warps == NULL) {
        fprintf(stderr, "shmemu: out of memory starting block %d of kernel %s\n", b->linear,
                L->kernel->name);
        exit(2);
    }
    size_t stack = emu_fiber_stack_size();
    size_t slot = stack + EMU_GUARD_BYTES; /* a guard page below each stack (mapped by launch.c) */
    /* deterministic mode: the same sync points natively and under valgrind (replays) */
    unsigned spin_limit = pgas_sched_enabled()      ? EMU_SPIN_LIMIT_SCHED
                          : shmemu_under_valgrind() ? EMU_SPIN_LIMIT_VALGRIND
                                                    : EMU_SPIN_LIMIT;
    for (int i = 0; i < b->n_threads; i++) {
        emu_thread *t = &b->threads[i];
        t->block = b;
        t->tid = i;
        t->view.thread_idx = (dim3){(unsigned)i % bd.x, ((unsigned)i / bd.x) % bd.y,
                                    (unsigned)i / (bd.x * bd.y)};
        t->view.block_idx = b->idx;
        t->view.block_dim = bd;
        t->view.grid_dim = L->grid;
        t->fenced_scope = -1;
        t->spin_limit = spin_limit;
        char *base = b->stacks + slot * (size_t)i;
        emu_fiber_make(&t->fiber, base + EMU_GUARD_BYTES, stack, fiber_entry);
        emu_fiber_name(&t->fiber, L->pe->pe, b->label, i);
        emu_fiber_reassert_main(&b->sched);
    }
}

static void teardown_threads(emu_block *b)
{
    for (int i = 0; i < b->n_threads; i++)
        emu_fiber_destroy(&b->threads[i].fiber);
    free(b->threads);
    free(b->warps);
    b->threads = NULL;
    b->warps = NULL;
}

void *emu_block_main(void *arg)
{
    emu_block *b = arg;
    emu_launch_rec *L = b->launch;
    emu_pe *pe = L->pe;
    snprintf(b->label, sizeof b->label, "kernel %s block %d", L->kernel->name, b->linear);
    if (pgas_thread_attach_reusing(pe->host, pe->pe, b->label, b->record_slot) != 0) {
        fprintf(stderr, "shmemu: cannot attach block %d of kernel %s to PE %d\n", b->linear,
                L->kernel->name, pe->pe);
        abort();
    }
    b->pt = pgas_thread_self();
    const unsigned dims[3] = {L->block.x, L->block.y, L->block.z};
    pgas_events_block(true, L->kernel->name, L->id, b->linear, b->sm, dims); /* SHMEMU_EVENTS */
    b->current = -1;
    emu_block_set_current(b);
    emu_fiber_init_main(&b->sched);
    setup_threads(b);
    emu_shared_setup(b, L->dyn_smem);
    emu_sm_publish(pe, b->sm, b);
    pgas_thread_set_wait_hook(block_wait_hook, b);
    pgas_thread_set_fiber_hook(block_fiber, b);
    if (L->timing)
        b->start_ns = emu_now_ns();
    run_block(b);
    if (L->timing)
        b->end_ns = emu_now_ns();
    pgas_thread_set_wait_hook(NULL, NULL);
    pgas_thread_set_fiber_hook(NULL, NULL);
    emu_sm_publish(pe, b->sm, NULL);
    emu_fiber_destroy_main(&b->sched);
    teardown_threads(b);
    emu_mbar_teardown(b);
    emu_shared_teardown(b);
    emu_block_set_current(NULL);
    pgas_events_block(false, L->kernel->name, L->id, b->linear, b->sm, dims);
    /* The SM is released while the thread still belongs to the job: in deterministic mode
     * whatever runs after pgas_thread_detach runs outside the schedule. */
    emu_sm_release(pe, b->sm);
    emu_checker_ignore(&b->exited, sizeof b->exited);
    pgas_thread_detach_notify((volatile uint32_t *)&b->exited);
    return NULL;
}
