/*
 * lj.h: the Lennard-Jones 12-6 pair interaction, one function for every caller.
 *
 * Every path that computes a pair force (the CPU kernel, the brute-force oracle, and later
 * the emulated and real GPU kernels) calls md_lj_fr / md_lj_pair below, so the same IEEE
 * operations run in the same order everywhere: one correctly rounded division, then
 * multiplications and subtractions, no libm, no FMA (the build uses -ffp-contract=off,
 * nvcc -fmad=false). Reduced units, σ = ε = 1:
 *
 *   V(r)   = 4 (r^-12 - r^-6) - shift           (shift = V_plain(rc) or 0)
 *   F(r)/r = (48 r^-12 - 24 r^-6) / r^2         (the force on i is F/r · (x_i - x_j))
 *
 * The force on a pair is turned into integers once, per component, by the caller:
 * f = md_round_i64(d · fr) with fr = md_lj_fr(r2) already scaled by 2^MD_FORCE_BITS (an
 * exact power-of-two scaling), then +f goes to atom i and -f to atom j. Swapping i and j
 * negates d, and IEEE multiplication and ties-to-even rounding are odd functions, so the
 * pair gives the same integers whichever PE or which orientation computes it.
 *
 * The cut-off test r2 < rc2 is made on the same r2 everywhere. Pairs closer than MD_R_MIN
 * are refused (counted): there the force no longer fits the fixed-point range, and a
 * liquid never gets there unless the input or the time step is broken.
 */
#ifndef MD_LJ_H
#define MD_LJ_H

#include <stdbool.h>

#include "fixed.h"

#define MD_R_MIN 0.5          /* σ: the closest approach accepted */
#define MD_R2_MIN 0.25        /* MD_R_MIN^2 */

typedef struct md_lj {
    double rc;     /* cut-off, σ */
    double rc2;    /* rc·rc: a pair interacts when r2 < rc2 */
    double rlist;  /* rc + skin, σ */
    double rlist2; /* rlist·rlist: a pair is listed when r2 < rlist2 at a search step */
    double shift;  /* energy shift, ε: V_plain(rc) when shifting, else 0 */
} md_lj;

/* Fills lj for a cut-off, a skin and the shift option. */
void md_lj_init(md_lj *lj, double rc, double skin, bool shift);

/* Squared distance from a displacement, in a fixed order. */
MD_HD static inline double md_r2(double dx, double dy, double dz)
{
    double r2 = dx * dx + dy * dy;
    return r2 + dz * dz;
}

/* F(r)/r, in force units per σ of displacement (scaled by 2^MD_FORCE_BITS). */
MD_HD static inline double md_lj_fr(double r2)
{
    double ir2 = 1.0 / r2;
    double ir6 = ir2 * ir2 * ir2;
    double fr = ir6 * (48.0 * ir6 - 24.0) * ir2;
    return fr * MD_FORCE_SCALE;
}

/* Both F(r)/r (as md_lj_fr, bit for bit) and V(r) in ε. */
MD_HD static inline double md_lj_pair(double r2, double shift, double *energy)
{
    double ir2 = 1.0 / r2;
    double ir6 = ir2 * ir2 * ir2;
    double fr = ir6 * (48.0 * ir6 - 24.0) * ir2;
    *energy = 4.0 * ir6 * (ir6 - 1.0) - shift;
    return fr * MD_FORCE_SCALE;
}

/* Energy and virial of a pair in energy units; virial = r·F = r2 · F/r. */
MD_HD static inline int64_t md_lj_energy_fx(double energy) { return md_round_i64(energy * MD_ENERGY_SCALE); }
MD_HD static inline int64_t md_lj_virial_fx(double r2, double fr_scaled)
{
    /* fr_scaled carries 2^MD_FORCE_BITS = 2^MD_ENERGY_BITS: r2 · fr is r·F in energy units */
    return md_round_i64(r2 * fr_scaled);
}

#endif
