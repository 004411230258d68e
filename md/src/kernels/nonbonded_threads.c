/*
 * kernels/nonbonded_threads.c: the Local and Non-Local Non-bonded F kernels in the form a
 * GPU runs fast: one thread per i-entry of the pair list, as many blocks as the list needs
 * (the CPU build keeps nonbonded.c's pair loop on a few one-thread blocks: the emulator's
 * blocks are pthreads and its threads fibers, so that is what is fast there).
 *
 *   md_nonbonded_prep    threads stride over [0, n_conv): positions to σ (exact), output
 *                        forces cleared; the list's counters cleared
 *   md_nonbonded_entries thread t takes i-entries t, t + T, ... (T = all threads): each
 *                        pair of the entry exactly as force.c computes it (the same
 *                        md_r2, cut-off test, md_lj_pair / md_lj_fr and md_round_i64, in
 *                        the same order), the force on i summed in registers, -f added to
 *                        j with an integer atomic; per entry one atomic add to i. Counters
 *                        and energies: a warp sum, then one atomic per warp.
 *
 * Bits: a pair's three integers do not depend on who computes them, and every sum is an
 * integer sum, so the result equals the pair loop's for any geometry (forces, energies,
 * virial, pair counts alike). Stream order puts prep before entries.
 */
#include "halo_dev.h"

KERNEL(md_nonbonded_prep, md_force_args, a)
{
    const int32_t stride = (int32_t)(gridDim.x * blockDim.x);
    const int32_t t0 = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    md_tstamp_begin(a.ts);
    for (int d = 0; d < 3; d++)
        for (int32_t i = t0; i < a.n_conv; i += stride) {
            a.xd[d][i] = md_pos_to_double(a.x[d][i]);
            a.f[d][i] = 0;
        }
    for (int k = t0; k < a.nacc; k += stride) {
        a.acc[k].epot = a.acc[k].virial = 0;
        a.acc[k].in_cut = a.acc[k].too_close = 0;
    }
    md_tstamp_end(a.ts);
}

/* Sum of v over the warp, in lane 0 (every lane of the warp calls it). */
DEVICE int64_t md_warp_sum(int64_t v)
{
    for (int off = warpSize / 2; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

KERNEL(md_nonbonded_entries, md_force_args, a)
{
    md_tstamp_begin(a.ts);
    const md_pairlist *pl = a.list;
    const double *const x0 = a.xd[0], *const x1 = a.xd[1], *const x2 = a.xd[2];
    int64_t *const f0 = a.f[0], *const f1 = a.f[1], *const f2 = a.f[2];
    const double rc2 = a.lj->rc2, shift_e = a.lj->shift;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t in_cut = 0, too_close = 0, epot = 0, virial = 0;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < pl->nent;
         e += stride) {
        const md_ientry ent = pl->ent[e];
        const int32_t i = ent.i;
        const double xi = x0[i] + pl->shift[ent.shift][0];
        const double yi = x1[i] + pl->shift[ent.shift][1];
        const double zi = x2[i] + pl->shift[ent.shift][2];
        int64_t fxi = 0, fyi = 0, fzi = 0;
        for (int64_t k = ent.begin; k < ent.end; k++) {
            const int32_t j = pl->j[k];
            const double dx = xi - x0[j];
            const double dy = yi - x1[j];
            const double dz = zi - x2[j];
            const double r2 = md_r2(dx, dy, dz);
            if (!(r2 < rc2))
                continue;
            if (r2 < MD_R2_MIN) { /* refused: the host reports it */
                too_close++;
                continue;
            }
            in_cut++;
            int64_t fx[3];
            md_pair_force_fx(dx, dy, dz, r2, shift_e, a.energy, fx, &epot, &virial);
            fxi += fx[0];
            fyi += fx[1];
            fzi += fx[2];
            atom_add(&f0[j], -fx[0], SCOPE_GPU, ORDER_RELAXED);
            atom_add(&f1[j], -fx[1], SCOPE_GPU, ORDER_RELAXED);
            atom_add(&f2[j], -fx[2], SCOPE_GPU, ORDER_RELAXED);
        }
        atom_add(&f0[i], fxi, SCOPE_GPU, ORDER_RELAXED);
        atom_add(&f1[i], fyi, SCOPE_GPU, ORDER_RELAXED);
        atom_add(&f2[i], fzi, SCOPE_GPU, ORDER_RELAXED);
    }
    /* Every lane reaches this point (the loop above has no early return). */
    in_cut = md_warp_sum(in_cut);
    too_close = md_warp_sum(too_close);
    if (a.energy) {
        epot = md_warp_sum(epot);
        virial = md_warp_sum(virial);
    }
    if (threadIdx.x % warpSize == 0) {
        atom_add(&a.acc[0].in_cut, in_cut, SCOPE_GPU, ORDER_RELAXED);
        atom_add(&a.acc[0].too_close, too_close, SCOPE_GPU, ORDER_RELAXED);
        if (a.energy) {
            atom_add(&a.acc[0].epot, epot, SCOPE_GPU, ORDER_RELAXED);
            atom_add(&a.acc[0].virial, virial, SCOPE_GPU, ORDER_RELAXED);
        }
    }
    md_tstamp_end(a.ts);
}
