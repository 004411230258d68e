/*
 * test_cg_cli.c: bin/shmemu-cg as a user runs it (cg/src/main.c, options.c): the output's
 * form (the result line, the checksum last, time and the FLOP/byte model on standard
 * error), deterministic standard output, the checksum equal to the library's, exit status
 * 0 converged / 1 not converged or breakdown / 2 bad option or input, each refusal naming
 * the option or file (and line) and what to do; solvers and options of the issue that are
 * not built yet refused by name; --solver cg-mono --pes N and cg-host --reduce sync|stream
 * printing serial's lines, also with METIS's parts (--partition metis) and the direct
 * transport (--transport direct); pcg-mono printing pcg-serial's; halo-loop printing halo-serial's;
 * --list-bugs.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_cg_util.h"

typedef struct prog_result {
    int status;
    char out[16384];
    char err[8192];
} prog_result;

static char prog[1200];

/* This build's shmemu-cg: next to the test's build folder, else the plain build's bin/. */
static void find_program(void)
{
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(prog, sizeof prog, "%s/../bin/shmemu-cg", self);
    if (access(prog, X_OK) == 0)
        return;
    snprintf(prog, sizeof prog, "%s/bin/shmemu-cg", CG_TEST_ROOT);
    if (access(prog, X_OK) != 0)
        fail_msg("shmemu-cg not found next to this test nor in bin/ (cg.mk builds it first)");
}

static void read_all(int fd, char *buf, size_t size)
{
    size_t got = 0;
    ssize_t n;
    lseek(fd, 0, SEEK_SET);
    while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
}

/* Runs shmemu-cg with args (NULL-terminated). */
static void run(prog_result *r, const char *const *args)
{
    if (!prog[0])
        find_program();
    char tout[] = "/tmp/cgcli-outXXXXXX", terr[] = "/tmp/cgcli-errXXXXXX";
    int fo = mkstemp(tout), fe = mkstemp(terr);
    assert_true(fo >= 0 && fe >= 0);
    unlink(tout);
    unlink(terr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        const char *argv[32];
        int k = 0;
        argv[k++] = prog;
        for (; args[k - 1] && k < 31; k++)
            argv[k] = args[k - 1];
        argv[k] = NULL;
        execv(prog, (char *const *)argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    r->status = WEXITSTATUS(st);
    read_all(fo, r->out, sizeof r->out);
    read_all(fe, r->err, sizeof r->err);
    close(fo);
    close(fe);
}

#define RUN(r, ...)                                                                           \
    do {                                                                                      \
        static const char *const args_[] = {__VA_ARGS__, NULL};                               \
        run((r), args_);                                                                      \
    } while (0)

static void expect(const prog_result *r, int status, const char *in_err)
{
    if (r->status != status || (in_err && !strstr(r->err, in_err)))
        fail_msg("exit %d (expected %d), stderr: %s (expected to contain \"%s\")", r->status,
                 status, r->err, in_err ? in_err : "");
}

/* The checksum on the last line of standard output. */
static uint64_t last_checksum(const prog_result *r)
{
    size_t len = strlen(r->out);
    assert_true(len > 26 && r->out[len - 1] == '\n');
    const char *last = r->out + len - 26;
    assert_true(strncmp(last, "checksum ", 9) == 0);
    for (int k = 9; k < 25; k++)
        assert_true(strchr("0123456789abcdef", last[k]) != NULL);
    return strtoull(last + 9, NULL, 16);
}

static void test_output(void **state)
{
    (void)state;
    static prog_result r, r2;
    RUN(&r, "--help");
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "usage: shmemu-cg"));
    RUN(&r, "--poisson1d", "20");
    expect(&r, 0, "ms per iteration");
    assert_non_null(strstr(r.out, "\niterations 20 residual "));
    assert_non_null(strstr(r.err, "GFLOP/s"));
    assert_non_null(strstr(r.err, "GB/s"));
    uint64_t c = last_checksum(&r);
    RUN(&r2, "--poisson1d=20", "--solver=serial", "--seed", "1");
    expect(&r2, 0, NULL);
    assert_string_equal(r.out, r2.out); /* standard output is deterministic */
    RUN(&r2, "--poisson1d", "20", "--seed", "2");
    assert_int_not_equal(last_checksum(&r2), c);
    /* --history: one line per iteration and the initial residual */
    RUN(&r, "--poisson2d", "6", "--history");
    expect(&r, 0, NULL);
    int lines = 0;
    for (const char *p = r.out; (p = strstr(p, "\nresidual ")); p++)
        lines++;
    const char *it = strstr(r.out, "\niterations ");
    assert_non_null(it);
    assert_int_equal(lines, atoi(it + 12) + 1);
}

