/*
 * cg/plan.h: the row partition of a matrix over P parts (PEs) and each part's halo plan:
 * what it computes, what it must receive before its SpMV, and what it must send (paper 002
 * §3: interior/border/ghost ordering, halo exchange by puts into the receiver's ghost
 * region).
 *
 * Partition: any map of rows to parts (owner[g] in [0, P), every part non-empty):
 * cg_plan_contiguous's rows [floor(p n / P), floor((p+1) n / P)) for part p, or METIS's
 * (cg/partition.h). A part's rows need not be contiguous: everything below is stated for
 * the owned set, whatever it is.
 *
 * Local ordering of part p (indices into its local vector of n_owned + n_ghost values):
 *   [0, n_interior)            interior rows: owned rows with no column outside the part
 *                              (their SpMV needs no halo: it can overlap the exchange);
 *   [n_interior, n_owned)      border rows: owned rows with a column outside the part;
 *   [n_owned, n_owned+n_ghost) ghosts: the values of other parts' rows that the owned rows
 *                              use, grouped by owner part (ascending), each group in
 *                              ascending global order.
 * Interior and border rows are each in ascending global order. For a structurally
 * symmetric matrix (every cg_csr: cg/matrix.h) the border rows are exactly the rows some
 * other part needs.
 *
 * Halo: recv[k] says that part recv[k].part fills ghosts [recv[k].offset, + count) of this
 * part; send[k] says that this part sends the values of its local rows send[k].idx[0..count)
 * to part send[k].part, where they go to that part's local indices [disp, disp + count)
 * (the put displacement: disp = the receiver's n_owned + its ghost offset for this sender).
 * Both lists are in ascending part order; every ghost slot is written by exactly one send.
 *
 * Local matrix: the owned rows in local order, columns as local indices, each row's
 * entries in the original (ascending GLOBAL column) order, so that a row's SpMV sum is the
 * same floating-point expression as in cg_spmv and the distributed SpMV equals the serial
 * one bit for bit, whatever the partition (docs/design.md D3).
 */
#ifndef CG_PLAN_H
#define CG_PLAN_H

#include <stdint.h>

#include "cg/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_halo_send {
    int part;         /* receiver */
    int32_t count;
    int32_t *idx;     /* count local indices of this part's (border) rows, in the order
                       * of the receiver's ghost group */
    int32_t disp;     /* where the first value goes in the receiver's local vector */
} cg_halo_send;

typedef struct cg_halo_recv {
    int part;         /* sender (owner of these ghosts) */
    int32_t count;
    int32_t offset;   /* local index of the first ghost of this group (>= n_owned) */
} cg_halo_recv;

typedef struct cg_part {
    int part;
    int32_t n_owned, n_interior, n_border, n_ghost;
    int64_t *global;            /* n_owned + n_ghost: local index -> global index */
    cg_csr a;                   /* n_owned rows (a.n = n_owned); columns are local indices
                                 * in [0, n_owned + n_ghost) (a.col not sorted by local
                                 * index: see above) */
    int n_send, n_recv;
    cg_halo_send *send;
    cg_halo_recv *recv;
} cg_part;

typedef struct cg_plan {
    int nparts;
    int64_t n;                  /* global rows */
    int *owner;                 /* n: global row -> its part */
    int32_t *local;             /* n: global row -> its local index in its owner part */
    cg_part *parts;             /* nparts */
} cg_plan;

/* Largest part count a plan accepts. */
#define CG_MAX_PARTS 4096

/* Every part's plan for the partition owner[0 .. a->n) of a's rows over nparts parts (the
 * array is copied). 0, or -1 with err set when nparts is out of [1, min(n, CG_MAX_PARTS)],
 * an owner is out of [0, nparts), or a part owns no row. */
int cg_plan_build(const cg_csr *a, int nparts, const int *owner, cg_plan *plan,
                  cg_error *err);
/* The contiguous partition of a over nparts parts (part p: rows [floor(p n / P),
 * floor((p+1) n / P))) and every part's plan; errors as cg_plan_build's. */
int cg_plan_contiguous(const cg_csr *a, int nparts, cg_plan *plan, cg_error *err);
void cg_plan_free(cg_plan *plan);
/* The part that owns global row g. */
int cg_plan_owner(const cg_plan *plan, int64_t g);
/* The halo's size: the ghost values of all parts together (what one exchange moves). */
int64_t cg_plan_halo_values(const cg_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
