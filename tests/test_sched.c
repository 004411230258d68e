/*
 * test_sched.c: the deterministic scheduler on pgas and emu programs (docs/sched.md).
 *   - every strategy gives the free-running results; the same seed gives the same
 *     schedule (hash and decision count), other seeds give other schedules;
 *   - a recorded trace replays the identical schedule; a changed program or a damaged
 *     trace is reported (the first decision of divergence; the checksum);
 *   - deadlocks are exact and reported with the waits, the values, the last writer and the
 *     wait-for cycle, or the signal nobody sent; a kernel's block and thread are named; the
 *     free-running hang timeout prints the same lines (without the last writer);
 *   - polling loops (nvshmem_*_test) progress under every strategy, an endless one is
 *     reported as a livelock; blocks that leave with queued puts (checking mode) do not
 *     stall the stream thread that joins them; a wait that gives the turn away (or parks)
 *     delivers its thread's queued puts, those of its block's other fibers included;
 *   - bin/shmemu-explore finds a schedule-dependent failure, shrinks it, saves the trace and
 *     the saved trace reproduces the failure; it refuses bad arguments before running
 *     anything; it compares the program's declared result (a checksum line, a pattern, a
 *     file), not lines that PEs print in a schedule-dependent order.
 * The suite's binary doubles as the explorer's test programs: `test_sched --racy-child`,
 * `--chatty-child [FILE]`, `--cycle-child`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "shmemu/internal/pgas_emu.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"
#include "support/run_shell.h"
#include "support/sched_env.h"

/* ---- a pgas program: a ring of put-with-signal, then a reduction ---------------------- */

#define RING_ROUNDS 4

typedef struct ring_result {
    uint64_t sum[8];
} ring_result;

static int ring_body(void *arg)
{
    ring_result *res = arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *data = nvshmem_calloc(RING_ROUNDS, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t acc = (uint64_t)me + 1;
    for (int r = 0; r < RING_ROUNDS; r++) {
        uint64_t v = acc * 3 + (uint64_t)r;
        nvshmem_uint64_put_signal_nbi(&data[r], &v, 1, sig, 1, NVSHMEM_SIGNAL_ADD,
                                      (me + 1) % n);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r + 1);
        acc += data[r];
    }
    nvshmem_barrier_all();
    res->sum[me] = acc;
    nvshmem_free(sig);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}

static void run_ring(int n, const char *strategy, int seed, ring_result *res,
                     shmemu_sched_stats *st)
{
    memset(res, 0, sizeof *res);
    if (strategy != NULL)
        set_sched(strategy, seed);
    run_pes(n, ring_body, res);
    clear_sched();
    if (st != NULL) {
        memset(st, 0, sizeof *st);
        if (strategy != NULL)
            assert_int_equal(shmemu_sched_last_stats(st), 0);
    }
}

static void test_strategies_give_free_results(void **state)
{
    (void)state;
    static const char *const strategies[] = {"random", "pct", "rr"};
    for (int n = 2; n <= 3; n++) {
        ring_result ref, got;
        run_ring(n, NULL, 0, &ref, NULL);
        for (int k = 0; k < 3; k++)
            for (int seed = 1; seed <= pe_check_scaled(3, 3); seed++) {
                shmemu_sched_stats st;
                run_ring(n, strategies[k], seed, &got, &st);
                assert_memory_equal(ref.sum, got.sum, sizeof ref.sum);
                assert_true(st.deterministic);
                assert_true(st.decisions > 10);
                assert_int_equal(st.seed, (uint64_t)seed);
                /* n hosts and one stream thread? no: pgas only, n entities */
                assert_int_equal(st.entities, (uint32_t)n);
            }
    }
}

static void test_seed_determines_schedule(void **state)
{
    (void)state;
    ring_result r;
    shmemu_sched_stats a, b;
    run_ring(3, "random", 5, &r, &a);
    run_ring(3, "random", 5, &r, &b);
    assert_int_equal(a.schedule_hash, b.schedule_hash);
    assert_int_equal(a.decisions, b.decisions);
    assert_int_equal(a.switches, b.switches);
    /* other seeds give other schedules (the test can fail: a scheduler that ignored the
     * seed would give one hash) */
    int distinct = 0;
    uint64_t seen[6];
    for (int seed = 1; seed <= 6; seed++) {
        run_ring(3, "random", seed, &r, &b);
        bool is_new = true;
        for (int j = 0; j < distinct; j++)
            is_new = is_new && seen[j] != b.schedule_hash;
        if (is_new)
            seen[distinct++] = b.schedule_hash;
    }
    assert_true(distinct >= 3);
    /* PCT with a high-priority entity runs it until it blocks: fewer switches than random */
    shmemu_sched_stats p;
    run_ring(3, "pct", 5, &r, &p);
    assert_true(p.switches < a.switches);
}

/* ---- record and replay ---------------------------------------------------------------- */

