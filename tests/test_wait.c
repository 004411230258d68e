/*
 * test_wait.c: point-to-point synchronization: nvshmem_TYPE_wait_until and its _all, _any,
 * _some and _vector forms, and the nvshmem_TYPE_test family.
 *
 * Comparisons follow the word's type: for a signed type -1 < 1, for an unsigned one
 * (TYPE)-1 is the largest value. The status array excludes entries where it is non-zero
 * (OpenSHMEM 1.5, which NVSHMEM follows); NULL excludes none. With nothing left to wait
 * for, _any returns SIZE_MAX and _some returns 0 (OpenSHMEM 1.5).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/internal/pgas_emu.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* ---- comparisons on every wait type, checked locally with _test ---------------------- */

/* For ivar = (TYPE)-1 compared with 1: signed types see -1 < 1, unsigned types MAX > 1. */
#define CMP_SEMANTICS(TYPE, NAME)                                                             \
    static void cmp_##NAME(void)                                                              \
    {                                                                                         \
        TYPE *ivar = nvshmem_malloc(sizeof(TYPE));                                            \
        const int is_signed = (TYPE)-1 < (TYPE)1;                                             \
        *ivar = (TYPE)-1;                                                                     \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_GT, (TYPE)1) == !is_signed,      \
                     #NAME ": -1 > 1");                                                       \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_LT, (TYPE)1) == is_signed,       \
                     #NAME ": -1 < 1");                                                       \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_GE, (TYPE)1) == !is_signed,      \
                     #NAME ": -1 >= 1");                                                      \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_LE, (TYPE)1) == is_signed,       \
                     #NAME ": -1 <= 1");                                                      \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_EQ, (TYPE)-1) == 1,              \
                     #NAME ": -1 == -1");                                                     \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_NE, (TYPE)-1) == 0,              \
                     #NAME ": -1 != -1");                                                     \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_EQ, (TYPE)1) == 0,               \
                     #NAME ": -1 == 1");                                                      \
        /* the comparison uses the whole word, not its low bytes */                           \
        *ivar = (TYPE)(1ull << (sizeof(TYPE) * 8 - 2));                                       \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_EQ, (TYPE)0) == 0,               \
                     #NAME ": high bit == 0");                                                \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_GT, (TYPE)1) == 1,               \
                     #NAME ": high bit > 1");                                                 \
        *ivar = (TYPE)7;                                                                      \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_GE, (TYPE)7) == 1,               \
                     #NAME ": 7 >= 7");                                                       \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_LE, (TYPE)7) == 1,               \
                     #NAME ": 7 <= 7");                                                       \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_GT, (TYPE)7) == 0,               \
                     #NAME ": 7 > 7");                                                        \
        PE_CHECK_MSG(nvshmem_##NAME##_test(ivar, NVSHMEM_CMP_LT, (TYPE)7) == 0,               \
                     #NAME ": 7 < 7");                                                        \
        /* satisfied waits return at once */                                                  \
        nvshmem_##NAME##_wait_until(ivar, NVSHMEM_CMP_EQ, (TYPE)7);                           \
        *ivar = (TYPE)-1;                                                                     \
        nvshmem_##NAME##_wait_until(ivar, is_signed ? NVSHMEM_CMP_LT : NVSHMEM_CMP_GT,        \
                                    (TYPE)0);                                                 \
        nvshmem_free(ivar);                                                                   \
    }
SHMEMU_WAIT_TYPES(CMP_SEMANTICS)
#undef CMP_SEMANTICS

static int cmp_body(void *arg)
{
    (void)arg;
    nvshmem_init();
#define CALL(TYPE, NAME) cmp_##NAME();
    SHMEMU_WAIT_TYPES(CALL)
#undef CALL
    nvshmem_finalize();
    return 0;
}

static void test_comparisons_follow_the_type(void **state)
{
    (void)state;
    run_pes(1, cmp_body, NULL);
    run_pes(3, cmp_body, NULL);
}

/* ---- wait_until on negative values, updated by another PE ----------------------------- */

