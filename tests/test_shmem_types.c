/*
 * test_shmem_types.c: the types OpenSHMEM 1.5 has beyond NVSHMEM (long double in RMA and
 * collectives, double _Complex and float _Complex in sum/prod reductions) and the C11
 * generic selections for every type the specification's tables list, at 1, 2, 3 and 8 PEs.
 *
 * Values are exact: long doubles carry more precision than a double can hold (a wrong
 * element size or a trip through double loses it), complex results are compared with the
 * same combination done here in team PE order. The generic checks call shmem_put(),
 * shmem_atomic_and(), shmem_and_reduce() ... with pointers to the newly covered types
 * (long double *, int32_t *, int8_t *, double _Complex *, ...): a type missing from a
 * selection fails to compile, a wrong one moves wrong values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <complex.h>
#include <float.h>
#include <string.h>

#include "shmem.h"
#include "support/pe_check.h"

enum { N = 6 };

/* A long double no double holds: 1 + 2^-60 rounds to 1 in double. */
static long double ld_value(int pe, int i)
{
    return (long double)(pe * 10 + i) + 0x1p-60L * (long double)(i + 1);
}

_Static_assert(LDBL_MANT_DIG > 61, "long double must hold 1 + 2^-60 for these checks");

/* ---- long double RMA ----------------------------------------------------------------- */

static int body_longdouble_rma(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long double *a = shmem_calloc(2 * N, sizeof(long double));
    long double *b = shmem_calloc(2 * N, sizeof(long double));
    long double mine[2 * N], got[2 * N];
    for (int i = 0; i < 2 * N; i++)
        mine[i] = ld_value(me, i);
    shmem_barrier_all();

    shmem_longdouble_put(a, mine, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        PE_CHECK(a[i] == ld_value(left, i));

    shmem_longdouble_get(got, a, N, right); /* right's a holds my values */
    for (int i = 0; i < N; i++)
        PE_CHECK(got[i] == ld_value(me, i));

    shmem_longdouble_p(&b[0], ld_value(me, 7), right);
    shmem_barrier_all();
    PE_CHECK(b[0] == ld_value(left, 7));
    PE_CHECK(shmem_longdouble_g(&b[0], right) == ld_value(me, 7));
    shmem_barrier_all();

    /* strided: every second element of mine into every third of right's b */
    memset(got, 0, sizeof got);
    shmem_longdouble_iput(b, mine, 3, 2, 4, right);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        PE_CHECK(b[3 * i] == ld_value(left, 2 * i));
    shmem_longdouble_iget(got, b, 2, 3, 4, right);
    for (int i = 0; i < 4; i++)
        PE_CHECK(got[2 * i] == ld_value(me, 2 * i));
    shmem_barrier_all();

    shmem_longdouble_put_nbi(a + N, mine + N, N, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = N; i < 2 * N; i++)
        PE_CHECK(a[i] == ld_value(left, i));
    shmem_longdouble_get_nbi(got, a + N, N, right);
    shmem_quiet();
    for (int i = 0; i < N; i++)
        PE_CHECK(got[i] == ld_value(me, N + i));

    /* C11: shmem_put / shmem_get / shmem_p / shmem_g select the long double routines */
    shmem_barrier_all();
    shmem_put(b, mine, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        PE_CHECK(b[i] == ld_value(left, i));
    shmem_get(got, b, N, right);
    for (int i = 0; i < N; i++)
        PE_CHECK(got[i] == ld_value(me, i));
    shmem_barrier_all();
    shmem_p(&a[0], ld_value(me, 9), right);
    shmem_barrier_all();
    PE_CHECK(shmem_g(&a[0], me) == ld_value(left, 9));
    shmem_barrier_all();
    shmem_free(b);
    shmem_free(a);
    shmem_finalize();
    return 0;
}

static void test_longdouble_rma(void **state)
{
    (void)state;
    run_pes_each(body_longdouble_rma, NULL);
}

/* ---- long double collectives --------------------------------------------------------- */

static int body_longdouble_coll(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long double *src = shmem_malloc((size_t)n * N * sizeof(long double));
    long double *dst = shmem_malloc((size_t)n * N * sizeof(long double));
    for (int i = 0; i < n * N; i++)
        src[i] = ld_value(me, i);

    int root = n - 1;
    PE_CHECK_EQ_I64(shmem_longdouble_broadcast(SHMEM_TEAM_WORLD, dst, src, N, root), 0);
    for (int i = 0; i < N; i++)
        PE_CHECK(dst[i] == ld_value(root, i));

    PE_CHECK_EQ_I64(shmem_longdouble_fcollect(SHMEM_TEAM_WORLD, dst, src, N), 0);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < N; i++)
            PE_CHECK(dst[p * N + i] == ld_value(p, i));

    PE_CHECK_EQ_I64(shmem_longdouble_alltoall(SHMEM_TEAM_WORLD, dst, src, 1), 0);
    for (int p = 0; p < n; p++)
        PE_CHECK(dst[p] == ld_value(p, me));

    PE_CHECK_EQ_I64(shmem_longdouble_collect(SHMEM_TEAM_WORLD, dst, src, 2), 0);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < 2; i++)
            PE_CHECK(dst[p * 2 + i] == ld_value(p, i));

    /* reductions: min, max, sum, prod keep the long double precision */
    long double *r = shmem_malloc(N * sizeof(long double));
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_longdouble_min_reduce(SHMEM_TEAM_WORLD, r, src, N), 0);
    for (int i = 0; i < N; i++)
        PE_CHECK(r[i] == ld_value(0, i));
    PE_CHECK_EQ_I64(shmem_longdouble_max_reduce(SHMEM_TEAM_WORLD, r, src, N), 0);
    for (int i = 0; i < N; i++)
        PE_CHECK(r[i] == ld_value(n - 1, i));
    PE_CHECK_EQ_I64(shmem_sum_reduce(SHMEM_TEAM_WORLD, r, src, N), 0); /* C11 selection */
    for (int i = 0; i < N; i++) {
        long double want = ld_value(0, i);
        for (int p = 1; p < n; p++)
            want += ld_value(p, i);
        PE_CHECK(r[i] == want);
    }
    for (int i = 0; i < N; i++)
        src[i] = 1.0L + 0x1p-62L * (long double)(me + 1);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_prod_reduce(SHMEM_TEAM_WORLD, r, src, N), 0);
    long double want = 1.0L + 0x1p-62L;
    for (int p = 1; p < n; p++)
        want *= 1.0L + 0x1p-62L * (long double)(p + 1);
    for (int i = 0; i < N; i++)
        PE_CHECK(r[i] == want);
    /* the check sees the low bits (valgrind computes long double at double precision) */
    PE_CHECK(n == 1 || want != 1.0L || pe_check_under_valgrind());
    shmem_barrier_all();
    shmem_free(r);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

