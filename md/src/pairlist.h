/*
 * pairlist.h: cell lists and the buffered pair list of one PE.
 *
 * A PE holds its home atoms [0, n_home) and its halo atoms [n_home, n) (md_atoms). At a
 * search step the pair search puts all of them in a grid of cells at least rlist/2 wide,
 * searches two cells out, and lists every pair closer than rlist = rc + skin that this PE
 * must compute:
 *   - the eighth-shell rule: atoms a and b pair here only when zone[a] & zone[b] == 0, i.e.
 *     in no dimension do both lie beyond this PE's upper boundary (that pair belongs to the
 *     PE above). With one domain (no halo) every zone is 0 and every pair is here.
 *   - dimensions with one domain are periodic in the grid: a neighbour cell across the box
 *     edge is searched with a shift of one box length, and the pair remembers that shift.
 *
 * The list is built once per search and used for nstlist steps; the cut-off rc is tested
 * per pair at every step. It is stored as i-entries (GROMACS' layout, atom-sized): an entry
 * is (i, shift, j range); the kernel adds shift to x_i once and runs over j. For every pair
 * i < j (local indices), and d = x_i + shift - x_j is exactly the displacement that the
 * serial reference sees for the same two atoms (integer arithmetic, no rounding).
 *
 * Two lists, as GROMACS splits its non-bonded work (paper 000, Alg. 2; docs/papers.md): `local`
 * holds pairs of two home atoms (computable before the coordinate halo arrives), `nonlocal` the
 * pairs with at least one halo atom. Order comes from data: entries by i, then shift, then j.
 */
#ifndef MD_PAIRLIST_H
#define MD_PAIRLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "shmemu/md.h"

#define MD_NSHIFT 27
#define MD_SHIFT_NONE 13 /* code of (0,0,0); code = (sx+1) + 3(sy+1) + 9(sz+1) */

/* Where a PE's atoms can be at a search step, per dimension: periodic over the whole box
 * (a dimension with one domain) or the open interval [origin, origin + extent) that holds
 * the home domain and the halo above it. */
typedef struct md_region {
    bool periodic[3];
    int64_t origin[3]; /* position units */
    int64_t extent[3]; /* position units */
    int64_t box[3];    /* box lengths, position units: the periodic shifts */
    int64_t rsearch;   /* search radius bound, position units (>= rlist, rounded up):
                        * cells are at least rsearch/2 wide and the search reaches two
                        * cells out */
} md_region;

#define MD_SEARCH_REACH 2 /* cells searched on each side */

/* A pair found by the search: i < j local indices, shift code applied to x_i. */
typedef struct md_found {
    int32_t i, j, shift;
} md_found;

/* Atoms binned by cell, and the search's scratch (kept between searches). Within a cell,
 * atoms are in increasing local index. */
typedef struct md_cellgrid {
    int n[3];          /* cells along x, y, z */
    int32_t ncells;
    int32_t *start;    /* [ncells + 1]: atoms of cell c are atom[start[c] .. start[c+1]) */
    int32_t *atom;     /* [natoms]: local index of the k-th atom in cell order */
    int32_t *cell_of;  /* [natoms] */
    double *xs[3];     /* [natoms]: positions in σ, in cell order (exact) */
    uint8_t *zs;       /* [natoms]: zones, in cell order */
    int32_t cap_cells, cap_atoms;
    md_found *found[2];        /* local, non-local pairs as found */
    int64_t nfound[2], cap_found[2];
    md_found *sorted;          /* bucketed by i */
    int64_t cap_sorted;
    int64_t *count;            /* [natoms + 1] */
    int32_t cap_count;
} md_cellgrid;

typedef struct md_ientry {
    int32_t i;       /* local index of atom i */
    int32_t shift;   /* shift code: x_i + shift[code] is next to every j of the entry */
    int64_t begin;   /* j[begin .. end) */
    int64_t end;
} md_ientry;

typedef struct md_pairlist {
    md_ientry *ent;
    int64_t nent, cap_ent;
    int32_t *j;                      /* local indices, ascending within an entry */
    int64_t npairs, cap_j;
    int64_t shift_fx[MD_NSHIFT][3];  /* shift vectors, position units (box multiples) */
    double shift[MD_NSHIFT][3];      /* the same in σ, exact */
} md_pairlist;

/* Cells per dimension for a region (>= 1; >= 2·MD_SEARCH_REACH along periodic ones). */
void md_cellgrid_dims(const md_region *reg, int n[3]);
/* Cell of a position; -1 when it lies outside the region (a bug upstream). */
int32_t md_cell_index(const md_region *reg, const int n[3], const int64_t x[3]);
/* Bins atoms [0, natoms) of a. Returns -1 (with a message) if one lies outside the region. */
int md_cellgrid_build(md_cellgrid *g, const md_region *reg, const md_atoms *a, int32_t natoms,
                      md_error *err);
void md_cellgrid_free(md_cellgrid *g);

/* Builds both lists for atoms [0, natoms) of a, home atoms [0, n_home). rlist2 is the
 * squared list radius in σ², compared with md_r2 of the exact displacement. */
int md_pairlist_build(md_pairlist *local, md_pairlist *nonlocal, md_cellgrid *scratch,
                      const md_region *reg, const md_atoms *a, int32_t natoms, int32_t n_home,
                      double rlist2, md_error *err);
void md_pairlist_free(md_pairlist *pl);
/* MD_ASSERTs the list's shape (md_assert.h), which the force kernels rely on: entries by
 * ascending i, one per (i, shift), tiling j[0, npairs); each pair once, i < j, every j in
 * [j_begin, j_end) (the local list: j below n_home; the non-local list: j at or above it),
 * ascending within an entry. md_pairlist_build checks both lists; tests call it on broken
 * lists. */
void md_pairlist_check(const md_pairlist *pl, int32_t j_begin, int32_t j_end);

/* Shift code <-> components in {-1, 0, 1}. */
static inline int md_shift_code(int sx, int sy, int sz) { return (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1); }
static inline int md_shift_comp(int code, int d) { return (d == 0 ? code : d == 1 ? code / 3 : code / 9) % 3 - 1; }

#endif
