/*
 * test_shmem_fixes.c: the bugs an outside OpenSHMEM suite found, each
 * with a test that fails on the old behaviour, at 1, 2, 3 and 8 PEs where it makes sense:
 *
 *   - test_any / wait_until_any (and _vector, and the nvshmem_ forms) scanned from index 0,
 *     so a loop over the set flags never saw index 1 or more (the specification's example
 *     for shmem_test_any never ends): the scan now goes round robin;
 *   - zero-length puts, gets, put-with-signal and collectives with NULL buffers aborted;
 *   - shmem_align refused alignments above 2 MiB;
 *   - shmem_realloc was missing;
 *   - shmem_team_split_strided refused negative strides, and PEs passing different
 *     triplets went unreported;
 *   - a put or get past the end of its symmetric object (inside the heap), or on freed
 *     symmetric memory, was silent (the bounds check, SHMEMU_CHECK_BOUNDS).
 *
 * Positive checks run on PE threads (PE_CHECK*, tests/support/pe_check.h); misuse runs in a
 * forked child that must fail with a message naming the PE and the call. Loops that waited
 * forever under the old behaviour are bounded here, so the old behaviour fails instead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "shmem.h"
#include "nvshmem.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* A job in a forked child, with one environment variable set for it. */
typedef struct env_job {
    const char *name, *value;
    int n_pes;
    int (*body)(void *);
    void *arg;
} env_job;

static int env_job_child(void *arg)
{
    const env_job *j = arg;
    setenv(j->name, j->value, 1);
    pe_check_reset();
    int rc = shmemu_launch(j->n_pes, j->body, j->arg);
    return rc != 0 || pe_check_failures() != 0;
}

/* Runs the job in a forked child and fails the test unless it succeeded (every PE returned
 * 0, no PE check failed); its stderr, for the messages it must have printed, goes to err. */
