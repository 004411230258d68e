/*
 * kernels/halo_pulse.c: the halo one pulse at a time (the baseline of paper 000 §5.1,
 * docs/papers.md): per pulse a pack kernel, a transfer kernel with its signal, and a receive
 * (coordinates: wait, the data lands in place) or unpack (forces) kernel, all on the non-local
 * stream. Stream order carries every dependency: pulse p + 1 packs after pulse p arrived, and the
 * forces of pulse p go back after the later pulses were unpacked into its forwarded slots.
 * The put path signals with NVSHMEM_SIGNAL_ADD 1 per exchange (halo.h), direct stores seq.
 */
#include "halo_dev.h"

/* Grid nb x 1: block b packs its share of pulse a.pulse's map. */
KERNEL(md_pulse_pack_x, md_halo_args, a)
{
    const md_dpulse *m = &a.pulses[a.pulse];
    md_tstamp_begin(a.ts);
    int32_t lo, hi;
    md_split(m->send_size, (int)blockIdx.x, (int)gridDim.x, &lo, &hi);
    md_pack_x(m, a.x, lo, hi);
    md_tstamp_end(a.ts);
}

/* One thread: the packed coordinates go to send_rank (kernel boundary orders the pack). */
KERNEL(md_pulse_comm_x, md_halo_args, a)
{
    md_tstamp_begin(a.ts);
    md_notify_x(&a.pulses[a.pulse], a.x, a.sig, a.pulse, a.seq, NVSHMEM_SIGNAL_ADD);
    md_tstamp_end(a.ts);
}

/* One thread: our halo slots of the pulse have arrived. */
KERNEL(md_pulse_recv_x, md_halo_args, a)
{
    md_tstamp_begin(a.ts);
    md_recv_x(a.sig, a.pulse, a.seq);
    md_tstamp_end(a.ts);
}

/* One thread: our halo slots' forces of the pulse go back to recv_rank. */
KERNEL(md_pulse_comm_f, md_halo_args, a)
{
    const md_dpulse *m = &a.pulses[a.pulse];
    md_tstamp_begin(a.ts);
    md_return_f(m, a.f, a.sig, a.pulse, a.seq, NVSHMEM_SIGNAL_ADD);
    md_tstamp_end(a.ts);
}

/* Grid nb x 1: wait for the forces of our index_map, add them. */
KERNEL(md_pulse_unpack_f, md_halo_args, a)
{
    const md_dpulse *m = &a.pulses[a.pulse];
    md_tstamp_begin(a.ts);
    md_recv_f(a.sig, a.pulse, a.seq);
    int32_t lo, hi;
    md_split(m->send_size, (int)blockIdx.x, (int)gridDim.x, &lo, &hi);
    md_unpack_f(m, a.f, lo, hi);
    md_tstamp_end(a.ts);
}
