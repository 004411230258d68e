/*
 * system.c: defaults, the fcc lattice start, and conversions of a whole system.
 *
 * The lattice start is deterministic by construction: the box edge comes from a cube root
 * computed with + - * / only (fixed Newton iterations), lattice sites are exact integer
 * fractions of the box, and velocities come from a counter-based hash of (seed, id,
 * component) with one correctly rounded sqrt for the temperature scale.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixed.h"
#include "kinetic.h"
#include "params.h"
#include "rng.h"
#include "shmemu/md.h"
#include "util.h"

void md_params_default(md_params *p)
{
    p->rc = 2.5;
    p->skin = 0.3;
    p->nstlist = 20;
    p->dt = 0.005;
    p->steps = 100;
    p->shift = false;
    p->thermo = 10;
}

void md_lattice_default(md_lattice *l)
{
    l->cells[0] = l->cells[1] = l->cells[2] = 5;
    l->density = 0.8442;
    l->temperature = 1.44;
    l->seed = 12345;
}

void md_ddparams_default(md_ddparams *d)
{
    d->pes = 1;
    d->grid[0] = d->grid[1] = d->grid[2] = 0;
    d->order[0] = 2; /* z -> y -> x, as paper 000 (docs/papers.md) */
    d->order[1] = 1;
    d->order[2] = 0;
}

void md_system_free(md_system *sys)
{
    md_atoms_free(&sys->atoms);
    free(sys->mass);
    memset(sys, 0, sizeof *sys);
}

void md_system_set_dt(md_system *sys, double dt)
{
    if (dt == sys->dt)
        return;
    double ratio = sys->dt / dt; /* p_new = p_old · u_old / u_new */
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < sys->atoms.n; i++)
            sys->atoms.p[d][i] = md_round_i64((double)sys->atoms.p[d][i] * ratio);
    sys->dt = dt;
}

/* Cube root with + - * / only: y = m·2^e with e a multiple of 3, then Newton from 1.
 * The same bits on every machine (frexp/ldexp are exact). */
static double cbrt_exact_ops(double y)
{
    int e;
    double m = frexp(y, &e); /* y = m·2^e, m in [0.5, 1) */
    while (e % 3 != 0) {
        m *= 2.0;
        e--;
    }
    double t = 1.0;
    for (int k = 0; k < 60; k++)
        t = t - (t * t * t - m) / (3.0 * t * t);
    return ldexp(t, e / 3);
}

/* round(a·b / c) for non-negative integers, exactly. */
static int64_t muldiv_round(int64_t a, int64_t b, int64_t c)
{
    __int128 n = (__int128)a * b;
    return (int64_t)((2 * n + c) / (2 * (__int128)c));
}

int md_system_fcc(md_system *sys, const md_lattice *lat, double dt, md_error *err)
{
    memset(sys, 0, sizeof *sys);
    if (!(dt > 0.0) || !isfinite(dt))
        return md_fail(err, "--dt %g: the time step must be a positive number of τ", dt);
    if (md_lattice_check(lat, dt, err) != 0) /* params.h: density, temperature limits */
        return -1;
    int64_t natoms = 4LL * lat->cells[0] * lat->cells[1] * lat->cells[2];
    if (natoms > INT32_MAX / 2)
        return md_fail(err, "--cells %dx%dx%d: %lld atoms is more than this build handles",
                       lat->cells[0], lat->cells[1], lat->cells[2], (long long)natoms);
    double a = cbrt_exact_ops(4.0 / lat->density);
    for (int d = 0; d < 3; d++) {
        double len = a * (double)lat->cells[d];
        if (len >= MD_MAX_BOX_SIGMA)
            return md_fail(err, "box edge %g σ along %c is larger than %g σ", len, "xyz"[d],
                           MD_MAX_BOX_SIGMA);
        sys->box.len[d] = md_pos_from_double(len);
        sys->box.lo[d] = 0.0;
    }
    sys->ntypes = 1;
    sys->mass = md_xmalloc(sizeof *sys->mass);
    sys->mass[0] = 1.0;
    sys->dt = dt;
    md_atoms *at = &sys->atoms;
    md_atoms_reserve(at, (int32_t)natoms);
    /* Basis in half cells: (0,0,0) (1,1,0) (1,0,1) (0,1,1). */
    static const int basis[4][3] = {{0, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
    const int *nc = lat->cells;
    double u = md_momentum_unit(dt);
    int32_t n = 0;
    for (int k = 0; k < nc[2]; k++)
        for (int j = 0; j < nc[1]; j++)
            for (int i = 0; i < nc[0]; i++)
                for (int b = 0; b < 4; b++) {
                    int cell[3] = {i, j, k};
                    at->id[n] = n + 1;
                    at->type[n] = 0;
                    at->zone[n] = 0;
                    for (int d = 0; d < 3; d++) {
                        at->x[d][n] = muldiv_round(2 * cell[d] + basis[b][d], sys->box.len[d],
                                                   2 * (int64_t)nc[d]);
                        double v = md_uniform_centered(md_hash3(lat->seed, (uint64_t)n + 1,
                                                                (uint64_t)d));
                        at->p[d][n] = md_round_i64(v / u); /* mass 1 */
                        at->f[d][n] = 0;
                        at->img[d][n] = 0;
                    }
                    n++;
                }
    at->n = n;
    md_momentum_zero(at, n, sys->mass);
    /* Scale to the temperature, then remove the momentum the rounding left. */
    md_u128 psq = 0;
    md_kinetic_accumulate(at, n, &psq);
    double ke = md_kinetic_energy(&psq, sys->mass, 1, dt);
    double t_now = 2.0 * ke / md_dof(n);
    double s = t_now > 0.0 ? sqrt(lat->temperature / t_now) : 0.0;
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < n; i++)
            at->p[d][i] = md_round_i64((double)at->p[d][i] * s);
    md_momentum_zero(at, n, sys->mass);
    return 0;
}
