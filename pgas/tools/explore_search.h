/*
 * explore_search.h: bin/shmemu-explore's systematic search (the delay sets of --strategy
 * delay) and its coverage counts (docs/sched.md, "Explore"). explore_search.c says how.
 */
#ifndef SHMEMU_EXPLORE_SEARCH_H
#define SHMEMU_EXPLORE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "explore_args.h"

/* The delay sets of at most `bound` delays over the base run's choice points, in the
 * explorer's fixed order (run k runs set number k; set 0 is {}, the base run). */
typedef struct explore_delays {
    int bound;
    bool based;        /* the base run's choice points are known (explore_delays_base) */
    uint64_t choices;  /* D: the base run's choice points */
    uint64_t total;    /* sets in the space: the sum of C(D, k), k = 0..bound (UINT64_MAX
                        * when larger); 1 until the base run is known */
    /* --coverage-guided: the sets of two delays whose first delay alone reached a switch pair
     * the base run did not come first (explore_delays_rank; until then only the sets of at
     * most one delay are given) */
    bool guided;
    bool ranked;
    uint64_t *first;   /* [n_first]: the productive first delays, increasing */
    uint64_t *rest;    /* [n_rest]: the others, increasing */
    uint64_t n_first, n_rest;
    uint64_t *cum_first, *cum_rest; /* [D + 1]: two-delay sets of each group whose larger
                                     * delay is below j */
} explore_delays;

void explore_delays_init(explore_delays *d, int bound);
/* Counts the choice points (decisions with two candidates or more) of the base run's
 * trace. Returns 0, or -1 with why in err. */
int explore_delays_base(explore_delays *d, const char *trace, char *err, size_t err_len);
/* --coverage-guided: productive[i] says whether the run of the set {i} reached a switch pair
 * the base run did not; orders the sets of two delays (productive first delays first). */
void explore_delays_rank(explore_delays *d, const bool *productive);
void explore_delays_free(explore_delays *d);
/* Set number k (0: the base run's {}), as SHMEMU_DELAYS reads it ("none" for {}); false when
 * k is past the space (d->total). */
bool explore_delays_set(const explore_delays *d, uint64_t k, char *text, size_t len);
/* "1+D+D(D-1)/2 = 562 schedule(s) of at most 2 delay(s) over D = 33 choice point(s)" */
void explore_delays_describe(const explore_delays *d, char *out, size_t len);

/* A set of 64-bit keys (open addressing; grows). */
typedef struct explore_keys {
    uint64_t *slots; /* 0: free (the key 0 is kept in has_zero) */
    size_t cap, n;
    bool has_zero;
} explore_keys;

/* What the runs covered: their distinct schedules (a trace's hash: line) and distinct
 * switch pairs (the call the running entity gave the turn away at, the call the next
 * entity resumes at). */
typedef struct explore_coverage {
    explore_keys schedules, pairs;
    long traces;     /* traces counted */
    long unreadable; /* runs whose trace could not be read (a crash before it was written) */
    uint32_t *resume; /* scratch: per serial, the call it last yielded at */
    size_t resume_cap;
} explore_coverage;

/* Adds the trace of one run. Returns the switch pairs it added (-1: unreadable, counted). */
long explore_coverage_add(explore_coverage *c, const char *trace);
/* "explore: coverage: 37 distinct schedules (interleavings of sync points) in 40 runs, 12
 * distinct switch pairs (...)" */
void explore_coverage_print(FILE *f, const explore_coverage *c);
void explore_coverage_free(explore_coverage *c);

/* What the explorer's run loop asks (shmemu_explore.c): the delay space when the strategy is
 * delay, and the coverage of every strategy. */
typedef struct explore_search {
    bool delay; /* --strategy delay */
    explore_delays delays;
    explore_coverage coverage;
    /* --coverage-guided: the base run's switch pairs, and which single delays reached others */
    explore_keys base_pairs;
    bool *productive;      /* [D] */
    uint64_t singles_done; /* runs of one delay recorded */
} explore_search;

void explore_search_init(explore_search *s, const explore_opts *o);
/* How many runs may be started so far: N, or for delay only run 0 until it ended (its trace
 * gives the space), then the space's size (at most N). */
long explore_search_limit(const explore_search *s, const explore_opts *o);
/* Run k's SHMEMU_DELAYS value into text (delay only; false otherwise or past the space). */
bool explore_search_delays(const explore_search *s, long k, char *text, size_t len);
/* Records run k's trace (coverage; for delay, run 0 gives the space). Returns 0, or -1 with
 * why in err when delay's base run passed but left no readable trace. */
int explore_search_record(explore_search *s, long k, bool failed, const char *trace, char *err,
                          size_t err_len);
/* Names run k in messages: "seed 12 (random)", "delay set 3,17 (delay)". */
void explore_search_name(const explore_search *s, const explore_opts *o, long k, char *out,
                         size_t len);
/* The final lines when every run passed: what ran (for delay, whether the space was
 * exhausted), then the coverage. */
void explore_search_print_pass(FILE *f, const explore_search *s, const explore_opts *o,
                               long done, double secs);
void explore_search_free(explore_search *s);

#endif
