/*
 * params.c: the limits of the run parameters and of the lattice start (params.h), one check
 * that every driver calls (md_sim_create, md_par_run, and bin/shmemu-md before either).
 *
 * Where each limit comes from:
 *   rc      > MD_R_MIN: pairs closer than MD_R_MIN (0.5 σ) are refused by the force kernel
 *           (lj.h), so a cut-off at or below it leaves no pair that could ever interact.
 *   rlist   rc + skin < MD_MAX_BOX_SIGMA / 2: the box edge is at most 2^19 σ (positions stay
 *           exact doubles, shmemu/md.h) and must exceed 2 rlist (below); this also keeps the
 *           halo depth, rlist in position units, far inside int64.
 *   box     every edge > 2 rlist: the minimum image; a pair must be seen through one
 *           periodic image only (also what md_grid_setup requires of the decomposition).
 *   skin    >= 0: a negative skin lists fewer pairs than the cut-off needs.
 *   dt      > 0, and below the Verlet stability limit of the stiffest pair at rest in the
 *           LJ minimum: velocity Verlet diverges for dt >= 2/ω, with ω² = V''(r_m) / μ,
 *           V''(2^(1/6)) = 57.146 ε/σ² and μ = m/2 for two atoms of the lightest mass m;
 *           so dt < 2 sqrt(m / (2 · 57.146)) = 0.187 sqrt(m) τ. A crystal's highest mode and
 *           a liquid's collisions are stiffer still, so this bound is necessary, not
 *           sufficient (0.005 is the usual LJ step).
 *           Below: the momentum unit is dt/2 · 2^-32, so a small dt needs many units for
 *           the same speed; the state's momenta at the run's dt must stay within
 *           ±MD_PARAMS_P_MAX = 2^52 (the checkpoint's range, where (double)p is exact).
 *   steps   0 .. LONG_MAX / 2, nstlist 1 .. INT_MAX, thermo >= 0: counters that step
 *           arithmetic (step + nstlist, multiples of --thermo) never overflows.
 * Lattice:
 *   density the fcc nearest-neighbour distance a/sqrt(2), a = (4/ρ)^(1/3), must be at
 *           least MD_R_MIN, or the first force computation meets pairs it must refuse:
 *           ρ <= sqrt(2) / MD_R_MIN³ = 11.3 σ^-3.
 *   temp    a head-on collision with relative kinetic energy E reaches the distance where
 *           V(r) = E. Over a run of thousands of atoms and steps collision energies of
 *           about 20 kT occur (the Boltzmann tail e^-20 ~ 2e-9 per collision), so
 *           20 T must stay below V(MD_R_MIN) = 16128 ε: T <= 806. And such a pair closes at
 *           v = sqrt(2 · 20 T / μ) = sqrt(80 T) σ/τ; velocity Verlet overshoots the
 *           repulsive wall (and atoms pass closer than MD_R_MIN) when one step moves the
 *           pair too far compared with the wall's scale, the turning point r* where
 *           4 r*^-12 = 20 T (at most 2^(1/6)): measured over 1000 steps of 2048 atoms,
 *           dt sqrt(80 T) / r* = 0.38 fails at T 400 and 0.42 at T 100, 0.29 works at T 20,
 *           0.32 at T 800, so dt sqrt(80 T) <= 0.3 r*. And lattice speeds (at most
 *           sqrt(3 T)) must fit the momentum range at dt, with a factor 2 of room.
 */
#include "params.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "lj.h"
#include "util.h"

/* V''(2^(1/6)) = 4 (156 r^-14 - 42 r^-8) at the LJ minimum, ε/σ². */
#define LJ_CURVATURE_MIN 57.146
/* Collision energies reached in a run, in kT (see top). */
#define COLLISION_KT 20.0
/* Largest distance a colliding pair may close in one step, in units of its turning point
 * (see top). */
#define MAX_CLOSE_PER_STEP 0.3

static double lj_v(double r)
{
    double ir6 = 1.0 / (r * r * r * r * r * r);
    return 4.0 * ir6 * (ir6 - 1.0);
}

/* x to 3 significant digits, rounded up or down: a suggested limit printed with %.3g that
 * is itself inside the limit. */
static double sig3(double x, bool up)
{
    if (!(x > 0.0) || !isfinite(x))
        return x;
    double e = pow(10.0, floor(log10(x)) - 2.0);
    return (up ? ceil(x / e) : floor(x / e)) * e;
}

