/*
 * test_order.c: the checking mode (SHMEMU_CHECK_NBI=1, docs/design.md D7), over many seeds
 * (SHMEMU_CHECK_SEED): puts are delivered late and out of order, but never against
 * what the specification guarantees:
 *   - the data of a put-with-signal is there once its signal is;
 *   - after nvshmem_quiet every earlier put is delivered (a blocking put as a snapshot of
 *     its source at the call);
 *   - of two puts to one PE separated by nvshmem_fence, the second never lands first;
 * and it really does reorder: without a fence, the second of two puts to one PE lands
 * before the first for some seeds, and the first before the second for others.
 * A non-blocking put delivered for progress (here by a _test call) is not complete: writing
 * its source before nvshmem_quiet is reported, by the next put from that source or by the
 * quiet, and the same writes after the quiet are not.
 *
 * Observing an intermediate state: in checking mode a PE's queued puts are delivered only by
 * the PE's own thread, inside its own nvshmem calls. So all PEs issue their puts, then meet
 * at a "gate" (a pthread barrier, outside the API: no nvshmem call is made while the gate
 * is open, so nothing is delivered meanwhile), look at what has arrived in their own heap,
 * and meet again before completing with nvshmem_quiet. The gate is also a happens-before
 * edge for helgrind/DRD, so the look is race-free. What is seen depends only on the seed.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define MAX_PES 8
#define MAX_SEEDS 64

typedef struct order_job {
    int n;
    pthread_barrier_t gate;
    int observed[MAX_PES]; /* what each PE saw at the gate (meaning per test) */
} order_job;

static void gate(order_job *job) { pthread_barrier_wait(&job->gate); }

/* Runs body on n PEs in checking mode with the given seed. */
static void run_checked(int n, int seed, int (*body)(void *), order_job *job)
{
    char text[16];
    snprintf(text, sizeof text, "%d", seed);
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    setenv("SHMEMU_CHECK_SEED", text, 1);
    memset(job, 0, sizeof *job);
    job->n = n;
    pthread_barrier_init(&job->gate, NULL, (unsigned)n);
    pe_check_reset();
    int rc = shmemu_launch(n, body, job);
    pthread_barrier_destroy(&job->gate);
    char context[48];
    snprintf(context, sizeof context, "%d PEs, SHMEMU_CHECK_SEED=%d", n, seed);
    pe_check_assert_clean(context);
    if (rc != 0)
        fail_msg("%s: shmemu_launch returned %d", context, rc);
}

static int unset_check_env(void **state)
{
    (void)state;
    unsetenv("SHMEMU_CHECK_NBI");
    unsetenv("SHMEMU_CHECK_SEED");
    return 0;
}

/* Seeds per PE count: fewer under valgrind, where one launch takes a good part of a second. */
static int n_seeds(void) { return pe_check_scaled(MAX_SEEDS / 2, 8); }

static const int order_pe_counts[] = {2, 3, 8};
#define N_ORDER_PE_COUNTS 3

/* A few puts to the PE itself: each put gives the runtime a chance to deliver some of the
 * queued ones, without any ordering duty towards other PEs. */
static void churn(uint64_t *scratch, int me)
{
    /* static: an _nbi put reads its source at delivery, which may be after we return */
    static const uint64_t values[6] = {0, 1, 2, 3, 4, 5};
    for (int i = 0; i < 6; i++)
        nvshmem_uint64_put_nbi(&scratch[i], &values[i], 1, me);
}

/* ---- put-with-signal: data before signal --------------------------------------------- */

enum { KS = 8, WS = 16 };

