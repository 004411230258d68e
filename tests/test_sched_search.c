/*
 * test_sched_search.c: the systematic search of the deterministic scheduler (docs/sched.md,
 * "Modes" and "Explore"): delay bounding (SHMEMU_SCHED=delay, SHMEMU_DELAYS) and
 * bin/shmemu-explore --strategy delay --bound K, and the explorer's coverage line.
 *   - SHMEMU_DELAYS is validated (exit 2, the variable named); a delay set fixes the schedule;
 *     the trace names the set and replays; the replay command prints it;
 *   - a bug that needs two specific preemptions (two PEs each preempted inside a window of
 *     one sync point) is found at bound 2 deterministically, bound 1 exhausts its space
 *     without finding it, and the saved trace replays the failure;
 *   - --coverage-guided orders the same space (productive first delays first), finds the
 *     bug in fewer runs here, the same whatever --jobs is;
 *   - every strategy's final lines report the distinct schedules and switch pairs seen;
 *   - the explorer refuses a bad --bound, or one without --strategy delay, before running.
 * The suite's binary doubles as the explorer's test program: `test_sched_search
 * --windows-child`.
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
#include "shmemu/internal/pgas_emu.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"
#include "support/run_shell.h"

/* ---- the program: two windows ------------------------------------------------------------
 * Three PEs. PE 2 and PE 0 each hold a flag of their own (on PE 1) at 1 for one sync point:
 * set it to 1, then back to 0 (a "window"). PE 1 reads both flags once and declares
 * "checksum 1" when it saw both open, else "checksum 0". Between the allocation's barrier
 * and the last barrier nothing else orders the PEs, so the failure needs PE 2 to be
 * preempted inside its window and PE 0 inside its own before PE 1 reads: two preemptions
 * (the scheduler's base choice keeps the running PE, so one delay closes at most one window
 * late). Atomics throughout: no checker reports a data race. Free-running, PE 1 waits until
 * both windows closed, so the reference declares "checksum 0" on every machine. */
#define WINDOW_NOISE 4 /* sync points after each window, so the runs are not all alike */

static int windows_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    /* on PE 1: [0] PE 2's window, [1] PE 0's window, [2] windows closed so far; [3] noise
     * (one allocation: each is a barrier, and the search's order counts choice points) */
    int *words = nvshmem_calloc(4, sizeof(int));
    int *flags = words, *closed = &words[2], *noise = &words[3];
    if (me == 2 || me == 0) {
        int *flag = &flags[me == 2 ? 0 : 1];
        nvshmem_int_atomic_set(flag, 1, 1);
        nvshmem_int_atomic_set(flag, 0, 1);
        nvshmem_int_atomic_inc(closed, 1);
    } else if (me == 1) {
        if (!pgas_sched_enabled())
            nvshmem_int_wait_until(closed, NVSHMEM_CMP_EQ, 2);
        int a = nvshmem_int_atomic_fetch(&flags[0], 1);
        int b = nvshmem_int_atomic_fetch(&flags[1], 1);
        printf("checksum %d\n", a & b);
    }
    for (int i = 0; i < WINDOW_NOISE; i++)
        nvshmem_int_atomic_inc(noise, me);
    nvshmem_barrier_all();
    nvshmem_free(words);
    nvshmem_finalize();
    return 0;
}

static int windows_child_main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    return shmemu_launch(3, windows_body, NULL);
}

/* A deadlock (every PE waits for a word nobody writes), for the printed replay command. */
static int stuck_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *never = nvshmem_calloc(1, sizeof(int));
    nvshmem_int_atomic_inc(&never[0], (nvshmem_my_pe() + 1) % nvshmem_n_pes());
    nvshmem_int_wait_until(never, NVSHMEM_CMP_EQ, 5);
    nvshmem_finalize();
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static void temp_path(char *out, size_t len, const char *what)
{
    snprintf(out, len, "/tmp/shmemu-test-search-%d-%s", (int)getpid(), what);
}

