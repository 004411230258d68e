/*
 * progress.h: a progress line on standard error for long runs.
 *
 * "shmemu-md: step 1200/5000 (24.0%), 351 steps/s, ETA 10.8 s" at most every `interval`
 * seconds, only when enabled: by default when standard error is a terminal, or forced with
 * --progress / --no-progress. Never on standard output, whose last line stays the checksum.
 * The rate is measured from the first step of this run (set-up excluded). Time is passed
 * in by the caller, so the schedule and the text are testable.
 */
#ifndef MD_PROGRESS_H
#define MD_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct md_progress {
    bool on;
    double interval;  /* seconds between lines */
    long first, last; /* steps: the run goes from first (done) to last */
    double t0;        /* time at step first */
    double t_next;    /* no line before this time */
    long lines;       /* lines printed */
    FILE *out;
} md_progress;

/* mode: 1 on, 0 off, -1 when out is a terminal. */
void md_progress_init(md_progress *p, int mode, FILE *out, double interval, long first,
                      long last, double now);
/* After a step: prints a line when one is due. Returns true when it printed. */
bool md_progress_update(md_progress *p, long step, double now);
/* The text of a line (no newline) into buf. */
void md_progress_format(const md_progress *p, long step, double now, char *buf, size_t size);
/* Monotonic seconds. */
double md_progress_now(void);

#endif