static int put_signal_body(void *arg)
{
    order_job *job = arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    uint64_t *data = nvshmem_calloc(KS * WS, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(KS + 1, sizeof(uint64_t));
    uint64_t *scratch = nvshmem_calloc(8, sizeof(uint64_t));
    uint64_t out[KS][WS];
    nvshmem_barrier_all();
    for (int k = 0; k < KS; k++) {
        for (int i = 0; i < WS; i++)
            out[k][i] = ((uint64_t)me << 32) | (uint64_t)(k * WS + i + 1);
        if (k % 2)
            nvshmem_putmem_signal_nbi(&data[k * WS], out[k], WS * 8, &sig[k], 1,
                                      NVSHMEM_SIGNAL_SET, next);
        else
            nvshmem_uint64_put_signal_nbi(&data[k * WS], out[k], WS, &sig[k], 1,
                                          NVSHMEM_SIGNAL_ADD, next);
        /* and an ADD on a shared counter signal, data in the same slot again */
        nvshmem_uint64_put_signal_nbi(&data[k * WS], out[k], WS, &sig[KS], 1,
                                      NVSHMEM_SIGNAL_ADD, next);
        churn(scratch, me);
    }
    gate(job);
    /* Every signal that has arrived vouches for its data. */
    int arrived = 0;
    for (int k = 0; k < KS; k++) {
        if (sig[k] == 0)
            continue;
        arrived++;
        PE_CHECK_EQ_U64(sig[k], 1);
        for (int i = 0; i < WS; i++)
            PE_CHECK_MSG(data[k * WS + i] == (((uint64_t)prev << 32) | (uint64_t)(k * WS + i + 1)),
                         "signal %d is set but data[%d] = 0x%llx", k, k * WS + i,
                         (unsigned long long)data[k * WS + i]);
    }
    /* The counter counts pairs of puts to slots whose data has arrived. */
    PE_CHECK(sig[KS] <= KS);
    job->observed[me] = arrived * 100 + (int)sig[KS];
    gate(job);
    nvshmem_quiet();
    nvshmem_barrier_all();
    PE_CHECK_EQ_U64(sig[KS], KS);
    for (int k = 0; k < KS; k++) {
        PE_CHECK_EQ_U64(sig[k], 1);
        PE_CHECK_EQ_U64(data[k * WS + WS - 1], ((uint64_t)prev << 32) | (uint64_t)(k * WS + WS));
    }
    nvshmem_barrier_all();
    nvshmem_free(scratch);
    nvshmem_free(sig);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}

static void test_put_signal_data_before_signal(void **state)
{
    (void)state;
    order_job job;
    int partial = 0; /* observations where some, but not all, signals had arrived */
    for (int c = 0; c < N_ORDER_PE_COUNTS; c++) {
        for (int seed = 1; seed <= n_seeds(); seed++) {
            run_checked(order_pe_counts[c], seed, put_signal_body, &job);
            for (int p = 0; p < job.n; p++)
                partial += job.observed[p] / 100 > 0 && job.observed[p] / 100 < KS;
        }
    }
    /* Delivery is really late: otherwise the checks at the gate are empty. */
    assert_true(partial > 0);
}

/* The same guarantee seen by a receiver that waits on the signal while the sender is still
 * delivering (no gate): a large payload, read from its end as soon as the signal holds.
 * Under helgrind/DRD, data written after its signal is also a reported race. */
static int put_signal_waiter_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    const size_t words = (size_t)pe_check_scaled(1 << 15, 32);
    enum { K = 3 };
    uint64_t *buf = nvshmem_calloc(K * words, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(K, sizeof(uint64_t));
    uint64_t *scratch = nvshmem_calloc(8, sizeof(uint64_t));
    uint64_t *out = malloc(K * words * sizeof(uint64_t));
    for (size_t i = 0; i < K * words; i++)
        out[i] = ((uint64_t)me << 40) | i;
    nvshmem_barrier_all();
    for (int k = 0; k < K; k++) {
        nvshmem_putmem_signal_nbi(&buf[k * words], &out[k * words], words * 8, &sig[k], 1,
                                  NVSHMEM_SIGNAL_SET, next);
        churn(scratch, me);
    }
    for (int k = K - 1; k >= 0; k--) {
        /* may park, which delivers this PE's own queue first: no deadlock */
        nvshmem_signal_wait_until(&sig[k], NVSHMEM_CMP_EQ, 1);
        for (size_t i = words; i-- > 0;) {
            size_t at = (size_t)k * words + i;
            if (buf[at] != (((uint64_t)prev << 40) | at)) {
                PE_CHECK_MSG(0, "signal %d holds, but word %zu of its payload is 0x%llx", k, i,
                             (unsigned long long)buf[at]);
                break;
            }
        }
    }
    nvshmem_quiet();
    nvshmem_barrier_all();
    free(out);
    nvshmem_free(scratch);
    nvshmem_free(sig);
    nvshmem_free(buf);
    nvshmem_finalize();
    return 0;
}

static void test_put_signal_seen_by_waiter(void **state)
{
    (void)state;
    order_job job;
    for (int c = 0; c < N_ORDER_PE_COUNTS; c++)
        for (int seed = 1; seed <= n_seeds(); seed++)
            run_checked(order_pe_counts[c], seed, put_signal_waiter_body, &job);
}

/* ---- quiet completes everything; a blocking put is a snapshot ------------------------- */

enum { WQ = 32 };

static int quiet_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    /* row p of each PE's inbox is written by PE p, in pieces, by several kinds of put */
    int64_t *inbox = nvshmem_calloc(MAX_PES * WQ, sizeof(int64_t));
    uint64_t *done = nvshmem_calloc(1, sizeof(uint64_t));
    int64_t row[WQ];
    for (int i = 0; i < WQ; i++)
        row[i] = me * 1000 + i + 1;
    nvshmem_barrier_all();
    for (int k = 1; k <= n; k++) {
        int q = (me + k) % n;
        int64_t *dst = &inbox[me * WQ];
        nvshmem_int64_put_nbi(dst, row, 8, q);
        nvshmem_putmem_nbi(dst + 8, row + 8, 8 * sizeof(int64_t), q);
        nvshmem_put64_nbi(dst + 16, row + 16, 4, q);
        /* blocking put from a buffer changed right after the call: the target must get
         * the values at the call */
        int64_t tmp[4];
        memcpy(tmp, row + 20, sizeof tmp);
        nvshmem_int64_put(dst + 20, tmp, 4, q);
        memset(tmp, 0xff, sizeof tmp);
        nvshmem_int64_p(dst + 24, row[24], q);
        nvshmem_int64_iput(dst + 25, row + 25, 1, 1, 7, q);
    }
    nvshmem_quiet();
    /* Signals after quiet: a PE that has all n signals has all n rows. */
    for (int q = 0; q < n; q++)
        nvshmemx_signal_op(done, 1, NVSHMEM_SIGNAL_ADD, q);
    nvshmem_signal_wait_until(done, NVSHMEM_CMP_EQ, (uint64_t)n);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < WQ; i++)
            PE_CHECK_MSG(inbox[p * WQ + i] == p * 1000 + i + 1,
                         "row of PE %d, element %d: %lld", p, i,
                         (long long)inbox[p * WQ + i]);
    nvshmem_barrier_all();
    nvshmem_free(done);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return 0;
}

