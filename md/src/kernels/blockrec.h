/*
 * kernels/blockrec.h: the block log of --occupancy (plain C: the kernels append to it,
 * par_timing.c copies it back, occupancy.c writes it).
 *
 * With a block log (par_timing.c), thread 0 of every block appends one record when the
 * block starts and one when it ends, with the SM it runs on (%smid; the
 * emulator's worker slot) and %globaltimer, so the host can draw which SMs each role's
 * kernels held over the step (paper 003). The log is emptied with the slots at each step's
 * start; records past cap are counted in n and dropped.
 */
#ifndef MD_KERNELS_BLOCKREC_H
#define MD_KERNELS_BLOCKREC_H

#include <stdint.h>

typedef struct md_blockrec {
    uint64_t t;     /* globaltimer() */
    uint32_t sm;    /* smid() */
    uint32_t block; /* linear block index in its grid */
    int32_t role;   /* md_trole */
    int32_t edge;   /* +1 start, -1 end */
} md_blockrec;

typedef struct md_blocklog {
    unsigned long long n; /* records appended this step (atomic) */
    unsigned long long cap;
    md_blockrec *rec;     /* device [cap] */
} md_blocklog;

#endif
