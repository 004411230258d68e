/*
 * test_md_sim.c: the serial driver end to end.
 *
 *   - the checksum equality matrix (docs/design.md "Oracles"; the part that needs no halo
 * kernels): the     state checksum at every step of a run with searches and repartitions is the
 * same for     1 PE and for 2, 3, 4, 6, 8 and 12 PEs in 1D, 2D and 3D, in both pulse orders, and
 *     with the automatic grid;
 *   - repeated runs give the same bits; total momentum is exactly zero at every step;
 *   - a two-type LAMMPS start runs identically on 1 and 6 PEs;
 *   - the command line: values, errors that name the option, and --dd implying --pes.
 */
#include <math.h>

#include "options.h"
#include "test_md_util.h"

static const int matrix[][3] = {
    {2, 1, 1}, {1, 2, 1}, {3, 1, 1}, {4, 1, 1}, {2, 2, 1}, {1, 2, 2}, {6, 1, 1}, {3, 2, 1},
    {3, 1, 2}, {8, 1, 1}, {4, 2, 1}, {2, 2, 2}, {12, 1, 1}, {6, 2, 1}, {3, 2, 2}, {4, 1, 2},
};
#define NMATRIX (sizeof matrix / sizeof *matrix)

/* Checksums of steps 0..steps of a run on one grid (nx 0: automatic with pes). */
static void run_checksums(const md_system *sys, const md_params *par, int nx, int ny, int nz,
                          int pes, bool xyz, int steps, uint64_t *out)
{
    md_sim *s;
    if (nx == 0) {
        md_ddparams dd;
        md_ddparams_default(&dd);
        dd.pes = pes;
        md_error err;
        s = md_sim_create(sys, par, &dd, &err);
        if (!s)
            fail_msg("auto %d PEs: %s", pes, err.msg);
    } else {
        s = md_test_sim(sys, par, nx, ny, nz, xyz);
    }
    out[0] = md_sim_checksum(s);
    for (int k = 1; k <= steps; k++) {
        md_test_step(s, k % 5 == 0);
        out[k] = md_sim_checksum(s);
        md_thermo th;
        md_sim_thermo(s, &th);
        for (int d = 0; d < 3; d++)
            if (th.momentum[d] != 0)
                fail_msg("%dx%dx%d step %d: total momentum %c is %lld", nx, ny, nz, k, 'x' + d,
                         (long long)th.momentum[d]);
    }
    md_sim_destroy(s);
}

static void test_checksum_matrix(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 11, 4, 4, 1.44, 777, 0.005);
    md_params par;
    md_params_default(&par);
    par.nstlist = 6; /* several searches and repartitions within the run */
    const int steps = md_test_scaled(24, 2);
    uint64_t *ref = md_xmalloc((size_t)(steps + 1) * sizeof *ref);
    uint64_t *got = md_xmalloc((size_t)(steps + 1) * sizeof *got);
    run_checksums(&sys, &par, 1, 1, 1, 1, false, steps, ref);
    /* The run is not trivial: the state changes every step. */
    for (int k = 1; k <= steps; k++)
        assert_true(ref[k] != ref[k - 1]);
    int orders = md_test_valgrind() ? 1 : 2;
    for (size_t g = 0; g < NMATRIX; g++)
        for (int o = 0; o < orders; o++) {
            run_checksums(&sys, &par, matrix[g][0], matrix[g][1], matrix[g][2], 0, o == 1,
                          steps, got);
            for (int k = 0; k <= steps; k++)
                if (got[k] != ref[k])
                    fail_msg("%dx%dx%d order %s, step %d: checksum %016llx, 1 PE %016llx",
                             matrix[g][0], matrix[g][1], matrix[g][2], o ? "xyz" : "zyx", k,
                             (unsigned long long)got[k], (unsigned long long)ref[k]);
        }
    static const int auto_pes[] = {2, 3, 4, 6, 8, 12};
    for (size_t k = 0; k < sizeof auto_pes / sizeof *auto_pes; k++) {
        run_checksums(&sys, &par, 0, 0, 0, auto_pes[k], false, steps, got);
        assert_memory_equal(got, ref, (size_t)(steps + 1) * sizeof *got);
    }
    free(ref);
    free(got);
    md_system_free(&sys);
}

