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

#include "lj.h"
#include "pairlist.h"

typedef struct md_force_acc {
    int64_t epot;      /* potential energy, energy units (energy steps only) */
    int64_t virial;    /* Σ r·F, energy units (energy steps only) */
    int64_t in_cut;    /* pairs inside rc */
    int64_t too_close; /* pairs closer than MD_R_MIN: skipped, and an error for the caller */
} md_force_acc;

/* xd[d][k] = x[d][k] · 2^-32 for atoms [0, n): exact. */
void md_positions_to_double(const md_atoms *a, int32_t n, double *const xd[3]);

/* Adds the forces of every pair of pl to f, and (when energy) the energies and virials to
 * acc. Counts pairs inside rc and pairs too close. Host and device code (MD_HD): the GPU
 * build's force kernel runs this very loop. */
MD_HD void md_force_pairs(const md_pairlist *pl, const double *const xd[3],
                          int64_t *const f[3], const md_lj *lj, bool energy, md_force_acc *acc);

#endif
