/*
 * sim.h: the serial driver: every PE of a decomposition in one process, stepped together.
 *
 * md_sim_step reads like Algorithm 2 of paper 000 (docs/papers.md) with each launch replaced by a
 * serial call over all PEs; the GPU schedule will replace those calls, not the order. Everything a
 * PE would own is in its md_pe; the driver owns only what every PE shares (parameters, grid,
 * masses) and the step counter.
 */
#ifndef MD_SIM_H
#define MD_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "dd.h"
#include "force.h"
#include "lj.h"
#include "shmemu/md.h"

struct md_sim {
    md_params par;
    md_lj lj;
    md_grid grid;
    md_box box;
    int ntypes;
    double *mass;        /* [ntypes], m */
    double *drift;       /* [ntypes]: dt²/(2m), position units per momentum unit */
    md_pe *pes;          /* [grid.npes] */
    int64_t natoms;
    long step;           /* steps done */
    long last_search;    /* step of the last pair search */
    md_force_acc acc;    /* of the last force computation, summed over PEs */
    bool acc_energy;     /* acc.epot and acc.virial belong to the current step */
};

/* Hash of one atom's state (id, x, p, f); md_sim_checksum is the wrapping sum over home
 * atoms, so PEs of the parallel driver add their parts. */
uint64_t md_atom_hash(const md_atoms *a, int32_t i);
/* Pair search at the current positions: redistribute, order, pulse table, pair lists. */
int md_sim_search(md_sim *s, md_error *err);
/* Forces at the current positions (halo coordinates must be current). */
int md_sim_forces(md_sim *s, bool energy, md_error *err);

#endif
