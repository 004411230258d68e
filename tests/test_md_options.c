/*
 * test_md_options.c: bin/shmemu-md's command line and run parameters (md/src/options.c,
 * params.c, main.c): every driver refuses what the fixed-point state or the integrator
 * cannot run, with an error that names the option, the value and the limit.
 *
 *   - one check of the run parameters (md_params_check) refuses bad --dt, --rc, --skin,
 *     --nstlist, and the serial driver (md_sim_create) and the parallel driver (md_par_run)
 *     both refuse them; the program refuses them with every --halo, exit 1, no output;
 *   - system limits: dt beyond Verlet stability for the lightest mass, dt so small that the
 *     momenta leave the fixed-point range, a box shorter than 2 (rc + skin);
 *   - --temperature and --density name the real limit (closest approach MD_R_MIN, the
 *     step's travel, the momentum range) and a value that works does work;
 *   - --dd overflow, options the serial driver would ignore, --list-bugs with other
 *     options, SHMEMU_REPLAY with --halo serial, and the usage hint after an error;
 *   - --halo mpi and --mpi-staging: parsed, their refusals (--transport direct, --graph,
 *     --mpi-staging without --halo mpi), md_par_run in a program without par_mpi.c, and the
 *     program on the threads backend (tests/check-halo-mpi.sh runs it on MPI ranks).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "options.h"
#include "par.h"
#include "params.h"
#include "test_md_util.h"

/* ---- helpers --------------------------------------------------------------------------- */


/* bin/shmemu-md of this build, or the test fails (md.mk builds it first). */
static void find_program(char *out, size_t size)
{
    if (!md_test_find_program(out, size))
        fail_msg("shmemu-md not found next to this test nor in bin/ (md.mk builds it first)");
}

typedef struct prog_result {
    int status;
    char out[8192]; /* standard output (truncated) */
    char err[8192]; /* standard error (truncated) */
} prog_result;

static void read_all(int fd, char *buf, size_t size)
{
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, buf + got, size - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == size - 1)
            break;
    }
    buf[got] = '\0';
}

/* Runs shmemu-md with the space-separated args; env "NAME=VALUE" is set in the child
 * only (may be NULL). Output goes to temporary files, read back whole. */
static void run(prog_result *r, const char *env, const char *line)
{
    char prog[600];
    find_program(prog, sizeof prog);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", line);
    char *argv[32];
    int argc = 0;
    argv[argc++] = prog;
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    const char *base = getenv("TMPDIR");
    char fo_name[300], fe_name[300];
    snprintf(fo_name, sizeof fo_name, "%s/test_md_options.out.XXXXXX", base && *base ? base : "/tmp");
    snprintf(fe_name, sizeof fe_name, "%s/test_md_options.err.XXXXXX", base && *base ? base : "/tmp");
    int fo = mkstemp(fo_name), fe = mkstemp(fe_name);
    assert_true(fo >= 0 && fe >= 0);
    unlink(fo_name);
    unlink(fe_name);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        if (env)
            putenv((char *)env);
        execv(prog, argv);
        _exit(127);
    }
    int st;
    assert_true(waitpid(pid, &st, 0) == pid);
    assert_true(WIFEXITED(st));
    r->status = WEXITSTATUS(st);
    lseek(fo, 0, SEEK_SET);
    lseek(fe, 0, SEEK_SET);
    read_all(fo, r->out, sizeof r->out);
    read_all(fe, r->err, sizeof r->err);
    close(fo);
    close(fe);
}

/* The program refuses line: exit 1, each of the needles in standard error, and no
 * thermo line nor checksum on standard output. */
static void refused(const char *env, const char *line, const char *const *needles)
{
    prog_result r;
    run(&r, env, line);
    if (r.status != 1)
        fail_msg("'%s': exit %d (want 1); stderr: %s; stdout: %.300s", line, r.status, r.err,
                 r.out);
    for (; *needles; needles++)
        if (!strstr(r.err, *needles))
            fail_msg("'%s': expected '%s' in stderr: %s", line, *needles, r.err);
    if (strstr(r.out, "checksum"))
        fail_msg("'%s': refused, but stdout has a checksum: %.300s", line, r.out);
}

