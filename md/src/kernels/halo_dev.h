/*
 * kernels/halo_dev.h: the device functions the halo kernels share (docs/papers.md: paper 000
 * Alg. 4, 5) and the transport seam.
 *
 * Transports. Each pulse carries one md_xport (halo.h), chosen once per search by one
 * policy (par_setup.c, md_par_choose_transports) and the same on every PE, so that both ends
 * of a pulse agree. One file per transport implements the same four operations:
 *   pack_x(m, x, lo, hi)                       send coordinates: this block's share of the
 *                                              map, into the peer (direct) or our staging
 *   notify_x(m, x, sig, p, seq, sig_op)        the packed coordinates are complete: tell
 *                                              send_rank (and move them, where staged)
 *   return_f(m, f, sig, p, seq, sig_op)        our halo slots' forces are final: give them
 *                                              to recv_rank (the owner)
 *   unpack_f(m, f, lo, hi)                     add the forces returned for our map entries
 *   xport_direct.h  MD_XPORT_DIRECT  stores through nvshmem_ptr, release-store signals
 *   xport_bulk.h    MD_XPORT_BULK    the same with bulk copies (tma_st / tma_ld)
 *   xport_signal.h  MD_XPORT_SIGNAL  staging buffers and put-with-signal
 * Waiting is the same for every transport (every path ends in a store of seq into a signal
 * word of the waiter's own memory): md_wait_seq (halo_steps.h, with the protocol's other
 * synchronization steps). MD_XPORT_CASES below is the one place that
 * names the transports: adding one is a file with the four operations, an enum value in
 * halo.h, a case here and the policy's choice.
 */
#ifndef MD_KERNELS_HALO_DEV_H
#define MD_KERNELS_HALO_DEV_H

#include "halo.h"
#include "halo_steps.h" /* the protocol's steps (and their planted mistakes) */

/* [lo, hi) of n items for part k of parts. */
DEVICE void md_split(int32_t n, int k, int parts, int32_t *lo, int32_t *hi)
{
    *lo = (int32_t)(((int64_t)n * k) / parts);
    *hi = (int32_t)(((int64_t)n * (k + 1)) / parts);
}

/* Stores xs[index_map[s]] + sh into out[s] for s in [lo, hi) (threads stride): one
 * component of a pack, wherever the transport puts it. */
DEVICE void md_pack_range(const md_dpulse *m, int64_t *out, const int64_t *xs, int64_t sh,
                          int32_t lo, int32_t hi)
{
    for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x)
        out[s] = xs[m->index_map[s]] + sh;
}

/* Adds src[s] to dst[index_map[s]] for s in [lo, hi) (threads stride). */
DEVICE void md_add_returned_range(const md_dpulse *m, int64_t *dst, const int64_t *src,
                                  int32_t lo, int32_t hi)
{
    for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x)
        md_add_returned_f(dst, m->index_map[s], src[s]);
}

#include "xport_direct.h"
#include "xport_bulk.h"
#include "xport_signal.h"

/* The dispatch: calls md_<transport>_<op>(args) for the pulse's transport. */
#define MD_XPORT_CASES(m, op, args)                                                             \
    switch ((m)->xport) {                                                                       \
    case MD_XPORT_DIRECT: md_direct_##op args; break;                                           \
    case MD_XPORT_BULK: md_bulk_##op args; break;                                               \
    case MD_XPORT_SIGNAL: md_signal_##op args; break;                                           \
    }

/* Packs index_map entries [lo, hi) with the pulse's periodic shift (all threads of the block
 * call it with the same range). */
DEVICE void md_pack_x(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
{
    MD_XPORT_CASES(m, pack_x, (m, x, lo, hi))
}

/* The coordinates of pulse p are packed (by every block, ordered before this thread by
 * the election or the kernel boundary): tell send_rank. sig_op SET for the fused kernel,
 * ADD 1 for the pulse kernels (halo.h: the word equals seq either way). */
DEVICE void md_notify_x(const md_dpulse *m, int64_t *const x[3], md_dsig *sig, int p,
                        uint64_t seq, int sig_op)
{
    MD_XPORT_CASES(m, notify_x, (m, x, sig, p, seq, sig_op))
}

/* Our halo slots of pulse p hold their final forces: give them to recv_rank (the owner). */
DEVICE void md_return_f(const md_dpulse *m, int64_t *const f[3], md_dsig *sig, int p,
                        uint64_t seq, int sig_op)
{
    MD_XPORT_CASES(m, return_f, (m, f, sig, p, seq, sig_op))
}

/* Adds the returned forces of index_map entries [lo, hi) (all threads of the block call it
 * with the same range, after the wait for the pulse's force signal and a block barrier). */
DEVICE void md_unpack_f(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
{
    MD_XPORT_CASES(m, unpack_f, (m, f, lo, hi))
}

#endif