static void temp_path(char *out, size_t len, const char *what)
{
    snprintf(out, len, "/tmp/shmemu-test-sched-%d-%s", (int)getpid(), what);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void test_record_and_replay(void **state)
{
    (void)state;
    char trace[256];
    temp_path(trace, sizeof trace, "replay.trace");
    ring_result ref, got;
    shmemu_sched_stats rec, rep;
    setenv("SHMEMU_TRACE_OUT", trace, 1);
    run_ring(3, "random", 11, &ref, &rec);
    size_t len;
    const char *text = read_file(trace, &len);
    assert_true(strncmp(text, "shmemu-trace 1\n", 15) == 0);
    assert_non_null(strstr(text, "\nseed: 11\n"));
    assert_non_null(strstr(text, "\nstrategy: random\n"));
    assert_non_null(strstr(text, "\nnpes: 3\n"));
    assert_non_null(strstr(text, "call: "));
    assert_non_null(strstr(text, "nvshmem_signal_wait_until"));
    /* the replay takes strategy and seed from the trace, whatever the environment says */
    setenv("SHMEMU_REPLAY", trace, 1);
    run_ring(3, "rr", 99, &got, &rep);
    assert_memory_equal(ref.sum, got.sum, sizeof ref.sum);
    assert_int_equal(rec.schedule_hash, rep.schedule_hash);
    assert_int_equal(rec.decisions, rep.decisions);
    assert_int_equal(rep.seed, 11);
    unlink(trace);
}

/* The same ring with one more round: the replay of the 4-round trace must diverge. */
static int ring5_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    for (int r = 0; r < RING_ROUNDS + 1; r++) {
        nvshmemx_signal_op(sig, 1, NVSHMEM_SIGNAL_ADD, (me + 1) % n);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r + 1);
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static int replay_changed_child(void *arg)
{
    setenv("SHMEMU_REPLAY", (const char *)arg, 1);
    return shmemu_launch(3, ring5_body, NULL);
}

static void test_replay_reports_divergence(void **state)
{
    (void)state;
    char trace[256];
    temp_path(trace, sizeof trace, "diverge.trace");
    ring_result r;
    setenv("SHMEMU_TRACE_OUT", trace, 1);
    run_ring(3, "random", 3, &r, NULL);
    char out[16384];
    int status = run_child(replay_changed_child, trace, child_time_limit(), out, sizeof out,
                           NULL);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 5)) {
        print_error("%s", out);
        fail_msg("the replay of a changed program ended with status 0x%x; expected exit 5",
                 status);
    }
    assert_contains(out, "replay diverged from the trace");
    assert_contains(out, "at scheduling decision ");
    assert_contains(out, "this run: PE ");
    assert_contains(out, "the trace: ");
    unlink(trace);
}

static int replay_damaged_child(void *arg)
{
    setenv("SHMEMU_REPLAY", (const char *)arg, 1);
    ring_result r;
    return shmemu_launch(3, ring_body, &r);
}

static void test_damaged_trace_is_refused(void **state)
{
    (void)state;
    char trace[256];
    temp_path(trace, sizeof trace, "damaged.trace");
    ring_result r;
    setenv("SHMEMU_TRACE_OUT", trace, 1);
    run_ring(3, "random", 4, &r, NULL);
    size_t len;
    char *text = read_file(trace, &len);
    char *body = strstr(text, "\n\n");
    assert_non_null(body);
    body[5] ^= 0x10; /* one bit of one decision */
    FILE *f = fopen(trace, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    char out[8192];
    int status = run_child(replay_damaged_child, trace, child_time_limit(), out, sizeof out,
                           NULL);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    assert_contains(out, "checksum mismatch");
    unlink(trace);
}

/* ---- deadlocks -------------------------------------------------------------------------- */

/* The line of the wait below, which the deadlock and hang reports must name. */
static const int cycle_wait_line = __LINE__ + 3;
static void cycle_wait(uint64_t *sig)
{
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 2);
}

/* Each PE sets its successor's signal to 1, then waits for its own to reach 2: a wait-for
 * cycle through the last writers. */
static int cycle_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    nvshmemx_signal_op(sig, 1, NVSHMEM_SIGNAL_SET, (me + 1) % n);
    cycle_wait(sig);
    nvshmem_finalize();
    return 0;
}

static int deadlock_child(void *arg)
{
    setenv("SHMEMU_SCHED", "random", 1);
    setenv("SHMEMU_SEED", "2", 1);
    setenv("SHMEMU_HANG_TIMEOUT", "0", 1); /* only the scheduler may find it */
    return shmemu_launch(2, (int (*)(void *))arg, NULL);
}

static const char *expect_deadlock(int (*body)(void *))
{
    static char out[32768];
    double secs = 0;
    int status = run_child(deadlock_child, (void *)body, child_time_limit(), out, sizeof out,
                           &secs);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 3)) {
        print_error("%s", out);
        fail_msg("the deadlocked child ended with status 0x%x after %.1f s; expected exit 3",
                 status, secs);
    }
    return out;
}

/* The report line after `waiter` names this file and `line` as the wait's call site. */
static void expect_source_line(const char *out, const char *waiter, int line)
{
    const char *w = strstr(out, waiter);
    if (w == NULL)
        fail_msg("no \"%s\" in the report:\n%s", waiter, out);
    const char *next = strchr(w, '\n');
    char want[64];
    snprintf(want, sizeof want, "test_sched.c:%d", line);
    const char *at = next != NULL ? strstr(next + 1, want) : NULL;
    if (next == NULL || strncmp(next + 1, "      called at ", 16) != 0 || at == NULL ||
        at > strchr(next + 1, '\n') || (at[strlen(want)] != ' ' && at[strlen(want)] != '\n')) {
        print_error("%s", out);
        fail_msg("the report does not name %s (the call site) after \"%s\"", want, waiter);
    }
}

