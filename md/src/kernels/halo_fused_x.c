/*
 * kernels/halo_fused_x.c: FusedPackCommX (paper 000 in docs/papers.md, Alg. 3 with Alg. 4 and 5):
 * the whole coordinate halo of one step in one kernel.
 *
 * Grid: gridDim.x blocks per pulse, gridDim.y = the pulses, so every pulse runs at once.
 * Block (b, p):
 *   1. packs its share of the independent entries index_map[0, n_indep) (home atoms) at
 *      once, into the peer's halo slots (direct) or our staging buffer (put-signal);
 *   2. thread 0 acquire-waits for the signals of the earlier pulses whose atoms the rest of
 *      the map forwards (dep_mask), then the block barrier passes that on to the block;
 *   3. packs its share of the dependent entries [n_indep, send_size);
 *   4. block barrier; thread 0 takes part in the last-block election (acq_rel increment);
 *      the last block of the pulse notifies send_rank: a system-scope release store of its
 *      signal word (direct) or put-with-signal of the staged data (then quiet);
 *   5. block 0 of the pulse then acquire-waits for the pulse's incoming coordinates (from
 *      recv_rank, which land in place in our halo slots), so that the kernel's completion
 *      means the whole halo is here: the non-local force kernel follows in stream order.
 */
#include "halo_dev.h"

KERNEL(md_fused_pack_comm_x, md_halo_args, a)
{
    const int p = (int)blockIdx.y;
    const md_dpulse *m = &a.pulses[p];
    const int nb = (int)gridDim.x, b = (int)blockIdx.x;
    md_tstamp_begin(a.ts);
    int32_t lo, hi;
    md_split(m->n_indep, b, nb, &lo, &hi); /* 1. the independent entries (home atoms) */
    md_pack_x(m, a.x, lo, hi);
    if (m->dep_mask != 0) { /* 2-3. the forwarded atoms, once their pulses arrived */
        if (threadIdx.x == 0)
            md_dep_wait(m, a.sig, p, a.seq);
        md_share_dep_wait();
        md_split(m->send_size - m->n_indep, b, nb, &lo, &hi);
        md_pack_x(m, a.x, m->n_indep + lo, m->n_indep + hi);
    }
    md_block_packed(); /* 4. the last block of the pulse notifies send_rank */
    if (threadIdx.x == 0) {
        if (md_elect_last(&a.sig->cnt_x[p], nb))
            md_notify_x(m, a.x, a.sig, p, a.seq, NVSHMEM_SIGNAL_SET);
        if (b == 0) /* 5. the pulse's incoming coordinates */
            md_recv_x(a.sig, p, a.seq);
    }
    md_tstamp_end(a.ts); /* block 0's includes the wait for the incoming pulse */
}
