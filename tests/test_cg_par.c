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
 *   - under the deterministic scheduler (SHMEMU_SCHED=random, two seeds; pct; rr): the same
 *     bits;
 *   - in checking mode (SHMEMU_CHECK_NBI=1: puts delivered late, in random order, a source
 *     reused before its quiet reported), 1 and 3 blocks per PE: no report and the same bits
 *     (in a child, since a report aborts): block 0's quiet after a grid sync completes every
 *     block's puts;
 *   - a breakdown (indefinite matrix) and b = 0 as the serial solver reports them;
 *   - bad PE, block and thread counts refused with a message.
 * Sizes are small (at most 50 iterations): cg-mono's tests take about a second natively,
 * the whole suite 6-10 s on the loaded 2-core development machine. Under valgrind (make
 * check-races runs the suites under helgrind and DRD) each test runs a subset of its cases
 * (valgrind_skip: one PE count per matrix, one grid, one schedule, one matrix in checking
 * mode; 4 threads per block instead of 64; cg-host only 4 iterations and no schedules or
 * checking mode): cg-mono's took about 21 s under helgrind and 36 s under DRD. Under TSan
 * every case runs (cg-host 4 iterations). The grid, scheduler and checking-mode loops are
 * test_cg_util.h's (cgt_check_*), shared with test_cg_pcg.c.
 */
#include <math.h>
#include <unistd.h>

#include "cg/par.h"
#include "test_cg_util.h"

/* The solver under test: each test function runs once per variant (its cmocka state). */
typedef struct variant {
    cg_solver solver;
    cg_reduce reduce;
} variant;

static variant v_mono = {CG_SOLVER_MONO, CG_REDUCE_SYNC};
static variant v_host_sync = {CG_SOLVER_HOST, CG_REDUCE_SYNC};
static variant v_host_stream = {CG_SOLVER_HOST, CG_REDUCE_STREAM};
static variant cur; /* set by each test from its state */
static int64_t max_it; /* the iteration limit of both solvers: CGT_MAX_IT, or fewer */

/* Under valgrind and TSan, cg-host (its launches are slow there) runs the first few
 * iterations only: every residual of them and x still compared bit for bit, just not to
 * convergence. */
static void use_variant(void **state)
{
    cur = *(const variant *)*state;
    max_it = cgt_slow_checker() && cur.solver == CG_SOLVER_HOST ? 4 : CGT_MAX_IT;
}

/* This suite cuts its cases under valgrind only (TSan runs them all). */
static bool valgrind_subset(void)
{
    return RUNNING_ON_VALGRIND != 0;
}

/* Under valgrind, only every `keep`-th case (case i runs when i % keep == 0). */
static bool valgrind_skip(size_t i, size_t keep)
{
    return valgrind_subset() && i % keep != 0;
}

/* The variant under test, for messages. */
static const char *variant_name(void)
{
    return cur.solver == CG_SOLVER_MONO      ? "cg-mono"
           : cur.reduce == CG_REDUCE_STREAM ? "cg-host --reduce stream"
                                            : "cg-host --reduce sync";
}

static void solve_serial(const cgt_problem *p, cgt_run *out)
{
    cgt_solve_one_core(cg_solve_serial, p, max_it, out);
}

static void solve_par(const cgt_problem *p, int pes, int blocks, int threads, cgt_run *out)
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
static void assert_same_run(const cgt_problem *p, int pes, const cgt_run *want,
                            const cgt_run *got)
{
    char what[128];
    snprintf(what, sizeof what, "%s, %d PEs, %s", p->name, pes, variant_name());
    cgt_assert_same_run(what, want, got);
}

static void test_pes_match_serial(void **state)
{
    use_variant(state);
    static const int pes[] = {1, 2, 3, 4, 8};
    for (int m = 0; m < 4; m++) {
        cgt_problem p;
        cgt_problem_make(&p, m);
        cgt_run want, got;
        solve_serial(&p, &want);
        assert_true(want.res.converged || max_it < CGT_MAX_IT);
        assert_true(want.res.iterations > 10 || max_it < CGT_MAX_IT);
        for (size_t i = 0; i < sizeof pes / sizeof *pes; i++) {
            if (valgrind_skip(i + (size_t)m, 5))
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
        cgt_problem_free(&p);
    }
}

static void test_grids_match_serial(void **state)
{
    use_variant(state);
    cgt_check_grids(solve_serial, solve_par, variant_name(), valgrind_subset());
}

static void test_scheduler_gives_same_bits(void **state)
{
    use_variant(state);
    if (RUNNING_ON_VALGRIND && cur.solver == CG_SOLVER_HOST)
        skip(); /* cg-host under valgrind: the PE counts and grids only (time) */
    cgt_check_schedules(solve_serial, solve_par, variant_name(), valgrind_subset());
}

/* Checking mode in a child process (a report aborts it), at 1 block per PE and at 3: block
 * 0's one nvshmem_quiet, after a grid sync, completes every block's puts
 * (pgas_grid_sync_arrive), so the correct solver gets no report at any block count. */
static void test_checking_mode(void **state)
{
    use_variant(state);
    if (RUNNING_ON_VALGRIND && cur.solver == CG_SOLVER_HOST)
        skip(); /* cg-host under valgrind: the PE counts and grids only (time) */
    cgt_check_checking_mode(solve_serial, solve_par, valgrind_subset());
}

static void test_breakdown_and_zero(void **state)
{
    use_variant(state);
    cgt_problem p = {.name = "indefinite"};
    /* [[1, 2], [2, 1]]: positive diagonal, eigenvalues 3 and -1 */
    cgt_parse_ok("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 2\n"
                 "2 2 1\n", &p.a);
    double b[2] = {1.0, -1.0};
    p.b = b;
    cgt_run got;
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
    cgt_problem p;
    cgt_problem_make(&p, 3);
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
    cgt_problem_free(&p);
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