static void self_path(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    assert_true(n > 0);
    out[n] = '\0';
}

/* ---- SHMEMU_DELAYS ------------------------------------------------------------------------ */

/* A malformed SHMEMU_DELAYS, or one without SHMEMU_SCHED=delay, is refused before the job
 * runs: exit 2, the variable and what is wrong named. */
static void test_delays_are_validated(void **state)
{
    (void)state;
    static const struct { const char *env, *want; } bad[] = {
        {"SHMEMU_SCHED=delay SHMEMU_DELAYS=3,1", "item 2 (1) does not follow 3"},
        {"SHMEMU_SCHED=delay SHMEMU_DELAYS=4,4", "item 2 (4) does not follow 4"},
        {"SHMEMU_SCHED=delay SHMEMU_DELAYS=x", "item 1 (\"x\") is not a choice point index"},
        {"SHMEMU_SCHED=delay SHMEMU_DELAYS=1,,2", "item 2 (\"\") is not a choice point index"},
        {"SHMEMU_SCHED=delay SHMEMU_DELAYS=-1", "item 1 (\"-1\")"},
        {"SHMEMU_SCHED=delay SHMEMU_DELAYS=1000000000001", "from 0 to 1000000000000"},
        {"SHMEMU_SCHED=random SHMEMU_DELAYS=5", "SHMEMU_SCHED is random, not delay"},
        {"SHMEMU_DELAYS=5", "SHMEMU_SCHED is free, not delay"},
        {"SHMEMU_SCHED=fifo", "SHMEMU_SCHED"},
    };
    char self[512], cmd[2048], out[8192];
    self_path(self, sizeof self);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "env %s %s --windows-child", bad[i].env, self);
        int rc = run_shell(cmd, out, sizeof out);
        if (rc != 2 || strstr(out, bad[i].want) == NULL || strstr(out, "checksum") != NULL)
            fail_msg("%s: exit %d; expected exit 2 before the job ran, with \"%s\". Output:\n%s",
                     bad[i].env, rc, bad[i].want, out);
    }
    /* 65 delays: one more than a run may have */
    char many[1024] = "";
    for (int i = 0; i <= 64; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d", i ? "," : "", i);
    snprintf(cmd, sizeof cmd, "env SHMEMU_SCHED=delay SHMEMU_DELAYS=%s %s --windows-child", many,
             self);
    int rc = run_shell(cmd, out, sizeof out);
    if (rc != 2 || strstr(out, "more than 64 delays") == NULL)
        fail_msg("65 delays: exit %d; expected 2 and \"more than 64 delays\". Output:\n%s", rc,
                 out);
}

/* --bound is checked before anything runs: its range, and that it goes with --strategy
 * delay. */
static void test_explore_refuses_bad_bounds(void **state)
{
    (void)state;
    static const struct { const char *args, *want; } bad[] = {
        {"--strategy delay --bound 65 3", "--bound \"65\": use a whole number from 0 to 64"},
        {"--strategy delay --bound -1 3", "--bound \"-1\": use a whole number from 0 to 64"},
        {"--strategy delay --bound 2x 3", "--bound \"2x\""},
        {"--bound 2 3", "--bound 2 is the delay strategy's: add --strategy delay"},
        {"--strategy pct --bound 1 3", "(the pct strategy runs seeds)"},
        {"--strategy delays 3", "--strategy \"delays\": use random, pct or rr (seeds), or delay"},
        {"--coverage-guided 3", "--coverage-guided orders the delay strategy's sets: add "
                                "--strategy delay"},
    };
    char mark[256], cmd[2048], out[8192];
    temp_path(mark, sizeof mark, "explore-ran");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unlink(mark);
        snprintf(cmd, sizeof cmd, "%s %s -- touch %s", SCHED_EXPLORE_BIN, bad[i].args, mark);
        int rc = run_shell(cmd, out, sizeof out);
        if (rc != 2 || strstr(out, bad[i].want) == NULL || access(mark, F_OK) == 0)
            fail_msg("shmemu-explore %s: exit %d%s; expected exit 2 with \"%s\" and no run. "
                     "Output:\n%s", bad[i].args, rc,
                     access(mark, F_OK) == 0 ? " and the program ran" : "", bad[i].want, out);
    }
    unlink(mark);
}