static int negative_wait_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n;
    int *iv = nvshmem_malloc(sizeof(int));
    long *lv = nvshmem_malloc(sizeof(long));
    int64_t *i64 = nvshmem_malloc(sizeof(int64_t));
    *iv = -5;
    *lv = -5;
    *i64 = INT64_MIN;
    nvshmem_barrier_all();
    /* Each PE raises its neighbour's words through negative values; the neighbour waits
     * with GT on a negative bound, which an unsigned comparison would pass at once
     * (and the reads below would then see the old value). The words are updated with
     * atomics: a put into a word that a PE is polling is a plain write racing with the
     * polls, which helgrind and DRD report. */
    nvshmem_int_atomic_set(iv, -1, next);
    nvshmem_long_atomic_set(lv, -2, next);
    nvshmem_int64_atomic_set(i64, -4, next);
    nvshmem_int_wait_until(iv, NVSHMEM_CMP_GT, -2);
    PE_CHECK_EQ_I64(*iv, -1);
    nvshmem_long_wait_until(lv, NVSHMEM_CMP_GT, -4);
    PE_CHECK_EQ_I64(*lv, -2);
    nvshmem_int64_wait_until(i64, NVSHMEM_CMP_NE, INT64_MIN);
    PE_CHECK_EQ_I64(*i64, -4);
    nvshmem_barrier_all();
    /* LT on negatives: lower them. */
    nvshmem_int_atomic_set(iv, -100, next);
    nvshmem_long_atomic_set(lv, -200, next);
    nvshmem_int_wait_until(iv, NVSHMEM_CMP_LT, -50);
    PE_CHECK_EQ_I64(*iv, -100);
    nvshmem_long_wait_until(lv, NVSHMEM_CMP_LE, -200);
    PE_CHECK_EQ_I64(*lv, -200);
    nvshmem_barrier_all();
    /* Unsigned: a large value is greater. */
    unsigned int *uv = nvshmem_calloc(1, sizeof(unsigned int));
    nvshmem_barrier_all();
    nvshmem_uint_atomic_set(uv, 0xfffffff0u, next);
    nvshmem_uint_wait_until(uv, NVSHMEM_CMP_GT, 0x7fffffffu);
    PE_CHECK_EQ_U64(*uv, 0xfffffff0u);
    nvshmem_barrier_all();
    nvshmem_free(uv);
    nvshmem_free(i64);
    nvshmem_free(lv);
    nvshmem_free(iv);
    nvshmem_finalize();
    return 0;
}

static void test_wait_until_signed_unsigned(void **state)
{
    (void)state;
    run_pes_each(negative_wait_body, NULL);
}

/* ---- _all, _any, _some and the vector forms ------------------------------------------ */

enum { K = 8 };

/* The indices a _some call returned, in increasing order (the order is not specified). */
static void sort_indices(size_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
}

/* status: entries 1 and 6 are excluded (they are set too, and must not count). */
static const int excluded[K] = {0, 1, 0, 0, 0, 0, 1, 0};