static void test_deadlock_cycle_is_reported(void **state)
{
    (void)state;
    const char *out = expect_deadlock(cycle_body);
    assert_contains(out, "shmemu: deadlock (deterministic scheduler, random seed 2");
    assert_contains(out, "PE 0 (host) waits in nvshmem_signal_wait_until: word ");
    assert_contains(out, "PE 1 (host) waits in nvshmem_signal_wait_until: word ");
    assert_contains(out, ">= 2, current value 1");
    assert_contains(out, "-byte allocation at + 0x");
    assert_contains(out, "last writer: PE 1 (host) in nvshmemx_signal_op, at decision ");
    assert_contains(out, "last writer: PE 0 (host) in nvshmemx_signal_op, at decision ");
    assert_contains(out, "wait-for cycle (waiter -> the last writer of its word): PE ");
    assert_contains(out, "shmemu: replay: SHMEMU_SCHED=random SHMEMU_SEED=2");
    expect_source_line(out, "PE 0 (host) waits in nvshmem_signal_wait_until", cycle_wait_line);
    expect_source_line(out, "PE 1 (host) waits in nvshmem_signal_wait_until", cycle_wait_line);
}

/* Free-running, the hang timeout prints the same lines, without the last writer. */
static int free_hang_child(void *arg)
{
    (void)arg;
    setenv("SHMEMU_HANG_TIMEOUT", "1", 1);
    return shmemu_launch(2, cycle_body, NULL);
}

static void test_free_running_hang_gives_the_same_report(void **state)
{
    (void)state;
    char out[16384];
    int status = run_child(free_hang_child, NULL, child_time_limit(), out, sizeof out, NULL);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 3)) {
        print_error("%s", out);
        fail_msg("the free-running hang ended with status 0x%x; expected exit 3", status);
    }
    assert_contains(out, "PE 0 (host) waits in nvshmem_signal_wait_until for ");
    expect_source_line(out, "PE 0 (host) waits in nvshmem_signal_wait_until for ",
                       cycle_wait_line);
    assert_contains(out, "-byte allocation at + 0x");
    assert_contains(out, ">= 2, current value 1");
    assert_contains(out, "last writer: not tracked in free-running mode");
}

/* PE 1 waits for a signal that PE 0 never sends; PE 0 waits in a barrier. */
static int unsent_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    if (nvshmem_my_pe() == 1)
        nvshmem_uint64_wait_until(sig, NVSHMEM_CMP_EQ, 7); /* unsent_wait_line */
    nvshmem_barrier_all();                                 /* unsent_wait_line + 1 */
    nvshmem_finalize();
    return 0;
}
static const int unsent_wait_line = __LINE__ - 5;

static void test_unsent_signal_is_reported(void **state)
{
    (void)state;
    const char *out = expect_deadlock(unsent_body);
    assert_contains(out, "PE 1 (host) waits in nvshmem_uint64_wait_until: word ");
    assert_contains(out, "== 7, current value 0");
    assert_contains(out, "this is a signal that nobody sent");
    assert_contains(out, "PE 0 (host) waits in nvshmem_barrier_all");
    expect_source_line(out, "PE 1 (host) waits in nvshmem_uint64_wait_until", unsent_wait_line);
    expect_source_line(out, "PE 0 (host) waits in nvshmem_barrier_all", unsent_wait_line + 1);
}

/* A kernel whose thread (1,0,0) of block 0 waits for a device signal that never comes,
 * while the block's other threads wait at __syncthreads. */
typedef struct stuck_args {
    uint64_t *sig;
} stuck_args;

KERNEL(stuck_kernel, stuck_args, a)
{
    if (threadIdx.x == 1)
        nvshmem_signal_wait_until(a.sig, NVSHMEM_CMP_EQ, 5);
    __syncthreads();
}
static const int stuck_wait_line = __LINE__ - 3;

