/*
 * par_fused.c: the fused halo variant (--halo fused, the default; paper 000 Alg. 3-6,
 * docs/papers.md): the whole coordinate halo of a step in one kernel (FusedPackCommX,
 * kernels/halo_fused_x.c) and the whole force halo in one (FusedCommUnpackF,
 * kernels/halo_fused_f.c), every pulse at once, grid halo_blocks x pulses. The kernels order
 * the pulses among themselves with signals and election counters; each exchange is
 * numbered (seq_x, seq_f: halo.h), so the signals need no reset.
 */
#include "cuda_check.h"
#include "par_int.h"

static void fused_x(md_par_pe *c, cudaStream_t s)
{
    const int np = c->grid.total_pulses;
    if (np == 0)
        return;
    md_halo_args a = md_par_halo_args(c, md_par_next_seq_x(c), MD_TR_HALO_X);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    LAUNCH(md_fused_pack_comm_x, DIM3(nb, np, 1), DIM3(nt, 1, 1), 0, s, a);
    MD_CUDA(cudaGetLastError()); /* the launch */
}

static void fused_f(md_par_pe *c, cudaStream_t s)
{
    const int np = c->grid.total_pulses;
    if (np == 0)
        return;
    md_halo_args a = md_par_halo_args(c, ++c->seq_f, MD_TR_HALO_F);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    LAUNCH(md_fused_comm_unpack_f, DIM3(nb, np, 1), DIM3(nt, 1, 1), 0, s, a);
    MD_CUDA(cudaGetLastError()); /* the launch */
}

const md_halo_ops md_halo_fused = {"fused", true, fused_x, fused_f, md_par_pulse_search, NULL, NULL,
                                    md_par_pulse_traffic};
