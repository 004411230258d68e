/*
 * kinetic.c: exact momentum and kinetic-energy sums; exact removal of the total momentum.
 */
#include "kinetic.h"

#include <stdlib.h>

#include "fixed.h"
#include "util.h"

void md_kinetic_accumulate(const md_atoms *a, int32_t n, md_u128 *psq)
{
    for (int32_t i = 0; i < n; i++) {
        md_u128 s = 0;
        for (int d = 0; d < 3; d++) {
            int64_t p = a->p[d][i];
            uint64_t m = p < 0 ? 0 - (uint64_t)p : (uint64_t)p;
            s += (md_u128)m * m;
        }
        psq[a->type[i]] += s;
    }
}

double md_kinetic_energy(const md_u128 *psq, const double *mass, int ntypes, double dt)
{
    double u = md_momentum_unit(dt);
    double ke = 0.0;
    for (int t = 0; t < ntypes; t++)
        ke += (double)psq[t] * u * u / (2.0 * mass[t]);
    return ke;
}

void md_momentum_accumulate(const md_atoms *a, int32_t n, uint64_t sum[3])
{
    for (int d = 0; d < 3; d++) {
        uint64_t s = sum[d];
        for (int32_t i = 0; i < n; i++)
            s += (uint64_t)a->p[d][i];
        sum[d] = s;
    }
}

void md_momentum_zero(md_atoms *a, int32_t n, const double *mass)
{
    if (n <= 0)
        return;
    double mtot = 0.0;
    for (int32_t i = 0; i < n; i++)
        mtot += mass[a->type[i]];
    for (int d = 0; d < 3; d++) {
        uint64_t s = 0;
        for (int32_t i = 0; i < n; i++)
            s += (uint64_t)a->p[d][i];
        double ptot = (double)(int64_t)s;
        for (int32_t i = 0; i < n; i++)
            a->p[d][i] -= md_round_i64(mass[a->type[i]] / mtot * ptot);
        /* The remainder, exactly: q for every atom, one more for the first |r|. */
        s = 0;
        for (int32_t i = 0; i < n; i++)
            s += (uint64_t)a->p[d][i];
        int64_t rem = (int64_t)s;
        int64_t q = rem / n, r = rem - q * n;
        for (int32_t i = 0; i < n; i++)
            a->p[d][i] -= q + (i < llabs(r) ? (r > 0 ? 1 : -1) : 0);
    }
}

double md_dof(int64_t natoms)
{
    double dof = 3.0 * (double)natoms - 3.0;
    return dof < 1.0 ? 1.0 : dof;
}
