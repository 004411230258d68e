/*
 * test_hang.c: a wait that nobody satisfies must end the program with a report, not hang
 * it. With SHMEMU_HANG_TIMEOUT=1 the job prints every pending wait (PE, call, word,
 * comparison, expected and current value) and exits with status 3 (shmemu/pgas.h).
 *
 * Each scenario runs in a forked child that sets the variable before starting its PEs, so
 * the runner's own SHMEMU_HANG_TIMEOUT (large under valgrind) does not apply to it.
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

#include "shmem.h" /* first: it compiles without nvshmem.h */
#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define HANG_EXIT_STATUS 3

typedef struct hang_child {
    int n_pes;
    int (*body)(void *);
} hang_child;

static int hang_child_main(void *arg)
{
    const hang_child *c = arg;
    setenv("SHMEMU_HANG_TIMEOUT", "1", 1);
    return shmemu_launch(c->n_pes, c->body, NULL);
}

/* Seconds a 1-second hang timeout may take to fire and report. */
static double report_deadline(void) { return pe_check_under_valgrind() ? 60.0 : 10.0; }

/* Runs the child; asserts that it exited with the hang status in time; returns stderr. */
static const char *expect_hang_report(int n_pes, int (*body)(void *))
{
    static char err[64 * 1024];
    hang_child c = {n_pes, body};
    double elapsed = 0;
    int status = run_child(hang_child_main, &c, report_deadline() + 5, err, sizeof err, &elapsed);
    bool ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == HANG_EXIT_STATUS &&
              elapsed < report_deadline();
    if (!ok) {
        print_error("child stderr:\n----\n%s----\n", err);
        if (status == -1)
            fail_msg("the hung child was not stopped by SHMEMU_HANG_TIMEOUT=1; killed after "
                     "%.0f s",
                     elapsed);
        fail_msg("the hung child ended with wait status 0x%x after %.1f s; expected exit "
                 "status %d within %.0f s",
                 (unsigned)status, elapsed, HANG_EXIT_STATUS, report_deadline());
    }
    return err;
}

/* Asserts that one line of the report holds every needle (NULL-terminated), and that it
 * shows the comparison as "SYMBOL VALUE" or "NAME VALUE" (e.g. "== 5" or "EQ 5"). */
static void assert_wait_line(const char *err, const char *symbol, const char *name,
                             const char *value, const char *const *needles)
{
    char cmp_a[64], cmp_b[64];
    snprintf(cmp_a, sizeof cmp_a, "%s %s", symbol, value);
    snprintf(cmp_b, sizeof cmp_b, "%s %s", name, value);
    for (const char *line = err; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        bool all = symbol == NULL || strstr(buf, cmp_a) != NULL || strstr(buf, cmp_b) != NULL;
        for (const char *const *n = needles; all && *n != NULL; n++)
            all = strstr(buf, *n) != NULL;
        if (all)
            return;
        line += len + (end != NULL);
    }
    print_error("report:\n----\n%s----\n", err);
    fail_msg("no line of the report shows \"%s\" with \"%s\"%s%s", needles[0],
             needles[1] != NULL ? needles[1] : "", symbol != NULL ? " and " : "",
             symbol != NULL ? cmp_a : "");
}

/* PE 1 waits for 12345 on a signal that holds 777 and that nobody changes; PE 0 waits in
 * a barrier that PE 1 never reaches. */
static int signal_hang_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    if (nvshmem_my_pe() == 1) {
        nvshmemx_signal_op(sig, 777, NVSHMEM_SIGNAL_SET, 1);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 12345);
    }
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_signal_wait_hang_is_reported(void **state)
{
    (void)state;
    const char *err = expect_hang_report(2, signal_hang_body);
    /* the wait: PE, call, comparison with the expected value, and the current value */
    const char *const wait[] = {"PE 1", "nvshmem_signal_wait_until", "777", NULL};
    assert_wait_line(err, "==", "EQ", "12345", wait);
    /* the other PE's pending wait is listed too */
    const char *const barrier[] = {"PE 0", "nvshmem_barrier_all", NULL};
    assert_wait_line(err, NULL, NULL, NULL, barrier);
}

/* A signed wait: the report prints the values as signed numbers. */
static int int_hang_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *iv = nvshmem_malloc(sizeof(int));
    *iv = -9;
    nvshmem_int_wait_until(iv, NVSHMEM_CMP_GT, -5);
    nvshmem_finalize();
    return 0;
}

