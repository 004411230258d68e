/*
 * ordering.h: the runtime's memory-ordering operations, as one swappable table.
 *
 * Each entry is one ordering promise of NVSHMEM that the runtime keeps: a signal update
 * releases, a signal wait acquires, put-with-signal delivers the data before the signal,
 * quiet completes the queued puts, fence orders the puts before it, a barrier carries
 * happens-before. The runtime's code asks the table instead of hard-coding each promise, so
 * that a planted runtime bug (SHMEMU_BUG_RT_*, shmemu/bugs.h) is a table that differs from
 * the correct one in exactly one entry, and the code that uses it reads as the correct
 * protocol. Flags, not function pointers: the default costs a load and a predictable
 * branch, as the check it replaces did.
 *
 * The table is chosen when a job starts (world.c), from the active bug; before that and
 * without a bug it is the correct one.
 */
#ifndef PGAS_ORDERING_H
#define PGAS_ORDERING_H

#include <stdbool.h>

#include "shmemu/internal/pgas_emu.h"

typedef struct pgas_ordering_ops {
    pgas_order signal_update; /* a signal update's RMW (PGAS_RELEASE, or PGAS_RELAXED) */
    pgas_order signal_wait;   /* the load that satisfies a signal wait (PGAS_ACQUIRE) */
    bool signal_after_data;   /* put-with-signal: the signal after the data is copied */
    bool quiet_completes;     /* nvshmem_quiet delivers every queued put first */
    bool fence_orders;        /* nvshmem_fence starts a new delivery epoch */
    bool barrier_hb;          /* barrier arrival/departure are happens-before edges */
} pgas_ordering_ops;

/* The table in force: a copy of the chosen one, so that a check is one load of a global and
 * a compare, as the plant check it replaced was (written only while no PE thread runs). */
extern pgas_ordering_ops pgas_ordering_;

static inline const pgas_ordering_ops *pgas_ordering(void) { return &pgas_ordering_; }

/* Chooses the table of the active bug (the correct one without a runtime bug). */
void pgas_ordering_choose(void);

#endif
