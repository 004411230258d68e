/*
 * force.c: the CPU non-bonded kernel. Structure of arrays, one i-entry at a time: x_i (plus
 * the entry's periodic shift) and the force on i stay in registers while j runs over a
 * cell-sorted, ascending index range.
 *
 * Speed without changing a bit: about 30% of listed pairs lie outside rc, at random, so a
 * branch per pair mispredicts often. The j range is taken in chunks of 64: first the
 * distances, keeping the pairs inside rc by branch-free compaction, then the forces of the
 * kept pairs only (no wasted divisions), then the integer scatter. Every pair's arithmetic
 * is md_pair_force_fx (force.h), as on every other path. (About 1.9x the
 * branchy loop's pair rate on the development machine.)
 */
#include "force.h"

#include "fixed.h"

void md_positions_to_double(const md_atoms *a, int32_t n, double *const xd[3])
{
    for (int d = 0; d < 3; d++) {
        const int64_t *x = a->x[d];
        double *o = xd[d];
        for (int32_t k = 0; k < n; k++)
            o[k] = md_pos_to_double(x[k]);
    }
}

MD_HD static inline void force_loop(const md_pairlist *pl, const double *const xd[3],
                              int64_t *const f[3], const md_lj *lj, const bool energy,
                              md_force_acc *acc)
{
    const double *const x0 = xd[0], *const x1 = xd[1], *const x2 = xd[2];
    int64_t *const f0 = f[0], *const f1 = f[1], *const f2 = f[2];
    const double rc2 = lj->rc2, shift_e = lj->shift;
    const int32_t *const jl = pl->j;
    int64_t in_cut = 0, too_close = 0, epot = 0, virial = 0;
    enum { CHUNK = 64 };
    double cdx[CHUNK], cdy[CHUNK], cdz[CHUNK], cr2[CHUNK];
    int32_t cj[CHUNK];
    for (int64_t e = 0; e < pl->nent; e++) {
        const md_ientry ent = pl->ent[e];
        const int32_t i = ent.i;
        const double xi = x0[i] + pl->shift[ent.shift][0];
        const double yi = x1[i] + pl->shift[ent.shift][1];
        const double zi = x2[i] + pl->shift[ent.shift][2];
        int64_t fxi = 0, fyi = 0, fzi = 0;
        for (int64_t k0 = ent.begin; k0 < ent.end; k0 += CHUNK) {
            const int n = (int)(ent.end - k0 < CHUNK ? ent.end - k0 : CHUNK);
            const int32_t *js = jl + k0;
            /* 1. distances; keep the pairs inside rc (branch-free compaction) */
            int m = 0;
            for (int k = 0; k < n; k++) {
                const int32_t j = js[k];
                const double dx = xi - x0[j];
                const double dy = yi - x1[j];
                const double dz = zi - x2[j];
                const double r2 = md_r2(dx, dy, dz);
                cdx[m] = dx;
                cdy[m] = dy;
                cdz[m] = dz;
                cr2[m] = r2;
                cj[m] = j;
                m += r2 < rc2;
            }
            in_cut += m;
            /* 2. forces of the kept pairs */
            for (int k = 0; k < m; k++) {
                const double r2 = cr2[k];
                if (r2 < MD_R2_MIN) { /* refused: the caller reports it */
                    too_close++;
                    in_cut--;
                    continue;
                }
                int64_t fx[3];
                md_pair_force_fx(cdx[k], cdy[k], cdz[k], r2, shift_e, energy, fx, &epot,
                                 &virial);
                const int32_t j = cj[k];
                fxi += fx[0];
                fyi += fx[1];
                fzi += fx[2];
                f0[j] -= fx[0];
                f1[j] -= fx[1];
                f2[j] -= fx[2];
            }
        }
        f0[i] += fxi;
        f1[i] += fyi;
        f2[i] += fzi;
    }
    acc->in_cut += in_cut;
    acc->too_close += too_close;
    acc->epot += epot;
    acc->virial += virial;
}

MD_HD void md_force_pairs(const md_pairlist *pl, const double *const xd[3],
                          int64_t *const f[3], const md_lj *lj, bool energy, md_force_acc *acc)
{
    if (energy)
        force_loop(pl, xd, f, lj, true, acc);
    else
        force_loop(pl, xd, f, lj, false, acc);
}
