/*
 * test_cg_halo.c: the halo-only loop (cg/par.h: cg_halo_loop_par; kernels/mono.c's
 * cg_halo_loop, cg-mono's halo code with no reduction between the exchanges), and the
 * planted bugs it exists for (cg_bugs.h: cg-credit-wait-missing, cg-quiet-missing):
 *   - 2-D Poisson and tests/cg_data/spd40.mtx at 1, 2, 3, 4 and 8 PEs, other grids, and
 *     under the deterministic scheduler (random seeds 1-3, pct 4): u bit for bit
 *     cg_halo_loop_serial's;
 *   - with the credit wait dropped (shmemu_bug_select), the same scheduled runs give a
 *     different u under every one of those schedules: a sender runs an exchange ahead and
 *     overwrites ghosts its receiver's SpMV still reads. The same plant in cg-mono gives the
 *     serial CG's bits under the same schedules: masked by its blocking reductions;
 *   - with the quiet dropped, the checking mode (SHMEMU_CHECK_NBI=1) reports the send buffer
 *     rewritten before its puts completed in the halo-only loop, and nothing in cg-mono (its
 *     reductions complete the puts); the correct loop runs clean there;
 *   - bad counts refused; the catalogue (cg_bugs.c) names both plants.
 * Sizes are small (20-30 iterations): the suite takes about a second natively.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "cg/par.h"
#include "cg/solve.h"
#include "cg_bugs.h"
#include "shmemu/pgas.h"
#include "support/sched_env.h"
#include "test_cg_util.h"

#define ITERS 24

static void matrix_make(cg_csr *a, int which)
{
    cg_error err;
    if (which == 0) {
        assert_int_equal(cg_poisson2d(a, 10, &err), 0);
    } else {
        size_t len;
        char *text = cgt_read_data("spd40.mtx", &len);
        cgt_parse_ok(text, a);
        free(text);
    }
}

/* u after ITERS steps from x* (seed 3): serially (pes 0) or on pes PEs; its checksum. */
static uint64_t halo_run(const cg_csr *a, int pes, int blocks, int threads)
{
    double *u0 = malloc((size_t)a->n * sizeof *u0), *u = malloc((size_t)a->n * sizeof *u);
    assert_true(u0 != NULL && u != NULL);
    cg_manufactured(u0, a->n, 3);
    const double omega = cg_halo_omega(a);
    if (pes == 0) {
        memcpy(u, u0, (size_t)a->n * sizeof *u);
        cg_halo_loop_serial(a, u, ITERS, omega);
    } else {
        cg_par_opts o = {CG_SOLVER_HALO_LOOP, pes, blocks, threads, CG_REDUCE_SYNC,
                         CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
        cg_error err;
        if (cg_halo_loop_par(a, u0, u, ITERS, omega, &o, &err) != 0)
            fail_msg("%d PEs: %s", pes, err.msg);
    }
    uint64_t sum = cg_checksum(u, a->n);
    free(u);
    free(u0);
    return sum;
}

static void test_matches_serial(void **state)
{
    (void)state;
    static const int pes[] = {1, 2, 3, 4, 8};
    for (int m = 0; m < 2; m++) {
        cg_csr a;
        matrix_make(&a, m);
        const uint64_t want = halo_run(&a, 0, 0, 0);
        for (size_t i = 0; i < sizeof pes / sizeof *pes; i++) {
            if (RUNNING_ON_VALGRIND && (i + (size_t)m) % 3 != 0)
                continue;
            uint64_t got = halo_run(&a, pes[i], 2, 4);
            if (got != want)
                fail_msg("matrix %d, %d PEs: checksum %016llx, serial %016llx", m, pes[i],
                         (unsigned long long)got, (unsigned long long)want);
        }
        assert_true(halo_run(&a, 3, 1, 1) == want);
        assert_true(halo_run(&a, 3, 3, 7) == want);
        cg_csr_free(&a);
    }
}

/* The loop must change u (else a dropped exchange could go unseen). */
static void test_loop_changes_u(void **state)
{
    (void)state;
    cg_csr a;
    matrix_make(&a, 0);
    double u0[100], u[100];
    cg_manufactured(u0, a.n, 3);
    memcpy(u, u0, sizeof u);
    cg_halo_loop_serial(&a, u, 1, cg_halo_omega(&a));
    int changed = 0;
    for (int i = 0; i < a.n; i++)
        changed += cgt_bits(u[i]) != cgt_bits(u0[i]);
    assert_int_equal(changed, a.n);
    assert_true(cg_halo_omega(&a) == 0.0625); /* row sums up to 8 < 2^4 */
    cg_csr_free(&a);
}

static const struct {
    const char *strategy;
    int seed;
} schedules[] = {{"random", 1}, {"random", 2}, {"random", 3}, {"pct", 4}};

/* Correct code: the serial bits under every schedule; the credit wait dropped: different
 * bits under every one (caught), on 4 PEs of the 2-D matrix. */
static void test_credit_wait_plant_caught(void **state)
{
    (void)state;
    cg_csr a;
    matrix_make(&a, 0);
    const uint64_t want = halo_run(&a, 0, 0, 0);
    for (size_t i = 0; i < sizeof schedules / sizeof *schedules; i++) {
        if (RUNNING_ON_VALGRIND && i != 0)
            continue;
        for (int plant = 0; plant < 2; plant++) {
            /* under helgrind (and TSan) the plant's race is reported (the put against
             * mono_row's read), which would fail make check-races: correct loop only */
            if (plant && (RUNNING_ON_VALGRIND || CGT_TSAN))
                continue;
            shmemu_bug_select(plant ? CG_BUG_CREDIT_WAIT_MISSING : SHMEMU_BUG_NONE);
            set_sched(schedules[i].strategy, schedules[i].seed);
            uint64_t got = halo_run(&a, 4, 2, 4);
            clear_sched();
            shmemu_bug_select(SHMEMU_BUG_NONE);
            if ((got == want) != (plant == 0))
                fail_msg("%s seed %d, credit wait %s: checksum %016llx, serial %016llx",
                         schedules[i].strategy, schedules[i].seed,
                         plant ? "dropped (should differ)" : "kept", (unsigned long long)got,
                         (unsigned long long)want);
        }
    }
    cg_csr_free(&a);
}

/* The same plant in cg-mono changes nothing: the reductions block the sender instead. */
static void test_credit_wait_plant_masked_in_mono(void **state)
{
    (void)state;
    cg_csr a;
    matrix_make(&a, 0);
    double *b = malloc((size_t)a.n * sizeof *b), *x = malloc((size_t)a.n * sizeof *x);
    assert_true(b != NULL && x != NULL);
    cg_manufactured(x, a.n, 1);
    cg_spmv(&a, x, b);
    cg_result want, got;
    cg_solve_serial(&a, b, x, 1e-8, 200, NULL, &want);
    const uint64_t want_sum = cg_checksum(x, a.n);
    for (size_t i = 0; i < sizeof schedules / sizeof *schedules; i++) {
        if (RUNNING_ON_VALGRIND && i != 0)
            continue;
        cg_par_opts o = {CG_SOLVER_MONO, 4, 2, 4, CG_REDUCE_SYNC,
                         CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
        cg_error err;
        shmemu_bug_select(CG_BUG_CREDIT_WAIT_MISSING);
        set_sched(schedules[i].strategy, schedules[i].seed);
        int rc = cg_solve_par(&a, b, x, 1e-8, 200, &o, NULL, &got, &err);
        clear_sched();
        shmemu_bug_select(SHMEMU_BUG_NONE);
        assert_int_equal(rc, 0);
        assert_int_equal(got.iterations, want.iterations);
        assert_true(cg_checksum(x, a.n) == want_sum);
    }
    free(x);
    free(b);
    cg_csr_free(&a);
}

/* In checking mode (SHMEMU_CHECK_NBI=1: puts delivered late, a source reused before its
 * quiet reported, and a report aborts) in a child, with `bug` planted: the halo-only loop on
 * 4 PEs (mono false) or cg-mono (mono true), 3 blocks. Returns the child's wait status;
 * *sum gets the checksum of u (or x) when it finished. */
static int checking_child(const cg_csr *a, int bug, bool mono, uint64_t *sum)
{
    int fd[2];
    pid_t pid = cgt_fork_checking(fd);
    if (pid == 0) {
        if (bug != SHMEMU_BUG_NONE) { /* the expected report: kept out of the test's output */
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 2);
        }
        shmemu_bug_select(bug);
        uint64_t out = 0;
        if (mono) {
            double *b = malloc((size_t)a->n * sizeof *b), *x = malloc((size_t)a->n * sizeof *x);
            cg_manufactured(x, a->n, 1);
            cg_spmv(a, x, b);
            cg_par_opts o = {CG_SOLVER_MONO, 4, 3, 4, CG_REDUCE_SYNC,
                             CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
            cg_result res;
            cg_error err;
            if (cg_solve_par(a, b, x, 1e-8, 200, &o, NULL, &res, &err) != 0)
                _exit(4);
            out = cg_checksum(x, a->n);
        } else {
            out = halo_run(a, 4, 3, 4);
        }
        _exit(write(fd[1], &out, sizeof out) == (ssize_t)sizeof out ? 0 : 3);
    }
    close(fd[1]);
    *sum = 0;
    ssize_t n = read(fd[0], sum, sizeof *sum);
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        assert_int_equal(n, (ssize_t)sizeof *sum);
    return status;
}

/* The quiet dropped: the checking mode reports the send buffer rewritten before its puts
 * completed in the halo-only loop (the child aborts); the correct loop runs clean there
 * with the serial bits; in cg-mono the same plant goes unreported (its next reduction
 * collective completes the puts in the quiet's place) and gives the serial bits. */
static void test_quiet_plant_caught_in_checking_mode(void **state)
{
    (void)state;
    if (RUNNING_ON_VALGRIND)
        skip();
    cg_csr a;
    matrix_make(&a, 0);
    const uint64_t want = halo_run(&a, 0, 0, 0);
    uint64_t got;
    int st = checking_child(&a, SHMEMU_BUG_NONE, false, &got);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_true(got == want);
    st = checking_child(&a, CG_BUG_QUIET_MISSING, false, &got);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
        fail_msg("the quiet dropped in the halo-only loop: the child %s %d, no report",
                 WIFEXITED(st) ? "exited with" : "was killed by signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    double *b = malloc((size_t)a.n * sizeof *b), *x = malloc((size_t)a.n * sizeof *x);
    assert_true(b != NULL && x != NULL);
    cg_manufactured(x, a.n, 1);
    cg_spmv(&a, x, b);
    cg_result res;
    cg_solve_serial(&a, b, x, 1e-8, 200, NULL, &res);
    st = checking_child(&a, CG_BUG_QUIET_MISSING, true, &got);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_true(got == cg_checksum(x, a.n));
    free(x);
    free(b);
    cg_csr_free(&a);
}

static void test_refusals(void **state)
{
    (void)state;
    cg_csr a;
    matrix_make(&a, 0);
    double u0[100] = {0}, u[100];
    static const struct {
        int pes, blocks;
        long long iters;
        const char *says;
    } bad[] = {{0, 1, 1, "--pes 0"}, {2, CG_PAR_MAX_BLOCKS + 1, 1, "--blocks"},
               {2, 1, -1, "iters -1"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cg_par_opts o = {CG_SOLVER_HALO_LOOP, bad[i].pes, bad[i].blocks, 1, CG_REDUCE_SYNC,
                         CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
        cg_error err;
        err.msg[0] = '\0';
        assert_int_equal(cg_halo_loop_par(&a, u0, u, bad[i].iters, 0.5, &o, &err), -1);
        if (strstr(err.msg, bad[i].says) == NULL)
            fail_msg("case %zu: message '%s' does not say '%s'", i, err.msg, bad[i].says);
    }
    cg_csr_free(&a);
}

/* The catalogue names the plant and a configuration that exercises it. */
static void test_catalogue(void **state)
{
    (void)state;
    size_t n;
    const shmemu_bug_info *c = cg_bugs_catalogue(&n);
    assert_int_equal(n, CG_BUG_END - CG_BUG_CREDIT_WAIT_MISSING);
    static const char *const names[] = {"cg-credit-wait-missing", "cg-quiet-missing"};
    assert_true(n >= sizeof names / sizeof *names); /* the others: test_cg_plants.c */
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const shmemu_bug_info *e = shmemu_bug_by_name(names[i]);
        assert_non_null(e);
        assert_ptr_equal(e, &c[i]);
        assert_non_null(strstr(e->config, "--solver halo-loop"));
    }
}

int main(void)
{
    clear_sched();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_serial),
        cmocka_unit_test(test_loop_changes_u),
        cmocka_unit_test(test_credit_wait_plant_caught),
        cmocka_unit_test(test_credit_wait_plant_masked_in_mono),
        cmocka_unit_test(test_quiet_plant_caught_in_checking_mode),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_catalogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
