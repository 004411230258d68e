/*
 * test_weak_md.c: the weak-memory mode (SHMEMU_MEMORY=weak, docs/sched.md "Weak memory") on
 * whole programs, through bin/shmemu-md and bin/shmemu-explore:
 *   - sound: the correct MD app in weak mode gives the free-running checksum (fused halo,
 *     direct and signal transports, pulse halo, direct26; random and pct seeds);
 *   - effective: planted memory-order bugs that plain exploration misses (a relaxed poll
 *     where acquire was needed; a relaxed signal store where a release was needed) are found
 *     by value with --memory weak within 10 seeds, and not without it;
 *   - the report names the store seen late (the writer, the call, the source line) and the
 *     explorer's replay command reproduces the wrong checksum exactly, twice;
 *   - a read of an old value (a relaxed poll, then the data) is reported with the reader,
 *     the load's line, the value it read and the published one with its writer's line, the
 *     same on a replay; SHMEMU_WEAK_READS=0 turns the watch off and leaves the run as it was;
 *     the correct app's weak runs report nothing;
 *   - bad settings are refused before anything runs (exit 2, the variable named): an unknown
 *     SHMEMU_MEMORY or SHMEMU_WEAK_KERNEL_END, weak without the scheduler, weak on the process
 *     backend; a weak trace replayed without the weak mode is refused.
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

#include "support/run_shell.h"

#define MD SCHED_MD_BIN
#define EXPLORE SCHED_EXPLORE_BIN
#define OUT_MAX 65536

/* The last "checksum <hex>" line of out, copied to sum ("" when none). */
static void last_checksum(const char *out, char *sum, size_t len)
{
    sum[0] = '\0';
    for (const char *p = out; (p = strstr(p, "\nchecksum ")) != NULL; p++)
        sscanf(p + 1, "checksum %63s", sum);
    (void)len;
}

static char *out_buf(void)
{
    char *b = malloc(OUT_MAX);
    assert_non_null(b);
    return b;
}

static void test_correct_app_keeps_its_checksum(void **state)
{
    (void)state;
    static const char *const configs[] = {
        "--cells 4 --pes 4 --dd 2x2x1 --halo fused --transport direct",
        "--cells 4 --pes 4 --dd 2x2x1 --halo fused --transport signal",
        "--cells 4 --pes 3 --dd 3x1x1 --halo pulse --transport signal",
        "--cells 6,4,4 --pes 3 --dd 3x1x1 --halo direct26 --transport direct",
    };
    char *out = out_buf();
    for (size_t c = 0; c < sizeof configs / sizeof *configs; c++) {
        char cmd[1024], ref[64], got[64];
        snprintf(cmd, sizeof cmd, "%s %s --steps 3 --thermo 0", MD, configs[c]);
        assert_int_equal(run_shell(cmd, out, OUT_MAX), 0);
        last_checksum(out, ref, sizeof ref);
        assert_true(ref[0] != '\0');
        for (int seed = 1; seed <= 2; seed++) {
            const char *strategy = seed == 1 ? "random" : "pct";
            snprintf(cmd, sizeof cmd,
                     "SHMEMU_SCHED=%s SHMEMU_SEED=%d SHMEMU_MEMORY=weak %s %s --steps 3 "
                     "--thermo 0", strategy, seed, MD, configs[c]);
            assert_int_equal(run_shell(cmd, out, OUT_MAX), 0);
            last_checksum(out, got, sizeof got);
            if (strcmp(got, ref) != 0)
                fail_msg("%s: weak mode gave %s, free-running %s", cmd, got, ref);
            if (strstr(out, "shmemu: weak memory:") != NULL)
                fail_msg("%s: the correct app got a weak-memory report:\n%s", cmd, out);
        }
    }
    free(out);
}

/* Explores `bug` with and without --memory weak: found by value only with it. */
static void found_only_when_weak(const char *bug, const char *strategy, const char *config)
{
    char *out = out_buf();
    char cmd[2048];
    for (int weak = 0; weak <= 1; weak++) {
        snprintf(cmd, sizeof cmd,
                 "SHMEMU_BUG=%s %s --strategy %s %s --no-shrink --jobs 1 --ref-unset SHMEMU_BUG "
                 "--trace /tmp/shmemu-test-weak-%d.trace 10 -- %s %s --steps 3 --thermo 0",
                 bug, EXPLORE, strategy, weak ? "--memory weak" : "", (int)getpid(), MD, config);
        int rc = run_shell(cmd, out, OUT_MAX);
        if (weak) {
            if (rc != 1 || strstr(out, "checksum mismatch") == NULL)
                fail_msg("%s: not found by value with --memory weak (exit %d):\n%s", bug, rc,
                         out);
        } else if (rc != 0) {
            fail_msg("%s: found without the weak mode (exit %d): the test no longer shows "
                     "what the weak mode adds\n%s", bug, rc, out);
        }
    }
    char path[128];
    snprintf(path, sizeof path, "/tmp/shmemu-test-weak-%d.trace", (int)getpid());
    unlink(path);
    free(out);
}

