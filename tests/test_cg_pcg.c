/*
 * test_cg_pcg.c: pcg-mono (pipelined CG, Ghysels and Vanroose 2014, in one cooperative
 * kernel per PE: cg/par.h CG_SOLVER_PCG_MONO, cg/src/kernels/pcg.c) against its one-core
 * form cg_solve_pcg_serial (cg/solve.h), bit for bit (docs/design.md D3; docs/cg.md, "The
 * pipelined solver pcg-mono"). Pipelined CG is a different recurrence from CG, so its
 * reference is its own serial form, not cg_solve_serial:
 *   - the serial form converges on 1-D (N = 50), 2-D (10), 3-D (6) Poisson and spd40.mtx in
 *     the iteration counts measured (equal to CG's on these) and stops by the same rule;
 *   - pcg-mono at 1, 2, 3, 4 and 8 PEs on those four: the serial iteration count, residual
 *     history, gamma_0, final residual and x (checksum), bits;
 *   - other grids (1 block of 1 thread, 3 of 7, 4 of 32): the same bits;
 *   - METIS partitions (where the build has METIS) and the direct and auto transports;
 *   - under the deterministic scheduler (SHMEMU_SCHED=random, seeds 1 and 2; pct; rr): the
 *     same;
 *   - in checking mode (SHMEMU_CHECK_NBI=1: puts delivered late, in random order, a source
 *     reused before its quiet reported), 1 and 3 blocks per PE, in a child: no report, the
 *     same bits;
 *   - a breakdown (indefinite matrix: p.Ap <= 0) at iteration 0 and later, as the serial form
 *     reports it, and b = 0 (converged at 0, x = 0).
 * About a second of CPU natively. Under valgrind (make check-races: helgrind, DRD) and TSan
 * each test of the parallel solver runs a subset of its cases (cgt_valgrind_skip, as
 * test_cg_par.c: one PE count per matrix, 1, 3, 4 and 8 among them) with 4 threads per
 * block; the cost there is the launches (about 3 s each under helgrind), not the
 * iterations. The grid, scheduler and checking-mode loops are test_cg_util.h's
 * (cgt_check_*), shared with test_cg_par.c.
 */
#include <math.h>
#include <unistd.h>

#include "cg/par.h"
#include "test_cg_util.h"

/* Measured: pcg's iteration count on cgt_problem_make's matrix `which` (CG's is the same). */
static const int64_t pcg_iters[] = {50, 32, 25, 20};

static void solve_serial(const cgt_problem *p, cgt_run *out)
{
    cgt_solve_one_core(cg_solve_pcg_serial, p, CGT_MAX_IT, out);
}

static void solve_pcg_with(const cgt_problem *p, int pes, int blocks, int threads,
                           cg_partition partition, cg_transport transport, cgt_run *out)
{
    double *x = malloc((size_t)p->a.n * sizeof *x);
    assert_non_null(x);
    memset(out, 0, sizeof *out);
    cg_par_opts o;
    memset(&o, 0, sizeof o);
    o.solver = CG_SOLVER_PCG_MONO;
    o.pes = pes;
    o.blocks = blocks;
    o.threads = threads;
    o.partition = partition;
    o.transport = transport;
    cg_error err;
    if (cg_solve_par(&p->a, p->b, x, 1e-8, CGT_MAX_IT, &o, out->hist, &out->res, &err) != 0)
        fail_msg("%s, %d PEs: %s", p->name, pes, err.msg);
    out->checksum = cg_checksum(x, p->a.n);
    free(x);
}

static void solve_pcg(const cgt_problem *p, int pes, int blocks, int threads, cgt_run *out)
{
    solve_pcg_with(p, pes, blocks, threads, CG_PARTITION_CONTIGUOUS, CG_TRANSPORT_SIGNAL, out);
}

/* Everything the two runs report, bit for bit (the serial run is pcg-serial's). */
static void assert_same_run(const cgt_problem *p, int pes, const cgt_run *want,
                            const cgt_run *got)
{
    char what[128];
    snprintf(what, sizeof what, "%s, %d PEs, pcg-mono", p->name, pes);
    cgt_assert_same_run(what, want, got);
}

/* The serial form converges in the measured counts (CG's on these matrices: test_cg_solve),
 * its history ends below tol and is above it before, and x is near x*. */
static void test_serial_converges(void **state)
{
    (void)state;
    for (int m = 0; m < 4; m++) {
        cgt_problem p;
        cgt_problem_make(&p, m);
        cgt_run pcg;
        solve_serial(&p, &pcg);
        assert_true(pcg.res.converged);
        assert_false(pcg.res.breakdown);
        if (pcg.res.iterations != pcg_iters[m])
            fail_msg("%s: pcg-serial %lld iterations, measured %lld", p.name,
                     (long long)pcg.res.iterations, (long long)pcg_iters[m]);
        double *x = malloc((size_t)p.a.n * sizeof *x);
        assert_non_null(x);
        cg_result res;
        cg_solve_serial(&p.a, p.b, x, 1e-8, CGT_MAX_IT, NULL, &res);
        assert_true(llabs((long long)(res.iterations - pcg.res.iterations)) <= 2);
        assert_same_double(pcg.res.rho0, res.rho0); /* gamma_0 = r0.r0 = rho_0 */
        assert_same_double(pcg.hist[0], 1.0);
        assert_true(pcg.hist[pcg.res.iterations] <= 1e-8);
        for (int64_t k = 0; k < pcg.res.iterations; k++)
            assert_true(pcg.hist[k] > 1e-8);
        assert_same_double(pcg.res.residual, pcg.hist[pcg.res.iterations]);
        free(x);
        cgt_problem_free(&p);
    }
}

