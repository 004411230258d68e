/*
 * test_signal.c: put-with-signal (SET and ADD, blocking and _nbi, typed, sized and putmem
 * forms), nvshmemx_signal_op, nvshmem_signal_fetch and nvshmem_signal_wait_until.
 *
 * The receiving PE reads the data only after its wait on the signal returns: that is the
 * protocol, and under helgrind/DRD any data not published by the signal is a reported race.
 */
#include <setjmp.h>
#include <stdarg.h>
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

static uint64_t data_word(int pe, int round, int i)
{
    return ((uint64_t)pe << 48) | ((uint64_t)round << 16) | (uint64_t)i;
}

/* ---- SET: a sender streams rounds into separate slots, the signal counts rounds ------- */

static int put_signal_set_body(void *arg)
{
    const int nbi = *(const int *)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    const int rounds = pe_check_scaled(64, 4);
    enum { W = 16 };
    uint64_t *slots = nvshmem_calloc((size_t)rounds * W, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t(*out)[W] = calloc((size_t)rounds, sizeof *out); /* _nbi sources stay until quiet */
    nvshmem_barrier_all();
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < W; i++)
            out[r][i] = data_word(me, r, i);
        uint64_t *dst = slots + (size_t)r * W;
        switch ((r + nbi) % 4) {
        case 0:
            if (nbi)
                nvshmem_uint64_put_signal_nbi(dst, out[r], W, sig, (uint64_t)r + 1,
                                              NVSHMEM_SIGNAL_SET, next);
            else
                nvshmem_uint64_put_signal(dst, out[r], W, sig, (uint64_t)r + 1,
                                          NVSHMEM_SIGNAL_SET, next);
            break;
        case 1:
            if (nbi)
                nvshmem_putmem_signal_nbi(dst, out[r], W * 8, sig, (uint64_t)r + 1,
                                          NVSHMEM_SIGNAL_SET, next);
            else
                nvshmem_putmem_signal(dst, out[r], W * 8, sig, (uint64_t)r + 1,
                                      NVSHMEM_SIGNAL_SET, next);
            break;
        case 2:
            if (nbi)
                nvshmem_put64_signal_nbi(dst, out[r], W, sig, (uint64_t)r + 1,
                                         NVSHMEM_SIGNAL_SET, next);
            else
                nvshmem_put64_signal(dst, out[r], W, sig, (uint64_t)r + 1, NVSHMEM_SIGNAL_SET,
                                     next);
            break;
        default:
            if (nbi)
                nvshmem_put32_signal_nbi(dst, out[r], 2 * W, sig, (uint64_t)r + 1,
                                         NVSHMEM_SIGNAL_SET, next);
            else
                nvshmem_put32_signal(dst, out[r], 2 * W, sig, (uint64_t)r + 1,
                                     NVSHMEM_SIGNAL_SET, next);
            break;
        }
        /* The receiver side, interleaved: wait until prev's round r has landed. */
        uint64_t got = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r + 1);
        PE_CHECK_MSG(got >= (uint64_t)r + 1 && got <= (uint64_t)rounds,
                     "signal_wait_until(GE %d) returned %llu", r + 1, (unsigned long long)got);
        /* Every round up to the signal's value has its data. */
        for (int i = 0; i < W; i++)
            PE_CHECK_EQ_U64(slots[(size_t)r * W + i], data_word(prev, r, i));
    }
    nvshmem_quiet();
    nvshmem_barrier_all();
    PE_CHECK_EQ_U64(nvshmem_signal_fetch(sig), rounds);
    nvshmem_barrier_all();
    free(out);
    nvshmem_free(sig);
    nvshmem_free(slots);
    nvshmem_finalize();
    return 0;
}

static void test_put_signal_set(void **state)
{
    (void)state;
    int nbi = 0;
    run_pes_each(put_signal_set_body, &nbi);
}

static void test_put_signal_set_nbi(void **state)
{
    (void)state;
    int nbi = 1;
    run_pes_each(put_signal_set_body, &nbi);
}

/* ---- ADD: every PE sends its slot to every PE; the signal counts the senders ---------- */