static int multi_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n;
    int64_t *iv = nvshmem_calloc(K, sizeof(int64_t));
    uint64_t *uv = nvshmem_calloc(K, sizeof(uint64_t));
    size_t idx[K];
    nvshmem_barrier_all();

    /* Phase 1: _any. The sender sets the excluded entry 1 first, then entry 3: an _any that
     * ignored the status could return 1. */
    nvshmem_int64_atomic_set(&iv[1], 9, next);
    nvshmem_int64_atomic_set(&iv[3], 9, next);
    size_t any = nvshmem_int64_wait_until_any(iv, K, excluded, NVSHMEM_CMP_EQ, 9);
    PE_CHECK_EQ_U64(any, 3);
    PE_CHECK_EQ_U64(nvshmem_int64_test_any(iv, K, excluded, NVSHMEM_CMP_EQ, 9), 3);
    /* without a status array the lowest satisfied index is one of 1 and 3 */
    size_t any_all = nvshmem_int64_test_any(iv, K, NULL, NVSHMEM_CMP_EQ, 9);
    PE_CHECK(any_all == 1 || any_all == 3);
    /* none satisfied: SIZE_MAX */
    PE_CHECK_EQ_U64(nvshmem_int64_test_any(iv, K, excluded, NVSHMEM_CMP_EQ, 12345), SIZE_MAX);
    /* (before the barrier, so that phase 2's sender has not started) */
    PE_CHECK_EQ_I64(nvshmem_int64_test_all(iv, K, excluded, NVSHMEM_CMP_GT, 0), 0);
    nvshmem_barrier_all();

    /* Phase 2: _all. The sender sets every included entry, counting up; the excluded ones
     * stay 0, so an _all that ignored the status would never return. */
    for (int i = K - 1; i >= 0; i--) {
        if (!excluded[i])
            nvshmem_int64_atomic_set(&iv[i], 100 + i, next);
    }
    nvshmem_int64_wait_until_all(iv, K, excluded, NVSHMEM_CMP_GE, 100);
    for (int i = 0; i < K; i++)
        if (!excluded[i])
            PE_CHECK_EQ_I64(iv[i], 100 + i);
    PE_CHECK_EQ_I64(iv[6], 0);
    PE_CHECK_EQ_I64(nvshmem_int64_test_all(iv, K, excluded, NVSHMEM_CMP_GE, 100), 1);
    PE_CHECK_EQ_I64(nvshmem_int64_test_all(iv, K, NULL, NVSHMEM_CMP_GE, 100), 0);
    /* everything excluded: trivially true, and the wait returns at once */
    static const int all_excluded[K] = {1, 1, 1, 1, 1, 1, 1, 1};
    PE_CHECK_EQ_I64(nvshmem_int64_test_all(iv, K, all_excluded, NVSHMEM_CMP_EQ, -1), 1);
    nvshmem_int64_wait_until_all(iv, K, all_excluded, NVSHMEM_CMP_EQ, -1);
    PE_CHECK_EQ_U64(nvshmem_int64_wait_until_any(iv, K, all_excluded, NVSHMEM_CMP_EQ, -1),
                    SIZE_MAX);
    PE_CHECK_EQ_U64(nvshmem_int64_wait_until_some(iv, K, idx, all_excluded, NVSHMEM_CMP_EQ, -1),
                    0);
    nvshmem_barrier_all();

    /* Phase 3: _some on uint64. The sender sets entries 2, 4 and the excluded 6; a _some
     * returns at least one of 2 and 4, never 6. */
    nvshmem_uint64_atomic_set(&uv[6], 1, next);
    nvshmem_uint64_atomic_set(&uv[2], 1, next);
    nvshmem_uint64_atomic_set(&uv[4], 1, next);
    size_t got = nvshmem_uint64_wait_until_some(uv, K, idx, excluded, NVSHMEM_CMP_EQ, 1);
    PE_CHECK(got >= 1 && got <= 2);
    sort_indices(idx, got < K ? got : K);
    for (size_t j = 0; j < got && j < K; j++)
        PE_CHECK_MSG(idx[j] == (got == 1 ? idx[0] : 2 + 2 * j) && (idx[j] == 2 || idx[j] == 4),
                     "wait_until_some index %zu", idx[j]);
    nvshmem_uint64_wait_until_all(uv, K, (const int[K]){1, 1, 0, 1, 0, 1, 1, 1},
                                  NVSHMEM_CMP_EQ, 1);
    memset(idx, 0xff, sizeof idx);
    PE_CHECK_EQ_U64(nvshmem_uint64_test_some(uv, K, idx, excluded, NVSHMEM_CMP_EQ, 1), 2);
    sort_indices(idx, 2);
    PE_CHECK_EQ_U64(idx[0], 2);
    PE_CHECK_EQ_U64(idx[1], 4);
    PE_CHECK_EQ_U64(nvshmem_uint64_test_some(uv, K, idx, NULL, NVSHMEM_CMP_EQ, 1), 3);
    sort_indices(idx, 3);
    PE_CHECK_EQ_U64(idx[2], 6);
    PE_CHECK_EQ_U64(nvshmem_uint64_test_some(uv, K, idx, excluded, NVSHMEM_CMP_EQ, 77), 0);
    nvshmem_barrier_all();

    /* Phase 4: vector forms, one comparison value per entry: entry i waits for 10 * i. */
    uint64_t want[K];
    for (int i = 0; i < K; i++) {
        uv[i] = 0;
        want[i] = 10u * (uint64_t)i + 10;
    }
    nvshmem_barrier_all();
    /* _any_vector: entry 5 gets its value, entry 0 gets a wrong one. */
    nvshmem_uint64_atomic_set(&uv[0], 11, next);
    nvshmem_uint64_atomic_set(&uv[5], want[5], next);
    PE_CHECK_EQ_U64(nvshmem_uint64_wait_until_any_vector(uv, K, NULL, NVSHMEM_CMP_EQ, want), 5);
    PE_CHECK_EQ_U64(nvshmem_uint64_test_any_vector(uv, K, NULL, NVSHMEM_CMP_EQ, want), 5);
    nvshmem_barrier_all(); /* before the sender sets entry 7, which _any could also return */
    /* _some_vector: entry 7 too */
    nvshmem_uint64_atomic_set(&uv[7], want[7], next);
    nvshmem_uint64_wait_until(&uv[7], NVSHMEM_CMP_EQ, want[7]);
    PE_CHECK_EQ_U64(nvshmem_uint64_wait_until_some_vector(uv, K, idx, NULL, NVSHMEM_CMP_EQ,
                                                          want),
                    2);
    sort_indices(idx, 2);
    PE_CHECK_EQ_U64(idx[0], 5);
    PE_CHECK_EQ_U64(idx[1], 7);
    /* GE: entry 0 (11 >= 10) counts as well */
    PE_CHECK_EQ_U64(nvshmem_uint64_test_some_vector(uv, K, idx, excluded, NVSHMEM_CMP_GE, want),
                    3);
    sort_indices(idx, 3);
    PE_CHECK_EQ_U64(idx[0], 0);
    PE_CHECK_EQ_U64(idx[2], 7);
    PE_CHECK_EQ_I64(nvshmem_uint64_test_all_vector(uv, K, NULL, NVSHMEM_CMP_EQ, want), 0);
    nvshmem_barrier_all();
    /* _all_vector: every entry to its value (entry 0 too). Entries 5 and 7 have theirs
     * already: writing them again would race with the reads below, which the wait does not
     * order after a write it did not need. */
    for (int i = 0; i < K; i++)
        if (i != 5 && i != 7)
            nvshmem_uint64_atomic_set(&uv[i], want[i], next);
    nvshmem_uint64_wait_until_all_vector(uv, K, NULL, NVSHMEM_CMP_EQ, want);
    for (int i = 0; i < K; i++)
        PE_CHECK_EQ_U64(uv[i], want[i]);
    PE_CHECK_EQ_I64(nvshmem_uint64_test_all_vector(uv, K, NULL, NVSHMEM_CMP_EQ, want), 1);
    PE_CHECK_EQ_I64(nvshmem_uint64_test_all_vector(uv, K, NULL, NVSHMEM_CMP_GT, want), 0);
    nvshmem_barrier_all();

    /* Phase 5: a signed vector wait on negative bounds (int32). */
    int32_t *sv = nvshmem_malloc(K * sizeof(int32_t));
    int32_t bounds[K];
    for (int i = 0; i < K; i++) {
        sv[i] = -1000;
        bounds[i] = -10 * (i + 1);
    }
    nvshmem_barrier_all();
    for (int i = 0; i < K; i++)
        nvshmem_int32_atomic_set(&sv[i], bounds[i] + 1, next); /* just above the bound */
    nvshmem_int32_wait_until_all_vector(sv, K, NULL, NVSHMEM_CMP_GT, bounds);
    for (int i = 0; i < K; i++)
        PE_CHECK_EQ_I64(sv[i], bounds[i] + 1);
    PE_CHECK_EQ_I64(nvshmem_int32_test_all_vector(sv, K, NULL, NVSHMEM_CMP_LT, bounds), 0);
    nvshmem_barrier_all();
    nvshmem_free(sv);
    nvshmem_free(uv);
    nvshmem_free(iv);
    nvshmem_finalize();
    return 0;
}