static int no_sample(const md_thermo *t, void *ctx)
{
    (void)t;
    (void)ctx;
    return 0;
}

/* ---- run parameters: one check, every driver -------------------------------------------- */

typedef struct bad_param {
    const char *opt;   /* the command-line form */
    double rc, skin, dt;
    int nstlist;
    const char *want;  /* in the message: the option and its value */
    const char *limit; /* in the message: the limit */
} bad_param;

static const bad_param bad_params[] = {
    {"--dt 5", 2.5, 0.3, 5.0, 20, "--dt 5", "unstable for dt >= 0.1871"},
    {"--dt 1e308", 2.5, 0.3, 1e308, 20, "--dt 1e+308", "unstable for dt >= 0.1871"},
    {"--dt 0.5", 2.5, 0.3, 0.5, 20, "--dt 0.5", "unstable"},
    {"--dt 0", 2.5, 0.3, 0.0, 20, "--dt 0", "positive"},
    {"--rc 0", 0.0, 0.3, 0.005, 20, "--rc 0", "above 0.5 σ"},
    {"--rc -1", -1.0, 0.3, 0.005, 20, "--rc -1", "above 0.5 σ"},
    {"--rc 0.1", 0.1, 0.3, 0.005, 20, "--rc 0.1", "above 0.5 σ"},
    {"--rc 1e300", 1e300, 0.3, 0.005, 20, "--rc 1e+300", "below 262144 σ"},
    {"--skin -1", 2.5, -1.0, 0.005, 20, "--skin -1", "from 0"},
    {"--skin 1e300", 2.5, 1e300, 0.005, 20, "--skin 1e+300", "below 262144 σ"},
    {"--rc 200000 --skin 100000", 2e5, 1e5, 0.005, 20, "rc + skin", "below 262144 σ"},
    {"--rc 3.5", 3.5, 0.3, 0.005, 20, "--rc 3.5", "2 rlist"},
};

/* md_params_check, md_sim_create (serial) and md_par_run (parallel) refuse each. */
static void test_params_every_driver(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 7, 0.005); /* box 6.7 σ */
    md_ddparams dd;
    md_ddparams_default(&dd);
    md_par_opts po;
    md_par_opts_default(&po);
    for (size_t k = 0; k < sizeof bad_params / sizeof *bad_params; k++) {
        const bad_param *b = &bad_params[k];
        md_params par;
        md_params_default(&par);
        par.rc = b->rc;
        par.skin = b->skin;
        par.dt = b->dt;
        par.nstlist = b->nstlist;
        par.steps = 3;
        md_error err;
        err.msg[0] = '\0';
        if (md_params_check(&par, &sys, &err) == 0)
            fail_msg("md_params_check accepted %s", b->opt);
        md_test_contains(err.msg, b->want);
        md_test_contains(err.msg, b->limit);
        md_sim *s = md_sim_create(&sys, &par, &dd, &err);
        if (s) {
            md_sim_destroy(s);
            fail_msg("the serial driver accepted %s", b->opt);
        }
        md_test_contains(err.msg, b->want);
        md_par_result res;
        err.msg[0] = '\0';
        for (int h = 0; h < 3; h++) {
            po.halo = h == 0 ? MD_HALO_FUSED : h == 1 ? MD_HALO_PULSE : MD_HALO_HOST;
            if (md_par_run(&sys, &par, &dd, &po, no_sample, NULL, &res, &err) == 0)
                fail_msg("the parallel driver (halo %d) accepted %s", h, b->opt);
            md_test_contains(err.msg, b->want);
        }
    }
    /* The defaults pass, with and without the system. */
    md_params par;
    md_params_default(&par);
    md_error err;
    assert_int_equal(md_params_check(&par, NULL, &err), 0);
    assert_int_equal(md_params_check(&par, &sys, &err), 0);
    md_system_free(&sys);
}

/* The time step's lower limit: the momenta must stay within 2^52 units of dt/2 · 2^-32;
 * the limit named works. The Verlet limit depends on the lightest mass. */
