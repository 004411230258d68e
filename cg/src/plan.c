/*
 * plan.c: the contiguous row partition and each part's halo plan (cg/plan.h: the local
 * ordering, the send and receive lists and the put displacements, and their invariants).
 *
 * Built in two passes. First each part on its own: its ghosts (the columns of its rows that
 * other parts own, sorted, so grouped by owner), its interior and border rows, its local
 * matrix and its receive groups. Then the send lists, as the mirror of the receive groups:
 * part q's send to p lists, in p's ghost order, q's local indices of those rows, with
 * p's n_owned + group offset as the displacement. Sends are generated from the receivers'
 * needs, so a sender never sends a value nobody reads.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cg/plan.h"
#include "util.h"

int cg_plan_owner(const cg_plan *plan, int64_t g)
{
    int lo = 0, hi = plan->nparts - 1; /* the last part whose start <= g */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (plan->start[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Index of g in the sorted array v[0..m), which holds it. */
static int32_t index_of(const int64_t *v, int32_t m, int64_t g)
{
    int32_t lo = 0, hi = m;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Part p alone: ordering, local matrix, receive groups. */
static void build_part(const cg_csr *a, const cg_plan *plan, int p, cg_part *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->part = p;
    pt->row_lo = plan->start[p];
    pt->row_hi = plan->start[p + 1];
    int32_t no = (int32_t)(pt->row_hi - pt->row_lo);
    pt->n_owned = no;
    int64_t lo = a->rowptr[pt->row_lo], hi = a->rowptr[pt->row_hi];

    /* Ghosts: the distinct outside columns, ascending (and so grouped by owner). */
    int64_t *gh = cg_xmalloc((size_t)(hi - lo) * sizeof *gh);
    int64_t ng = 0;
    bool *border = cg_xcalloc((size_t)no, sizeof *border);
    for (int64_t g = pt->row_lo; g < pt->row_hi; g++)
        for (int64_t k = a->rowptr[g]; k < a->rowptr[g + 1]; k++)
            if (a->col[k] < pt->row_lo || a->col[k] >= pt->row_hi) {
                gh[ng++] = a->col[k];
                border[g - pt->row_lo] = true;
            }
    qsort(gh, (size_t)ng, sizeof *gh, cmp_i64);
    int64_t w = 0;
    for (int64_t k = 0; k < ng; k++)
        if (w == 0 || gh[w - 1] != gh[k])
            gh[w++] = gh[k];
    pt->n_ghost = (int32_t)w;

    /* Local order: interior rows, border rows, ghosts. */
    pt->global = cg_xmalloc(((size_t)no + (size_t)w) * sizeof *pt->global);
    pt->local_of_owned = cg_xmalloc((size_t)no * sizeof *pt->local_of_owned);
    int32_t li = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int32_t r = 0; r < no; r++)
            if (border[r] == (pass == 1)) {
                pt->global[li] = pt->row_lo + r;
                pt->local_of_owned[r] = li++;
            }
    pt->n_border = 0;
    for (int32_t r = 0; r < no; r++)
        pt->n_border += border[r];
    pt->n_interior = no - pt->n_border;
    memcpy(pt->global + no, gh, (size_t)w * sizeof *gh);

    /* Local matrix, rows in local order, entries in their global order. */
    cg_csr *l = &pt->a;
    l->n = no;
    l->nnz = hi - lo;
    l->rowptr = cg_xmalloc(((size_t)no + 1) * sizeof *l->rowptr);
    l->col = cg_xmalloc((size_t)(hi - lo) * sizeof *l->col);
    l->val = cg_xmalloc((size_t)(hi - lo) * sizeof *l->val);
    l->rowptr[0] = 0;
    int64_t q = 0;
    for (int32_t li2 = 0; li2 < no; li2++) {
        int64_t g = pt->global[li2];
        for (int64_t k = a->rowptr[g]; k < a->rowptr[g + 1]; k++) {
            int64_t c = a->col[k];
            l->col[q] = (c >= pt->row_lo && c < pt->row_hi)
                            ? pt->local_of_owned[c - pt->row_lo]
                            : no + index_of(gh, (int32_t)w, c);
            l->val[q] = a->val[k];
            q++;
        }
        l->rowptr[li2 + 1] = q;
    }

    /* Receive groups: runs of ghosts with the same owner. */
    pt->recv = cg_xmalloc(((size_t)w + 1) * sizeof *pt->recv);
    pt->n_recv = 0;
    for (int32_t k = 0; k < w; k++) {
        int owner = cg_plan_owner(plan, gh[k]);
        if (pt->n_recv == 0 || pt->recv[pt->n_recv - 1].part != owner)
            pt->recv[pt->n_recv++] = (cg_halo_recv){owner, 0, no + k};
        pt->recv[pt->n_recv - 1].count++;
    }
    free(border);
    free(gh);
}

int cg_plan_contiguous(const cg_csr *a, int nparts, cg_plan *plan, cg_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (nparts < 1 || nparts > CG_MAX_PARTS || nparts > a->n)
        return cg_fail(err, "partition: %d parts of a %d-row matrix: give 1 to %d parts (at "
                       "least one row each)", nparts, a->n,
                       a->n < CG_MAX_PARTS ? a->n : CG_MAX_PARTS);
    plan->nparts = nparts;
    plan->n = a->n;
    plan->start = cg_xmalloc(((size_t)nparts + 1) * sizeof *plan->start);
    for (int p = 0; p <= nparts; p++)
        plan->start[p] = (int64_t)p * a->n / nparts;
    plan->parts = cg_xcalloc((size_t)nparts, sizeof *plan->parts);
    for (int p = 0; p < nparts; p++)
        build_part(a, plan, p, &plan->parts[p]);

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
                s->idx[m] = sp->local_of_owned[rp->global[rv->offset + m] - sp->row_lo];
        }
    }
    free(nsend);
    return 0;
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
        free(pt->local_of_owned);
        cg_csr_free(&pt->a);
    }
    free(plan->parts);
    free(plan->start);
    memset(plan, 0, sizeof *plan);
}