static void test_all_any_some_vector(void **state)
{
    (void)state;
    run_pes_each(multi_body, NULL);
}

/* ---- _test on words updated by another PE: a poll loop ends -------------------------- */

static int test_poll_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    long *flag = nvshmem_calloc(1, sizeof(long));
    long *data = nvshmem_calloc(1, sizeof(long));
    nvshmem_barrier_all();
    /* Data first, fence, then the flag: once the poll sees the flag, the data is there. */
    nvshmem_long_p(data, 1000 + me, (me + 1) % n);
    nvshmem_fence();
    nvshmem_long_atomic_set(flag, 1, (me + 1) % n);
    while (!nvshmem_long_test(flag, NVSHMEM_CMP_EQ, 1))
        ;
    PE_CHECK_EQ_I64(*data, 1000 + (me - 1 + n) % n);
    nvshmem_barrier_all();
    nvshmem_free(data);
    nvshmem_free(flag);
    nvshmem_finalize();
    return 0;
}

static void test_test_polls_until_set(void **state)
{
    (void)state;
    run_pes_each(test_poll_body, NULL);
}

/* ---- a long put wakes the waiters of its range, and only those ----------------------- */

#define LONG_WORDS 1024 /* longs in the array; a put of the first half is "long" (> 64 words) */
#define WAITED_WORD 1000

static pgas_thread *_Atomic waiter_thread;

