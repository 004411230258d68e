/*
 * test_cg_xsum.c: the exact long accumulator (cg/xsum.h) that makes cg's dot products and
 * norms reproducible:
 *   - order and grouping: random vectors with a wide exponent range give the same bits in
 *     random orders, split into 1-8 partial accumulators merged in random orders, and
 *     through the packed form summed word by word (what a device-side reduction does);
 *   - correct rounding: equal to __float128 sums where those are exact, ties to even (also
 *     among subnormals), cancellation (1e300 + 1 - 1e300 = 1), exact products (no FMA
 *     rounding), overflow only of the final value, NaN and infinities as IEEE says;
 *   - the normalization every CG_XSUM_PENDING_MAX adds (more adds than that, exact).
 */
#include <float.h>
#include <math.h>

#include "test_cg_util.h"

/* A double with a random 53-bit mantissa, sign and exponent in [lo, hi]. */
static double wide_random(uint64_t *st, int lo, int hi)
{
    double m = (double)(cgt_next(st) >> 11) * 0x1p-53 + 0.5; /* [0.5, 1) */
    int e = lo + (int)cgt_below(st, (uint64_t)(hi - lo + 1));
    return (cgt_next(st) & 1 ? -1 : 1) * ldexp(m, e);
}

static double dot_in_order(const double *x, const double *y, const size_t *order, size_t n)
{
    cg_xsum s;
    cg_xsum_init(&s);
    for (size_t k = 0; k < n; k++)
        cg_xsum_add_product(&s, x[order[k]], y[order[k]]);
    return cg_xsum_round(&s);
}

static void test_order_and_grouping(void **state)
{
    (void)state;
    uint64_t st = 1;
    enum { N = 2000 };
    static double x[N], y[N];
    static size_t order[N];
    for (int trial = 0; trial < 4; trial++) {
        /* trial 0: moderate range; 1: huge range with cancellation; 2, 3: subnormal and
         * near-overflow products mixed in */
        int lo = trial == 0 ? -30 : trial == 1 ? -400 : -1074, hi = trial == 0 ? 30 : 500;
        for (size_t i = 0; i < N; i++) {
            x[i] = wide_random(&st, lo, hi);
            y[i] = trial == 3 ? wide_random(&st, lo / 2, 1) : wide_random(&st, -20, 20);
            order[i] = i;
        }
        double ref = cg_dot(x, y, N);
        for (int rep = 0; rep < 6; rep++) {
            cgt_shuffle(order, N, sizeof *order, &st);
            assert_same_double(dot_in_order(x, y, order, N), ref);
        }
        /* split into P parts at random cuts, merged in a random order */
        for (int p = 1; p <= 8; p++) {
            size_t cut[9];
            cut[0] = 0;
            cut[p] = N;
            for (int k = 1; k < p; k++)
                cut[k] = (size_t)cgt_below(&st, N + 1);
            for (int a = 1; a < p; a++) /* sort the cuts */
                for (int b = a; b > 1 && cut[b - 1] > cut[b]; b--) {
                    size_t t = cut[b];
                    cut[b] = cut[b - 1];
                    cut[b - 1] = t;
                }
            cg_xsum part[8];
            int perm[8];
            for (int k = 0; k < p; k++) {
                cg_xsum_init(&part[k]);
                cg_xsum_add_dot(&part[k], x + cut[k], y + cut[k], cut[k + 1] - cut[k]);
                perm[k] = k;
            }
            cgt_shuffle(perm, (size_t)p, sizeof *perm, &st);
            cg_xsum total;
            cg_xsum_init(&total);
            for (int k = 0; k < p; k++)
                cg_xsum_merge(&total, &part[perm[k]]);
            assert_same_double(cg_xsum_round(&total), ref);
            /* the packed form, summed word by word as an int64 sum-reduction would */
            int64_t sum[CG_XSUM_WORDS] = {0}, w[CG_XSUM_WORDS];
            for (int k = 0; k < p; k++) {
                cg_xsum_pack(&part[perm[k]], w);
                for (int j = 0; j < CG_XSUM_WORDS; j++)
                    sum[j] += w[j];
            }
            cg_xsum_unpack(&total, sum);
            assert_same_double(cg_xsum_round(&total), ref);
        }
    }
}

