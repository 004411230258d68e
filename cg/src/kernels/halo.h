/*
 * kernels/halo.h: the device code the monolithic kernels share (cg-mono and the halo-only
 * loop in mono.c, pcg-mono in pcg.c): the grid-stride indices, the split SpMV t = A s, the
 * halo exchange of s (mono_send with its credit wait, mono_receive, mono_credit; block 0's
 * quiet after the grid sync stays in each kernel), and block 0's slot reduction. Written
 * once here, as static (DEVICE) functions of a header, because the dialect's device
 * functions are file-local in both builds (kernel.h: DEVICE is static), so each kernel file
 * includes its own copy of the same code.
 *
 * The protocol (signals: mono.h; docs/cg.md, "Halo protocol and signals"). Exchange k (from
 * 1) of sender p to receiver q: p waits sig_credit[q] >= k - 1 on p (q has read the ghosts of
 * exchange k - 1), puts its border values of s into q's s + disp with NVSHMEM_SIGNAL_SET k on
 * sig_recv[p] of q (delivered after the data); q waits sig_recv[p] >= k, grid syncs, its
 * block 0's thread 0 quiets (for every block's puts), it computes its border rows, and after
 * a grid sync that follows every block's SpMV it sets sig_credit[q] = k on p. On the direct
 * transport (cg/par.h: cg_transport; mono_store_direct) p stores the values into q's ghosts
 * through nvshmem_ptr after the credit wait and release-stores the signal; the waits and
 * credits do not change. cg-mono's s
 * is CG's direction; pcg-mono passes its w in s's place (and receives q = A w in t).
 *
 * Planted bugs (cg_bugs.h) of the halo sit here behind cg_bug(), so both kernels carry them.
 */
#ifndef CG_KERNELS_HALO_H
#define CG_KERNELS_HALO_H

#include <stdbool.h>
#include <stdint.h>

#include "cg/xsum.h"
#include "cg_bugs.h"
#include "kernels/mono.h"
#include "kernels/slots.h"

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

/* Block 0 only (every thread of it), after the grid sync that follows every block's
 * cg_block_slots_sum (kernels/slots.h): the blocks' sums of `words` words each summed word by
 * word into partial (int64 adds of packed accumulators: exact), then partial summed over all
 * PEs into total by one device-side collective (every PE's block 0). cg-mono reduces one
 * accumulator (CG_XSUM_WORDS), pcg-mono two at once (2 CG_XSUM_WORDS). */
DEVICE void mono_slots_reduce(const cg_mono_args *a, int words)
{
    const int64_t stride = (int64_t)blockDim.x * words; /* one block's slots */
    for (int w = (int)threadIdx.x; w < words; w += (int)blockDim.x) {
        long long sum = 0;
        for (int64_t j = 0; j < (int64_t)gridDim.x; j++)
            sum += a->slots[j * stride + w];
        a->partial[w] = sum;
    }
    nvshmemx_longlong_sum_reduce_block(NVSHMEM_TEAM_WORLD, a->total, a->partial, (size_t)words);
}

/* Planted (cg-signal-before-data): thread 0 sets the receiver's "received" signal, then the
 * block puts the data with no signal, so the receiver may read its ghosts before they land. */
DEVICE void mono_put_signal_first(const cg_mono_args *a, int m, uint64_t k)
{
    const int to = a->send_part[m];
    if (threadIdx.x == 0)
        nvshmemx_signal_op(&a->sig_recv[a->me], k, NVSHMEM_SIGNAL_SET, to);
    nvshmemx_double_put_nbi_block(a->s + a->send_disp[m], a->sendbuf + a->send_off[m],
                                  (size_t)a->send_count[m], to);
}

/* Planted (cg-signal-relaxed): the block puts the data with no signal, then thread 0 stores
 * the "received" signal straight into the receiver's word (nvshmem_ptr) with a relaxed
 * store: nothing orders the data before it (put-with-signal delivers the signal after the
 * data and releases it). */
DEVICE void mono_put_signal_relaxed(const cg_mono_args *a, int m, uint64_t k)
{
    const int to = a->send_part[m];
    nvshmemx_double_put_nbi_block(a->s + a->send_disp[m], a->sendbuf + a->send_off[m],
                                  (size_t)a->send_count[m], to);
    if (threadIdx.x == 0)
        st_relaxed((uint64_t *)nvshmem_ptr(&a->sig_recv[a->me], to), k, SCOPE_SYS);
}

