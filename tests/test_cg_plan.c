/*
 * test_cg_plan.c: the contiguous partition and the halo plan (cg/plan.h), checked by a
 * serial simulation of the distributed SpMV. For P = 1..8 parts of the 1-D, 2-D and 3-D
 * Poisson matrices and of tests/cg_data/spd40.mtx:
 *   - the plan's invariants: the local ordering (interior rows, then border rows, each in
 *     ascending global order, then ghosts grouped by owner in ascending order), interior
 *     rows use no ghost, border rows use one, receive groups tile the ghost region, each
 *     send mirrors a receive (count, displacement, the receiver's ghost globals);
 *   - the simulation: every part's owned values from x, its ghosts filled only through the
 *     other parts' send lists (put at disp + k into the receiver's local vector); every
 *     ghost slot written exactly once; each part's local SpMV equals the serial cg_spmv bit
 *     for bit; partial dot products of the parts, merged in any order, equal cg_dot.
 */
#include <math.h>

#include "test_cg_util.h"

static void check_plan(const cg_csr *a, const cg_plan *pl)
{
    int np = pl->nparts;
    assert_int_equal(pl->start[0], 0);
    assert_int_equal(pl->start[np], a->n);
    for (int p = 0; p < np; p++) {
        const cg_part *pt = &pl->parts[p];
        assert_true(pt->n_owned >= 1);
        assert_int_equal(pt->n_interior + pt->n_border, pt->n_owned);
        assert_int_equal(pt->a.n, pt->n_owned);
        for (int32_t l = 0; l < pt->n_owned; l++) {
            int64_t g = pt->global[l];
            assert_true(g >= pt->row_lo && g < pt->row_hi);
            assert_int_equal(pt->local_of_owned[g - pt->row_lo], l);
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
}

/* The distributed SpMV and dot product through the plan, against the serial ones. */
static void simulate(const cg_csr *a, const cg_plan *pl, uint64_t seed)
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
    cg_xsum part_dot[8];
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
    free(xl);
    free(writes);
    free(x);
    free(y);
}

static void run_all_parts(const cg_csr *a)
{
    for (int np = 1; np <= 8; np++) {
        cg_plan pl;
        cg_error err;
        if (cg_plan_contiguous(a, np, &pl, &err) != 0)
            fail_msg("%s", err.msg);
        check_plan(a, &pl);
        simulate(a, &pl, (uint64_t)np);
        if (np == 1)
            assert_int_equal(pl.parts[0].n_ghost, 0);
        cg_plan_free(&pl);
    }
}

static void test_poisson(void **state)
{
    (void)state;
    cg_csr a;
    cg_error err;
    assert_int_equal(cg_poisson1d(&a, 53, &err), 0);
    run_all_parts(&a);
    cg_csr_free(&a);
    assert_int_equal(cg_poisson2d(&a, 11, &err), 0);
    run_all_parts(&a);
    cg_csr_free(&a);
    assert_int_equal(cg_poisson3d(&a, 6, &err), 0);
    run_all_parts(&a);
    cg_csr_free(&a);
}

static void test_mtx(void **state)
{
    (void)state;
    size_t len;
    char *buf = cgt_read_data("spd40.mtx", &len);
    cg_csr a;
    cg_mtx_info info;
    cg_error err;
    assert_int_equal(cg_mtx_parse(buf, len, "spd40.mtx", &a, &info, &err), 0);
    run_all_parts(&a);
    /* long-range couplings: one part of 8 receives from all 7 others */
    cg_plan pl;
    assert_int_equal(cg_plan_contiguous(&a, 8, &pl, &err), 0);
    int most = 0;
    for (int p = 0; p < 8; p++)
        most = pl.parts[p].n_recv > most ? pl.parts[p].n_recv : most;
    assert_int_equal(most, 7);
    cg_plan_free(&pl);
    cg_csr_free(&a);
    free(buf);
}

static void test_shapes_and_refusals(void **state)
{
    (void)state;
    cg_csr a;
    cg_plan pl;
    cg_error err;
    /* 1-D Poisson, 10 rows, 3 parts: rows [0,3) [3,6) [6,10); the middle part has border
     * rows 3 and 5, interior 4, ghosts 2 (from part 0) and 6 (from part 2). */
    assert_int_equal(cg_poisson1d(&a, 10, &err), 0);
    assert_int_equal(cg_plan_contiguous(&a, 3, &pl, &err), 0);
    const cg_part *m = &pl.parts[1];
    assert_int_equal(m->row_lo, 3);
    assert_int_equal(m->row_hi, 6);
    assert_int_equal(m->n_interior, 1);
    assert_int_equal(m->n_border, 2);
    assert_int_equal(m->n_ghost, 2);
    int64_t want[5] = {4, 3, 5, 2, 6};
    for (int k = 0; k < 5; k++)
        assert_int_equal(m->global[k], want[k]);
    assert_int_equal(m->n_send, 2);
    assert_int_equal(m->send[0].part, 0);
    assert_int_equal(m->send[0].disp, 3); /* part 0 owns 3 rows: its ghost 3 is row 3 */
    assert_int_equal(m->send[1].part, 2);
    assert_int_equal(m->send[1].disp, 4); /* part 2 owns 4 rows: its ghost is local 4 */
    cg_plan_free(&pl);
    assert_int_equal(cg_plan_contiguous(&a, 11, &pl, &err), -1);
    assert_non_null(strstr(err.msg, "11 parts of a 10-row matrix"));
    assert_int_equal(cg_plan_contiguous(&a, 0, &pl, &err), -1);
    cg_csr_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_poisson),
        cmocka_unit_test(test_mtx),
        cmocka_unit_test(test_shapes_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