static void test_int_wait_hang_shows_signed_values(void **state)
{
    (void)state;
    const char *err = expect_hang_report(1, int_hang_body);
    const char *const wait[] = {"PE 0", "nvshmem_int_wait_until", "-9", NULL};
    assert_wait_line(err, ">", "GT", "-5", wait);
}

/* Only the last PE allocates; the others wait on a word nobody sets. The report must say
 * who is in the allocation and who never made it, besides the waits. */
static int partial_alloc_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    if (nvshmem_my_pe() == nvshmem_n_pes() - 1)
        (void)nvshmem_malloc(64);
    else
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1);
    nvshmem_finalize();
    return 0;
}

static void test_partial_allocation_is_named(void **state)
{
    (void)state;
    const char *err = expect_hang_report(3, partial_alloc_body);
    const char *const in[] = {"PE 2 is in nvshmem_malloc (64 bytes", "PEs 0 and 1",
                              "have not made it", NULL};
    assert_wait_line(err, NULL, NULL, NULL, in);
}

/* An OpenSHMEM program hears its own API's names in the report: PE 1 waits on a word
 * nobody sets, PE 0 waits in the barrier. */
static int openshmem_hang_body(void *arg)
{
    (void)arg;
    shmem_init();
    long *word = shmem_calloc(1, sizeof(long));
    if (shmem_my_pe() == 1)
        shmem_long_wait_until(word, SHMEM_CMP_EQ, 5);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

static void test_openshmem_hang_speaks_openshmem(void **state)
{
    (void)state;
    const char *err = expect_hang_report(2, openshmem_hang_body);
    const char *const wait[] = {"PE 1", "waits in shmem_long_wait_until", NULL};
    assert_wait_line(err, NULL, NULL, NULL, wait);
    const char *const barrier[] = {"PE 0", "waits in shmem_barrier_all", NULL};
    assert_wait_line(err, NULL, NULL, NULL, barrier);
    if (strstr(err, "nvshmem_") != NULL) {
        print_error("report:\n----\n%s----\n", err);
        fail_msg("an OpenSHMEM program's hang report names an nvshmem_ call");
    }
}

/* Every PE of 3 waits for a signal from its predecessor that is never sent. */
static int ring_hang_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    nvshmem_barrier_all();
    nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
    nvshmem_finalize();
    return 0;
}

static void test_every_waiting_pe_is_listed(void **state)
{
    (void)state;
    const char *err = expect_hang_report(3, ring_hang_body);
    for (int p = 0; p < 3; p++) {
        char who[16];
        snprintf(who, sizeof who, "PE %d", p);
        const char *const wait[] = {who, "nvshmem_signal_wait_until", "current value 0", NULL};
        assert_wait_line(err, ">=", "GE", "1", wait);
    }
}

/* No false alarm: a job whose waits are all satisfied exits 0 with the timeout at 1 s. */
static int busy_ring_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    long *data = nvshmem_calloc(1, sizeof(long));
    nvshmem_barrier_all();
    const int laps = pe_check_scaled(200, 20);
    for (int lap = 1; lap <= laps; lap++) {
        long v = lap;
        nvshmem_long_put_signal(data, &v, 1, sig, (uint64_t)lap, NVSHMEM_SIGNAL_SET,
                                (me + 1) % n);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)lap);
        nvshmem_barrier_all(); /* the next lap overwrites data */
    }
    nvshmem_finalize();
    return 0;
}

static void test_no_false_alarm(void **state)
{
    (void)state;
    static char err[16384];
    hang_child c = {3, busy_ring_body};
    int status = run_child(hang_child_main, &c, child_time_limit(), err, sizeof err, NULL);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        print_error("child stderr:\n----\n%s----\n", err);
        fail_msg("a job without a hang ended with wait status 0x%x", (unsigned)status);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_wait_hang_is_reported),
        cmocka_unit_test(test_int_wait_hang_shows_signed_values),
        cmocka_unit_test(test_every_waiting_pe_is_listed),
        cmocka_unit_test(test_partial_allocation_is_named),
        cmocka_unit_test(test_openshmem_hang_speaks_openshmem),
        cmocka_unit_test(test_no_false_alarm),
    };
    return cmocka_run_group_tests_name("hang", tests, NULL, NULL);
}
