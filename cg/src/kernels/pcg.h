/*
 * kernels/pcg.h: the argument block of pcg-mono's kernel (pcg.c: pipelined CG, Ghysels and
 * Vanroose 2014, in one cooperative kernel per PE), filled by its host driver (par_pcg.c),
 * one per PE.
 *
 * m is cg-mono's argument block (mono.h), so the halo code of kernels/halo.h runs on it
 * unchanged: m.s is pcg's w = A r (symmetric, with its ghost region: the vector exchanged),
 * m.t is q = A w (the SpMV's output), m.r and m.x are r and x, m.b is b. The reduction words
 * are twice cg-mono's: m.slots holds 2 CG_XSUM_WORDS per thread of the grid (gamma's packed
 * accumulator, then delta's), m.partial and m.total 2 CG_XSUM_WORDS each (symmetric), and
 * m.scalar two doubles (gamma, delta: block 0's thread 0 rounds them). m.omega is not read.
 *
 * z, s, p are the recurrence's other vectors (n_owned, zero at the start): z = A s, s = A p
 * in exact arithmetic, p the search direction (docs/cg.md, "The pipelined solver pcg-mono").
 */
#ifndef CG_KERNELS_PCG_H
#define CG_KERNELS_PCG_H

#include "kernels/mono.h"

typedef struct cg_pcg_args {
    cg_mono_args m;
    double *z, *s, *p; /* n_owned each */
} cg_pcg_args;

KERNEL_DECL(cg_pcg, cg_pcg_args);

#endif
