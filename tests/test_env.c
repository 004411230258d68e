/*
 * test_env.c: the one environment parser (shmemu/env.h) and the variables that go through it.
 *
 * The parse functions are checked directly (every accepted spelling, and refusals whose
 * message names the variable, the value and the accepted form); then whole runs in forked
 * children check that a variable really takes effect: SHMEMU_EMU_HAZARDS=off turns the
 * shared-memory race check off, SHMEMU_HANG_TIMEOUT=1e9 is a valid (long) timeout, and a
 * bad value stops the program with status 2 and the message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "shmemu/emu.h"
#include "shmemu/env.h"
#include "shmemu/kernel.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* ---- booleans ------------------------------------------------------------------------ */

static void test_bool_spellings(void **state)
{
    (void)state;
    const char *yes[] = {"1", "on", "ON", "yes", "Yes", "true", "TRUE"};
    const char *no[] = {"0", "off", "OFF", "no", "No", "false", "False"};
    char msg[256];
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        bool v = false;
        assert_int_equal(shmemu_env_parse_bool("X", yes[i], &v, msg, sizeof msg), 0);
        assert_true(v);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        bool v = true;
        assert_int_equal(shmemu_env_parse_bool("X", no[i], &v, msg, sizeof msg), 0);
        assert_false(v);
    }
    const char *bad[] = {"maybe", "2", "o", "yes ", " 1", "onn", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool v = false;
        assert_int_equal(shmemu_env_parse_bool("SHMEMU_EMU_HAZARDS", bad[i], &v, msg,
                                               sizeof msg), -1);
        assert_non_null(strstr(msg, "SHMEMU_EMU_HAZARDS"));
        assert_non_null(strstr(msg, bad[i]));
        assert_non_null(strstr(msg, "on/off, yes/no, 1/0 or true/false"));
    }
}

/* ---- numbers ------------------------------------------------------------------------- */

static void test_integers_strict(void **state)
{
    (void)state;
    char msg[256];
    int64_t v = 0;
    assert_int_equal(shmemu_env_parse_int("N", "42", 0, 100, &v, msg, sizeof msg), 0);
    assert_int_equal(v, 42);
    assert_int_equal(shmemu_env_parse_int("N", "-3", -5, 5, &v, msg, sizeof msg), 0);
    assert_int_equal(v, -3);
    assert_int_equal(shmemu_env_parse_int("N", "9223372036854775807", 0, INT64_MAX, &v, msg,
                                          sizeof msg), 0);
    assert_true(v == INT64_MAX);
    /* overflow, trailing text, blanks, out of range, not a number */
    const char *bad[] = {"99999999999999999999", "-99999999999999999999", "12x", " 12", "",
                         "101", "-1", "1e3", "0x10", "abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(shmemu_env_parse_int("SHMEMU_SPIN", bad[i], 0, 100, &v, msg,
                                              sizeof msg), -1);
        assert_non_null(strstr(msg, "SHMEMU_SPIN=\""));
        assert_non_null(strstr(msg, "an integer from 0 to 100"));
    }
}

static void test_doubles_strict(void **state)
{
    (void)state;
    char msg[256];
    double v = 0;
    /* 1e9 seconds was refused "as negative" before: it is a valid, long timeout */
    assert_int_equal(shmemu_env_parse_double("SHMEMU_HANG_TIMEOUT", "1e9", 0, 1e12, "seconds",
                                             &v, msg, sizeof msg), 0);
    assert_true(v == 1e9);
    assert_int_equal(shmemu_env_parse_double("T", "0.25", 0, 1, "seconds", &v, msg, sizeof msg),
                     0);
    assert_true(v == 0.25);
    const char *bad[] = {"nan", "inf", "-inf", "1e999", "-1", "5s", " 5", "", "1e13"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(shmemu_env_parse_double("SHMEMU_HANG_TIMEOUT", bad[i], 0, 1e12,
                                                 "seconds", &v, msg, sizeof msg), -1);
        assert_non_null(strstr(msg, "SHMEMU_HANG_TIMEOUT=\""));
        assert_non_null(strstr(msg, "a number of seconds from 0 to 1e+12"));
    }
}

static void test_sizes(void **state)
{
    (void)state;
    char msg[256];
    uint64_t v = 0;
    assert_int_equal(shmemu_env_parse_size("S", "512M", 1, UINT64_MAX, &v, msg, sizeof msg), 0);
    assert_true(v == (uint64_t)512 << 20);
    assert_int_equal(shmemu_env_parse_size("S", "2kB", 1, UINT64_MAX, &v, msg, sizeof msg), 0);
    assert_true(v == 2048);
    assert_int_equal(shmemu_env_parse_size("S", "4096", 1, UINT64_MAX, &v, msg, sizeof msg), 0);
    assert_true(v == 4096);
    const char *bad[] = {"16777216T", "99999999999999999999", "-1", "1Q", "1MM", "", " 1M", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(shmemu_env_parse_size("NVSHMEM_SYMMETRIC_SIZE", bad[i], 1, UINT64_MAX,
                                               &v, msg, sizeof msg), -1);
        assert_non_null(strstr(msg, "NVSHMEM_SYMMETRIC_SIZE=\""));
    }
}

