/*
 * shmemu/md.h: the Lennard-Jones MD app: its data, its units, and the calls that run it.
 *
 * Units are LJ reduced units: length σ, energy ε, mass m (of type 1 in a lattice start),
 * time τ = σ·sqrt(m/ε), temperature ε/k_B. The potential is LJ 12-6 with σ = ε = 1 for every
 * pair of types: V(r) = 4 (r^-12 - r^-6) for r < rc, optionally shifted so that V(rc) = 0.
 *
 * Bit-for-bit by construction (docs/design.md D3). The state of record is integer fixed point:
 *
 *   quantity   type     one unit is                      range used
 *   position   int64    2^-32 σ                          |x| < 2^19 σ (checked at setup)
 *   momentum   int64    (dt/2) · 2^-32  m σ/τ            p = m v; one force unit over half a step
 *   force      int64    2^-32 ε/σ                        |f| < 2^31 ε/σ per atom
 *   energy     int64    2^-32 ε  (pair energy, virial)   sums over atoms, |E| < 2^31 ε
 *
 * Why these: a periodic shift is an integer add on positions, so every PE and every halo
 * path sees the very same displacement x_i - x_j; a position converts to double exactly
 * (|x| < 2^53 units), so the pair force is a pure function of an exact input; each pair's
 * force is rounded once to an integer (round to nearest, ties to even) and added as +f to
 * one atom and -f to the other, so sums are exact in any order and Newton's third law holds
 * bit for bit; and because momentum is counted in units of (force unit × dt/2), a half kick
 * of velocity Verlet is p += f, an exact integer add, so the total momentum never changes,
 * whatever the masses. (For mass m, velocity = p · dt/(2m) · 2^-32 σ/τ: "velocity in units
 * chosen so that the force-to-velocity update is exact".) Positions move by
 * round_even(p · dt²/(2m)) units per step: they round, momentum does not. The momentum unit
 * depends on dt, so a state is converted when dt changes (md_system_set_dt).
 *
 * Layout: atoms are stored as a structure of arrays (md_atoms); the same struct holds the
 * whole system (md_system) and each PE's home and halo atoms. The domain decomposition,
 * its pulse table (paper 000's PulseData; docs/papers.md) and the pair lists are internal
 * (md/src/dd.h, md/src/pairlist.h); this header is what a program needs to set up and run.
 */
#ifndef SHMEMU_MD_H
#define SHMEMU_MD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fixed-point formats -------------------------------------------------------------- */

#define MD_POS_BITS 32    /* position: 1 σ = 2^32 units */
#define MD_FORCE_BITS 32  /* force: 1 ε/σ = 2^32 units */
#define MD_ENERGY_BITS 32 /* pair energy and virial: 1 ε = 2^32 units */
#define MD_POS_SCALE 4294967296.0       /* 2^MD_POS_BITS, exact in double */
#define MD_POS_UNIT (1.0 / 4294967296.0) /* σ per position unit, exact */
#define MD_FORCE_SCALE 4294967296.0
#define MD_ENERGY_SCALE 4294967296.0
/* Largest box edge: keeps every position, shifted halo position and difference exact in
 * double (|x| < 2^53 units) with room to spare. */
#define MD_MAX_BOX_SIGMA 524288.0 /* 2^19 σ */

/* Largest image flag a state holds (data file, run, checkpoint): 2^30 box lengths, far
 * beyond LAMMPS's default ±511 and far from int32's end. */
#define MD_IMAGE_MAX (1 << 30)

/* ---- errors --------------------------------------------------------------------------- */

/* Errors are values: a call that fails returns -1 and fills msg with what is wrong and what
 * to do ("data.lmp:12: Atoms: field 3 (x) is not a number: '1.2.3'; ..."). */
typedef struct md_error {
    char msg[1024];
} md_error;

/* ---- the box -------------------------------------------------------------------------- */

/* Periodic orthorhombic box [0, len[0]) x [0, len[1]) x [0, len[2]) in position units.
 * A box read from a file with other origins is moved to 0 (lo is kept for writing back). */
