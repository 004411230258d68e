/*
 * plan.c: the halo plan of any row partition (cg/plan.h: the local ordering, the send and
 * receive lists and the put displacements, and their invariants), and the contiguous
 * partition, the map that cg_plan_contiguous hands to the same builder.
 *
 * Built in three passes over the owner map. First every row's class: border when one of
 * its columns has another owner. Then each part on its own: its rows (interior, then
 * border, ascending), its ghosts (the columns of its rows that other parts own, sorted by
 * (owner, global index), so grouped by owner), its local matrix and its receive groups.
 * Then the send lists, as the mirror of the receive groups: part q's send to p lists, in
 * p's ghost order, q's local indices of those rows, with p's n_owned + group offset as the
 * displacement. Sends are generated from the receivers' needs, so a sender never sends a
 * value nobody reads. Nothing here depends on the parts being contiguous.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cg/plan.h"
#include "util.h"

int cg_plan_owner(const cg_plan *plan, int64_t g)
{
    return plan->owner[g];
}

int64_t cg_plan_halo_values(const cg_plan *plan)
{
    int64_t sum = 0;
    for (int p = 0; p < plan->nparts; p++)
        sum += plan->parts[p].n_ghost;
    return sum;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Index of key in the sorted array v[0..m), which holds it. */
static int32_t index_of(const int64_t *v, int32_t m, int64_t key)
{
    int32_t lo = 0, hi = m;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A ghost's sort key: owner first, then global index (n <= CG_MAX_ROWS, so no overflow). */
static int64_t ghost_key(const cg_plan *plan, int64_t g)
{
    return (int64_t)plan->owner[g] * plan->n + g;
}

/* Part p alone: ordering (rows[0..no) are its rows, ascending; border[g] is each global
 * row's class), local matrix, receive groups. Sets plan->local for its rows. */
static void build_part(const cg_csr *a, cg_plan *plan, int p, const int32_t *rows, int32_t no,
                       const bool *border, cg_part *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->part = p;
    pt->n_owned = no;
    int64_t nnz = 0;
    for (int32_t r = 0; r < no; r++)
        nnz += a->rowptr[rows[r] + 1] - a->rowptr[rows[r]];

    /* Ghosts: the distinct outside columns as (owner, global) keys, ascending. */
    int64_t *key = cg_xmalloc(((size_t)nnz + 1) * sizeof *key);
    int64_t ng = 0;
    for (int32_t r = 0; r < no; r++) {
        int32_t g = rows[r];
        if (!border[g])
            continue;
        for (int64_t k = a->rowptr[g]; k < a->rowptr[g + 1]; k++)
            if (plan->owner[a->col[k]] != p)
                key[ng++] = ghost_key(plan, a->col[k]);
    }
    qsort(key, (size_t)ng, sizeof *key, cmp_i64);
    int64_t w = 0;
    for (int64_t k = 0; k < ng; k++)
        if (w == 0 || key[w - 1] != key[k])
            key[w++] = key[k];
    pt->n_ghost = (int32_t)w;

    /* Local order: interior rows, border rows, ghosts. */
    pt->global = cg_xmalloc(((size_t)no + (size_t)w + 1) * sizeof *pt->global);
    int32_t li = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t r = 0; r < no; r++)
            if (border[rows[r]] == (pass == 1)) {
                pt->global[li] = rows[r];
                plan->local[rows[r]] = li++;
            }
    pt->n_border = 0;
    for (int32_t r = 0; r < no; r++)
        pt->n_border += border[rows[r]];
    pt->n_interior = no - pt->n_border;
    for (int64_t k = 0; k < w; k++)
        pt->global[no + k] = key[k] % plan->n;

    /* Local matrix, rows in local order, entries in their global order. */
    cg_csr *l = &pt->a;
    l->n = no;
    l->nnz = nnz;
    l->rowptr = cg_xmalloc(((size_t)no + 1) * sizeof *l->rowptr);
    l->col = cg_xmalloc(((size_t)nnz + 1) * sizeof *l->col);
    l->val = cg_xmalloc(((size_t)nnz + 1) * sizeof *l->val);
    l->rowptr[0] = 0;
    int64_t q = 0;
    for (int32_t r = 0; r < no; r++) {
        int64_t g = pt->global[r];
        for (int64_t k = a->rowptr[g]; k < a->rowptr[g + 1]; k++) {
            int32_t c = a->col[k];
            l->col[q] = plan->owner[c] == p
                            ? plan->local[c]
                            : no + index_of(key, (int32_t)w, ghost_key(plan, c));
            l->val[q] = a->val[k];
            q++;
        }
        l->rowptr[r + 1] = q;
    }

    /* Receive groups: runs of ghosts with the same owner. */
    pt->recv = cg_xmalloc(((size_t)w + 1) * sizeof *pt->recv);
    pt->n_recv = 0;
    for (int32_t k = 0; k < w; k++) {
        int owner = (int)(key[k] / plan->n);
        if (pt->n_recv == 0 || pt->recv[pt->n_recv - 1].part != owner)
            pt->recv[pt->n_recv++] = (cg_halo_recv){owner, 0, no + k};
        pt->recv[pt->n_recv - 1].count++;
    }
    free(key);
}

