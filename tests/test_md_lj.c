/*
 * test_md_lj.c: the LJ pair function and the physics around it: values, the energy shift,
 * the force as minus the energy's derivative, exact antisymmetry, Newton's third law in
 * fixed point, forces equal to a brute-force sum bit for bit, exact momentum conservation
 * (one and several masses), energy conservation with the shifted potential, and the error
 * for atoms that come too close.
 */
#include <math.h>

#include "check.h"
#include "force.h"
#include "kinetic.h"
#include "lj.h"
#include "test_md_util.h"

static void test_pair_values(void **state)
{
    (void)state;
    /* r = 1: V = 0, F = 24; r = 2^(1/6): the minimum, V = -1, F = 0. */
    double v;
    double fr = md_lj_pair(1.0, 0.0, &v);
    assert_true(v == 0.0);
    assert_true(fr == 24.0 * MD_FORCE_SCALE);
    double rmin2 = pow(2.0, 1.0 / 3.0);
    fr = md_lj_pair(rmin2, 0.0, &v);
    assert_true(fabs(v + 1.0) < 1e-14);
    assert_true(fabs(fr / MD_FORCE_SCALE) < 1e-12);
    /* md_lj_fr and md_lj_pair give the same bits. */
    for (int k = 0; k < 1000; k++) {
        double r2 = 0.3 + 9.0 * (k / 1000.0);
        assert_true(md_lj_fr(r2) == md_lj_pair(r2, 0.123, &v));
    }
}

static void test_force_is_minus_gradient(void **state)
{
    (void)state;
    for (double r = 0.9; r < 2.5; r += 0.05) {
        double vp, vm, h = 1e-6;
        (void)md_lj_pair((r + h) * (r + h), 0.0, &vp);
        (void)md_lj_pair((r - h) * (r - h), 0.0, &vm);
        double dvdr = (vp - vm) / (2 * h);
        double f = md_lj_fr(r * r) / MD_FORCE_SCALE * r; /* F = F/r · r */
        assert_true(fabs(f + dvdr) < 1e-6 * (1.0 + fabs(f)));
    }
}

static void test_shift_zero_at_cutoff(void **state)
{
    (void)state;
    md_lj lj;
    md_lj_init(&lj, 2.5, 0.3, true);
    double v;
    (void)md_lj_pair(lj.rc2, lj.shift, &v);
    assert_true(v == 0.0);
    assert_true(fabs(lj.shift - 4.0 * (pow(2.5, -12) - pow(2.5, -6))) < 1e-16);
    md_lj_init(&lj, 2.5, 0.3, false);
    assert_true(lj.shift == 0.0);
    assert_true(lj.rlist == 2.8);
}

static void test_antisymmetry(void **state)
{
    (void)state;
    /* Swapping i and j negates every integer force component exactly. */
    int n = md_test_scaled(100000, 10);
    for (int k = 0; k < n; k++) {
        uint64_t h = md_mix64((uint64_t)k);
        double d[3];
        for (int c = 0; c < 3; c++)
            d[c] = md_pos_to_double(md_pos_from_double(
                5.0 * md_uniform_centered(md_hash3(h, (uint64_t)c, 1))));
        double r2 = md_r2(d[0], d[1], d[2]);
        double r2m = md_r2(-d[0], -d[1], -d[2]);
        assert_true(r2 == r2m);
        if (r2 < MD_R2_MIN)
            continue;
        double fr = md_lj_fr(r2);
        for (int c = 0; c < 3; c++)
            assert_int_equal(md_round_i64(d[c] * fr), -md_round_i64(-d[c] * fr));
    }
}

/* Forces by brute force over all pairs at their minimum image, the same pair function,
 * integer accumulation: must equal the simulation's forces bit for bit. */
static void brute_forces(const md_system *all, double rc2, int64_t *f[3], int64_t *epot)
{
    const md_atoms *a = &all->atoms;
    *epot = 0;
    for (int d = 0; d < 3; d++)
        memset(f[d], 0, (size_t)a->n * sizeof *f[d]);
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t j = i + 1; j < a->n; j++) {
            double dd[3];
            for (int d = 0; d < 3; d++) {
                int64_t len = all->box.len[d], x = a->x[d][i] - a->x[d][j];
                x = md_wrap(x + len / 2, len) - len / 2;
                dd[d] = md_pos_to_double(x);
            }
            double r2 = md_r2(dd[0], dd[1], dd[2]);
            if (!(r2 < rc2))
                continue;
            double v;
            double fr = md_lj_pair(r2, 0.0, &v);
            *epot += md_lj_energy_fx(v);
            for (int d = 0; d < 3; d++) {
                int64_t fi = md_round_i64(dd[d] * fr);
                f[d][i] += fi;
                f[d][j] -= fi;
            }
        }
}

static void check_forces_against_brute(int nx, int ny, int nz)
{
    md_system sys;
    md_test_fcc(&sys, 5, 4, 4, 1.0, 11, 0.005);
    md_test_jiggle(&sys, 0.15, 4);
    md_params par;
    md_params_default(&par);
    md_sim *s = md_test_sim(&sys, &par, nx, ny, nz, false);
    md_system all;
    md_sim_gather(s, &all, NULL);
    int64_t *f[3], epot;
    for (int d = 0; d < 3; d++)
        f[d] = md_xmalloc((size_t)all.atoms.n * sizeof *f[d]);
    brute_forces(&all, s->lj.rc2, f, &epot);
    for (int d = 0; d < 3; d++)
        assert_memory_equal(f[d], all.atoms.f[d], (size_t)all.atoms.n * sizeof *f[d]);
    md_thermo th;
    md_sim_thermo(s, &th);
    assert_true(th.has_energy);
    assert_int_equal(th.epot_fx, epot);
    /* Newton's third law: the forces sum to exactly zero. */
    for (int d = 0; d < 3; d++) {
        int64_t sum = 0;
        for (int32_t i = 0; i < all.atoms.n; i++)
            sum += all.atoms.f[d][i];
        assert_int_equal(sum, 0);
    }
    for (int d = 0; d < 3; d++)
        free(f[d]);
    md_system_free(&all);
    md_sim_destroy(s);
    md_system_free(&sys);
}

