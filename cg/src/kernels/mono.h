/*
 * kernels/mono.h: the argument block of the monolithic CG kernel (mono.c, paper 002
 * Listing 3), filled by the host driver (par.c), one per PE.
 *
 * Vectors are in the PE's local order (cg/plan.h): owned rows [0, n_owned) (interior rows
 * first, then border rows), then the ghosts [n_owned, n_ext). Only s has ghosts; it lives in
 * the symmetric heap, with the same size (ext_max) on every PE, because the senders put
 * their border values straight into its ghost region at the plan's displacements.
 *
 * Signals (symmetric, npes words each, never reset during a solve; iteration k writes k):
 *   sig_recv[q]    on this PE: "the ghosts from q for iteration k are here" (q's put-with-
 *                  signal, NVSHMEM_SIGNAL_SET k, delivered after its data; on the direct
 *                  transport q's system-scope release store of k after its stores);
 *   sig_credit[q]  on this PE: "q has finished reading the ghosts we sent it at iteration
 *                  k" (q's nvshmemx_signal_op SET k): the ready-to-receive credit we wait
 *                  for before putting iteration k + 1 into q's ghosts.
 * The words are indexed by the OTHER PE, so each (sender, receiver) pair has its own pair.
 *
 * Reductions: each thread of the grid packs its exact accumulator (cg/xsum.h) into
 * slots[(global thread) * CG_XSUM_WORDS]; block 0 sums the slots word by word into partial
 * (symmetric), reduces partial over all PEs into total (nvshmemx_longlong_sum_reduce_block)
 * and its thread 0 rounds total into *scalar, read by every thread after a grid sync.
 */
#ifndef CG_KERNELS_MONO_H
#define CG_KERNELS_MONO_H

#include <stdint.h>

#include "cg/solve.h"
#include "shmemu/kernel.h"

typedef struct cg_mono_args {
    int me, npes;
    int32_t n_owned, n_interior;
    /* the local matrix (cg_part.a): columns are local indices into s */
    const int64_t *rowptr;
    const int32_t *col;
    const double *val;
    const double *b;     /* n_owned */
    double *x, *r, *t;   /* n_owned */
    double *s;           /* symmetric: n_owned + n_ghost used of ext_max */
    /* sends: message k goes to send_part[k]: send_count[k] values s[send_idx[send_off[k] +
     * j]], packed into sendbuf[send_off[k] + j], put at the receiver's s + send_disp[k] */
    int n_send;
    const int *send_part;
    const int32_t *send_count, *send_off, *send_disp, *send_idx;
    double *sendbuf;
    /* the direct transport (cg/par.h, cg_transport): send_peer[k] is the receiver's
     * s + send_disp[k] and send_peer_sig[k] its sig_recv[me], both through nvshmem_ptr;
     * message k goes by put-with-signal when send_peer (the array) or send_peer[k] is NULL */
    double *const *send_peer;
    uint64_t *const *send_peer_sig;
    /* receives: group k comes from recv_part[k] */
    int n_recv;
    const int *recv_part;
    uint64_t *sig_recv, *sig_credit; /* symmetric, npes each */
    int64_t *slots;                  /* blocks * threads * CG_XSUM_WORDS */
    long long *partial, *total;      /* symmetric, CG_XSUM_WORDS each */
    double *scalar;                  /* the last reduction's rounded value */
    double tol;
    int64_t max_iter;
    double *history;                 /* max_iter + 1, or NULL (written by PE 0) */
    cg_result *res;                  /* written by block 0, thread 0 */
    double omega;                    /* cg_halo_loop's step */
} cg_mono_args;

KERNEL_DECL(cg_mono, cg_mono_args);
/* The halo-only loop (cg/par.h, cg_halo_loop_par): max_iter times s <- s - omega A s. */
KERNEL_DECL(cg_halo_loop, cg_mono_args);

#endif