static int put_signal_add_body(void *arg)
{
    const int nbi = *(const int *)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    enum { W = 5 };
    int *slots = nvshmem_calloc(MAX_PES * W, sizeof(int));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int out[W];
    for (int i = 0; i < W; i++)
        out[i] = me * 100 + i;
    nvshmem_barrier_all();
    for (int k = 0; k < n; k++) {
        int q = (me + k) % n;
        if (nbi)
            nvshmem_int_put_signal_nbi(&slots[me * W], out, W, sig, 1, NVSHMEM_SIGNAL_ADD, q);
        else
            nvshmem_int_put_signal(&slots[me * W], out, W, sig, 1, NVSHMEM_SIGNAL_ADD, q);
    }
    uint64_t got = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, (uint64_t)n);
    PE_CHECK_EQ_U64(got, n);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < W; i++)
            PE_CHECK_EQ_I64(slots[p * W + i], p * 100 + i);
    nvshmem_quiet();
    nvshmem_barrier_all();
    /* No PE added more than once. */
    PE_CHECK_EQ_U64(nvshmem_signal_fetch(sig), n);
    nvshmem_barrier_all();
    nvshmem_free(sig);
    nvshmem_free(slots);
    nvshmem_finalize();
    return 0;
}

static void test_put_signal_add(void **state)
{
    (void)state;
    int nbi = 0;
    run_pes_each(put_signal_add_body, &nbi);
}

static void test_put_signal_add_nbi(void **state)
{
    (void)state;
    int nbi = 1;
    run_pes_each(put_signal_add_body, &nbi);
}

/* ---- a large payload: the signal must not overtake a long copy ---------------------- */

/* A payload large enough that a signal delivered before the copy finishes is seen while
 * the copy is still going on: the receiver checks the payload's last bytes first. */
static int large_payload_body(void *arg)
{
    const int nbi = *(const int *)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    const size_t words = (size_t)pe_check_scaled(1 << 17, 16); /* 1 MiB natively */
    const int rounds = pe_check_scaled(8, 4);
    uint64_t *buf = nvshmem_calloc(words, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t *ack = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t *out = malloc(words * sizeof(uint64_t));
    nvshmem_barrier_all();
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < words; i++)
            out[i] = data_word(me, r, (int)(i & 0xffff));
        if (nbi)
            nvshmem_putmem_signal_nbi(buf, out, words * 8, sig, (uint64_t)r + 1,
                                      NVSHMEM_SIGNAL_SET, next);
        else
            nvshmem_putmem_signal(buf, out, words * 8, sig, (uint64_t)r + 1, NVSHMEM_SIGNAL_SET,
                                  next);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, (uint64_t)r + 1);
        for (size_t i = words; i-- > 0;) {
            if (buf[i] != data_word(prev, r, (int)(i & 0xffff))) {
                PE_CHECK_MSG(0, "round %d: the signal arrived but word %zu of %zu is 0x%llx", r,
                             i, words, (unsigned long long)buf[i]);
                break;
            }
        }
        /* the sender may overwrite buf (and its own out) once both sides are done */
        nvshmem_quiet();
        nvshmemx_signal_op(ack, 1, NVSHMEM_SIGNAL_ADD, prev);
        nvshmem_signal_wait_until(ack, NVSHMEM_CMP_GE, (uint64_t)r + 1);
    }
    nvshmem_barrier_all();
    free(out);
    nvshmem_free(ack);
    nvshmem_free(sig);
    nvshmem_free(buf);
    nvshmem_finalize();
    return 0;
}

static void test_put_signal_large_payload(void **state)
{
    (void)state;
    for (int nbi = 0; nbi < 2; nbi++) {
        run_pes(2, large_payload_body, &nbi);
        run_pes(3, large_payload_body, &nbi);
    }
}

/* ---- nvshmemx_signal_op and nvshmem_signal_fetch ------------------------------------- */

