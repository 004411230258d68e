/*
 * test_cg_util.h: helpers shared by the cg suites (test_cg_*.c): a seeded generator of
 * their own (so no suite depends on rand()), shuffles, reading the data files, the four test
 * problems of the parallel suites, and the checks that test_cg_par.c and test_cg_pcg.c both
 * make of a parallel solver against its serial form (grids, scheduler strategies, checking
 * mode: cgt_check_*). Header-only, so that each suite stays one file to build.
 */
#ifndef TEST_CG_UTIL_H
#define TEST_CG_UTIL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include <cmocka.h>

#include "cg/matrix.h"
#include "cg/plan.h"
#include "cg/solve.h"
#include "cg/xsum.h"
#include "shmemu/pgas.h"
#include "support/sched_env.h"

/* CGT_TSAN: 1 in a ThreadSanitizer build (make check-tsan), where, as under valgrind, the
 * suites cut their slowest cases and skip runs of planted races (TSan would report them and
 * fail the run). */
#if defined(__SANITIZE_THREAD__)
#define CGT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CGT_TSAN 1
#endif
#endif
#ifndef CGT_TSAN
#define CGT_TSAN 0
#endif

/* True under valgrind (make check-races: helgrind, DRD) and TSan, where every fiber and
 * launch costs many times its native time: the suites cut their cases there. */
static inline bool cgt_slow_checker(void)
{
    return RUNNING_ON_VALGRIND != 0 || CGT_TSAN;
}

/* Under valgrind or TSan, only every `keep`-th case (case i runs when i % keep == 0). */
static inline bool cgt_valgrind_skip(size_t i, size_t keep)
{
    return cgt_slow_checker() && i % keep != 0;
}

/* Threads per block: the default (0: 64), or 4 where every fiber costs (valgrind, TSan). */
static inline int cgt_small_threads(void)
{
    return cgt_slow_checker() ? 4 : 0;
}

/* Forks a child for a run in checking mode (a report aborts the process): makes the pipe
 * fd (the child writes its results to fd[1]), and in the child closes fd[0] and sets
 * SHMEMU_CHECK_NBI=1, SHMEMU_CHECK_SEED=5. Returns fork's value. */
static inline pid_t cgt_fork_checking(int fd[2])
{
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        setenv("SHMEMU_CHECK_NBI", "1", 1);
        setenv("SHMEMU_CHECK_SEED", "5", 1);
    }
    return pid;
}

/* SplitMix64 stream: *state advances by the golden-ratio step. */
static inline uint64_t cgt_next(uint64_t *state)
{
    return cg_hash(0x5eed, (*state)++);
}

/* Uniform in [0, n). */
static inline uint64_t cgt_below(uint64_t *state, uint64_t n)
{
    return cgt_next(state) % n;
}

/* Fisher-Yates shuffle of n elements of size bytes each. */
static inline void cgt_shuffle(void *base, size_t n, size_t size, uint64_t *state)
{
    char *b = base, tmp[64];
    assert_true(size <= sizeof tmp);
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)cgt_below(state, i);
        memcpy(tmp, b + (i - 1) * size, size);
        memcpy(b + (i - 1) * size, b + j * size, size);
        memcpy(b + j * size, tmp, size);
    }
}

