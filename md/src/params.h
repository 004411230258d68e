/*
 * params.h: the limits of the run parameters and of the lattice start, checked in one place
 * for every driver (the serial one, the parallel ones, and a restart on either).
 *
 * Each limit comes from something real, explained in params.c: the fixed-point formats of
 * shmemu/md.h (box, momentum), the closest approach the force kernel accepts (MD_R_MIN,
 * lj.h), the minimum-image box, and the stability of velocity Verlet. Each error names the
 * option, the value, the limit and what to give instead.
 */
#ifndef MD_PARAMS_H
#define MD_PARAMS_H

#include "shmemu/md.h"

#include "fixed.h"

/* Largest momentum component a run may hold, momentum units (fixed.h: MD_MOMENTUM_MAX). */
#define MD_PARAMS_P_MAX ((double)MD_MOMENTUM_MAX)

/* Checks par (rc, skin, nstlist, dt, steps, thermo). With sys (may be NULL) it also checks
 * what depends on the system: the box against 2 (rc + skin), the time step against the
 * lightest mass (Verlet stability) and against the momenta the state holds (fixed-point
 * range at the run's dt). Returns 0, or -1 with a message. */
int md_params_check(const md_params *par, const md_system *sys, md_error *err);

/* Checks the fcc lattice start: cells, density (nearest neighbours no closer than
 * MD_R_MIN) and temperature (thermal collisions no closer than MD_R_MIN; momenta within
 * MD_PARAMS_P_MAX at time step dt). Returns 0, or -1 with a message. */
int md_lattice_check(const md_lattice *lat, double dt, md_error *err);

#endif