static void run_env_job(const env_job *j, char *err, size_t len)
{
    int status = run_child(env_job_child, (void *)j, child_time_limit(), err, len, NULL);
    if (!(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fail_msg("the child (%s=%s, %d PEs) failed; its stderr:\n%s", j->name, j->value,
                 j->n_pes, err);
}

/* ---- test_any and wait_until_any: every satisfied index in turn ---------------------- */

/* The specification's example for shmem_test_any (OpenSHMEM 1.5): each PE sets its flag on
 * every PE; each PE then counts the flags with test_any, first excluding what it found
 * through status, then (the fairness check) with a NULL status, where only a scan that does
 * not always start at index 0 finds every index. Bounded: the old scan failed, not hung. */
static int body_test_any_example(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *flags = shmem_calloc((size_t)n, sizeof(int));
    int *status = calloc((size_t)n, sizeof(int));
    int *found = calloc((size_t)n, sizeof(int));
    for (int pe = 0; pe < n; pe++)
        shmem_int_atomic_set(&flags[me], 1, pe);

    int completed = 0;
    while (completed < n) {
        size_t i = shmem_int_test_any(flags, (size_t)n, status, SHMEM_CMP_EQ, 1);
        if (i != SIZE_MAX && PE_CHECK(i < (size_t)n && status[i] == 0)) {
            status[i] = 1;
            completed++;
        }
    }
    completed = 0;
    for (int tries = 0; tries < 4 * n && completed < n; tries++) {
        size_t i = shmem_int_test_any(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
        if (PE_CHECK(i < (size_t)n) && !found[i]) {
            found[i] = 1;
            completed++;
        }
    }
    PE_CHECK_EQ_I64(completed, n);

    free(found);
    free(status);
    shmem_barrier_all();
    shmem_free(flags);
    shmem_finalize();
    return 0;
}

static void test_test_any_example(void **state)
{
    (void)state;
    run_pes_each(body_test_any_example, NULL);
}

/* Every flag set: n calls in a row return 0, 1, ..., n-1 (round robin from one past the last
 * index found), for every _any form of both APIs; a second array keeps its own position. */
static int body_any_round_robin(void *arg)
{
    (void)arg;
    shmem_init();
    int n = shmem_n_pes();
    size_t k = (size_t)n + 2;
    long *a = shmem_calloc(k, sizeof(long));
    long *b = shmem_calloc(k, sizeof(long));
    long *want = malloc(k * sizeof(long));
    for (size_t j = 0; j < k; j++) {
        a[j] = b[j] = 7;
        want[j] = 7;
    }
    for (size_t round = 0; round < 2 * k; round++) {
        size_t expect = round % k;
        PE_CHECK_EQ_U64(shmem_long_test_any(a, k, NULL, SHMEM_CMP_EQ, 7), expect);
        PE_CHECK_EQ_U64(shmem_long_wait_until_any(b, k, NULL, SHMEM_CMP_EQ, 7), expect);
    }
    /* The vector forms continue where the last _any call on the same array stopped. */
    PE_CHECK_EQ_U64(shmem_long_test_any_vector(a, k, NULL, SHMEM_CMP_EQ, want), 0);
    PE_CHECK_EQ_U64(shmem_long_wait_until_any_vector(a, k, NULL, SHMEM_CMP_EQ, want), 1);
    PE_CHECK_EQ_U64(shmem_long_test_any_vector(b, k, NULL, SHMEM_CMP_EQ, want), 0);
    /* A status that excludes the next index: the scan skips it (and wraps at k = 3). */
    int *status = calloc(k, sizeof(int));
    status[2] = 1;
    PE_CHECK_EQ_U64(shmem_long_test_any(a, k, status, SHMEM_CMP_EQ, 7), k > 3 ? 3 : 0);
    free(status);
    /* The nvshmem_ forms share the core. */
    int64_t *c = nvshmem_calloc(k, sizeof(int64_t));
    for (size_t j = 0; j < k; j++)
        c[j] = 1;
    for (size_t round = 0; round < k; round++)
        PE_CHECK_EQ_U64(nvshmem_int64_test_any(c, k, NULL, NVSHMEM_CMP_EQ, 1), round);
    PE_CHECK_EQ_U64(nvshmem_int64_wait_until_any(c, k, NULL, NVSHMEM_CMP_EQ, 1), 0);
    PE_CHECK_EQ_U64(nvshmem_int64_wait_until_any(c, k, NULL, NVSHMEM_CMP_EQ, 1), 1);
    free(want);
    shmem_barrier_all();
    nvshmem_free(c);
    shmem_free(b);
    shmem_free(a);
    shmem_finalize();
    return 0;
}

static void test_any_round_robin(void **state)
{
    (void)state;
    run_pes_each(body_any_round_robin, NULL);
}

/* ---- zero-length operations: valid with any pointer ---------------------------------- */

static int body_zero_length(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n;
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long *sym = shmem_calloc(4, sizeof(long));
    long local[4] = {0};
    shmem_barrier_all();

    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_long_put(NULL, NULL, 0, right);
    shmem_long_get(NULL, NULL, 0, right);
    shmem_long_put_nbi(NULL, local, 0, right);
    shmem_long_get_nbi(local, NULL, 0, right);
    shmem_put64(NULL, NULL, 0, right);
    shmem_get32(NULL, NULL, 0, right);
    shmem_long_iput(NULL, NULL, 1, 1, 0, right);
    shmem_long_iget(NULL, NULL, 1, 1, 0, right);
    /* A stack address is no symmetric object either: zero bytes of it are still fine. */
    shmem_putmem(local, local, 0, right);
    nvshmem_putmem(NULL, NULL, 0, right);
    nvshmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_quiet();

    /* A zero-byte put-with-signal moves no data but still signals. */
    shmem_putmem_signal(NULL, NULL, 0, sig, (uint64_t)me + 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)((me + n - 1) % n) + 1);
    shmem_barrier_all();
    shmem_long_put_signal_nbi(NULL, NULL, 0, sig, 10, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)((me + n - 1) % n) + 11);

    /* Zero-length collectives: a barrier's worth of synchronization, no data, any buffers. */
    PE_CHECK_EQ_I64(shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
    PE_CHECK_EQ_I64(shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
    PE_CHECK_EQ_I64(shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(shmem_long_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(shmem_long_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(shmem_long_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(nvshmem_long_sum_reduce(NVSHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(nvshmem_long_sum_reducescatter(NVSHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
    PE_CHECK_EQ_I64(nvshmem_long_broadcast(NVSHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);

    /* None of it moved a byte. */
    for (int j = 0; j < 4; j++)
        PE_CHECK_EQ_I64(sym[j], 0);
    shmem_barrier_all();
    shmem_free(sym);
    shmem_free(sig);
    shmem_finalize();
    return 0;
}

static void test_zero_length(void **state)
{
    (void)state;
    run_pes_each(body_zero_length, NULL);
}

/* The PE is still checked: zero bytes to a PE that does not exist is misuse. */
static void zero_put_bad_pe(void *arg)
{
    (void)arg;
    shmem_init();
    if (shmem_my_pe() == shmem_n_pes() - 1)
        shmem_putmem(NULL, NULL, 0, shmem_n_pes());
    shmem_barrier_all();
}

static void test_zero_length_bad_pe(void **state)
{
    (void)state;
    expect_child_failure(zero_put_bad_pe, NULL, 2, "PE 1: shmem_putmem: PE 2 is out of range");
}

/* ---- shmem_align: any power of two the heap can hold --------------------------------- */

static int body_align_large(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    size_t aligns[] = {(size_t)4 << 20, (size_t)32 << 20, (size_t)64 << 20};
    for (size_t a = 0; a < sizeof aligns / sizeof *aligns; a++) {
        long *x = shmem_align(aligns[a], 3 * sizeof(long));
        if (!PE_CHECK_MSG(x != NULL, "shmem_align(%zu) returned NULL", aligns[a]))
            continue;
        PE_CHECK_EQ_U64((uintptr_t)x % aligns[a], 0);
        /* Symmetric: a put to the right lands in the right PE's copy. */
        shmem_long_p(&x[1], me + 100, (me + 1) % n);
        shmem_barrier_all();
        PE_CHECK_EQ_I64(x[1], (me + n - 1) % n + 100);
        shmem_free(x);
    }
    shmem_finalize();
    return 0;
}

static void test_align_large(void **state)
{
    (void)state;
    run_pes_each(body_align_large, NULL);
}

static int body_align_refused(void *arg)
{
    (void)arg;
    shmem_init();
    /* Larger than the heap, and above what the heap starts' alignment allows: NULL. */
    PE_CHECK(shmem_align((size_t)1 << 40, 64) == NULL);
    PE_CHECK(shmem_align((size_t)4 << 20, 64) == NULL);
    /* What it can give still works after a refusal. */
    void *ok = shmem_align((size_t)2 << 20, 64);
    PE_CHECK(ok != NULL && (uintptr_t)ok % ((size_t)2 << 20) == 0);
    shmem_free(ok);
    shmem_finalize();
    return 0;
}

static void test_align_refused(void **state)
{
    (void)state;
    static char err[16384];
    /* 6 MiB per PE: every heap starts 2 MiB-aligned, no more. */
    env_job j = {"NVSHMEM_SYMMETRIC_SIZE", "6M", 2, body_align_refused, NULL};
    run_env_job(&j, err, sizeof err);
    assert_contains(err, "shmem_align: alignment 1099511627776 is larger than the symmetric "
                         "heap");
    assert_contains(err, "shmem_align: alignment 4194304: the PEs' heaps start only "
                         "2097152-aligned");
}

static void align_not_power_of_two(void *arg)
{
    (void)arg;
    shmem_init();
    (void)shmem_align(3 << 20, 64);
}

static void test_align_misuse(void **state)
{
    (void)state;
    expect_child_failure(align_not_power_of_two, NULL, 2,
                         "shmem_align: alignment 3145728 is not a power of two");
}

/* ---- shmem_realloc ------------------------------------------------------------------- */

static int body_realloc(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n;
    /* NULL allocates. */
    int *a = shmem_realloc(NULL, 10 * sizeof(int));
    int *b = shmem_malloc(64);
    if (!PE_CHECK(a != NULL && b != NULL))
        goto out;
    for (int j = 0; j < 10; j++)
        a[j] = me * 1000 + j;
    shmem_barrier_all();
    /* b follows a, so growing a moves it: the contents come along, on every PE. */
    int *grown = shmem_realloc(a, 100000 * sizeof(int));
    if (!PE_CHECK(grown != NULL))
        goto out;
    a = grown;
    for (int j = 0; j < 10; j++)
        PE_CHECK_EQ_I64(a[j], me * 1000 + j);
    /* The whole new size is symmetric and usable from a peer. */
    shmem_int_p(&a[99999], me, right);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(a[99999], (me + n - 1) % n);
    /* b is last: it grows in place or moves, keeping its bytes either way. */
    memset(b, me + 1, 64);
    int *b2 = shmem_realloc(b, 4096);
    if (PE_CHECK(b2 != NULL)) {
        b = b2;
        for (int j = 0; j < 64; j++)
            PE_CHECK_EQ_U64(((unsigned char *)b)[j], (unsigned)me + 1);
    }
    /* Shrinking keeps the first bytes. */
    int *shrunk = shmem_realloc(a, 5 * sizeof(int));
    if (PE_CHECK(shrunk != NULL)) {
        a = shrunk;
        for (int j = 0; j < 5; j++)
            PE_CHECK_EQ_I64(a[j], me * 1000 + j);
    }
    /* Size 0 frees and returns NULL; NULL and 0 does nothing. */
    PE_CHECK(shmem_realloc(a, 0) == NULL);
    a = NULL;
    PE_CHECK(shmem_realloc(NULL, 0) == NULL);
out:
    shmem_free(b);
    shmem_free(a);
    shmem_finalize();
    return 0;
}

static void test_realloc_contents(void **state)
{
    (void)state;
    run_pes_each(body_realloc, NULL);
}

/* No room: NULL, with a message, and the object unchanged. */
static int body_realloc_no_room(void *arg)
{
    (void)arg;
    shmem_init();
    long *x = shmem_malloc(sizeof(long));
    *x = 42;
    shmem_barrier_all();
    PE_CHECK(shmem_realloc(x, (size_t)64 << 20) == NULL);
    PE_CHECK_EQ_I64(*x, 42);
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static void test_realloc_no_room(void **state)
{
    (void)state;
    static char err[16384];
    env_job j = {"NVSHMEM_SYMMETRIC_SIZE", "4M", 3, body_realloc_no_room, NULL};
    run_env_job(&j, err, sizeof err);
    assert_contains(err, "shmem_realloc: cannot grow");
}

/* PEs resizing to different sizes: misuse, naming both. */
static void realloc_sizes_differ(void *arg)
{
    (void)arg;
    shmem_init();
    char *x = shmem_malloc(64);
    (void)shmem_realloc(x, shmem_my_pe() == 0 ? 128 : 256);
}

static void test_realloc_misuse(void **state)
{
    (void)state;
    expect_child_failure(realloc_sizes_differ, NULL, 2, "passes size = 128");
    expect_child_failure(realloc_sizes_differ, NULL, 3, "passes size = 256");
}

/* ---- shmem_team_split_strided: negative strides, and the same triplet everywhere ----- */

static int body_negative_stride(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    /* Every PE, in reverse: team PE i is world PE n-1-i. */
    shmem_team_t rev;
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev), 0);
    if (PE_CHECK(rev != SHMEM_TEAM_INVALID)) {
        PE_CHECK_EQ_I64(shmem_team_my_pe(rev), n - 1 - me);
        PE_CHECK_EQ_I64(shmem_team_n_pes(rev), n);
        PE_CHECK_EQ_I64(shmem_team_translate_pe(rev, 0, SHMEM_TEAM_WORLD), n - 1);
        PE_CHECK_EQ_I64(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, rev), n - 1);
        /* A collective on it: team PE 0 (world PE n-1) is the root. */
        long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long));
        *src = me;
        *dst = -1;
        shmem_team_sync(rev);
        PE_CHECK_EQ_I64(shmem_long_broadcast(rev, dst, src, 1, 0), 0);
        PE_CHECK_EQ_I64(*dst, n - 1);
        shmem_barrier_all();
        shmem_free(dst);
        shmem_free(src);
        shmem_team_destroy(rev);
    }
    /* Every other PE from the top: n-1, n-3, ... */
    int half = (n + 1) / 2;
    shmem_team_t odd;
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -2, half, NULL, 0, &odd),
                    0);
    bool member = (n - 1 - me) % 2 == 0;
    PE_CHECK_EQ_I64(odd != SHMEM_TEAM_INVALID, member);
    if (member)
        PE_CHECK_EQ_I64(shmem_team_my_pe(odd), (n - 1 - me) / 2);
    shmem_team_destroy(odd);
    /* Stride 0 is a valid triplet for one PE. */
    shmem_team_t one;
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 1, NULL, 0, &one), 0);
    PE_CHECK_EQ_I64(one != SHMEM_TEAM_INVALID, me == 0);
    shmem_team_destroy(one);
    shmem_finalize();
    return 0;
}

/* Triplets that leave the parent: non-zero and SHMEM_TEAM_INVALID on every PE, with a
 * message (stride 0 for two PEs, a negative stride below PE 0). */
static int body_stride_invalid(void *arg)
{
    (void)arg;
    shmem_init();
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &bad) != 0);
    PE_CHECK(bad == SHMEM_TEAM_INVALID);
    bad = SHMEM_TEAM_WORLD;
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &bad) != 0);
    PE_CHECK(bad == SHMEM_TEAM_INVALID);
    shmem_finalize();
    return 0;
}

