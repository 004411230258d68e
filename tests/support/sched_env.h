/*
 * sched_env.h: selecting the deterministic scheduler from a test (docs/sched.md). The mode is
 * read when a job starts (shmemu_launch), so a test sets the environment before each job
 * and clears it afterwards, leaving later tests free-running.
 */
#ifndef SHMEMU_TESTS_SCHED_ENV_H
#define SHMEMU_TESTS_SCHED_ENV_H

#include <stdio.h>
#include <stdlib.h>

/* SHMEMU_SCHED=strategy (random, pct, rr) and SHMEMU_SEED=seed for the next jobs. */
static inline void set_sched(const char *strategy, int seed)
{
    char s[32];
    snprintf(s, sizeof s, "%d", seed);
    setenv("SHMEMU_SCHED", strategy, 1);
    setenv("SHMEMU_SEED", s, 1);
}

/* Back to free-running, with no trace written or replayed. */
static inline void clear_sched(void)
{
    unsetenv("SHMEMU_SCHED");
    unsetenv("SHMEMU_SEED");
    unsetenv("SHMEMU_TRACE_OUT");
    unsetenv("SHMEMU_REPLAY");
}

#endif
