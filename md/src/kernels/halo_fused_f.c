/*
 * kernels/halo_fused_f.c: FusedCommUnpackF (paper 000 in docs/papers.md, Alg. 6 with Alg. 5 in
 * DEP_MGMT mode): the whole force halo of one step in one kernel, pulses in parallel.
 *
 * Grid: gridDim.x blocks per pulse, gridDim.y = the pulses, the last pulse first. Two
 * roles per pulse p on this PE:
 *   sender (block 0, thread 0): our halo slots of pulse p go back to recv_rank. A slot
 *     that we forwarded in a later pulse k (pulse k's index_map holds atoms of pulse p:
 *     bit p of k's dep_mask) collects k's returned forces first, so it waits for done_f[k]
 *     (DEP_MGMT: "a forwarded atom's force slot waits for the later pulses' forces"). The
 *     last pulse depends on nothing and goes at once. Then md_return_f (the pulse's transport,
 *     halo_dev.h: the owner reads our slots after our release store, or a put-with-signal
 *     into its fbuf).
 *   receiver (every block): acquire-wait for sig_f[p] from send_rank, then add the
 *     returned forces of our index_map entries (block's share) with integer atomics (exact
 *     in any order, and pulses share atoms); the last block (release-increment election)
 *     releases done_f[p] = seq for the senders of earlier pulses.
 */
#include "halo_dev.h"

KERNEL(md_fused_comm_unpack_f, md_halo_args, a)
{
    const int p = a.npulse - 1 - (int)blockIdx.y;
    const md_dpulse *m = &a.pulses[p];
    const int nb = (int)gridDim.x, b = (int)blockIdx.x;
    md_tstamp_begin(a.ts);
    if (b == 0 && threadIdx.x == 0) { /* sender */
        md_depmgmt_wait(a.pulses, a.npulse, a.sig, p, a.seq);
        md_return_f(m, a.f, a.sig, p, a.seq, NVSHMEM_SIGNAL_SET);
    }
    md_recv_f(a.sig, p, a.seq); /* receiver */
    int32_t lo, hi;
    md_split(m->send_size, b, nb, &lo, &hi);
    md_unpack_f(m, a.f, lo, hi);
    __syncthreads();
    if (threadIdx.x == 0 && md_elect_last(&a.sig->cnt_f[p], nb))
        st_release(&a.sig->done_f[p], a.seq, SCOPE_GPU);
    md_tstamp_end(a.ts);
}
