/*
 * test_md_pairlist.c: cell lists and the buffered pair list against the brute-force
 * oracle: complete and exact at search steps (every pair within rlist once, at the
 * minimum image), pairs missed between searches counted the same on every decomposition,
 * the cut-off applied per pair at every step, deterministic order, the local/non-local
 * split, small boxes (four cells per dimension: the offsets +2 and -2 reach the same cell at
 * two images), and planted list bugs that the oracle must
 * catch.
 */
#include "check.h"
#include "pairlist.h"
#include "test_md_util.h"

static void assert_exact(const md_pair_report *r, const char *what)
{
    if (r->missing || r->duplicates || r->beyond || r->bad_displacement ||
        r->listed != r->brute)
        fail_msg("%s: brute %lld listed %lld missing %lld duplicates %lld beyond %lld "
                 "bad displacement %lld", what, (long long)r->brute, (long long)r->listed,
                 (long long)r->missing, (long long)r->duplicates, (long long)r->beyond,
                 (long long)r->bad_displacement);
}

static void test_list_matches_brute_force(void **state)
{
    (void)state;
    static const struct {
        int cells[3];
        double rc, skin, jiggle;
    } cases[] = {
        {{5, 5, 5}, 2.5, 0.3, 0.15},
        {{4, 4, 4}, 1.2, 0.3, 0.15},  /* several cells per dimension */
        {{4, 4, 4}, 2.6, 0.4, 0.1},   /* box 6.7 σ, rlist 3.0: four cells, the fewest */
        {{7, 4, 5}, 2.0, 0.0, 0.12},  /* no buffer, non-cubic */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        md_system sys;
        md_test_fcc(&sys, cases[k].cells[0], cases[k].cells[1], cases[k].cells[2], 1.0,
                    k + 1, 0.005);
        md_test_jiggle(&sys, cases[k].jiggle, k + 100);
        md_params par;
        md_params_default(&par);
        par.rc = cases[k].rc;
        par.skin = cases[k].skin;
        md_sim *s = md_test_sim(&sys, &par, 1, 1, 1, false);
        md_pair_report rep;
        md_check_pairs(s, s->lj.rlist2, &rep);
        assert_exact(&rep, "1 PE at the search step");
        assert_true(rep.brute > 4 * sys.atoms.n);
        md_sim_destroy(s);
        md_system_free(&sys);
    }
}

static void test_list_structure(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 5, 4, 4, 1.0, 3, 0.005);
    md_test_jiggle(&sys, 0.15, 8);
    md_params par;
    md_params_default(&par);
    md_sim *s = md_test_sim(&sys, &par, 2, 1, 1, false);
    for (int r = 0; r < 2; r++) {
        const md_pe *pe = &s->pes[r];
        const md_pairlist *lists[2] = {&pe->local, &pe->nonlocal};
        assert_true(pe->local.npairs > 0 && pe->nonlocal.npairs > 0);
        for (int l = 0; l < 2; l++) {
            int64_t expect_begin = 0;
            for (int64_t e = 0; e < lists[l]->nent; e++) {
                const md_ientry *en = &lists[l]->ent[e];
                assert_int_equal(en->begin, expect_begin);
                assert_true(en->end > en->begin);
                expect_begin = en->end;
                if (e > 0) { /* ordered by (i, shift) */
                    const md_ientry *pv = &lists[l]->ent[e - 1];
                    assert_true(pv->i < en->i || (pv->i == en->i && pv->shift < en->shift));
                }
                for (int64_t q = en->begin; q < en->end; q++) {
                    int32_t j = lists[l]->j[q];
                    assert_true(en->i < j);
                    if (q > en->begin)
                        assert_true(lists[l]->j[q - 1] < j);
                    if (l == 0)
                        assert_true(j < pe->n_home);
                    else
                        assert_true(j >= pe->n_home);
                }
                /* 2x1x1: periodic shifts only along y and z */
                assert_int_equal(md_shift_comp(en->shift, 0), 0);
            }
            assert_int_equal(expect_begin, lists[l]->npairs);
        }
    }
    /* A second build from the same atoms gives the same arrays. */
    md_pe *pe = &s->pes[0];
    md_pairlist l2 = {0}, nl2 = {0};
    md_cellgrid g2 = {0};
    md_error err;
    assert_int_equal(md_pairlist_build(&l2, &nl2, &g2, &pe->region, &pe->at, pe->at.n,
                                       pe->n_home, s->lj.rlist2, &err), 0);
    assert_int_equal(l2.nent, pe->local.nent);
    assert_memory_equal(l2.ent, pe->local.ent, (size_t)l2.nent * sizeof *l2.ent);
    assert_memory_equal(l2.j, pe->local.j, (size_t)l2.npairs * sizeof *l2.j);
    assert_memory_equal(nl2.j, pe->nonlocal.j, (size_t)nl2.npairs * sizeof *nl2.j);
    md_pairlist_free(&l2);
    md_pairlist_free(&nl2);
    md_cellgrid_free(&g2);
    md_sim_destroy(s);
    md_system_free(&sys);
}