static void test_longdouble_coll(void **state)
{
    (void)state;
    run_pes_each(body_longdouble_coll, NULL);
}

/* ---- complex reductions -------------------------------------------------------------- */

#define COMPLEX_VALUE(TYPE, p, i) ((TYPE)(0.1 * ((p) + 1) + (i)) + (TYPE)(0.3 * (p) - 1) * (TYPE)I)

#define CHECK_COMPLEX(TYPE, NAME)                                                             \
    static void complex_##NAME(int me, int n)                                                 \
    {                                                                                         \
        TYPE *src = shmem_malloc(N * sizeof(TYPE));                                           \
        TYPE *dst = shmem_malloc(N * sizeof(TYPE));                                           \
        for (int i = 0; i < N; i++)                                                           \
            src[i] = COMPLEX_VALUE(TYPE, me, i);                                              \
        shmem_barrier_all();                                                                  \
        PE_CHECK_EQ_I64(shmem_##NAME##_sum_reduce(SHMEM_TEAM_WORLD, dst, src, N), 0);         \
        for (int i = 0; i < N; i++) {                                                         \
            TYPE want = COMPLEX_VALUE(TYPE, 0, i);                                            \
            for (int p = 1; p < n; p++)                                                       \
                want = want + COMPLEX_VALUE(TYPE, p, i);                                      \
            PE_CHECK_MSG(memcmp(&dst[i], &want, sizeof want) == 0, #NAME " sum element %d", i); \
        }                                                                                     \
        PE_CHECK_EQ_I64(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst, src, N), 0);                 \
        for (int i = 0; i < N; i++) {                                                         \
            TYPE want = COMPLEX_VALUE(TYPE, 0, i);                                            \
            for (int p = 1; p < n; p++)                                                       \
                want = want * COMPLEX_VALUE(TYPE, p, i);                                      \
            PE_CHECK_MSG(memcmp(&dst[i], &want, sizeof want) == 0, #NAME " prod element %d", \
                         i);                                                                  \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        shmem_free(dst);                                                                      \
        shmem_free(src);                                                                      \
    }
SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(CHECK_COMPLEX)
#undef CHECK_COMPLEX

static int body_complex(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    complex_complexd(me, n);
    complex_complexf(me, n);
    shmem_finalize();
    return 0;
}

static void test_complex_reduce(void **state)
{
    (void)state;
    run_pes_each(body_complex, NULL);
}

/* ---- generic selections for the fixed-width types ----------------------------------- */

/* int32_t and int64_t in the bitwise atomics; int8_t..int64_t in and/or/xor reductions. */
static int body_generic_fixed(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int32_t *w32 = shmem_malloc(sizeof(int32_t));
    int64_t *w64 = shmem_malloc(sizeof(int64_t));
    *w32 = -1;
    *w64 = -1;
    shmem_barrier_all();
    /* each PE clears its bit (me % 31, me % 63) in PE 0's words */
    shmem_atomic_and(w32, (int32_t) ~(INT32_C(1) << (me % 31)), 0);
    int64_t old = shmem_atomic_fetch_xor(w64, (int64_t)(INT64_C(1) << (me % 63)), 0);
    (void)old;
    shmem_barrier_all();
    if (me == 0) {
        int32_t want32 = -1;
        int64_t want64 = -1;
        for (int p = 0; p < n; p++) {
            want32 &= (int32_t) ~(INT32_C(1) << (p % 31));
            want64 ^= (int64_t)(INT64_C(1) << (p % 63));
        }
        PE_CHECK_EQ_I64(*w32, want32);
        PE_CHECK_EQ_I64(*w64, want64);
    }
    shmem_barrier_all();

#define CHECK_GENERIC_BITWISE(TYPE)                                                           \
    do {                                                                                      \
        TYPE *s_ = shmem_malloc(2 * sizeof(TYPE)), *d_ = shmem_malloc(2 * sizeof(TYPE));      \
        s_[0] = (TYPE)(1 << (me % 7));                                                        \
        s_[1] = (TYPE) - 1;                                                                   \
        shmem_barrier_all();                                                                  \
        PE_CHECK_EQ_I64(shmem_or_reduce(SHMEM_TEAM_WORLD, d_, s_, 2), 0);                     \
        TYPE want = 0;                                                                        \
        for (int p = 0; p < n; p++)                                                           \
            want = (TYPE)(want | (TYPE)(1 << (p % 7)));                                       \
        PE_CHECK_EQ_I64(d_[0], want);                                                         \
        PE_CHECK_EQ_I64(shmem_and_reduce(SHMEM_TEAM_WORLD, d_, s_, 2), 0);                    \
        PE_CHECK_EQ_I64(d_[1], -1);                                                           \
        PE_CHECK_EQ_I64(d_[0], n == 1 ? (TYPE)1 : (TYPE)0);                                   \
        PE_CHECK_EQ_I64(shmem_xor_reduce(SHMEM_TEAM_WORLD, d_, s_, 2), 0);                    \
        PE_CHECK_EQ_I64(d_[1], n % 2 == 1 ? (TYPE) - 1 : (TYPE)0);                            \
        shmem_barrier_all();                                                                  \
        shmem_free(d_);                                                                       \
        shmem_free(s_);                                                                       \
    } while (0)
    CHECK_GENERIC_BITWISE(int8_t);
    CHECK_GENERIC_BITWISE(int16_t);
    CHECK_GENERIC_BITWISE(int32_t);
    CHECK_GENERIC_BITWISE(int64_t);
#undef CHECK_GENERIC_BITWISE
    shmem_free(w64);
    shmem_free(w32);
    shmem_finalize();
    return 0;
}

static void test_generic_fixed_width(void **state)
{
    (void)state;
    run_pes_each(body_generic_fixed, NULL);
}

/* Compile-only: every generic name accepts every type of its specification table (a
 * pointer to an alias such as uint32_t or size_t selects the standard type it is). Never
 * called. */
static void generic_selections_compile(void) __attribute__((unused));
static void generic_selections_compile(void)
{
    shmem_team_t w = SHMEM_TEAM_WORLD;
#define RMA_ONE(TYPE, NAME)                                                                   \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        shmem_put(p_, p_, 1, 0);                                                              \
        shmem_get(p_, p_, 1, 0);                                                              \
        shmem_put_nbi(p_, p_, 1, 0);                                                          \
        shmem_iput(p_, p_, 1, 1, 1, 0);                                                       \
        shmem_p(p_, (TYPE)0, 0);                                                              \
        (void)shmem_g(p_, 0);                                                                 \
        shmem_broadcast(w, p_, p_, 1, 0);                                                     \
        shmem_fcollect(w, p_, p_, 1);                                                         \
        shmem_alltoall(w, p_, p_, 1);                                                         \
    }
    SHMEMU_SHMEM_RMA_TYPES(RMA_ONE)
#undef RMA_ONE
#define AMO_ONE(TYPE, NAME)                                                                   \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        (void)shmem_atomic_fetch_add(p_, (TYPE)1, 0);                                         \
        (void)shmem_atomic_compare_swap(p_, (TYPE)1, (TYPE)2, 0);                             \
    }
    SHMEMU_AMO_TYPES(AMO_ONE)
#undef AMO_ONE
#define AMO_EXT_ONE(TYPE, NAME)                                                               \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        (void)shmem_atomic_swap(p_, (TYPE)1, 0);                                              \
        (void)shmem_atomic_fetch(p_, 0);                                                      \
    }
    SHMEMU_AMO_EXTENDED_TYPES(AMO_EXT_ONE)
