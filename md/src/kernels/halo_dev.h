/*
 * kernels/halo_dev.h: the device functions both halo variants share (paper 000 Alg. 4, 5
 * and the transport of each path). Each transport lives in one function here:
 *   direct:      stores into the peer's memory through nvshmem_ptr, then a system-scope
 *                release store of the peer's signal (md_notify_x / md_notify_f);
 *   put-signal:  packed into a local staging buffer, then put-with-signal into the peer,
 *                and nvshmem_quiet before the staging buffer can be reused.
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

/* Where pulse m's packed coordinates go: the peer's halo slots (direct) or our staging. */
DEVICE int64_t *md_x_out(const md_dpulse *m, int d)
{
    return m->peer_x[0] ? m->peer_x[d] : m->xstage + (int64_t)d * m->send_size;
}

/* Packs index_map entries [lo, hi) with the pulse's periodic shift; threads stride. */
DEVICE void md_pack_x(const md_dpulse *m, int64_t *const x[3], int32_t lo, int32_t hi)
{
    for (int d = 0; d < 3; d++) {
        int64_t *out = md_x_out(m, d);
        const int64_t *xs = x[d];
        const int64_t sh = m->shift[d];
        for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x)
            out[s] = xs[m->index_map[s]] + sh;
    }
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

/* The coordinates of pulse p are packed (by every block, ordered before this thread by
 * the election or the kernel boundary): tell send_rank. sig_op SET for the fused kernel,
 * ADD 1 for the pulse kernels (put path); the direct path always stores seq. */
DEVICE void md_notify_x(const md_dpulse *m, int64_t *const x[3], md_dsig *sig, int p,
                        uint64_t seq, int sig_op)
{
    if (m->peer_x[0]) {
        /* Direct: the data went straight into the peer; a system-scope release store
         * publishes it (the peer acquire-waits on the same word). */
        if (shmemu_bug(SHMEMU_BUG_X_NOTIFY_RELAXED))
            st_relaxed(m->peer_sig_x, seq, SCOPE_SYS);
        else
            st_release(m->peer_sig_x, seq, SCOPE_SYS);
        return;
    }
    const uint64_t v = sig_op == NVSHMEM_SIGNAL_SET ? seq : 1;
    const size_t bytes = (size_t)m->send_size * sizeof(int64_t);
    const int to = shmemu_bug(SHMEMU_BUG_X_PUT_WRONG_PE) ? m->recv_rank : m->send_rank;
    if (bytes == 0) {
        nvshmemx_signal_op(&sig->sig_x[p], v, sig_op, to);
        return;
    }
    if (shmemu_bug(SHMEMU_BUG_X_SIGNAL_BEFORE_DATA)) {
        nvshmemx_signal_op(&sig->sig_x[p], v, sig_op, to);
        for (int d = 0; d < 3; d++)
            nvshmem_putmem_nbi(x[d] + m->remote_offset, m->xstage + d * (int64_t)m->send_size,
                               bytes, to);
        nvshmem_quiet();
        return;
    }
    /* Three component ranges, one signal: fence orders the first two puts before the
     * put-with-signal, whose signal then covers all three. */
    nvshmem_putmem_nbi(x[0] + m->remote_offset, m->xstage, bytes, to);
    nvshmem_putmem_nbi(x[1] + m->remote_offset, m->xstage + m->send_size, bytes, to);
    if (!shmemu_bug(SHMEMU_BUG_X_FENCE_MISSING))
        nvshmem_fence();
    nvshmem_putmem_signal_nbi(x[2] + m->remote_offset, m->xstage + 2 * (int64_t)m->send_size,
                              bytes, &sig->sig_x[p], v, sig_op, to);
    if (!shmemu_bug(SHMEMU_BUG_X_QUIET_MISSING))
        nvshmem_quiet(); /* the staging buffer is reusable (next step) once this returns */
}

/* Our halo slots of pulse p hold their final forces: give them to recv_rank (the owner).
 * Direct: the owner reads them from our memory (a get, as paper 000 does with tma_ld), so
 * we only publish with a system-scope release store. (Paper 000 uses a relaxed store for
 * the first force pulse, whose data was written by an earlier kernel; here the forces
 * were written by the non-local kernel and the unpacks of later pulses, and the release is
 * what carries them to the owner's acquire: a relaxed store would leave them racing for
 * helgrind, DRD and TSan, which see no kernel-boundary flush across PEs.) Put path: our
 * slots go into the owner's fbuf with the signal. */
DEVICE void md_notify_f(const md_dpulse *m, int64_t *const f[3], md_dsig *sig, int p,
                        uint64_t seq, int sig_op, int direct)
{
    if (direct) {
        if (shmemu_bug(SHMEMU_BUG_F_NOTIFY_RELAXED))
            st_relaxed(m->owner_sig_f, seq, SCOPE_SYS);
        else
            st_release(m->owner_sig_f, seq, SCOPE_SYS);
        return;
    }
    const uint64_t v = sig_op == NVSHMEM_SIGNAL_SET ? seq : 1;
    const int32_t n = m->recv_size; /* the owner's send_size for this pulse */
    const size_t bytes = (size_t)n * sizeof(int64_t);
    if (bytes == 0) {
        nvshmemx_signal_op(&sig->sig_f[p], v, sig_op, m->recv_rank);
        return;
    }
    nvshmem_putmem_nbi(m->fbuf, f[0] + m->atom_offset, bytes, m->recv_rank);
    nvshmem_putmem_nbi(m->fbuf + n, f[1] + m->atom_offset, bytes, m->recv_rank);
    nvshmem_fence();
    nvshmem_putmem_signal_nbi(m->fbuf + 2 * (int64_t)n, f[2] + m->atom_offset, bytes,
                              &sig->sig_f[p], v, sig_op, m->recv_rank);
    nvshmem_quiet();
}

/* Adds the returned forces of index_map entries [lo, hi) (threads stride). Integer atomics:
 * pulses unpack concurrently into shared atoms, and any order gives the same bits. */
DEVICE void md_unpack_f(const md_dpulse *m, int64_t *const f[3], int32_t lo, int32_t hi)
{
    for (int d = 0; d < 3; d++) {
        const int64_t *src = m->peer_f[0] ? m->peer_f[d] : m->fbuf + (int64_t)d * m->send_size;
        int64_t *dst = f[d];
        for (int32_t s = lo + (int32_t)threadIdx.x; s < hi; s += (int32_t)blockDim.x) {
            const int64_t v = shmemu_bug(SHMEMU_BUG_F_UNPACK_NEGATED) ? -src[s] : src[s];
            if (v != 0 && shmemu_bug(SHMEMU_BUG_F_UNPACK_PLAIN_ADD))
                dst[m->index_map[s]] += v;
            else if (v != 0)
                atom_add(&dst[m->index_map[s]], v, SCOPE_GPU, ORDER_RELAXED);
        }
    }
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