static void test_quiet_completes_all_puts(void **state)
{
    (void)state;
    order_job job;
    for (int c = 0; c < N_ORDER_PE_COUNTS; c++)
        for (int seed = 1; seed <= n_seeds(); seed++)
            run_checked(order_pe_counts[c], seed, quiet_body, &job);
}

/* ---- fence: puts to one PE land in fence order --------------------------------------- */

enum { KF = 6 };

static int fence_body(void *arg)
{
    order_job *job = arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n;
    uint64_t *slot = nvshmem_calloc(KF, sizeof(uint64_t));
    uint64_t *scratch = nvshmem_calloc(8, sizeof(uint64_t));
    uint64_t vals[KF];
    nvshmem_barrier_all();
    for (int k = 0; k < KF; k++) {
        vals[k] = (uint64_t)k + 1;
        nvshmem_putmem_nbi(&slot[k], &vals[k], sizeof vals[k], next);
        nvshmem_fence();
        churn(scratch, me);
    }
    gate(job);
    /* What has arrived is a prefix: slot k set means every slot before it is set. */
    int landed = 0;
    while (landed < KF && slot[landed] != 0)
        landed++;
    for (int k = 0; k < landed; k++)
        PE_CHECK_EQ_U64(slot[k], (uint64_t)k + 1);
    for (int k = landed; k < KF; k++)
        PE_CHECK_MSG(slot[k] == 0, "slot %d landed before slot %d despite the fence", k, landed);
    job->observed[me] = landed;
    gate(job);
    nvshmem_quiet();
    nvshmem_barrier_all();
    for (int k = 0; k < KF; k++)
        PE_CHECK_EQ_U64(slot[k], (uint64_t)k + 1);
    nvshmem_barrier_all();
    nvshmem_free(scratch);
    nvshmem_free(slot);
    nvshmem_finalize();
    return 0;
}

