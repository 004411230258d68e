/*
 * test_sched_trace.c: the deterministic scheduler's trace and guide readers on hostile
 * files (docs/sched.md, "Trace format"):
 *   - a decision count the file cannot hold (2^61, 2^63, 99999999999) is refused before
 *     anything is allocated, with a valid checksum too, and the message names the file;
 *   - a bad header field names the line, the field, the value and what is accepted;
 *   - a trailing byte, a missing checksum line or a non-regular file is refused;
 *   - a guide with a malformed line names the line instead of stopping silently there;
 *   - a well-formed trace and guide parse to what they hold;
 *   - the delays: line is there exactly for strategy delay, its set strictly increasing.
 * Each case writes the file and goes through pgas_trace_read / pgas_guide_read, as a replay
 * (SHMEMU_REPLAY) or the explorer's shrinker (SHMEMU_SCHED_GUIDE) does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../pgas/src/sched.h"

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static char path[256];

/* Writes a trace: the header lines given (between the magic line and the empty line),
 * `records` decisions of 16 bytes, and a checksum line (valid unless bad_sum). */
static void write_trace(const char *header, unsigned records, bool bad_sum)
{
    static unsigned char buf[1 << 16];
    int n = snprintf((char *)buf, sizeof buf, "shmemu-trace 1\n%s\n", header);
    assert_true(n > 0 && (size_t)n + 16 * records < sizeof buf - 64);
    for (unsigned i = 0; i < 16 * records; i++)
        buf[n++] = (unsigned char)(i * 7);
    uint64_t sum = fnv(0xcbf29ce484222325ull, buf, (size_t)n);
    n += snprintf((char *)buf + n, 64, "checksum: %016llx\n",
                  (unsigned long long)(bad_sum ? sum + 1 : sum));
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, (size_t)n, f), (size_t)n);
    assert_int_equal(fclose(f), 0);
}

#define HEADER(decisions, strategy)                                                          \
    "program: ./prog\nargs: -x 1\nconfig: 00000000000000aa\nseed: 7\nstrategy: " strategy   \
    "\npct_depth: 3\npct_steps: 2000\nnpes: 2\ndecisions: " decisions                        \
    "\nhash: 0123456789abcdef\ncall: ddad0c07 nvshmem_signal_wait_until\n"

/* Reads path as a trace; returns the error (empty on success). */
static const char *read_trace(int *rc, uint64_t *n)
{
    static char err[512];
    static pgas_trace_header h;
    uint64_t *log = NULL;
    err[0] = '\0';
    *rc = pgas_trace_read(path, &h, &log, n, err, sizeof err);
    free(log);
    return err;
}

static void expect_refused(const char *want)
{
    int rc;
    uint64_t n;
    const char *err = read_trace(&rc, &n);
    if (rc != -1 || strstr(err, want) == NULL || strstr(err, path) == NULL)
        fail_msg("rc %d, message \"%s\"; expected -1 and a message naming %s with \"%s\"", rc,
                 err, path, want);
}

