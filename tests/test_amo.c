/*
 * test_amo.c: atomics: every family on every type of its list (fetch, set, swap,
 * compare_swap, inc, fetch_inc, add, fetch_add, and, or, xor and their fetching forms), the
 * floating-point fetch/set/swap, and contention: every PE hammering PE 0's words, after
 * which the totals and the set of fetched values must be exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define MAX_PES 8

/* ---- one PE drives a word on its neighbour through every standard AMO ---------------- */

/* Each PE owns slot[me] on the next PE, so the sequence of results is exact. */
#define AMO_SEQUENCE(TYPE, NAME)                                                              \
    static void amo_##NAME(int me, int n)                                                     \
    {                                                                                         \
        int next = (me + 1) % n, prev = (me - 1 + n) % n;                                     \
        TYPE *slot = nvshmem_calloc(MAX_PES, sizeof(TYPE));                                   \
        TYPE *d = &slot[me];                                                                  \
        nvshmem_barrier_all();                                                                \
        nvshmem_##NAME##_atomic_set(d, (TYPE)5, next);                                        \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), (TYPE)5);                     \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_swap(d, (TYPE)7, next), (TYPE)5);             \
        /* compare_swap that fails (cond 6 != 7) changes nothing, and returns the value */    \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_compare_swap(d, (TYPE)6, (TYPE)9, next),      \
                        (TYPE)7);                                                             \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), (TYPE)7);                     \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_compare_swap(d, (TYPE)7, (TYPE)9, next),      \
                        (TYPE)7);                                                             \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), (TYPE)9);                     \
        nvshmem_##NAME##_atomic_inc(d, next);                                                 \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_inc(d, next), (TYPE)10);                \
        nvshmem_##NAME##_atomic_add(d, (TYPE)5, next);                                        \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_add(d, (TYPE)3, next), (TYPE)16);       \
        /* adding -20 wraps an unsigned word to its maximum, a signed one to -1 */            \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_add(d, (TYPE)-20, next), (TYPE)19);     \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), (TYPE)-1);                    \
        nvshmem_##NAME##_atomic_inc(d, next);                                                 \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), (TYPE)0);                     \
        /* the full width takes part: a value with the top bit set */                         \
        TYPE top = (TYPE)(1ull << (sizeof(TYPE) * 8 - 1));                                    \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_swap(d, top, next), (TYPE)0);                 \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_compare_swap(d, top, (TYPE)42, next), top);   \
        nvshmem_barrier_all();                                                                \
        /* the owner sees the final value of its neighbour's slot, and nothing else moved */  \
        for (int q = 0; q < MAX_PES; q++)                                                     \
            PE_CHECK_MSG(slot[q] == (q == prev ? (TYPE)42 : (TYPE)0),                         \
                         #NAME ": slot %d = %llu", q, (unsigned long long)slot[q]);          \
        /* AMOs on oneself */                                                                 \
        nvshmem_##NAME##_atomic_set(&slot[me], (TYPE)1, me);                                  \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_add(&slot[me], (TYPE)2, me), (TYPE)1);  \
        PE_CHECK_EQ_U64(slot[me], (TYPE)3);                                                   \
        nvshmem_barrier_all();                                                                \
        nvshmem_free(slot);                                                                   \
    }
SHMEMU_AMO_TYPES(AMO_SEQUENCE)
#undef AMO_SEQUENCE