/* Sums whose exact value fits __float128's 113 bits: its sum is exact, and its conversion
 * to double rounds correctly, so it is the reference. */
static void test_equals_float128(void **state)
{
    (void)state;
    uint64_t st = 2;
    for (int trial = 0; trial < 200; trial++) {
        enum { N = 64 };
        double x[N], y[N];
        __float128 q = 0;
        for (int i = 0; i < N; i++) {
            /* 26-bit mantissas: each product has at most 52 bits; exponents within 40 bits
             * of each other, and 64 terms: the exact sum needs < 100 bits. */
            double mx = (double)(cgt_next(&st) >> 38), my = (double)(cgt_next(&st) >> 38);
            int ex = (int)cgt_below(&st, 20) - 10 + (trial % 7) * 50 - 150;
            int ey = (int)cgt_below(&st, 20) - 10;
            x[i] = (cgt_next(&st) & 1 ? -1 : 1) * ldexp(mx, ex);
            y[i] = ldexp(my, ey);
            q += (__float128)x[i] * (__float128)y[i];
        }
        assert_same_double(cg_dot(x, y, N), (double)q);
    }
}

static double sum_of(const double *v, int n)
{
    cg_xsum s;
    cg_xsum_init(&s);
    for (int i = 0; i < n; i++)
        cg_xsum_add(&s, v[i]);
    return cg_xsum_round(&s);
}

