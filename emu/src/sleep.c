/*
 * sleep.c: CUDA's __nanosleep in kernels (emu_nanosleep; shmemu-nvcc's layer, cuda/, calls
 * it). A block's threads are fibers of one pthread that run until they block, so a thread
 * that sleeps in a loop until another thread of its block sets a flag must let that thread
 * run: it yields to the block's other threads (as a poll: it runs again once they have
 * blocked), and sleeps the time (at most 1 ms) only when none of them could do work. In
 * deterministic mode it gives the turn away instead of reading the clock.
 */
#include <time.h>

#include "internal.h"

void emu_nanosleep(unsigned ns)
{
    emu_thread *t = emu_thread_current();
    bool runnable = false, polling = false;
    if (t != NULL) {
        const emu_block *b = t->block;
        for (int i = 0; i < b->n_threads; i++) {
            const emu_thread *u = &b->threads[i];
            runnable = runnable || (u != t && u->state == EMU_RUNNABLE);
            polling = polling || (u != t && u->state == EMU_POLLING);
        }
        if (runnable || polling)
            emu_block_park(t, EMU_POLLING);
    }
    if (runnable)
        return;
    if (pgas_sched_maybe() && pgas_sched_enabled()) {
        pgas_sched_poll("__nanosleep", false);
        return;
    }
    struct timespec ts = {0, ns < 1000000u ? (long)ns : 1000000L};
    nanosleep(&ts, NULL);
}