static void test_well_formed_trace_reads(void **state)
{
    (void)state;
    write_trace(HEADER("3", "pct"), 3, false);
    pgas_trace_header h;
    uint64_t *log = NULL, n = 0;
    char err[512] = "";
    if (pgas_trace_read(path, &h, &log, &n, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(n, 3);
    assert_int_equal(h.n_pes, 2);
    assert_int_equal(h.seed, 7);
    assert_int_equal(h.strategy, PGAS_SCHED_PCT);
    assert_int_equal(h.n_calls, 1);
    assert_string_equal(h.call_names[0], "nvshmem_signal_wait_until");
    assert_string_equal(h.args, "-x 1");
    assert_int_equal(log[0], 0x312a231c150e0700ull); /* bytes 0, 7, 14, ... little-endian */
    free(log);
}

/* 2^61 decisions: 2 * n * 8 bytes overflowed to a tiny buffer that the reader wrote past. */
static void test_count_2_61_is_bounded(void **state)
{
    (void)state;
    write_trace(HEADER("2305843009213693952", "random"), 1, false);
    expect_refused("announces 2305843009213693952 decisions");
}

/* 2^63 decisions with a valid checksum: 2 * n wrapped to 0, so no record was read and the
 * trace was accepted with 2^63 decisions of uninitialised memory. */
static void test_count_2_63_with_valid_checksum_is_refused(void **state)
{
    (void)state;
    write_trace(HEADER("9223372036854775808", "random"), 0, false);
    expect_refused("announces 9223372036854775808 decisions");
}

/* A count beyond a short file: the message says so (it said "out of memory"). */
static void test_count_beyond_short_file_says_so(void **state)
{
    (void)state;
    write_trace(HEADER("99999999999", "random"), 2, false);
    expect_refused("but the 59 bytes after it hold at most 2");
    write_trace(HEADER("18446744073709551616", "random"), 0, false); /* 2^64 */
    expect_refused(":10: decisions: \"18446744073709551616\" is not a decimal count");
}

static void test_bad_fields_are_named(void **state)
{
    (void)state;
    write_trace(HEADER("0", "bogus"), 0, false);
    expect_refused(":6: strategy: \"bogus\" is not a strategy (accepted: random, pct, rr, "
                   "guided, delay)");
    write_trace("program: p\nargs: \nconfig: 0\nseed: -5\n", 0, false);
    expect_refused(":5: seed: \"-5\" is not a decimal number");
    write_trace("npes: 0\n", 0, false);
    expect_refused(":2: npes: \"0\" is not a PE count from 1 to 4096");
    write_trace("colour: blue\n", 0, false);
    expect_refused(":2: unknown header field \"colour\"");
    write_trace("program: p\n", 0, false);
    expect_refused("the header has no args: line");
}

/* The delay strategy's "delays:" line: present exactly when the strategy is delay (so the
 * version-1 traces written before it read as they did), strictly increasing indexes. */
static void test_delays_line(void **state)
{
    (void)state;
    write_trace(HEADER("0", "delay") "delays: 3,17\n", 0, false);
    pgas_trace_header h;
    uint64_t *log = NULL, n = 0;
    char err[512] = "";
    if (pgas_trace_read(path, &h, &log, &n, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(log);
    assert_int_equal(h.strategy, PGAS_SCHED_DELAY);
    assert_int_equal(h.n_delays, 2);
    assert_int_equal(h.delays[0], 3);
    assert_int_equal(h.delays[1], 17);
    write_trace(HEADER("0", "delay") "delays: none\n", 0, false);
    if (pgas_trace_read(path, &h, &log, &n, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(log);
    assert_int_equal(h.n_delays, 0);
    write_trace(HEADER("0", "delay"), 0, false);
    expect_refused("the header has no delays: line (strategy delay needs one)");
    write_trace(HEADER("0", "random") "delays: 1\n", 0, false);
    expect_refused("a delays: line in a trace of strategy random");
    write_trace(HEADER("0", "delay") "delays: 5,2\n", 0, false);
    expect_refused(":13: delays: \"5,2\": item 2 (2) does not follow 5");
    write_trace(HEADER("0", "delay") "delays: 1\ndelays: 2\n", 0, false);
    expect_refused(":14: delays: given twice");
    write_trace(HEADER("0", "delay") "delays: \n", 0, false); /* "delays:" without ": " */
    expect_refused(":13: delays: \"\": no set (write none for no delay)");
}

static void test_damaged_tails_are_refused(void **state)
{
    (void)state;
    write_trace(HEADER("1", "rr"), 1, true);
    expect_refused("checksum mismatch");
    write_trace(HEADER("1", "rr"), 2, false); /* one record more than announced */
    expect_refused("must end with one line \"checksum: <16 hex digits>\"");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("shmemu-trace 1\nprogram: p\n", f); /* the header never ends */
    fclose(f);
    expect_refused("the header does not end");
    char dir[256];
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(path, sizeof path, "/tmp");
    expect_refused("not a regular file");
    snprintf(path, sizeof path, "%s", dir);
}

static void write_text(const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_guide_lines(void **state)
{
    (void)state;
    pgas_guide_step *g = NULL;
    size_t n = 0;
    char err[512] = "";
    write_text("0 0 1\n4294967295 18446744073709551615 2\n");
    if (pgas_guide_read(path, &g, &n, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(n, 2);
    assert_int_equal(g[1].from, 0xffffffffu);
    assert_int_equal(g[1].yield, UINT64_MAX);
    assert_int_equal(g[1].target, 2);
    free(g);
    /* a bad line was the end of the guide: the steps after it were dropped silently */
    static const char *const bad[] = {"0 0 1\n1 x 2\n3 3 3\n", "0 0 1\n1 2\n",
                                      "0 0 1\n1 2 3 4\n", "0 0 1\n1 2 4294967296\n",
                                      "0 0 1\n-1 2 3\n", "0 0 1\n1 2 3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(bad[i]);
        g = NULL;
        err[0] = '\0';
        int rc = pgas_guide_read(path, &g, &n, err, sizeof err);
        char want[300];
        snprintf(want, sizeof want, "%s:2: expected \"<from serial>", path);
        if (rc != -1 || strstr(err, want) == NULL)
            fail_msg("guide %zu: rc %d, \"%s\"; expected \"%s\"", i, rc, err, want);
        assert_null(g);
    }
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/shmemu-test-sched-trace-%d.trace", (int)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed_trace_reads),
        cmocka_unit_test(test_count_2_61_is_bounded),
        cmocka_unit_test(test_count_2_63_with_valid_checksum_is_refused),
        cmocka_unit_test(test_count_beyond_short_file_says_so),
        cmocka_unit_test(test_bad_fields_are_named),
        cmocka_unit_test(test_delays_line),
        cmocka_unit_test(test_damaged_tails_are_refused),
        cmocka_unit_test(test_guide_lines),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(path);
    return rc;
}