static void test_rounding_cases(void **state)
{
    (void)state;
    /* cancellation: a plain double sum gives 0 */
    double c1[] = {1e300, 1.0, -1e300};
    assert_same_double(sum_of(c1, 3), 1.0);
    double one[] = {1e300, 1.0, -1e300}, ones[] = {1.0, 1.0, 1.0};
    assert_same_double(cg_dot(one, ones, 3), 1.0);
    /* products are exact: (1 + 2^-30)^2 - 1 - 2^-29 = 2^-60, lost by a rounded product */
    double a[] = {1 + 0x1p-30, -1.0, -0x1p-29}, b[] = {1 + 0x1p-30, 1.0, 1.0};
    assert_same_double(cg_dot(a, b, 3), 0x1p-60);
    /* ties to even, and a sticky bit far below breaking the tie */
    double t1[] = {1.0, 0x1p-53};
    assert_same_double(sum_of(t1, 2), 1.0);
    double t2[] = {1.0 + 0x1p-52, 0x1p-53};
    assert_same_double(sum_of(t2, 2), 1.0 + 0x1p-51);
    double t3[] = {1.0, 0x1p-53, 0x1p-1000};
    assert_same_double(sum_of(t3, 3), 1.0 + 0x1p-52);
    double t4[] = {-1.0, -0x1p-53, -0x1p-1000};
    assert_same_double(sum_of(t4, 3), -1.0 - 0x1p-52);
    /* subnormals: 2^-1075 is a tie between 0 and 2^-1074 (even: 0); 2^-2148 breaks it */
    double s1[] = {0x1p-1074}, h[] = {0.5};
    assert_same_double(cg_dot(s1, h, 1), 0.0);
    double s2[] = {0x1p-1074, 0x1p-1074}, h2[] = {0.5, 0x1p-1074};
    assert_same_double(cg_dot(s2, h2, 2), 0x1p-1074);
    double s3[] = {0x1p-1074, 0x1p-1074}, h3[] = {1.5, 0.0};
    assert_same_double(cg_dot(s3, h3, 2), 0x1p-1073); /* 1.5 ulp: tie, to even 2 */
    double s4[] = {DBL_MIN, -0x1p-1074};
    assert_same_double(sum_of(s4, 2), nextafter(DBL_MIN, 0));
    /* overflow of the final value only */
    double o1[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    assert_same_double(sum_of(o1, 3), DBL_MAX);
    double o2[] = {DBL_MAX, DBL_MAX};
    assert_same_double(sum_of(o2, 2), INFINITY);
    double o3[] = {-DBL_MAX, -0x1p970}; /* exactly halfway to 2^1024: rounds to inf */
    assert_same_double(sum_of(o3, 2), -INFINITY);
    double o4[] = {DBL_MAX, 0x1p969}; /* below halfway: stays */
    assert_same_double(sum_of(o4, 2), DBL_MAX);
    double big[] = {1e300, 1e300, 1.0}, bigb[] = {1e300, -1e300, 3.0};
    assert_same_double(cg_dot(big, bigb, 3), 3.0); /* 1e600 - 1e600 + 3, no overflow */
    double mx[] = {DBL_MAX, 2.0}, my[] = {DBL_MAX, 1.0};
    assert_same_double(cg_dot(mx, my, 2), INFINITY);
    /* zero: +0.0, whatever the signs of the terms */
    double z[] = {-0.0, -0.0};
    assert_same_double(sum_of(z, 2), 0.0);
    double zc[] = {-1.5, 1.5};
    assert_same_double(sum_of(zc, 2), 0.0);
    /* non-finite terms */
    double n1[] = {1.0, INFINITY};
    assert_same_double(sum_of(n1, 2), INFINITY);
    double n2[] = {-INFINITY, 1.0};
    assert_same_double(sum_of(n2, 2), -INFINITY);
    double n3[] = {INFINITY, -INFINITY};
    assert_true(isnan(sum_of(n3, 2)));
    double n4[] = {NAN, 1.0};
    assert_true(isnan(sum_of(n4, 2)));
    double i0[] = {INFINITY}, z0[] = {0.0};
    assert_true(isnan(cg_dot(i0, z0, 1)));
    double im[] = {INFINITY}, mm[] = {-2.0};
    assert_same_double(cg_dot(im, mm, 1), -INFINITY);
    /* norm: sqrt of the correctly rounded sum of squares, whose terms (2^1203 and more)
     * overflow a plain double sum */
    double v[] = {0x3p600, 0x4p600};
    assert_same_double(cg_norm2(v, 2), 0x5p600);
    double u[] = {0x3p-700, -0x4p-700}; /* squares below the subnormal range */
    assert_same_double(cg_norm2(u, 2), 0x5p-700);
    uint64_t st = 9;
    for (int trial = 0; trial < 50; trial++) { /* in range: sqrt of the rounded dot */
        double w[17];
        for (int i = 0; i < 17; i++)
            w[i] = wide_random(&st, -300, 300);
        assert_same_double(cg_norm2(w, 17), sqrt(cg_dot(w, w, 17)));
    }
}

/* More adds than CG_XSUM_PENDING_MAX, of both signs: the periodic normalization keeps
 * the sum exact. 0.1 has 53 significant bits, so k * 0.1 is exact in __float128. */
static void test_many_terms(void **state)
{
    (void)state;
    const int64_t n = CG_XSUM_PENDING_MAX + CG_XSUM_PENDING_MAX / 2 + 17;
    cg_xsum s;
    cg_xsum_init(&s);
    for (int64_t i = 0; i < n; i++) {
        cg_xsum_add(&s, 0.1);
        if (i % 3 == 0)
            cg_xsum_add_product(&s, -0.1, 0.25);
    }
    int64_t thirds = (n + 2) / 3;
    __float128 q = (__float128)0.1 * (__float128)n - (__float128)0.1 * 0.25Q * thirds;
    assert_same_double(cg_xsum_round(&s), (double)q);
    /* and the largest products, many times, of alternating sign: no limb overflows */
    cg_xsum_init(&s);
    for (int64_t i = 0; i < n; i++)
        cg_xsum_add_product(&s, (i & 1) ? -DBL_MAX : DBL_MAX, DBL_MAX);
    cg_xsum_add(&s, 7.0);
    assert_same_double(cg_xsum_round(&s), n & 1 ? INFINITY : 7.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_grouping),
        cmocka_unit_test(test_equals_float128),
        cmocka_unit_test(test_rounding_cases),
        cmocka_unit_test(test_many_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
