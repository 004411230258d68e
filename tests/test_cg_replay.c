/*
 * test_cg_replay.c: deterministic replay of cg runs (docs/sched.md: SHMEMU_TRACE_OUT records
 * a run's scheduling decisions, SHMEMU_REPLAY replays them and checks every decision).
 *   - cg-mono (2-D Poisson, 3 PEs) recorded under SHMEMU_SCHED=random and pct, then replayed
 *     with another strategy and seed in the environment (the trace's win): the same
 *     schedule (hash and decision count), the same seed, the same iterations and checksum,
 *     and those are the serial solver's;
 *   - the halo-only loop with the credit wait dropped (cg-credit-wait-missing, 4 PEs), where
 *     the schedule decides the wrong checksum: the recorded run's checksum differs from the
 *     serial loop's, and the replay reproduces that wrong checksum exactly, with the same
 *     schedule, twice;
 *   - a trace replayed against another run (another PE count) is refused: the replay
 *     diverges, exit 5 (in a child).
 * Traces are written to a temporary folder and removed. Under valgrind and TSan the plant's
 * race would be reported (test_cg_halo.c), so only correct code runs there, smaller.
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg/par.h"
#include "cg/solve.h"
#include "cg_bugs.h"
#include "shmemu/pgas.h"
#include "support/sched_env.h"
#include "test_cg_util.h"

#define HALO_ITERS 24

static char trace_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(trace_dir, sizeof trace_dir, "/tmp/test_cg_replay.XXXXXX");
    return mkdtemp(trace_dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(trace_dir);
}

static void trace_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s.trace", trace_dir, name);
}

/* What a run gave: its checksum (x, or u), iterations (CG only) and schedule. */
typedef struct outcome {
    uint64_t sum;
    int64_t iterations;
    shmemu_sched_stats st;
} outcome;

static void poisson(cg_csr *a, int n)
{
    cg_error err;
    assert_int_equal(cg_poisson2d(a, n, &err), 0);
}

/* cg-mono on pes PEs of A with b = A x* (seed 1); the scheduler is the environment's. */
static void mono_run(const cg_csr *a, int pes, outcome *o)
{
    double *b = malloc((size_t)a->n * sizeof *b), *x = malloc((size_t)a->n * sizeof *x);
    assert_true(b != NULL && x != NULL);
    cg_manufactured(x, a->n, 1);
    cg_spmv(a, x, b);
    cg_par_opts opt = {.solver = CG_SOLVER_MONO, .pes = pes, .blocks = 2, .threads = 4};
    cg_result res;
    cg_error err;
    if (cg_solve_par(a, b, x, 1e-8, 500, &opt, NULL, &res, &err) != 0)
        fail_msg("cg-mono on %d PEs: %s", pes, err.msg);
    o->sum = cg_checksum(x, a->n);
    o->iterations = res.iterations;
    memset(&o->st, 0, sizeof o->st);
    (void)shmemu_sched_last_stats(&o->st);
    free(x);
    free(b);
}

/* The serial solver's checksum and iterations for the same system. */
static void mono_serial(const cg_csr *a, outcome *o)
{
    double *b = malloc((size_t)a->n * sizeof *b), *x = malloc((size_t)a->n * sizeof *x);
    assert_true(b != NULL && x != NULL);
    cg_manufactured(x, a->n, 1);
    cg_spmv(a, x, b);
    cg_result res;
    cg_solve_serial(a, b, x, 1e-8, 500, NULL, &res);
    o->sum = cg_checksum(x, a->n);
    o->iterations = res.iterations;
    free(x);
    free(b);
}

/* The halo-only loop from x* (seed 3), HALO_ITERS steps, on pes PEs (0: serially). */
static void halo_run(const cg_csr *a, int pes, outcome *o)
{
    double *u0 = malloc((size_t)a->n * sizeof *u0), *u = malloc((size_t)a->n * sizeof *u);
    assert_true(u0 != NULL && u != NULL);
    cg_manufactured(u0, a->n, 3);
    const double omega = cg_halo_omega(a);
    memset(o, 0, sizeof *o);
    if (pes == 0) {
        memcpy(u, u0, (size_t)a->n * sizeof *u);
        cg_halo_loop_serial(a, u, HALO_ITERS, omega);
    } else {
        cg_par_opts opt = {.solver = CG_SOLVER_HALO_LOOP, .pes = pes, .blocks = 2, .threads = 4};
        cg_error err;
        if (cg_halo_loop_par(a, u0, u, HALO_ITERS, omega, &opt, &err) != 0)
            fail_msg("halo loop on %d PEs: %s", pes, err.msg);
        (void)shmemu_sched_last_stats(&o->st);
    }
    o->sum = cg_checksum(u, a->n);
    free(u);
    free(u0);
}

/* Records under strategy/seed into trace, then replays it with another strategy and seed
 * in the environment; the replay must make the same schedule. */
static void record(const char *trace, const char *strategy, int seed)
{
    clear_sched();
    set_sched(strategy, seed);
    setenv("SHMEMU_TRACE_OUT", trace, 1);
}