static void test_enums(void **state)
{
    (void)state;
    static const char *const names[] = {"off", "random", "pct"};
    char msg[256];
    int v = -1;
    assert_int_equal(shmemu_env_parse_enum("SHMEMU_SCHED", "pct", names, 3, &v, msg, sizeof msg),
                     0);
    assert_int_equal(v, 2);
    assert_int_equal(shmemu_env_parse_enum("SHMEMU_SCHED", "PCTX", names, 3, &v, msg,
                                           sizeof msg), -1);
    assert_non_null(strstr(msg, "SHMEMU_SCHED=\"PCTX\" is not valid; expected one of: off "
                                "random pct"));
}

/* A message longer than the buffer is cut, never overrun. */
static void test_long_value_truncated(void **state)
{
    (void)state;
    char value[4096];
    memset(value, 'x', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    char msg[64];
    bool v;
    assert_int_equal(shmemu_env_parse_bool("B", value, &v, msg, sizeof msg), -1);
    assert_true(strlen(msg) < sizeof msg);
}

/* ---- whole runs ---------------------------------------------------------------------- */

typedef struct {
    int *sink;
} race_args;

/* A missing __syncthreads between a shared-memory write and another thread's read. */
KERNEL(env_race, race_args, a)
{
    SHARED_ARRAY(int, tile, 32);
    int t = (int)threadIdx.x;
    SH_ST(tile, t, t);
    a.sink[t] = SH_LD(tile, (t + 1) % 32);
}

static int race_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *sink = NULL;
    cudaMalloc((void **)&sink, 32 * sizeof(int));
    race_args a = {sink};
    LAUNCH(env_race, DIM3(1, 1, 1), DIM3(32, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    cudaFree(sink);
    nvshmem_finalize();
    return 0;
}

typedef struct {
    const char *name;
    const char *value;
    int (*body)(void *);
} env_run;

static int run_with_env(void *arg)
{
    const env_run *r = arg;
    setenv(r->name, r->value, 1);
    return shmemu_launch(1, r->body, NULL);
}

/* Runs body on one PE in a child with name=value; returns the exit status (or 128+signal). */
static int child_status(const char *name, const char *value, int (*body)(void *), char *out,
                        size_t out_len)
{
    env_run r = {name, value, body};
    int ws = run_child(run_with_env, &r, child_time_limit(), out, out_len, NULL);
    assert_true(ws != -1);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static void test_hazards_off_spellings(void **state)
{
    (void)state;
    char out[4096];
    /* "off", "no" and "false" left the check on before: only "0" turned it off */
    const char *off[] = {"0", "off", "no", "false", "OFF"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        int st = child_status("SHMEMU_EMU_HAZARDS", off[i], race_body, out, sizeof out);
        if (st != 0)
            fprintf(stderr, "SHMEMU_EMU_HAZARDS=%s: status %d\n%s", off[i], st, out);
        assert_int_equal(st, 0);
    }
    const char *on[] = {"1", "on", "yes", "TRUE"};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        int st = child_status("SHMEMU_EMU_HAZARDS", on[i], race_body, out, sizeof out);
        assert_int_not_equal(st, 0);
        assert_contains(out, "shared-memory race");
    }
    int st = child_status("SHMEMU_EMU_HAZARDS", "offf", race_body, out, sizeof out);
    assert_int_equal(st, 2);
    assert_contains(out, "shmemu: environment: SHMEMU_EMU_HAZARDS=\"offf\" is not valid; "
                         "expected on/off, yes/no, 1/0 or true/false");
}

static int quiet_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_runtime_variables(void **state)
{
    (void)state;
    char out[4096];
    /* a long timeout is valid (it was refused as "negative") */
    assert_int_equal(child_status("SHMEMU_HANG_TIMEOUT", "1e9", quiet_body, out, sizeof out),
                     0);
    assert_int_equal(child_status("SHMEMU_HANG_TIMEOUT", "-1", quiet_body, out, sizeof out), 2);
    assert_contains(out, "SHMEMU_HANG_TIMEOUT=\"-1\" is not valid; expected a number of seconds");
    assert_int_equal(child_status("SHMEMU_CHECK_NBI", "yes", quiet_body, out, sizeof out), 0);
    assert_int_equal(child_status("SHMEMU_NO_PTR", "sometimes", quiet_body, out, sizeof out), 2);
    assert_contains(out, "SHMEMU_NO_PTR=\"sometimes\" is not valid");
    assert_int_equal(child_status("SHMEMU_SPIN", "99999999999999999999", quiet_body, out,
                                  sizeof out), 2);
    assert_contains(out, "SHMEMU_SPIN=\"99999999999999999999\" is not valid; expected an "
                         "integer from 0 to 100000000");
    assert_int_equal(child_status("SHMEMU_SCHED", "fifo", quiet_body, out, sizeof out), 2);
    assert_contains(out, "SHMEMU_SCHED=\"fifo\" is not valid; expected one of: off free random "
                         "pct rr");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bool_spellings),
        cmocka_unit_test(test_integers_strict),
        cmocka_unit_test(test_doubles_strict),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_long_value_truncated),
        cmocka_unit_test(test_hazards_off_spellings),
        cmocka_unit_test(test_runtime_variables),
    };
    return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