/* The output lines without the '#' ones (the header names the solver). */
static void strip_comments(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = in; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (*p != '#' && o + len < size) {
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
    }
    out[o] = '\0';
}

/* --solver cg-mono and cg-host (either --reduce) print the serial solver's lines, bit for
 * bit, at any --pes. */
static void test_mono_prints_serial_lines(void **state)
{
    (void)state;
    static prog_result r;
    static char want[16384], got[16384];
    char path[1024];
    snprintf(path, sizeof path, "%s/spd40.mtx", CG_TEST_DATA_DIR);
    const char *serial[] = {"--matrix", path, "--history", NULL};
    run(&r, serial);
    expect(&r, 0, NULL);
    strip_comments(r.out, want, sizeof want);
    assert_non_null(strstr(want, "iterations 21 residual "));
    const char *mono[] = {"--matrix", path, "--history", "--solver", "cg-mono", "--pes", "3",
                          NULL};
    run(&r, mono);
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "# solver cg-mono, pes 3"));
    strip_comments(r.out, got, sizeof got);
    assert_string_equal(got, want);
    const char *host[][2] = {{"sync", "# solver cg-host, reduce sync, pes 4"},
                             {"stream", "# solver cg-host, reduce stream, pes 4"}};
    for (int i = 0; i < 2; i++) {
        const char *args[] = {"--matrix", path,       "--history", "--solver", "cg-host",
                              "--pes",    "4",        "--reduce",  host[i][0], NULL};
        run(&r, args);
        expect(&r, 0, NULL);
        assert_non_null(strstr(r.out, host[i][1]));
        strip_comments(r.out, got, sizeof got);
        assert_string_equal(got, want);
    }
    /* METIS's parts and the direct transport: the same lines; what moved on stderr */
    const char *metis[] = {"--matrix", path, "--history", "--solver", "cg-mono", "--pes", "4",
                           "--partition", "metis", "--transport", "direct", NULL};
    run(&r, metis);
    expect(&r, 0, "partition metis: ");
    assert_non_null(strstr(r.err, "transport direct: "));
    assert_non_null(strstr(r.err, " 0 put-with-signal per exchange"));
    assert_non_null(strstr(r.out, "# solver cg-mono, pes 4, partition metis, transport direct"));
    strip_comments(r.out, got, sizeof got);
    assert_string_equal(got, want);
    const char *host_metis[] = {"--matrix", path, "--history", "--solver", "cg-host", "--pes",
                                "3", "--partition", "metis", NULL};
    run(&r, host_metis);
    expect(&r, 0, "partition metis: ");
    strip_comments(r.out, got, sizeof got);
    assert_string_equal(got, want);
}

/* --solver pcg-mono prints pcg-serial's lines (pipelined CG: its own recurrence, so not
 * serial's), bit for bit, at any --pes; and stops on a breakdown as CG does. */
static void test_pcg_prints_pcg_serial_lines(void **state)
{
    (void)state;
    static prog_result r;
    static char want[16384], got[16384];
    char path[1024];
    snprintf(path, sizeof path, "%s/spd40.mtx", CG_TEST_DATA_DIR);
    const char *serial[] = {"--matrix", path, "--history", "--solver", "pcg-serial", NULL};
    run(&r, serial);
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "# solver pcg-serial, seed 1"));
    strip_comments(r.out, want, sizeof want);
    assert_non_null(strstr(want, "iterations 21 residual "));
    assert_non_null(strstr(want, "\nresidual 21 "));
    const char *pes[] = {"1", "3", "8"};
    for (int i = 0; i < 3; i++) {
        const char *args[] = {"--matrix", path,  "--history", "--solver", "pcg-mono",
                              "--pes",    pes[i], NULL};
        run(&r, args);
        expect(&r, 0, NULL);
        assert_non_null(strstr(r.out, "# solver pcg-mono, pes "));
        strip_comments(r.out, got, sizeof got);
        assert_string_equal(got, want);
    }
    /* the same lines as serial CG's but for the residuals and x: a different recurrence */
    const char *cg[] = {"--matrix", path, "--history", NULL};
    run(&r, cg);
    strip_comments(r.out, got, sizeof got);
    assert_string_not_equal(got, want);
    RUN(&r, "--poisson1d", "10", "--solver", "pcg-serial", "--pes", "2");
    expect(&r, 2, "--pes: pcg-serial runs on one PE");
}

