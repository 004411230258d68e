/*
 * cg/partition.h: how the rows of a matrix are split over the PEs (--partition): contiguous
 * row ranges, or METIS's recursive bisection of the matrix graph (paper 002 §3,
 * METIS_PartGraphRecursive), and the halo plan of either (cg/plan.h).
 *
 * METIS's graph: one vertex per row, an edge (i, j) for every off-diagonal entry (the
 * pattern is symmetric: cg/matrix.h), no vertex or edge weights, METIS's default options
 * but the seed (METIS_OPTION_SEED = the seed given; CG_METIS_SEED from the command line).
 * METIS 5.1 draws its random numbers from the C library's rand() after an srand(seed) at
 * the start of every call, so a partition is a function of the graph, the part count, the
 * seed and the METIS version alone (docs/cg.md, "Partition and halo plan"), provided no
 * other thread calls rand() during the call; the callers here call it before any PE thread
 * starts. The solvers' bits do not depend on the partition at all (every row is summed in
 * its global column order, every dot product is exact), so a different METIS version changes
 * the halo sizes, never the result.
 *
 * Built with METIS when its header is found (cg/cg.mk: /usr/include/metis.h, Debian's
 * libmetis-dev); without it, cg_metis_available() is false and a METIS partition is refused
 * with a message that says to install libmetis-dev and rebuild.
 */
#ifndef CG_PARTITION_H
#define CG_PARTITION_H

#include <stdbool.h>

#include "cg/matrix.h"
#include "cg/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cg_partition { CG_PARTITION_CONTIGUOUS = 0, CG_PARTITION_METIS } cg_partition;

/* METIS_OPTION_SEED of the command line's and the parallel solvers' METIS partitions. */
#define CG_METIS_SEED 1

/* Whether this build has METIS. */
bool cg_metis_available(void);
/* 0 when this build has METIS, else -1 with err saying to install libmetis-dev and rebuild
 * (what --partition metis answers then). */
int cg_metis_require(cg_error *err);

/* METIS_PartGraphRecursive's partition of a's rows into nparts parts: owner[g] in
 * [0, nparts) for each of the a->n rows. nparts = 1 gives part 0 without calling METIS.
 * 0, or -1 with err set: no METIS in this build, nparts out of [1, min(n, CG_MAX_PARTS)],
 * a graph too large for METIS's 32-bit indices, an error code from METIS (named), or a part
 * METIS left empty (the plan needs one row per part at least). */
int cg_partition_metis(const cg_csr *a, int nparts, int seed, int *owner, cg_error *err);

/* The plan of a over nparts parts partitioned by `how` (METIS with CG_METIS_SEED).
 * 0, or -1 with err set (cg_plan_build's and cg_partition_metis's errors). */
int cg_plan_partitioned(const cg_csr *a, int nparts, cg_partition how, cg_plan *plan,
                        cg_error *err);

/* "contiguous" or "metis". */
const char *cg_partition_name(cg_partition how);

#ifdef __cplusplus
}
#endif

#endif