static void test_params_system_limits(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 7, 0.005);
    md_params par;
    md_params_default(&par);
    par.dt = 1e-12;
    md_error err;
    assert_int_equal(md_params_check(&par, &sys, &err), -1);
    md_test_contains(err.msg, "--dt 1e-12");
    md_test_contains(err.msg, "beyond 2^52");
    const char *ge = strstr(err.msg, "give --dt >= ");
    assert_non_null(ge);
    par.dt = strtod(ge + strlen("give --dt >= "), NULL);
    if (md_params_check(&par, &sys, &err) != 0)
        fail_msg("the suggested --dt %g is refused: %s", par.dt, err.msg);
    /* A lighter type lowers the stability limit: 0.1871 sqrt(0.25) = 0.0935. */
    sys.mass[0] = 0.25;
    md_params_default(&par);
    par.dt = 0.1;
    assert_int_equal(md_params_check(&par, &sys, &err), -1);
    md_test_contains(err.msg, "unstable for dt >= 0.09354");
    md_test_contains(err.msg, "lightest mass 0.25");
    par.dt = 0.09;
    assert_int_equal(md_params_check(&par, &sys, &err), 0);
    md_system_free(&sys);
}

/* The program, every driver: refused before any output. Old behaviour: the parallel drivers
 * ran to inf or zero energies with exit 0. */
static void test_program_params(void **state)
{
    (void)state;
    static const char *halos[] = {"fused", "pulse", "host", "serial"};
    static const struct {
        const char *opts, *want, *limit;
    } cases[] = {
        {"--dt 5", "--dt 5", "--dt <= "},
        {"--dt 1e308", "--dt 1e+308", "--dt <= "},
        {"--rc 0", "--rc 0", "above 0.5 σ"},
        {"--rc -1", "--rc -1", "above 0.5 σ"},
        {"--rc 0.1", "--rc 0.1", "above 0.5 σ"},
        {"--rc 1e300", "--rc 1e+300", "below 262144 σ"},
        {"--skin -1", "--skin -1", "from 0"},
        {"--skin 1e300", "--skin 1e+300", "below 262144 σ"},
        {"--dt 1e-12", "--dt 1e-12", "give --dt >= "},
    };
    char line[256];
    for (size_t h = 0; h < sizeof halos / sizeof *halos; h++)
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            snprintf(line, sizeof line, "--cells 4 --steps 5 --halo %s %s", halos[h],
                     cases[k].opts);
            const char *needles[] = {cases[k].want, cases[k].limit, NULL};
            refused(NULL, line, needles);
        }
    /* A data file (no lattice check in the way): the Verlet limit of its lightest mass. */
    snprintf(line, sizeof line, "--data %s/lammps_fcc256.data --steps 5 --halo pulse --dt 0.5",
             MD_TEST_DATA_DIR);
    const char *verlet[] = {"--dt 0.5", "unstable for dt >= 0.1871", NULL};
    refused(NULL, line, verlet);
}

/* ---- the lattice: the real limits, and values that work --------------------------------- */

static double suggested(const char *msg, const char *key)
{
    const char *p = strstr(msg, key);
    if (!p)
        fail_msg("expected '%s' in message: %s", key, msg);
    return strtod(p + strlen(key), NULL);
}

static void test_lattice_limits(void **state)
{
    (void)state;
    md_lattice lat;
    md_error err;
    /* --temperature 1e6: collisions reach closer than MD_R_MIN; the limit named works. */
    md_lattice_default(&lat);
    lat.temperature = 1e6;
    assert_int_equal(md_lattice_check(&lat, 0.005, &err), -1);
    md_test_contains(err.msg, "--temperature 1e+06");
    md_test_contains(err.msg, "closer than 0.5 σ");
    lat.temperature = suggested(err.msg, "give --temperature <= ");
    assert_true(lat.temperature > 500.0 && lat.temperature < 1e6);
    /* ... which at dt 0.005 travels too far per step; the --dt named works. */
    assert_int_equal(md_lattice_check(&lat, 0.005, &err), -1);
    md_test_contains(err.msg, "overshoots the repulsive wall");
    double dt = suggested(err.msg, "give --dt <= ");
    if (md_lattice_check(&lat, dt, &err) != 0)
        fail_msg("the suggested --dt %g is refused: %s", dt, err.msg);
    /* --density 100: fcc neighbours 0.24 σ apart; the limit named works. */
    md_lattice_default(&lat);
    lat.density = 100.0;
    assert_int_equal(md_lattice_check(&lat, 0.005, &err), -1);
    md_test_contains(err.msg, "--density 100");
    md_test_contains(err.msg, "0.2418 σ apart, closer than 0.5 σ");
    lat.density = suggested(err.msg, "give --density <= ");
    assert_true(lat.density > 11.0 && lat.density < 11.32);
    assert_int_equal(md_lattice_check(&lat, 0.005, &err), 0);
    /* md_system_fcc uses the same check. */
    md_system sys;
    lat.density = 100.0;
    assert_int_equal(md_system_fcc(&sys, &lat, 0.005, &err), -1);
    md_test_contains(err.msg, "give --density <= 11.3");
    md_lattice_default(&lat);
    assert_int_equal(md_lattice_check(&lat, 0.005, &err), 0);
}