/* The delay set that the explorer's output names ("delay set 17,18 (delay) failed after 220
 * run(s)") into set, and the run count; fails the test when there is none. */
static void failing_set(const char *out, char *set, size_t len, long *runs)
{
    const char *at = strstr(out, "explore: delay set ");
    if (at == NULL)
        fail_msg("no \"explore: delay set\" line in:\n%s", out);
    at += strlen("explore: delay set ");
    size_t n = strspn(at, "0123456789,");
    assert_true(n > 0 && n < len);
    memcpy(set, at, n);
    set[n] = '\0';
    assert_int_equal(sscanf(at + n, " (delay) failed after %ld run(s)", runs), 1);
}

/* The line of text that starts with key, from after key to its end, into out. */
static void line_after(const char *text, const char *key, char *out, size_t len)
{
    const char *at = strstr(text, key);
    if (at == NULL)
        fail_msg("no \"%s\" in:\n%s", key, text);
    at += strlen(key);
    size_t n = strcspn(at, "\n");
    assert_true(n < len);
    memcpy(out, at, n);
    out[n] = '\0';
}

/* Bound 1 cannot close both windows late: its whole space (the base schedule and one delay
 * at each of its D choice points) runs and passes, every set a schedule of its own. With N
 * below the space's size, the explorer says how much was not run. */
static void test_bound_1_exhausts_its_space(void **state)
{
    (void)state;
    char self[512], cmd[2048];
    static char out[65536];
    self_path(self, sizeof self);
    snprintf(cmd, sizeof cmd, "%s --strategy delay --bound 1 --jobs 1 100000 -- %s "
             "--windows-child", SCHED_EXPLORE_BIN, self);
    int rc = run_shell(cmd, out, sizeof out);
    if (rc != 0)
        fail_msg("exit %d; expected 0 (bound 1 cannot find the bug). Output:\n%s", rc, out);
    unsigned long long total = 0, d = 0;
    const char *at = strstr(out, "explore: all 1+D = ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "explore: all 1+D = %llu schedule(s) of at most 1 delay(s) over D "
                            "= %llu choice point(s) ran and passed", &total, &d), 2);
    assert_true(d >= 10); /* the windows lie past the start's choice points */
    assert_int_equal(total, d + 1);
    assert_contains(out, "the bound's space is exhausted");
    /* each delay set is a schedule of its own: a delay always changes its decision */
    char want[128];
    snprintf(want, sizeof want, "explore: coverage: %llu distinct schedule(s) (interleavings of "
             "sync points) in %llu run(s), ", total, total);
    assert_contains(out, want);
    /* N smaller than the space */
    snprintf(cmd, sizeof cmd, "%s --strategy delay --bound 1 --jobs 1 5 -- %s --windows-child",
             SCHED_EXPLORE_BIN, self);
    rc = run_shell(cmd, out, sizeof out);
    assert_int_equal(rc, 0);
    snprintf(want, sizeof want, "explore: 5 delay set(s) passed in ");
    assert_contains(out, want);
    snprintf(want, sizeof want, "%llu not run (N is 5)", total - 5);
    assert_contains(out, want);
    /* bound 0: the base schedule alone */
    snprintf(cmd, sizeof cmd, "%s --strategy delay --bound 0 --jobs 1 9 -- %s --windows-child",
             SCHED_EXPLORE_BIN, self);
    rc = run_shell(cmd, out, sizeof out);
    assert_int_equal(rc, 0);
    assert_contains(out, "explore: all 1 = 1 schedule(s) of at most 0 delay(s) over D = ");
    assert_contains(out, "explore: coverage: 1 distinct schedule(s) (interleavings of sync "
                         "points) in 1 run(s)");
}