/* The direct transport (--transport direct, auto; cg/par.h): after the credit wait, the
 * block stores message m's values straight into the receiver's ghosts (peer: its s +
 * send_disp[m], through nvshmem_ptr), a block barrier (every thread's stores before thread
 * 0's), and thread 0 publishes them with a system-scope release store of the receiver's
 * "received" word (its acquire wait, mono_receive, pairs with it), as md's direct transport
 * does (md/src/kernels/xport_direct.h). No put: nothing for the quiet to complete. */
DEVICE void mono_store_direct(const cg_mono_args *a, int m, double *peer, uint64_t k)
{
    const int32_t off = a->send_off[m], n = a->send_count[m];
    for (int32_t j = (int32_t)threadIdx.x; j < n; j += (int32_t)blockDim.x)
        peer[j] = a->s[a->send_idx[off + j]];
    __syncthreads();
    if (threadIdx.x == 0)
        st_release(a->send_peer_sig[m], k, SCOPE_SYS);
}

/* Listing 3, lines 14-17: block b sends messages b, b + G, ...: its threads pack the values,
 * thread 0 waits for the receiver's credit for iteration k - 1, and the block puts the
 * message into the receiver's ghosts with the "received" signal set to k (or, on the direct
 * transport, stores them there after the credit wait: mono_store_direct). */
DEVICE void mono_send(const cg_mono_args *a, uint64_t k)
{
    for (int m = (int)blockIdx.x; m < a->n_send; m += (int)gridDim.x) {
        const int32_t off = a->send_off[m], n = a->send_count[m];
        const int to = a->send_part[m];
        double *const peer = a->send_peer ? a->send_peer[m] : NULL; /* direct transport */
        for (int32_t j = (int32_t)threadIdx.x; j < n && !peer; j += (int32_t)blockDim.x)
            a->sendbuf[off + j] = a->s[a->send_idx[off + j]];
        if (threadIdx.x == 0 && !cg_bug(CG_BUG_CREDIT_WAIT_MISSING)) /* planted: no wait */
            nvshmem_signal_wait_until(&a->sig_credit[to], NVSHMEM_CMP_GE, k - 1);
        __syncthreads();
        if (peer)
            mono_store_direct(a, m, peer, k);
        else if (cg_bug(CG_BUG_SIGNAL_BEFORE_DATA)) /* planted: the signal, then the data */
            mono_put_signal_first(a, m, k);
        else if (cg_bug(CG_BUG_SIGNAL_RELAXED)) /* planted: a relaxed signal store */
            mono_put_signal_relaxed(a, m, k);
        else
            nvshmemx_double_put_signal_nbi_block(a->s + a->send_disp[m], a->sendbuf + off,
                                                 (size_t)n, &a->sig_recv[a->me], k,
                                                 NVSHMEM_SIGNAL_SET, to);
    }
}

/* Listing 3, line 19: block b waits for groups b, b + G, ... (one thread each). The grid
 * sync that follows makes every ghost visible to every block. */
DEVICE void mono_receive(const cg_mono_args *a, uint64_t k)
{
    if (threadIdx.x == 0 && !cg_bug(CG_BUG_RECV_WAIT_MISSING)) /* planted: no wait */
        for (int g = (int)blockIdx.x; g < a->n_recv; g += (int)gridDim.x)
            nvshmem_signal_wait_until(&a->sig_recv[a->recv_part[g]], NVSHMEM_CMP_GE, k);
}

/* The ready-to-receive credits of iteration k: called after a grid sync that follows every
 * block's SpMV, so no ghost of iteration k is read any more. */
DEVICE void mono_credit(const cg_mono_args *a, uint64_t k)
{
    if (threadIdx.x == 0 && !cg_bug(CG_BUG_CREDIT_MISSING)) /* planted: no credit */
        for (int g = (int)blockIdx.x; g < a->n_recv; g += (int)gridDim.x)
            nvshmemx_signal_op(&a->sig_credit[a->me], k, NVSHMEM_SIGNAL_SET, a->recv_part[g]);
}

#endif
