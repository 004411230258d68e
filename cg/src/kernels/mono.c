/*
 * kernels/mono.c: the monolithic CG kernel (paper 002, Listing 3): one cooperative kernel per
 * PE runs the whole solve; the host only launches it and waits.
 *
 * Each iteration, as Listing 3 (line numbers of the listing in the comments):
 *   grid sync (s complete)                                                           [10]
 *   pack + credit wait + put-with-signal, one message per block, block-wide           [14-17]
 *   interior SpMV (rows that read no ghost) while the halo is in flight               [18]
 *   "received" wait, one thread per message; grid sync; one thread quiets             [19-21]
 *   border SpMV, gamma's exact partial; reduce; credits returned                      [22-26]
 *   alpha; x and r updated, rho's exact partial; reduce; stop test; beta; s          [27-35]
 *
 * Halo protocol (signals: mono.h). Iteration k (from 1) of sender p to receiver q:
 *   p waits sig_credit[q] >= k - 1 on p (q has read the ghosts of iteration k - 1),
 *   p puts its border values into q's s + disp with NVSHMEM_SIGNAL_SET k on sig_recv[p] of q
 *     (nvshmemx_double_put_signal_nbi_block: the signal is delivered after the data),
 *   q waits sig_recv[p] >= k, grid syncs, computes its border rows, and after the grid sync
 *     of gamma's reduction (every block's SpMV done) sets sig_credit[q] = k on p.
 * The source (sendbuf) is rewritten at iteration k + 1 only after a grid sync that follows
 * the nvshmem_quiet issued by block 0's thread 0 for the whole PE at iteration k (ordered
 * after every block's put by the grid sync before it). The credit wait is implied by the
 * blocking reductions here (q reaches gamma's reduction of iteration k only after its SpMV;
 * p cannot start iteration k + 1 before that reduction completes), but the protocol does not
 * rely on that: a solver without reductions keeps the same halo code, and cg_halo_loop (at
 * the end of this file, the halo-only loop) is that solver. Planted bugs (cg_bugs.h) sit
 * behind cg_bug(): here the quiet and the reduction's last grid sync dropped; in
 * kernels/halo.h the credit wait, the "received" wait and the credit return dropped, the
 * signal sent before the data or as a relaxed store; the put displacements' in par.c's
 * cg_sends_make.
 * The halo functions (mono_send, mono_receive, mono_credit, and the plants in them), the
 * split SpMV and block 0's slot reduction live in kernels/halo.h, shared with pcg-mono
 * (kernels/pcg.c); their names are unchanged.
 *
 * Exactness (docs/cg.md): every row of t = A s is summed in its stored order (cg_spmv's
 * expression), every vector update is cg_solve_serial's expression, and every dot product
 * is exact: each thread accumulates its terms in a cg_xsum, the grid's accumulators and then
 * the PEs' are summed as packed integer words, and the exact total is rounded once. So the
 * bits do not depend on the PE count, the grid, or which thread took which row.
 */
#include <math.h>
#include <stdbool.h>

#include "cg/xsum.h"
#include "cg_bugs.h"
#include "kernels/halo.h"
#include "kernels/mono.h"

/* Reduction, first half (every thread): this thread's accumulator into its slot, then a grid
 * sync, after which every slot is written and every read of the terms is done. */
DEVICE void mono_reduce_publish(const cg_mono_args *a, cg_xsum *acc)
{
    cg_xsum_pack(acc, a->slots + mono_gtid() * CG_XSUM_WORDS);
    cg_block_slots_sum(a->slots, CG_XSUM_WORDS);
    grid_sync();
}

/* Reduction, second half (every thread): block 0 sums the grid's slots word by word into
 * partial, sums partial over all PEs into total (device-side collective, every PE's block 0),
 * and its thread 0 rounds the exact total once; a grid sync publishes it to the grid. */
DEVICE double mono_reduce_finish(const cg_mono_args *a)
{
    if (blockIdx.x == 0) {
        mono_slots_reduce(a, CG_XSUM_WORDS);
        if (threadIdx.x == 0)
            *a->scalar = cg_slots_round(a->total);
    }
    if (!cg_bug(CG_BUG_REDUCE_SYNC_MISSING)) /* planted: read before block 0 rounded it */
        grid_sync();
    return *a->scalar;
}

