/*
 * dd.h: domain decomposition geometry, the per-PE state, and the pulse table
 * (paper 000's PulseData; docs/papers.md) of the GROMACS staged halo exchange.
 *
 * Grid. The box is cut into n[0] x n[1] x n[2] domains; PE rank = cx + n[0](cy + n[1] cz).
 * Along dimension d, domain c covers [bound[c], bound[c+1]) with bound[c] = ceil(c L / n),
 * so the owner of a wrapped position x is floor(x n / L), exactly, in integers.
 *
 * Eighth shell. A PE receives the atoms that lie within rhalo (>= rlist) above its upper
 * boundaries, in every decomposed dimension: zones 1..7 of the home zone 0. An atom's zone
 * is a bit mask of the dimensions in which it lies above. A pair is computed by the PE
 * whose cell is the lower of the two atoms' cells in every dimension, which on that PE is
 * exactly "zone[a] & zone[b] == 0" (pairlist.h): every pair once, across all PEs.
 *
 * Pulses. Coordinates move to the lower neighbour, one dimension after another in the
 * pulse order (z, y, x by default; x, y, z settable), np[d] pulses per dimension: 1, or 2
 * when a domain is thinner than rhalo (the second pulse forwards what the first brought
 * from two domains up). A pulse along d sends every atom the PE holds that is not already
 * above it along d (home atoms and atoms received in earlier pulses of other dimensions:
 * forwarding) and that lies within rhalo of the PE's lower boundary; the second pulse
 * along d sends, of the atoms received in the first, those within rhalo. Sent coordinates
 * get coord_shift: +L along d when the sender is domain 0 (its lower neighbour is across
 * the periodic edge). Received atoms are appended: local arrays are [home | pulse 0 |
 * pulse 1 | ...], contiguous per pulse, in the sender's index-map order.
 *
 * Forces go back the same way in reverse pulse order: the receiver of pulse p returns the
 * forces of its slots [atom_offset, atom_offset + recv_size) and the sender adds them to
 * index_map[i]; a forwarded atom's slot collects what later pulses returned before its
 * own pulse returns it. All integer adds: any order, atomics included, gives the same bits.
 *
 * Dependencies (paper 000 §5.1). index_map is split at n_indep: entries [0, n_indep) are
 * home atoms (index < dep_offset) and can be packed at once; entries [n_indep, send_size)
 * are atoms received in earlier pulses (index >= dep_offset), the pulses in dep_mask, the
 * earliest being first_dep_pulse: packing them must wait for those pulses' signals.
 *
 * Everything here is plain data: the serial driver applies the table to every PE's arrays
 * in one process (halo_serial.c); the GPU halo kernels will read the same table.
 */
#ifndef MD_DD_H
#define MD_DD_H

#include <stdbool.h>
#include <stdint.h>

#include "lj.h"
#include "pairlist.h"
#include "shmemu/md.h"

#define MD_MAX_PULSES 6 /* at most 2 per dimension */

/* One pulse of one PE (PulseData). Sizes are atoms; a coordinate is 3 int64. */
typedef struct md_pulse {
    int dim;                /* dimension the pulse moves along: 0 x, 1 y, 2 z */
    int k;                  /* pulse index within the dimension: 0, or 1 for the second */
    int send_rank;          /* PE our coordinates go to (the lower neighbour along dim);
                             * it returns their forces */
    int recv_rank;          /* PE whose coordinates we receive (the upper neighbour); we
                             * return the forces of those atoms to it */
    int32_t send_size;      /* atoms we send: the length of index_map */
    int32_t recv_size;      /* atoms we receive (recv_rank's send_size for this pulse) */
    int32_t atom_offset;    /* received atoms land at local [atom_offset, +recv_size) */
    int64_t coord_shift[3]; /* position units added to each sent coordinate: L along dim
                             * when this PE is domain 0 along dim, else 0 */
    int32_t *index_map;     /* [send_size] local indices of the atoms sent */
    int32_t n_indep;        /* index_map[0, n_indep) < dep_offset: packable at once */
    int32_t dep_offset;     /* local index: atoms at or above it arrived in earlier pulses */
    int first_dep_pulse;    /* earliest pulse that index_map depends on; -1: none */
    uint32_t dep_mask;      /* bit q: index_map holds atoms received in pulse q */
    int32_t cap_map;
} md_pulse;