static void test_relaxed_poll_found_by_value(void **state)
{
    (void)state;
    found_only_when_weak("x-dep-wait-relaxed", "random",
                         "--cells 4 --pes 4 --dd 2x2x1 --halo fused --transport direct");
}

static void test_missing_runtime_release_found_by_value(void **state)
{
    (void)state;
    found_only_when_weak("rt-signal-no-release", "random",
                         "--cells 4 --pes 4 --dd 2x2x1 --halo pulse --transport signal");
}

static void test_report_and_exact_replay(void **state)
{
    (void)state;
    char *out = out_buf();
    char cmd[2048], trace[128];
    snprintf(trace, sizeof trace, "/tmp/shmemu-test-weak-report-%d.trace", (int)getpid());
    const char *config = "--cells 4 --pes 3 --dd 3x1x1 --halo fused --transport direct";
    snprintf(cmd, sizeof cmd,
             "SHMEMU_BUG=x-notify-relaxed %s --strategy pct --memory weak --no-shrink --jobs 1 "
             "--ref-unset SHMEMU_BUG --trace %s 10 -- %s %s --steps 3 --thermo 0",
             EXPLORE, trace, MD, config);
    assert_int_equal(run_shell(cmd, out, OUT_MAX), 1);
    /* the store seen late: who read the flag, who wrote it with which call, the stores that
     * were not visible yet and the line that made them */
    assert_non_null(strstr(out, "shmemu: weak memory: "));
    assert_non_null(strstr(out, "in st_relaxed"));
    assert_non_null(strstr(out, "were not visible yet"));
    assert_non_null(strstr(out, "halo_dev.h:"));
    const char *bad = strstr(out, "checksum mismatch");
    assert_non_null(bad);
    char failed[64] = "";
    /* "... matching "checksum <value>": "checksum X"; the reference: ..." */
    const char *q = strstr(bad, "\": \"checksum ");
    assert_non_null(q);
    sscanf(q + 4, "checksum %16s", failed);
    const char *replay = strstr(out, "replay with:\n  ");
    assert_non_null(replay);
    replay += strlen("replay with:\n  ");
    char line[1024];
    size_t n = strcspn(replay, "\n");
    assert_true(n < sizeof line);
    memcpy(line, replay, n);
    line[n] = '\0';
    assert_non_null(strstr(line, "SHMEMU_MEMORY=weak"));
    for (int i = 0; i < 2; i++) {
        char got[64];
        int rc = run_shell(line, out, OUT_MAX);
        last_checksum(out, got, sizeof got);
        if (rc != 0 || strcmp(got, failed) != 0)
            fail_msg("the replay command `%s` exited %d with \"%s\", not the failing run's "
                     "\"%s\":\n%s", line, rc, got, failed, out);
    }
    /* the same trace without the weak mode is another configuration: refused */
    snprintf(cmd, sizeof cmd, "SHMEMU_REPLAY=%s SHMEMU_BUG=x-notify-relaxed %s %s --steps 3 "
             "--thermo 0", trace, MD, config);
    assert_int_not_equal(run_shell(cmd, out, OUT_MAX), 0);
    unlink(trace);
    free(out);
}

/* The report from `from` up to the replay line, without its addresses (0x...: ASLR moves
 * them), copied to out. */
static void report_without_addresses(const char *from, char *out, size_t len)
{
    const char *end = strstr(from, "shmemu: replay: ");
    size_t w = 0;
    for (const char *r = from; *r != '\0' && r != end && w + 1 < len;) {
        if (r[0] == '0' && r[1] == 'x') {
            r += 2;
            while ((*r >= '0' && *r <= '9') || (*r >= 'a' && *r <= 'f'))
                r++;
            continue;
        }
        out[w++] = *r++;
    }
    out[w] = '\0';
}

/* The reader's side: rt-wait-no-acquire drops the runtime's acquire after a satisfied signal
 * wait, so a block reads the returned forces it waited for from its stale view. */
