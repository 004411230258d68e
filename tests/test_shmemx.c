/*
 * test_shmemx.c: the extensions of shmemx.h at 1, 2, 3 and 8 PEs.
 *
 * signal_add and signal_set (under both names): adds from every PE sum up exactly, and a put
 * before the signal is visible once the signal is (the signal's ordering). ibput and ibget:
 * the blocks land where the strides say and nothing else is written. Scans: every PE gets
 * the prefix sum of its predecessors' sources, exactly (doubles compared with the same sum
 * done here in PE order), exscan gives PE 0 zero, and a scan on a split team numbers the
 * team's PEs. Misuse: a block stride below 1 aborts with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <complex.h>
#include <string.h>
#include <time.h>

#include "shmemx.h"
#include "support/pe_check.h"

/* ---- signals -------------------------------------------------------------------------- */

static int body_signal(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    long *data = shmem_calloc((size_t)n, sizeof(long));
    shmem_barrier_all();

    /* every PE adds me + 1 to PE 0's word, under either name */
    if (me % 2 == 0)
        shmemx_signal_add(&sig[0], (uint64_t)me + 1, 0);
    else
        shmem_signal_add(&sig[0], (uint64_t)me + 1, 0);
    shmem_barrier_all(); /* completes the adds (a quiet on every PE) */
    if (me == 0)
        PE_CHECK_EQ_U64(shmem_signal_fetch(&sig[0]), (uint64_t)n * (uint64_t)(n + 1) / 2);
    shmem_barrier_all();

    /* data, fence, then set: the right neighbour sees the data once it sees the signal */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    shmem_long_p(&data[me], 1000L + me, right);
    shmem_fence();
    if (me % 2 == 0)
        shmemx_signal_set(&sig[1], 77 + (uint64_t)me, right);
    else
        shmem_signal_set(&sig[1], 77 + (uint64_t)me, right);
    shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, 77 + (uint64_t)left);
    PE_CHECK_EQ_I64(data[left], 1000L + left);
    /* set overwrites: a second set replaces the value */
    shmem_barrier_all();
    shmemx_signal_set(&sig[1], 5, right);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(shmem_signal_fetch(&sig[1]), 5);
    shmem_barrier_all();
    shmem_free(data);
    shmem_free(sig);
    shmem_finalize();
    return 0;
}

static void test_signal(void **state)
{
    (void)state;
    run_pes_each(body_signal, NULL);
}

/* ---- blocked strided put and get ------------------------------------------------------ */

enum { BSIZE = 3, NBLOCKS = 4, SST = 5, DST = 7, SPAN = DST * NBLOCKS };

static int body_ib(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *dest = shmem_malloc(SPAN * sizeof(int));
    int source[SST * NBLOCKS], got[SPAN];
    for (int i = 0; i < SPAN; i++)
        dest[i] = -1;
    for (int i = 0; i < SST * NBLOCKS; i++)
        source[i] = me * 1000 + i;
    shmem_barrier_all();

    /* block b: source[b*SST .. +BSIZE) -> right's dest[b*DST .. +BSIZE) */
    shmemx_int_ibput(dest, source, DST, SST, BSIZE, NBLOCKS, right);
    shmem_barrier_all();
    for (int i = 0; i < SPAN; i++) {
        int b = i / DST, k = i % DST;
        int want = k < BSIZE ? left * 1000 + b * SST + k : -1;
        PE_CHECK_MSG(dest[i] == want, "ibput: dest[%d] = %d, want %d", i, dest[i], want);
    }

    /* get them back the other way: right's dest blocks (stride DST) -> got (stride SST) */
    for (int i = 0; i < SPAN; i++)
        got[i] = -2;
    shmemx_int_ibget(got, dest, SST, DST, BSIZE, NBLOCKS, right);
    for (int i = 0; i < SST * NBLOCKS; i++) {
        int b = i / SST, k = i % SST;
        int want = k < BSIZE ? me * 1000 + b * SST + k : -2;
        PE_CHECK_MSG(got[i] == want, "ibget: got[%d] = %d, want %d", i, got[i], want);
    }

    /* long double, one element per block, contiguous destination */
    long double *ld = shmem_calloc(NBLOCKS, sizeof(long double));
    long double ls[2 * NBLOCKS];
    for (int i = 0; i < 2 * NBLOCKS; i++)
        ls[i] = (long double)me + 0x1p-60L * (long double)(i + 1);
    shmem_barrier_all();
    shmemx_longdouble_ibput(ld, ls, 1, 2, 1, NBLOCKS, right);
    shmem_barrier_all();
    for (int b = 0; b < NBLOCKS; b++)
        PE_CHECK(ld[b] == (long double)left + 0x1p-60L * (long double)(2 * b + 1));
    shmem_barrier_all();
    shmem_free(ld);
    shmem_free(dest);
    shmem_finalize();
    return 0;
}

static void test_ibput_ibget(void **state)
{
    (void)state;
    run_pes_each(body_ib, NULL);
}

/* ---- scans ---------------------------------------------------------------------------- */

