/*
 * test_cg_plants.c: every planted bug of cg's catalogue (cg_bugs.h) is caught where
 * docs/cg.md ("Planted bugs") says it is, by the checker it names, so that a plant that stops
 * being caught fails here. (cg-credit-wait-missing and cg-quiet-missing, caught in the
 * halo-only loop and masked in cg-mono, are test_cg_halo.c's.) Each run is a child process
 * (a caught plant may abort, hang or deadlock), 4 PEs, 2-D Poisson N = 8:
 *   - cg-recv-wait-missing: cg-mono, cg-host (sync, stream) and the halo-only loop give a
 *     checksum other than the serial one under SHMEMU_SCHED=random seed 1;
 *   - cg-credit-missing: cg-mono and the halo-only loop hang: the hang detector
 *     (SHMEMU_HANG_TIMEOUT=0.2, free-running) reports it and exits 3;
 *   - cg-signal-before-data: cg-mono and the halo-only loop, a different checksum (random 1);
 *   - cg-signal-relaxed: in checking mode (SHMEMU_CHECK_NBI=1: puts delivered late, under
 *     SHMEMU_SCHED=random seed 1) the relaxed signal overtakes the data: a different
 *     checksum in cg-mono and the loop;
 *   - cg-disp-off-by-one: every solver, a different checksum (random 1);
 *   - cg-reduce-sync-missing: cg-mono never ends with the serial bits: the blocks read
 *     different scalars and part ways (random 1: the emulator's __syncthreads check or a
 *     deadlock report; either way the child does not finish cleanly).
 * Correct code gives the serial bits in each of those settings (the controls). Under
 * valgrind and TSan only the controls run (the plants' races would be reported).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg/par.h"
#include "cg/solve.h"
#include "cg_bugs.h"
#include "shmemu/pgas.h"
#include "support/sched_env.h"
#include "test_cg_util.h"

#define MAX_ITER 32 /* the correct solve takes 26; a broken one stops here */
#define HALO_ITERS 20

/* Where a run goes: a CG solver (mono, host sync, host stream) or the halo-only loop. */
typedef enum where { W_MONO, W_HOST_SYNC, W_HOST_STREAM, W_HALO } where;
static const char *const where_name[] = {"cg-mono", "cg-host --reduce sync",
                                         "cg-host --reduce stream", "halo-loop"};

/* How a child ended: exited (status), its checksum when it wrote one, and its stderr. */
typedef struct ending {
    int status;
    bool have_sum;
    uint64_t sum;
    char err[4096];
} ending;

static cg_csr A;
static uint64_t serial_cg, serial_halo;

static int setup(void **state)
{
    (void)state;
    cg_error err;
    if (cg_poisson2d(&A, 8, &err) != 0)
        return -1;
    double *b = malloc((size_t)A.n * sizeof *b), *x = malloc((size_t)A.n * sizeof *x);
    if (b == NULL || x == NULL)
        return -1;
    cg_manufactured(x, A.n, 1);
    cg_spmv(&A, x, b);
    cg_result res;
    cg_solve_serial(&A, b, x, 1e-8, MAX_ITER, NULL, &res);
    serial_cg = cg_checksum(x, A.n);
    cg_manufactured(x, A.n, 3);
    cg_halo_loop_serial(&A, x, HALO_ITERS, cg_halo_omega(&A));
    serial_halo = cg_checksum(x, A.n);
    free(x);
    free(b);
    return res.converged ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cg_csr_free(&A);
    return 0;
}

/* In the child: the run; its checksum (x or u). */
static uint64_t child_run(where w)
{
    double *b = malloc((size_t)A.n * sizeof *b), *x = malloc((size_t)A.n * sizeof *x);
    if (b == NULL || x == NULL)
        _exit(4);
    cg_par_opts o = {.solver = CG_SOLVER_MONO, .pes = 4, .blocks = 2, .threads = 4};
    cg_error err;
    if (w == W_HALO) {
        cg_manufactured(b, A.n, 3);
        o.solver = CG_SOLVER_HALO_LOOP;
        if (cg_halo_loop_par(&A, b, x, HALO_ITERS, cg_halo_omega(&A), &o, &err) != 0)
            _exit(4);
    } else {
        cg_manufactured(x, A.n, 1);
        cg_spmv(&A, x, b);
        if (w != W_MONO) {
            o.solver = CG_SOLVER_HOST;
            o.reduce = w == W_HOST_STREAM ? CG_REDUCE_STREAM : CG_REDUCE_SYNC;
        }
        cg_result res;
        if (cg_solve_par(&A, b, x, 1e-8, MAX_ITER, &o, NULL, &res, &err) != 0)
            _exit(4); /* a run that went wrong (not "not converged": that returns 0) */
    }
    return cg_checksum(x, A.n);
}

