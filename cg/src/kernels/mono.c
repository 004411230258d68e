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
 * the end of this file, the halo-only loop) is that solver. Two planted bugs (cg_bugs.h)
 * sit here: the credit wait and the quiet dropped.
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
#include "kernels/mono.h"

DEVICE int64_t mono_gtid(void)
{
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

DEVICE int64_t mono_gsize(void)
{
    return (int64_t)gridDim.x * blockDim.x;
}

/* Row i of A s, its entries in stored order: cg_spmv's floating-point expression. */
DEVICE double mono_row(const cg_mono_args *a, int64_t i)
{
    double sum = 0.0;
    for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
        sum += a->val[k] * a->s[a->col[k]];
    return sum;
}

/* t[i] = (A s)[i] for rows [lo, hi), grid-stride; acc += s[i] t[i] when acc is not NULL. */
DEVICE void mono_spmv(const cg_mono_args *a, int64_t lo, int64_t hi, cg_xsum *acc)
{
    for (int64_t i = lo + mono_gtid(); i < hi; i += mono_gsize()) {
        a->t[i] = mono_row(a, i);
        if (acc)
            cg_xsum_add_product(acc, a->s[i], a->t[i]);
    }
}

/* Reduction, first half (every thread): this thread's accumulator into its slot, then a grid
 * sync, after which every slot is written and every read of the terms is done. */
DEVICE void mono_reduce_publish(const cg_mono_args *a, cg_xsum *acc)
{
    cg_xsum_pack(acc, a->slots + mono_gtid() * CG_XSUM_WORDS);
    grid_sync();
}

/* Reduction, second half (every thread): block 0 sums the grid's slots word by word into
 * partial, sums partial over all PEs into total (device-side collective, every PE's block 0),
 * and its thread 0 rounds the exact total once; a grid sync publishes it to the grid. */
DEVICE double mono_reduce_finish(const cg_mono_args *a)
{
    if (blockIdx.x == 0) {
        const int64_t nslots = mono_gsize();
        for (int w = (int)threadIdx.x; w < CG_XSUM_WORDS; w += (int)blockDim.x) {
            long long sum = 0;
            for (int64_t j = 0; j < nslots; j++)
                sum += a->slots[j * CG_XSUM_WORDS + w];
            a->partial[w] = sum;
        }
        nvshmemx_longlong_sum_reduce_block(NVSHMEM_TEAM_WORLD, a->total, a->partial,
                                           CG_XSUM_WORDS);
        if (threadIdx.x == 0) {
            int64_t words[CG_XSUM_WORDS];
            for (int w = 0; w < CG_XSUM_WORDS; w++)
                words[w] = a->total[w];
            cg_xsum s;
            cg_xsum_unpack(&s, words);
            *a->scalar = cg_xsum_round(&s);
        }
    }
    grid_sync();
    return *a->scalar;
}

/* Listing 3, lines 14-17: block b sends messages b, b + G, ...: its threads pack the values,
 * thread 0 waits for the receiver's credit for iteration k - 1, and the block puts the
 * message into the receiver's ghosts with the "received" signal set to k. */
DEVICE void mono_send(const cg_mono_args *a, uint64_t k)
{
    for (int m = (int)blockIdx.x; m < a->n_send; m += (int)gridDim.x) {
        const int32_t off = a->send_off[m], n = a->send_count[m];
        const int to = a->send_part[m];
        for (int32_t j = (int32_t)threadIdx.x; j < n; j += (int32_t)blockDim.x)
            a->sendbuf[off + j] = a->s[a->send_idx[off + j]];
        if (threadIdx.x == 0 && !cg_bug(CG_BUG_CREDIT_WAIT_MISSING)) /* planted: no wait */
            nvshmem_signal_wait_until(&a->sig_credit[to], NVSHMEM_CMP_GE, k - 1);
        __syncthreads();
        nvshmemx_double_put_signal_nbi_block(a->s + a->send_disp[m], a->sendbuf + off,
                                             (size_t)n, &a->sig_recv[a->me], k,
                                             NVSHMEM_SIGNAL_SET, to);
    }
}

/* Listing 3, line 19: block b waits for groups b, b + G, ... (one thread each). The grid
 * sync that follows makes every ghost visible to every block. */
DEVICE void mono_receive(const cg_mono_args *a, uint64_t k)
{
    if (threadIdx.x == 0)
        for (int g = (int)blockIdx.x; g < a->n_recv; g += (int)gridDim.x)
            nvshmem_signal_wait_until(&a->sig_recv[a->recv_part[g]], NVSHMEM_CMP_GE, k);
}

/* The ready-to-receive credits of iteration k: called after a grid sync that follows every
 * block's SpMV, so no ghost of iteration k is read any more. */
DEVICE void mono_credit(const cg_mono_args *a, uint64_t k)
{
    if (threadIdx.x == 0)
        for (int g = (int)blockIdx.x; g < a->n_recv; g += (int)gridDim.x)
            nvshmemx_signal_op(&a->sig_credit[a->me], k, NVSHMEM_SIGNAL_SET, a->recv_part[g]);
}

KERNEL(cg_mono, cg_mono_args, a)
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
KERNEL(cg_halo_loop, cg_mono_args, a)
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