/* --solver halo-loop prints halo-serial's lines at any --pes; --list-bugs names cg's plants. */
static void test_halo_loop_and_bugs(void **state)
{
    (void)state;
    static prog_result r;
    static char want[4096], got[4096];
    RUN(&r, "--poisson2d", "8", "--solver", "halo-serial", "--iters", "12");
    expect(&r, 0, NULL);
    strip_comments(r.out, want, sizeof want);
    assert_non_null(strstr(want, "halo-loop iterations 12 norm "));
    RUN(&r, "--poisson2d", "8", "--solver", "halo-loop", "--iters", "12", "--pes", "3");
    expect(&r, 0, NULL);
    strip_comments(r.out, got, sizeof got);
    assert_string_equal(got, want);
    RUN(&r, "--poisson2d", "8", "--solver", "halo-loop", "--iters", "12", "--pes", "4",
        "--partition", "metis", "--transport", "auto");
    expect(&r, 0, "transport auto: ");
    strip_comments(r.out, got, sizeof got);
    assert_string_equal(got, want);
    RUN(&r, "--list-bugs");
    expect(&r, 0, NULL);
    assert_non_null(strstr(r.out, "cg-credit-wait-missing"));
    assert_non_null(strstr(r.out, "cg-quiet-missing"));
}

/* The printed checksum is the library's (read, manufacture, solve, checksum). */
static void test_checksum_matches_library(void **state)
{
    (void)state;
    static prog_result r;
    char path[1024];
    snprintf(path, sizeof path, "%s/spd40.mtx", CG_TEST_DATA_DIR);
    const char *args[] = {"--matrix", path, "--seed", "7", "--tol", "1e-12", NULL};
    run(&r, args);
    expect(&r, 0, NULL);
    cg_csr a;
    cg_mtx_info info;
    cg_error err;
    assert_int_equal(cg_mtx_read(path, &a, &info, &err), 0);
    double xs[40], b[40], x[40];
    cg_manufactured(xs, 40, 7);
    cg_spmv(&a, xs, b);
    cg_result res;
    cg_solve_serial(&a, b, x, 1e-12, 10000, NULL, &res);
    assert_int_equal(last_checksum(&r), cg_checksum(x, 40));
    char line[64];
    snprintf(line, sizeof line, "\niterations %" PRId64 " residual ", res.iterations);
    assert_non_null(strstr(r.out, line));
    cg_csr_free(&a);
}

