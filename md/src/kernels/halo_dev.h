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
 * word of the waiter's own memory): md_wait_seq. MD_XPORT_CASES below is the one place that
 * names the transports: adding one is a file with the four operations, an enum value in
 * halo.h, a case here and the policy's choice.
 */
#ifndef MD_KERNELS_HALO_DEV_H
#define MD_KERNELS_HALO_DEV_H

#include "halo.h"
#include "shmemu/bugs.h" /* the planted protocol bugs (shmemu_bug(): false in real runs) */

/* [lo, hi) of n items for part k of parts. */
DEVICE void md_split(int32_t n, int k, int parts, int32_t *lo, int32_t *hi)
{
    *lo = (int32_t)(((int64_t)n * k) / parts);
    *hi = (int32_t)(((int64_t)n * (k + 1)) / parts);
}

/* Acquire-waits for our own signal word (written by a peer) to reach seq. */
DEVICE void md_wait_seq(uint64_t *word, uint64_t seq)
{
    nvshmem_signal_wait_until(word, NVSHMEM_CMP_EQ, seq);
}

/* Acquire-waits (GPU scope) for a word that blocks of this PE release. */
DEVICE void md_wait_local(const uint64_t *word, uint64_t seq)
{
    while (ld_acquire(word, SCOPE_GPU) != seq) {
    }
}

/* Stores xs[index_map[s]] + sh into out[s] for s in [lo, hi) (threads stride): one
 * component of a pack, wherever the transport puts it. */
DEVICE void md_pack_range(const md_dpulse *m, int64_t *out, const int64_t *xs, int64_t sh,
                          int32_t lo, int32_t hi)
{
    for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x)
        out[s] = xs[m->index_map[s]] + sh;
}

/* Adds one returned force src to dst[i]. Integer atomics: pulses unpack concurrently into
 * shared atoms, and any order gives the same bits. Every transport's unpack goes through
 * here, so the unpack plants act on all of them. */
DEVICE void md_add_returned_f(int64_t *dst, int32_t i, int64_t src)
{
    const int64_t v = shmemu_bug(SHMEMU_BUG_F_UNPACK_NEGATED) ? -src : src;
    if (v != 0 && shmemu_bug(SHMEMU_BUG_F_UNPACK_PLAIN_ADD))
        dst[i] += v;
    else if (v != 0)
        atom_add(&dst[i], v, SCOPE_GPU, ORDER_RELAXED);
}

/* Adds src[s] to dst[index_map[s]] for s in [lo, hi) (threads stride). */
DEVICE void md_add_returned_range(const md_dpulse *m, int64_t *dst, const int64_t *src,
                                  int32_t lo, int32_t hi)
{
    for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x)
        md_add_returned_f(dst, m->index_map[s], src[s]);
}

/* The transports' planted bugs (shmemu/bugs.h). Their catalogue names this file as each
 * plant's home (test_md_bugs checks that it holds shmemu_bug(<the bug>)), so the transport
 * files ask these instead of naming the bugs themselves. */
#define MD_PLANT_X_NOTIFY_RELAXED() shmemu_bug(SHMEMU_BUG_X_NOTIFY_RELAXED)
#define MD_PLANT_F_NOTIFY_RELAXED() shmemu_bug(SHMEMU_BUG_F_NOTIFY_RELAXED)
#define MD_PLANT_X_SIGNAL_BEFORE_DATA() shmemu_bug(SHMEMU_BUG_X_SIGNAL_BEFORE_DATA)
#define MD_PLANT_X_FENCE_MISSING() shmemu_bug(SHMEMU_BUG_X_FENCE_MISSING)
#define MD_PLANT_X_QUIET_MISSING() shmemu_bug(SHMEMU_BUG_X_QUIET_MISSING)
#define MD_PLANT_X_PUT_WRONG_PE() shmemu_bug(SHMEMU_BUG_X_PUT_WRONG_PE)
#define MD_PLANT_BULK_SYNC_MISSING() shmemu_bug(SHMEMU_BUG_BULK_SYNC_MISSING)

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

/* Last-block election (Alg. 5 lines 2-4): every block of the pulse increments with
 * acq_rel (release: its writes; acquire: the earlier blocks' writes, for the last one);
 * true in the block that completes the count. Call from one thread after a block barrier. */
DEVICE int md_elect_last(uint64_t *counter, int nblocks)
{
    const uint64_t old = shmemu_bug(SHMEMU_BUG_ELECT_RELAXED)
                             ? atom_add(counter, (uint64_t)1, SCOPE_GPU, ORDER_RELAXED)
                             : atom_add(counter, (uint64_t)1, SCOPE_GPU, ORDER_ACQ_REL);
    return (old + 1) % (uint64_t)nblocks == 0;
}

#endif
