/*
 * kernels/host.h: the per-operation kernels of cg-host (paper 002, Listing 2: CPU-initiated
 * CG), launched one by one from each PE's host thread (cg/src/par_host.c), and the scalar
 * step of the iteration that the host (--reduce sync) or a one-thread kernel (--reduce
 * stream) takes after each reduction.
 *
 * Invariants: every kernel reads the shared state (cg_host_state) and does nothing once
 * st->done is set, so that a host which queued iterations ahead of the stop test (--reduce
 * stream) leaves x, r, s and the history as the stop left them. Every expression is
 * cg_solve_serial's (and cg-mono's), every dot product exact (cg/xsum.h): the bits equal the
 * serial solver's at any PE count and grid.
 */
#ifndef CG_KERNELS_HOST_H
#define CG_KERNELS_HOST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "cg/xsum.h"
#include "shmemu/kernel.h"

/* The scalars of the iteration, written only by cg_host_step. */
typedef struct cg_host_state {
    double rho, rho0, stop, alpha, beta, residual;
    int64_t k;           /* iterations completed */
    int done, converged, breakdown;
} cg_host_state;

enum { CG_HOST_RHO0 = 0, CG_HOST_GAMMA, CG_HOST_RHO };

typedef struct cg_host_args {
    int32_t lo, hi;      /* rows of the SpMV launch */
    int32_t n_owned;
    const int64_t *rowptr;
    const int32_t *col;
    const double *val;
    const double *b;
    double *x, *r, *t, *s; /* s: symmetric, with its ghosts */
    const double *u, *v; /* the dot product's vectors */
    int32_t send_total;  /* the pack: sendbuf[j] = s[send_idx[j]] */
    const int32_t *send_idx;
    double *sendbuf;
    int64_t *slots;      /* one packed accumulator per thread of the dot launch */
    int64_t nslots;
    int64_t block_threads; /* threads per block of the dot launch: its blocks' sums are
                              that many slots apart (kernels/slots.h) */
    long long *partial;  /* symmetric: the PE's sum of its slots */
    const long long *total; /* symmetric: the sum over PEs */
    cg_host_state *st;
    double tol;
    double *history;     /* or NULL */
    int which;           /* CG_HOST_*: the scalar kernel's step */
} cg_host_args;

/* The scalar part of Listing 1 after the reduction that gave v (host or device). */
CG_HD static inline void cg_host_step(cg_host_state *st, int which, double v, double tol,
                                double *history)
{
    if (which == CG_HOST_RHO0) {
        st->rho = st->rho0 = v;
        st->stop = tol * sqrt(v);
        st->residual = v > 0 ? 1.0 : 0.0;
        if (history)
            history[0] = st->residual;
        if (sqrt(v) <= st->stop)
            st->done = st->converged = 1;
    } else if (which == CG_HOST_GAMMA) {
        if (!(v > 0) || !isfinite(v))
            st->done = st->breakdown = 1;
        else
            st->alpha = st->rho / v;
    } else {
        st->k++;
        st->residual = sqrt(v) / sqrt(st->rho0);
        if (history)
            history[st->k] = st->residual;
        if (sqrt(v) <= st->stop) {
            st->done = st->converged = 1;
        } else {
            st->beta = v / st->rho;
            st->rho = v;
        }
    }
}

KERNEL_DECL(cgh_spmv, cg_host_args);      /* t[i] = (A s)[i], rows [lo, hi) */
KERNEL_DECL(cgh_init, cg_host_args);      /* r = b - t; s = r (owned rows) */
KERNEL_DECL(cgh_pack, cg_host_args);      /* the halo's send buffer */
KERNEL_DECL(cgh_dot, cg_host_args);       /* each thread's exact u.v partial into its slot */
KERNEL_DECL(cgh_slots_sum, cg_host_args); /* partial = sum of the slots, word by word */
KERNEL_DECL(cgh_scalar, cg_host_args);    /* one thread: round total, cg_host_step */
KERNEL_DECL(cgh_update, cg_host_args);    /* x += alpha s; r -= alpha t */
KERNEL_DECL(cgh_direction, cg_host_args); /* s = beta s + r */

#endif