/* Returns once a thread is parked on a word of PE pe's heap; fails the test if none parks
 * within 120 s (a wait that never parks is a bug of its own). */
static void await_parked_on(int pe)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (shmemu_parked_on(pe) <= 0) {
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!PE_CHECK_MSG(now.tv_sec - t0.tv_sec < 120, "PE %d's waiter never parked in 120 s",
                          pe))
            return;
    }
}

/* PE 1 waits on word WAITED_WORD of its array. PE 0, once PE 1 is in its wait, puts the first
 * half of the array into PE 1 again and again: none of those puts touches the waited word,
 * so none may wake PE 1 (they once woke every parked thread of the job). Then it puts the
 * second half, which holds the word: first a value that leaves the wait unsatisfied (those
 * puts must wake it), then the awaited one, and PE 1's wait ends. */
static int long_put_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    const int me = nvshmem_my_pe();
    long *words = nvshmem_calloc(LONG_WORDS, sizeof(long));
    long *src = calloc(LONG_WORDS, sizeof(long));
    for (int i = 0; i < LONG_WORDS; i++)
        src[i] = 7;
    nvshmem_barrier_all();
    if (me == 1) {
        atomic_store(&waiter_thread, pgas_thread_self());
        nvshmem_long_wait_until(&words[WAITED_WORD], NVSHMEM_CMP_EQ, 7);
    } else if (me == 0) {
        pgas_wait_info info;
        pgas_thread *w;
        while ((w = atomic_load(&waiter_thread)) == NULL || !pgas_thread_wait_info(w, &info))
            sched_yield();
        /* Each put goes out while PE 1 is parked (asleep, not polling): one that woke it
         * would be counted. Waiting for the park, rather than sleeping a fixed time, keeps
         * the check meaningful on a slow or busy machine. */
        const uint64_t before = shmemu_wakes_sent();
        for (int k = 0; k < 20; k++) {
            await_parked_on(1);
            nvshmem_long_put(words, src, LONG_WORDS / 2, 1);
        }
        PE_CHECK_MSG(shmemu_wakes_sent() == before,
                     "puts beside the waited word woke a parked waiter %llu time(s)",
                     (unsigned long long)(shmemu_wakes_sent() - before));
        if (pe_check_under_race_checker()) {
            /* A long put is a plain copy, so a put over a word that another PE polls is a
             * race the checkers report (delivery.c): end the wait with an atomic instead,
             * and leave the half below to the native suite. */
            nvshmem_long_atomic_set(&words[WAITED_WORD], 7, 1);
            printf("[   NOTE   ] long puts over a polled word: native suite only (a race "
                   "by design under the checkers)\n");
            goto done;
        }
        /* Puts over the word that leave the wait unsatisfied (5, not 7) must wake it when
         * it is parked. The waiter naps in bounded sleeps, so it may wake by itself between
         * our look and our put: try until a put finds it asleep, up to 1000 puts. */
        for (int i = 0; i < LONG_WORDS; i++)
            src[i] = 5;
        int tries = 0;
        while (shmemu_wakes_sent() == before && tries < 1000) {
            await_parked_on(1);
            nvshmem_long_put(words + LONG_WORDS / 2, src, LONG_WORDS / 2, 1);
            tries++;
        }
        PE_CHECK_MSG(shmemu_wakes_sent() > before,
                     "%d puts over the waited word, each sent while its waiter was parked, "
                     "never woke it", tries);
        for (int i = 0; i < LONG_WORDS; i++)
            src[i] = 7;
        nvshmem_long_put(words + LONG_WORDS / 2, src, LONG_WORDS / 2, 1);
    }
done:
    nvshmem_barrier_all();
    if (me == 1) {
        PE_CHECK_EQ_I64(words[0], 7);
        PE_CHECK_EQ_I64(words[WAITED_WORD], 7);
    }
    free(src);
    nvshmem_free(words);
    nvshmem_finalize();
    return 0;
}

static void test_long_put_wakes_only_its_range(void **state)
{
    (void)state;
    atomic_store(&waiter_thread, NULL);
    run_pes(2, long_put_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comparisons_follow_the_type),
        cmocka_unit_test(test_wait_until_signed_unsigned),
        cmocka_unit_test(test_all_any_some_vector),
        cmocka_unit_test(test_test_polls_until_set),
        cmocka_unit_test(test_long_put_wakes_only_its_range),
    };
    return cmocka_run_group_tests_name("wait", tests, NULL, NULL);
}