CG_KERNEL(cg_mono, cg_mono_args, a)
{
    const int64_t gt = mono_gtid(), gs = mono_gsize();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    cg_xsum acc;
    /* r0 <- b - A x0; rho0 <- r0.r0 (lines 2-5). x0 = 0 on every PE, so s, zero with its
     * ghosts, stands for x0 and needs no exchange. */
    cg_xsum_init(&acc);
    mono_spmv(&a, 0, a.n_owned, NULL);
    for (int64_t i = gt; i < a.n_owned; i += gs) {
        a.r[i] = a.b[i] - a.t[i];
        cg_xsum_add_product(&acc, a.r[i], a.r[i]);
    }
    mono_reduce_publish(&a, &acc);
    double rho = mono_reduce_finish(&a);
    const double rho0 = rho;
    for (int64_t i = gt; i < a.n_owned; i += gs) /* s <- r0 (line 7) */
        a.s[i] = a.r[i];
    const double stop = a.tol * sqrt(rho);
    double residual = rho > 0 ? 1.0 : 0.0;
    if (lead && a.history)
        a.history[0] = residual;
    bool converged = sqrt(rho) <= stop, breakdown = false;
    int64_t k = 0;
    while (!converged && k < a.max_iter) {
        k++;
        grid_sync();                              /* s complete everywhere (line 10) */
        mono_send(&a, (uint64_t)k);               /* lines 14-17 */
        cg_xsum_init(&acc);
        mono_spmv(&a, 0, a.n_interior, &acc);     /* interior rows: no ghost (line 18) */
        mono_receive(&a, (uint64_t)k);            /* line 19 */
        grid_sync();
        if (lead && !cg_bug(CG_BUG_QUIET_MISSING)) /* planted: no quiet */
            nvshmem_quiet(); /* the whole PE's puts: sendbuf reusable at iteration k + 1 */
        mono_spmv(&a, a.n_interior, a.n_owned, &acc); /* t <- A s; gamma's terms */
        mono_reduce_publish(&a, &acc);
        mono_credit(&a, (uint64_t)k);
        double gamma = mono_reduce_finish(&a);    /* gamma <- s.t (lines 24-26) */
        if (!(gamma > 0) || !isfinite(gamma)) {
            breakdown = true;
            k--;
            break;
        }
        const double alpha = rho / gamma;
        cg_xsum_init(&acc);
        for (int64_t i = gt; i < a.n_owned; i += gs) {
            a.x[i] = alpha * a.s[i] + a.x[i];     /* line 28 */
            a.r[i] = -alpha * a.t[i] + a.r[i];    /* line 29 */
            cg_xsum_add_product(&acc, a.r[i], a.r[i]);
        }
        mono_reduce_publish(&a, &acc);
        const double rho_k = mono_reduce_finish(&a); /* rho_k <- r.r (lines 30-32) */
        residual = sqrt(rho_k) / sqrt(rho0);
        if (lead && a.history)
            a.history[k] = residual;
        if (sqrt(rho_k) <= stop) {                /* line 34 */
            converged = true;
            break;
        }
        const double beta = rho_k / rho;          /* line 35 */
        for (int64_t i = gt; i < a.n_owned; i += gs)
            a.s[i] = beta * a.s[i] + a.r[i];
        rho = rho_k;
    }
    if (lead) {
        a.res->iterations = k;
        a.res->converged = converged;
        a.res->breakdown = breakdown;
        a.res->rho0 = rho0;
        a.res->residual = residual;
    }
}

/* The halo-only loop (cg/par.h: cg_halo_loop_par): max_iter times s <- s - omega A s, with
 * cg-mono's halo code (mono_send, mono_receive, the quiet, mono_credit) and no reduction.
 * Iteration k: grid sync (s complete); send; interior SpMV; receive; grid sync; quiet;
 * border SpMV; grid sync (no block reads a ghost of iteration k any more); credits; update
 * of the owned rows. Here the credit is all that keeps a sender's put of iteration k + 1
 * out of ghosts that its receiver's border SpMV of iteration k still reads: the sender only
 * needs the receiver's iteration-k message to run ahead. */
CG_KERNEL(cg_halo_loop, cg_mono_args, a)
{
    const int64_t gt = mono_gtid(), gs = mono_gsize();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    for (int64_t k = 1; k <= a.max_iter; k++) {
        grid_sync();
        mono_send(&a, (uint64_t)k);
        mono_spmv(&a, 0, a.n_interior, NULL);
        mono_receive(&a, (uint64_t)k);
        grid_sync();
        if (lead && !cg_bug(CG_BUG_QUIET_MISSING)) /* planted: no quiet */
            nvshmem_quiet();
        mono_spmv(&a, a.n_interior, a.n_owned, NULL);
        grid_sync();
        mono_credit(&a, (uint64_t)k);
        for (int64_t i = gt; i < a.n_owned; i += gs)
            a.s[i] = -a.omega * a.t[i] + a.s[i];
    }
}