/* The suggested --dt for --temperature 100 runs (a short run of the program). */
static void test_program_temperature(void **state)
{
    (void)state;
    const char *t1e6[] = {"--temperature 1e+06", "give --temperature <= 806", NULL};
    refused(NULL, "--cells 4 --steps 5 --temperature 1e6", t1e6);
    const char *d100[] = {"--density 100", "give --density <= 11.3", NULL};
    refused(NULL, "--cells 4 --steps 5 --density 100 --halo pulse", d100);
    prog_result r;
    run(&r, NULL, "--cells 4 --steps 5 --temperature 100");
    assert_int_equal(r.status, 1);
    md_test_contains(r.err, "give --dt <= ");
    double dt = suggested(r.err, "give --dt <= ");
    char line[200];
    snprintf(line, sizeof line, "--cells 6 --steps %d --thermo 0 --halo serial "
             "--temperature 100 --dt %g", md_test_scaled(300, 10), dt);
    run(&r, NULL, line);
    if (r.status != 0)
        fail_msg("'%s' (the suggested --dt) exited %d: %s", line, r.status, r.err);
}

/* ---- the command line ------------------------------------------------------------------- */

static void test_dd_overflow(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    assert_int_equal(md_test_parse_line(&o, &err, "--dd 100000x100000x100000"), -1);
    md_test_contains(err.msg, "--dd 100000x100000x100000");
    md_test_contains(err.msg, "at most 4096 PEs");
    if (strstr(err.msg, "-1530494976"))
        fail_msg("overflowed: %s", err.msg);
    assert_int_equal(md_test_parse_line(&o, &err, "--dd 2000x2000x1"), -1);
    md_test_contains(err.msg, "4000000 domains");
    assert_int_equal(md_test_parse_line(&o, &err, "--dd 16x16x16"), 0);
    assert_int_equal(o.dd.pes, 4096);
    assert_int_equal(md_test_parse_line(&o, &err, "--pes 4097"), -1);
    const char *dd[] = {"--dd 100000x100000x100000", "at most 4096", NULL};
    refused(NULL, "--dd 100000x100000x100000", dd);
}

/* Options only the parallel drivers use are refused with --halo serial, even at their
 * default value: the serial driver would silently ignore them. */
static void test_serial_ignored_options(void **state)
{
    (void)state;
    static const char *opts[] = {"--transport signal", "--transport auto", "--timing",
                                 "--bulk-copy auto", "--force-kernel auto", "--graph",
                                 "--force-kernel threads"};
    md_options o;
    md_error err;
    char line[200];
    for (size_t k = 0; k < sizeof opts / sizeof *opts; k++) {
        snprintf(line, sizeof line, "--halo serial %s", opts[k]);
        if (md_test_parse_line(&o, &err, line) == 0)
            fail_msg("'%s' was accepted", line);
        char name[40];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(opts[k], " "), opts[k]);
        md_test_contains(err.msg, name);
        md_test_contains(err.msg, "--halo serial runs no kernels");
        /* Either order, and each is fine with a parallel driver. */
        snprintf(line, sizeof line, "%s --halo serial", opts[k]);
        assert_int_equal(md_test_parse_line(&o, &err, line), -1);
        if (strcmp(opts[k], "--graph") != 0) {
            snprintf(line, sizeof line, "--halo pulse %s", opts[k]);
            if (md_test_parse_line(&o, &err, line) != 0)
                fail_msg("'%s' was refused: %s", line, err.msg);
        }
    }
    const char *tr[] = {"--transport", "--halo serial", NULL};
    refused(NULL, "--halo serial --transport signal --cells 4 --steps 2", tr);
}