static void test_pes_match_serial(void **state)
{
    (void)state;
    static const int pes[] = {1, 2, 3, 4, 8};
    for (int m = 0; m < 4; m++) {
        cgt_problem p;
        cgt_problem_make(&p, m);
        cgt_run want, got;
        solve_serial(&p, &want);
        assert_true(want.res.converged);
        for (size_t i = 0; i < sizeof pes / sizeof *pes; i++) {
            if (cgt_valgrind_skip(i + (size_t)m, 5))
                continue;
            solve_pcg(&p, pes[i], 0, cgt_small_threads(), &got);
            assert_same_run(&p, pes[i], &want, &got);
        }
        cgt_problem_free(&p);
    }
}

static void test_grids_match_serial(void **state)
{
    (void)state;
    cgt_check_grids(solve_serial, solve_pcg, "pcg-mono", cgt_slow_checker());
}

/* The halo code is cg-mono's, so are its partitions and transports (cg/par.h): METIS (where
 * the build has it; contiguous otherwise) and the direct and auto transports give the same
 * bits, since every reduction is exact and every row is summed in its stored order. */
static void test_partitions_and_transports(void **state)
{
    (void)state;
    const cg_partition metis =
        cg_metis_available() ? CG_PARTITION_METIS : CG_PARTITION_CONTIGUOUS;
    static const struct {
        int matrix, pes, metis;
        cg_transport transport;
    } cases[] = {{3, 4, 1, CG_TRANSPORT_SIGNAL},
                 {1, 3, 0, CG_TRANSPORT_DIRECT},
                 {2, 8, 1, CG_TRANSPORT_AUTO}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cgt_valgrind_skip(i, 3))
            continue;
        cgt_problem p;
        cgt_problem_make(&p, cases[i].matrix);
        cgt_run want, got;
        solve_serial(&p, &want);
        solve_pcg_with(&p, cases[i].pes, 0, cgt_small_threads(),
                       cases[i].metis ? metis : CG_PARTITION_CONTIGUOUS, cases[i].transport,
                       &got);
        assert_same_run(&p, cases[i].pes, &want, &got);
        cgt_problem_free(&p);
    }
}

static void test_scheduler_gives_same_bits(void **state)
{
    (void)state;
    cgt_check_schedules(solve_serial, solve_pcg, "pcg-mono", cgt_slow_checker());
}

/* Checking mode in a child (a report aborts it), at 1 block per PE and at 3. */
static void test_checking_mode(void **state)
{
    (void)state;
    cgt_check_checking_mode(solve_serial, solve_pcg, cgt_slow_checker());
}

/* Indefinite matrices (positive diagonals, so the reader takes them): the breakdown at the
 * iteration the serial form finds it, at 0 and later; and b = 0 converges at 0 with x = 0. */
static void test_breakdown_and_zero(void **state)
{
    (void)state;
    static const struct {
        const char *mtx;
        double b[3];
        int64_t at;
    } cases[] = {
        /* [[1, 2], [2, 1]] (eigenvalues 3, -1), r0 = (1, -1): delta = r0.Ar0 = -2 */
        {"%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 2\n2 2 1\n",
         {1.0, -1.0, 0.0}, 0},
        /* [[1, 2, 0], [2, 1, 0], [0, 0, 1]], r0 = (1, 0, 1): delta = 2 > 0, then p.Ap < 0 */
        {"%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n2 2 1\n"
         "3 3 1\n",
         {1.0, 0.0, 1.0}, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cgt_problem p = {.name = "indefinite"};
        cgt_parse_ok(cases[c].mtx, &p.a);
        double b[3];
        memcpy(b, cases[c].b, sizeof b);
        p.b = b;
        cgt_run want, got;
        solve_serial(&p, &want);
        assert_true(want.res.breakdown);
        assert_false(want.res.converged);
        assert_int_equal(want.res.iterations, cases[c].at);
        solve_pcg(&p, 2, 0, 0, &got);
        assert_same_run(&p, 2, &want, &got);
        if (c == 0) { /* b = 0 */
            double z[2] = {0.0, 0.0}, x[2] = {1.0, 1.0};
            cg_par_opts o;
            memset(&o, 0, sizeof o);
            o.solver = CG_SOLVER_PCG_MONO;
            o.pes = 2;
            o.blocks = 1;
            o.threads = 1;
            cg_error err;
            assert_int_equal(cg_solve_par(&p.a, z, x, 1e-8, 10, &o, NULL, &got.res, &err), 0);
            assert_true(got.res.converged);
            assert_int_equal(got.res.iterations, 0);
            assert_true(cgt_bits(x[0]) == 0 && cgt_bits(x[1]) == 0);
            cg_solve_pcg_serial(&p.a, z, x, 1e-8, 10, NULL, &want.res);
            assert_true(want.res.converged);
            assert_int_equal(want.res.iterations, 0);
        }
        cg_csr_free(&p.a);
    }
}

int main(void)
{
    clear_sched();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serial_converges),
        cmocka_unit_test(test_pes_match_serial),
        cmocka_unit_test(test_grids_match_serial),
        cmocka_unit_test(test_partitions_and_transports),
        cmocka_unit_test(test_scheduler_gives_same_bits),
        cmocka_unit_test(test_checking_mode),
        cmocka_unit_test(test_breakdown_and_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
