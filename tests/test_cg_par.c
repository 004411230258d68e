/*
 * test_cg_par.c: the parallel solvers (cg/par.h) against the serial solver, bit for bit
 * (docs/design.md D3, docs/cg.md): cg-mono (one cooperative kernel per PE on the emulated
 * GPU, halo by put-with-signal, exact device-side reductions), and cg-host with --reduce
 * sync and stream (a kernel per operation from each PE's host thread, the halo on a second
 * stream). Each test below runs once per solver (its cmocka state, `variant`); cg-host runs
 * the PE counts on spd40.mtx and the Poisson matrices at 3 PEs, with 4 threads per block
 * (its dozen launches per iteration are what costs on the emulator):
 *   - 1-D, 2-D and 3-D Poisson and tests/cg_data/spd40.mtx at 1, 2, 3, 4 and 8 PEs: the
 *     serial iteration count, residual history, final residual and x (checksum), bits;
 *   - other grids (1 block of 1 thread, 3 blocks of 7, 4 of 32): the same bits;
 *   - under the deterministic scheduler (SHMEMU_SCHED=random, two seeds; pct): the same bits;
 *   - in checking mode (SHMEMU_CHECK_NBI=1: puts delivered late, in random order, a source
 *     reused before its quiet reported), 1 and 3 blocks per PE: no report and the same bits
 *     (in a child, since a report aborts): block 0's quiet after a grid sync completes every
 *     block's puts;
 *   - a breakdown (indefinite matrix) and b = 0 as the serial solver reports them;
 *   - bad PE, block and thread counts refused with a message.
 * Sizes are small (at most 50 iterations): cg-mono's tests take about a second natively,
 * the whole suite 6-10 s on the loaded 2-core development machine. Under valgrind (make
 * check-races runs the suites under helgrind and DRD) each test runs a subset of its cases
 * (cgt_valgrind_skip: one PE count per matrix, one grid, one schedule, one matrix in
 * checking mode; 4 threads per block instead of 64; cg-host only 4 iterations and no
 * schedules or checking mode): cg-mono's took about 21 s under helgrind and 36 s under DRD.
 */
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "cg/par.h"
#include "shmemu/pgas.h"
#include "support/sched_env.h"
#include "test_cg_util.h"

#define MAX_IT 200

/* The solver under test: each test function runs once per variant (its cmocka state). */
typedef struct variant {
    cg_solver solver;
    cg_reduce reduce;
} variant;

static variant v_mono = {CG_SOLVER_MONO, CG_REDUCE_SYNC};
static variant v_host_sync = {CG_SOLVER_HOST, CG_REDUCE_SYNC};
static variant v_host_stream = {CG_SOLVER_HOST, CG_REDUCE_STREAM};
static variant cur; /* set by each test from its state */
static int64_t max_it; /* the iteration limit of both solvers: MAX_IT, or fewer (valgrind) */

/* Under valgrind and TSan, cg-host (its launches are slow there) runs the first few
 * iterations only: every residual of them and x still compared bit for bit, just not to
 * convergence. */
static void use_variant(void **state)
{
    cur = *(const variant *)*state;
    max_it = (RUNNING_ON_VALGRIND || CGT_TSAN) && cur.solver == CG_SOLVER_HOST ? 4 : MAX_IT;
}

/* Under valgrind, only every `keep`-th case (case i runs when i % keep == 0). */
static bool cgt_valgrind_skip(size_t i, size_t keep)
{
    return RUNNING_ON_VALGRIND != 0 && i % keep != 0;
}

typedef struct run {
    cg_result res;
    double hist[MAX_IT + 1];
    uint64_t checksum;
} run;

typedef struct problem {
    cg_csr a;
    double *b;
    const char *name;
} problem;

static void problem_make(problem *p, int which)
{
    cg_error err;
    int rc = 0;
    switch (which) {
    case 0:
        p->name = "poisson1d 50";
        rc = cg_poisson1d(&p->a, 50, &err);
        break;
    case 1:
        p->name = "poisson2d 10";
        rc = cg_poisson2d(&p->a, 10, &err);
        break;
    case 2:
        p->name = "poisson3d 6";
        rc = cg_poisson3d(&p->a, 6, &err);
        break;
    default: {
        p->name = "spd40.mtx";
        char path[1024];
        snprintf(path, sizeof path, "%s/spd40.mtx", CG_TEST_DATA_DIR);
        cg_mtx_info info;
        rc = cg_mtx_read(path, &p->a, &info, &err);
        break;
    }
    }
    if (rc != 0)
        fail_msg("%s: %s", p->name, err.msg);
    double *xs = malloc((size_t)p->a.n * sizeof *xs);
    p->b = malloc((size_t)p->a.n * sizeof *p->b);
    assert_non_null(xs);
    assert_non_null(p->b);
    cg_manufactured(xs, p->a.n, 7);
    cg_spmv(&p->a, xs, p->b);
    free(xs);
}

static void problem_free(problem *p)
{
    free(p->b);
    cg_csr_free(&p->a);
}

