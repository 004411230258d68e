/*
 * kernels/nonbonded.c: the Local and Non-Local Non-bonded F kernels of paper 000's Alg. 2
 * (docs/papers.md): LJ forces over one pair list with the exact per-pair code of force.c
 * (md_force_pairs), split over the blocks of a cooperative launch (one thread each: the pair loop
 * is the CPU kernel).
 *
 *   phase 1: block b converts its share of the positions to σ (exact);   grid sync
 *   phase 2: block b computes i-entries [lo, hi) into its own scratch forces (f itself
 *            when there is one block);                                   grid sync
 *   phase 3: block b writes f[i] = Σ_blocks scratch[i] for its share of [0, n_out).
 * Every sum is an integer sum, so the bits do not depend on the number of blocks. The
 * output is written, not accumulated: no separate clearing kernel is needed.
 */
#include "halo_dev.h"

KERNEL(md_nonbonded, md_force_args, a)
{
    const int G = (int)gridDim.x, b = (int)blockIdx.x;
    md_tstamp_begin(a.ts);
    int32_t lo, hi;
    md_split(a.n_conv, b, G, &lo, &hi);
    for (int d = 0; d < 3; d++)
        for (int32_t i = lo; i < hi; i++)
            a.xd[d][i] = md_pos_to_double(a.x[d][i]);
    int64_t *out[3];
    for (int d = 0; d < 3; d++)
        out[d] = G == 1 ? a.f[d] : a.scratch + ((int64_t)b * 3 + d) * a.n_conv;
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < a.n_conv; i++)
            out[d][i] = 0;
    grid_sync();
    md_pairlist part = *a.list;
    int64_t e0 = (part.nent * b) / G, e1 = (part.nent * (b + 1)) / G;
    part.ent = a.list->ent + e0;
    part.nent = e1 - e0;
    md_force_acc acc;
    acc.epot = acc.virial = acc.in_cut = acc.too_close = 0;
    const double *xd[3] = {a.xd[0], a.xd[1], a.xd[2]};
    md_force_pairs(&part, xd, out, a.lj, a.energy != 0, &acc);
    a.acc[b] = acc;
    if (G == 1) {
        md_tstamp_end(a.ts);
        return;
    }
    grid_sync();
    md_split(a.n_out, b, G, &lo, &hi);
    for (int d = 0; d < 3; d++)
        for (int32_t i = lo; i < hi; i++) {
            int64_t s = 0;
            for (int k = 0; k < G; k++)
                s += a.scratch[((int64_t)k * 3 + d) * a.n_conv + i];
            a.f[d][i] = s;
        }
    md_tstamp_end(a.ts);
}