/* --halo mpi (par_mpi.c) and its option; everything that refuses it before a run. */
static void test_halo_mpi_options(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    assert_int_equal(md_test_parse_line(&o, &err, "--halo mpi --pes 2"), 0);
    assert_int_equal(o.halo, MD_HALO_MPI);
    assert_int_equal(o.mpi_staging, MD_STAGING_AUTO);
    assert_int_equal(md_test_parse_line(&o, &err, "--mpi-staging on --halo mpi"), 0);
    assert_int_equal(o.mpi_staging, MD_STAGING_ON);
    assert_int_equal(md_test_parse_line(&o, &err, "--halo mpi --mpi-staging off"), 0);
    assert_int_equal(o.mpi_staging, MD_STAGING_OFF);
    static const struct {
        const char *line, *want;
    } bad[] = {
        {"--halo mpi --mpi-staging maybe", "give on, off or auto"},
        {"--mpi-staging on --halo fused", "give --halo mpi"},
        {"--mpi-staging off", "give --halo mpi"},
        {"--halo mpi --transport direct", "never by stores into a peer"},
        {"--graph --halo mpi", "--graph with --halo mpi"},
        {"--halo mpu", "mpi (the same through MPI)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        if (md_test_parse_line(&o, &err, bad[k].line) == 0)
            fail_msg("'%s' was accepted", bad[k].line);
        md_test_contains(err.msg, bad[k].want);
    }
    /* The library's driver in a program that does not link par_mpi.c (this test). */
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 7, 0.005);
    md_params par;
    md_params_default(&par);
    par.steps = 2;
    md_ddparams dd;
    md_ddparams_default(&dd);
    dd.pes = 2;
    md_par_opts po;
    md_par_opts_default(&po);
    po.halo = MD_HALO_MPI;
    md_par_result res;
    err.msg[0] = '\0';
    assert_int_equal(md_par_run(&sys, &par, &dd, &po, no_sample, NULL, &res, &err), -1);
    md_test_contains(err.msg, "linked without md/src/par_mpi.c");
    po.transport = MD_TRANSPORT_DIRECT;
    assert_int_equal(md_par_run(&sys, &par, &dd, &po, no_sample, NULL, &res, &err), -1);
    md_test_contains(err.msg, "never by stores into a peer");
    md_system_free(&sys);
    /* The program on the threads backend: no PE is an MPI rank (or no MPI in the build). */
    const char *want[] = {"--halo mpi", NULL};
    refused(NULL, "--halo mpi --cells 4 --pes 2 --steps 2", want);
}

static void test_list_bugs_with_options(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    assert_int_equal(md_test_parse_line(&o, &err, "--list-bugs --halo serial --pes 2"), 0);
    assert_true(o.list_bugs);
    assert_int_equal(md_test_parse_line(&o, &err, "--list-bugs=1"), -1);
    md_test_contains(err.msg, "--list-bugs takes no value");
    prog_result r;
    run(&r, NULL, "--list-bugs --halo fused --pes 4");
    if (r.status != 0)
        fail_msg("--list-bugs with options exited %d: %s", r.status, r.err);
    md_test_contains(r.out, "x-dep-wait-missing");
    prog_result alone;
    run(&alone, NULL, "--list-bugs");
    assert_int_equal(alone.status, 0);
    assert_string_equal(alone.out, r.out);
}

/* SHMEMU_REPLAY replays the PE threads' schedule; --halo serial has none. */
static void test_replay_with_serial(void **state)
{
    (void)state;
    const char *want[] = {"SHMEMU_REPLAY=trace.txt", "--halo serial", "nothing to replay",
                          NULL};
    refused("SHMEMU_REPLAY=trace.txt", "--halo serial --cells 4 --steps 2", want);
}