static void test_fence_keeps_order(void **state)
{
    (void)state;
    order_job job;
    int partial = 0;
    for (int c = 0; c < N_ORDER_PE_COUNTS; c++) {
        for (int seed = 1; seed <= n_seeds(); seed++) {
            run_checked(order_pe_counts[c], seed, fence_body, &job);
            for (int p = 0; p < job.n; p++)
                partial += job.observed[p] > 0 && job.observed[p] < KF;
        }
    }
    assert_true(partial > 0); /* some deliveries were really pending at the gate */
}

/* ---- without a fence, two puts to one PE land in either order ------------------------ */

enum { SEEN_NONE = 0, SEEN_FIRST_ONLY = 1, SEEN_SECOND_ONLY = 2, SEEN_BOTH = 3 };

static int reorder_body(void *arg)
{
    order_job *job = arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *first = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t *second = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t *scratch = nvshmem_calloc(8, sizeof(uint64_t));
    nvshmem_barrier_all();
    const uint64_t one = 1, two = 2;
    nvshmem_putmem_nbi(first, &one, sizeof one, (me + 1) % n);
    nvshmem_putmem_nbi(second, &two, sizeof two, (me + 1) % n);
    churn(scratch, me);
    gate(job);
    job->observed[me] = (*first == 1 ? SEEN_FIRST_ONLY : 0) | (*second == 2 ? SEEN_SECOND_ONLY : 0);
    gate(job);
    nvshmem_quiet();
    nvshmem_barrier_all();
    PE_CHECK_EQ_U64(*first, 1);
    PE_CHECK_EQ_U64(*second, 2);
    nvshmem_barrier_all();
    nvshmem_free(scratch);
    nvshmem_free(second);
    nvshmem_free(first);
    nvshmem_finalize();
    return 0;
}

static void test_checking_mode_reorders(void **state)
{
    (void)state;
    order_job job;
    int count[4] = {0};
    int first_seed[4] = {0};
    const int seeds = pe_check_scaled(MAX_SEEDS, 4);
    for (int seed = 1; seed <= seeds; seed++) {
        run_checked(2, seed, reorder_body, &job);
        for (int p = 0; p < 2; p++) {
            int s = job.observed[p];
            if (count[s]++ == 0)
                first_seed[s] = seed;
        }
    }
    print_message("reorder: at the gate, over %d seeds x 2 PEs: none %d, first only %d "
                  "(seed %d), second only %d (seed %d), both %d\n",
                  seeds, count[SEEN_NONE], count[SEEN_FIRST_ONLY],
                  first_seed[SEEN_FIRST_ONLY], count[SEEN_SECOND_ONLY],
                  first_seed[SEEN_SECOND_ONLY], count[SEEN_BOTH]);
    assert_true(count[SEEN_SECOND_ONLY] > 0); /* the second overtook the first */
    assert_true(count[SEEN_FIRST_ONLY] > 0);  /* and the other way round */
}

/* The same seed gives the same observations: a failing seed is a reproducer. */
static void test_seed_reproduces_observation(void **state)
{
    (void)state;
    order_job a, b;
    const int n = 3;
    for (int seed = 1; seed <= n_seeds(); seed++) {
        run_checked(n, seed, reorder_body, &a);
        for (int rep = 0; rep < 2; rep++) {
            run_checked(n, seed, reorder_body, &b);
            for (int p = 0; p < n; p++) {
                if (a.observed[p] != b.observed[p])
                    fail_msg("SHMEMU_CHECK_SEED=%d, %d PEs: PE %d saw state %d, then %d in "
                             "repetition %d",
                             seed, n, p, a.observed[p], b.observed[p], rep + 1);
            }
        }
    }
}