static void test_negative_stride(void **state)
{
    (void)state;
    run_pes_each(body_negative_stride, NULL);
    static char err[16384];
    for (int k = 1; k < PE_COUNTS_N; k++) { /* two PEs at least */
        run_pes_capture(pe_counts[k], body_stride_invalid, NULL, err, sizeof err);
        assert_contains(err, "shmem_team_split_strided: start 0, stride 0, size 2 do not fit "
                             "parent team 0");
        assert_contains(err, "start 0, stride -1, size 2 do not fit");
    }
}

static void split_args_differ(void *arg)
{
    (void)arg;
    shmem_init();
    shmem_team_t t;
    int stride = shmem_my_pe() == 2 ? 2 : 1;
    (void)shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, stride, 1, NULL, 0, &t);
    shmem_barrier_all();
}

static void test_split_args_differ(void **state)
{
    (void)state;
    expect_child_failure(split_args_differ, NULL, 3,
                         "shmem_team_split_strided: the PEs of SHMEM_TEAM_WORLD disagree: team "
                         "PE 0 (PE 0) passes stride = 1, team PE 2 (PE 2) passes stride = 2");
    expect_child_failure(split_args_differ, NULL, 8, "team PE 2 (PE 2) passes stride = 2");
}

/* ---- the bounds check ---------------------------------------------------------------- */