static void test_sched_with_serial(void **state)
{
    (void)state;
    const char *sched[] = {"SHMEMU_SCHED=random", "--halo serial", "no PE threads", NULL};
    refused("SHMEMU_SCHED=random", "--halo serial --cells 4 --steps 2", sched);
    const char *out[] = {"SHMEMU_TRACE_OUT=t.trace", "--halo serial", NULL};
    refused("SHMEMU_TRACE_OUT=t.trace", "--halo serial --cells 4 --steps 2", out);
}

/* A per-type cut-off in the data file's Pair Coeffs is honoured when it equals --rc and
 * refused, naming both, when it does not (never ignored). */
static void test_program_pair_cutoff(void **state)
{
    (void)state;
    FILE *in = fopen(MD_TEST_DATA_DIR "/lammps_fcc256.data", "r");
    assert_non_null(in);
    const char *base = getenv("TMPDIR");
    char path[300];
    snprintf(path, sizeof path, "%s/test_md_options.pair.XXXXXX", base && *base ? base : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    char line[512];
    while (fgets(line, sizeof line, in)) /* the file's "1 1 1" gets a cut-off column */
        fputs(strcmp(line, "1 1 1\n") == 0 ? "1 1 1 2.5\n" : line, out);
    fclose(in);
    fclose(out);
    prog_result r;
    char args[512];
    snprintf(args, sizeof args, "--data %s --steps 2 --rc 2.5", path);
    run(&r, NULL, args);
    if (r.status != 0 || !strstr(r.out, "checksum"))
        fail_msg("a Pair Coeffs cut-off equal to --rc was not honoured: exit %d: %s", r.status,
                 r.err);
    snprintf(args, sizeof args, "--data %s --steps 2 --rc 2.2", path);
    const char *want[] = {"2.5", "2.2", NULL};
    refused(NULL, args, want);
    unlink(path);
}

/* --help documents the environment a user steers the run with. */
static void test_help_names_the_environment(void **state)
{
    (void)state;
    prog_result r;
    run(&r, NULL, "--help");
    assert_int_equal(r.status, 0);
    static const char *vars[] = {"SHMEMU_EMU_TRACE=PATH", "SHMEMU_SCHED=", "SHMEMU_BUG=",
                                 "SHMEMU_HANG_TIMEOUT="};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
        if (!strstr(r.out, vars[k]))
            fail_msg("--help does not mention %s", vars[k]);
}

/* A usage error: the specific error first, then the hint. */
static void test_usage_error_hint(void **state)
{
    (void)state;
    static const char *lines[] = {"--frobnicate", "--rc", "--cells 0", "stray"};
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) {
        prog_result r;
        run(&r, NULL, lines[k]);
        assert_int_equal(r.status, 1);
        const char *nl = strchr(r.err, '\n');
        if (!nl || strncmp(nl + 1, "shmemu-md: see shmemu-md --help", 31) != 0)
            fail_msg("'%s': want the error, then the hint line; got: %s", lines[k], r.err);
        if (strstr(r.err, "see shmemu-md --help") < nl)
            fail_msg("'%s': the hint came before the error: %s", lines[k], r.err);
        if (strstr(r.out, "usage:"))
            fail_msg("'%s': printed the whole usage on an error", lines[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_every_driver),
        cmocka_unit_test(test_params_system_limits),
        cmocka_unit_test(test_program_params),
        cmocka_unit_test(test_lattice_limits),
        cmocka_unit_test(test_program_temperature),
        cmocka_unit_test(test_dd_overflow),
        cmocka_unit_test(test_serial_ignored_options),
        cmocka_unit_test(test_halo_mpi_options),
        cmocka_unit_test(test_list_bugs_with_options),
        cmocka_unit_test(test_replay_with_serial),
        cmocka_unit_test(test_sched_with_serial),
        cmocka_unit_test(test_program_pair_cutoff),
        cmocka_unit_test(test_help_names_the_environment),
        cmocka_unit_test(test_usage_error_hint),
    };
    return cmocka_run_group_tests_name("md_options", tests, NULL, NULL);
}
