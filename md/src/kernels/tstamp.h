/*
 * kernels/tstamp.h: device-side per-block timestamps of a step's kernels (--timing; paper
 * 000 §6.3, paper 003; docs/papers.md). The data first:
 *
 *   md_tslot[MD_NTROLE]  one slot per role of a step (device memory, par_timing.c owns it)
 *     start  min over every block of every kernel of the role: globaltimer() when thread 0
 *            of the block starts (atomic min; UINT64_MAX: no block of the role ran)
 *     end    max over the same blocks: globaltimer() after a block barrier at the block's
 *            end, so after every thread of the block finished (atomic max; 0: none ran)
 *   Times are nanoseconds of the device clock (%globaltimer on a GPU, CLOCK_MONOTONIC in
 *   the emulator), so slots of different kernels, streams and blocks compare.
 *
 * A role gathers every kernel of that part of the step: the coordinate halo is the fused X
 * kernel, or all pack / comm / recv kernels of the pulses, or the host baseline's pack
 * kernels; the force halo likewise. md_tstamp_reset (tstamp.c) empties the table at the
 * start of each step, in stream order before the step's first kernel.
 *
 * Timing never touches the physics: the stamps go to their own memory, and with timing off
 * a kernel gets a NULL slot and pays one pointer test per block (and no barrier).
 */
#ifndef MD_KERNELS_TSTAMP_H
#define MD_KERNELS_TSTAMP_H

#include <stdint.h>

#include "blockrec.h"
#include "shmemu/kernel.h"

/* The roles of a step's kernels (the order of par.h's md_phase, without the whole step). */
typedef enum {
    MD_TR_UPDATE = 0, /* kick + drift (md_update at the step's start) */
    MD_TR_LOCAL,      /* Local Non-bonded F (md_nonbonded, or prep + entries) */
    MD_TR_HALO_X,     /* coordinate halo: every pack / send / receive kernel of the step */
    MD_TR_NONLOCAL,   /* Non-Local Non-bonded F */
    MD_TR_HALO_F,     /* force halo: every send / unpack kernel of the step */
    MD_TR_KICK,       /* kick (md_update at the step's end) */
    MD_NTROLE
} md_trole;

typedef struct md_tslot {
    uint64_t start;     /* ns; UINT64_MAX after a reset */
    uint64_t end;       /* ns; 0 after a reset */
    md_blocklog *log;   /* device, or NULL: no --occupancy (set once, never reset) */
    int32_t role;       /* this slot's md_trole */
    int32_t pad_;
} md_tslot;

DEVICE void md_blocklog_add(const md_tslot *s, int edge)
{
    md_blocklog *log = s->log;
    const unsigned long long i =
        atom_add(&log->n, 1ULL, SCOPE_GPU, ORDER_RELAXED);
    if (i < log->cap) {
        md_blockrec r;
        r.t = globaltimer();
        r.sm = smid();
        r.block = (uint32_t)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
        r.role = s->role;
        r.edge = edge;
        log->rec[i] = r;
    }
}

/* At the top of a kernel (every thread calls it): thread 0 of the block stamps the start. */
DEVICE void md_tstamp_begin(md_tslot *s)
{
    if (s != NULL && threadIdx.x == 0) {
        (void)atom_min(&s->start, globaltimer(), SCOPE_GPU, ORDER_RELAXED);
        if (s->log != NULL)
            md_blocklog_add(s, +1);
    }
}

/* At every exit of a kernel (every thread of the block calls it: s is the same for the
 * whole launch, so the barrier is never divergent): once all threads are done, thread 0
 * stamps the end. */
DEVICE void md_tstamp_end(md_tslot *s)
{
    if (s == NULL)
        return;
    __syncthreads();
    if (threadIdx.x == 0) {
        (void)atom_max(&s->end, globaltimer(), SCOPE_GPU, ORDER_RELAXED);
        if (s->log != NULL)
            md_blocklog_add(s, -1);
    }
}

typedef struct md_tstamp_args {
    md_tslot *slots;
    int n;
    md_blocklog *log; /* or NULL */
} md_tstamp_args;

/* Any grid: slots[0, n) := {UINT64_MAX, 0} (threads stride), and the log's count := 0. */
KERNEL_DECL(md_tstamp_reset, md_tstamp_args);

#endif