/* Two 100-byte objects side by side (64-byte units: a at +0, b at +128); the last PE
 * misbehaves in the way the scenario names, the others wait in a barrier. */
typedef enum {
    PUT_PAST_END,
    GET_PAST_END,
    PUT_INTO_PADDING,
    PUT_AFTER_FREE,
    ATOMIC_AFTER_FREE,
    PUT_NEVER_ALLOCATED,
    WAIT_PAST_END,
    FCOLLECT_PAST_END,
} bounds_case;

static void bounds_scenario(void *arg)
{
    bounds_case c = *(const bounds_case *)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *a = shmem_malloc(100);
    char *b = shmem_malloc(100);
    char src[256] = {0};
    long *l = shmem_calloc(4, sizeof(long));
    bool culprit = me == n - 1;
    if (c == PUT_AFTER_FREE || c == ATOMIC_AFTER_FREE)
        shmem_free(a);
    if (culprit) {
        switch (c) {
        case PUT_PAST_END: shmem_putmem(a, src, 120, 0); break;
        case GET_PAST_END: shmem_getmem(src, b + 50, 51, 0); break;
        case PUT_INTO_PADDING: shmem_putmem(a + 110, src, 4, 0); break;
        case PUT_AFTER_FREE: shmem_putmem(a + 8, src, 8, 0); break;
        case ATOMIC_AFTER_FREE: shmem_long_atomic_inc((long *)(void *)a, 0); break;
        case PUT_NEVER_ALLOCATED: shmem_putmem(b + (1 << 20), src, 8, 0); break;
        case WAIT_PAST_END: shmem_long_wait_until_all(l, 5, NULL, SHMEM_CMP_EQ, 0); break;
        case FCOLLECT_PAST_END: break;
        }
    }
    if (c == FCOLLECT_PAST_END) /* every PE: a 100-byte dest cannot hold n * 64 bytes */
        (void)shmem_fcollectmem(SHMEM_TEAM_WORLD, n > 1 ? a : b + 50, b, 64);
    shmem_barrier_all();
}

