/*
 * kernels/pcg.c: pcg-mono, pipelined CG (Ghysels and Vanroose, "Hiding global
 * synchronization latency in the preconditioned conjugate gradient algorithm", Parallel
 * Computing 2014; the unpreconditioned form) in one cooperative kernel per PE, as cg-mono
 * (mono.c), with ONE reduction per iteration: the exact accumulators of gamma = r.r and
 * delta = w.r packed side by side and summed over all PEs by one
 * nvshmemx_longlong_sum_reduce_block of 2 CG_XSUM_WORDS words, started before the halo
 * exchange and the SpMV q = A w and used only after them.
 *
 * The recurrence (docs/cg.md; cg_solve_pcg_serial, solve_pcg.c, is the same on one core):
 *   x = 0; r = b (= b - A x exactly: A x is +0); w = A r; z = s = p = 0
 *   for i = 0, 1, ...:
 *     gamma = r.r, delta = w.r          (exact, one reduction)     }  overlapped
 *     q = A w                            (halo of w, then SpMV)     }
 *     stop if sqrt(gamma) <= tol sqrt(gamma_0) (converged, i iterations) or i = max_iter
 *     beta = i > 0 ? gamma / gamma_prev : 0
 *     den = i > 0 ? delta - beta * gamma / alpha_prev : delta   (= p.Ap; <= 0: breakdown)
 *     alpha = gamma / den
 *     z = beta z + q; s = beta s + w; p = beta p + r
 *     x = alpha p + x; r = -alpha s + r; w = -alpha z + w
 * Each update is one product and one sum per element in that written form (no FMA).
 *
 * Per iteration, on each PE (exchange k = i + 2; exchange 1 computes w = A r before the loop):
 *   every thread: gamma's and delta's terms of its rows; both packed into its slot pair;
 *     grid sync (the slots written; w and r complete for the send)             pcg_publish
 *   block 0: the slots summed, the collective over all PEs, thread 0 rounds gamma and
 *     delta into m.scalar (pcg_reduce); meanwhile blocks 1.. pack and put their messages
 *     and compute their interior rows of q = A w; block 0 joins after the collective
 *   send (credit wait, put-with-signal), interior rows, "received" waits; grid sync;
 *     block 0's thread 0 quiets; border rows; grid sync; credits             pcg_halo_spmv
 *   every thread reads gamma and delta (rounded before the grid syncs above), the stop
 *     test, alpha, beta, and updates its rows
 * Three grid syncs per iteration (cg-mono: six). What overlaps: block 0's collective with the
 * other blocks' sends and SpMV (the device collective is blocking for the block that calls
 * it, on a GPU as in the emulator, so block 0's own share waits for it; with one block per
 * PE nothing overlaps).
 *
 * Why the scalars are safe: block 0's thread 0 writes m.scalar at iteration i after
 * pcg_publish's grid sync and every thread reads it after pcg_halo_spmv's two grid syncs,
 * before it reaches the next iteration's pcg_publish. The slots are read by block 0 between
 * pcg_publish and the next grid sync, and rewritten only after two more.
 */
#include <math.h>
#include <stdbool.h>

#include "cg/xsum.h"
#include "kernels/halo.h"
#include "kernels/pcg.h"

/* This thread's two accumulators into its slot pair (gamma's, then delta's), then a grid
 * sync: every slot written, and every update of the last iteration done (w complete). */
DEVICE void pcg_publish(const cg_pcg_args *a, cg_xsum *gamma, cg_xsum *delta)
{
    int64_t *slot = a->m.slots + mono_gtid() * 2 * CG_XSUM_WORDS;
    cg_xsum_pack(gamma, slot);
    cg_xsum_pack(delta, slot + CG_XSUM_WORDS);
    cg_block_slots_sum(a->m.slots, 2 * CG_XSUM_WORDS);
    grid_sync();
}

/* Block 0: the grid's slot pairs summed and reduced over all PEs in one collective of
 * 2 CG_XSUM_WORDS words (mono_slots_reduce); its thread 0 rounds the exact gamma and delta
 * once each into m.scalar[0], m.scalar[1]. Other blocks return at once. */
DEVICE void pcg_reduce(const cg_pcg_args *a)
{
    if (blockIdx.x != 0)
        return;
    mono_slots_reduce(&a->m, 2 * CG_XSUM_WORDS);
    if (threadIdx.x == 0)
        for (int j = 0; j < 2; j++)
            a->m.scalar[j] = cg_slots_round(a->m.total + j * CG_XSUM_WORDS);
}