#define AMO_BITWISE(TYPE, NAME)                                                               \
    static void bitwise_##NAME(int me, int n)                                                 \
    {                                                                                         \
        int next = (me + 1) % n;                                                              \
        TYPE *slot = nvshmem_calloc(MAX_PES, sizeof(TYPE));                                   \
        TYPE *d = &slot[me];                                                                  \
        const TYPE a = (TYPE)0xf0f0f0f0f0f0f0f0ull, b = (TYPE)0xff00ff00ff00ff00ull;          \
        const TYPE c = (TYPE)0x0123456789abcdefull;                                           \
        nvshmem_barrier_all();                                                                \
        nvshmem_##NAME##_atomic_set(d, a, next);                                              \
        nvshmem_##NAME##_atomic_and(d, b, next);                                              \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), (TYPE)(a & b));               \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_and(d, c, next), (TYPE)(a & b));        \
        TYPE v = (TYPE)(a & b & c);                                                           \
        nvshmem_##NAME##_atomic_or(d, c, next);                                               \
        v = (TYPE)(v | c);                                                                    \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_or(d, a, next), v);                     \
        v = (TYPE)(v | a);                                                                    \
        nvshmem_##NAME##_atomic_xor(d, b, next);                                              \
        v = (TYPE)(v ^ b);                                                                    \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch_xor(d, c, next), v);                    \
        v = (TYPE)(v ^ c);                                                                    \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(d, next), v);                           \
        nvshmem_barrier_all();                                                                \
        /* contention: PE p sets bit p of PE 0's word with fetch_or; the fetched values */    \
        /* are each a subset of the final word, without the fetching PE's bit */              \
        TYPE *bits = &slot[MAX_PES - 1];                                                      \
        if (me == 0)                                                                          \
            *bits = 0;                                                                        \
        nvshmem_barrier_all();                                                                \
        TYPE mine = (TYPE)((TYPE)1 << me), all = (TYPE)(((TYPE)1 << n) - 1);                  \
        TYPE before = nvshmem_##NAME##_atomic_fetch_or(bits, mine, 0);                        \
        PE_CHECK((before & mine) == 0 && (before & (TYPE)~all) == 0);                         \
        nvshmem_barrier_all();                                                                \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(bits, 0), all);                         \
        /* and then clear them again with fetch_and */                                        \
        nvshmem_barrier_all();                                                                \
        before = nvshmem_##NAME##_atomic_fetch_and(bits, (TYPE)~mine, 0);                     \
        PE_CHECK((before & mine) == mine);                                                    \
        nvshmem_barrier_all();                                                                \
        PE_CHECK_EQ_U64(nvshmem_##NAME##_atomic_fetch(bits, 0), 0);                           \
        nvshmem_barrier_all();                                                                \
        nvshmem_free(slot);                                                                   \
    }
SHMEMU_AMO_BITWISE_TYPES(AMO_BITWISE)
#undef AMO_BITWISE

static int families_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
#define CALL(TYPE, NAME) amo_##NAME(me, n);
    SHMEMU_AMO_TYPES(CALL)
#undef CALL
#define CALL(TYPE, NAME) bitwise_##NAME(me, n);
    SHMEMU_AMO_BITWISE_TYPES(CALL)
#undef CALL
    nvshmem_finalize();
    return 0;
}

static void test_every_amo_family(void **state)
{
    (void)state;
    run_pes_each(families_body, NULL);
}

/* ---- float and double fetch/set/swap -------------------------------------------------- */

static int float_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    float *f = nvshmem_calloc(MAX_PES, sizeof(float));
    double *d = nvshmem_calloc(MAX_PES, sizeof(double));
    double *z = nvshmem_calloc(1, sizeof(double));
    nvshmem_barrier_all();
    float f1 = 1.5f + (float)me, f2 = -0.1f * (float)(me + 1);
    double d1 = 1.0 / 3.0 + me, d2 = -1e300 * (me + 1);
    nvshmem_float_atomic_set(&f[me], f1, next);
    nvshmem_double_atomic_set(&d[me], d1, next);
    PE_CHECK_EQ_FLT_BITS(nvshmem_float_atomic_fetch(&f[me], next), f1);
    PE_CHECK_EQ_DBL_BITS(nvshmem_double_atomic_fetch(&d[me], next), d1);
    PE_CHECK_EQ_FLT_BITS(nvshmem_float_atomic_swap(&f[me], f2, next), f1);
    PE_CHECK_EQ_DBL_BITS(nvshmem_double_atomic_swap(&d[me], d2, next), d1);
    /* -0.0 keeps its sign bit */
    PE_CHECK_EQ_DBL_BITS(nvshmem_double_atomic_swap(z, -0.0, me), 0.0);
    PE_CHECK_EQ_DBL_BITS(nvshmem_double_atomic_fetch(z, me), -0.0);
    nvshmem_barrier_all();
    PE_CHECK_EQ_FLT_BITS(f[prev], -0.1f * (float)(prev + 1));
    PE_CHECK_EQ_DBL_BITS(d[prev], -1e300 * (prev + 1));
    nvshmem_barrier_all();
    nvshmem_free(z);
    nvshmem_free(d);
    nvshmem_free(f);
    nvshmem_finalize();
    return 0;
}