/* Runs `w` with `bug` planted in a child whose environment adds the NULL-ended pairs of
 * env (name, value, ...); the scheduler is off unless env sets it. */
static void run(where w, int bug, const char *const *env, ending *e)
{
    char errpath[] = "/tmp/test_cg_plants.XXXXXX";
    int errfd = mkstemp(errpath);
    assert_true(errfd >= 0);
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(errfd, 2);
        clear_sched();
        for (int i = 0; env && env[i]; i += 2)
            setenv(env[i], env[i + 1], 1);
        shmemu_bug_select(bug);
        uint64_t sum = child_run(w);
        _exit(write(fd[1], &sum, sizeof sum) == (ssize_t)sizeof sum ? 0 : 3);
    }
    close(fd[1]);
    memset(e, 0, sizeof *e);
    e->have_sum = read(fd[0], &e->sum, sizeof e->sum) == (ssize_t)sizeof e->sum;
    close(fd[0]);
    assert_int_equal(waitpid(pid, &e->status, 0), pid);
    ssize_t n = pread(errfd, e->err, sizeof e->err - 1, 0);
    e->err[n > 0 ? n : 0] = '\0';
    close(errfd);
    unlink(errpath);
}

static uint64_t serial_of(where w)
{
    return w == W_HALO ? serial_halo : serial_cg;
}

static bool clean_with(const ending *e, uint64_t want)
{
    return WIFEXITED(e->status) && WEXITSTATUS(e->status) == 0 && e->have_sum && e->sum == want;
}

/* Under valgrind and TSan: the controls only (see the top). */
static bool plants_off(void)
{
    return cgt_slow_checker();
}

static const char *const sched1[] = {"SHMEMU_SCHED", "random", "SHMEMU_SEED", "1", NULL};
/* Checking mode under the scheduler: free-running, whether the receiver reads its ghosts
 * before the sender's queued puts are delivered is a matter of timing (an ASan build once
 * let the sender's block end, and so deliver, first); under SHMEMU_SCHED it is the seed's. */
static const char *const checking[] = {"SHMEMU_CHECK_NBI", "1", "SHMEMU_CHECK_SEED", "5",
                                       "SHMEMU_SCHED", "random", "SHMEMU_SEED", "1", NULL};
static const char *const hang_fast[] = {"SHMEMU_HANG_TIMEOUT", "0.2", NULL};
static const char *const free_running[] = {"SHMEMU_SCHED", "free", NULL};

/* Correct code gives the serial bits in every setting a plant below runs in (free-running
 * with no hang timeout: a short one could fire on an honest wait of a loaded machine). */
static void test_controls(void **state)
{
    (void)state;
    const char *const *envs[] = {sched1, checking, free_running};
    for (int w = W_MONO; w <= W_HALO; w++)
        for (size_t i = 0; i < sizeof envs / sizeof *envs; i++) {
            if ((plants_off() || envs[i] != sched1) && (w == W_HOST_SYNC || w == W_HOST_STREAM))
                continue; /* cg-host's plants run under sched1 only */
            if (plants_off() && envs[i] != sched1)
                continue;
            ending e;
            run((where)w, SHMEMU_BUG_NONE, envs[i], &e);
            if (!clean_with(&e, serial_of((where)w)))
                fail_msg("correct %s with %s=%s: status 0x%x, checksum %016llx (serial "
                         "%016llx)\n%s", where_name[w], envs[i][0], envs[i][1], e.status,
                         (unsigned long long)e.sum, (unsigned long long)serial_of((where)w),
                         e.err);
        }
}

