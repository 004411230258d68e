/*
 * sim.c: the serial driver. A step, as paper 000's Alg. 2 (docs/papers.md; serially, over all PEs):
 *
 *     kick            p += f                      (first half kick, exact: the momentum
 *                                                  unit is one force unit times dt/2)
 *     drift           x += round(p · dt²/2m)      (the step's one rounding)
 *     search step?    redistribute, order, pulse table + halo, pair lists
 *     otherwise       coordinate halo             (FusedPackCommX)
 *     forces          local list, non-local list  (Local / Non-Local Non-bonded F)
 *     force halo      reverse pulses              (FusedCommUnpackF)
 *     kick            p += f                      (Integration: second half kick)
 *
 * The 1-PE reference runs exactly this code with a 1x1x1 grid: no pulses, every dimension
 * periodic in the pair search. Every decomposition must give the same bits.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "fixed.h"
#include "kinetic.h"
#include "params.h"
#include "rng.h"
#include "util.h"

static void pe_reserve_xd(md_pe *pe)
{
    if (pe->cap_xd >= pe->at.n)
        return;
    pe->cap_xd = pe->at.cap;
    for (int d = 0; d < 3; d++)
        pe->xd[d] = md_xrealloc(pe->xd[d], (size_t)pe->cap_xd * sizeof *pe->xd[d]);
}

int md_sim_search(md_sim *s, md_error *err)
{
    md_dd_redistribute(&s->grid, s->pes);
    for (int r = 0; r < s->grid.npes; r++)
        md_dd_sort_home(&s->grid, &s->pes[r]);
    md_dd_build_pulses(&s->grid, s->pes);
    if (md_dd_search(&s->grid, s->pes, s->lj.rlist2, err) != 0)
        return -1;
    s->last_search = s->step;
    return 0;
}

/* Names the first pair closer than MD_R_MIN, for the error message. */
static int report_close_pair(const md_sim *s, md_error *err)
{
    for (int r = 0; r < s->grid.npes; r++) {
        const md_pe *pe = &s->pes[r];
        const md_pairlist *lists[2] = {&pe->local, &pe->nonlocal};
        for (int l = 0; l < 2; l++)
            for (int64_t e = 0; e < lists[l]->nent; e++) {
                const md_ientry *en = &lists[l]->ent[e];
                for (int64_t k = en->begin; k < en->end; k++) {
                    int32_t j = lists[l]->j[k];
                    double dd[3];
                    for (int d = 0; d < 3; d++)
                        dd[d] = pe->xd[d][en->i] + lists[l]->shift[en->shift][d] - pe->xd[d][j];
                    double r2 = md_r2(dd[0], dd[1], dd[2]);
                    if (r2 < MD_R2_MIN)
                        return md_fail(err, "step %ld: atoms %lld and %lld are %.4g σ apart, "
                                       "closer than %.2g σ: the force would overflow the "
                                       "fixed-point range; the input has overlapping atoms "
                                       "or the time step is too large (--dt)", s->step,
                                       (long long)pe->at.id[en->i], (long long)pe->at.id[j],
                                       sqrt(r2), MD_R_MIN);
                }
            }
    }
    return md_fail(err, "step %ld: atoms closer than %.2g σ", s->step, MD_R_MIN);
}

/* Local Non-bonded F (home-home pairs) or Non-Local Non-bonded F (pairs with a halo atom)
 * on every PE. Forces must have been cleared, positions converted (clear_forces). */
static void nonbonded(md_sim *s, bool nonlocal, bool energy, md_force_acc *acc)
{
    for (int r = 0; r < s->grid.npes; r++) {
        md_pe *pe = &s->pes[r];
        md_force_pairs(nonlocal ? &pe->nonlocal : &pe->local, (const double *const *)pe->xd,
                       pe->at.f, &s->lj, energy, acc);
    }
}

/* Zeroes every PE's forces (home and halo) and converts its positions for the kernels. */
static void clear_forces(md_sim *s)
{
    for (int r = 0; r < s->grid.npes; r++) {
        md_pe *pe = &s->pes[r];
        for (int d = 0; d < 3; d++)
            memset(pe->at.f[d], 0, (size_t)pe->at.n * sizeof *pe->at.f[d]);
        pe_reserve_xd(pe);
        md_positions_to_double(&pe->at, pe->at.n, pe->xd);
    }
}