static void test_old_value_read_is_reported(void **state)
{
    (void)state;
    char *out = out_buf(), *again = out_buf();
    char cmd[1024];
    const char *run = "SHMEMU_BUG=rt-wait-no-acquire SHMEMU_SCHED=pct SHMEMU_SEED=1 "
                      "SHMEMU_MEMORY=weak";
    const char *args = "--cells 4 --pes 4 --dd 2x2x1 --halo fused --transport direct --steps 3 "
                       "--thermo 0";
    snprintf(cmd, sizeof cmd, "%s %s %s", run, MD, args);
    assert_int_equal(run_shell(cmd, out, OUT_MAX), 0);
    const char *head = strstr(out, "time(s) a thread read an old value");
    if (head == NULL || strstr(head, "(kernel md_fused_comm_unpack_f block ") == NULL ||
        strstr(head, " = 0 at decision ") == NULL ||
        strstr(head, "(load at ") == NULL || strstr(head, "halo_dev.h:") == NULL ||
        strstr(head, "the published value was ") == NULL ||
        strstr(head, "(stored at ") == NULL || strstr(head, "force.c:") == NULL ||
        strstr(out, "shmemu: replay: ") == NULL)
        fail_msg("no report of the old value read, with the reader, the load's line, the value "
                 "read, the published value and its store's line:\n%s", out);
    char sum[64], sum2[64];
    last_checksum(out, sum, sizeof sum);
    assert_int_equal(run_shell(cmd, again, OUT_MAX), 0);
    last_checksum(again, sum2, sizeof sum2);
    const char *h2 = strstr(again, "time(s) a thread read an old value");
    char r1[4096], r2[4096];
    report_without_addresses(head, r1, sizeof r1);
    report_without_addresses(h2 != NULL ? h2 : "", r2, sizeof r2);
    if (strcmp(sum, sum2) != 0 || strcmp(r1, r2) != 0)
        fail_msg("the replay gave another checksum or report:\n%s\n---\n%s", out, again);
    /* the watch off: no report, the same run */
    snprintf(cmd, sizeof cmd, "%s SHMEMU_WEAK_READS=0 %s %s", run, MD, args);
    assert_int_equal(run_shell(cmd, again, OUT_MAX), 0);
    last_checksum(again, sum2, sizeof sum2);
    if (strstr(again, "read an old value") != NULL || strcmp(sum, sum2) != 0)
        fail_msg("SHMEMU_WEAK_READS=0 reported reads or changed the checksum (%s, was %s):\n%s",
                 sum2, sum, again);
    free(out);
    free(again);
}

static void test_bad_settings_refused(void **state)
{
    (void)state;
    static const struct {
        const char *env, *says;
        int rc;
    } cases[] = {
        {"SHMEMU_SCHED=random SHMEMU_MEMORY=weakest", "SHMEMU_MEMORY", 2},
        {"SHMEMU_MEMORY=weak", "needs the deterministic scheduler", 2},
        {"SHMEMU_SCHED=random SHMEMU_MEMORY=weak SHMEMU_WEAK_KERNEL_END=cpu",
         "SHMEMU_WEAK_KERNEL_END", 2},
        {"SHMEMU_SCHED=random SHMEMU_MEMORY=weak SHMEMU_WEAK_DRAIN=0", "SHMEMU_WEAK_DRAIN", 2},
        {"SHMEMU_SCHED=random SHMEMU_MEMORY=weak SHMEMU_WEAK_READS=maybe", "SHMEMU_WEAK_READS",
         2},
        /* the scheduler itself refuses the process backend (shmemu-md's failed run: 1) */
        {"SHMEMU_BACKEND=process SHMEMU_SCHED=random SHMEMU_MEMORY=weak",
         "use the threads backend", 1},
    };
    char *out = out_buf();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "%s %s --cells 4 --pes 2 --steps 1 --thermo 0", cases[i].env,
                 MD);
        int rc = run_shell(cmd, out, OUT_MAX);
        if (rc != cases[i].rc || strstr(out, cases[i].says) == NULL ||
            strstr(out, "\nchecksum ") != NULL)
            fail_msg("%s: exit %d, wanted %d and a message naming \"%s\" before any step:\n%s",
                     cases[i].env, rc, cases[i].rc, cases[i].says, out);
    }
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correct_app_keeps_its_checksum),
        cmocka_unit_test(test_relaxed_poll_found_by_value),
        cmocka_unit_test(test_missing_runtime_release_found_by_value),
        cmocka_unit_test(test_report_and_exact_replay),
        cmocka_unit_test(test_old_value_read_is_reported),
        cmocka_unit_test(test_bad_settings_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