static void replay(const char *trace)
{
    clear_sched();
    set_sched("rr", 99); /* ignored: the trace's strategy and seed rule */
    setenv("SHMEMU_REPLAY", trace, 1);
}

static void assert_same_schedule(const char *what, const outcome *rec, const outcome *rep,
                                 int seed)
{
    assert_true(rec->st.deterministic && rep->st.deterministic);
    assert_true(rec->st.decisions > 100);
    if (rec->st.schedule_hash != rep->st.schedule_hash || rec->st.decisions != rep->st.decisions)
        fail_msg("%s: the replay made schedule %016llx (%llu decisions), the recording "
                 "%016llx (%llu)", what, (unsigned long long)rep->st.schedule_hash,
                 (unsigned long long)rep->st.decisions,
                 (unsigned long long)rec->st.schedule_hash,
                 (unsigned long long)rec->st.decisions);
    assert_int_equal(rep->st.seed, (uint64_t)seed);
}

/* cg-mono: recorded and replayed under random and pct, the serial bits each time. */
static void test_mono_record_replay(void **state)
{
    (void)state;
    const bool small = cgt_slow_checker();
    cg_csr a;
    poisson(&a, small ? 5 : 8);
    outcome want;
    mono_serial(&a, &want);
    static const struct {
        const char *strategy;
        int seed;
    } sch[] = {{"random", 5}, {"pct", 2}};
    for (size_t i = 0; i < sizeof sch / sizeof *sch; i++) {
        if (small && i != 0)
            continue;
        char trace[300];
        trace_path(trace, sizeof trace, "mono");
        outcome rec, rep;
        record(trace, sch[i].strategy, sch[i].seed);
        mono_run(&a, 3, &rec);
        replay(trace);
        mono_run(&a, 3, &rep);
        clear_sched();
        assert_same_schedule("cg-mono", &rec, &rep, sch[i].seed);
        assert_int_equal(rec.iterations, want.iterations);
        assert_int_equal(rep.iterations, want.iterations);
        assert_true(rec.sum == want.sum);
        assert_true(rep.sum == want.sum);
        assert_int_equal(unlink(trace), 0);
    }
    cg_csr_free(&a);
}

/* The halo-only loop with the credit wait dropped: the recorded schedule's wrong checksum,
 * reproduced exactly by two replays. */
static void test_credit_wait_plant_replays_wrong_bits(void **state)
{
    (void)state;
    if (cgt_slow_checker())
        skip(); /* the plant's race would be reported */
    cg_csr a;
    poisson(&a, 10);
    outcome serial;
    halo_run(&a, 0, &serial);
    char trace[300];
    trace_path(trace, sizeof trace, "halo_plant");
    outcome rec, rep[2];
    shmemu_bug_select(CG_BUG_CREDIT_WAIT_MISSING);
    record(trace, "random", 2);
    halo_run(&a, 4, &rec);
    for (int r = 0; r < 2; r++) {
        replay(trace);
        halo_run(&a, 4, &rep[r]);
    }
    clear_sched();
    shmemu_bug_select(SHMEMU_BUG_NONE);
    if (rec.sum == serial.sum)
        fail_msg("credit wait dropped, random seed 2: the serial checksum %016llx (the "
                 "plant was expected to change it)", (unsigned long long)serial.sum);
    for (int r = 0; r < 2; r++) {
        assert_same_schedule("halo loop, credit wait dropped", &rec, &rep[r], 2);
        if (rep[r].sum != rec.sum)
            fail_msg("replay %d: checksum %016llx, the recorded run's %016llx", r,
                     (unsigned long long)rep[r].sum, (unsigned long long)rec.sum);
    }
    assert_int_equal(unlink(trace), 0);
    cg_csr_free(&a);
}

/* A trace replayed against a run it was not recorded for (4 PEs instead of 3) diverges:
 * the child exits 5 with the replay's report. */
static void test_replay_of_other_run_diverges(void **state)
{
    (void)state;
    if (RUNNING_ON_VALGRIND)
        skip(); /* fork under valgrind: slow, and nothing this test needs */
    cg_csr a;
    poisson(&a, 6);
    char trace[300];
    trace_path(trace, sizeof trace, "other");
    outcome rec;
    record(trace, "random", 3);
    mono_run(&a, 3, &rec);
    clear_sched();
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY); /* the expected report */
        if (null >= 0)
            dup2(null, 2);
        replay(trace);
        outcome o;
        mono_run(&a, 4, &o);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 5)
        fail_msg("the replay of a 3-PE trace on 4 PEs ended with status 0x%x; expected exit 5",
                 status);
    assert_int_equal(unlink(trace), 0);
    cg_csr_free(&a);
}

int main(void)
{
    clear_sched();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mono_record_replay),
        cmocka_unit_test(test_credit_wait_plant_replays_wrong_bits),
        cmocka_unit_test(test_replay_of_other_run_diverges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
