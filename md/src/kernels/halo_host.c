/*
 * kernels/halo_host.c: the device half of the CPU-initiated baseline (docs/papers.md: paper 000
 * Fig. 1, par_host.c): the host packs with md_pulse_pack_x, waits for it, moves the data and
 * synchronizes the PEs itself, so the force unpack needs no signal wait: by its launch the
 * returned forces are in place (fbuf) or readable in the peer (direct).
 */
#include "halo_dev.h"

/* Grid nb x 1: adds the returned forces of pulse a.pulse's index map (no wait). */
KERNEL(md_host_unpack_f, md_halo_args, a)
{
    const md_dpulse *m = &a.pulses[a.pulse];
    md_tstamp_begin(a.ts);
    int32_t lo, hi;
    md_split(m->send_size, (int)blockIdx.x, (int)gridDim.x, &lo, &hi);
    md_unpack_f(m, a.f, lo, hi);
    md_tstamp_end(a.ts);
}
