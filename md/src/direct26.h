/*
 * direct26.h: the host half of the direct ghost exchange (--halo direct26; HOOMD-blue,
 * Glaser et al. 2015 §4.3, docs/papers.md): who a PE's neighbours are, which home atoms
 * each of them gets as ghosts, and the pair lists of a PE that computes every pair of its
 * own home atoms. Plain data, no communication (dd_direct26.c); the parallel variant is
 * par_direct26.c, its kernels kernels/halo_direct26.c.
 *
 * Neighbours. Every direction (dx, dy, dz) in {-1, 0, 1}^3 but (0, 0, 0), with 0 along the
 * dimensions of one domain: up to 26 (2 in 1D, 8 in 2D). Direction code c = (dx+1) +
 * 3(dy+1) + 9(dz+1) (the pair list's shift code); the neighbour sees us at 26 - c. A
 * direction is a channel of its own even when two directions reach the same PE (two
 * domains along a dimension): the ghosts travel through different periodic images.
 *
 * Ghosts. A home atom goes to the neighbour at direction c when it lies within rhalo (the
 * staged exchange's halo depth) of our domain's boundary in every dimension where c is not
 * 0: x >= upper - rhalo for +1, x < lower + rhalo for -1. So an atom near a face goes to
 * 1 neighbour, near an edge to 3, near a corner to 7. Its coordinates go with the
 * direction's shift: -L along d when dx_d = +1 and we are the last domain along d (the
 * neighbour is across the periodic edge, so the atom appears below it), +L when dx_d = -1
 * and we are domain 0, else 0 (integers: the displacement a pair sees is exact).
 *
 * Pairs. A PE computes every pair of its home atoms: home-home pairs once (the local list)
 * and every home-ghost pair (the non-local lists), never a ghost-ghost pair; the owner of
 * the ghost computes the same pair with the roles swapped. The non-local pairs are split in
 * two by global id: `own` holds those whose home atom has the smaller id, `other` the rest.
 * Across all PEs every home-ghost pair is in exactly one `own` list, which is what the
 * energies and the virial are summed over (par_direct26.c).
 */
#ifndef MD_DIRECT26_H
#define MD_DIRECT26_H

#include <stdint.h>

#include "dd.h"

typedef struct md_d26_dir {
    int code;          /* (dx+1) + 3(dy+1) + 9(dz+1) */
    int delta[3];      /* dx, dy, dz */
    int rank;          /* the neighbour's PE */
    int64_t shift[3];  /* added to the coordinates we send that way, position units */
} md_d26_dir;

/* The directions of the PE at cell[3], in increasing code (at most MD_D26_DIRS). */
#define MD_D26_DIRS 26
int md_d26_dirs(const md_grid *g, const int cell[3], md_d26_dir dirs[MD_D26_DIRS]);

/* "Every neighbour is one domain away": false when a decomposed dimension has domains
 * thinner than rhalo (the staged exchange's two pulses; direct26 would need the second
 * shell of neighbours). */
bool md_d26_fits(const md_grid *g);

/* The send lists of a PE (home atoms [0, n_home) of at, domain at cell): HOOMD's
 * construction: each home atom's mask of directions, expanded into (atom, direction)
 * pairs, sorted by direction (a stable counting sort: within a direction, home order, which
 * comes from the data), gathered per direction. On return start[k] .. start[k+1] of list
 * are the home indices that dirs[k] gets (start has ndir + 1 entries; list is reallocated
 * to fit, *cap its capacity). */
void md_d26_sends(const md_grid *g, const int cell[3], const md_atoms *at, int32_t n_home,
                  const md_d26_dir *dirs, int ndir, int32_t *start, int32_t **list,
                  int64_t *cap);

/* The search region of a direct26 PE: its domain widened by rhalo on both sides along
 * decomposed dimensions, periodic along the others. */
void md_d26_region(const md_grid *g, const md_pe *pe, md_region *reg);

/* Splits a non-local list (i home, j ghost, i < j) by global id: pairs with id[i] < id[j]
 * into own, the others into other; entry order and j order kept, empty entries dropped. */
void md_d26_split(const md_pairlist *nl, const int64_t *id, md_pairlist *own,
                  md_pairlist *other);

#endif