static inline uint64_t cgt_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Asserts equal bits, printing both values when not. */
#define assert_same_double(a, b)                                                              \
    do {                                                                                      \
        double a_ = (a), b_ = (b);                                                            \
        if (cgt_bits(a_) != cgt_bits(b_))                                                     \
            fail_msg("%s = %.17g (%016llx) but %s = %.17g (%016llx)", #a, a_,                 \
                     (unsigned long long)cgt_bits(a_), #b, b_, (unsigned long long)cgt_bits(b_)); \
    } while (0)

/* The whole of tests/cg_data/NAME, NUL-terminated; *len without the NUL. */
static inline char *cgt_read_data(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CG_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Parses a Matrix Market text that must be accepted. */
static inline void cgt_parse_ok(const char *text, cg_csr *a)
{
    cg_mtx_info info;
    cg_error err;
    err.msg[0] = '\0';
    if (cg_mtx_parse(text, strlen(text), "t.mtx", a, &info, &err) != 0)
        fail_msg("refused: %s", err.msg);
    if (cg_csr_check(a, &err) != 0)
        fail_msg("accepted but broken: %s", err.msg);
}

/* A test problem of the parallel suites: A and b = A x* (x* from seed 7). */
typedef struct cgt_problem {
    cg_csr a;
    double *b;
    const char *name;
} cgt_problem;

/* Problem `which`: 0 poisson1d 50, 1 poisson2d 10, 2 poisson3d 6, 3 (or more) spd40.mtx. */
static inline void cgt_problem_make(cgt_problem *p, int which)
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

static inline void cgt_problem_free(cgt_problem *p)
{
    free(p->b);
    cg_csr_free(&p->a);
}

/* The iteration limit of test_cg_par.c's and test_cg_pcg.c's solves. */
#define CGT_MAX_IT 200

/* One solve's outcome: the result, the residual history and x's checksum. */
typedef struct cgt_run {
    cg_result res;
    double hist[CGT_MAX_IT + 1];
    uint64_t checksum;
} cgt_run;

/* A suite's serial reference and its parallel solver under test (pes PEs, a grid of blocks x
 * threads per PE; 0 for the solver's default). */
typedef void cgt_serial_fn(const cgt_problem *p, cgt_run *out);
typedef void cgt_par_fn(const cgt_problem *p, int pes, int blocks, int threads, cgt_run *out);

/* A one-core solver's signature (cg/solve.h: cg_solve_serial, cg_solve_pcg_serial). */
typedef void cgt_one_core_fn(const cg_csr *a, const double *b, double *x, double tol,
                             int64_t max_iter, double *history, cg_result *res);

/* *out = the one-core solve of p (tol 1e-8, at most max_it iterations, max_it <= CGT_MAX_IT),
 * with x's checksum. */
static inline void cgt_solve_one_core(cgt_one_core_fn *solve, const cgt_problem *p,
                                      int64_t max_it, cgt_run *out)
{
    double *x = malloc((size_t)p->a.n * sizeof *x);
    assert_non_null(x);
    memset(out, 0, sizeof *out);
    solve(&p->a, p->b, x, 1e-8, max_it, out->hist, &out->res);
    out->checksum = cg_checksum(x, p->a.n);
    free(x);
}

/* Everything the two runs report, bit for bit; `what` names the run in the message (the
 * problem, the PE count, the solver). */
static inline void cgt_assert_same_run(const char *what, const cgt_run *want,
                                       const cgt_run *got)
{
    if (got->res.iterations != want->res.iterations || got->checksum != want->checksum)
        fail_msg("%s: %lld iterations, checksum %016llx; serial: %lld, %016llx", what,
                 (long long)got->res.iterations, (unsigned long long)got->checksum,
                 (long long)want->res.iterations, (unsigned long long)want->checksum);
    assert_int_equal(got->res.converged, want->res.converged);
    assert_int_equal(got->res.breakdown, want->res.breakdown);
    assert_same_double(got->res.residual, want->res.residual);
    assert_same_double(got->res.rho0, want->res.rho0);
    for (int64_t k = 0; k <= want->res.iterations; k++)
        assert_same_double(got->hist[k], want->hist[k]);
}

/* The cgt_check_* functions below take `subset`: true where the suite cuts its cases
 * (cgt_slow_checker(), or valgrind only), to run one case of each. */

/* spd40.mtx at 3 PEs on other grids (1 block of 1 thread, 3 of 7, 4 of 32): the serial
 * bits. With subset, 3 blocks of 7 only. */
static inline void cgt_check_grids(cgt_serial_fn *serial, cgt_par_fn *par, const char *solver,
                                   bool subset)
{
    static const int shape[][2] = {{1, 1}, {3, 7}, {4, 32}};
    cgt_problem p;
    cgt_problem_make(&p, 3);
    cgt_run want, got;
    serial(&p, &want);
    for (size_t i = 0; i < sizeof shape / sizeof *shape; i++) {
        if (subset && (i + 2) % 3 != 0)
            continue;
        par(&p, 3, shape[i][0], shape[i][1], &got);
        char what[128];
        snprintf(what, sizeof what, "%s, 3 PEs, %d blocks of %d, %s", p.name, shape[i][0],
                 shape[i][1], solver);
        cgt_assert_same_run(what, &want, &got);
    }
    cgt_problem_free(&p);
}

/* Under the deterministic scheduler, every strategy (docs/sched.md: random with two seeds,
 * pct, rr), 2 blocks of 4 threads per PE: a deterministic run of more than 100 decisions with
 * the serial bits. With subset, the first case only. */
static inline void cgt_check_schedules(cgt_serial_fn *serial, cgt_par_fn *par,
                                       const char *solver, bool subset)
{
    static const struct {
        const char *strategy;
        int seed, matrix, pes;
    } cases[] = {{"random", 1, 1, 3}, {"random", 2, 3, 4}, {"pct", 3, 0, 2}, {"rr", 4, 2, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (subset && i != 0)
            continue;
        cgt_problem p;
        cgt_problem_make(&p, cases[i].matrix);
        cgt_run want, got;
        serial(&p, &want);
        set_sched(cases[i].strategy, cases[i].seed);
        par(&p, cases[i].pes, 2, 4, &got);
        clear_sched();
        shmemu_sched_stats st;
        assert_int_equal(shmemu_sched_last_stats(&st), 0);
        assert_true(st.deterministic);
        assert_true(st.decisions > 100);
        char what[128];
        snprintf(what, sizeof what, "%s, %d PEs, SHMEMU_SCHED=%s seed %d, %s", p.name,
                 cases[i].pes, cases[i].strategy, cases[i].seed, solver);
        cgt_assert_same_run(what, &want, &got);
        cgt_problem_free(&p);
    }
}

/* Checking mode (SHMEMU_CHECK_NBI=1) in a child process, since a report aborts it: 4 PEs of
 * 8 threads per block, at 1 block per PE and at 3, on poisson2d 10 and spd40.mtx; the child
 * writes its iteration count and checksum to a pipe, and must exit 0 with the serial ones.
 * With subset, the first case only. */
static inline void cgt_check_checking_mode(cgt_serial_fn *serial, cgt_par_fn *par, bool subset)
{
    for (int c = 0; c < 4; c++) {
        const int m = c % 2 == 0 ? 1 : 3, blocks = c < 2 ? 1 : 3;
        if (subset && c != 0)
            continue;
        cgt_problem p;
        cgt_problem_make(&p, m);
        cgt_run want;
        serial(&p, &want);
        int fd[2];
        pid_t pid = cgt_fork_checking(fd);
        if (pid == 0) {
            cgt_run got;
            par(&p, 4, blocks, 8, &got);
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
        cgt_problem_free(&p);
    }
}

#endif
