/*
 * test_md_fixed.c: the fixed-point formats of shmemu/md.h: rounding (nearest, ties to even),
 * exact position <-> double conversions and differences, periodic wrap, momentum units,
 * and the exact kinetic-energy and momentum sums.
 */
#include <math.h>

#include "kinetic.h"
#include "test_md_util.h"

static void test_round_ties_to_even(void **state)
{
    (void)state;
    static const struct {
        double x;
        int64_t want;
    } cases[] = {
        {0.5, 0},    {1.5, 2},          {2.5, 2},   {3.5, 4},   {-0.5, 0},  {-1.5, -2},
        {-2.5, -2},  {0.49999999999999994, 0},      {1.0000000000000002, 1},
        {-3.4999999999999996, -3},      {4503599627370495.5, 4503599627370496},
        {4503599627370497.0, 4503599627370497},     {-9007199254740993.0, -9007199254740992},
        {1e18, 1000000000000000000LL},  {-0.0, 0},  {2.4999999999999996, 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int64_t got = md_round_i64(cases[k].x);
        if (got != cases[k].want)
            fail_msg("md_round_i64(%.17g) = %lld, want %lld", cases[k].x, (long long)got,
                     (long long)cases[k].want);
    }
}

static void test_round_matches_llrint(void **state)
{
    (void)state;
    /* The x86 instruction path must agree with the portable one (what CUDA and other
     * machines use) for every value in range. */
    int n = md_test_scaled(200000, 20);
    for (int k = 0; k < n; k++) {
        uint64_t h = md_mix64((uint64_t)k);
        double mag = ldexp(1.0, (int)(h % 62)) ;
        double x = md_uniform_centered(md_mix64(h)) * mag;
        if (k % 4 == 0)
            x = floor(x) + 0.5; /* a tie */
        assert_int_equal(md_round_i64(x), (int64_t)llrint(x));
    }
}

static void test_position_round_trip(void **state)
{
    (void)state;
    int n = md_test_scaled(100000, 20);
    const int64_t limit = (int64_t)MD_MAX_BOX_SIGMA << MD_POS_BITS; /* 2^51 */
    for (int k = 0; k < n; k++) {
        uint64_t h = md_mix64((uint64_t)k + 99);
        int64_t x = (int64_t)(h % (uint64_t)(2 * limit)) - limit;
        double xd = md_pos_to_double(x);
        /* integer -> double -> integer is exact */
        assert_int_equal(md_pos_from_double(xd), x);
        /* double -> integer rounds to the nearest 2^-32 σ */
        double y = xd + 0.3 * MD_POS_UNIT;
        assert_true(fabs(md_pos_to_double(md_pos_from_double(y)) - y) <= 0.5 * MD_POS_UNIT);
    }
    /* The difference of two converted positions is the exact integer difference (the
     * kernels rely on it), shifted positions too. */
    for (int k = 0; k < n; k++) {
        uint64_t h = md_mix64((uint64_t)k + 7777);
        int64_t a = (int64_t)(h % (uint64_t)limit);
        int64_t near = (int64_t)(md_mix64(h) % (uint64_t)(16LL << MD_POS_BITS)) -
                       (8LL << MD_POS_BITS);
        int64_t b = a + near;
        double da = md_pos_to_double(a), db = md_pos_to_double(b);
        double exact = md_pos_to_double(a - b);
        assert_true(da - db == exact);
        int64_t len = (int64_t)(md_mix64(h + 1) % (uint64_t)limit) + 1;
        assert_true(md_pos_to_double(a) + md_pos_to_double(len) == md_pos_to_double(a + len));
    }
}

static void test_wrap_and_floor_div(void **state)
{
    (void)state;
    assert_int_equal(md_wrap(-1, 10), 9);
    assert_int_equal(md_wrap(10, 10), 0);
    assert_int_equal(md_wrap(-10, 10), 0);
    assert_int_equal(md_wrap(-21, 10), 9);
    assert_int_equal(md_wrap(25, 10), 5);
    assert_int_equal(md_floor_div(-1, 10), -1);
    assert_int_equal(md_floor_div(-10, 10), -1);
    assert_int_equal(md_floor_div(-11, 10), -2);
    assert_int_equal(md_floor_div(9, 10), 0);
    assert_int_equal(md_floor_div(7, -2), -4);
}

static void test_momentum_unit_and_dt_change(void **state)
{
    (void)state;
    assert_true(md_momentum_unit(0.005) == 0.0025 / 4294967296.0);
    md_system sys;
    md_test_fcc(&sys, 3, 3, 3, 1.0, 5, 0.004);
    md_atoms orig;
    md_atoms_clone(&orig, &sys.atoms);
    /* Halving dt doubles every momentum: exact, and back again exact. */
    md_system_set_dt(&sys, 0.002);
    for (int32_t i = 0; i < sys.atoms.n; i++)
        for (int d = 0; d < 3; d++)
            assert_int_equal(sys.atoms.p[d][i], 2 * orig.p[d][i]);
    md_system_set_dt(&sys, 0.004);
    for (int32_t i = 0; i < sys.atoms.n; i++)
        for (int d = 0; d < 3; d++)
            assert_int_equal(sys.atoms.p[d][i], orig.p[d][i]);
    md_atoms_free(&orig);
    md_system_free(&sys);
}

static void test_lattice_momentum_zero_and_temperature(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 4, 3, 5, 1.44, 77, 0.005);
    uint64_t mom[3] = {0, 0, 0};
    md_momentum_accumulate(&sys.atoms, sys.atoms.n, mom);
    for (int d = 0; d < 3; d++)
        assert_int_equal(mom[d], 0);
    md_u128 psq = 0;
    md_kinetic_accumulate(&sys.atoms, sys.atoms.n, &psq);
    double t = 2.0 * md_kinetic_energy(&psq, sys.mass, 1, sys.dt) / md_dof(sys.atoms.n);
    assert_true(fabs(t - 1.44) < 1e-9);
    /* Another seed gives other velocities; the same seed the same. */
    md_system again, other;
    md_test_fcc(&again, 4, 3, 5, 1.44, 77, 0.005);
    md_test_fcc(&other, 4, 3, 5, 1.44, 78, 0.005);
    assert_memory_equal(sys.atoms.p[0], again.atoms.p[0], (size_t)sys.atoms.n * 8);
    assert_memory_not_equal(sys.atoms.p[0], other.atoms.p[0], (size_t)sys.atoms.n * 8);
    md_system_free(&sys);
    md_system_free(&again);
    md_system_free(&other);
}