/* ---- reusing a put's source before quiet --------------------------------------------- */

enum { REUSE_NEXT_PUT_FINDS, REUSE_QUIET_FINDS, REUSE_AFTER_QUIET };

/* PE 0 puts its staging words to PE 1, makes progress with a _test call (which delivers the
 * put without completing it), writes the staging words, and puts or quiets. */
static int reuse_body(void *arg)
{
    const int mode = *(const int *)arg;
    nvshmem_init();
    uint64_t *stage = nvshmem_calloc(4, sizeof(uint64_t));
    uint64_t *inbox = nvshmem_calloc(8, sizeof(uint64_t));
    uint64_t *flag = nvshmem_calloc(1, sizeof(uint64_t));
    nvshmem_barrier_all();
    if (nvshmem_my_pe() == 0) {
        for (int i = 0; i < 4; i++)
            stage[i] = (uint64_t)i + 1;
        nvshmem_uint64_put_nbi(inbox, stage, 4, 1);
        (void)nvshmem_uint64_test(flag, NVSHMEM_CMP_NE, 0);
        if (mode == REUSE_AFTER_QUIET)
            nvshmem_quiet();
        for (int i = 0; i < 4; i++)
            stage[i] = (uint64_t)i + 11;
        if (mode != REUSE_QUIET_FINDS)
            nvshmem_uint64_put_nbi(inbox + 4, stage, 4, 1);
        nvshmem_quiet();
    }
    nvshmem_barrier_all();
    if (nvshmem_my_pe() == 1)
        for (int i = 0; i < 4; i++) {
            PE_CHECK_EQ_U64(inbox[i], (uint64_t)i + 1);
            PE_CHECK_EQ_U64(inbox[4 + i], (uint64_t)i + 11);
        }
    nvshmem_barrier_all();
    nvshmem_free(flag);
    nvshmem_free(inbox);
    nvshmem_free(stage);
    nvshmem_finalize();
    return 0;
}

static void reuse_scenario(void *arg) { (void)reuse_body(arg); }

static void test_source_reuse_before_quiet_reported(void **state)
{
    (void)state;
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    int mode = REUSE_NEXT_PUT_FINDS;
    expect_child_failure(reuse_scenario, &mode, 2,
                         "PE 0: nvshmem_uint64_put_nbi: the source of an earlier non-blocking "
                         "put (nvshmem_uint64_put_nbi of 32 bytes");
    expect_child_failure(reuse_scenario, &mode, 2, "this put from the same source");
    mode = REUSE_QUIET_FINDS;
    expect_child_failure(reuse_scenario, &mode, 2,
                         "PE 0: nvshmem_quiet: the source of an earlier non-blocking put");
    expect_child_failure(reuse_scenario, &mode, 2, "the issuing thread's nvshmem_quiet");
}

static void test_source_reuse_after_quiet_clean(void **state)
{
    (void)state;
    int mode = REUSE_AFTER_QUIET;
    for (int seed = 1; seed <= n_seeds(); seed++) {
        char text[16];
        snprintf(text, sizeof text, "%d", seed);
        setenv("SHMEMU_CHECK_NBI", "1", 1);
        setenv("SHMEMU_CHECK_SEED", text, 1);
        if (run_pes(2, reuse_body, &mode) != 0)
            fail_msg("SHMEMU_CHECK_SEED=%d: the PEs failed", seed);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_put_signal_data_before_signal, unset_check_env),
        cmocka_unit_test_teardown(test_put_signal_seen_by_waiter, unset_check_env),
        cmocka_unit_test_teardown(test_quiet_completes_all_puts, unset_check_env),
        cmocka_unit_test_teardown(test_fence_keeps_order, unset_check_env),
        cmocka_unit_test_teardown(test_checking_mode_reorders, unset_check_env),
        cmocka_unit_test_teardown(test_seed_reproduces_observation, unset_check_env),
        cmocka_unit_test_teardown(test_source_reuse_before_quiet_reported, unset_check_env),
        cmocka_unit_test_teardown(test_source_reuse_after_quiet_clean, unset_check_env),
    };
    return cmocka_run_group_tests_name("order", tests, NULL, NULL);
}