/* Bound 2 finds the bug, at the same delay set and after the same runs whatever --jobs is;
 * the set, given to SHMEMU_DELAYS, is the failing schedule (the same hash twice, named in
 * the trace); the saved trace replays the failure as printed. */
static void test_bound_2_finds_the_two_preemption_bug(void **state)
{
    (void)state;
    char self[512], trace[256], cmd[4096], set[256], set2[256];
    static char out[65536];
    self_path(self, sizeof self);
    temp_path(trace, sizeof trace, "found.trace");
    long runs = 0, runs2 = 0;
    for (int jobs = 1; jobs <= 2; jobs++) {
        snprintf(cmd, sizeof cmd, "env -u SHMEMU_DELAYS %s --strategy delay --bound 2 --jobs %d "
                 "--trace %s 100000 -- %s --windows-child", SCHED_EXPLORE_BIN, jobs, trace, self);
        int rc = run_shell(cmd, out, sizeof out);
        if (rc != 1)
            fail_msg("--jobs %d: exit %d; expected 1 (the bug found). Output:\n%s", jobs, rc,
                     out);
        assert_contains(out, "checksum mismatch against the free-running reference");
        assert_contains(out, "\"checksum 1\"; the reference: \"checksum 0\"");
        failing_set(out, jobs == 1 ? set : set2, sizeof set, jobs == 1 ? &runs : &runs2);
    }
    assert_string_equal(set, set2);
    assert_int_equal(runs, runs2);
    assert_non_null(strchr(set, ',')); /* two delays */
    assert_contains(out, "explore: coverage: ");
    /* the printed replay command, run as printed */
    char line[2048];
    line_after(out, "replay with:\n  ", line, sizeof line);
    snprintf(cmd, sizeof cmd, "%s", line);
    int rc = run_shell(cmd, out, sizeof out);
    if (rc != 0 || strstr(out, "checksum 1") == NULL)
        fail_msg("the replay command\n  %s\nexit %d; expected 0 and \"checksum 1\". Output:\n%s",
                 line, rc, out);
    /* the delay set alone is the failing schedule */
    char hash[2][64];
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "env SHMEMU_SCHED=delay SHMEMU_DELAYS=%s SHMEMU_TRACE_OUT=%s %s "
                 "--windows-child", set, trace, self);
        rc = run_shell(cmd, out, sizeof out);
        if (rc != 0 || strstr(out, "checksum 1") == NULL)
            fail_msg("SHMEMU_DELAYS=%s: exit %d; expected 0 and \"checksum 1\". Output:\n%s", set,
                     rc, out);
        FILE *f = fopen(trace, "rb");
        assert_non_null(f);
        static char head[8192];
        size_t n = fread(head, 1, sizeof head - 1, f);
        fclose(f);
        head[n] = '\0';
        char want[300];
        snprintf(want, sizeof want, "\nstrategy: delay\n");
        assert_contains(head, want);
        snprintf(want, sizeof want, "\ndelays: %s\n", set);
        assert_contains(head, want);
        line_after(head, "\nhash: ", hash[i], sizeof hash[i]);
    }
    assert_string_equal(hash[0], hash[1]);
    unlink(trace);
}

/* --coverage-guided runs first the sets of two delays whose first delay alone reached a
 * switch pair the base schedule did not: the same space (bound 1 exhausts 1 + D sets), a
 * fixed order whatever --jobs is, and on this program the bug sooner (its first delay opens
 * PE 2's window late, which the base run never does). */
