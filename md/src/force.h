/*
 * force.h: the non-bonded kernel of the CPU path: LJ forces over one pair list.
 *
 * Inputs are positions converted exactly to double (md_positions_to_double); outputs are
 * integer forces, energies and virials (md.h). Each listed pair inside rc adds
 * +round(d·F/r) to atom i and -round(d·F/r) to atom j, per component, so the result does
 * not depend on the order of the pairs, on how they are split between lists and PEs, or on
 * which of the two atoms is i. This is the function a GPU kernel reproduces per pair.
 */
#ifndef MD_FORCE_H
#define MD_FORCE_H

#include <stdbool.h>
#include <stdint.h>

#include "fixed.h"
#include "lj.h"
#include "pairlist.h"

typedef struct md_force_acc {
    int64_t epot;      /* potential energy, energy units (energy steps only) */
    int64_t virial;    /* Σ r·F, energy units (energy steps only) */
    int64_t in_cut;    /* pairs inside rc */
    int64_t too_close; /* pairs closer than MD_R_MIN: skipped, and an error for the caller */
} md_force_acc;

/* One pair inside rc (r2 = |d|², d = x_i - x_j): its force on i in fixed point, fx (atom j
 * gets -fx), and when energy its energy and virial added to *epot and *virial. Every force
 * path (the CPU loop, the GPU's thread kernel) computes a pair with this, so all give the
 * same bits. */
MD_HD static inline void md_pair_force_fx(double dx, double dy, double dz, double r2,
                                          double shift_e, bool energy, int64_t fx[3],
                                          int64_t *epot, int64_t *virial)
{
    double fr;
    if (energy) {
        double v;
        fr = md_lj_pair(r2, shift_e, &v);
        *epot += md_lj_energy_fx(v);
        *virial += md_lj_virial_fx(r2, fr);
    } else {
        fr = md_lj_fr(r2);
    }
    fx[0] = md_round_i64(dx * fr);
    fx[1] = md_round_i64(dy * fr);
    fx[2] = md_round_i64(dz * fr);
}

/* xd[d][k] = x[d][k] · 2^-32 for atoms [0, n): exact. */
void md_positions_to_double(const md_atoms *a, int32_t n, double *const xd[3]);

/* Adds the forces of every pair of pl to f, and (when energy) the energies and virials to
 * acc. Counts pairs inside rc and pairs too close. Host and device code (MD_HD): the GPU
 * build's force kernel runs this very loop. */
MD_HD void md_force_pairs(const md_pairlist *pl, const double *const xd[3],
                          int64_t *const f[3], const md_lj *lj, bool energy, md_force_acc *acc);

#endif
