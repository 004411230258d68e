/*
 * check.h: the oracles of docs/design.md ("Oracles"), over a running md_sim.
 *
 * Brute force (O(N^2), small systems): every pair of atoms at its minimum image, computed
 * from the gathered home atoms with the same integer displacement and the same md_r2 as
 * the kernels. At a search step the union of all PEs' lists must be exactly the pairs
 * closer than rlist, each once, with exactly the minimum-image displacement. Between
 * searches, the pairs closer than rc that the lists do not hold are counted (the buffer
 * was too thin for them): the same count on every decomposition.
 *
 * Halo contents: every halo slot must hold its atom at the owner's position plus the
 * periodic shift its route implies; at a search step the set of halo atoms of each PE must
 * be exactly the atoms (and images) within rhalo above its domain in the eighth shell.
 */
#ifndef MD_CHECK_H
#define MD_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

typedef struct md_pair_report {
    int64_t brute;            /* pairs closer than the cut, by brute force */
    int64_t listed;           /* pairs in all PEs' lists, with repeats */
    int64_t missing;          /* brute-force pairs no list holds */
    int64_t duplicates;       /* listed more than once (on one PE or across PEs) */
    int64_t beyond;           /* listed pairs not closer than the cut */
    int64_t bad_displacement; /* listed displacement != minimum image */
} md_pair_report;

/* Compares all lists with the brute-force pairs closer than sqrt(cut2) σ. */
void md_check_pairs(const md_sim *s, double cut2, md_pair_report *rep);

/* Checks every halo slot (and, at a search step, the halo sets). Returns the number of
 * problems; the first is described in err. */
int64_t md_check_halo(const md_sim *s, bool search_step, md_error *err);

#endif
