/*
 * par_timing.c: device times of the parallel driver's steps (--timing), two ways.
 *
 * Per-block timestamps (primary; paper 000 §6.3, paper 003; docs/papers.md): every kernel of a
 * step gets its role's slot of a small device table (kernels/tstamp.h), and thread 0 of each block
 * stamps %globaltimer into it: atomic min at the block's start, atomic max at its end. The
 * table is emptied by a kernel at the start of each step (stream order puts it before the
 * step's kernels on every stream) and copied back after the step's synchronize. The
 * intervals of par.h's md_dtime come from it. They measure what the kernels did, not what
 * the streams waited for: a gap between launches, or a kernel queued behind another PE's
 * (time-slicing), is not inside any block.
 *
 * Events (kept for comparison): each phase of a step (par.h: kick + drift, local forces,
 * coordinate halo, non-local forces, force halo, kick; and the whole step) gets a pair of
 * timing events recorded on the stream that runs it, around its launches. They include
 * launch gaps and host work inside a phase (the host baseline's waits and puts).
 *
 * The step loop synchronizes the device at the end of every step while timing is on and
 * adds the times up: the streams still overlap within a step, but no step overlaps the
 * next, and the host's own work at search steps is left out (those steps are not counted).
 * The same code runs on the emulator (its events carry wall-clock times, its globaltimer
 * is CLOCK_MONOTONIC) and on a GPU.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "par_int.h"
#include "util.h"

const char *const md_par_phase_name[MD_NPHASE] = {"kick+drift", "local-nb", "halo-x",
                                                  "nonlocal-nb", "halo-f", "kick", "step"};
const char *const md_par_dtime_name[MD_NDT] = {"local-work", "non-local-work", "non-overlap",
                                               "step"};

/* Records a step may append before the rest are dropped (and counted): a step of the MD
 * app launches tens of kernels of up to a few thousand blocks. */
#define BLOCKLOG_CAP (1u << 18)

static void blocklog_init(md_par_timer *t)
{
    t->rec_cap = BLOCKLOG_CAP;
    md_dev_alloc((void **)&t->rec_d, t->rec_cap * sizeof(md_blockrec), "block log");
    md_dev_alloc((void **)&t->log, sizeof(md_blocklog), "block log head");
    t->rec_h = (md_blockrec *)md_xcalloc(t->rec_cap, sizeof(md_blockrec));
    md_blocklog head;
    head.n = 0;
    head.cap = t->rec_cap;
    head.rec = t->rec_d;
    MD_CUDA(cudaMemcpy(t->log, &head, sizeof head, cudaMemcpyHostToDevice));
    t->rec_step = -1;
#ifdef __CUDACC__
    int dev = 0;
    MD_CUDA(cudaGetDevice(&dev));
    MD_CUDA(cudaDeviceGetAttribute(&t->sms, cudaDevAttrMultiProcessorCount, dev));
    t->gpu = true;
#else
    /* The emulator's SMs: its residency limit when one is set (emu.h), else unknown (every
     * block resident; the writer counts the slots it saw). */
    const char *sms = getenv("SHMEMU_EMU_SMS");
    t->sms = sms != NULL ? atoi(sms) : 0;
    t->sms = t->sms > 0 ? t->sms : 0;
#endif
}

void md_par_timer_init(md_par_timer *t, bool on, bool occupancy)
{
    memset(t, 0, sizeof *t);
    t->on = on || occupancy;
    if (!t->on)
        return;
    if (occupancy)
        blocklog_init(t);
    for (int ph = 0; ph < MD_NPHASE; ph++)
        for (int k = 0; k < 2; k++)
            MD_CUDA(cudaEventCreate(&t->ev[ph][k]));
    /* Empty from the start: the set-up step's kernels stamp it before any reset. */
    for (int r = 0; r < MD_NTROLE; r++) {
        t->slots_h[r].start = UINT64_MAX;
        t->slots_h[r].end = 0;
        t->slots_h[r].log = t->log;
        t->slots_h[r].role = r;
    }
    md_dev_alloc((void **)&t->slots, sizeof t->slots_h, "slots");
    MD_CUDA(cudaMemcpy(t->slots, t->slots_h, sizeof t->slots_h, cudaMemcpyHostToDevice));
    MD_CUDA(cudaDeviceSynchronize()); /* a pageable upload, before any stream's kernel */
}