static void test_repeated_runs_identical(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 6, 5, 5, 2.0, 4, 0.005);
    md_params par;
    md_params_default(&par);
    par.nstlist = 10;
    int steps = md_test_scaled(30, 3);
    uint64_t *a = md_xmalloc((size_t)(steps + 1) * sizeof *a);
    uint64_t *b = md_xmalloc((size_t)(steps + 1) * sizeof *b);
    run_checksums(&sys, &par, 2, 2, 2, 8, false, steps, a);
    run_checksums(&sys, &par, 2, 2, 2, 8, false, steps, b);
    assert_memory_equal(a, b, (size_t)(steps + 1) * sizeof *a);
    /* A different seed is a different run (the checksum sees the state). */
    md_system other;
    md_test_fcc(&other, 6, 5, 5, 2.0, 5, 0.005);
    run_checksums(&other, &par, 2, 2, 2, 8, false, steps, b);
    assert_true(a[steps] != b[steps]);
    free(a);
    free(b);
    md_system_free(&other);
    md_system_free(&sys);
}

static void test_two_type_data_file_run(void **state)
{
    (void)state;
    /* A lattice written as a LAMMPS data file with two types and masses 1 and 3. */
    md_system lat;
    md_test_fcc(&lat, 7, 4, 4, 1.2, 9, 0.005);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    fprintf(f, "two types\n\n%d atoms\n2 atom types\n", lat.atoms.n);
    for (int d = 0; d < 3; d++)
        fprintf(f, "0 %.17g %clo %chi\n", md_pos_to_double(lat.box.len[d]), 'x' + d, 'x' + d);
    fprintf(f, "\nMasses\n\n1 1.0\n2 3.0\n\nAtoms\n\n");
    for (int32_t i = 0; i < lat.atoms.n; i++)
        fprintf(f, "%lld %d %.17g %.17g %.17g\n", (long long)lat.atoms.id[i],
                1 + (int)(lat.atoms.id[i] % 2), md_pos_to_double(lat.atoms.x[0][i]),
                md_pos_to_double(lat.atoms.x[1][i]), md_pos_to_double(lat.atoms.x[2][i]));
    fprintf(f, "\nVelocities\n\n");
    for (int32_t i = 0; i < lat.atoms.n; i++)
        fprintf(f, "%lld %.6f %.6f %.6f\n", (long long)lat.atoms.id[i], 0.01 * (i % 7) - 0.03,
                0.02 * (i % 5) - 0.04, 0.5);
    fclose(f);
    md_system sys;
    md_error err;
    if (md_lammps_parse(buf, size, "two.data", 0.004, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    free(buf);
    md_params par;
    md_params_default(&par);
    par.dt = 0.004;
    par.nstlist = 5;
    md_sim *a = md_test_sim(&sys, &par, 1, 1, 1, false);
    md_sim *b = md_test_sim(&sys, &par, 3, 2, 1, true);
    md_thermo t0, ta, tb;
    md_sim_thermo(a, &t0);
    assert_true(t0.momentum[2] != 0); /* the file's drift along z is kept */
    for (int k = 0; k < md_test_scaled(15, 3); k++) {
        md_test_step(a, true);
        md_test_step(b, true);
        md_sim_thermo(a, &ta);
        md_sim_thermo(b, &tb);
        assert_int_equal(ta.checksum, tb.checksum);
        assert_int_equal(ta.epot_fx, tb.epot_fx);
        for (int d = 0; d < 3; d++)
            assert_int_equal(ta.momentum[d], t0.momentum[d]);
    }
    md_sim_destroy(a);
    md_sim_destroy(b);
    md_system_free(&sys);
    md_system_free(&lat);
}

/* ---- command line ------------------------------------------------------------------------ */


static void test_options(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    assert_int_equal(md_test_parse_line(&o, &err, ""), 0);
    assert_int_equal(o.lat.cells[0], 5);
    assert_true(o.par.rc == 2.5 && o.par.skin == 0.3 && o.par.nstlist == 20);
    assert_int_equal(o.dd.order[0], 2);
    assert_int_equal(md_test_parse_line(&o, &err, "--cells 4,5,6 --density=0.9 --steps 7 --dt 0.002 "
                                     "--rc 3 --skin 0.4 --nstlist 10 --shift --thermo 2 "
                                     "--seed 99 --temperature 2 --dim-order xyz"),
                     0);
    assert_int_equal(o.lat.cells[2], 6);
    assert_true(o.lat.density == 0.9 && o.par.dt == 0.002 && o.par.rc == 3.0);
    assert_true(o.par.shift && o.par.thermo == 2 && o.lat.seed == 99);
    assert_int_equal(o.dd.order[0], 0);
    assert_int_equal(md_test_parse_line(&o, &err, "--dd 3x2x2"), 0);
    assert_int_equal(o.dd.pes, 12);
    assert_int_equal(o.dd.grid[1], 2);
    assert_int_equal(md_test_parse_line(&o, &err, "--pes 6"), 0);
    assert_int_equal(o.dd.pes, 6);
    assert_int_equal(o.dd.grid[0], 0);
    assert_int_equal(md_test_parse_line(&o, &err, "--halo pulse --transport signal"), 0);
    assert_int_equal(o.halo, MD_HALO_PULSE);
    assert_int_equal(o.transport, MD_TRANSPORT_SIGNAL);
    assert_int_equal(md_test_parse_line(&o, &err, ""), 0);
    assert_int_equal(o.halo, MD_HALO_FUSED);
    assert_int_equal(o.transport, MD_TRANSPORT_AUTO);
    static const struct {
        const char *line, *want;
    } bad[] = {
        {"--cells 0", "--cells '0'"},
        {"--cells 4,5", "--cells '4,5'"},
        {"--dd 2x2", "--dd '2x2'"},
        {"--steps -1", "--steps '-1'"},
        {"--density abc", "--density 'abc'"},
        {"--frobnicate", "unknown option '--frobnicate'"},
        {"--rc", "--rc needs a value"},
        {"--shift=1", "--shift takes no value"},
        {"--dim-order yxz", "give zyx or xyz"},
        {"--halo ring", "give fused, pulse or serial"},
        {"--transport nvlink", "give direct, signal or auto"},
        {"--data x.lmp --cells 4", "leave out --cells"},
        {"stray", "unexpected argument 'stray'"},
        {"--seed -3", "--seed '-3'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        err.msg[0] = '\0';
        if (md_test_parse_line(&o, &err, bad[k].line) == 0)
            fail_msg("'%s' was accepted", bad[k].line);
        md_test_contains(err.msg, bad[k].want);
    }
}

static void test_create_errors(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.0, 1, 0.005);
    md_params par;
    md_ddparams dd;
    md_error err;
    md_params_default(&par);
    md_ddparams_default(&dd);
    par.nstlist = 0;
    assert_null(md_sim_create(&sys, &par, &dd, &err));
    md_test_contains(err.msg, "--nstlist 0");
    md_params_default(&par);
    par.rc = 3.5; /* box 6.7: not longer than 2 rlist */
    assert_null(md_sim_create(&sys, &par, &dd, &err));
    md_test_contains(err.msg, "2 rlist");
    md_params_default(&par);
    dd.pes = 125; /* 5x5x5 would need domains of 1.34 σ: three pulses */
    assert_null(md_sim_create(&sys, &par, &dd, &err));
    md_test_contains(err.msg, "--pes 125");
    md_system_free(&sys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checksum_matrix),
        cmocka_unit_test(test_repeated_runs_identical),
        cmocka_unit_test(test_two_type_data_file_run),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_create_errors),
    };
    return cmocka_run_group_tests_name("md_sim", tests, NULL, NULL);
}