static void test_bounds(void **state)
{
    (void)state;
    bounds_case c = PUT_PAST_END;
    expect_child_failure(&bounds_scenario, &c, 2,
                         "PE 1: shmem_putmem: dest 0x");
    expect_child_failure(&bounds_scenario, &c, 3,
                         "plus 120 bytes runs 20 bytes past the end of its symmetric object: "
                         "the 100-byte object at");
    c = GET_PAST_END;
    expect_child_failure(&bounds_scenario, &c, 1,
                         "PE 0: shmem_getmem: source 0x");
    expect_child_failure(&bounds_scenario, &c, 8, "plus 51 bytes runs 1 bytes past the end");
    c = PUT_INTO_PADDING;
    expect_child_failure(&bounds_scenario, &c, 2, "plus 4 bytes runs 4 bytes past the end");
    c = PUT_AFTER_FREE;
    expect_child_failure(&bounds_scenario, &c, 2,
                         "PE 1: shmem_putmem: dest 0x");
    expect_child_failure(&bounds_scenario, &c, 3,
                         "is in freed symmetric memory: the 100-byte object at");
    c = ATOMIC_AFTER_FREE;
    expect_child_failure(&bounds_scenario, &c, 2,
                         "shmem_long_atomic_inc: dest 0x");
    expect_child_failure(&bounds_scenario, &c, 1, "freed by shmem_free");
    c = PUT_NEVER_ALLOCATED;
    expect_child_failure(&bounds_scenario, &c, 3, "is in no symmetric object");
    c = WAIT_PAST_END;
    expect_child_failure(&bounds_scenario, &c, 2,
                         "shmem_long_wait_until_all: ivars 0x");
    expect_child_failure(&bounds_scenario, &c, 2, "plus 40 bytes runs 8 bytes past the end");
    c = FCOLLECT_PAST_END;
    expect_child_failure(&bounds_scenario, &c, 2, "shmem_fcollectmem: dest 0x");
    expect_child_failure(&bounds_scenario, &c, 1, "shmem_fcollectmem: dest 0x");
}