#undef AMO_EXT_ONE
#define AMO_BIT_ONE(TYPE, NAME)                                                               \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        shmem_atomic_and(p_, (TYPE)1, 0);                                                     \
        (void)shmem_atomic_fetch_or(p_, (TYPE)1, 0);                                          \
        shmem_atomic_xor(p_, (TYPE)1, 0);                                                     \
    }
    SHMEMU_AMO_BITWISE_TYPES(AMO_BIT_ONE)
#undef AMO_BIT_ONE
#define WAIT_ONE(TYPE, NAME)                                                                  \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        shmem_wait_until(p_, SHMEM_CMP_EQ, (TYPE)0);                                          \
        (void)shmem_test(p_, SHMEM_CMP_EQ, (TYPE)0);                                          \
    }
    SHMEMU_WAIT_TYPES(WAIT_ONE)
#undef WAIT_ONE
#define RED_BIT_ONE(TYPE, NAME)                                                               \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        shmem_and_reduce(w, p_, p_, 1);                                                       \
        shmem_or_reduce(w, p_, p_, 1);                                                        \
        shmem_xor_reduce(w, p_, p_, 1);                                                       \
    }
    SHMEMU_REDUCE_BITWISE_TYPES(RED_BIT_ONE)
#undef RED_BIT_ONE
#define RED_MINMAX_ONE(TYPE, NAME)                                                            \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        shmem_min_reduce(w, p_, p_, 1);                                                       \
        shmem_max_reduce(w, p_, p_, 1);                                                       \
    }
    SHMEMU_SHMEM_REDUCE_MINMAX_TYPES(RED_MINMAX_ONE)
#undef RED_MINMAX_ONE
#define RED_SUMPROD_ONE(TYPE, NAME)                                                           \
    {                                                                                         \
        TYPE *p_ = NULL;                                                                      \
        shmem_sum_reduce(w, p_, p_, 1);                                                       \
        shmem_prod_reduce(w, p_, p_, 1);                                                      \
    }
    SHMEMU_SHMEM_REDUCE_SUMPROD_TYPES(RED_SUMPROD_ONE)
#undef RED_SUMPROD_ONE
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_longdouble_rma),
        cmocka_unit_test(test_longdouble_coll),
        cmocka_unit_test(test_complex_reduce),
        cmocka_unit_test(test_generic_fixed_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
