/*
 * par_pulse.c: the pulse-by-pulse halo variant (--halo pulse; the baseline of paper 000
 * §5.1, docs/papers.md): per coordinate pulse, in pulse order, a pack kernel, a one-thread
 * transfer kernel with its signal and a one-thread receive kernel (kernels/halo_pulse.c);
 * per force pulse, in reverse order, a transfer kernel and an unpack kernel. All on one
 * stream: stream order carries every dependency between pulses.
 */
#include "cuda_check.h"
#include "par_int.h"

static void pulse_x(md_par_pe *c, cudaStream_t s)
{
    const int np = c->grid.total_pulses;
    if (np == 0)
        return;
    md_halo_args a = md_par_halo_args(c, md_par_next_seq_x(c), MD_TR_HALO_X);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    for (int p = 0; p < np; p++) { /* pulse order: z, y, x (or the --dim-order) */
        a.pulse = p;
        LAUNCH(md_pulse_pack_x, DIM3(nb, 1, 1), DIM3(nt, 1, 1), 0, s, a);
        LAUNCH(md_pulse_comm_x, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, s, a);
        LAUNCH(md_pulse_recv_x, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, s, a);
    }
    MD_CUDA(cudaGetLastError()); /* the launches */
}

static void pulse_f(md_par_pe *c, cudaStream_t s)
{
    const int np = c->grid.total_pulses;
    if (np == 0)
        return;
    md_halo_args a = md_par_halo_args(c, ++c->seq_f, MD_TR_HALO_F);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    for (int p = np - 1; p >= 0; p--) { /* reverse pulse order */
        a.pulse = p;
        LAUNCH(md_pulse_comm_f, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, s, a);
        LAUNCH(md_pulse_unpack_f, DIM3(nb, 1, 1), DIM3(nt, 1, 1), 0, s, a);
    }
    MD_CUDA(cudaGetLastError()); /* the launches */
}

const md_halo_ops md_halo_pulse = {"pulse", true, pulse_x, pulse_f, md_par_pulse_search, NULL, NULL,
                                    md_par_pulse_traffic};