void md_par_timer_free(md_par_timer *t)
{
    if (!t->on)
        return;
    for (int ph = 0; ph < MD_NPHASE; ph++)
        for (int k = 0; k < 2; k++)
            MD_CUDA(cudaEventDestroy(t->ev[ph][k]));
    MD_CUDA(cudaFree(t->slots));
    if (t->log != NULL) {
        MD_CUDA(cudaFree(t->log));
        MD_CUDA(cudaFree(t->rec_d));
        free(t->rec_h);
    }
}

void md_par_timer_mark(md_par_timer *t, md_phase ph, int end, cudaStream_t s)
{
    if (!t->on)
        return;
    if (t->capturing)
        md_par_event_record_captured(t->ev[ph][end], s);
    else
        MD_CUDA(cudaEventRecord(t->ev[ph][end], s));
    if (end)
        t->used[ph] = true;
}

md_tslot *md_par_timer_slot(md_par_timer *t, md_trole r)
{
    return t->on ? t->slots + r : NULL;
}

void md_par_timer_reset(md_par_timer *t, cudaStream_t s)
{
    if (!t->on)
        return;
    md_tstamp_args a;
    a.slots = t->slots;
    a.n = MD_NTROLE;
    a.log = t->log;
    LAUNCH(md_tstamp_reset, DIM3(1, 1, 1), DIM3(32, 1, 1), 0, s, a);
    MD_CUDA(cudaGetLastError()); /* the launch */
}

static bool slot_used(const md_tslot *s) { return s->start != UINT64_MAX || s->end != 0; }

/* Signed: a stamp out of order shows as a negative interval, not as a huge one. */
static double span_ns(uint64_t from, uint64_t to) { return (double)(int64_t)(to - from); }

/* Adds one step's device intervals (par.h md_dtime) from its stamps. */
static void add_intervals(md_par_timer *t)
{
    const md_tslot *s = t->slots_h;
    uint64_t lo = UINT64_MAX, hi = 0, nl_lo = UINT64_MAX, nl_hi = 0;
    for (int r = 0; r < MD_NTROLE; r++) {
        if (!slot_used(&s[r]))
            continue;
        lo = s[r].start < lo ? s[r].start : lo;
        hi = s[r].end > hi ? s[r].end : hi;
        if (r == MD_TR_HALO_X || r == MD_TR_NONLOCAL || r == MD_TR_HALO_F) {
            nl_lo = s[r].start < nl_lo ? s[r].start : nl_lo;
            nl_hi = s[r].end > nl_hi ? s[r].end : nl_hi;
        }
    }
    const md_tslot *loc = &s[MD_TR_LOCAL];
    t->dev_ns[MD_DT_STEP] += span_ns(lo, hi);
    t->dev_ns[MD_DT_LOCAL] += span_ns(loc->start, loc->end);
    if (nl_hi != 0) {
        t->dev_ns[MD_DT_NONLOCAL] += span_ns(nl_lo, nl_hi);
        /* Counted from the later of the local end and the non-local start: the part of the
         * non-local work that the local work did not hide (paper 000 counts from the local
         * end; the same whenever the local kernel ends after the first pack starts). */
        const uint64_t from = loc->end > nl_lo ? loc->end : nl_lo;
        const double gap = span_ns(from, nl_hi);
        t->dev_ns[MD_DT_NONOVERLAP] += gap > 0.0 ? gap : 0.0;
    }
}

void md_par_timer_step(md_par_timer *t, bool count, long step)
{
    if (!t->on)
        return;
    MD_CUDA(cudaDeviceSynchronize());
    for (int ph = 0; ph < MD_NPHASE; ph++) {
        float ms = 0.0f;
        if (count && t->used[ph] && cudaEventElapsedTime(&ms, t->ev[ph][0], t->ev[ph][1]) ==
                                        cudaSuccess)
            t->ms[ph] += ms;
        t->used[ph] = false;
    }
    if (count) {
        MD_CUDA(cudaMemcpy(t->slots_h, t->slots, sizeof t->slots_h, cudaMemcpyDeviceToHost));
        add_intervals(t);
        if (t->log != NULL) {
            md_blocklog head;
            MD_CUDA(cudaMemcpy(&head, t->log, sizeof head, cudaMemcpyDeviceToHost));
            t->rec_total = head.n;
            t->rec_n = head.n < t->rec_cap ? head.n : t->rec_cap;
            MD_CUDA(cudaMemcpy(t->rec_h, t->rec_d, t->rec_n * sizeof(md_blockrec),
                               cudaMemcpyDeviceToHost));
            t->rec_step = step;
        }
    }
    t->steps += count;
}