static void test_forces_equal_brute_force(void **state)
{
    (void)state;
    check_forces_against_brute(1, 1, 1);
    check_forces_against_brute(2, 2, 2);
    check_forces_against_brute(3, 1, 1);
}

static void momentum_run(const md_system *sys, int nx, int ny, int nz, int steps)
{
    md_params par;
    md_params_default(&par);
    par.nstlist = 7;
    md_sim *s = md_test_sim(sys, &par, nx, ny, nz, false);
    md_thermo th0, th;
    md_sim_thermo(s, &th0);
    for (int k = 0; k < steps; k++) {
        md_test_step(s, false);
        md_sim_thermo(s, &th);
        for (int d = 0; d < 3; d++)
            if (th.momentum[d] != th0.momentum[d])
                fail_msg("step %ld (%dx%dx%d): momentum %c changed from %lld to %lld",
                         th.step, nx, ny, nz, 'x' + d, (long long)th0.momentum[d],
                         (long long)th.momentum[d]);
    }
    md_sim_destroy(s);
}

static void test_momentum_exact(void **state)
{
    (void)state;
    int steps = md_test_scaled(60, 4);
    md_system sys;
    md_test_fcc(&sys, 5, 4, 4, 3.0, 21, 0.005);
    momentum_run(&sys, 1, 1, 1, steps);
    momentum_run(&sys, 2, 2, 1, steps);
    /* Several masses, and a non-zero total momentum: still exactly constant. */
    sys.ntypes = 3;
    sys.mass = md_xrealloc(sys.mass, 3 * sizeof *sys.mass);
    sys.mass[1] = 2.5;
    sys.mass[2] = 0.7;
    for (int32_t i = 0; i < sys.atoms.n; i++)
        sys.atoms.type[i] = (int32_t)(sys.atoms.id[i] % 3);
    sys.atoms.p[0][0] += 123456789;
    momentum_run(&sys, 1, 1, 1, steps);
    momentum_run(&sys, 3, 1, 2, steps);
    md_system_free(&sys);
}

static void test_energy_conserved_with_shift(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 5, 4, 4, 0.8, 9, 0.004);
    md_params par;
    md_params_default(&par);
    par.shift = true;
    par.dt = 0.004;
    par.skin = 0.5; /* generous buffer: no missed pairs, so drift is integration only */
    md_sim *s = md_test_sim(&sys, &par, 1, 1, 1, false);
    md_thermo th0, th;
    md_sim_thermo(s, &th0);
    int steps = md_test_scaled(200, 4);
    double worst = 0.0;
    for (int k = 1; k <= steps; k++) {
        md_test_step(s, true);
        md_sim_thermo(s, &th);
        worst = fmax(worst, fabs(th.etot - th0.etot));
    }
    /* Velocity Verlet at dt 0.004 from a lattice start: fluctuations ~1e-4 per atom. */
    if (!(worst < 2e-3))
        fail_msg("energy per atom moved by %g over %d steps", worst, steps);
    /* ...and the temperature changed a lot (the lattice melted): the test is not idle. */
    assert_true(fabs(th.temp - th0.temp) > 0.05);
    md_sim_destroy(s);
    md_system_free(&sys);
}

static void test_reference_energy(void **state)
{
    (void)state;
    /* Perfect fcc at density 0.8442, rc 2.5: E_pair/N = -6.7733681 (the LAMMPS LJ
     * benchmark's step-0 value; a lattice sum, the same for any size). */
    md_system sys;
    md_test_fcc(&sys, 5, 5, 5, 1.44, 87287, 0.005);
    md_params par;
    md_params_default(&par);
    md_sim *s = md_test_sim(&sys, &par, 1, 1, 1, false);
    md_thermo th;
    md_sim_thermo(s, &th);
    assert_true(fabs(th.epot - (-6.7733681)) < 5e-8);
    assert_true(fabs(th.temp - 1.44) < 1e-9);
    md_sim_destroy(s);
    md_system_free(&sys);
}

static void test_too_close_is_an_error(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.0, 1, 0.005);
    /* Move atom 2 onto atom 1 (0.2 σ away). */
    for (int d = 0; d < 3; d++)
        sys.atoms.x[d][1] = sys.atoms.x[d][0] + (d == 0 ? md_pos_from_double(0.2) : 0);
    md_params par;
    md_params_default(&par);
    md_ddparams dd;
    md_ddparams_default(&dd);
    md_error err;
    md_sim *s = md_sim_create(&sys, &par, &dd, &err);
    assert_null(s);
    md_test_contains(err.msg, "atoms 1 and 2");
    md_test_contains(err.msg, "closer than");
    md_system_free(&sys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_values),
        cmocka_unit_test(test_force_is_minus_gradient),
        cmocka_unit_test(test_shift_zero_at_cutoff),
        cmocka_unit_test(test_antisymmetry),
        cmocka_unit_test(test_forces_equal_brute_force),
        cmocka_unit_test(test_momentum_exact),
        cmocka_unit_test(test_energy_conserved_with_shift),
        cmocka_unit_test(test_reference_energy),
        cmocka_unit_test(test_too_close_is_an_error),
    };
    return cmocka_run_group_tests_name("md_lj", tests, NULL, NULL);
}
