/*
 * ordering.c: the tables of ordering operations (ordering.h): the correct one, and one per
 * planted runtime bug, each the correct table with exactly one operation weakened.
 */
#include <string.h>

#include "ordering.h"
#include "shmemu/bugs.h"

#define TABLE(update, wait, after_data, quiet, fence, barrier)                                \
    {.signal_update = (update), .signal_wait = (wait), .signal_after_data = (after_data),      \
     .quiet_completes = (quiet), .fence_orders = (fence), .barrier_hb = (barrier)}

/* Columns: signal update, signal wait, signal after data, quiet completes, fence orders,
 * barrier happens-before. */
typedef const pgas_ordering_ops table;
static table correct = TABLE(PGAS_RELEASE, PGAS_ACQUIRE, true, true, true, true);
static table no_release = TABLE(PGAS_RELAXED, PGAS_ACQUIRE, true, true, true, true);
static table no_acquire = TABLE(PGAS_RELEASE, PGAS_RELAXED, true, true, true, true);
static table signal_first = TABLE(PGAS_RELEASE, PGAS_ACQUIRE, false, true, true, true);
static table quiet_noop = TABLE(PGAS_RELEASE, PGAS_ACQUIRE, true, false, true, true);
static table fence_noop = TABLE(PGAS_RELEASE, PGAS_ACQUIRE, true, true, false, true);
static table barrier_no_hb = TABLE(PGAS_RELEASE, PGAS_ACQUIRE, true, true, true, false);

/* The correct table until a job starts with a runtime bug active. */
pgas_ordering_ops pgas_ordering_ = TABLE(PGAS_RELEASE, PGAS_ACQUIRE, true, true, true, true);

void pgas_ordering_choose(void)
{
    const pgas_ordering_ops *t = &correct;
    if (shmemu_bug(SHMEMU_BUG_RT_SIGNAL_NO_RELEASE))
        t = &no_release;
    else if (shmemu_bug(SHMEMU_BUG_RT_WAIT_NO_ACQUIRE))
        t = &no_acquire;
    else if (shmemu_bug(SHMEMU_BUG_RT_PUT_SIGNAL_ORDER))
        t = &signal_first;
    else if (shmemu_bug(SHMEMU_BUG_RT_QUIET_NOOP))
        t = &quiet_noop;
    else if (shmemu_bug(SHMEMU_BUG_RT_FENCE_NOOP))
        t = &fence_noop;
    else if (shmemu_bug(SHMEMU_BUG_RT_BARRIER_NO_HB))
        t = &barrier_no_hb;
    /* Written only when it changes: correct code never writes it after start-up, so a job
     * started beside another job's threads (an implicit job) shares nothing to race on. */
    if (memcmp(&pgas_ordering_, t, sizeof *t) != 0)
        pgas_ordering_ = *t;
}