/* The turning point of a head-on collision with COLLISION_KT · T (repulsion only), σ. */
static double turning_point(double temp)
{
    const double rm = 1.122462048309373; /* 2^(1/6), the minimum */
    if (!(temp > 0.0))
        return rm;
    double r = pow(4.0 / (COLLISION_KT * temp), 1.0 / 12.0);
    return r < rm ? r : rm;
}

/* The distance such a pair closes in one step, and the most it may close, σ. */
static double step_close(double temp, double dt)
{
    return dt * sqrt(2.0 * COLLISION_KT * temp / 0.5);
}
static double max_close(double temp) { return MAX_CLOSE_PER_STEP * turning_point(temp); }

/* The highest temperature whose collisions step safely at dt (step_close - max_close grows
 * with the temperature: bisection). */
static double temp_max_at(double dt, double hi)
{
    double lo = 0.0;
    for (int k = 0; k < 200; k++) {
        double mid = 0.5 * (lo + hi);
        if (step_close(mid, dt) > max_close(mid))
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* Largest dt for which velocity Verlet is stable for a pair of mass m at the minimum. */
static double dt_stable(double m)
{
    return 2.0 * sqrt(m / (2.0 * LJ_CURVATURE_MIN));
}

static int check_system(const md_params *par, const md_system *sys, double rlist,
                        md_error *err)
{
    for (int d = 0; d < 3; d++) {
        double len = md_pos_to_double(sys->box.len[d]);
        if (!(len > 2.0 * rlist))
            return md_fail(err, "--rc %g --skin %g: the box edge along %c (%.6g σ) must be "
                           "longer than 2 rlist = 2 (rc + skin) = %.6g σ (minimum image); use "
                           "more unit cells, or rc + skin below %.6g σ", par->rc, par->skin,
                           'x' + d, len, 2.0 * rlist, len / 2.0);
    }
    double mmin = INFINITY;
    int tmin = 0;
    for (int t = 0; t < sys->ntypes; t++)
        if (sys->mass[t] < mmin) {
            mmin = sys->mass[t];
            tmin = t;
        }
    if (sys->ntypes > 0 && mmin > 0.0 && !(par->dt < dt_stable(mmin)))
        return md_fail(err, "--dt %g: velocity Verlet is unstable for dt >= %.4g τ, 2/ω of two "
                       "atoms of the lightest mass %g (type %d) at the LJ minimum; give a "
                       "--dt below that (0.005 is usual for LJ)", par->dt, dt_stable(mmin), mmin,
                       tmin + 1);
    /* The momenta in the unit of this run's dt (md_system_set_dt): p · sys->dt / dt. */
    const md_atoms *a = &sys->atoms;
    double pmax = 0.0;
    int32_t imax = -1;
    int dmax = 0;
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < a->n; i++) {
            double p = fabs((double)a->p[d][i]);
            if (p > pmax) {
                pmax = p;
                imax = i;
                dmax = d;
            }
        }
    if (imax >= 0 && pmax * (sys->dt / par->dt) > MD_PARAMS_P_MAX)
        return md_fail(err, "--dt %g: atom %lld's momentum p%c would be %.4g units at this "
                       "time step, beyond 2^52 (the momentum unit is dt/2 · 2^-32, so a "
                       "smaller dt needs more units); give --dt >= %.3g", par->dt,
                       (long long)a->id[imax], 'x' + dmax, pmax * (sys->dt / par->dt),
                       sig3(pmax * sys->dt / MD_PARAMS_P_MAX, true));
    return 0;
}

int md_params_check(const md_params *par, const md_system *sys, md_error *err)
{
    const double rlist_max = MD_MAX_BOX_SIGMA / 2.0;
    if (!(par->rc > MD_R_MIN) || !(par->rc < rlist_max))
        return md_fail(err, "--rc %g: the cut-off must be above %g σ (closer pairs are "
                       "refused, so no pair could interact) and below %g σ (half the largest "
                       "box); give e.g. 2.5", par->rc, MD_R_MIN, rlist_max);
    if (!(par->skin >= 0.0) || !(par->skin < rlist_max))
        return md_fail(err, "--skin %g: the pair-list buffer must be from 0 to below %g σ (a "
                       "negative one misses pairs); give e.g. 0.3", par->skin, rlist_max);
    double rlist = par->rc + par->skin;
    if (!(rlist < rlist_max))
        return md_fail(err, "--rc %g --skin %g: rc + skin must be below %g σ (half the "
                       "largest box, 2^19 σ)", par->rc, par->skin, rlist_max);
    if (par->nstlist < 1)
        return md_fail(err, "--nstlist %d: give at least 1 (steps between pair searches)",
                       par->nstlist);
    if (!(par->dt > 0.0) || !isfinite(par->dt))
        return md_fail(err, "--dt %g: the time step must be a positive number of τ (e.g. "
                       "0.005)", par->dt);
    if (par->steps < 0 || par->steps > LONG_MAX / 2)
        return md_fail(err, "--steps %ld: give 0 to %ld", par->steps, LONG_MAX / 2);
    if (par->thermo < 0)
        return md_fail(err, "--thermo %d: give 0 or more", par->thermo);
    if (sys)
        return check_system(par, sys, rlist, err);
    return 0;
}

int md_lattice_check(const md_lattice *lat, double dt, md_error *err)
{
    for (int d = 0; d < 3; d++)
        if (lat->cells[d] < 1 || lat->cells[d] > 4096)
            return md_fail(err, "--cells: %d unit cells along %c; give 1 to 4096", lat->cells[d],
                           "xyz"[d]);
    const double rho_max = sqrt(2.0) / (MD_R_MIN * MD_R_MIN * MD_R_MIN);
    if (!(lat->density > 0.0) || !(lat->density <= rho_max)) {
        double nn = cbrt(4.0 / lat->density) / sqrt(2.0);
        if (!(lat->density > 0.0))
            return md_fail(err, "--density %g: give a number density above 0 (e.g. 0.8442)",
                           lat->density);
        return md_fail(err, "--density %g: fcc neighbours would be %.4g σ apart, closer than "
                       "%g σ, where the LJ force no longer fits the fixed-point range; give "
                       "--density <= %.3g (above about 1.2 the solid is strongly compressed "
                       "and needs a smaller --dt)", lat->density, nn, MD_R_MIN,
                       sig3(rho_max, false));
    }
    const double t_max = lj_v(MD_R_MIN) / COLLISION_KT;
    if (!(lat->temperature >= 0.0) || !(lat->temperature <= t_max)) {
        if (!(lat->temperature >= 0.0))
            return md_fail(err, "--temperature %g: give a temperature >= 0 (e.g. 1.44)",
                           lat->temperature);
        return md_fail(err, "--temperature %g: collisions of about %g kT would bring atoms "
                       "closer than %g σ (V = %g ε there), where the LJ force no longer fits "
                       "the fixed-point range; give --temperature <= %.3g", lat->temperature,
                       COLLISION_KT, MD_R_MIN, lj_v(MD_R_MIN), sig3(t_max, false));
    }
    /* Lattice speeds are at most sqrt(3 T) per component (uniform, scaled to T); twice
     * that must stay within MD_PARAMS_P_MAX units of dt/2 · 2^-32 (mass 1). */
    double vmax = 2.0 * sqrt(3.0 * lat->temperature);
    if (dt > 0.0 && vmax * 2.0 * MD_FORCE_SCALE / dt > MD_PARAMS_P_MAX)
        return md_fail(err, "--temperature %g --dt %g: lattice speeds up to %.3g σ/τ would be "
                       "%.4g momentum units at this time step, beyond 2^52 (the unit is "
                       "dt/2 · 2^-32); give --dt >= %.3g", lat->temperature, dt, vmax,
                       vmax * 2.0 * MD_FORCE_SCALE / dt,
                       sig3(vmax * 2.0 * MD_FORCE_SCALE / MD_PARAMS_P_MAX, true));
    const double temp = lat->temperature;
    double close = step_close(temp, dt);
    if (close > max_close(temp)) {
        char alt[64] = "";
        if (dt < dt_stable(1.0)) /* a lower temperature helps only at a stable dt */
            snprintf(alt, sizeof alt, " (or --temperature <= %.3g)",
                     sig3(temp_max_at(dt, temp), false));
        return md_fail(err, "--temperature %g --dt %g: colliding pairs of %g kT would close "
                       "%.3g σ in one step, more than %g of their turning point %.3g σ: "
                       "velocity Verlet overshoots the repulsive wall and atoms pass closer "
                       "than %g σ; give --dt <= %.3g%s", temp, dt, COLLISION_KT, close,
                       MAX_CLOSE_PER_STEP, turning_point(temp), MD_R_MIN,
                       sig3(max_close(temp) / step_close(temp, 1.0), false), alt);
    }
    return 0;
}
