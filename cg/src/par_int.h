/*
 * par_int.h: what the parallel solvers' host drivers share (par.c: the job and cg-mono's PE;
 * par_host.c: cg-host's PE): the job every PE thread reads, and the flattened send lists.
 *
 * The job is written by cg_solve_par before the PEs start; each PE writes only its pe_err
 * slot, and PE 0 res, history and x (all rows, gathered through the symmetric heap:
 * cg_pe_bufs_gather); the caller reads them after the join. Only PE 0 writes the caller's
 * memory because on a GPU (cg/cuda.mk) and on the process backend the other PEs are other
 * processes; PE 0 stays in the calling one.
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
    bool pcg;             /* pcg-mono: two accumulators per reduction (kernels/pcg.h) */
    double omega;         /* the halo loop's step */
    cg_transport transport; /* the monolithic kernels' halo (cg/par.h) */
    int64_t direct_msgs, signal_msgs; /* PE 0's count of the messages by transport */
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
 * symmetric heap, the same size on every PE; what the kernels read or write is the PE's
 * device memory (cg_dev_alloc: cudaMalloc; the emulator's device memory is host memory), so
 * the host reaches it only through cudaMemcpy/cudaMemset; p and snd stay in host memory for
 * the host's own use. b holds the PE's rows of job->b. */
typedef struct cg_pe_bufs {
    int me, np;
    const cg_part *p;
    double *s;                 /* symmetric: job->ext_max values */
    uint64_t *sig;             /* symmetric: nsig words */
    long long *red;            /* symmetric: 2 CG_XSUM_WORDS (pcg-mono: 4) */
    double *b, *x, *r, *t;     /* device: n_owned (x, r, t zero) */
    const int64_t *rowptr;     /* device: the local matrix p->a (rowptr, col, val) */
    const int32_t *col;
    const double *val;
    cg_sends dsnd;             /* device: a copy of snd's arrays, for the kernels */
    double *pcg_z, *pcg_s, *pcg_p; /* pcg-mono's z, s, p (n_owned, zero); else NULL */
    int64_t *slots;            /* one packed accumulator per thread of the grid (pcg: 2) */
    size_t nslots;
    cg_sends snd;
    double *sendbuf;           /* snd.total */
    double **peer;             /* n_send: the direct transport's pointers (kernels/mono.h: */
    uint64_t **peer_sig;       /* send_peer, send_peer_sig); NULL entries: put-with-signal */
} cg_pe_bufs;

/* A PE's start: nvshmem_init, then allocates and zeroes its buffers, then a barrier (no put
 * or signal reaches a PE before it is ready). 0, or -1 with job->pe_err[me] set (the
 * symmetric heap is too small), everything freed and nvshmem finalized. */
int cg_pe_start(cg_par_job *job, size_t nsig, cg_pe_bufs *bufs);
/* Collective (every PE calls it, also after a failed kernel): PE 0 writes every PE's rows of
 * v (device memory, local order, n_owned) into job->x at their global indices, reading the
 * other PEs' rows through the symmetric heap (each PE copies v into its s, which is
 * overwritten; PE 0 takes them with nvshmem_getmem). cg_pe_finish's barrier keeps the s of
 * every PE until PE 0 has read it. */
void cg_pe_bufs_gather(cg_par_job *job, const cg_pe_bufs *bufs, const double *v);

/* Device memory of the PE (cudaMalloc; host memory on the emulator): zeroed, or a copy of
 * bytes of host memory. They print and exit(2) when the GPU's memory is exhausted, as
 * cg_xmalloc does. Copies from the host are complete for the kernels only after a
 * cudaDeviceSynchronize (cg_pe_start's, before its barrier). */
void *cg_dev_alloc(size_t bytes);
/* CLOCK_MONOTONIC in seconds. */
double cg_wall_s(void);
/* The CUDA build's PE 0 prints the solve's own time on standard error (the program's time
 * per iteration includes starting the PE processes and NVSHMEM there); nothing on the CPU. */
void cg_par_report(const char *solver, double seconds, int64_t iters);
void *cg_dev_copy(const void *host, size_t bytes);
void cg_dev_free(void *p);
/* A PE's end: a barrier (no PE frees while another may still signal it), frees its buffers,
 * nvshmem_finalize. */
void cg_pe_finish(cg_pe_bufs *bufs);

/* cg-host's PE (shmemu_launch's function; arg is the cg_par_job). 0, or 1 with its pe_err. */
int cg_par_host_pe(void *arg);

#endif
