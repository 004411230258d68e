/*
 * partition.c: the plan of a partition chosen by name (cg/partition.h): contiguous rows
 * (plan.c) or METIS's (partition_metis.c, the only file that sees metis.h).
 */
#include "cg/partition.h"

#include <stdlib.h>

#include "util.h"

const char *cg_partition_name(cg_partition how)
{
    return how == CG_PARTITION_METIS ? "metis" : "contiguous";
}

int cg_plan_partitioned(const cg_csr *a, int nparts, cg_partition how, cg_plan *plan,
                        cg_error *err)
{
    if (how == CG_PARTITION_CONTIGUOUS)
        return cg_plan_contiguous(a, nparts, plan, err);
    if (how != CG_PARTITION_METIS)
        return cg_fail(err, "partition %d: give CG_PARTITION_CONTIGUOUS or CG_PARTITION_METIS",
                       (int)how);
    int *owner = cg_xmalloc(((size_t)a->n + 1) * sizeof *owner);
    int rc = cg_partition_metis(a, nparts, CG_METIS_SEED, owner, err);
    if (rc == 0)
        rc = cg_plan_build(a, nparts, owner, plan, err);
    free(owner);
    return rc;
}
