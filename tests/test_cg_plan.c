/*
 * test_cg_plan.c: the contiguous partition and the halo plan (cg/plan.h), checked by a
 * serial simulation of the distributed SpMV (test_cg_plan_sim.h, shared with
 * test_cg_partition.c's METIS partitions). For P = 1..8 parts of the 1-D, 2-D and 3-D
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
#include "test_cg_plan_sim.h"

static void run_all_parts(const cg_csr *a)
{
    for (int np = 1; np <= 8; np++) {
        cg_plan pl;
        cg_error err;
        if (cg_plan_contiguous(a, np, &pl, &err) != 0)
            fail_msg("%s", err.msg);
        cgt_check_plan(a, &pl);
        cgt_simulate(a, &pl, (uint64_t)np);
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
    for (int64_t g = 0; g < 10; g++) /* parts own [0,3) [3,6) [6,10) */
        assert_int_equal(pl.owner[g], g < 3 ? 0 : g < 6 ? 1 : 2);
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