static void test_momentum_zero_with_masses(void **state)
{
    (void)state;
    /* Three types, awkward masses, arbitrary momenta: the total becomes exactly 0. */
    md_atoms a = {0};
    md_atoms_reserve(&a, 101);
    double mass[3] = {1.0, 3.7, 0.013};
    for (int32_t i = 0; i < 101; i++) {
        a.id[i] = i + 1;
        a.type[i] = i % 3;
        for (int d = 0; d < 3; d++)
            a.p[d][i] = (int64_t)(md_mix64((uint64_t)(i * 3 + d)) >> 20) - (1LL << 43);
    }
    a.n = 101;
    md_momentum_zero(&a, a.n, mass);
    uint64_t mom[3] = {0, 0, 0};
    md_momentum_accumulate(&a, a.n, mom);
    for (int d = 0; d < 3; d++)
        assert_int_equal(mom[d], 0);
    md_atoms_free(&a);
}

static void test_kinetic_sum_order_independent(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 3, 4, 3, 2.0, 3, 0.005);
    md_u128 a = 0, b = 0;
    md_kinetic_accumulate(&sys.atoms, sys.atoms.n, &a);
    int32_t n = sys.atoms.n;
    int32_t *perm = md_xmalloc((size_t)n * sizeof *perm);
    for (int32_t i = 0; i < n; i++)
        perm[i] = (int32_t)((i * 7919LL) % n); /* 7919 is prime, n is not a multiple */
    md_atoms_permute(&sys.atoms, perm, n);
    /* Split in two "PEs". */
    md_kinetic_accumulate(&sys.atoms, n / 3, &b);
    md_atoms tail = sys.atoms;
    for (int d = 0; d < 3; d++)
        tail.p[d] = sys.atoms.p[d] + n / 3;
    tail.type = sys.atoms.type + n / 3;
    md_kinetic_accumulate(&tail, n - n / 3, &b);
    assert_true(a == b);
    free(perm);
    md_system_free(&sys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_ties_to_even),
        cmocka_unit_test(test_round_matches_llrint),
        cmocka_unit_test(test_position_round_trip),
        cmocka_unit_test(test_wrap_and_floor_div),
        cmocka_unit_test(test_momentum_unit_and_dt_change),
        cmocka_unit_test(test_lattice_momentum_zero_and_temperature),
        cmocka_unit_test(test_momentum_zero_with_masses),
        cmocka_unit_test(test_kinetic_sum_order_independent),
    };
    return cmocka_run_group_tests_name("md_fixed", tests, NULL, NULL);
}