static void test_planted_list_bugs_are_caught(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 5, 5, 5, 1.0, 2, 0.005);
    md_params par;
    md_params_default(&par);
    md_sim *s = md_test_sim(&sys, &par, 2, 2, 1, false);
    md_pair_report rep;
    /* Drop the last pair of one entry: one pair missing. */
    md_pairlist *pl = &s->pes[1].local;
    pl->ent[3].end--;
    md_check_pairs(s, s->lj.rlist2, &rep);
    assert_int_equal(rep.missing, 1);
    pl->ent[3].end++;
    /* List one pair twice (the first j of entry 0 also in entry 1's slot): a duplicate,
     * and the pair it replaced goes missing. */
    int32_t saved = pl->j[pl->ent[1].begin];
    int32_t saved_i = pl->ent[1].i;
    pl->j[pl->ent[1].begin] = pl->j[pl->ent[0].begin];
    pl->ent[1].i = pl->ent[0].i;
    int32_t saved_shift = pl->ent[1].shift;
    pl->ent[1].shift = pl->ent[0].shift;
    md_check_pairs(s, s->lj.rlist2, &rep);
    assert_true(rep.duplicates >= 1);
    assert_true(rep.missing >= 1);
    pl->j[pl->ent[1].begin] = saved;
    pl->ent[1].i = saved_i;
    pl->ent[1].shift = saved_shift;
    /* A wrong periodic shift: wrong displacement (or beyond the cut). */
    md_pairlist *nl = &s->pes[0].nonlocal;
    int64_t e = 0;
    saved_shift = nl->ent[e].shift;
    nl->ent[e].shift = md_shift_code(0, 0, 1);
    md_check_pairs(s, s->lj.rlist2, &rep);
    assert_true(rep.bad_displacement + rep.beyond + rep.missing > 0);
    nl->ent[e].shift = saved_shift;
    md_check_pairs(s, s->lj.rlist2, &rep);
    assert_exact(&rep, "restored");
    md_sim_destroy(s);
    md_system_free(&sys);
}

/* Between searches: pairs inside rc that the list lacks are counted, the same on every
 * decomposition; and the kernel counts exactly the brute-force pairs inside rc that are
 * listed (the cut-off is applied per pair at every step). */
static void test_missed_pairs_between_searches(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 6, 4, 4, 3.0, 5, 0.005);
    md_params par;
    md_params_default(&par);
    par.skin = 0.05; /* thin buffer, long list life: pairs will be missed */
    par.nstlist = 40;
    int grids[3][3] = {{1, 1, 1}, {2, 2, 1}, {3, 1, 2}};
    int64_t missed[3] = {0, 0, 0};
    int steps = md_test_scaled(30, 3);
    for (int g = 0; g < 3; g++) {
        md_sim *s = md_test_sim(&sys, &par, grids[g][0], grids[g][1], grids[g][2], false);
        for (int k = 0; k < steps; k++) {
            md_test_step(s, false);
            md_pair_report rep;
            md_check_pairs(s, s->lj.rc2, &rep);
            missed[g] += rep.missing;
            int64_t in_cut, listed;
            md_sim_pair_counts(s, &in_cut, &listed);
            assert_int_equal(in_cut, rep.brute - rep.missing);
        }
        md_sim_destroy(s);
    }
    assert_true(missed[0] > 0);
    assert_int_equal(missed[1], missed[0]);
    assert_int_equal(missed[2], missed[0]);
    md_system_free(&sys);
}

static void test_cell_index(void **state)
{
    (void)state;
    md_region reg = {.periodic = {true, false, true},
                     .origin = {0, 100, 0},
                     .extent = {1000, 50, 999},
                     .box = {1000, 2000, 999},
                     .rsearch = 200}; /* cells at least 100 wide */
    int n[3];
    md_cellgrid_dims(&reg, n);
    assert_int_equal(n[0], 10);
    assert_int_equal(n[1], 1);
    assert_int_equal(n[2], 9);
    int64_t x[3] = {999, 149, 998};
    assert_int_equal(md_cell_index(&reg, n, x), (8 * 1 + 0) * 10 + 9);
    x[1] = 150; /* outside the open interval */
    assert_int_equal(md_cell_index(&reg, n, x), -1);
    x[1] = 99;
    assert_int_equal(md_cell_index(&reg, n, x), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_matches_brute_force),
        cmocka_unit_test(test_list_structure),
        cmocka_unit_test(test_planted_list_bugs_are_caught),
        cmocka_unit_test(test_missed_pairs_between_searches),
        cmocka_unit_test(test_cell_index),
    };
    return cmocka_run_group_tests_name("md_pairlist", tests, NULL, NULL);
}
