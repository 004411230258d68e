/*
 * kernels/halo_direct26.c: the direct ghost exchange's kernels (--halo direct26; HOOMD-blue,
 * Glaser et al. 2015 §4.3, docs/papers.md; the words and the table: halo_direct26.h).
 *
 * md_d26_pack_comm_x, grid nb x nnbr, one phase, no forwarding. Block (b, k):
 *   1. thread 0 acquire-waits for ack[code] == ack_seq: the neighbour has finished the
 *      force kernels that read the ghosts we sent it last time, so its slots (and its x
 *      word) are free; block barrier;
 *   2. packs its share of the neighbour's index map with the direction's periodic shift,
 *      through the pulse transports' pack (halo_dev.h md_pack_x: straight into the
 *      neighbour's slots, or into our staging buffer);
 *   3. block barrier; thread 0 takes part in the last-block election; the last block
 *      notifies: a system-scope release store of the neighbour's x[slot] (direct) or the
 *      staged data put with the signal (then quiet);
 *   4. block 0 acquire-waits for x[code] == seq: the ghosts from that neighbour are here.
 *      The kernel's end therefore means every ghost slot holds this step's coordinates.
 * md_d26_ack, grid 1 x nnbr, one thread each, after the force kernels that read the ghosts
 * (stream order): ack[slot] of the neighbour := seq_f. One-sided stores need this back
 * pressure; the staged exchange gets it from its force return, which direct26 has not.
 * md_d26_add_f: adds the forces of the second half of the home-ghost pairs (par_direct26.c).
 */
#include "halo_dev.h"
#include "halo_direct26.h"

/* Put-with-signal of a staged send: the three component ranges into the neighbour's slots,
 * the last one with the signal (the fence orders the first two before it), then quiet so
 * the staging buffer is reusable. xport_signal.h's notify addresses the pulse signal words
 * (md_dsig.sig_x[p], six of them); this is the same protocol on md_d26_sig.x[slot]. */
DEVICE void md_d26_signal_notify_x(const md_d26_nbr *n, int64_t *const x[3], md_d26_sig *sig,
                                   uint64_t seq)
{
    const md_dpulse *m = &n->m;
    const size_t bytes = (size_t)m->send_size * sizeof(int64_t);
    if (bytes == 0) {
        nvshmemx_signal_op(&sig->x[n->slot], seq, NVSHMEM_SIGNAL_SET, m->send_rank);
        return;
    }
    nvshmem_putmem_nbi(x[0] + m->remote_offset, m->xstage, bytes, m->send_rank);
    nvshmem_putmem_nbi(x[1] + m->remote_offset, m->xstage + m->send_size, bytes,
                       m->send_rank);
    nvshmem_fence();
    nvshmem_putmem_signal_nbi(x[2] + m->remote_offset, m->xstage + 2 * (int64_t)m->send_size,
                              bytes, &sig->x[n->slot], seq, NVSHMEM_SIGNAL_SET, m->send_rank);
    nvshmem_quiet();
}

KERNEL(md_d26_pack_comm_x, md_d26_args, a)
{
    const int k = (int)blockIdx.y;
    const md_d26_nbr *n = &a.nbr[k];
    const int nb = (int)gridDim.x, b = (int)blockIdx.x;
    md_tstamp_begin(a.ts);
    if (threadIdx.x == 0)
        md_wait_seq(&a.sig->ack[n->code], a.ack_seq);
    __syncthreads();
    int32_t lo, hi;
    md_split(n->m.send_size, b, nb, &lo, &hi);
    md_pack_x(&n->m, a.x, lo, hi);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (md_elect_last(&a.sig->cnt[n->code], nb)) {
            if (n->m.xport == MD_XPORT_SIGNAL)
                md_d26_signal_notify_x(n, a.x, a.sig, a.seq);
            else
                st_release(n->m.peer_sig_x, a.seq, SCOPE_SYS);
        }
        if (b == 0)
            md_wait_seq(&a.sig->x[n->code], a.seq);
    }
    md_tstamp_end(a.ts); /* block 0's includes the wait for the incoming ghosts */
}

KERNEL(md_d26_ack, md_d26_args, a)
{
    const md_d26_nbr *n = &a.nbr[blockIdx.y];
    md_tstamp_begin(a.ts);
    if (threadIdx.x == 0) {
        if (n->peer_ack)
            st_release(n->peer_ack, a.seq, SCOPE_SYS);
        else
            nvshmemx_signal_op(&a.sig->ack[n->slot], a.seq, NVSHMEM_SIGNAL_SET,
                               n->m.send_rank);
    }
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
