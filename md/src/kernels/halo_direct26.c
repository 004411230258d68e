/*
 * kernels/halo_direct26.c: the direct ghost exchange's kernels (--halo direct26; HOOMD-blue,
 * Glaser et al. 2015 §4.3, docs/papers.md; the words and the table: halo_direct26.h).
 *
 * md_d26_pack_comm_x, grid nb x nnbr, one phase, no forwarding. Block (b, k):
 *   1. thread 0 acquire-waits for ack[code] == ack_seq (md_d26_wait_ack): the neighbour has
 *      finished the force kernels that read the ghosts we sent it last time, so its slots
 *      (and its x word) are free; block barrier;
 *   2. packs its share of the neighbour's index map with the direction's periodic shift,
 *      through the pulse transports' pack (halo_dev.h md_pack_x: straight into the
 *      neighbour's slots, or into our staging buffer);
 *   3. block barrier; thread 0 takes part in the last-block election; the last block
 *      notifies (md_d26_notify_x): a system-scope release store of the neighbour's x[slot]
 *      (direct) or the staged data put with the signal (then quiet);
 *   4. block 0 acquire-waits for x[code] == seq (md_d26_recv_ghosts): the ghosts from that
 *      neighbour are here. The kernel's end therefore means every ghost slot holds this
 *      step's coordinates.
 * md_d26_ack, grid 1 x nnbr, one thread each, after the force kernels that read the ghosts
 * (stream order): ack[slot] of the neighbour := seq_f (md_d26_send_ack). One-sided stores
 * need this back pressure; the staged exchange gets it from its force return, which
 * direct26 has not.
 * md_d26_add_f: adds the forces of the second half of the home-ghost pairs (par_direct26.c).
 *
 * The steps are named functions, as halo_steps.h's are for the staged kernels, and the
 * planted mistakes of direct26's own steps (md_bugs.h MD_BUG_D26_*) live inside them; the
 * steps it shares with the staged exchange (the pack, the block barrier, the election, the
 * direct publish, the staged put) carry their plants in halo_steps.h.
 */
#include "halo_dev.h"
#include "halo_direct26.h"

/* ---- the protocol's steps ----------------------------------------------------------- */

/* Step 1 (thread 0): the neighbour's slots for us are free once it acknowledged the force
 * step ack_seq (its reads of the ghosts we sent before it are over): acquire-waits for its
 * ack. */
DEVICE void md_d26_wait_ack(const md_d26_nbr *n, md_d26_sig *sig, uint64_t ack_seq)
{
    if (!md_bug(MD_BUG_D26_ACK_WAIT_MISSING))
        md_wait_seq(&sig->ack[n->code], ack_seq);
}

/* Step 3 (the last block's thread 0): the ghosts we packed for the neighbour are complete:
 * direct, a system-scope release store of its x[slot] (halo_steps.h md_publish_x); staged,
 * the three component ranges put into its slots with the signal on the last (md_put_staged_x:
 * the fence orders the first two before it), then quiet, so the staging buffer is
 * reusable. */
DEVICE void md_d26_notify_x(const md_d26_nbr *n, int64_t *const x[3], md_d26_sig *sig,
                            uint64_t seq)
{
    const md_dpulse *m = &n->m;
    if (m->xport != MD_XPORT_SIGNAL) {
        md_publish_x(m->peer_sig_x, seq);
    } else if (m->send_size == 0) {
        nvshmemx_signal_op(&sig->x[n->slot], seq, NVSHMEM_SIGNAL_SET, m->send_rank);
    } else {
        md_put_staged_x(x, m->remote_offset, m->xstage, m->send_size, &sig->x[n->slot], seq,
                        NVSHMEM_SIGNAL_SET, m->send_rank);
        md_quiet_x();
    }
}

/* Step 4 (block 0's thread 0): the ghosts from the neighbour at code have arrived:
 * acquire-waits for its signal of this exchange. */
DEVICE void md_d26_recv_ghosts(const md_d26_nbr *n, md_d26_sig *sig, uint64_t seq)
{
    if (md_bug(MD_BUG_D26_GHOST_WAIT_RELAXED)) {
        while (ld_relaxed(&sig->x[n->code], SCOPE_SYS) != seq) {
        }
    } else if (md_bug(MD_BUG_D26_GHOST_SEQ_BEHIND)) {
        md_wait_seq(&sig->x[n->code], seq - 1);
    } else {
        md_wait_seq(&sig->x[n->code], seq);
    }
}

/* The acknowledgement (after every kernel that reads the ghosts, by stream order): the
 * neighbour may overwrite the ghosts it sent us. Direct, a system-scope release store of
 * its ack[slot] (the release covers our reads: its acquire orders its next stores after
 * them); staged, a signal operation, which releases the same way. */
DEVICE void md_d26_send_ack(const md_d26_nbr *n, md_d26_sig *sig, uint64_t seq)
{
    if (n->peer_ack && md_bug(MD_BUG_D26_ACK_RELAXED))
        st_relaxed(n->peer_ack, seq, SCOPE_SYS);
    else if (n->peer_ack)
        st_release(n->peer_ack, seq, SCOPE_SYS);
    else
        nvshmemx_signal_op(&sig->ack[n->slot], seq, NVSHMEM_SIGNAL_SET, n->m.send_rank);
}

/* ---- the kernels ----------------------------------------------------------------------- */

KERNEL(md_d26_pack_comm_x, md_d26_args, a)
{
    const int k = (int)blockIdx.y;
    const md_d26_nbr *n = &a.nbr[k];
    const int nb = (int)gridDim.x, b = (int)blockIdx.x;
    md_tstamp_begin(a.ts);
    if (threadIdx.x == 0)
        md_d26_wait_ack(n, a.sig, a.ack_seq);
    __syncthreads();
    int32_t lo, hi;
    md_split(n->m.send_size, b, nb, &lo, &hi);
    md_pack_x(&n->m, a.x, lo, hi);
    md_block_packed();
    if (threadIdx.x == 0) {
        if (md_elect_last(&a.sig->cnt[n->code], nb))
            md_d26_notify_x(n, a.x, a.sig, a.seq);
        if (b == 0)
            md_d26_recv_ghosts(n, a.sig, a.seq);
    }
    md_tstamp_end(a.ts); /* block 0's includes the wait for the incoming ghosts */
}

KERNEL(md_d26_ack, md_d26_args, a)
{
    const md_d26_nbr *n = &a.nbr[blockIdx.y];
    md_tstamp_begin(a.ts);
    if (threadIdx.x == 0)
        md_d26_send_ack(n, a.sig, a.seq);
    md_tstamp_end(a.ts);
}

KERNEL(md_d26_add_f, md_d26_add_args, a)
{
    int32_t lo, hi;
    md_split(a.n, (int)blockIdx.x, (int)gridDim.x, &lo, &hi);
    for (int d = 0; d < 3; d++)
        for (int32_t i = lo + (int32_t)threadIdx.x; i < hi; i += (int32_t)blockDim.x)
            a.fnl[d][i] += a.fadd[d][i];
}
