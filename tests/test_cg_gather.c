/*
 * test_cg_gather.c: the parallel solvers' results when every PE is a process
 * (SHMEMU_BACKEND=process; on a GPU the CUDA build's launcher forks one process per PE too).
 * Only PE 0 stays in the caller's process, so x (every PE's rows), the result and the
 * residual history reach the caller only through PE 0: par.c's cg_pe_bufs_gather takes the
 * other PEs' rows through the symmetric heap (docs/cg.md, "On a GPU"). Asserts, with every
 * PE a process, the bits of the serial forms: cg-mono and cg-host (sync, stream) against
 * cg_solve_serial, pcg-mono against cg_solve_pcg_serial, the halo-only loop against
 * cg_halo_loop_serial, at 2 and 4 PEs on 2-D Poisson and spd40.mtx.
 *
 * Skipped under valgrind and TSan: they follow one process, and the threads backend's
 * suites (test_cg_par, test_cg_pcg, test_cg_halo) check the same bits there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cg/par.h"
#include "cg/solve.h"
#include "test_cg_util.h"

enum { MAX_IT = 2000 };

static bool skipped(void)
{
    return cgt_slow_checker();
}

/* solver on `pes` processes against its serial form: x, the result and the history. */
static void check_solver(const cgt_problem *p, cg_solver solver, cg_reduce reduce, int pes)
{
    const size_t n = (size_t)p->a.n;
    double *xs = calloc(n, sizeof *xs), *xp = calloc(n, sizeof *xp);
    double *hs = calloc(MAX_IT + 1, sizeof *hs), *hp = calloc(MAX_IT + 1, sizeof *hp);
    assert_true(xs && xp && hs && hp);
    cg_result rs, rp;
    if (solver == CG_SOLVER_PCG_MONO)
        cg_solve_pcg_serial(&p->a, p->b, xs, 1e-8, MAX_IT, hs, &rs);
    else
        cg_solve_serial(&p->a, p->b, xs, 1e-8, MAX_IT, hs, &rs);
    cg_par_opts opt;
    memset(&opt, 0, sizeof opt);
    opt.solver = solver;
    opt.pes = pes;
    opt.reduce = reduce;
    cg_error err;
    assert_int_equal(setenv("SHMEMU_BACKEND", "process", 1), 0);
    int rc = cg_solve_par(&p->a, p->b, xp, 1e-8, MAX_IT, &opt, hp, &rp, &err);
    unsetenv("SHMEMU_BACKEND");
    if (rc != 0)
        fail_msg("%s, solver %d, reduce %d, %d PEs: %s", p->name, (int)solver, (int)reduce, pes,
                 err.msg);
    assert_true(rs.converged && rp.converged);
    assert_int_equal(rp.iterations, rs.iterations);
    assert_memory_equal(&rp.residual, &rs.residual, sizeof rs.residual);
    assert_memory_equal(hp, hs, ((size_t)rs.iterations + 1) * sizeof *hs);
    if (memcmp(xp, xs, n * sizeof *xs) != 0)
        fail_msg("%s, solver %d, reduce %d, %d PEs: x differs (checksum %016llx, serial "
                 "%016llx)", p->name, (int)solver, (int)reduce, pes,
                 (unsigned long long)cg_checksum(xp, p->a.n),
                 (unsigned long long)cg_checksum(xs, p->a.n));
    free(hp);
    free(hs);
    free(xp);
    free(xs);
}

static void test_solvers_gather_on_processes(void **state)
{
    (void)state;
    if (skipped())
        skip();
    static const struct {
        cg_solver solver;
        cg_reduce reduce;
    } runs[] = {{CG_SOLVER_MONO, CG_REDUCE_SYNC},
                {CG_SOLVER_HOST, CG_REDUCE_SYNC},
                {CG_SOLVER_HOST, CG_REDUCE_STREAM},
                {CG_SOLVER_PCG_MONO, CG_REDUCE_SYNC}};
    static const int problems[] = {1, 3}; /* poisson2d 10, spd40.mtx */
    for (size_t k = 0; k < sizeof problems / sizeof *problems; k++) {
        cgt_problem p;
        cgt_problem_make(&p, problems[k]);
        for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
            for (int pes = 2; pes <= 4; pes += 2)
                check_solver(&p, runs[r].solver, runs[r].reduce, pes);
        cgt_problem_free(&p);
    }
}

static void test_halo_loop_gathers_on_processes(void **state)
{
    (void)state;
    if (skipped())
        skip();
    cgt_problem p;
    cgt_problem_make(&p, 1);
    const size_t n = (size_t)p.a.n;
    const double omega = cg_halo_omega(&p.a);
    double *us = malloc(n * sizeof *us), *up = calloc(n, sizeof *up);
    assert_true(us && up);
    memcpy(us, p.b, n * sizeof *us);
    cg_halo_loop_serial(&p.a, us, 30, omega);
    cg_par_opts opt;
    memset(&opt, 0, sizeof opt);
    opt.pes = 3;
    cg_error err;
    assert_int_equal(setenv("SHMEMU_BACKEND", "process", 1), 0);
    int rc = cg_halo_loop_par(&p.a, p.b, up, 30, omega, &opt, &err);
    unsetenv("SHMEMU_BACKEND");
    if (rc != 0)
        fail_msg("halo-loop on 3 processes: %s", err.msg);
    assert_memory_equal(up, us, n * sizeof *us);
    free(up);
    free(us);
    cgt_problem_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solvers_gather_on_processes),
        cmocka_unit_test(test_halo_loop_gathers_on_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
