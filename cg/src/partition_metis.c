/*
 * partition_metis.c: METIS's partition of a matrix's rows (cg/partition.h), the only file
 * that includes metis.h; compiled with CG_HAVE_METIS when cg/cg.mk finds the header, else
 * as the refusal that says how to get it.
 *
 * The graph METIS gets (CSR form, 0-based): vertex i = row i, its neighbours the columns of
 * row i's off-diagonal entries, in their stored (ascending) order; symmetric because every
 * cg_csr's pattern is. No weights (unit vertices and edges), METIS_SetDefaultOptions, then
 * METIS_OPTION_SEED. METIS 5.1 reseeds its generator (the C library's srand/rand, Debian's
 * build) at every call, so two calls with the same graph, part count and seed give the
 * same parts (tests/test_cg_partition.c checks it, with other calls in between).
 */
#include "cg/partition.h"

#include <stdint.h>
#include <stdlib.h>

#include "util.h"

#ifdef CG_HAVE_METIS
#include <metis.h>

bool cg_metis_available(void)
{
    return true;
}

int cg_metis_require(cg_error *err)
{
    (void)err;
    return 0;
}

static const char *metis_status(int rc)
{
    switch (rc) {
    case METIS_ERROR_INPUT:
        return "METIS_ERROR_INPUT (METIS found the graph or an option invalid)";
    case METIS_ERROR_MEMORY:
        return "METIS_ERROR_MEMORY (METIS ran out of memory)";
    case METIS_ERROR:
        return "METIS_ERROR (some other error inside METIS)";
    default:
        return "an unknown status";
    }
}

int cg_partition_metis(const cg_csr *a, int nparts, int seed, int *owner, cg_error *err)
{
    if (nparts < 1 || nparts > CG_MAX_PARTS || nparts > a->n)
        return cg_fail(err, "METIS partition: %d parts of a %d-row matrix: give 1 to %d parts "
                       "(at least one row each)", nparts, a->n,
                       a->n < CG_MAX_PARTS ? a->n : CG_MAX_PARTS);
    if (nparts == 1) { /* METIS has nothing to cut */
        for (int32_t g = 0; g < a->n; g++)
            owner[g] = 0;
        return 0;
    }
    int64_t nadj = 0;
    for (int32_t i = 0; i < a->n; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            nadj += a->col[k] != i;
    if (nadj > INT32_MAX)
        return cg_fail(err, "METIS partition: %lld off-diagonal entries exceed the 32-bit "
                       "indices of Debian's METIS (IDXTYPEWIDTH %d): give --partition "
                       "contiguous", (long long)nadj, IDXTYPEWIDTH);
    idx_t *xadj = cg_xmalloc(((size_t)a->n + 1) * sizeof *xadj);
    idx_t *adj = cg_xmalloc(((size_t)nadj + 1) * sizeof *adj);
    idx_t *part = cg_xmalloc(((size_t)a->n + 1) * sizeof *part);
    idx_t q = 0;
    xadj[0] = 0;
    for (int32_t i = 0; i < a->n; i++) {
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (a->col[k] != i)
                adj[q++] = a->col[k];
        xadj[i + 1] = q;
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = seed;
    idx_t nv = a->n, ncon = 1, np = nparts, cut = 0;
    int rc = METIS_PartGraphRecursive(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL,
                                      options, &cut, part);
    int status = 0;
    if (rc != METIS_OK) {
        status = cg_fail(err, "METIS partition: METIS_PartGraphRecursive of the %d-row matrix "
                         "into %d parts returned %d, %s: give --partition contiguous",
                         a->n, nparts, rc, metis_status(rc));
    } else {
        int32_t *count = cg_xcalloc((size_t)nparts, sizeof *count);
        for (int32_t g = 0; g < a->n && status == 0; g++) {
            if (part[g] < 0 || part[g] >= nparts) {
                status = cg_fail(err, "METIS partition: METIS put row %d in part %d, not one "
                                 "of the %d parts", g, (int)part[g], nparts);
            } else {
                count[part[g]]++;
                owner[g] = (int)part[g];
            }
        }
        for (int p = 0; p < nparts && status == 0; p++)
            if (count[p] == 0)
                status = cg_fail(err, "METIS partition: METIS left part %d of %d empty (%d "
                                 "rows): give fewer PEs, or --partition contiguous", p,
                                 nparts, a->n);
        free(count);
    }
    free(part);
    free(adj);
    free(xadj);
    return status;
}

#else /* no METIS in this build */

bool cg_metis_available(void)
{
    return false;
}

int cg_metis_require(cg_error *err)
{
    return cg_fail(err, "--partition metis: this shmemu-cg was built without METIS "
                   "(/usr/include/metis.h was not found): install it (apt-get install "
                   "libmetis-dev, or scripts/ensure-deps.sh test) and rebuild (make), or give "
                   "--partition contiguous");
}

int cg_partition_metis(const cg_csr *a, int nparts, int seed, int *owner, cg_error *err)
{
    (void)a, (void)nparts, (void)seed, (void)owner;
    return cg_metis_require(err);
}

#endif