static void test_refusals(void **state)
{
    (void)state;
    static prog_result r;
    RUN(&r, "--poisson1d", "100", "--max-iter", "5");
    expect(&r, 1, "not converged: residual");
    last_checksum(&r); /* still printed */
    RUN(&r, "--poisson1d", "10", "--solver", "cg-host", "--reduce", "async");
    expect(&r, 2, "--reduce 'async': give sync");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--reduce", "sync");
    expect(&r, 2, "--reduce is an option of cg-host");
    RUN(&r, "--poisson1d", "10", "--iters", "5");
    expect(&r, 2, "--iters is an option of the halo-only loop");
    RUN(&r, "--poisson1d", "10", "--solver", "halo-serial", "--pes", "2");
    expect(&r, 2, "--pes: halo-serial runs on one core");
    RUN(&r, "--poisson1d", "10", "--solver", "halo-loop", "--history");
    expect(&r, 2, "--history: the halo-only loop has no residual");
    RUN(&r, "--poisson1d", "10", "--solver", "fast");
    expect(&r, 2, "--solver 'fast': give serial");
    RUN(&r, "--poisson1d", "10", "--pes", "4");
    expect(&r, 2, "--pes: the serial solver runs on one PE");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--pes", "0");
    expect(&r, 2, "--pes '0': give a whole number from 1 to 64");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--pes", "20");
    expect(&r, 2, "--pes 20: give 1 to 10");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--blocks", "0");
    expect(&r, 2, "--blocks '0'");
    RUN(&r, "--poisson1d", "10", "--partition", "metis");
    expect(&r, 2, "--partition splits the rows over the PEs");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--partition", "scotch");
    expect(&r, 2, "--partition 'scotch': give contiguous");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--partition", "metis", "--pes", "11");
    expect(&r, 2, "--pes 11: give 1 to 10");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-mono", "--transport", "fast");
    expect(&r, 2, "--transport 'fast': give signal");
    RUN(&r, "--poisson1d", "10", "--solver", "cg-host", "--transport", "direct");
    expect(&r, 2, "--transport is an option of the monolithic kernels' halo");
    RUN(&r, "--poisson1d", "10", "--solver", "halo-serial", "--transport", "auto");
    expect(&r, 2, "--transport is an option of the monolithic kernels' halo");
    RUN(&r, "--bogus");
    expect(&r, 2, "unknown option '--bogus'");
    RUN(&r, "--poisson1d", "10", "--tol", "2");
    expect(&r, 2, "--tol '2': give a number between 0 and 1");
    RUN(&r, "--poisson1d", "10", "--max-iter", "0");
    expect(&r, 2, "--max-iter '0': give a whole number from 1");
    RUN(&r, "--poisson1d", "10", "--seed", "-1");
    expect(&r, 2, "--seed '-1'");
    RUN(&r, "--poisson2d", "x");
    expect(&r, 2, "--poisson2d 'x'");
    RUN(&r, "--poisson3d", "100000");
    expect(&r, 2, "--poisson3d 100000");
    RUN(&r, "--poisson1d");
    expect(&r, 2, "--poisson1d needs a value");
    RUN(&r, "--help=yes");
    expect(&r, 2, "--help takes no value");
    RUN(&r, "--seed", "3");
    expect(&r, 2, "no matrix");
    RUN(&r, "--poisson1d", "4", "--poisson2d", "4");
    expect(&r, 2, "--poisson1d and --poisson2d: give one matrix");
    RUN(&r, "stray");
    expect(&r, 2, "unexpected argument 'stray'");
    RUN(&r, "--matrix", "/nonexistent/a.mtx");
    expect(&r, 2, "/nonexistent/a.mtx: cannot open");
    assert_string_equal(r.out, ""); /* nothing on standard output after a refusal */
}

/* Input files: a refused one names file and line (exit 2); an indefinite one breaks down
 * (exit 1). */
static void test_files(void **state)
{
    (void)state;
    static prog_result r;
    char path[] = "/tmp/cgcli-mtxXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char dup[] = "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n"
                              "1 1 1\n2 1 0.5\n2 2 1\n2 1 0.5\n";
    assert_int_equal(write(fd, dup, sizeof dup - 1), (ssize_t)(sizeof dup - 1));
    close(fd);
    const char *args[] = {"--matrix", path, NULL};
    run(&r, args);
    char want[128];
    snprintf(want, sizeof want, "%s:6: entry (2, 1) repeats the one on line 4", path);
    expect(&r, 2, want);
    static const char indef[] = "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n"
                                "1 1 1\n2 1 2\n2 2 1\n";
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, indef, sizeof indef - 1), (ssize_t)(sizeof indef - 1));
    close(fd);
    run(&r, args);
    expect(&r, 1, "not positive definite");
    const char *pcg[] = {"--matrix", path, "--solver", "pcg-mono", "--pes", "2", NULL};
    run(&r, pcg);
    expect(&r, 1, "<= 0, so the matrix is not positive definite");
    assert_non_null(strstr(r.err, ": p.Ap (pipelined"));
    last_checksum(&r); /* still printed */
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output),
        cmocka_unit_test(test_checksum_matches_library),
        cmocka_unit_test(test_mono_prints_serial_lines),
        cmocka_unit_test(test_pcg_prints_pcg_serial_lines),
        cmocka_unit_test(test_halo_loop_and_bugs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