/* The decomposition: the same on every PE. */
typedef struct md_grid {
    int n[3];                   /* domains along x, y, z */
    int npes;
    int order[3];               /* dimensions in pulse order, e.g. {2, 1, 0} = z, y, x */
    int npulse[3];              /* pulses along each dimension: 0 (one domain), 1 or 2 */
    int total_pulses;
    int pulse_dim[MD_MAX_PULSES]; /* global pulse order [z0 z1 y0 y1 x0 x1] minus absent */
    int pulse_k[MD_MAX_PULSES];
    int64_t *bound[3];          /* [n[d] + 1]: domain boundaries, position units */
    int64_t rhalo;              /* halo depth and smallest search cell, position units */
    int64_t box[3];             /* box lengths, position units */
} md_grid;

/* One PE: its atoms, its pulses, its pair lists. */
typedef struct md_pe {
    int rank;
    int cell[3];             /* domain indices along x, y, z */
    md_atoms at;             /* home atoms [0, n_home), halo atoms [n_home, at.n) */
    int32_t n_home;
    md_pulse pulse[MD_MAX_PULSES]; /* in global pulse order */
    md_region region;        /* where home and halo atoms lie at a search step */
    md_pairlist local;       /* home-home pairs */
    md_pairlist nonlocal;    /* pairs with a halo atom */
    md_cellgrid cells;       /* search scratch */
    double *xd[3];           /* positions in σ (exact), for the kernels */
    int32_t cap_xd;
} md_pe;

/* Sets up the grid: the requested one (dd->grid non-zero) or the best for dd->pes and the
 * box; checks that it works for this rlist (box > 2 rlist along every dimension, at most
 * two pulses per dimension). */
int md_grid_setup(md_grid *g, const int64_t box[3], const md_ddparams *dd, double rlist,
                  md_error *err);
/* The automatic choice alone: factors pes into n[3] with the smallest halo volume per
 * domain; -1 when no factorisation gives domains at least rhalo/2 thick. */
int md_grid_choose(int pes, const int64_t box[3], int64_t rhalo, int n[3], md_error *err);
void md_grid_free(md_grid *g);
int md_grid_rank(const md_grid *g, const int cell[3]);
void md_grid_cell(const md_grid *g, int rank, int cell[3]);
/* Owner PE of a wrapped position (each component in [0, box)). */
int md_grid_owner(const md_grid *g, const int64_t x[3]);
/* Halo depth for a list radius: rlist rounded up with a margin that covers the rounding of
 * the r2 < rlist2 test, so the halo holds every atom that can be listed. */
int64_t md_halo_depth(double rlist);

/* ---- per-PE state ---------------------------------------------------------------------- */

void md_pe_init(md_pe *pe, const md_grid *g, int rank);
void md_pe_free(md_pe *pe);
/* The search region of a PE (see pairlist.h). */
void md_pe_region(const md_grid *g, const md_pe *pe, md_region *reg);

/* Puts every atom of `all` on its owner PE (positions wrapped first). */
void md_dd_distribute(const md_grid *g, md_pe *pes, const md_atoms *all);
/* Search step: wraps home positions into the box and moves every atom to its owner. A
 * serial stand-in for the neighbour exchanges of a real run; order within a PE is restored
 * by md_dd_sort_home. */
void md_dd_redistribute(const md_grid *g, md_pe *pes);
/* Orders a PE's home atoms by (search cell, id): the order comes from the data. */
void md_dd_sort_home(const md_grid *g, md_pe *pe);
/* Builds every PE's pulse table and fills the halos with the search-step coordinates:
 * pulse by pulse, every PE selects, then every PE receives (the set-up exchange). */
void md_dd_build_pulses(const md_grid *g, md_pe *pes);
/* One PE's part of pulse p of the set-up exchange: fills pulse p's geometry, index map
 * and dependency fields from the atoms the PE holds so far (home atoms and what earlier
 * pulses brought). The parallel driver (par_setup.c) calls it on each PE thread. */
void md_dd_select_pulse(const md_grid *g, md_pe *pe, int p);
/* Builds every PE's local and non-local pair lists. */
int md_dd_search(const md_grid *g, md_pe *pes, double rlist2, md_error *err);

/* ---- the halo exchange, applied serially to every PE's arrays (halo_serial.c) --------- */

/* Coordinates, pulses in order: each PE packs x[index_map] + coord_shift into the slots of
 * its send_rank. */
void md_halo_x_serial(const md_grid *g, md_pe *pes);
/* Forces, pulses in reverse order: each PE adds the forces of its received slots to the
 * index_map atoms of its recv_rank. */
void md_halo_f_serial(const md_grid *g, md_pe *pes);

#endif
