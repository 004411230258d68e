/*
 * kernels/halo_steps.h: the halo protocol's synchronization steps, one function each
 * (docs/papers.md: paper 000 Alg. 3-6), and the planted mistakes of each (md_bugs.h).
 *
 * The kernels (halo_fused_x.c, halo_fused_f.c, halo_pulse.c) and the transports
 * (xport_*.h) call these steps by name, so they read like the paper's algorithms; every
 * plant of the kernels lives here, inside the step it breaks:
 *
 *     if (md_bug(MD_BUG_X)) ...the mistake...; else ...the step...
 *
 * Under nvcc md_bug() is the constant false: each step compiles to its correct code alone.
 * Included by halo_dev.h only, before the transports.
 */
#ifndef MD_KERNELS_HALO_STEPS_H
#define MD_KERNELS_HALO_STEPS_H

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

/* ---- the coordinate halo ---------------------------------------------------------------- */

/* syncAndCommWithDeps' wait (Alg. 4; thread 0): acquire-waits for the coordinates of every
 * earlier pulse q in dep_mask (the atoms this pulse forwards arrive there). */
DEVICE void md_dep_wait(const md_dpulse *m, md_dsig *sig, int p, uint64_t seq)
{
    for (int q = p - 1; q >= 0; q--) {
        if (!(m->dep_mask & (1u << q)) || md_bug(MD_BUG_X_DEP_WAIT_MISSING))
            continue;
        if (md_bug(MD_BUG_X_DEP_WAIT_RELAXED)) {
            while (ld_relaxed(&sig->sig_x[q], SCOPE_SYS) != seq) {
            }
            continue;
        }
        md_wait_seq(&sig->sig_x[q], seq);
        if (md_bug(MD_BUG_X_DEP_WAIT_LAST_ONLY))
            break;
    }
}

/* The block barrier after thread 0's dependency wait: it passes the acquire on to the
 * threads that pack the forwarded atoms. */
DEVICE void md_share_dep_wait(void)
{
    if (!md_bug(MD_BUG_X_SYNC_AFTER_DEP_WAIT_MISSING))
        __syncthreads();
}

/* The block barrier before the election: every thread of the block has packed. */
DEVICE void md_block_packed(void)
{
    if (!md_bug(MD_BUG_X_ELECT_BARRIER_MISSING))
        __syncthreads();
}

/* Last-block election (Alg. 5 lines 2-4): every block of the pulse increments with
 * acq_rel (release: its writes; acquire: the earlier blocks' writes, for the last one);
 * true in the block that completes the count. Call from one thread after a block barrier. */
DEVICE int md_elect_last(uint64_t *counter, int nblocks)
{
    const uint64_t old = md_bug(MD_BUG_ELECT_RELAXED)
                             ? atom_add(counter, (uint64_t)1, SCOPE_GPU, ORDER_RELAXED)
                             : atom_add(counter, (uint64_t)1, SCOPE_GPU, ORDER_ACQ_REL);
    return (old + 1) % (uint64_t)nblocks == 0;
}

/* Our halo slots of pulse p have arrived from recv_rank (they land in place): acquire-waits
 * for the pulse's coordinate signal. */
DEVICE void md_recv_x(md_dsig *sig, int p, uint64_t seq)
{
    if (!md_bug(MD_BUG_X_RECV_WAIT_MISSING))
        md_wait_seq(&sig->sig_x[p], seq);
}

/* ---- the transports' signals and puts ---------------------------------------------------- */

/* Direct path: publishes the coordinates stored into the peer: a system-scope release
 * store of its signal word. */
DEVICE void md_publish_x(uint64_t *peer_sig, uint64_t seq)
{
    if (md_bug(MD_BUG_X_NOTIFY_RELAXED))
        st_relaxed(peer_sig, seq, SCOPE_SYS);
    else
        st_release(peer_sig, seq, SCOPE_SYS);
}

/* Direct path: our halo slots' forces are final: a system-scope release store of the
 * owner's signal word (the owner reads them after its acquire). */