static int kernel_stuck_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    stuck_args a = {sig};
    if (nvshmem_my_pe() == 0)
        LAUNCH(stuck_kernel, DIM3(1, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_kernel_deadlock_names_block_and_thread(void **state)
{
    (void)state;
    const char *out = expect_deadlock(kernel_stuck_body);
    assert_contains(out, "PE 0 (kernel stuck_kernel block 0, thread (1,0,0)) waits in "
                         "nvshmem_signal_wait_until");
    assert_contains(out, "== 5, current value 0");
    expect_source_line(out, "PE 0 (kernel stuck_kernel block 0, thread (1,0,0)) waits in "
                            "nvshmem_signal_wait_until", stuck_wait_line);
    assert_contains(out, "PE 0 (host) waits in cudaDeviceSynchronize");
    assert_contains(out, "PE 1 (host) waits in nvshmem_barrier_all");
}

/* Thread 1 waits for a signal that never comes while the block's other threads make NVSHMEM
 * calls of their own, run on the same pthread between the wait's polls: the report must
 * name thread 1's call and its line, not the others' last call. */
KERNEL(busy_stuck_kernel, stuck_args, a)
{
    if (threadIdx.x == 1)
        nvshmem_signal_wait_until(a.sig, NVSHMEM_CMP_EQ, 5);
    else
        nvshmem_uint64_p(a.sig + 1 + threadIdx.x, 1, nvshmem_my_pe());
    __syncthreads();
}
static const int busy_wait_line = __LINE__ - 5;

/* Waits the program makes through the emulator's code: a block call whose first thread makes
 * the barrier (PE 0 only, so it never completes), a grid sync that block 1 never reaches.
 * Each must be named at this file's line, not at the emulator's. */
KERNEL(block_barrier_kernel, stuck_args, a)
{
    nvshmemx_barrier_all_block();
    a.sig[1] = 1; /* not a tail call, whose return address would be the emulator's */
}
static const int block_barrier_line = __LINE__ - 3;

KERNEL(grid_stuck_kernel, stuck_args, a)
{
    (void)a;
    if (blockIdx.x == 1)
        return;
    grid_sync();
}
static const int grid_sync_line = __LINE__ - 2;

static int kernel_site_body(const char *which)
{
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(8, sizeof(uint64_t));
    stuck_args a = {sig};
    if (strcmp(which, "busy") == 0 && nvshmem_my_pe() == 0)
        LAUNCH(busy_stuck_kernel, DIM3(1, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
    if (strcmp(which, "block") == 0 && nvshmem_my_pe() == 0)
        LAUNCH(block_barrier_kernel, DIM3(1, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
    if (strcmp(which, "grid") == 0 && nvshmem_my_pe() == 0)
        LAUNCH_COOP(grid_stuck_kernel, DIM3(2, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    if (nvshmem_my_pe() == 1) /* PE 0's block barrier must find no partner */
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1);
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static int busy_site_body(void *arg) { (void)arg; return kernel_site_body("busy"); }
static int block_site_body(void *arg) { (void)arg; return kernel_site_body("block"); }
static int grid_site_body(void *arg) { (void)arg; return kernel_site_body("grid"); }

static void test_kernel_wait_names_its_line_among_busy_threads(void **state)
{
    (void)state;
    const char *out = expect_deadlock(busy_site_body);
    expect_source_line(out, "PE 0 (kernel busy_stuck_kernel block 0, thread (1,0,0)) waits in "
                            "nvshmem_signal_wait_until", busy_wait_line);
}

static void test_block_call_and_grid_sync_name_the_program_line(void **state)
{
    (void)state;
    const char *out = expect_deadlock(block_site_body);
    expect_source_line(out, "PE 0 (kernel block_barrier_kernel block 0, thread (0,0,0)) waits "
                            "in nvshmem_barrier_all", block_barrier_line);
    out = expect_deadlock(grid_site_body);
    expect_source_line(out, "PE 0 (kernel grid_stuck_kernel block 0, thread (0,0,0)) waits in "
                            "grid_sync", grid_sync_line);
}

/* ---- polling loops ---------------------------------------------------------------------- */

/* PE 0 polls with nvshmem_uint64_test until PE 1 sets the flag; under PCT a poller that kept
 * its priority would starve PE 1 if a failed test did not give the turn away. */
static int poll_body(void *arg)
{
    bool never = arg != NULL;
    nvshmem_init();
    uint64_t *flag = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t *scratch = nvshmem_calloc(1, sizeof(uint64_t));
    nvshmem_barrier_all();
    if (nvshmem_my_pe() == 0) {
        long polls = 0;
        while (!nvshmem_uint64_test(flag, NVSHMEM_CMP_EQ, 1))
            polls++;
        PE_CHECK(polls >= 0);
    } else if (!never) {
        for (int i = 0; i < 5; i++) /* sync points of PE 1 alone, before the flag */
            nvshmemx_signal_op(scratch, 1, NVSHMEM_SIGNAL_ADD, 1);
        nvshmemx_signal_op(flag, 1, NVSHMEM_SIGNAL_SET, 0);
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static int poll_child(void *arg)
{
    const char *strategy = arg;
    setenv("SHMEMU_SCHED", strategy, 1);
    setenv("SHMEMU_HANG_TIMEOUT", "0", 1);
    for (int seed = 1; seed <= 3; seed++) {
        char s[16];
        snprintf(s, sizeof s, "%d", seed);
        setenv("SHMEMU_SEED", s, 1);
        if (shmemu_launch(2, poll_body, NULL) != 0)
            return 1;
    }
    return 0;
}

static void test_polling_loop_progresses(void **state)
{
    (void)state;
    static const char *const strategies[] = {"pct", "random", "rr"};
    for (int k = 0; k < 3; k++) {
        char out[8192];
        int status = run_child(poll_child, (void *)strategies[k], child_time_limit(), out,
                               sizeof out, NULL);
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            print_error("%s", out);
            fail_msg("%s: the polling program ended with status 0x%x", strategies[k], status);
        }
    }
}

static int poll_forever_child(void *arg)
{
    (void)arg;
    setenv("SHMEMU_SCHED", "pct", 1);
    setenv("SHMEMU_HANG_TIMEOUT", "0", 1);
    return shmemu_launch(2, poll_body, (void *)1);
}

static void test_endless_poll_is_a_livelock(void **state)
{
    (void)state;
    char out[16384];
    int status = run_child(poll_forever_child, NULL, child_time_limit(), out, sizeof out, NULL);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 3)) {
        print_error("%s", out);
        fail_msg("the endless poll ended with status 0x%x; expected exit 3", status);
    }
    assert_contains(out, "livelock: every entity that can still run only polls");
    assert_contains(out, "PE 1 (host) waits in nvshmem_barrier_all");
    assert_contains(out, "PE 0 (host) polls in nvshmem_uint64_test");
}

/* ---- threads that leave with work pending ------------------------------------------------ */

/* Every block puts to the next PE without a quiet: in checking mode the puts stay queued
 * until the block's thread leaves, and delivering them there is a sync point. The stream
 * thread that joins the block must not take the turn before that (it would block in
 * pthread_join while the block waits for the turn). */
typedef struct pending_args {
    int *dst;
} pending_args;

KERNEL(pending_put_kernel, pending_args, a)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    if (threadIdx.x == 0)
        nvshmem_int_p(&a.dst[blockIdx.x], me, (me + 1) % n); /* queued: a snapshot */
}

static int pending_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int n = nvshmem_n_pes(), me = nvshmem_my_pe();
    int *dst = nvshmem_calloc(4, sizeof(int));
    pending_args a = {dst};
    LAUNCH(pending_put_kernel, DIM3(4, 1, 1), DIM3(2, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    nvshmem_barrier_all();
    for (int b = 0; b < 4; b++)
        PE_CHECK_EQ_I64(dst[b], (me + n - 1) % n);
    nvshmem_finalize();
    return 0;
}

static int pending_child(void *arg)
{
    (void)arg;
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    setenv("SHMEMU_HANG_TIMEOUT", "0", 1);
    static const char *const strategies[] = {"random", "pct", "rr"};
    for (int k = 0; k < 3; k++)
        for (int seed = 1; seed <= 4; seed++) {
            char s[16];
            snprintf(s, sizeof s, "%d", seed);
            setenv("SHMEMU_SCHED", strategies[k], 1);
            setenv("SHMEMU_SEED", s, 1);
            int rc = shmemu_launch(3, pending_body, NULL);
            if (rc != 0 || pe_check_failures() != 0) {
                fprintf(stderr, "%s seed %d: launch %d, %d failed checks\n", strategies[k],
                        seed, rc, pe_check_failures());
                return 1;
            }
        }
    return 0;
}

static void test_block_exit_with_pending_puts(void **state)
{
    (void)state;
    char out[8192];
    double secs = 0;
    int status = run_child(pending_child, NULL, child_time_limit(), out, sizeof out, &secs);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        print_error("%s", out);
        fail_msg("blocks leaving with pending puts: status 0x%x after %.1f s", status, secs);
    }
}

/* ---- waits that give the turn away with queued puts ---------------------------------------- */

/* A ring of put-with-signal (tests/cuda_corpus/ring_allreduce.cu): each PE queues a
 * non-blocking put-with-signal to the next PE and waits for the previous one's, with no
 * quiet in between. In checking mode the put stays queued on the issuing thread; the wait
 * must deliver it before it gives up (parks, or, under the scheduler, blocks): nobody else
 * ever will. Once on the PE's host thread, once in a kernel whose thread 1 issues the put
 * and then waits at __syncthreads while thread 0 (same block thread, other fiber) waits for
 * the signal: the block's wait must deliver its other fibers' puts too. */
enum { NBI_RING_WORDS = 8 };

typedef struct nbi_ring_args {
    uint64_t *data;
    uint64_t *sig;
    uint64_t *src;
} nbi_ring_args;

KERNEL(nbi_ring_kernel, nbi_ring_args, a)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    if (threadIdx.x == 1)
        nvshmem_uint64_put_signal_nbi(a.data, a.src, NBI_RING_WORDS, &a.sig[1], 1,
                                      NVSHMEM_SIGNAL_SET, (me + 1) % n);
    if (threadIdx.x == 0)
        nvshmem_signal_wait_until(&a.sig[1], NVSHMEM_CMP_EQ, 1);
    __syncthreads();
    if (threadIdx.x == 1)
        nvshmem_quiet();
}

static int nbi_ring_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), prev = (me + n - 1) % n;
    uint64_t *data = nvshmem_calloc(2 * NBI_RING_WORDS, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(2, sizeof(uint64_t));
    uint64_t *src = nvshmem_calloc(2 * NBI_RING_WORDS, sizeof(uint64_t));
    for (int i = 0; i < 2 * NBI_RING_WORDS; i++)
        src[i] = (uint64_t)me * 100 + (uint64_t)i;
    nvshmem_barrier_all();
    /* host thread: put-with-signal, then wait, then quiet (the corpus's ring step) */
    nvshmem_uint64_put_signal_nbi(&data[NBI_RING_WORDS], &src[NBI_RING_WORDS], NBI_RING_WORDS,
                                  &sig[0], 1, NVSHMEM_SIGNAL_SET, (me + 1) % n);
    nvshmem_signal_wait_until(&sig[0], NVSHMEM_CMP_EQ, 1);
    nvshmem_quiet();
    /* a kernel: the issuing fiber waits at __syncthreads, another fiber for the signal */
    nbi_ring_args a = {data, sig, src};
    LAUNCH(nbi_ring_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    nvshmem_barrier_all();
    for (int i = 0; i < 2 * NBI_RING_WORDS; i++)
        PE_CHECK_EQ_I64(data[i], prev * 100 + i);
    nvshmem_free(src);
    nvshmem_free(sig);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}

static int nbi_ring_child(void *arg)
{
    (void)arg;
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    /* free-running (last): a hang is reported, not waited out */
    setenv("SHMEMU_HANG_TIMEOUT", pe_check_under_valgrind() ? "60" : "5", 1);
    static const char *const strategies[] = {"random", "pct", "rr", NULL};
    for (int k = 0; k < 4; k++)
        for (int seed = 1; seed <= 3; seed++) {
            if (strategies[k] != NULL)
                set_sched(strategies[k], seed);
            else
                clear_sched();
            for (int n = 2; n <= 3; n++) {
                int rc = shmemu_launch(n, nbi_ring_body, NULL);
                if (rc != 0 || pe_check_failures() != 0) {
                    fprintf(stderr, "%s seed %d, %d PEs: launch %d, %d failed checks\n",
                            strategies[k] != NULL ? strategies[k] : "free-running", seed, n,
                            rc, pe_check_failures());
                    return 1;
                }
            }
        }
    return 0;
}

static void test_wait_delivers_queued_puts(void **state)
{
    (void)state;
    char out[16384];
    double secs = 0;
    int status = run_child(nbi_ring_child, NULL, child_time_limit(), out, sizeof out, &secs);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        print_error("%s", out);
        fail_msg("a ring of queued put-with-signal: status 0x%x after %.1f s", status, secs);
    }
}

/* ---- explore ---------------------------------------------------------------------------- */

/* The explorer's test program: PE 1 reads a word right after a barrier, PE 0 sets it
 * after the barrier: an order bug whose outcome depends on the schedule (atomics, so no
 * checker reports a data race under ThreadSanitizer builds). Free-running, PE 0 waits
 * for the readers first, so the reference reads 0; under the scheduler it does not wait. */
static int racy_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *x = nvshmem_calloc(1, sizeof(int));
    int *readers = nvshmem_calloc(1, sizeof(int)); /* on PE 0: how many have read x */
    nvshmem_barrier_all();
    if (nvshmem_my_pe() == 0) {
        /* Free-running, wait until every reader has read (not a fixed sleep, which a busy
         * machine can outlast): the reference reads 0 on every machine. */
        if (!pgas_sched_enabled())
            nvshmem_int_wait_until(readers, NVSHMEM_CMP_EQ, nvshmem_n_pes() - 1);
        nvshmem_int_atomic_set(x, 1, 1);
    } else {
        printf("checksum %d\n", nvshmem_int_atomic_fetch(x, 1));
        nvshmem_int_atomic_inc(readers, 0);
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static int racy_child_main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *npes = getenv("SHMEMU_NPES"); /* 2 PEs unless SHMEMU_NPES says otherwise */
    return shmemu_launch(npes != NULL ? shmemu_npes_from_env() : 2, racy_body, NULL);
}

static void test_explore_finds_shrinks_and_replays(void **state)
{
    (void)state;
    char self[512], trace[256], cmd[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    temp_path(trace, sizeof trace, "explore.trace");
    /* 3 PEs, from the environment: the replay line must carry SHMEMU_NPES */
    snprintf(cmd, sizeof cmd, "SHMEMU_NPES=3 %s --trace %s 40 -- %s --racy-child 2>/dev/null",
             SCHED_EXPLORE_BIN, trace, self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char out[16384];
    size_t len = fread(out, 1, sizeof out - 1, p);
    out[len] = '\0';
    int status = pclose(p);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 1)) {
        print_error("%s", out);
        fail_msg("shmemu-explore ended with status 0x%x; expected 1 (a failing seed)", status);
    }
    assert_contains(out, "failed after");
    assert_contains(out, "checksum mismatch against the free-running reference");
    long before = -1, after = -1;
    const char *s = strstr(out, "explore: shrunk from ");
    assert_non_null(s);
    assert_int_equal(sscanf(s, "explore: shrunk from %ld to %ld", &before, &after), 2);
    assert_true(after <= before);
    assert_contains(out, "SHMEMU_REPLAY=");
    /* the printed replay command, run as printed (without this environment's SHMEMU_NPES),
     * reproduces the failing output on 3 PEs */
    const char *line = strstr(out, "replay with:\n  ");
    assert_non_null(line);
    line += strlen("replay with:\n  ");
    snprintf(cmd, sizeof cmd, "env -u SHMEMU_NPES %.*s 2>&1", (int)strcspn(line, "\n"), line);
    assert_non_null(strstr(cmd, " SHMEMU_NPES=3 "));
    p = popen(cmd, "r");
    assert_non_null(p);
    len = fread(out, 1, sizeof out - 1, p);
    out[len] = '\0';
    status = pclose(p);
    if (status != 0 || strstr(out, "checksum 1") == NULL || strstr(out, "note: the "
                                                                          "configuration") != NULL)
        fail_msg("the printed replay command\n  %s\nended with status 0x%x; expected 0, "
                 "\"checksum 1\" and the trace's configuration. Output:\n%s", cmd, status, out);
    unlink(trace);
}

/* A bad argument is a usage error (exit 2) that names it, and nothing runs: a seed the
 * scheduler refuses made every run exit 2, reported as a found failure with an empty trace. */
static void test_explore_rejects_bad_arguments(void **state)
{
    (void)state;
    static const struct { const char *args, *want; } bad[] = {
        {"--first-seed -5 3", "--first-seed \"-5\" is not a seed"},
        {"--first-seed 140737488355328 1", "--first-seed \"140737488355328\" is not a seed"},
        {"--first-seed 140737488355327 2", "goes past the largest seed"},
        {"--pct-depth 0 3", "--pct-depth \"0\": use a whole number from 1 to 17"},
        {"--timeout abc 3", "--timeout \"abc\": use seconds"},
        {"--timeout 0 3", "--timeout \"0\": use seconds"},
        {"--shrink-runs 5x 3", "--shrink-runs \"5x\""},
        {"3x", "N (the number of seeds) \"3x\" is not a whole number"},
        {"--strategy fifo 3", "--strategy \"fifo\": use random, pct or rr"},
        {"--result-pattern '(' 3", "is not an extended regular expression"},
        {"--result-file x --result-pattern y 3", "the result is already chosen"},
        {"--wat 3", "unknown option \"--wat\""},
        {"3 --trace", "--trace needs a value"},
    };
    char mark[256], cmd[2048], out[8192];
    temp_path(mark, sizeof mark, "explore-ran");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unlink(mark);
        snprintf(cmd, sizeof cmd, "%s %s -- touch %s", SCHED_EXPLORE_BIN, bad[i].args, mark);
        int rc = run_shell(cmd, out, sizeof out);
        const char *first = strstr(out, "shmemu-explore: ");
        if (rc != 2 || first != out || strstr(out, bad[i].want) == NULL ||
            strstr(out, "usage: ") == NULL || access(mark, F_OK) == 0)
            fail_msg("shmemu-explore %s: exit %d%s; expected exit 2 with \"%s\" first, then "
                     "the usage, and no run. Output:\n%s", bad[i].args, rc,
                     access(mark, F_OK) == 0 ? " and the program ran" : "", bad[i].want, out);
    }
    unlink(mark);
}

/* The explorer's chatty program: every PE prints a line before a barrier (in the order the
 * schedule gives), then PE 0 prints "total 6"; with a file argument PE 0 writes the total
 * there too. The result is the same under every schedule; the output's order is not. */
static const char *chatty_file;

static int chatty_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    int *total = nvshmem_calloc(1, sizeof(int));
    nvshmem_barrier_all();
    printf("PE %d says hello\n", me);
    nvshmem_int_atomic_add(total, me + 1, 0);
    nvshmem_barrier_all();
    if (me == 0) {
        int t = nvshmem_int_atomic_fetch(total, 0);
        printf("total %d\n", t);
        if (chatty_file != NULL) {
            FILE *f = fopen(chatty_file, "w");
            PE_CHECK(f != NULL);
            fprintf(f, "total %d\n", t);
            fclose(f);
        }
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static int chatty_child_main(const char *file)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    chatty_file = file;
    return shmemu_launch(3, chatty_body, NULL);
}

/* Lines printed in a schedule-dependent order are not a failure: only the declared result
 * is compared, and the explorer says what it compared. */
static void test_explore_compares_the_declared_result(void **state)
{
    (void)state;
    char self[512], cmd[2048], file[256], trace[256];
    static char out[16384];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    temp_path(file, sizeof file, "explore-result");
    temp_path(trace, sizeof trace, "explore-chatty.trace");
    /* no checksum line: nothing of standard output is compared (it was all of it) */
    snprintf(cmd, sizeof cmd, "%s --trace %s 20 -- %s --chatty-child", SCHED_EXPLORE_BIN,
             trace, self);
    int rc = run_shell(cmd, out, sizeof out);
    if (rc != 0 || strstr(out, "no output is compared") == NULL ||
        strstr(out, "20 seed(s) of random passed") == NULL)
        fail_msg("default result: exit %d; expected 0. Output:\n%s", rc, out);
    /* a pattern */
    snprintf(cmd, sizeof cmd, "%s --trace %s --result-pattern '^total [0-9]+$' 20 -- %s "
             "--chatty-child", SCHED_EXPLORE_BIN, trace, self);
    rc = run_shell(cmd, out, sizeof out);
    if (rc != 0 || strstr(out, "comparing the last standard-output line matching "
                               "--result-pattern '^total [0-9]+$' with the reference's: "
                               "\"total 6\"") == NULL)
        fail_msg("--result-pattern: exit %d; expected 0. Output:\n%s", rc, out);
    /* a file */
    snprintf(cmd, sizeof cmd, "%s --trace %s --result-file %s 20 -- %s --chatty-child %s",
             SCHED_EXPLORE_BIN, trace, file, self, file);
    rc = run_shell(cmd, out, sizeof out);
    if (rc != 0 || strstr(out, "comparing the bytes of --result-file") == NULL ||
        strstr(out, ": 8 bytes") == NULL)
        fail_msg("--result-file: exit %d; expected 0. Output:\n%s", rc, out);
    /* a result that differs is still found, and named */
    snprintf(cmd, sizeof cmd, "%s --trace %s --no-shrink --result-pattern 'checksum' 40 -- %s "
             "--racy-child", SCHED_EXPLORE_BIN, trace, self);
    rc = run_shell(cmd, out, sizeof out);
    if (rc != 1 || strstr(out, "result mismatch against the free-running reference (compared "
                               "the last standard-output line matching --result-pattern "
                               "'checksum': \"checksum 1\"; the reference: \"checksum 0\")") == NULL)
        fail_msg("a differing result: exit %d; expected 1. Output:\n%s", rc, out);
    unlink(file);
    unlink(trace);
}

/* The printed replay command, run as printed, reproduces the deadlock: the same report
 * (same decision, same PEs). The command used to omit SHMEMU_NPES (and PCT's depth), so a
 * program taking its PE count from SHMEMU_NPES replayed 1 PE. */
static int cycle_child_main(void)
{
    return shmemu_launch(shmemu_npes_from_env(), cycle_body, NULL);
}

static void test_replay_command_reproduces_the_deadlock(void **state)
{
    (void)state;
    char self[512], trace[256], cmd[4096];
    static char out[32768], again[32768];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    temp_path(trace, sizeof trace, "deadlock replay.trace"); /* a space: the line quotes it */
    static const char *const settings[] = {
        "SHMEMU_SCHED=random SHMEMU_SEED=2", "SHMEMU_SCHED=pct SHMEMU_SEED=5 SHMEMU_PCT_DEPTH=5",
        "SHMEMU_SCHED=rr SHMEMU_TRACE_OUT='%s'"};
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        char env[600];
        snprintf(env, sizeof env, settings[i], trace);
        snprintf(cmd, sizeof cmd, "env -u SHMEMU_NPES %s SHMEMU_NPES=3 SHMEMU_HANG_TIMEOUT=0 "
                 "%s --cycle-child", env, self);
        int rc = run_shell(cmd, out, sizeof out);
        const char *line = strstr(out, "shmemu: replay: ");
        if (rc != 3 || line == NULL)
            fail_msg("%s: exit %d; expected 3 with a replay line. Output:\n%s", env, rc, out);
        line += strlen("shmemu: replay: ");
        char replay[2048];
        snprintf(replay, sizeof replay, "env -u SHMEMU_NPES %.*s", (int)strcspn(line, "\n"),
                 line);
        assert_non_null(strstr(replay, " SHMEMU_NPES=3 "));
        /* as printed (env -u: not with this process's SHMEMU_NPES) */
        rc = run_shell(replay, again, sizeof again);
        const char *first = strstr(out, "shmemu: deadlock ("), *second =
            strstr(again, "shmemu: deadlock (");
        if (rc != 3 || first == NULL || second == NULL ||
            strncmp(first, second, strcspn(first, "\n") + 1) != 0 ||
            strstr(again, "PE 2 (host) waits in nvshmem_signal_wait_until") == NULL)
            fail_msg("%s: the printed replay command\n  %s\nended with %d; expected the same "
                     "deadlock of 3 PEs. First run:\n%s\nReplay:\n%s", env, replay, rc, out,
                     again);
    }
    unlink(trace);
}

/* An unwritable SHMEMU_TRACE_OUT is an error before the job runs (it exited 0, traceless). */
static void test_unwritable_trace_out_is_an_error(void **state)
{
    (void)state;
    char self[512], cmd[2048], out[8192];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    static const struct { const char *path, *want; } bad[] = {
        {"/nonexistent-shmemu-dir/t.trace", "No such file or directory"},
        {"/tmp", "it is a directory"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "SHMEMU_SCHED=random SHMEMU_TRACE_OUT=%s %s --racy-child",
                 bad[i].path, self);
        int rc = run_shell(cmd, out, sizeof out);
        char want[512];
        snprintf(want, sizeof want, "shmemu: SHMEMU_TRACE_OUT=%s cannot be written: %s",
                 bad[i].path, bad[i].want);
        if (rc != 2 || strstr(out, want) == NULL || strstr(out, "checksum") != NULL)
            fail_msg("%s: exit %d; expected 2 with \"%s\", before the job ran. Output:\n%s",
                     bad[i].path, rc, want, out);
    }
}

/* The trace's config hash sees the emulator's settings as parsed: spellings of one value
 * (off, no, 0) hash alike, so a trace recorded with one replays with another; a different
 * value hashes differently. */
static void config_line(const char *self, const char *hazards, char *out, size_t len)
{
    char trace[256], cmd[2048], buf[8192];
    temp_path(trace, sizeof trace, "config.trace");
    snprintf(cmd, sizeof cmd, "SHMEMU_SCHED=random SHMEMU_EMU_HAZARDS=%s SHMEMU_TRACE_OUT=%s "
             "%s --racy-child", hazards, trace, self);
    int rc = run_shell(cmd, buf, sizeof buf);
    if (rc != 0)
        fail_msg("recording with SHMEMU_EMU_HAZARDS=%s: exit %d:\n%s", hazards, rc, buf);
    size_t n;
    const char *text = read_file(trace, &n);
    const char *c = strstr(text, "\nconfig: ");
    assert_non_null(c);
    snprintf(out, len, "%.*s", (int)strcspn(c + 1, "\n"), c + 1);
    unlink(trace);
}

static void test_config_hash_reads_parsed_settings(void **state)
{
    (void)state;
    char self[512], off[64], zero[64], no[64], on[64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    config_line(self, "off", off, sizeof off);
    config_line(self, "0", zero, sizeof zero);
    config_line(self, "No", no, sizeof no);
    config_line(self, "on", on, sizeof on);
    assert_string_equal(off, zero);
    assert_string_equal(off, no);
    if (strcmp(off, on) == 0)
        fail_msg("hazard checks off and on give the same config hash: %s", on);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--racy-child") == 0)
        return racy_child_main();
    if (argc > 1 && strcmp(argv[1], "--cycle-child") == 0)
        return cycle_child_main();
    if (argc > 1 && strcmp(argv[1], "--chatty-child") == 0)
        return chatty_child_main(argc > 2 ? argv[2] : NULL);
    clear_sched();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strategies_give_free_results),
        cmocka_unit_test(test_seed_determines_schedule),
        cmocka_unit_test(test_record_and_replay),
        cmocka_unit_test(test_config_hash_reads_parsed_settings),
        cmocka_unit_test(test_replay_reports_divergence),
        cmocka_unit_test(test_damaged_trace_is_refused),
        cmocka_unit_test(test_deadlock_cycle_is_reported),
        cmocka_unit_test(test_free_running_hang_gives_the_same_report),
        cmocka_unit_test(test_unsent_signal_is_reported),
        cmocka_unit_test(test_kernel_deadlock_names_block_and_thread),
        cmocka_unit_test(test_kernel_wait_names_its_line_among_busy_threads),
        cmocka_unit_test(test_block_call_and_grid_sync_name_the_program_line),
        cmocka_unit_test(test_polling_loop_progresses),
        cmocka_unit_test(test_endless_poll_is_a_livelock),
        cmocka_unit_test(test_block_exit_with_pending_puts),
        cmocka_unit_test(test_wait_delivers_queued_puts),
        cmocka_unit_test(test_explore_finds_shrinks_and_replays),
        cmocka_unit_test(test_explore_rejects_bad_arguments),
        cmocka_unit_test(test_explore_compares_the_declared_result),
        cmocka_unit_test(test_replay_command_reproduces_the_deadlock),
        cmocka_unit_test(test_unwritable_trace_out_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