enum { SCAN_N = 4 };

static double scan_value(int pe, int i) { return 0.1 * (pe + 1) + 0.01 * i; }

static int body_scan(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *ls = shmem_malloc(SCAN_N * sizeof(long)), *ld = shmem_malloc(SCAN_N * sizeof(long));
    double *ds = shmem_malloc(SCAN_N * sizeof(double));
    double *dd = shmem_malloc(SCAN_N * sizeof(double));
    for (int i = 0; i < SCAN_N; i++) {
        ls[i] = (me + 1) * (i + 1);
        ds[i] = scan_value(me, i);
    }
    shmem_barrier_all();

    PE_CHECK_EQ_I64(shmemx_long_sum_inscan(SHMEM_TEAM_WORLD, ld, ls, SCAN_N), 0);
    for (int i = 0; i < SCAN_N; i++)
        PE_CHECK_EQ_I64(ld[i], (long)(me + 1) * (me + 2) / 2 * (i + 1));
    PE_CHECK_EQ_I64(shmemx_long_sum_exscan(SHMEM_TEAM_WORLD, ld, ls, SCAN_N), 0);
    for (int i = 0; i < SCAN_N; i++)
        PE_CHECK_EQ_I64(ld[i], (long)me * (me + 1) / 2 * (i + 1));

    /* doubles: the same bits as the sum in PE order */
    PE_CHECK_EQ_I64(shmemx_double_sum_inscan(SHMEM_TEAM_WORLD, dd, ds, SCAN_N), 0);
    for (int i = 0; i < SCAN_N; i++) {
        double want = scan_value(0, i);
        for (int p = 1; p <= me; p++)
            want += scan_value(p, i);
        PE_CHECK_EQ_DBL_BITS(dd[i], want);
    }
    PE_CHECK_EQ_I64(shmemx_double_sum_exscan(SHMEM_TEAM_WORLD, dd, ds, SCAN_N), 0);
    for (int i = 0; i < SCAN_N; i++) {
        double want = me == 0 ? 0.0 : scan_value(0, i);
        for (int p = 1; p < me; p++)
            want += scan_value(p, i);
        PE_CHECK_EQ_DBL_BITS(dd[i], want);
    }

    /* in place (dest == source), complex */
    double _Complex *cz = shmem_malloc(sizeof(double _Complex));
    *cz = (double)(me + 1) + (double)me * I;
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmemx_complexd_sum_inscan(SHMEM_TEAM_WORLD, cz, cz, 1), 0);
    PE_CHECK(creal(*cz) == (me + 1) * (me + 2) / 2.0 && cimag(*cz) == me * (me + 1) / 2.0);

    /* on a team of the odd PEs: ranks count within the team */
    shmem_team_t odds = SHMEM_TEAM_INVALID;
    if (n >= 2) {
        PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odds),
                        0);
        if (odds != SHMEM_TEAM_INVALID) {
            int r = shmem_team_my_pe(odds);
            PE_CHECK_EQ_I64(shmemx_long_sum_inscan(odds, ld, ls, SCAN_N), 0);
            for (int i = 0; i < SCAN_N; i++) { /* sources of PEs 1, 3, ..., 2r+1 */
                long want = 0;
                for (int k = 0; k <= r; k++)
                    want += (long)(2 * k + 2) * (i + 1);
                PE_CHECK_EQ_I64(ld[i], want);
            }
            shmem_team_destroy(odds);
        }
    }
    shmem_barrier_all();
    shmem_free(cz);
    shmem_free(dd);
    shmem_free(ds);
    shmem_free(ld);
    shmem_free(ls);
    shmem_finalize();
    return 0;
}

static void test_scans(void **state)
{
    (void)state;
    run_pes_each(body_scan, NULL);
}

/* ---- SOS's extras ---------------------------------------------------------------------- */

static void test_wtime(void **state)
{
    (void)state;
#ifndef HAVE_SHMEMX_WTIME
    fail_msg("shmemx.h must define HAVE_SHMEMX_WTIME with shmemx_wtime");
#endif
    double a = shmemx_wtime();
    struct timespec pause = {0, 2000000}; /* 2 ms: the clock must move at least this much */
    nanosleep(&pause, NULL);
    double b = shmemx_wtime();
    assert_true(a > 0.0);
    assert_true(b - a >= 0.002);
    assert_true(b - a < 3600.0); /* seconds, not nanoseconds */
}

/* ---- misuse --------------------------------------------------------------------------- */

static void scenario_bad_block_stride(void *arg)
{
    (void)arg;
    shmem_init();
    int *d = shmem_calloc(8, sizeof(int));
    int s[8] = {0};
    shmemx_int_ibput(d, s, 0, 2, 1, 2, 0);
}

static void test_misuse(void **state)
{
    (void)state;
    expect_child_failure(scenario_bad_block_stride, NULL, 1,
                         "shmemx_int_ibput: block strides dst=0 and sst=2 must be at least 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal),
        cmocka_unit_test(test_ibput_ibget),
        cmocka_unit_test(test_scans),
        cmocka_unit_test(test_wtime),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
