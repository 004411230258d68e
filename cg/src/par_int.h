/*
 * par_int.h: what the parallel solvers' host drivers share (par.c: the job and cg-mono's PE;
 * par_host.c: cg-host's PE): the job every PE thread reads, and the flattened send lists.
 *
 * The job is written by cg_solve_par before the PEs start; each PE writes only its rows of
 * x, its pe_err slot, and (PE 0) res and history; the caller reads them after the join.
 */
#ifndef CG_PAR_INT_H
#define CG_PAR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cg/par.h"
#include "cg/plan.h"

typedef struct cg_par_job {
    const cg_plan *plan;
    const double *b;      /* global order */
    double *x;            /* global order, written by each PE for its rows */
    double tol;
    int64_t max_iter;
    double *history;      /* PE 0 writes it */
    int blocks, threads;
    cg_reduce reduce;     /* cg-host */
    bool halo_loop;       /* cg_halo_loop_par: b is u0, x receives u, max_iter the count */
    double omega;         /* the halo loop's step */
    int32_t ext_max;      /* largest n_owned + n_ghost over the parts */
    cg_result res;        /* PE 0's */
    cg_error *pe_err;     /* one per PE */
} cg_par_job;

/* The flattened send lists of a part: message k goes to part[k], count[k] values of the
 * local rows idx[off[k] ..], put at the receiver's local index disp[k]. */
typedef struct cg_sends {
    int *part;
    int32_t *count, *off, *disp, *idx;
    int32_t total;
} cg_sends;

void cg_sends_make(const cg_part *p, cg_sends *s);
void cg_sends_free(cg_sends *s);

/* A PE's buffers, the same for every solver run on it. s (with its ghost region), the
 * signal words and the reduction's partial and total (red: partial, then total) are in the
 * symmetric heap, the same size on every PE; the rest is the PE's own memory (the
 * emulator's device memory is host memory). b holds the PE's rows of job->b. */
typedef struct cg_pe_bufs {
    int me, np;
    const cg_part *p;
    double *s;                 /* symmetric: job->ext_max values */
    uint64_t *sig;             /* symmetric: nsig words */
    long long *red;            /* symmetric: 2 CG_XSUM_WORDS */
    double *b, *x, *r, *t;     /* n_owned (x, r, t zero) */
    int64_t *slots;            /* one packed accumulator per thread of the grid */
    size_t nslots;
    cg_sends snd;
    double *sendbuf;           /* snd.total */
} cg_pe_bufs;

/* A PE's start: nvshmem_init, then allocates and zeroes its buffers, then a barrier (no put
 * or signal reaches a PE before it is ready). 0, or -1 with job->pe_err[me] set (the
 * symmetric heap is too small), everything freed and nvshmem finalized. */
int cg_pe_start(cg_par_job *job, size_t nsig, cg_pe_bufs *bufs);
/* Writes the PE's rows of v (local order) into job->x at their global indices. */
void cg_pe_bufs_gather(cg_par_job *job, const cg_pe_bufs *bufs, const double *v);
/* A PE's end: a barrier (no PE frees while another may still signal it), frees its buffers,
 * nvshmem_finalize. */
void cg_pe_finish(cg_pe_bufs *bufs);

/* cg-host's PE (shmemu_launch's function; arg is the cg_par_job). 0, or 1 with its pe_err. */
int cg_par_host_pe(void *arg);

#endif
