/*
 * explore_args.h: bin/shmemu-explore's command line (docs/sched.md, "Explore").
 *
 * explore_parse_args checks every argument before anything runs: numbers are parsed
 * strictly (all digits, in range), seeds must be seeds the scheduler accepts
 * (SHMEMU_SEED: 0 to 2^47 - 1, for every seed of the exploration), and the result to
 * compare is chosen once. It allocates nothing and prints nothing, so the fuzzer
 * (fuzz/) calls it on any argument vector.
 */
#ifndef SHMEMU_EXPLORE_ARGS_H
#define SHMEMU_EXPLORE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPLORE_MAX_SEED 0x7fffffffffffull /* SHMEMU_SEED's largest value, 2^47 - 1 */
#define EXPLORE_MAX_REF_UNSET 8
#define EXPLORE_MAX_JOBS 256
#define EXPLORE_MAX_BOUND 64 /* --bound: PGAS_SCHED_MAX_DELAYS, the delays a run may have */

/* What a run's result is, compared with the reference run's. */
typedef enum {
    EXPLORE_RESULT_CHECKSUM, /* the last stdout line matching "checksum <value>" */
    EXPLORE_RESULT_PATTERN,  /* the last stdout line matching --result-pattern RE */
    EXPLORE_RESULT_FILE      /* the bytes of --result-file PATH */
} explore_result_kind;

typedef struct explore_opts {
    const char *strategy;  /* random, pct, rr or delay */
    int bound;             /* --bound: delay's most delays per run (default 2); -1 otherwise */
    bool coverage_guided;  /* --coverage-guided (delay only): productive first delays first */
    uint64_t first_seed;
    int pct_depth;         /* 1 to 17 (SHMEMU_PCT_DEPTH) */
    const char *trace;     /* where the failing trace is saved */
    double timeout_s;      /* per run, > 0 */
    int shrink_runs;
    bool shrink;
    bool quiet;
    bool help;             /* --help: print the usage and exit 0 */
    long runs;             /* N: seeds to try */
    int jobs;              /* --jobs: runs at once, 1 to EXPLORE_MAX_JOBS; 0: not given (the
                            * explorer then runs one per CPU it may use) */
    explore_result_kind result;
    const char *result_arg; /* the pattern or the file */
    char **argv;            /* PROGRAM ARGS..., NULL-terminated (points into the argv given) */
    const char *ref_unset[EXPLORE_MAX_REF_UNSET];
    int n_ref_unset;
    bool weak_memory;       /* --memory weak: the schedules run with SHMEMU_MEMORY=weak */
    bool reference;         /* (set by the explorer) this run is the reference */
} explore_opts;

/* Parses argv[1, argc) (argv[argc] must be NULL) into *o. Returns 0, or -1 with what is
 * wrong (the option, the value, what is accepted) in err. */
int explore_parse_args(int argc, char **argv, explore_opts *o, char *err, size_t err_len);

#endif