/* The check off (SHMEMU_CHECK_BOUNDS=0): the same put past the end is silent again. */
static int body_bounds_off(void *arg)
{
    bounds_scenario(arg);
    shmem_finalize();
    return 0;
}

static void test_bounds_off(void **state)
{
    (void)state;
    static char err[16384];
    bounds_case c = PUT_PAST_END;
    env_job j = {"SHMEMU_CHECK_BOUNDS", "0", 2, body_bounds_off, &c};
    run_env_job(&j, err, sizeof err);
}

/* No false alarms: accesses that fill objects exactly, of every allocation routine, after
 * frees and reuse, in a collective. */
static int body_bounds_clean(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n;
    char src[4096];
    memset(src, me, sizeof src);
    char *a = shmem_malloc(100);
    char *b = shmem_calloc(3, 33);
    char *c = shmem_align(4096, 1);
    char *d = shmem_malloc(4096);
    shmem_barrier_all();
    shmem_putmem(a, src, 100, right);
    shmem_putmem(b, src, 99, right);
    shmem_putmem(b + 98, src, 1, right);
    shmem_putmem(c, src, 1, right);
    shmem_putmem(d, src, 4096, right);
    shmem_getmem(src, d + 4000, 96, right);
    shmem_barrier_all();
    /* Freed and allocated again at the same place: live again. */
    shmem_free(a);
    char *e = shmem_malloc(64);
    shmem_putmem(e, src, 64, right);
    long *big = shmem_malloc((size_t)n * 16 * sizeof(long));
    long mine[16] = {0};
    long *piece = shmem_malloc(16 * sizeof(long));
    memcpy(piece, mine, sizeof mine);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_long_fcollect(SHMEM_TEAM_WORLD, big, piece, 16), 0);
    shmem_barrier_all();
    shmem_free(piece);
    shmem_free(big);
    shmem_free(e);
    shmem_free(d);
    shmem_free(c);
    shmem_free(b);
    shmem_finalize();
    return 0;
}

static void test_bounds_clean(void **state)
{
    (void)state;
    run_pes_each(body_bounds_clean, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_test_any_example),
        cmocka_unit_test(test_any_round_robin),
        cmocka_unit_test(test_zero_length),
        cmocka_unit_test(test_zero_length_bad_pe),
        cmocka_unit_test(test_align_large),
        cmocka_unit_test(test_align_refused),
        cmocka_unit_test(test_align_misuse),
        cmocka_unit_test(test_realloc_contents),
        cmocka_unit_test(test_realloc_no_room),
        cmocka_unit_test(test_realloc_misuse),
        cmocka_unit_test(test_negative_stride),
        cmocka_unit_test(test_split_args_differ),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_bounds_off),
        cmocka_unit_test(test_bounds_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