static int finish_forces(md_sim *s, const md_force_acc *acc, bool energy, md_error *err)
{
    s->acc = *acc;
    s->acc_energy = energy;
    if (acc->too_close > 0)
        return report_close_pair(s, err);
    return 0;
}

int md_sim_forces(md_sim *s, bool energy, md_error *err)
{
    md_force_acc acc = {0};
    clear_forces(s);
    nonbonded(s, false, energy, &acc);
    nonbonded(s, true, energy, &acc);
    md_halo_f_serial(&s->grid, s->pes);
    return finish_forces(s, &acc, energy, err);
}

/* p += f for home atoms: half a kick, exact (the momentum unit is f·dt/2). */
static void kick(md_sim *s)
{
    for (int r = 0; r < s->grid.npes; r++) {
        md_atoms *a = &s->pes[r].at;
        for (int d = 0; d < 3; d++) {
            int64_t *p = a->p[d];
            const int64_t *f = a->f[d];
            for (int32_t i = 0; i < s->pes[r].n_home; i++)
                p[i] += f[i];
        }
    }
}

/* x += round(p · dt²/2m) for home atoms: the one rounding of the step. */
static void drift(md_sim *s)
{
    for (int r = 0; r < s->grid.npes; r++) {
        md_atoms *a = &s->pes[r].at;
        for (int d = 0; d < 3; d++) {
            int64_t *x = a->x[d];
            const int64_t *p = a->p[d];
            for (int32_t i = 0; i < s->pes[r].n_home; i++)
                x[i] += md_round_i64((double)p[i] * s->drift[a->type[i]]);
        }
    }
}

int md_sim_step(md_sim *s, bool energy, md_error *err)
{
    md_force_acc acc = {0};
    kick(s);                                  /* first half kick: p(t + dt/2) */
    drift(s);
    s->step++;
    if (s->step % s->par.nstlist == 0) {      /* host work, search steps only */
        if (md_sim_search(s, err) != 0)       /* DD: redistribute, pulse table, lists */
            return -1;
    } else {
        md_halo_x_serial(&s->grid, s->pes);   /* FusedPackCommX */
    }
    clear_forces(s);                          /* Clear buffers */
    nonbonded(s, false, energy, &acc);        /* Local Non-bonded F */
    nonbonded(s, true, energy, &acc);         /* Non-Local Non-bonded F */
    md_halo_f_serial(&s->grid, s->pes);       /* FusedCommUnpackF */
    if (finish_forces(s, &acc, energy, err) != 0)
        return -1;
    kick(s);                                  /* Integration: p(t + dt) */
    return 0;
}

md_sim *md_sim_create(const md_system *sys, const md_params *par, const md_ddparams *dd,
                      md_error *err)
{
    if (md_params_check(par, sys, err) != 0) /* params.h: the one check of every driver */
        return NULL;
    if (sys->atoms.n < 1) {
        md_fail(err, "the system has no atoms");
        return NULL;
    }
    md_sim *s = md_xcalloc(1, sizeof *s);
    s->par = *par;
    md_lj_init(&s->lj, par->rc, par->skin, par->shift);
    s->box = sys->box;
    s->ntypes = sys->ntypes;
    s->mass = md_xmalloc((size_t)sys->ntypes * sizeof *s->mass);
    s->drift = md_xmalloc((size_t)sys->ntypes * sizeof *s->drift);
    for (int t = 0; t < sys->ntypes; t++) {
        s->mass[t] = sys->mass[t];
        s->drift[t] = (par->dt * par->dt) / (2.0 * sys->mass[t]);
    }
    s->natoms = sys->atoms.n;
    if (md_grid_setup(&s->grid, sys->box.len, dd, s->lj.rlist, err) != 0) {
        md_grid_free(&s->grid);
        free(s->mass);
        free(s->drift);
        free(s);
        return NULL;
    }
    s->pes = md_xcalloc((size_t)s->grid.npes, sizeof *s->pes);
    for (int r = 0; r < s->grid.npes; r++)
        md_pe_init(&s->pes[r], &s->grid, r);
    /* The system's momenta are in the unit of its dt; convert to this run's. */
    md_system copy = *sys;
    md_atoms_clone(&copy.atoms, &sys->atoms);
    md_system_set_dt(&copy, par->dt);
    md_dd_distribute(&s->grid, s->pes, &copy.atoms);
    md_atoms_free(&copy.atoms);
    if (md_sim_search(s, err) != 0 || md_sim_forces(s, true, err) != 0) {
        md_sim_destroy(s);
        return NULL;
    }
    return s;
}