/* q = A w with w's halo exchange k (cg-mono's halo code, kernels/halo.h), after a grid sync
 * that made w's owned rows complete (and, with reduce, the slots): block 0 first makes the
 * reduction (pcg_reduce) while the other blocks start; send; interior rows; "received"
 * waits; grid sync; quiet; border rows; grid sync (no ghost of exchange k is read any more,
 * q complete, gamma and delta rounded); credits. */
DEVICE void pcg_halo_spmv(const cg_pcg_args *a, uint64_t k, bool reduce)
{
    const cg_mono_args *m = &a->m;
    if (reduce)
        pcg_reduce(a); /* block 0 only: the others go on with the halo and the SpMV */
    mono_send(m, k);
    mono_spmv(m, 0, m->n_interior, NULL);
    mono_receive(m, k);
    grid_sync();
    if (blockIdx.x == 0 && threadIdx.x == 0 && !cg_bug(CG_BUG_QUIET_MISSING)) /* planted */
        nvshmem_quiet(); /* the whole PE's puts: sendbuf reusable at exchange k + 1 */
    mono_spmv(m, m->n_interior, m->n_owned, NULL);
    grid_sync();
    mono_credit(m, k);
}

CG_KERNEL(cg_pcg, cg_pcg_args, a)
{
    const cg_mono_args *m = &a.m;
    const int64_t gt = mono_gtid(), gs = mono_gsize();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    double *const w = m->s, *const q = m->t, *const r = m->r, *const x = m->x;
    /* r0 <- b - A x0 = b: x0 = 0. Not through an SpMV of a zero w as cg-mono does: another
     * PE's exchange 1 may already be putting r0 into w's ghosts (no reduction comes first) */
    for (int64_t i = gt; i < m->n_owned; i += gs) {
        r[i] = m->b[i];
        w[i] = r[i];
    }
    grid_sync();
    pcg_halo_spmv(&a, 1, false); /* w0 <- A r0: exchange 1, of r0 in w's place */
    for (int64_t i = gt; i < m->n_owned; i += gs)
        w[i] = q[i];

    double gamma0 = 0.0, stop = 0.0, residual = 0.0, gamma_prev = 0.0, alpha_prev = 0.0;
    bool converged = false, breakdown = false;
    int64_t it = 0;
    for (;; it++) {
        cg_xsum acc_gamma, acc_delta;
        cg_xsum_init(&acc_gamma);
        cg_xsum_init(&acc_delta);
        for (int64_t i = gt; i < m->n_owned; i += gs) {
            cg_xsum_add_product(&acc_gamma, r[i], r[i]);
            cg_xsum_add_product(&acc_delta, w[i], r[i]);
        }
        pcg_publish(&a, &acc_gamma, &acc_delta);
        pcg_halo_spmv(&a, (uint64_t)it + 2, true); /* the reduction, overlapped: q <- A w */
        const double gamma = m->scalar[0], delta = m->scalar[1];
        if (it == 0) {
            gamma0 = gamma;
            stop = m->tol * sqrt(gamma0);
            residual = gamma0 > 0 ? 1.0 : 0.0;
        } else {
            residual = sqrt(gamma) / sqrt(gamma0);
        }
        if (lead && m->history)
            m->history[it] = residual;
        if (sqrt(gamma) <= stop) {
            converged = true;
            break;
        }
        if (it == m->max_iter)
            break;
        const double beta = it > 0 ? gamma / gamma_prev : 0.0;
        const double den = it > 0 ? delta - beta * gamma / alpha_prev : delta;
        if (!(den > 0) || !isfinite(den)) {
            breakdown = true;
            break;
        }
        const double alpha = gamma / den;
        for (int64_t i = gt; i < m->n_owned; i += gs) {
            a.z[i] = beta * a.z[i] + q[i];
            a.s[i] = beta * a.s[i] + w[i];
            a.p[i] = beta * a.p[i] + r[i];
            x[i] = alpha * a.p[i] + x[i];
            r[i] = -alpha * a.s[i] + r[i];
            w[i] = -alpha * a.z[i] + w[i];
        }
        gamma_prev = gamma;
        alpha_prev = alpha;
    }
    if (lead) {
        m->res->iterations = it;
        m->res->converged = converged;
        m->res->breakdown = breakdown;
        m->res->rho0 = gamma0;
        m->res->residual = residual;
    }
}
