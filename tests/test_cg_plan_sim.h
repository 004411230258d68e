/*
 * test_cg_plan_sim.h: checks of a halo plan (cg/plan.h) shared by test_cg_plan.c
 * (contiguous partitions) and test_cg_partition.c (METIS's), for any partition:
 *   cgt_check_plan: the plan's invariants: every row owned by exactly one part (owner and
 *     local agree with each part's global map), the local ordering (interior rows, then
 *     border rows, each in ascending global order, then ghosts grouped by owner in
 *     ascending order), interior rows use no ghost, border rows use one, receive groups
 *     tile the ghost region, each send mirrors a receive (count, displacement, the
 *     receiver's ghost globals);
 *   cgt_simulate: the distributed SpMV by serial simulation: every part's owned values from
 *     x, its ghosts filled only through the other parts' send lists (put at disp + k into
 *     the receiver's local vector); every ghost slot written exactly once (unfilled ones
 *     stay NaN); each part's local SpMV equals the serial cg_spmv bit for bit; partial dot
 *     products of the parts, merged in reverse order, equal cg_dot.
 * Header-only (static functions), as test_cg_util.h, so that each suite stays one file.
 */
#ifndef TEST_CG_PLAN_SIM_H
#define TEST_CG_PLAN_SIM_H

#include <math.h>

#include "test_cg_util.h"

static void cgt_check_plan(const cg_csr *a, const cg_plan *pl)
{
    int np = pl->nparts;
    assert_int_equal(pl->n, a->n);
    int32_t owned = 0;
    for (int p = 0; p < np; p++) {
        const cg_part *pt = &pl->parts[p];
        assert_true(pt->n_owned >= 1);
        owned += pt->n_owned;
        assert_int_equal(pt->n_interior + pt->n_border, pt->n_owned);
        assert_int_equal(pt->a.n, pt->n_owned);
        for (int32_t l = 0; l < pt->n_owned; l++) {
            int64_t g = pt->global[l];
            assert_true(g >= 0 && g < a->n);
            assert_int_equal(pl->owner[g], p);
            assert_int_equal(cg_plan_owner(pl, g), p);
            assert_int_equal(pl->local[g], l);
            bool uses_ghost = false;
            for (int64_t k = pt->a.rowptr[l]; k < pt->a.rowptr[l + 1]; k++) {
                int32_t c = pt->a.col[k];
                assert_true(c >= 0 && c < pt->n_owned + pt->n_ghost);
                uses_ghost |= c >= pt->n_owned;
            }
            assert_int_equal(uses_ghost, l >= pt->n_interior);
            if (l > 0 && l != pt->n_interior) /* ascending within each class */
                assert_true(pt->global[l - 1] < g);
        }
        /* receive groups tile the ghost region, ascending owners, ascending globals */
        int32_t next = pt->n_owned;
        for (int k = 0; k < pt->n_recv; k++) {
            const cg_halo_recv *rv = &pt->recv[k];
            assert_int_equal(rv->offset, next);
            assert_true(rv->count >= 1 && rv->part != p);
            if (k > 0)
                assert_true(pt->recv[k - 1].part < rv->part);
            for (int32_t m = 0; m < rv->count; m++) {
                int64_t g = pt->global[rv->offset + m];
                assert_int_equal(cg_plan_owner(pl, g), rv->part);
                if (m > 0)
                    assert_true(pt->global[rv->offset + m - 1] < g);
            }
            next += rv->count;
        }
        assert_int_equal(next, pt->n_owned + pt->n_ghost);
        /* each send mirrors the receiver's group */
        for (int k = 0; k < pt->n_send; k++) {
            const cg_halo_send *s = &pt->send[k];
            const cg_part *dst = &pl->parts[s->part];
            if (k > 0)
                assert_true(pt->send[k - 1].part < s->part);
            const cg_halo_recv *rv = NULL;
            for (int j = 0; j < dst->n_recv; j++)
                if (dst->recv[j].part == p)
                    rv = &dst->recv[j];
            assert_non_null(rv);
            assert_int_equal(s->disp, rv->offset);
            assert_int_equal(s->count, rv->count);
            for (int32_t m = 0; m < s->count; m++) {
                assert_true(s->idx[m] >= pt->n_interior && s->idx[m] < pt->n_owned);
                assert_int_equal(pt->global[s->idx[m]], dst->global[s->disp + m]);
            }
        }
    }
    assert_int_equal(owned, a->n); /* with owner[g] == p above: each row in one part */
}

/* The distributed SpMV and dot product through the plan, against the serial ones. */
static void cgt_simulate(const cg_csr *a, const cg_plan *pl, uint64_t seed)
{
    int np = pl->nparts;
    double *x = malloc((size_t)a->n * sizeof *x), *y = malloc((size_t)a->n * sizeof *y);
    for (int32_t i = 0; i < a->n; i++)
        x[i] = (double)(cg_hash(seed, (uint64_t)i) >> 11) * 0x1p-53 - 0.5;
    cg_spmv(a, x, y);
    double **xl = calloc((size_t)np, sizeof *xl);
    int **writes = calloc((size_t)np, sizeof *writes);
    for (int p = 0; p < np; p++) {
        const cg_part *pt = &pl->parts[p];
        xl[p] = malloc(((size_t)pt->n_owned + (size_t)pt->n_ghost + 1) * sizeof **xl);
        writes[p] = calloc((size_t)pt->n_ghost + 1, sizeof **writes);
        for (int32_t l = 0; l < pt->n_owned; l++)
            xl[p][l] = x[pt->global[l]];
        for (int32_t l = pt->n_owned; l < pt->n_owned + pt->n_ghost; l++)
            xl[p][l] = NAN; /* a ghost the halo never fills poisons its rows */
    }
    for (int p = 0; p < np; p++) /* the puts */
        for (int k = 0; k < pl->parts[p].n_send; k++) {
            const cg_halo_send *s = &pl->parts[p].send[k];
            const cg_part *dst = &pl->parts[s->part];
            for (int32_t m = 0; m < s->count; m++) {
                xl[s->part][s->disp + m] = xl[p][s->idx[m]];
                writes[s->part][s->disp + m - dst->n_owned]++;
            }
        }
    cg_xsum *part_dot = malloc((size_t)np * sizeof *part_dot);
    assert_non_null(part_dot);
    for (int p = 0; p < np; p++) {
        const cg_part *pt = &pl->parts[p];
        for (int32_t g = 0; g < pt->n_ghost; g++)
            assert_int_equal(writes[p][g], 1);
        double *yl = malloc(((size_t)pt->n_owned + 1) * sizeof *yl);
        cg_spmv(&pt->a, xl[p], yl);
        for (int32_t l = 0; l < pt->n_owned; l++)
            assert_same_double(yl[l], y[pt->global[l]]);
        cg_xsum_init(&part_dot[p]);
        cg_xsum_add_dot(&part_dot[p], xl[p], yl, (size_t)pt->n_owned);
        free(yl);
    }
    cg_xsum total;
    cg_xsum_init(&total);
    for (int p = np - 1; p >= 0; p--) /* merged in reverse part order */
        cg_xsum_merge(&total, &part_dot[p]);
    assert_same_double(cg_xsum_round(&total), cg_dot(x, y, (size_t)a->n));
    for (int p = 0; p < np; p++) {
        free(xl[p]);
        free(writes[p]);
    }
    free(part_dot);
    free(xl);
    free(writes);
    free(x);
    free(y);
}

#endif