static void test_float_double_fetch_set_swap(void **state)
{
    (void)state;
    run_pes_each(float_body, NULL);
}

/* ---- contention on PE 0 --------------------------------------------------------------- */

typedef struct contention_job {
    int n, k;
    uint64_t *fetched; /* [n][k]: what each fetch_add returned, checked by the test thread */
    int32_t *fetched32;
} contention_job;

static int contention_body(void *arg)
{
    contention_job *job = arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    const int k = job->k;
    uint64_t *counter = nvshmem_calloc(1, sizeof(uint64_t));
    int *counter32 = nvshmem_calloc(1, sizeof(int));
    long *by_cas = nvshmem_calloc(1, sizeof(long));
    size_t *by_inc = nvshmem_calloc(1, sizeof(size_t));
    nvshmem_barrier_all();
    for (int i = 0; i < k; i++) {
        job->fetched[(size_t)me * (size_t)k + (size_t)i] =
            nvshmem_uint64_atomic_fetch_add(counter, 1, 0);
        job->fetched32[(size_t)me * (size_t)k + (size_t)i] =
            nvshmem_int_atomic_fetch_inc(counter32, 0);
        nvshmem_size_atomic_inc(by_inc, 0);
        /* an increment built from compare_swap: retried until no other PE got in between */
        long seen = nvshmem_long_atomic_fetch(by_cas, 0);
        for (;;) {
            long old = nvshmem_long_atomic_compare_swap(by_cas, seen, seen + 1, 0);
            if (old == seen)
                break;
            PE_CHECK(old > seen); /* the word only grows */
            seen = old;
        }
    }
    nvshmem_barrier_all();
    uint64_t total = (uint64_t)n * (uint64_t)k;
    if (me == 0) {
        PE_CHECK_EQ_U64(*counter, total);
        PE_CHECK_EQ_I64(*counter32, (int64_t)total);
        PE_CHECK_EQ_I64(*by_cas, (int64_t)total);
        PE_CHECK_EQ_U64(*by_inc, total);
    }
    PE_CHECK_EQ_U64(nvshmem_uint64_atomic_fetch(counter, 0), total);
    /* Each PE's own fetched values increase. */
    for (int i = 1; i < k; i++) {
        size_t at = (size_t)me * (size_t)k + (size_t)i;
        PE_CHECK(job->fetched[at] > job->fetched[at - 1]);
        PE_CHECK(job->fetched32[at] > job->fetched32[at - 1]);
    }
    nvshmem_barrier_all();
    nvshmem_free(by_inc);
    nvshmem_free(by_cas);
    nvshmem_free(counter32);
    nvshmem_free(counter);
    nvshmem_finalize();
    return 0;
}

static void test_contention_on_pe0(void **state)
{
    (void)state;
    for (int c = 0; c < PE_COUNTS_N; c++) {
        contention_job job = {.n = pe_counts[c], .k = pe_check_scaled(2000, 40)};
        size_t total = (size_t)job.n * (size_t)job.k;
        /* written by every PE, read here: shared, for the process backend's PE processes */
        job.fetched = pe_check_shared_calloc(total * sizeof *job.fetched);
        job.fetched32 = pe_check_shared_calloc(total * sizeof *job.fetched32);
        run_pes(job.n, contention_body, &job);
        /* The fetched values are exactly 0 .. total-1, each once. */
        unsigned char *seen = calloc(total, 1), *seen32 = calloc(total, 1);
        size_t dup = 0, out_of_range = 0;
        for (size_t i = 0; i < total; i++) {
            uint64_t v = job.fetched[i];
            int32_t v32 = job.fetched32[i];
            if (v >= total || v32 < 0 || (size_t)v32 >= total) {
                out_of_range++;
                continue;
            }
            dup += seen[v]++ != 0;
            dup += seen32[v32]++ != 0;
        }
        assert_int_equal(out_of_range, 0);
        assert_int_equal(dup, 0);
        free(seen32);
        free(seen);
        pe_check_shared_free(job.fetched32, total * sizeof *job.fetched32);
        pe_check_shared_free(job.fetched, total * sizeof *job.fetched);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_amo_family),
        cmocka_unit_test(test_float_double_fetch_set_swap),
        cmocka_unit_test(test_contention_on_pe0),
    };
    return cmocka_run_group_tests_name("amo", tests, NULL, NULL);
}