DEVICE void md_publish_f(uint64_t *owner_sig, uint64_t seq)
{
    if (md_bug(MD_BUG_F_NOTIFY_RELAXED))
        st_relaxed(owner_sig, seq, SCOPE_SYS);
    else
        st_release(owner_sig, seq, SCOPE_SYS);
}

/* The PE our packed coordinates go to: send_rank. */
DEVICE int md_x_dest(const md_dpulse *m)
{
    return md_bug(MD_BUG_X_PUT_WRONG_PE) ? m->recv_rank : m->send_rank;
}

/* Orders the plain puts to a PE before the put-with-signal that follows. */
DEVICE void md_fence_x(void)
{
    if (!md_bug(MD_BUG_X_FENCE_MISSING))
        nvshmem_fence();
}

/* Puts the three staged components to `to` at dst[d] + off, the signal with the last: two
 * plain puts, the fence, the put-with-signal (whose signal then covers all three). */
DEVICE void md_put_staged_x(int64_t *const dst[3], int64_t off, const int64_t *stage,
                            int32_t n, uint64_t *sig, uint64_t v, int sig_op, int to)
{
    const size_t bytes = (size_t)n * sizeof(int64_t);
    if (md_bug(MD_BUG_X_SIGNAL_BEFORE_DATA)) {
        nvshmemx_signal_op(sig, v, sig_op, to);
        for (int d = 0; d < 3; d++)
            nvshmem_putmem_nbi(dst[d] + off, stage + d * (int64_t)n, bytes, to);
        return;
    }
    nvshmem_putmem_nbi(dst[0] + off, stage, bytes, to);
    nvshmem_putmem_nbi(dst[1] + off, stage + n, bytes, to);
    md_fence_x();
    nvshmem_putmem_signal_nbi(dst[2] + off, stage + 2 * (int64_t)n, bytes, sig, v, sig_op, to);
}

/* Completes our puts: the staging buffer is reusable (next step) once this returns. */
DEVICE void md_quiet_x(void)
{
    if (!md_bug(MD_BUG_X_QUIET_MISSING))
        nvshmem_quiet();
}

/* Bulk path: the block barrier between the threads' gather into shared memory and thread
 * 0's copy of it. */
DEVICE void md_block_gathered(void)
{
    if (!md_bug(MD_BUG_BULK_SYNC_MISSING))
        __syncthreads();
}

/* ---- the force halo ---------------------------------------------------------------------- */

/* DEP_MGMT (Alg. 6; the sender, one thread): a halo slot of pulse p that a later pulse k
 * forwarded (bit p of k's dep_mask) collects k's returned forces first: acquire-waits for
 * done_f[k] of each such k. */
DEVICE void md_depmgmt_wait(const md_dpulse *pulses, int npulse, md_dsig *sig, int p,
                            uint64_t seq)
{
    for (int k = p + 1; k < npulse; k++)
        if ((pulses[k].dep_mask & (1u << p)) && !md_bug(MD_BUG_F_DEPMGMT_WAIT_MISSING))
            md_wait_local(&sig->done_f[k], seq);
}

/* The forces of pulse p have come back (all threads of the block call it): thread 0
 * acquire-waits for the pulse's force signal, the block barrier passes the acquire on. */
DEVICE void md_recv_f(md_dsig *sig, int p, uint64_t seq)
{
    if (threadIdx.x == 0)
        md_wait_seq(&sig->sig_f[p], seq);
    if (!md_bug(MD_BUG_F_UNPACK_SYNC_MISSING))
        __syncthreads();
}

/* Adds one returned force src to dst[i]. Integer atomics: pulses unpack concurrently into
 * shared atoms, and any order gives the same bits. Every transport's unpack goes through
 * here. */
DEVICE void md_add_returned_f(int64_t *dst, int32_t i, int64_t src)
{
    const int64_t v = md_bug(MD_BUG_F_UNPACK_NEGATED) ? -src : src;
    if (v != 0 && md_bug(MD_BUG_F_UNPACK_PLAIN_ADD))
        dst[i] += v;
    else if (v != 0)
        atom_add(&dst[i], v, SCOPE_GPU, ORDER_RELAXED);
}

#endif