/* `bug` in `w` under env must end with another checksum than the serial one. */
static void expect_checksum_differs(int bug, where w, const char *const *env)
{
    ending e;
    run(w, bug, env, &e);
    if (!WIFEXITED(e.status) || WEXITSTATUS(e.status) != 0 || !e.have_sum)
        fail_msg("%s with %s: the child ended with status 0x%x (expected a finished run with "
                 "a wrong checksum)\n%s", shmemu_bug_by_id(bug)->name, where_name[w], e.status,
                 e.err);
    if (e.sum == serial_of(w))
        fail_msg("%s with %s=%s: the serial checksum %016llx (the plant went unseen)",
                 shmemu_bug_by_id(bug)->name, env[0], env[1], (unsigned long long)e.sum);
}

static void test_recv_wait_missing(void **state)
{
    (void)state;
    if (plants_off())
        skip();
    for (int w = W_MONO; w <= W_HALO; w++)
        expect_checksum_differs(CG_BUG_RECV_WAIT_MISSING, (where)w, sched1);
}

/* The credit never returned: every sender waits for it at the second exchange. */
static void test_credit_missing_hangs(void **state)
{
    (void)state;
    if (plants_off())
        skip();
    static const where ws[] = {W_MONO, W_HALO};
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        ending e;
        run(ws[i], CG_BUG_CREDIT_MISSING, hang_fast, &e);
        if (!WIFEXITED(e.status) || WEXITSTATUS(e.status) != 3 ||
            strstr(e.err, "shmemu: hang") == NULL ||
            strstr(e.err, "nvshmem_signal_wait_until") == NULL)
            fail_msg("cg-credit-missing in %s: status 0x%x, no hang report on the credit "
                     "wait\n%s", where_name[ws[i]], e.status, e.err);
    }
}

static void test_signal_before_data(void **state)
{
    (void)state;
    if (plants_off())
        skip();
    expect_checksum_differs(CG_BUG_SIGNAL_BEFORE_DATA, W_MONO, sched1);
    expect_checksum_differs(CG_BUG_SIGNAL_BEFORE_DATA, W_HALO, sched1);
}

/* The relaxed signal overtakes the late-delivered data in checking mode. */
static void test_signal_relaxed_in_checking_mode(void **state)
{
    (void)state;
    if (plants_off())
        skip();
    expect_checksum_differs(CG_BUG_SIGNAL_RELAXED, W_MONO, checking);
    expect_checksum_differs(CG_BUG_SIGNAL_RELAXED, W_HALO, checking);
}

static void test_disp_off_by_one(void **state)
{
    (void)state;
    if (plants_off())
        skip();
    for (int w = W_MONO; w <= W_HALO; w++)
        expect_checksum_differs(CG_BUG_DISP_OFF_BY_ONE, (where)w, sched1);
}

/* The blocks read the scalar before block 0 rounded it: they disagree on the iteration's
 * scalars and part ways; the run cannot end with the serial bits. */
static void test_reduce_sync_missing(void **state)
{
    (void)state;
    if (plants_off())
        skip();
    ending e;
    run(W_MONO, CG_BUG_REDUCE_SYNC_MISSING, sched1, &e);
    if (clean_with(&e, serial_cg))
        fail_msg("cg-reduce-sync-missing in cg-mono, random seed 1: the serial bits");
    assert_true(strstr(e.err, "shmemu: ") != NULL); /* the emulator's or a deadlock report */
}

/* The catalogue lists every plant once, with a configuration for shmemu-cg. */
static void test_catalogue(void **state)
{
    (void)state;
    size_t n;
    const shmemu_bug_info *c = cg_bugs_catalogue(&n);
    assert_int_equal(n, CG_BUG_END - CG_BUG_CREDIT_WAIT_MISSING);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(c[i].id, CG_BUG_CREDIT_WAIT_MISSING + (int)i);
        assert_ptr_equal(shmemu_bug_by_name(c[i].name), &c[i]);
        assert_true(strncmp(c[i].name, "cg-", 3) == 0);
        assert_non_null(strstr(c[i].config, "--solver "));
        assert_true(strlen(c[i].what) > 20);
    }
}

int main(void)
{
    clear_sched();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_recv_wait_missing),
        cmocka_unit_test(test_credit_missing_hangs),
        cmocka_unit_test(test_signal_before_data),
        cmocka_unit_test(test_signal_relaxed_in_checking_mode),
        cmocka_unit_test(test_disp_off_by_one),
        cmocka_unit_test(test_reduce_sync_missing),
        cmocka_unit_test(test_catalogue),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
