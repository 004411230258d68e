/*
 * options.h: bin/shmemu-cg's command line (options.c). "--name value" and "--name=value".
 */
#ifndef CG_OPTIONS_H
#define CG_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cg/matrix.h"
#include "cg/par.h"

typedef enum cg_source { CG_SRC_NONE, CG_SRC_MTX, CG_SRC_P1, CG_SRC_P2, CG_SRC_P3 } cg_source;

typedef struct cg_options {
    bool help;
    bool history;        /* print ||r_k|| / ||r_0|| for every k */
    cg_source source;
    const char *matrix;  /* --matrix FILE */
    long grid;           /* --poisson{1,2,3}d N */
    double tol;          /* relative residual (default 1e-8) */
    long long max_iter;  /* default 10000 */
    uint64_t seed;       /* manufactured solution (default 1) */
    cg_solver solver;    /* --solver (default serial) */
    int pes;             /* --pes N (default 1) */
    int blocks, threads; /* --blocks, --threads of the kernels (0: cg/par.h's defaults) */
    cg_reduce reduce;    /* --reduce of cg-host (default sync) */
    bool reduce_given;
    cg_partition partition; /* --partition (default contiguous) */
    bool partition_given;
    cg_transport transport; /* --transport (default signal) */
    bool transport_given;
    long long iters;     /* --iters of the halo-only loop (default 50) */
    bool iters_given;
    bool list_bugs;      /* --list-bugs */
} cg_options;

void cg_options_usage(FILE *f);
/* 0, or -1 with err naming the option, the value and what to give. */
int cg_options_parse(int argc, char **argv, cg_options *o, cg_error *err);

#endif
