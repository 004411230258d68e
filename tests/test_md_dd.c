/*
 * test_md_dd.c: domain decomposition geometry and the pulse table.
 *
 *   - the grid: automatic choice, explicit grids, and the errors for impossible ones;
 *   - pulses: one or two per dimension, global order z->y->x or x->y->z, and the table's
 *     invariants (send = receive sizes, contiguous receive ranges, dependency split at
 *     depOffset, coordShift only across the periodic edge);
 *   - halo contents: every slot holds the right atom at the right periodic image (an
 *     encoded-coordinate exchange, and the brute-force eighth-shell set), 1D, 2D, 3D and
 *     two pulses; a corrupted slot is caught;
 *   - every pair within rlist is found exactly once across PEs; forces and energies equal
 *     the 1-PE reference bit for bit; ownership after redistribution.
 */
#include "check.h"
#include "dd.h"
#include "test_md_util.h"

/* 11 x 4 x 4 fcc cells: box 18.5 x 6.7 x 6.7 σ, 704 atoms. */
static void long_box(md_system *sys)
{
    md_test_fcc(sys, 11, 4, 4, 1.44, 2024, 0.005);
}

static const int grids[][3] = {
    {1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {3, 1, 1},  {4, 1, 1},  {2, 2, 1},
    {2, 1, 2}, {1, 2, 2}, {6, 1, 1}, {3, 2, 1}, {3, 1, 2},  {8, 1, 1},  {4, 2, 1},
    {2, 2, 2}, {4, 1, 2}, {12, 1, 1}, {6, 2, 1}, {3, 2, 2}, {6, 1, 2},
};
#define NGRIDS (sizeof grids / sizeof *grids)

static void test_grid_choice(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    int64_t rhalo = md_halo_depth(2.8);
    int n[3];
    md_error err;
    /* The long box is cut along x first. */
    assert_int_equal(md_grid_choose(4, sys.box.len, rhalo, n, &err), 0);
    assert_int_equal(n[0], 4);
    assert_int_equal(n[1] * n[2], 1);
    for (int pes = 1; pes <= 12; pes++) {
        if (pes == 5 || pes == 7 || pes == 9 || pes == 10 || pes == 11)
            continue;
        assert_int_equal(md_grid_choose(pes, sys.box.len, rhalo, n, &err), 0);
        assert_int_equal(n[0] * n[1] * n[2], pes);
    }
    /* 5 PEs: 5x1x1 (domains 3.7 σ thick) is the only choice. */
    assert_int_equal(md_grid_choose(5, sys.box.len, rhalo, n, &err), 0);
    assert_int_equal(n[0], 5);
    /* A cubic box: 8 PEs in more than one dimension. */
    md_system cube;
    md_test_fcc(&cube, 10, 10, 10, 1.0, 1, 0.005);
    assert_int_equal(md_grid_choose(8, cube.box.len, rhalo, n, &err), 0);
    assert_true(n[0] < 8 && n[1] * n[2] > 1);
    /* 13 PEs on the long box: 13x1x1 gives 1.42 σ domains (just enough, two pulses). 
     * 17 does not fit anywhere. */
    assert_int_equal(md_grid_choose(13, sys.box.len, rhalo, n, &err), 0);
    assert_int_equal(md_grid_choose(17, sys.box.len, rhalo, n, &err), -1);
    md_test_contains(err.msg, "--pes 17");
    md_test_contains(err.msg, "fewer PEs");
    md_system_free(&cube);
    md_system_free(&sys);
}

static void test_grid_errors(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_grid g;
    md_ddparams dd;
    md_error err;
    md_ddparams_default(&dd);
    /* Domains thinner than rlist/2 along y (1.34 σ): three pulses would be needed. */
    dd.pes = 5;
    dd.grid[0] = 1;
    dd.grid[1] = 5;
    dd.grid[2] = 1;
    assert_int_equal(md_grid_setup(&g, sys.box.len, &dd, 2.8, &err), -1);
    md_test_contains(err.msg, "along y");
    md_test_contains(err.msg, "fewer domains along y");
    md_grid_free(&g);
    /* Product mismatch. */
    dd.pes = 4;
    dd.grid[0] = 2;
    dd.grid[1] = 1;
    dd.grid[2] = 1;
    assert_int_equal(md_grid_setup(&g, sys.box.len, &dd, 2.8, &err), -1);
    md_test_contains(err.msg, "--pes is 4");
    md_grid_free(&g);
    /* Box not longer than 2 rlist. */
    md_ddparams_default(&dd);
    assert_int_equal(md_grid_setup(&g, sys.box.len, &dd, 3.4, &err), -1);
    md_test_contains(err.msg, "must be longer than 2 rlist");
    md_grid_free(&g);
    /* Bad order. */
    dd.order[0] = 1;
    dd.order[1] = 1;
    dd.order[2] = 0;
    assert_int_equal(md_grid_setup(&g, sys.box.len, &dd, 2.8, &err), -1);
    md_test_contains(err.msg, "permutation");
    md_grid_free(&g);
    md_system_free(&sys);
}

static void check_pulse_table(const md_sim *s)
{
    const md_grid *g = &s->grid;
    for (int r = 0; r < g->npes; r++) {
        const md_pe *pe = &s->pes[r];
        int32_t next = pe->n_home;
        for (int p = 0; p < g->total_pulses; p++) {
            const md_pulse *pl = &pe->pulse[p];
            assert_int_equal(pl->dim, g->pulse_dim[p]);
            /* receive ranges are contiguous, in pulse order */
            assert_int_equal(pl->atom_offset, next);
            next += pl->recv_size;
            /* what I send is what my send_rank receives, and I am its recv_rank */
            const md_pulse *peer = &s->pes[pl->send_rank].pulse[p];
            assert_int_equal(peer->recv_size, pl->send_size);
            assert_int_equal(peer->recv_rank, r);
            /* neighbours along the pulse's dimension only */
            int c1[3], c2[3];
            md_grid_cell(g, pl->send_rank, c1);
            md_grid_cell(g, pl->recv_rank, c2);
            for (int d = 0; d < 3; d++) {
                if (d == pl->dim) {
                    assert_int_equal(c1[d], (pe->cell[d] + g->n[d] - 1) % g->n[d]);
                    assert_int_equal(c2[d], (pe->cell[d] + 1) % g->n[d]);
                } else {
                    assert_int_equal(c1[d], pe->cell[d]);
                    assert_int_equal(c2[d], pe->cell[d]);
                }
                int64_t want = (d == pl->dim && pe->cell[d] == 0) ? g->box[d] : 0;
                assert_int_equal(pl->coord_shift[d], want);
            }
            /* dependency split: [0, n_indep) home atoms, then earlier pulses' atoms */
            assert_int_equal(pl->dep_offset, pe->n_home);
            uint32_t mask = 0;
            for (int32_t k = 0; k < pl->send_size; k++) {
                int32_t i = pl->index_map[k];
                assert_true(i >= 0 && i < pl->atom_offset);
                if (k < pl->n_indep) {
                    assert_true(i < pl->dep_offset);
                } else {
                    assert_true(i >= pl->dep_offset);
                    for (int q = 0; q < p; q++)
                        if (i >= pe->pulse[q].atom_offset &&
                            i < pe->pulse[q].atom_offset + pe->pulse[q].recv_size)
                            mask |= 1u << q;
                }
                if (k > 0)
                    assert_true(pl->index_map[k - 1] < i);
            }
            assert_int_equal(mask, pl->dep_mask);
            int first = -1;
            for (int q = 0; q < p && first < 0; q++)
                if (mask & (1u << q))
                    first = q;
            assert_int_equal(first, pl->first_dep_pulse);
            /* a second pulse only forwards; the very first pulse depends on nothing */
            if (pl->k == 1)
                assert_int_equal(pl->n_indep, 0);
            if (p == 0)
                assert_int_equal(pl->dep_mask, 0);
        }
        assert_int_equal(next, pe->at.n);
    }
}

static void test_pulses(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_params par;
    md_params_default(&par);
    /* 12x1x1: domains 1.54 σ < rlist: two pulses along x. 3x2x2: one per dimension. */
    md_sim *s = md_test_sim(&sys, &par, 12, 1, 1, false);
    assert_int_equal(s->grid.npulse[0], 2);
    assert_int_equal(s->grid.total_pulses, 2);
    check_pulse_table(s);
    md_sim_destroy(s);
    s = md_test_sim(&sys, &par, 3, 2, 2, false);
    assert_int_equal(s->grid.total_pulses, 3);
    assert_int_equal(s->grid.pulse_dim[0], 2); /* z, y, x */
    assert_int_equal(s->grid.pulse_dim[1], 1);
    assert_int_equal(s->grid.pulse_dim[2], 0);
    check_pulse_table(s);
    /* x0 forwards z and y halo atoms: it depends on both earlier pulses */
    bool some = false;
    for (int r = 0; r < 12; r++)
        some |= s->pes[r].pulse[2].dep_mask == 3u;
    assert_true(some);
    md_sim_destroy(s);
    s = md_test_sim(&sys, &par, 8, 1, 2, true);
    assert_int_equal(s->grid.pulse_dim[0], 0); /* x x z */
    assert_int_equal(s->grid.pulse_dim[1], 0);
    assert_int_equal(s->grid.pulse_dim[2], 2);
    check_pulse_table(s);
    md_sim_destroy(s);
    md_system_free(&sys);
}

static void test_halo_contents(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_test_jiggle(&sys, 0.1, 6);
    md_params par;
    md_params_default(&par);
    par.nstlist = 4;
    int steps = md_test_scaled(9, 3);
    for (size_t k = 0; k < NGRIDS; k += md_test_valgrind() ? 4 : 1)
        for (int order = 0; order < 2; order++) {
            md_sim *s = md_test_sim(&sys, &par, grids[k][0], grids[k][1], grids[k][2], order);
            md_error err;
            check_pulse_table(s);
            if (md_check_halo(s, true, &err) != 0)
                fail_msg("%dx%dx%d at the start: %s", grids[k][0], grids[k][1], grids[k][2],
                         err.msg);
            for (int st = 0; st < steps; st++) {
                md_test_step(s, false);
                bool search = s->last_search == s->step;
                if (md_check_halo(s, search, &err) != 0)
                    fail_msg("%dx%dx%d step %ld: %s", grids[k][0], grids[k][1], grids[k][2],
                             s->step, err.msg);
            }
            md_sim_destroy(s);
        }
    md_system_free(&sys);
}

static void test_halo_corruption_is_caught(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_params par;
    md_params_default(&par);
    md_sim *s = md_test_sim(&sys, &par, 3, 2, 2, false);
    md_error err;
    assert_int_equal(md_check_halo(s, true, &err), 0);
    md_pe *pe = &s->pes[5];
    int32_t slot = pe->n_home + (pe->at.n - pe->n_home) / 2;
    pe->at.x[1][slot] += 1;
    assert_true(md_check_halo(s, false, &err) > 0);
    md_test_contains(err.msg, "PE 5");
    pe->at.x[1][slot] -= 1;
    /* A missing coordShift: the sender at domain 0 forgets it. */
    for (int d = 0; d < 3; d++)
        s->pes[0].pulse[0].coord_shift[d] = 0;
    md_halo_x_serial(&s->grid, s->pes);
    assert_true(md_check_halo(s, false, &err) > 0);
    md_sim_destroy(s);
    md_system_free(&sys);
}

/* The encoded-coordinate exchange (as GROMACS's halo test): home coordinates carry
 * (id, dimension); after md_halo_x_serial each slot must carry its atom's code plus the
 * shift of its route. */
static void test_encoded_exchange(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_params par;
    md_params_default(&par);
    static const int cases[][3] = {{12, 1, 1}, {6, 2, 1}, {3, 2, 2}, {2, 2, 2}, {4, 1, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        md_sim *s = md_test_sim(&sys, &par, cases[c][0], cases[c][1], cases[c][2], false);
        /* Remember each slot's shift (its coordinate minus the owner's), then encode. */
        md_system all;
        md_sim_gather(s, &all, NULL);
        int64_t **shift = md_xcalloc((size_t)s->grid.npes * 3, sizeof *shift);
        for (int r = 0; r < s->grid.npes; r++) {
            md_pe *pe = &s->pes[r];
            for (int d = 0; d < 3; d++) {
                shift[3 * r + d] = md_xmalloc((size_t)pe->at.n * sizeof(int64_t));
                for (int32_t i = pe->n_home; i < pe->at.n; i++) {
                    int32_t o = 0;
                    while (all.atoms.id[o] != pe->at.id[i])
                        o++;
                    shift[3 * r + d][i] = pe->at.x[d][i] - all.atoms.x[d][o];
                }
            }
        }
        for (int r = 0; r < s->grid.npes; r++) {
            md_pe *pe = &s->pes[r];
            for (int32_t i = 0; i < pe->at.n; i++)
                for (int d = 0; d < 3; d++)
                    pe->at.x[d][i] = i < pe->n_home ? pe->at.id[i] * 1000 + d : -1;
        }
        md_halo_x_serial(&s->grid, s->pes);
        for (int r = 0; r < s->grid.npes; r++) {
            md_pe *pe = &s->pes[r];
            for (int32_t i = pe->n_home; i < pe->at.n; i++)
                for (int d = 0; d < 3; d++) {
                    int64_t want = pe->at.id[i] * 1000 + d + shift[3 * r + d][i];
                    if (pe->at.x[d][i] != want)
                        fail_msg("%dx%dx%d PE %d slot %d: %lld, want %lld", cases[c][0],
                                 cases[c][1], cases[c][2], r, i, (long long)pe->at.x[d][i],
                                 (long long)want);
                    /* shifts are whole boxes, only along decomposed dimensions */
                    assert_int_equal(shift[3 * r + d][i] % s->grid.box[d], 0);
                    if (s->grid.n[d] == 1)
                        assert_int_equal(shift[3 * r + d][i], 0);
                }
        }
        for (int k = 0; k < s->grid.npes * 3; k++)
            free(shift[k]);
        free(shift);
        md_system_free(&all);
        md_sim_destroy(s);
    }
    md_system_free(&sys);
}

/* Each pair within rlist exactly once across PEs; forces, energy and virial equal the
 * 1-PE reference bit for bit. */
static void test_pairs_once_and_forces_identical(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_test_jiggle(&sys, 0.15, 12);
    md_params par;
    md_params_default(&par);
    md_sim *ref = md_test_sim(&sys, &par, 1, 1, 1, false);
    md_system rall;
    md_sim_gather(ref, &rall, NULL);
    md_thermo rth;
    md_sim_thermo(ref, &rth);
    for (size_t k = 1; k < NGRIDS; k++) {
        for (int order = 0; order < 2; order++) {
            md_sim *s = md_test_sim(&sys, &par, grids[k][0], grids[k][1], grids[k][2], order);
            md_pair_report rep;
            md_check_pairs(s, s->lj.rlist2, &rep);
            if (rep.missing || rep.duplicates || rep.beyond || rep.bad_displacement)
                fail_msg("%dx%dx%d: missing %lld duplicates %lld beyond %lld bad %lld",
                         grids[k][0], grids[k][1], grids[k][2], (long long)rep.missing,
                         (long long)rep.duplicates, (long long)rep.beyond,
                         (long long)rep.bad_displacement);
            md_system all;
            md_sim_gather(s, &all, NULL);
            for (int d = 0; d < 3; d++)
                assert_memory_equal(all.atoms.f[d], rall.atoms.f[d],
                                    (size_t)all.atoms.n * sizeof(int64_t));
            md_thermo th;
            md_sim_thermo(s, &th);
            assert_int_equal(th.epot_fx, rth.epot_fx);
            assert_int_equal(th.virial_fx, rth.virial_fx);
            assert_int_equal(th.checksum, rth.checksum);
            md_system_free(&all);
            md_sim_destroy(s);
        }
    }
    md_system_free(&rall);
    md_sim_destroy(ref);
    md_system_free(&sys);
}

static void test_ownership_after_redistribution(void **state)
{
    (void)state;
    md_system sys;
    long_box(&sys);
    md_params par;
    md_params_default(&par);
    par.nstlist = 5;
    md_sim *s = md_test_sim(&sys, &par, 3, 2, 2, false);
    int steps = md_test_scaled(20, 2);
    for (int k = 0; k < steps; k++) {
        md_test_step(s, false);
        if (s->last_search != s->step)
            continue;
        /* every atom home on exactly one PE, inside that PE's domain, wrapped */
        md_system all;
        md_sim_gather(s, &all, NULL);
        assert_int_equal(all.atoms.n, sys.atoms.n);
        for (int32_t i = 0; i < all.atoms.n; i++)
            assert_int_equal(all.atoms.id[i], i + 1);
        for (int r = 0; r < s->grid.npes; r++) {
            const md_pe *pe = &s->pes[r];
            for (int32_t i = 0; i < pe->n_home; i++)
                for (int d = 0; d < 3; d++) {
                    assert_true(pe->at.x[d][i] >= s->grid.bound[d][pe->cell[d]]);
                    assert_true(pe->at.x[d][i] < s->grid.bound[d][pe->cell[d] + 1]);
                }
        }
        md_system_free(&all);
    }
    md_sim_destroy(s);
    md_system_free(&sys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_choice),
        cmocka_unit_test(test_grid_errors),
        cmocka_unit_test(test_pulses),
        cmocka_unit_test(test_halo_contents),
        cmocka_unit_test(test_halo_corruption_is_caught),
        cmocka_unit_test(test_encoded_exchange),
        cmocka_unit_test(test_pairs_once_and_forces_identical),
        cmocka_unit_test(test_ownership_after_redistribution),
    };
    return cmocka_run_group_tests_name("md_dd", tests, NULL, NULL);
}