typedef struct md_box {
    int64_t len[3]; /* edge lengths, position units (2^-32 σ); exact */
    double lo[3];   /* origin of the input file, σ (0 for a lattice); only for output */
} md_box;

/* ---- atom storage: structure of arrays ------------------------------------------------ */

typedef struct md_atoms {
    int32_t n;     /* atoms stored */
    int32_t cap;   /* capacity of every array */
    int64_t *id;   /* global atom id, >= 1 and unique (LAMMPS atom-ID) */
    int32_t *type; /* type index, 0-based (LAMMPS type - 1) */
    int64_t *x[3]; /* position, units of 2^-32 σ; home atoms lie in [0, len) after each
                    * search step, and drift (unwrapped) between search steps */
    int64_t *p[3]; /* momentum, units of (dt/2)·2^-32 m σ/τ (see top of file) */
    int64_t *f[3]; /* force, units of 2^-32 ε/σ; halo atoms hold partial sums */
    int32_t *img[3]; /* image flags, LAMMPS's convention: the unwrapped position is
                      * x + img·len per dimension. Each wrap of a home atom into the box
                      * (data file, search step) adds the box lengths it moved, so
                      * x + img·len is continuous; |img| <= MD_IMAGE_MAX. Home atoms only:
                      * halo copies hold 0 */
    uint8_t *zone; /* halo zone: bit d set when the atom lies beyond this PE's upper domain
                    * boundary in dimension d (eighth shell); 0 for home atoms */
} md_atoms;

/* ---- the system: what a lattice or a data file gives ---------------------------------- */

typedef struct md_system {
    md_box box;
    int ntypes;     /* atom types */
    double *mass;   /* [ntypes] masses, m */
    double dt;      /* τ: the time step that the momentum unit belongs to */
    md_atoms atoms; /* every atom, ordered by id */
} md_system;

/* ---- run parameters ------------------------------------------------------------------- */

typedef struct md_params {
    double rc;        /* LJ cut-off, σ; a listed pair interacts when r < rc (default 2.5) */
    double skin;      /* pair-list buffer, σ; the list holds pairs with r < rc + skin (0.3) */
    int nstlist;      /* steps between pair searches and repartitions (20) */
    double dt;        /* time step, τ (0.005) */
    long steps;       /* steps to run (100) */
    bool shift;       /* shift the energy so that V(rc) = 0 (forces are unchanged) */
    int thermo;       /* thermo output every N steps; 0: first and last step only (10) */
} md_params;

/* Lattice start: fcc with 4 atoms per unit cell. */
typedef struct md_lattice {
    int cells[3];       /* unit cells along x, y, z */
    double density;     /* atoms per σ^3 (0.8442) */
    double temperature; /* ε/k_B (1.44) */
    uint64_t seed;      /* velocity generator seed (12345) */
} md_lattice;

/* Domain decomposition, simulated serially in one process (every PE's arrays live here). */
typedef struct md_ddparams {
    int pes;          /* PE count (1) */
    int grid[3];      /* domains along x, y, z; all 0: chosen from pes and the box */
    int order[3];     /* pulse order of the dimensions: {2,1,0} = z->y->x (default), {0,1,2} */
} md_ddparams;

void md_params_default(md_params *p);
void md_lattice_default(md_lattice *l);
void md_ddparams_default(md_ddparams *d);

/* ---- setting up ----------------------------------------------------------------------- */

/* fcc lattice: box edges cells·a with a = (4/density)^(1/3), rounded to position units.
 * Velocities: per atom and component a uniform number from a counter-based generator of
 * (seed, id, component), so they do not depend on order; then scaled to the temperature
 * (3N-3 degrees of freedom) and the total momentum removed exactly in fixed point. */
int md_system_fcc(md_system *sys, const md_lattice *lat, double dt, md_error *err);