static void solve_serial(const problem *p, run *out)
{
    double *x = malloc((size_t)p->a.n * sizeof *x);
    assert_non_null(x);
    memset(out, 0, sizeof *out);
    cg_solve_serial(&p->a, p->b, x, 1e-8, max_it, out->hist, &out->res);
    out->checksum = cg_checksum(x, p->a.n);
    free(x);
}

static void solve_par(const problem *p, int pes, int blocks, int threads, run *out)
{
    double *x = malloc((size_t)p->a.n * sizeof *x);
    assert_non_null(x);
    memset(out, 0, sizeof *out);
    cg_par_opts o = {cur.solver, pes, blocks, threads, cur.reduce,
                     CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
    cg_error err;
    if (cg_solve_par(&p->a, p->b, x, 1e-8, max_it, &o, out->hist, &out->res, &err) != 0)
        fail_msg("%s, %d PEs, solver %d reduce %d: %s", p->name, pes, (int)cur.solver,
                 (int)cur.reduce, err.msg);
    out->checksum = cg_checksum(x, p->a.n);
    free(x);
}

/* Everything the two runs report, bit for bit. */
static void assert_same_run(const problem *p, int pes, const run *want, const run *got)
{
    if (got->res.iterations != want->res.iterations || got->checksum != want->checksum)
        fail_msg("%s, %d PEs, solver %d reduce %d: %lld iterations, checksum %016llx; "
                 "serial: %lld, %016llx", p->name, pes, (int)cur.solver, (int)cur.reduce,
                 (long long)got->res.iterations,
                 (unsigned long long)got->checksum, (long long)want->res.iterations,
                 (unsigned long long)want->checksum);
    assert_int_equal(got->res.converged, want->res.converged);
    assert_int_equal(got->res.breakdown, want->res.breakdown);
    assert_same_double(got->res.residual, want->res.residual);
    assert_same_double(got->res.rho0, want->res.rho0);
    for (int64_t k = 0; k <= want->res.iterations; k++)
        assert_same_double(got->hist[k], want->hist[k]);
}

static void test_pes_match_serial(void **state)
{
    use_variant(state);
    static const int pes[] = {1, 2, 3, 4, 8};
    for (int m = 0; m < 4; m++) {
        problem p;
        problem_make(&p, m);
        run want, got;
        solve_serial(&p, &want);
        assert_true(want.res.converged || max_it < MAX_IT);
        assert_true(want.res.iterations > 10 || max_it < MAX_IT);
        for (size_t i = 0; i < sizeof pes / sizeof *pes; i++) {
            if (cgt_valgrind_skip(i + (size_t)m, 5))
                continue;
            /* cg-host launches a dozen kernels per iteration (about 80 us each on the
             * emulator): to keep it quick, spd40.mtx (irregular, 21 iterations) at every PE
             * count, the Poisson matrices at 3 PEs, and small blocks */
            if (cur.solver == CG_SOLVER_HOST && m != 3 && pes[i] != 3)
                continue;
            const bool small = RUNNING_ON_VALGRIND || cur.solver == CG_SOLVER_HOST;
            solve_par(&p, pes[i], 0, small ? 4 : 0, &got);
            assert_same_run(&p, pes[i], &want, &got);
        }
        problem_free(&p);
    }
}

static void test_grids_match_serial(void **state)
{
    use_variant(state);
    static const int shape[][2] = {{1, 1}, {3, 7}, {4, 32}};
    problem p;
    problem_make(&p, 3);
    run want, got;
    solve_serial(&p, &want);
    for (size_t i = 0; i < sizeof shape / sizeof *shape; i++) {
        if (cgt_valgrind_skip(i + 2, 3))
            continue;
        solve_par(&p, 3, shape[i][0], shape[i][1], &got);
        assert_same_run(&p, 3, &want, &got);
    }
    problem_free(&p);
}

static void test_scheduler_gives_same_bits(void **state)
{
    use_variant(state);
    if (RUNNING_ON_VALGRIND && cur.solver == CG_SOLVER_HOST)
        skip(); /* cg-host under valgrind: the PE counts and grids only (time) */
    static const struct {
        const char *strategy;
        int seed, matrix, pes;
    } cases[] = {{"random", 1, 1, 3}, {"random", 2, 3, 4}, {"pct", 3, 0, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cgt_valgrind_skip(i, 3))
            continue;
        problem p;
        problem_make(&p, cases[i].matrix);
        run want, got;
        solve_serial(&p, &want);
        set_sched(cases[i].strategy, cases[i].seed);
        solve_par(&p, cases[i].pes, 2, 4, &got);
        clear_sched();
        shmemu_sched_stats st;
        assert_int_equal(shmemu_sched_last_stats(&st), 0);
        assert_true(st.deterministic);
        assert_true(st.decisions > 100);
        assert_same_run(&p, cases[i].pes, &want, &got);
        problem_free(&p);
    }
}

/* Checking mode in a child process (a report aborts it): the child writes its iteration
 * count and checksum to a pipe. At 1 block per PE and at 3: block 0's one nvshmem_quiet,
 * after a grid sync, completes every block's puts (pgas_grid_sync_arrive), so the correct
 * solver gets no report at any block count. */
static void test_checking_mode(void **state)
{
    use_variant(state);
    if (RUNNING_ON_VALGRIND && cur.solver == CG_SOLVER_HOST)
        skip(); /* cg-host under valgrind: the PE counts and grids only (time) */
    for (int c = 0; c < 4; c++) {
        const int m = c % 2 == 0 ? 1 : 3, blocks = c < 2 ? 1 : 3;
        if (cgt_valgrind_skip((size_t)c, 4))
            continue;
        problem p;
        problem_make(&p, m);
        run want;
        solve_serial(&p, &want);
        int fd[2];
        pid_t pid = cgt_fork_checking(fd);
        if (pid == 0) {
            run got;
            solve_par(&p, 4, blocks, 8, &got);
            long long out[2] = {(long long)got.res.iterations, (long long)got.checksum};
            _exit(write(fd[1], out, sizeof out) == (ssize_t)sizeof out ? 0 : 3);
        }
        close(fd[1]);
        long long got[2] = {-1, 0};
        ssize_t n = read(fd[0], got, sizeof got);
        close(fd[0]);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n != (ssize_t)sizeof got)
            fail_msg("%s, 4 PEs, %d blocks, SHMEMU_CHECK_NBI=1: the child %s %d (report "
                     "above)", p.name, blocks,
                     WIFEXITED(status) ? "exited with" : "was killed by signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        assert_int_equal(got[0], want.res.iterations);
        assert_true((uint64_t)got[1] == want.checksum);
        problem_free(&p);
    }
}

static void test_breakdown_and_zero(void **state)
{
    use_variant(state);
    problem p = {.name = "indefinite"};
    /* [[1, 2], [2, 1]]: positive diagonal, eigenvalues 3 and -1 */
    cgt_parse_ok("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 2\n"
                 "2 2 1\n", &p.a);
    double b[2] = {1.0, -1.0};
    p.b = b;
    run got;
    solve_par(&p, 2, 0, 0, &got);
    assert_true(got.res.breakdown);
    assert_false(got.res.converged);
    assert_int_equal(got.res.iterations, 0);
    double z[2] = {0.0, 0.0}, x[2] = {1.0, 1.0};
    cg_par_opts o = {cur.solver, 2, 1, 1, cur.reduce,
                     CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
    cg_error err;
    assert_int_equal(cg_solve_par(&p.a, z, x, 1e-8, 10, &o, NULL, &got.res, &err), 0);
    assert_true(got.res.converged);
    assert_int_equal(got.res.iterations, 0);
    assert_true(cgt_bits(x[0]) == 0 && cgt_bits(x[1]) == 0);
    cg_csr_free(&p.a);
}

static void test_refusals(void **state)
{
    (void)state;
    problem p;
    problem_make(&p, 3);
    double *x = malloc((size_t)p.a.n * sizeof *x);
    assert_non_null(x);
    static const struct {
        int solver, pes, blocks, threads;
        const char *says;
    } bad[] = {{CG_SOLVER_MONO, 0, 0, 0, "--pes 0"},
               {CG_SOLVER_MONO, 41, 0, 0, "--pes 41: give 1 to 40"},
               {CG_SOLVER_MONO, 2, CG_PAR_MAX_BLOCKS + 1, 0, "--blocks"},
               {CG_SOLVER_MONO, 2, 1, CG_PAR_MAX_THREADS + 1, "--threads"},
               {CG_SOLVER_SERIAL, 2, 0, 0, "cg-mono"},
               {CG_SOLVER_HOST, 2, 0, 0, "CG_REDUCE_STREAM"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cg_par_opts o = {(cg_solver)bad[i].solver, bad[i].pes, bad[i].blocks, bad[i].threads,
                         bad[i].solver == CG_SOLVER_HOST ? (cg_reduce)7 : CG_REDUCE_SYNC,
                         CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, NULL};
        cg_result res;
        cg_error err;
        err.msg[0] = '\0';
        assert_int_equal(cg_solve_par(&p.a, p.b, x, 1e-8, 10, &o, NULL, &res, &err), -1);
        if (strstr(err.msg, bad[i].says) == NULL)
            fail_msg("case %zu: message '%s' does not say '%s'", i, err.msg, bad[i].says);
    }
    free(x);
    problem_free(&p);
}

int main(void)
{
    clear_sched();
    const struct CMUnitTest tests[] = {
#define CGT_VARIANTS(f)                                                                       \
    cmocka_unit_test_prestate(f, &v_mono), cmocka_unit_test_prestate(f, &v_host_sync),       \
        cmocka_unit_test_prestate(f, &v_host_stream)
        CGT_VARIANTS(test_pes_match_serial),
        CGT_VARIANTS(test_grids_match_serial),
        CGT_VARIANTS(test_scheduler_gives_same_bits),
        CGT_VARIANTS(test_checking_mode),
        CGT_VARIANTS(test_breakdown_and_zero),
        cmocka_unit_test(test_refusals),
#undef CGT_VARIANTS
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