int cg_plan_build(const cg_csr *a, int nparts, const int *owner, cg_plan *plan,
                  cg_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (nparts < 1 || nparts > CG_MAX_PARTS || nparts > a->n)
        return cg_fail(err, "partition: %d parts of a %d-row matrix: give 1 to %d parts (at "
                       "least one row each)", nparts, a->n,
                       a->n < CG_MAX_PARTS ? a->n : CG_MAX_PARTS);
    /* rows of each part, ascending (a counting sort of the owner map) */
    int32_t *first = cg_xcalloc((size_t)nparts + 1, sizeof *first);
    for (int32_t g = 0; g < a->n; g++) {
        if (owner[g] < 0 || owner[g] >= nparts) {
            free(first);
            return cg_fail(err, "partition: row %d belongs to part %d, not one of the %d parts",
                           g, owner[g], nparts);
        }
        first[owner[g] + 1]++;
    }
    for (int p = 0; p < nparts; p++)
        if (first[p + 1] == 0) {
            free(first);
            return cg_fail(err, "partition: part %d of %d owns no row of the %d-row matrix: "
                           "give fewer parts (PEs)", p, nparts, a->n);
        }
    for (int p = 0; p < nparts; p++)
        first[p + 1] += first[p];
    int32_t *rows = cg_xmalloc(((size_t)a->n + 1) * sizeof *rows);
    int32_t *fill = cg_xmalloc(((size_t)nparts + 1) * sizeof *fill);
    memcpy(fill, first, (size_t)nparts * sizeof *fill);
    for (int32_t g = 0; g < a->n; g++)
        rows[fill[owner[g]]++] = g;
    free(fill);

    plan->nparts = nparts;
    plan->n = a->n;
    plan->owner = cg_xmalloc(((size_t)a->n + 1) * sizeof *plan->owner);
    memcpy(plan->owner, owner, (size_t)a->n * sizeof *owner);
    plan->local = cg_xmalloc(((size_t)a->n + 1) * sizeof *plan->local);
    bool *border = cg_xcalloc((size_t)a->n + 1, sizeof *border);
    for (int32_t g = 0; g < a->n; g++)
        for (int64_t k = a->rowptr[g]; k < a->rowptr[g + 1] && !border[g]; k++)
            border[g] = owner[a->col[k]] != owner[g];
    plan->parts = cg_xcalloc((size_t)nparts, sizeof *plan->parts);
    for (int p = 0; p < nparts; p++)
        build_part(a, plan, p, rows + first[p], first[p + 1] - first[p], border,
                   &plan->parts[p]);
    free(border);
    free(rows);
    free(first);

    /* Sends: the mirror of every receive group, in ascending receiver order. */
    int *nsend = cg_xcalloc((size_t)nparts, sizeof *nsend);
    for (int p = 0; p < nparts; p++)
        for (int k = 0; k < plan->parts[p].n_recv; k++)
            nsend[plan->parts[p].recv[k].part]++;
    for (int q = 0; q < nparts; q++)
        plan->parts[q].send = cg_xcalloc((size_t)nsend[q] + 1, sizeof(cg_halo_send));
    for (int p = 0; p < nparts; p++) {
        const cg_part *rp = &plan->parts[p];
        for (int k = 0; k < rp->n_recv; k++) {
            const cg_halo_recv *rv = &rp->recv[k];
            cg_part *sp = &plan->parts[rv->part];
            cg_halo_send *s = &sp->send[sp->n_send++];
            s->part = p;
            s->count = rv->count;
            s->disp = rv->offset;
            s->idx = cg_xmalloc((size_t)rv->count * sizeof *s->idx);
            for (int32_t m = 0; m < rv->count; m++)
                s->idx[m] = plan->local[rp->global[rv->offset + m]];
        }
    }
    free(nsend);
    return 0;
}

int cg_plan_contiguous(const cg_csr *a, int nparts, cg_plan *plan, cg_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (nparts < 1 || nparts > CG_MAX_PARTS || nparts > a->n)
        return cg_plan_build(a, nparts, NULL, plan, err); /* its message */
    int *owner = cg_xmalloc(((size_t)a->n + 1) * sizeof *owner);
    for (int p = 0; p < nparts; p++)
        for (int64_t g = (int64_t)p * a->n / nparts; g < (int64_t)(p + 1) * a->n / nparts; g++)
            owner[g] = p;
    int rc = cg_plan_build(a, nparts, owner, plan, err);
    free(owner);
    return rc;
}

void cg_plan_free(cg_plan *plan)
{
    for (int p = 0; p < plan->nparts && plan->parts; p++) {
        cg_part *pt = &plan->parts[p];
        for (int k = 0; k < pt->n_send; k++)
            free(pt->send[k].idx);
        free(pt->send);
        free(pt->recv);
        free(pt->global);
        cg_csr_free(&pt->a);
    }
    free(plan->parts);
    free(plan->local);
    free(plan->owner);
    memset(plan, 0, sizeof *plan);
}