void md_sim_destroy(md_sim *s)
{
    if (!s)
        return;
    for (int r = 0; r < s->grid.npes; r++)
        md_pe_free(&s->pes[r]);
    free(s->pes);
    md_grid_free(&s->grid);
    free(s->mass);
    free(s->drift);
    free(s);
}

long md_sim_steps_done(const md_sim *s) { return s->step; }

void md_sim_set_step(md_sim *s, long step)
{
    s->step = step;
    s->last_search = step;
}

void md_sim_grid(const md_sim *s, int grid[3], int pulses[3])
{
    for (int d = 0; d < 3; d++) {
        grid[d] = s->grid.n[d];
        pulses[d] = s->grid.npulse[d];
    }
}

/* Hash of one atom's state; the checksum is the wrapping sum over atoms. */
uint64_t md_atom_hash(const md_atoms *a, int32_t i)
{
    uint64_t h = md_mix64((uint64_t)a->id[i]);
    for (int d = 0; d < 3; d++) {
        h = md_mix64(h ^ (uint64_t)a->x[d][i]);
        h = md_mix64(h ^ (uint64_t)a->p[d][i]);
        h = md_mix64(h ^ (uint64_t)a->f[d][i]);
    }
    return h;
}

uint64_t md_sim_checksum(const md_sim *s)
{
    uint64_t sum = 0;
    for (int r = 0; r < s->grid.npes; r++)
        for (int32_t i = 0; i < s->pes[r].n_home; i++)
            sum += md_atom_hash(&s->pes[r].at, i);
    return sum;
}

void md_sim_thermo(const md_sim *s, md_thermo *t)
{
    memset(t, 0, sizeof *t);
    md_u128 *psq = md_xcalloc((size_t)s->ntypes, sizeof *psq);
    uint64_t mom[3] = {0, 0, 0};
    for (int r = 0; r < s->grid.npes; r++) {
        md_kinetic_accumulate(&s->pes[r].at, s->pes[r].n_home, psq);
        md_momentum_accumulate(&s->pes[r].at, s->pes[r].n_home, mom);
    }
    double ke = md_kinetic_energy(psq, s->mass, s->ntypes, s->par.dt);
    free(psq);
    double n = (double)s->natoms;
    double vol = md_pos_to_double(s->box.len[0]) * md_pos_to_double(s->box.len[1]) *
                 md_pos_to_double(s->box.len[2]);
    t->step = s->step;
    t->temp = 2.0 * ke / md_dof(s->natoms);
    t->ekin = ke / n;
    t->has_energy = s->acc_energy;
    if (s->acc_energy) {
        t->epot_fx = s->acc.epot;
        t->virial_fx = s->acc.virial;
        t->epot = md_energy_to_double(s->acc.epot) / n;
        t->etot = t->epot + t->ekin;
        t->press = (2.0 * ke + md_energy_to_double(s->acc.virial)) / (3.0 * vol);
    }
    for (int d = 0; d < 3; d++)
        t->momentum[d] = (int64_t)mom[d];
    t->checksum = md_sim_checksum(s);
}

void md_sim_pair_counts(const md_sim *s, int64_t *in_cutoff, int64_t *listed)
{
    int64_t l = 0;
    for (int r = 0; r < s->grid.npes; r++)
        l += s->pes[r].local.npairs + s->pes[r].nonlocal.npairs;
    if (in_cutoff)
        *in_cutoff = s->acc.in_cut;
    if (listed)
        *listed = l;
}

int md_sim_gather(const md_sim *s, md_system *sys, md_error *err)
{
    (void)err;
    memset(sys, 0, sizeof *sys);
    sys->box = s->box;
    sys->ntypes = s->ntypes;
    sys->mass = md_xmalloc((size_t)s->ntypes * sizeof *sys->mass);
    memcpy(sys->mass, s->mass, (size_t)s->ntypes * sizeof *sys->mass);
    sys->dt = s->par.dt;
    md_atoms_reserve(&sys->atoms, (int32_t)s->natoms);
    for (int r = 0; r < s->grid.npes; r++)
        for (int32_t i = 0; i < s->pes[r].n_home; i++)
            md_atoms_push(&sys->atoms, &s->pes[r].at, i);
    md_atoms_sort_by_id(&sys->atoms);
    return 0;
}