static int signal_op_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *sig = nvshmem_calloc(MAX_PES + 2, sizeof(uint64_t));
    PE_CHECK_EQ_U64(nvshmem_signal_fetch(&sig[0]), 0);
    nvshmem_barrier_all();
    /* Every PE adds (me + 1) to sig[0] of every PE, and SETs its own slot everywhere. */
    for (int q = 0; q < n; q++) {
        nvshmemx_signal_op(&sig[0], (uint64_t)me + 1, NVSHMEM_SIGNAL_ADD, q);
        nvshmemx_signal_op(&sig[1 + me], 0xdead0000ull + (uint64_t)me, NVSHMEM_SIGNAL_SET, q);
    }
    uint64_t total = (uint64_t)n * (uint64_t)(n + 1) / 2;
    PE_CHECK_EQ_U64(nvshmem_signal_wait_until(&sig[0], NVSHMEM_CMP_EQ, total), total);
    for (int p = 0; p < n; p++) {
        PE_CHECK_EQ_U64(nvshmem_signal_wait_until(&sig[1 + p], NVSHMEM_CMP_NE, 0),
                        0xdead0000ull + (uint64_t)p);
        PE_CHECK_EQ_U64(nvshmem_signal_fetch(&sig[1 + p]), 0xdead0000ull + (uint64_t)p);
    }
    nvshmem_barrier_all();
    /* SET overwrites (it does not add), ADD wraps modulo 2^64. */
    nvshmemx_signal_op(&sig[0], UINT64_MAX, NVSHMEM_SIGNAL_SET, me);
    PE_CHECK_EQ_U64(nvshmem_signal_fetch(&sig[0]), UINT64_MAX);
    nvshmemx_signal_op(&sig[0], 2, NVSHMEM_SIGNAL_ADD, me);
    PE_CHECK_EQ_U64(nvshmem_signal_fetch(&sig[0]), 1);
    PE_CHECK_EQ_U64(sig[MAX_PES + 1], 0); /* untouched neighbour */
    nvshmem_barrier_all();
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_signal_op_and_fetch(void **state)
{
    (void)state;
    run_pes_each(signal_op_body, NULL);
}

/* ---- signal_wait_until: every comparison ---------------------------------------------- */

typedef struct cmp_case {
    int cmp;
    uint64_t cmp_value;
    uint64_t steps[3]; /* the sender SETs these in order; only the last satisfies */
} cmp_case;

static const cmp_case cmp_cases[] = {
    {NVSHMEM_CMP_EQ, 5, {4, 6, 5}},
    {NVSHMEM_CMP_NE, 0, {0, 0, 7}},
    {NVSHMEM_CMP_GT, 10, {3, 10, 11}},
    {NVSHMEM_CMP_GE, 10, {3, 9, 10}},
    {NVSHMEM_CMP_LT, 10, {12, 10, 9}},
    {NVSHMEM_CMP_LE, 10, {12, 11, 10}},
    /* unsigned: the largest values are large, not negative */
    {NVSHMEM_CMP_GT, 1, {0, 1, UINT64_MAX}},
    {NVSHMEM_CMP_LT, UINT64_MAX, {UINT64_MAX, UINT64_MAX, UINT64_MAX - 1}},
};
#define N_CMP_CASES (sizeof cmp_cases / sizeof cmp_cases[0])

static bool holds(uint64_t v, int cmp, uint64_t ref)
{
    switch (cmp) {
    case NVSHMEM_CMP_EQ: return v == ref;
    case NVSHMEM_CMP_NE: return v != ref;
    case NVSHMEM_CMP_GT: return v > ref;
    case NVSHMEM_CMP_GE: return v >= ref;
    case NVSHMEM_CMP_LT: return v < ref;
    case NVSHMEM_CMP_LE: return v <= ref;
    default: return false;
    }
}

