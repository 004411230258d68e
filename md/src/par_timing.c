/*
 * par_timing.c: per-phase device times of the parallel driver's steps (--timing).
 *
 * Each phase of a step (par.h: kick + drift, local forces, coordinate halo, non-local
 * forces, force halo, kick; and the whole step) gets a pair of timing events recorded on
 * the stream that runs it, around its launches. The step loop synchronizes the device at
 * the end of every step while timing is on and adds the elapsed times up: the streams still
 * overlap within a step, but no step overlaps the next, and the host's own work at search
 * steps is left out (those steps are not counted). The same code runs on the emulator
 * (its events carry wall-clock times) and on a GPU.
 */
#include <string.h>

#include "par_int.h"

const char *const md_par_phase_name[MD_NPHASE] = {"kick+drift", "local-nb", "halo-x",
                                                  "nonlocal-nb", "halo-f", "kick", "step"};

void md_par_timer_init(md_par_timer *t, bool on)
{
    memset(t, 0, sizeof *t);
    t->on = on;
    if (!on)
        return;
    for (int ph = 0; ph < MD_NPHASE; ph++)
        for (int k = 0; k < 2; k++)
            cudaEventCreate(&t->ev[ph][k]);
}

void md_par_timer_free(md_par_timer *t)
{
    if (!t->on)
        return;
    for (int ph = 0; ph < MD_NPHASE; ph++)
        for (int k = 0; k < 2; k++)
            cudaEventDestroy(t->ev[ph][k]);
}

void md_par_timer_mark(md_par_timer *t, md_phase ph, int end, cudaStream_t s)
{
    if (!t->on)
        return;
    if (t->capturing)
        md_par_event_record_captured(t->ev[ph][end], s);
    else
        cudaEventRecord(t->ev[ph][end], s);
    if (end)
        t->used[ph] = true;
}

void md_par_timer_step(md_par_timer *t, bool count)
{
    if (!t->on)
        return;
    cudaDeviceSynchronize();
    for (int ph = 0; ph < MD_NPHASE; ph++) {
        float ms = 0.0f;
        if (count && t->used[ph] && cudaEventElapsedTime(&ms, t->ev[ph][0], t->ev[ph][1]) ==
                                        cudaSuccess)
            t->ms[ph] += ms;
        t->used[ph] = false;
    }
    t->steps += count;
}
