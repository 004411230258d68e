/*
 * par_host.c: the CPU-initiated baseline halo (--halo host; docs/papers.md: paper 000 Fig. 1, the
 * "MPI-style" schedule that GROMACS runs without GPU-initiated communication).
 *
 * Per coordinate pulse, in pulse order: a pack kernel on the non-local stream
 * (md_pulse_pack_x: into the peer's halo slots through nvshmem_ptr on the direct path, into
 * the staging buffer on the put path); the host waits for the stream; on the put path the
 * host puts the three components into send_rank's halo slots (nvshmem_putmem), then
 * nvshmem_quiet and nvshmem_barrier_all: when the barrier returns, every PE's pulse p has
 * landed everywhere, as after MPI_Sendrecv. Per force pulse, in reverse order: the host
 * waits for the non-local stream (the non-local kernel and the later pulses' unpacks have
 * written our halo slots' forces), puts them into recv_rank's fbuf (put path), quiet,
 * barrier, then an unpack kernel (md_host_unpack_f: no signal wait, the barrier ordered it).
 *
 * Why no signal words and no sequence numbers: each exchange is bracketed by host waits and
 * a barrier of all PEs, so a buffer is never written while its reader may still read it.
 * A PE packs step n + 1 only after waiting for its non-local stream, which holds its unpack
 * of step n (reading the peer's halo forces, or its own fbuf), and the peer writes those
 * again only after the barrier of step n + 1's first pulse, which this PE enters after that
 * wait. The local stream's force kernel runs on meanwhile (the host waits for the
 * non-local stream only). Search steps use the set-up exchange, as the other variants do.
 * The bits equal the fused and pulse variants': the same pack and unpack device code.
 */
#include "cuda_check.h"
#include "par_int.h"
#include "shmemu/pgas.h"

/* The pulse's exchange is complete on every PE once this returns. */
static void host_exchange_done(void)
{
    nvshmem_quiet();
    nvshmem_barrier_all();
}

/* The host waits for the non-local stream s (the halos' stream). */
static void host_x(md_par_pe *c, cudaStream_t s)
{
    const int np = c->grid.total_pulses;
    md_halo_args a = md_par_halo_args(c, 0, MD_TR_HALO_X);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    for (int p = 0; p < np; p++) { /* pulse order: z, y, x (or the --dim-order) */
        const md_dpulse *m = &c->hdp[p];
        a.pulse = p;
        LAUNCH(md_pulse_pack_x, DIM3(nb, 1, 1), DIM3(nt, 1, 1), 0, s, a);
        MD_CUDA(cudaGetLastError()); /* the launch */
        MD_CUDA(cudaStreamSynchronize(s));
        const size_t bytes = (size_t)m->send_size * sizeof(int64_t);
        if (m->xport == MD_XPORT_SIGNAL && bytes > 0) /* else the pack stored into the peer */
            for (int d = 0; d < 3; d++)
                nvshmem_putmem(md_par_x(c, d) + m->remote_offset,
                               m->xstage + (int64_t)d * m->send_size, bytes, m->send_rank);
        host_exchange_done();
    }
}

/* On the non-local stream whatever s is: the host waits for the non-local kernel's forces
 * (par.c's planted f-sent-before-nonlocal moves the device variants' s only). */
static void host_f(md_par_pe *c, cudaStream_t s)
{
    (void)s;
    const int np = c->grid.total_pulses;
    md_halo_args a = md_par_halo_args(c, 0, MD_TR_HALO_F);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    for (int p = np - 1; p >= 0; p--) { /* reverse pulse order */
        const md_dpulse *m = &c->hdp[p];
        a.pulse = p;
        MD_CUDA(cudaStreamSynchronize(c->s_nl));
        const int32_t n = m->recv_size; /* the owner's send_size for this pulse */
        const size_t bytes = (size_t)n * sizeof(int64_t);
        if (m->xport == MD_XPORT_SIGNAL && bytes > 0) /* else the owner reads our slots */
            for (int d = 0; d < 3; d++)
                nvshmem_putmem(m->fbuf + (int64_t)d * n, md_par_f(c, d) + m->atom_offset, bytes,
                               m->recv_rank);
        host_exchange_done();
        LAUNCH(md_host_unpack_f, DIM3(nb, 1, 1), DIM3(nt, 1, 1), 0, c->s_nl, a);
        MD_CUDA(cudaGetLastError()); /* the launch */
    }
}

/* A step with host waits inside cannot be a CUDA graph. */
const md_halo_ops md_halo_host = {"host", false, host_x, host_f, md_par_pulse_search, NULL, NULL,
                                   md_par_host_traffic};