static int wait_cmp_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n;
    uint64_t *sig = nvshmem_calloc(N_CMP_CASES, sizeof(uint64_t));

    for (size_t c = 0; c < N_CMP_CASES; c++) {
        const cmp_case *k = &cmp_cases[c];
        /* The comparison itself, through nvshmem_uint64_test on the same word. */
        for (int s = 0; s < 3; s++) {
            nvshmemx_signal_op(&sig[c], k->steps[s], NVSHMEM_SIGNAL_SET, me);
            PE_CHECK_MSG(nvshmem_uint64_test(&sig[c], k->cmp, k->cmp_value) == (s == 2),
                         "case %zu: test(%llu cmp %d %llu) != %d", c,
                         (unsigned long long)k->steps[s], k->cmp,
                         (unsigned long long)k->cmp_value, s == 2);
            PE_CHECK_MSG(holds(k->steps[s], k->cmp, k->cmp_value) == (s == 2),
                         "case %zu is wrong", c);
        }
        /* Already satisfied: returns at once, with the current value. */
        PE_CHECK_EQ_U64(nvshmem_signal_wait_until(&sig[c], k->cmp, k->cmp_value), k->steps[2]);
        nvshmemx_signal_op(&sig[c], k->steps[0], NVSHMEM_SIGNAL_SET, me);
    }
    nvshmem_barrier_all();
    /* Satisfied by another PE: the sender goes through values that do not satisfy, and
     * only the last one does, so the value returned is exactly the last. */
    for (size_t c = 0; c < N_CMP_CASES; c++) {
        const cmp_case *k = &cmp_cases[c];
        for (int s = 1; s < 3; s++)
            nvshmemx_signal_op(&sig[c], k->steps[s], NVSHMEM_SIGNAL_SET, next);
        uint64_t got = nvshmem_signal_wait_until(&sig[c], k->cmp, k->cmp_value);
        PE_CHECK_MSG(got == k->steps[2], "case %zu (cmp %d, %llu): returned %llu", c, k->cmp,
                     (unsigned long long)k->cmp_value, (unsigned long long)got);
    }
    nvshmem_barrier_all();
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_signal_wait_until_each_cmp(void **state)
{
    (void)state;
    run_pes_each(wait_cmp_body, NULL);
}

/* ---- a ring: each PE put_signals to the next, for many laps --------------------------- */

static int ring_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    const int laps = pe_check_scaled(200, 10);
    enum { W = 8 };
    /* Two buffers, alternating: the sender reuses buffer b only after the receiver has
     * acknowledged lap - 2 (ack counts laps consumed). */
    uint64_t *buf = nvshmem_calloc(2 * W, sizeof(uint64_t));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t *ack = nvshmem_calloc(1, sizeof(uint64_t));
    uint64_t out[W];
    nvshmem_barrier_all();
    for (int lap = 0; lap < laps; lap++) {
        if (lap >= 2)
            nvshmem_signal_wait_until(ack, NVSHMEM_CMP_GE, (uint64_t)lap - 1);
        for (int i = 0; i < W; i++)
            out[i] = data_word(me, lap, i);
        nvshmem_uint64_put_signal(buf + (lap % 2) * W, out, W, sig, 1, NVSHMEM_SIGNAL_ADD, next);
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)lap + 1);
        for (int i = 0; i < W; i++)
            PE_CHECK_EQ_U64(buf[(lap % 2) * W + i], data_word(prev, lap, i));
        nvshmemx_signal_op(ack, 1, NVSHMEM_SIGNAL_ADD, prev);
    }
    nvshmem_barrier_all();
    PE_CHECK_EQ_U64(*sig, laps);
    PE_CHECK_EQ_U64(*ack, laps);
    nvshmem_barrier_all();
    nvshmem_free(ack);
    nvshmem_free(sig);
    nvshmem_free(buf);
    nvshmem_finalize();
    return 0;
}

static void test_ring(void **state)
{
    (void)state;
    run_pes_each(ring_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_signal_set),
        cmocka_unit_test(test_put_signal_set_nbi),
        cmocka_unit_test(test_put_signal_add),
        cmocka_unit_test(test_put_signal_add_nbi),
        cmocka_unit_test(test_put_signal_large_payload),
        cmocka_unit_test(test_signal_op_and_fetch),
        cmocka_unit_test(test_signal_wait_until_each_cmp),
        cmocka_unit_test(test_ring),
    };
    return cmocka_run_group_tests_name("signal", tests, NULL, NULL);
}
