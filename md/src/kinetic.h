/*
 * kinetic.h: exact sums over momenta: total momentum, kinetic energy, and the removal of
 * the total momentum in fixed point.
 *
 * Kinetic energy is Σ p²/2m. With p an integer (md.h), Σ p² over the atoms of one type is an
 * exact 128-bit integer (|p| < 2^50 in any sane run, so each square is below 2^100); the sum
 * is converted to double once per type. So the kinetic energy, and the temperature, are the
 * same for any order of atoms and any split over PEs: PEs add their 128-bit partial sums.
 */
#ifndef MD_KINETIC_H
#define MD_KINETIC_H

#include <stdint.h>

#include "shmemu/md.h"

typedef unsigned __int128 md_u128;

/* Adds Σ p_x² + p_y² + p_z² of atoms [0, n) into psq[type] (ntypes entries). */
void md_kinetic_accumulate(const md_atoms *a, int32_t n, md_u128 *psq);
/* Kinetic energy (ε) from per-type sums. */
double md_kinetic_energy(const md_u128 *psq, const double *mass, int ntypes, double dt);
/* Adds the momentum of atoms [0, n) to sum[3] (wrapping 64-bit sums: exact whenever the
 * true total fits in int64, whatever the partial sums). */
void md_momentum_accumulate(const md_atoms *a, int32_t n, uint64_t sum[3]);
/* Makes the total momentum of atoms [0, n) exactly zero: subtracts each atom's share
 * m_i/M · P (rounded), then spreads the integer remainder over the first atoms, one unit
 * each, in array order. */
void md_momentum_zero(md_atoms *a, int32_t n, const double *mass);
/* Degrees of freedom for a temperature: 3N - 3 (momentum removed), at least 1. */
double md_dof(int64_t natoms);

#endif