static void test_coverage_guided_order(void **state)
{
    (void)state;
    char self[512], cmd[2048], set[3][256], trace[256];
    static char out[65536];
    self_path(self, sizeof self);
    temp_path(trace, sizeof trace, "guided.trace");
    long runs[3];
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "%s --strategy delay --bound 2 %s --jobs %d --no-shrink "
                 "--trace %s 100000 -- %s --windows-child", SCHED_EXPLORE_BIN,
                 i == 0 ? "" : "--coverage-guided", i == 2 ? 2 : 1, trace, self);
        int rc = run_shell(cmd, out, sizeof out);
        if (rc != 1)
            fail_msg("%s: exit %d; expected 1. Output:\n%s", cmd, rc, out);
        failing_set(out, set[i], sizeof set[i], &runs[i]);
    }
    assert_string_equal(set[1], set[2]);
    assert_int_equal(runs[1], runs[2]);
    if (runs[1] >= runs[0])
        fail_msg("guided: %ld runs (set %s); plain: %ld runs (set %s): expected fewer guided",
                 runs[1], set[1], runs[0], set[0]);
    snprintf(cmd, sizeof cmd, "%s --strategy delay --bound 1 --coverage-guided --jobs 2 100000 "
             "-- %s --windows-child", SCHED_EXPLORE_BIN, self);
    int rc = run_shell(cmd, out, sizeof out);
    assert_int_equal(rc, 0);
    assert_contains(out, "the bound's space is exhausted");
    unlink(trace);
}

/* A deadlock under the delay strategy prints a replay command with the set; run as
 * printed, it gives the same deadlock at the same decision. */
static void test_replay_command_names_the_delays(void **state)
{
    (void)state;
    char self[512], cmd[4096], line[2048], first[256], again[256];
    static char out[65536];
    self_path(self, sizeof self);
    snprintf(cmd, sizeof cmd, "env SHMEMU_SCHED=delay SHMEMU_DELAYS=0,2 SHMEMU_HANG_TIMEOUT=0 "
             "SHMEMU_NPES=3 %s --stuck-child", self);
    int rc = run_shell(cmd, out, sizeof out);
    assert_int_equal(rc, 3);
    line_after(out, "shmemu: deadlock (", first, sizeof first);
    line_after(out, "shmemu: replay: ", line, sizeof line);
    assert_non_null(strstr(line, "SHMEMU_SCHED=delay "));
    assert_non_null(strstr(line, " SHMEMU_DELAYS=0,2 "));
    snprintf(cmd, sizeof cmd, "env -u SHMEMU_DELAYS -u SHMEMU_SCHED %s", line);
    rc = run_shell(cmd, out, sizeof out);
    assert_int_equal(rc, 3);
    line_after(out, "shmemu: deadlock (", again, sizeof again);
    assert_string_equal(first, again);
}

/* Every strategy ends with the coverage line: rr's runs are one schedule whatever the seed. */
static void test_coverage_is_reported_for_seeds(void **state)
{
    (void)state;
    char self[512], cmd[2048];
    static char out[65536];
    self_path(self, sizeof self);
    snprintf(cmd, sizeof cmd, "%s --strategy rr --jobs 1 3 -- %s --windows-child",
             SCHED_EXPLORE_BIN, self);
    int rc = run_shell(cmd, out, sizeof out);
    if (rc != 0)
        fail_msg("exit %d; expected 0. Output:\n%s", rc, out);
    long pairs = 0;
    const char *at = strstr(out, "explore: coverage: 1 distinct schedule(s) (interleavings of "
                                 "sync points) in 3 run(s), ");
    if (at == NULL)
        fail_msg("no coverage line of 1 schedule in 3 runs:\n%s", out);
    at = strstr(at, "run(s), ");
    assert_int_equal(sscanf(at, "run(s), %ld distinct switch pair(s)", &pairs), 1);
    assert_true(pairs >= 3); /* three PEs hand the turn around */
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--windows-child") == 0)
        return windows_child_main();
    if (argc > 1 && strcmp(argv[1], "--stuck-child") == 0)
        return shmemu_launch(shmemu_npes_from_env(), stuck_body, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delays_are_validated),
        cmocka_unit_test(test_explore_refuses_bad_bounds),
        cmocka_unit_test(test_bound_1_exhausts_its_space),
        cmocka_unit_test(test_bound_2_finds_the_two_preemption_bug),
        cmocka_unit_test(test_coverage_guided_order),
        cmocka_unit_test(test_replay_command_names_the_delays),
        cmocka_unit_test(test_coverage_is_reported_for_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