/* LAMMPS data file, atom_style atomic: a header (atoms, atom types, xlo xhi, ylo yhi,
 * zlo zhi, an all-zero "xy xz yz" tilt line), Masses, Atoms (id type x y z [ix iy iz];
 * atoms outside the periodic box are wrapped into it) and optionally Velocities
 * (id vx vy vz), Pair Coeffs or PairIJ Coeffs (epsilon = sigma = 1, and a cut-off column
 * only if it equals the run's rc). Lines end in LF, CRLF or CR. Velocities and masses the
 * fixed-point state cannot hold are refused (limits: md/src/lammps_data.c). The parser is a
 * function over a buffer (it need not be NUL-terminated); `name` is used in messages.
 * md_lammps_parse/md_lammps_read do not know the run's cut-off: they refuse a cut-off
 * column; the *_run forms take dt and rc from par and honour one equal to par->rc. */
int md_lammps_parse(const char *buf, size_t len, const char *name, double dt, md_system *sys,
                    md_error *err);
int md_lammps_read(const char *path, double dt, md_system *sys, md_error *err);
int md_lammps_parse_run(const char *buf, size_t len, const char *name, const md_params *par,
                        md_system *sys, md_error *err);
/* Reads a regular file or a pipe of at most MD_LAMMPS_MAX_BYTES; refuses an empty name, a
 * directory and other non-regular files (devices such as /dev/zero never end). */
int md_lammps_read_run(const char *path, const md_params *par, md_system *sys, md_error *err);
#define MD_LAMMPS_MAX_BYTES (4ULL << 30) /* 4 GiB: ~50 million atoms at 80 bytes a line */

/* Converts the momenta to the unit of another time step (rounding to nearest even). */
void md_system_set_dt(md_system *sys, double dt);
void md_system_free(md_system *sys);

/* ---- running -------------------------------------------------------------------------- */

/* One thermo sample; every sum is exact (integers), then converted. */
typedef struct md_thermo {
    long step;
    double temp;           /* 2 KE / (k_B dof), dof = 3N - 3 */
    double epot, ekin, etot; /* per atom, ε */
    double press;          /* (2 KE + virial) / (3 V) */
    bool has_energy;       /* epot, etot, press, *_fx valid: energies were summed this step */
    int64_t momentum[3];   /* total momentum, momentum units: stays exactly constant */
    int64_t epot_fx;       /* total potential energy, energy units */
    int64_t virial_fx;     /* sum over pairs of r·F, energy units */
    uint64_t checksum;     /* of positions, momenta and forces (md_sim_checksum) */
} md_thermo;

typedef struct md_sim md_sim;

/* Takes a copy of sys; the decomposition is checked (every domain at least rlist/2 thick in
 * every decomposed dimension, box larger than 2 rlist). Computes the forces of step 0. */
md_sim *md_sim_create(const md_system *sys, const md_params *par, const md_ddparams *dd,
                      md_error *err);
/* One velocity Verlet step (with a search and repartition when the new step is a multiple
 * of nstlist); energy: also sum the potential energy and virial (thermo steps). Returns -1
 * on a physical error, e.g. atoms closer than 0.5 σ. */
int md_sim_step(md_sim *sim, bool energy, md_error *err);
long md_sim_steps_done(const md_sim *sim);
/* Sets the step counter of a driver just created from a state of that step (a restart:
 * the step must be a search step, as the driver's creation searched). */
void md_sim_set_step(md_sim *sim, long step);
void md_sim_thermo(const md_sim *sim, md_thermo *out);
/* Order-independent checksum of every atom's id, position, momentum and force: a sum over
 * atoms of a 64-bit hash of each atom's state, so PEs can add their parts. */
uint64_t md_sim_checksum(const md_sim *sim);
/* The grid in use (domains along x, y, z) and the pulses per dimension. */
void md_sim_grid(const md_sim *sim, int grid[3], int pulses[3]);
/* Copies the current state (every PE's home atoms, ordered by id) into sys (allocates). */
int md_sim_gather(const md_sim *sim, md_system *sys, md_error *err);
void md_sim_destroy(md_sim *sim);

/* Total pair-evaluations of the last force computation (inside rc) and pairs listed. */
void md_sim_pair_counts(const md_sim *sim, int64_t *in_cutoff, int64_t *listed);

#ifdef __cplusplus
}
#endif

#endif
