/*
 * test_shmem.c: the OpenSHMEM 1.5 layer (shmem.h) on the shmemu core, at 1, 2, 3 and 8 PEs.
 *
 * Two kinds of check. Behaviour: put/get, put-with-signal (data before signal), waits,
 * atomics, barriers, collectives and teams, each through the shmem_ names, each with values
 * that would differ if a call did the wrong thing (a missed wait reads a stale value, a wrong
 * type moves the wrong number of bytes, a swapped comparison answers the other way).
 * Constants: OpenSHMEM's are its own (docs/design.md D2); the table of every comparison catches a
 * wrong translation (NVSHMEM orders them EQ NE GT LE LT GE, OpenSHMEM EQ NE GT GE LT LE), an
 * NVSHMEM constant passed to a shmem_ call takes the OpenSHMEM meaning of its number, and a
 * number that is no OpenSHMEM constant aborts with a message naming the shmem_ call.
 *
 * PE bodies check with PE_CHECK* (tests/support/pe_check.h); cmocka asserts run only on the
 * test's own thread, after shmemu_launch has joined the PEs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "shmem.h" /* first: it must compile without nvshmem.h */
#include "nvshmem.h" /* only to compare the two APIs' constants */
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* ---- helpers ------------------------------------------------------------------------- */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int right_of(int me, int n) { return (me + 1) % n; }
static int left_of(int me, int n) { return (me + n - 1) % n; }

/* ---- constants and types (no PEs needed) --------------------------------------------- */

/* shmem_team_t must not be nvshmem_team_t, nor any integer type it converts to silently. */
_Static_assert(_Generic(SHMEM_TEAM_WORLD, nvshmem_team_t: 0, default: 1),
               "shmem_team_t must differ from nvshmem_team_t");
_Static_assert(sizeof(shmem_team_t) == sizeof(void *), "shmem_team_t is a pointer handle");

static void test_constants(void **state)
{
    (void)state;
    /* Sandia OpenSHMEM's values. */
    assert_int_equal(SHMEM_CMP_EQ, 1);
    assert_int_equal(SHMEM_CMP_NE, 2);
    assert_int_equal(SHMEM_CMP_GT, 3);
    assert_int_equal(SHMEM_CMP_GE, 4);
    assert_int_equal(SHMEM_CMP_LT, 5);
    assert_int_equal(SHMEM_CMP_LE, 6);
    assert_int_equal(SHMEM_SIGNAL_SET, 0);
    assert_int_equal(SHMEM_SIGNAL_ADD, 1);
    assert_int_equal(SHMEM_THREAD_SINGLE, 0);
    assert_int_equal(SHMEM_THREAD_FUNNELED, 1);
    assert_int_equal(SHMEM_THREAD_SERIALIZED, 2);
    assert_int_equal(SHMEM_THREAD_MULTIPLE, 3);
    assert_int_equal(SHMEM_MAJOR_VERSION, 1);
    assert_int_equal(SHMEM_MINOR_VERSION, 5);

    /* They are kept apart from NVSHMEM's (docs/design.md D2). */
    assert_int_not_equal(SHMEM_CMP_EQ, NVSHMEM_CMP_EQ);
    assert_int_not_equal(SHMEM_CMP_NE, NVSHMEM_CMP_NE);
    assert_int_not_equal(SHMEM_CMP_GT, NVSHMEM_CMP_GT);
    assert_int_not_equal(SHMEM_CMP_GE, NVSHMEM_CMP_GE);
    assert_int_not_equal(SHMEM_CMP_LE, NVSHMEM_CMP_LE);
    assert_int_not_equal(SHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_SET);
    assert_int_not_equal(SHMEM_SIGNAL_ADD, NVSHMEM_SIGNAL_ADD);
    assert_int_not_equal(SHMEM_MAJOR_VERSION, NVSHMEM_MAJOR_VERSION);

    /* Team handles: distinct, and none of them the null pointer. */
    assert_true(SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID);
    assert_true(SHMEM_TEAM_SHARED != SHMEM_TEAM_INVALID);
    assert_true(SHMEM_TEAM_WORLD != SHMEM_TEAM_SHARED);
    assert_non_null(SHMEM_TEAM_INVALID);
    assert_non_null(SHMEM_TEAM_WORLD);

    /* Version and name are OpenSHMEM's, and need no init. */
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    assert_int_equal(major, 1);
    assert_int_equal(minor, 5);
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    assert_string_equal(name, SHMEM_VENDOR_STRING);
    assert_true(strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN);
}

/* ---- setup, queries, heap ------------------------------------------------------------ */

static int body_init_query(void *arg)
{
    (void)arg;
    int provided = -1;
    PE_CHECK_EQ_I64(shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided), 0);
    PE_CHECK_EQ_I64(provided, SHMEM_THREAD_MULTIPLE);
    int queried = -1;
    shmem_query_thread(&queried);
    PE_CHECK_EQ_I64(queried, SHMEM_THREAD_MULTIPLE);

    int me = shmem_my_pe(), n = shmem_n_pes();
    PE_CHECK_EQ_I64(me, shmemu_my_pe());
    PE_CHECK(n >= 1 && me < n);
    PE_CHECK_EQ_I64(shmem_pe_accessible(0), 1);
    PE_CHECK_EQ_I64(shmem_pe_accessible(n - 1), 1);
    PE_CHECK_EQ_I64(shmem_pe_accessible(n), 0);
    PE_CHECK_EQ_I64(shmem_pe_accessible(-1), 0);

    long *sym = shmem_malloc(4 * sizeof(long));
    PE_CHECK(sym != NULL);
    long on_stack = 0;
    PE_CHECK_EQ_I64(shmem_addr_accessible(sym, right_of(me, n)), 1);
    PE_CHECK_EQ_I64(shmem_addr_accessible(sym + 3, me), 1);
    PE_CHECK_EQ_I64(shmem_addr_accessible(&on_stack, me), 0);
    PE_CHECK_EQ_I64(shmem_addr_accessible(sym, n), 0);
    PE_CHECK_EQ_I64(shmem_addr_accessible(sym, -1), 0);

    /* shmem_ptr: a store through the right neighbour's pointer lands in its copy. */
    PE_CHECK_EQ_PTR(shmem_ptr(sym, me), sym);
    sym[0] = -1;
    shmem_barrier_all();
    long *peer = shmem_ptr(sym, right_of(me, n));
    if (getenv("SHMEMU_NO_PTR") == NULL)
        PE_CHECK(peer != NULL);
    else if (right_of(me, n) != me)
        PE_CHECK(peer == NULL); /* the put path is forced */
    if (peer != NULL)
        peer[0] = 100 + me;
    else
        shmem_long_p(sym, 100 + me, right_of(me, n));
    shmem_barrier_all();
    PE_CHECK_EQ_I64(sym[0], 100 + left_of(me, n));
    shmem_free(sym);

    /* OpenSHMEM: zero sizes return NULL; shmem_free(NULL) does nothing. */
    PE_CHECK_EQ_PTR(shmem_malloc(0), NULL);
    PE_CHECK_EQ_PTR(shmem_calloc(0, 8), NULL);
    PE_CHECK_EQ_PTR(shmem_calloc(8, 0), NULL);
    PE_CHECK_EQ_PTR(shmem_align(64, 0), NULL);
    shmem_free(NULL);

    /* calloc zeroes memory that held something before. */
    unsigned char *dirty = shmem_malloc(512);
    PE_CHECK(dirty != NULL);
    memset(dirty, 0xa5, 512);
    shmem_free(dirty);
    unsigned char *zeroed = shmem_calloc(128, 4);
    PE_CHECK(zeroed != NULL);
    unsigned char zeros[512] = {0};
    if (zeroed != NULL)
        PE_CHECK_MEM(zeroed, zeros, sizeof zeros);
    shmem_free(zeroed);

    void *aligned = shmem_align(4096, 24);
    PE_CHECK(aligned != NULL && (uintptr_t)aligned % 4096 == 0);
    shmem_free(aligned);
    void *hinted = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
    PE_CHECK(hinted != NULL && shmem_addr_accessible(hinted, me));
    shmem_free(hinted);

    shmem_finalize();
    return 0;
}

static void test_init_query(void **state)
{
    (void)state;
    run_pes_each(body_init_query, NULL);
    setenv("SHMEMU_NO_PTR", "1", 1);
    run_pes_each(body_init_query, NULL);
    unsetenv("SHMEMU_NO_PTR");
}

/* ---- put and get --------------------------------------------------------------------- */

enum { RMA_N = 64 };

static int body_put_get(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = right_of(me, n), left = left_of(me, n);

    /* Blocking typed put, then get back what this PE put. */
    int *ibuf = shmem_malloc(RMA_N * sizeof(int));
    int isrc[RMA_N], iget[RMA_N];
    for (int i = 0; i < RMA_N; i++) {
        isrc[i] = me * 1000 + i;
        ibuf[i] = -1;
    }
    shmem_barrier_all();
    shmem_int_put(ibuf, isrc, RMA_N, right);
    shmem_barrier_all();
    for (int i = 0; i < RMA_N; i++)
        PE_CHECK_EQ_I64(ibuf[i], left * 1000 + i);
    shmem_int_get(iget, ibuf, RMA_N, right);
    PE_CHECK_MEM(iget, isrc, sizeof isrc);

    /* p and g: every PE writes its slot on every PE. */
    double *slots = shmem_malloc((size_t)n * sizeof(double));
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        shmem_double_p(&slots[me], me + 0.5, pe);
    shmem_barrier_all();
    for (int j = 0; j < n; j++)
        PE_CHECK_EQ_DBL_BITS(slots[j], j + 0.5);
    PE_CHECK_EQ_DBL_BITS(shmem_double_g(&slots[left], right), left + 0.5);

    /* Strided: iput puts src[2i] into dest[3i]; the other elements keep their sentinel. */
    long *lbuf = shmem_malloc(3 * RMA_N * sizeof(long));
    long lsrc[2 * RMA_N];
    for (int i = 0; i < 3 * RMA_N; i++)
        lbuf[i] = -7;
    for (int i = 0; i < 2 * RMA_N; i++)
        lsrc[i] = i % 2 == 0 ? me * 100000L + i : -9;
    shmem_barrier_all();
    shmem_long_iput(lbuf, lsrc, 3, 2, RMA_N, right);
    shmem_barrier_all();
    for (int i = 0; i < 3 * RMA_N; i++)
        PE_CHECK_EQ_I64(lbuf[i], i % 3 == 0 ? left * 100000L + 2 * (i / 3) : -7);
    /* iget reads the right neighbour's lbuf[3i] (which holds this PE's values) into
     * lgot[2i]. */
    long lgot[2 * RMA_N];
    for (int i = 0; i < 2 * RMA_N; i++)
        lgot[i] = -5;
    shmem_long_iget(lgot, lbuf, 2, 3, RMA_N, right);
    for (int i = 0; i < 2 * RMA_N; i++)
        PE_CHECK_EQ_I64(lgot[i], i % 2 == 0 ? me * 100000L + i : -5);
    shmem_barrier_all();

    /* Non-blocking put and get, completed by quiet. */
    for (int i = 0; i < RMA_N; i++)
        isrc[i] = -(me * 1000 + i);
    shmem_int_put_nbi(ibuf, isrc, RMA_N, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < RMA_N; i++)
        PE_CHECK_EQ_I64(ibuf[i], -(left * 1000 + i));
    memset(iget, 0, sizeof iget);
    shmem_int_get_nbi(iget, ibuf, RMA_N, right);
    shmem_quiet();
    PE_CHECK_MEM(iget, isrc, sizeof isrc);
    shmem_barrier_all();

    /* Bytes and sized forms: putmem, put64, get32, put128, iput16. */
    unsigned char bsrc[200], bgot[200];
    unsigned char *bbuf = shmem_malloc(sizeof bsrc);
    for (size_t i = 0; i < sizeof bsrc; i++)
        bsrc[i] = (unsigned char)(me * 31 + i);
    shmem_putmem(bbuf, bsrc, sizeof bsrc, right);
    shmem_barrier_all();
    shmem_getmem(bgot, bbuf, sizeof bgot, right);
    PE_CHECK_MEM(bgot, bsrc, sizeof bsrc);
    shmem_barrier_all();

    uint64_t u64src[8], u64got[8];
    uint64_t *u64buf = shmem_malloc(sizeof u64src);
    for (int i = 0; i < 8; i++)
        u64src[i] = ((uint64_t)me << 40) | (uint64_t)i;
    shmem_put64(u64buf, u64src, 8, right);
    shmem_barrier_all();
    shmem_get32(u64got, u64buf, 16, right); /* the same 64 bytes as 16 32-bit words */
    PE_CHECK_MEM(u64got, u64src, sizeof u64src);
    shmem_barrier_all();

    shmemu_bits128 wsrc[3] = {{{1, (uint64_t)me}}, {{2, 3}}, {{(uint64_t)me, 5}}};
    shmemu_bits128 *wbuf = shmem_malloc(sizeof wsrc);
    shmem_put128(wbuf, wsrc, 3, right);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(wbuf[0].word[1], (uint64_t)left);
    PE_CHECK_EQ_U64(wbuf[2].word[0], (uint64_t)left);
    PE_CHECK_EQ_U64(wbuf[1].word[1], 3);
    shmem_barrier_all();

    uint16_t s16[4] = {(uint16_t)(10 + me), 11, 12, 13};
    uint16_t *s16buf = shmem_calloc(8, sizeof(uint16_t));
    shmem_iput16(s16buf, s16, 2, 1, 4, right);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(s16buf[0], 10 + left);
    PE_CHECK_EQ_U64(s16buf[1], 0);
    PE_CHECK_EQ_U64(s16buf[6], 13);
    shmem_barrier_all();

    shmem_free(s16buf);
    shmem_free(wbuf);
    shmem_free(u64buf);
    shmem_free(bbuf);
    shmem_free(lbuf);
    shmem_free(slots);
    shmem_free(ibuf);
    shmem_finalize();
    return 0;
}

static void test_put_get(void **state)
{
    (void)state;
    run_pes_each(body_put_get, NULL);
}

/* ---- put-with-signal ----------------------------------------------------------------- */

enum { SIG_N = 512, SIG_ROUNDS = 24 };

static long sig_value(int round, int pe, int i) { return round * 1000000L + pe * 10000L + i; }

/* A ring of put-with-signal: each round every PE sends SIG_N longs and a signal to its right
 * neighbour, through a different put_signal routine and op, waits for its left neighbour's
 * signal and then checks every element (the data must be there before the signal), then
 * acknowledges, so the sender never overwrites data that is still being read. The signal is
 * the round number whether set (SET r) or added (ADD 1 onto r-1). */
static int body_put_signal(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = right_of(me, n), left = left_of(me, n);
    long *buf = shmem_malloc(SIG_N * sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    uint64_t *ack = shmem_calloc(1, sizeof(uint64_t));
    static _Thread_local long src[SIG_N];
    shmem_barrier_all();

    for (int r = 1; r <= SIG_ROUNDS; r++) {
        if (r > 1) /* the right neighbour has read round r-1 */
            shmem_signal_wait_until(ack, SHMEM_CMP_GE, (uint64_t)(r - 1));
        for (int i = 0; i < SIG_N; i++)
            src[i] = sig_value(r, me, i);
        int op = r % 2 == 1 ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD;
        uint64_t signal = op == SHMEM_SIGNAL_SET ? (uint64_t)r : 1;
        switch ((r / 2) % 4) {
        case 0: shmem_long_put_signal(buf, src, SIG_N, sig, signal, op, right); break;
        case 1: shmem_long_put_signal_nbi(buf, src, SIG_N, sig, signal, op, right); break;
        case 2: shmem_putmem_signal(buf, src, sizeof src, sig, signal, op, right); break;
        default: shmem_put64_signal_nbi(buf, src, SIG_N, sig, signal, op, right); break;
        }
        shmem_quiet(); /* src is rewritten next round */

        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)r);
        PE_CHECK_EQ_U64(got, (uint64_t)r);
        PE_CHECK_EQ_U64(shmem_signal_fetch(sig), (uint64_t)r);
        int bad = 0;
        for (int i = 0; i < SIG_N; i++)
            bad += buf[i] != sig_value(r, left, i);
        PE_CHECK_MSG(bad == 0, "round %d: %d of %d elements from PE %d arrived after the "
                               "signal (first: %ld)", r, bad, SIG_N, left, buf[0]);
        shmem_uint64_atomic_set(ack, (uint64_t)r, left);
    }
    shmem_barrier_all();

    /* Many to one with SHMEM_SIGNAL_ADD: every PE fills its own slot of PE 0's buffer and
     * adds 1 to PE 0's counter; once the counter is n, every slot is complete. */
    uint64_t *count = shmem_calloc(1, sizeof(uint64_t));
    int *slots = shmem_calloc((size_t)n * 16, sizeof(int));
    int mine[16];
    for (int i = 0; i < 16; i++)
        mine[i] = me * 100 + i;
    shmem_barrier_all();
    shmem_int_put_signal_nbi(&slots[me * 16], mine, 16, count, 1, SHMEM_SIGNAL_ADD, 0);
    shmem_quiet();
    if (me == 0) {
        PE_CHECK_EQ_U64(shmem_signal_wait_until(count, SHMEM_CMP_GE, (uint64_t)n), (uint64_t)n);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < 16; i++)
                PE_CHECK_EQ_I64(slots[p * 16 + i], p * 100 + i);
    }
    shmem_barrier_all();

    shmem_free(slots);
    shmem_free(count);
    shmem_free(ack);
    shmem_free(sig);
    shmem_free(buf);
    shmem_finalize();
    return 0;
}

static void test_put_signal(void **state)
{
    (void)state;
    run_pes_each(body_put_signal, NULL);
}

/* The same under the core's checking mode, which delivers non-blocking puts late and out of
 * order within what the signal and quiet allow (docs/design.md D7). */
static void test_put_signal_checked(void **state)
{
    (void)state;
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    setenv("SHMEMU_CHECK_SEED", "7", 1);
    run_pes_each(body_put_signal, NULL);
    unsetenv("SHMEMU_CHECK_NBI");
    unsetenv("SHMEMU_CHECK_SEED");
}

/* ---- comparisons --------------------------------------------------------------------- */

/* Every OpenSHMEM comparison, each on both sides of its boundary, through test (int),
 * test (uint64) and signal_wait_until (satisfied cases only: the others would wait). Then
 * NVSHMEM constants passed to shmem_ calls: they take the OpenSHMEM meaning of their
 * number. */
static int body_compare(void *arg)
{
    (void)arg;
    shmem_init();
    int *x = shmem_malloc(sizeof(int));
    uint64_t *s = shmem_malloc(sizeof(uint64_t));
    *x = 5;
    *s = 5;
    static const struct {
        int cmp;
        int value;
        int holds;
    } table[] = {
        {SHMEM_CMP_EQ, 5, 1}, {SHMEM_CMP_EQ, 4, 0}, {SHMEM_CMP_NE, 4, 1}, {SHMEM_CMP_NE, 5, 0},
        {SHMEM_CMP_GT, 4, 1}, {SHMEM_CMP_GT, 5, 0}, {SHMEM_CMP_GE, 5, 1}, {SHMEM_CMP_GE, 6, 0},
        {SHMEM_CMP_LT, 6, 1}, {SHMEM_CMP_LT, 5, 0}, {SHMEM_CMP_LE, 5, 1}, {SHMEM_CMP_LE, 4, 0},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        int cmp = table[k].cmp, v = table[k].value;
        PE_CHECK_MSG(shmem_int_test(x, cmp, v) == table[k].holds,
                     "shmem_int_test(5, cmp %d, %d) != %d", cmp, v, table[k].holds);
        PE_CHECK_MSG(shmem_uint64_test(s, cmp, (uint64_t)v) == table[k].holds,
                     "shmem_uint64_test(5, cmp %d, %d) != %d", cmp, v, table[k].holds);
        if (table[k].holds) {
            shmem_int_wait_until(x, cmp, v); /* returns at once */
            PE_CHECK_EQ_U64(shmem_signal_wait_until(s, cmp, (uint64_t)v), 5);
        }
    }

    /* Mixing: NVSHMEM_CMP_GT is 2, which is SHMEM_CMP_NE here. 5 != 7 holds; 5 > 7 not. */
    PE_CHECK_EQ_I64(shmem_int_test(x, NVSHMEM_CMP_GT, 7), 1);
    /* NVSHMEM_CMP_LE (3) is SHMEM_CMP_GT: 5 > 4 holds; 5 <= 4 does not. */
    PE_CHECK_EQ_I64(shmem_int_test(x, NVSHMEM_CMP_LE, 4), 1);
    /* NVSHMEM_CMP_GE (5) is SHMEM_CMP_LT: 5 < 5 fails; 5 >= 5 would hold. */
    PE_CHECK_EQ_I64(shmem_int_test(x, NVSHMEM_CMP_GE, 5), 0);
    /* NVSHMEM_CMP_NE (1) is SHMEM_CMP_EQ: 5 == 5 holds; 5 != 5 does not. */
    PE_CHECK_EQ_U64(shmem_signal_wait_until(s, NVSHMEM_CMP_NE, 5), 5);

    shmem_barrier_all();
    shmem_free(s);
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static void test_compare(void **state)
{
    (void)state;
    run_pes_each(body_compare, NULL);
}

/* ---- wait_until and test families ---------------------------------------------------- */

static int body_wait(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = right_of(me, n), left = left_of(me, n);
    int *flag = shmem_calloc(1, sizeof(int));
    long *ivars = shmem_calloc((size_t)n, sizeof(long));
    shmem_barrier_all();

    /* A late writer: the wait must not return before the value is there. */
    sleep_ms(10);
    shmem_int_atomic_set(flag, me + 1, right);
    shmem_int_wait_until(flag, SHMEM_CMP_EQ, left + 1);
    PE_CHECK_EQ_I64(shmem_int_atomic_fetch(flag, me), left + 1);

    /* Every PE sets its slot on every PE; wait for all of them. */
    for (int pe = 0; pe < n; pe++)
        shmem_long_atomic_set(&ivars[me], me + 1, pe);
    shmem_long_wait_until_all(ivars, (size_t)n, NULL, SHMEM_CMP_NE, 0);
    for (int j = 0; j < n; j++)
        PE_CHECK_EQ_I64(shmem_long_atomic_fetch(&ivars[j], me), j + 1);
    PE_CHECK_EQ_I64(shmem_long_test_all(ivars, (size_t)n, NULL, SHMEM_CMP_GT, 0), 1);
    PE_CHECK_EQ_I64(shmem_long_test_all(ivars, (size_t)n, NULL, SHMEM_CMP_GT, 1), 0);

    /* any: status excludes every element but the last, which equals n. */
    int *status = calloc((size_t)n, sizeof(int));
    for (int j = 0; j < n - 1; j++)
        status[j] = 1;
    PE_CHECK_EQ_U64(shmem_long_wait_until_any(ivars, (size_t)n, status, SHMEM_CMP_GE, 1),
                    (uint64_t)(n - 1));
    PE_CHECK_EQ_U64(shmem_long_test_any(ivars, (size_t)n, NULL, SHMEM_CMP_EQ, n + 1),
                    SIZE_MAX);
    PE_CHECK_EQ_U64(shmem_long_test_any(ivars, (size_t)n, NULL, SHMEM_CMP_EQ, 1), 0);

    /* some: elements >= 2 are all but the first. */
    size_t *indices = calloc((size_t)n, sizeof(size_t));
    size_t found = shmem_long_wait_until_some(ivars, (size_t)n, indices, NULL, SHMEM_CMP_LE,
                                              (long)n);
    PE_CHECK_EQ_U64(found, (uint64_t)n);
    found = shmem_long_test_some(ivars, (size_t)n, indices, NULL, SHMEM_CMP_GE, 2);
    PE_CHECK_EQ_U64(found, (uint64_t)(n - 1));
    unsigned long seen = 0;
    for (size_t k = 0; k < found && k < (size_t)n; k++)
        seen |= 1ul << indices[k];
    PE_CHECK_EQ_U64(seen, ((1ul << n) - 1) & ~1ul);

    /* vector forms: cmp_values[j] = j + 1 matches every element; j + 2 none. */
    long *values = calloc((size_t)n, sizeof(long));
    for (int j = 0; j < n; j++)
        values[j] = j + 1;
    shmem_long_wait_until_all_vector(ivars, (size_t)n, NULL, SHMEM_CMP_EQ, values);
    PE_CHECK_EQ_I64(shmem_long_test_all_vector(ivars, (size_t)n, NULL, SHMEM_CMP_EQ, values), 1);
    PE_CHECK_EQ_U64(shmem_long_wait_until_any_vector(ivars, (size_t)n, status, SHMEM_CMP_EQ,
                                                     values),
                    (uint64_t)(n - 1));
    found = shmem_long_wait_until_some_vector(ivars, (size_t)n, indices, NULL, SHMEM_CMP_EQ,
                                              values);
    PE_CHECK_EQ_U64(found, (uint64_t)n);
    for (int j = 0; j < n; j++)
        values[j] = j + 2;
    PE_CHECK_EQ_I64(shmem_long_test_all_vector(ivars, (size_t)n, NULL, SHMEM_CMP_EQ, values), 0);
    PE_CHECK_EQ_U64(shmem_long_test_any_vector(ivars, (size_t)n, NULL, SHMEM_CMP_EQ, values),
                    SIZE_MAX);
    PE_CHECK_EQ_U64(shmem_long_test_some_vector(ivars, (size_t)n, indices, NULL, SHMEM_CMP_LT,
                                                values),
                    (uint64_t)n);

    free(values);
    free(indices);
    free(status);
    shmem_barrier_all();
    shmem_free(ivars);
    shmem_free(flag);
    shmem_finalize();
    return 0;
}

static void test_wait(void **state)
{
    (void)state;
    run_pes_each(body_wait, NULL);
}

/* ---- atomics ------------------------------------------------------------------------- */

enum { AMO_ROUNDS = 100 };

static int body_atomics(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = right_of(me, n);
    long *counter = shmem_calloc(1, sizeof(long));
    int *lock = shmem_calloc(1, sizeof(int));
    int *winners = shmem_calloc(1, sizeof(int));
    unsigned int *bits = shmem_calloc(1, sizeof(unsigned int));
    uint64_t *chain = shmem_calloc(1, sizeof(uint64_t));
    uint64_t *chain_sum = shmem_calloc(1, sizeof(uint64_t));
    double *d = shmem_calloc(1, sizeof(double));
    float *f = shmem_calloc(1, sizeof(float));
    shmem_barrier_all();

    /* Counting: every fetch sees an even value below the total; the total is exact. */
    const long total = 3L * n * AMO_ROUNDS;
    for (int k = 0; k < AMO_ROUNDS; k++) {
        long old = shmem_long_atomic_fetch_add(counter, 2, 0);
        PE_CHECK(old >= 0 && old < total);
        shmem_long_atomic_inc(counter, 0);
    }
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_long_atomic_fetch(counter, 0), total);
    long fetched = -1;
    shmem_long_atomic_fetch_nbi(&fetched, counter, 0);
    shmem_quiet();
    PE_CHECK_EQ_I64(fetched, total);
    shmem_barrier_all();
    shmem_long_atomic_fetch_inc_nbi(&fetched, counter, 0);
    shmem_quiet();
    PE_CHECK(fetched >= total && fetched < total + n);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_long_atomic_fetch(counter, 0), total + n);

    /* compare_swap: exactly one PE takes the lock. */
    int old = shmem_int_atomic_compare_swap(lock, 0, me + 1, 0);
    if (old == 0)
        shmem_int_atomic_add(winners, 1, 0);
    else
        PE_CHECK(old >= 1 && old <= n && old != me + 1);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_int_atomic_fetch(winners, 0), 1);
    int holder = shmem_int_atomic_fetch(lock, 0);
    PE_CHECK(holder >= 1 && holder <= n);
    /* A compare_swap whose condition fails changes nothing. */
    PE_CHECK_EQ_I64(shmem_int_atomic_compare_swap(lock, -5, 99, 0), holder);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_int_atomic_fetch(lock, 0), holder);

    /* swap: the values handed back, plus the last one left, are 0, 1, ..., n once each. */
    uint64_t prev = shmem_uint64_atomic_swap(chain, (uint64_t)me + 1, 0);
    shmem_uint64_atomic_add(chain_sum, prev, 0);
    shmem_barrier_all();
    uint64_t last = shmem_uint64_atomic_fetch(chain, 0);
    PE_CHECK(last >= 1 && last <= (uint64_t)n);
    PE_CHECK_EQ_U64(shmem_uint64_atomic_fetch(chain_sum, 0) + last,
                    (uint64_t)n * (uint64_t)(n + 1) / 2);
    shmem_barrier_all();

    /* Bitwise: or sets one bit per PE, xor clears them again, and clears a mask. */
    unsigned int before = shmem_uint_atomic_fetch_or(bits, 1u << me, 0);
    PE_CHECK((before & (1u << me)) == 0);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(shmem_uint_atomic_fetch(bits, 0), (1u << n) - 1);
    shmem_barrier_all();
    shmem_uint_atomic_xor(bits, 1u << me, 0);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(shmem_uint_atomic_fetch(bits, 0), 0);
    shmem_barrier_all();
    if (me == 0)
        shmem_uint_atomic_set(bits, 0xffffu, 0);
    shmem_barrier_all();
    unsigned int and_old = 0;
    shmem_uint_atomic_fetch_and_nbi(&and_old, bits, ~(1u << me), 0);
    shmem_quiet();
    PE_CHECK((and_old & (1u << me)) != 0);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(shmem_uint_atomic_fetch(bits, 0), 0xffffu & ~((1u << n) - 1));
    shmem_barrier_all();
    shmem_uint_atomic_or(bits, 0x10000u, 0);
    PE_CHECK_EQ_U64(shmem_uint_atomic_fetch_xor(bits, 0, 0) & 0x10000u, 0x10000u);
    shmem_uint_atomic_and(bits, 0x10000u, 0);
    shmem_barrier_all();
    PE_CHECK_EQ_U64(shmem_uint_atomic_fetch(bits, 0), 0x10000u);

    /* Extended types: set, fetch and swap of doubles and floats. */
    shmem_double_atomic_set(d, 2.5 + me, right);
    shmem_barrier_all();
    PE_CHECK_EQ_DBL_BITS(shmem_double_atomic_fetch(d, me), 2.5 + left_of(me, n));
    shmem_barrier_all();
    float fold = shmem_float_atomic_swap(f, (float)me + 0.25f, me);
    PE_CHECK_EQ_FLT_BITS(fold, 0.0f);
    float fnbi = -1.0f;
    shmem_float_atomic_swap_nbi(&fnbi, f, 8.0f, me);
    shmem_quiet();
    PE_CHECK_EQ_FLT_BITS(fnbi, (float)me + 0.25f);
    PE_CHECK_EQ_FLT_BITS(shmem_float_atomic_fetch(f, me), 8.0f);

    shmem_barrier_all();
    shmem_free(f);
    shmem_free(d);
    shmem_free(chain_sum);
    shmem_free(chain);
    shmem_free(bits);
    shmem_free(winners);
    shmem_free(lock);
    shmem_free(counter);
    shmem_finalize();
    return 0;
}

static void test_atomics(void **state)
{
    (void)state;
    run_pes_each(body_atomics, NULL);
}

/* ---- barriers ------------------------------------------------------------------------ */

enum { BARRIER_ROUNDS = 16 };

static int body_barrier(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *x = shmem_calloc(1, sizeof(int));
    int *slots = shmem_calloc((size_t)n, sizeof(int));
    shmem_barrier_all();
    for (int r = 1; r <= BARRIER_ROUNDS; r++) {
        /* A slow writer: nobody may leave the barrier before it has written. */
        int writer = r % n;
        if (me == writer) {
            sleep_ms(2);
            *x = r;
        }
        if (r % 2 == 0)
            shmem_barrier_all();
        else
            shmem_sync_all();
        PE_CHECK_EQ_I64(shmem_int_g(x, writer), r);
        PE_CHECK_EQ_I64(shmem_team_sync(SHMEM_TEAM_WORLD), 0);

        /* barrier_all completes the non-blocking puts issued before it. */
        for (int pe = 0; pe < n; pe++)
            shmem_int_put_nbi(&slots[me], &r, 1, pe);
        shmem_barrier_all();
        for (int j = 0; j < n; j++)
            PE_CHECK_EQ_I64(slots[j], r);
        shmem_barrier_all();
    }
    shmem_free(slots);
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static void test_barrier(void **state)
{
    (void)state;
    run_pes_each(body_barrier, NULL);
}

/* ---- reductions ---------------------------------------------------------------------- */

enum { RED_N = 5 };

static int body_reduce(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *lsrc = shmem_malloc(RED_N * sizeof(long));
    long *ldst = shmem_malloc(RED_N * sizeof(long));
    for (int i = 0; i < RED_N; i++)
        lsrc[i] = me + 1 + i;

    PE_CHECK_EQ_I64(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, RED_N), 0);
    for (int i = 0; i < RED_N; i++)
        PE_CHECK_EQ_I64(ldst[i], (long)n * (n + 1) / 2 + (long)n * i);
    PE_CHECK_EQ_I64(shmem_long_max_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, RED_N), 0);
    for (int i = 0; i < RED_N; i++)
        PE_CHECK_EQ_I64(ldst[i], n + i);
    PE_CHECK_EQ_I64(shmem_long_min_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, RED_N), 0);
    for (int i = 0; i < RED_N; i++)
        PE_CHECK_EQ_I64(ldst[i], 1 + i);
    PE_CHECK_EQ_I64(shmem_long_prod_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, RED_N), 0);
    for (int i = 0; i < RED_N; i++) {
        long prod = 1;
        for (int p = 0; p < n; p++)
            prod *= p + 1 + i;
        PE_CHECK_EQ_I64(ldst[i], prod);
    }

    /* Bitwise, in place (dest == source). */
    unsigned int *ubuf = shmem_malloc(3 * sizeof(unsigned int));
    unsigned int all = (1u << n) - 1;
    for (int k = 0; k < 3; k++)
        ubuf[k] = (1u << me) | 0x100u;
    PE_CHECK_EQ_I64(shmem_uint_or_reduce(SHMEM_TEAM_WORLD, ubuf, ubuf, 1), 0);
    PE_CHECK_EQ_I64(shmem_uint_and_reduce(SHMEM_TEAM_WORLD, ubuf + 1, ubuf + 1, 1), 0);
    PE_CHECK_EQ_I64(shmem_uint_xor_reduce(SHMEM_TEAM_WORLD, ubuf + 2, ubuf + 2, 1), 0);
    PE_CHECK_EQ_U64(ubuf[0], all | 0x100u);
    PE_CHECK_EQ_U64(ubuf[1], n == 1 ? 0x101u : 0x100u);
    PE_CHECK_EQ_U64(ubuf[2], all | (n % 2 == 1 ? 0x100u : 0));

    /* Floating point in team PE order: 1e16 + 1 + 1 + ... rounds each 1 away, which a
     * different order (the ones first) would not. Every PE gets the same bits. */
    double *dsrc = shmem_malloc(sizeof(double)), *ddst = shmem_malloc(sizeof(double));
    *dsrc = me == 0 ? 1e16 : 1.0;
    double expect = 1e16;
    for (int p = 1; p < n; p++)
        expect += 1.0;
    PE_CHECK_EQ_I64(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 1), 0);
    PE_CHECK_EQ_DBL_BITS(*ddst, expect);

    shmem_free(ddst);
    shmem_free(dsrc);
    shmem_free(ubuf);
    shmem_free(ldst);
    shmem_free(lsrc);
    shmem_finalize();
    return 0;
}

static void test_reduce(void **state)
{
    (void)state;
    run_pes_each(body_reduce, NULL);
}

/* ---- broadcast, fcollect, alltoall --------------------------------------------------- */

enum { COLL_N = 6 };

static int body_broadcast(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *src = shmem_malloc(COLL_N * sizeof(long));
    long *dst = shmem_malloc((size_t)n * COLL_N * sizeof(long));
    for (int root = 0; root < n; root++) {
        for (int i = 0; i < COLL_N; i++) {
            src[i] = (me + 1) * 100L + i;
            dst[i] = -1;
        }
        PE_CHECK_EQ_I64(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, COLL_N, root), 0);
        for (int i = 0; i < COLL_N; i++) /* OpenSHMEM 1.5: the root's dest too */
            PE_CHECK_EQ_I64(dst[i], (root + 1) * 100L + i);
        shmem_barrier_all(); /* before the next round rewrites src and dst */
    }

    char *bsrc = shmem_malloc(13), *bdst = shmem_calloc(13, 1);
    memcpy(bsrc, me == n - 1 ? "from the last" : "not the root!", 13);
    PE_CHECK_EQ_I64(shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, 13, n - 1), 0);
    PE_CHECK_MEM(bdst, "from the last", 13);

    /* fcollect: block p of dest is PE p's source. */
    for (int i = 0; i < COLL_N; i++)
        src[i] = me * 1000L + i;
    PE_CHECK_EQ_I64(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, COLL_N), 0);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < COLL_N; i++)
            PE_CHECK_EQ_I64(dst[p * COLL_N + i], p * 1000L + i);

    /* alltoall: block p of PE q's source goes to block q of PE p's dest. */
    int *asrc = shmem_malloc((size_t)n * 2 * sizeof(int));
    int *adst = shmem_malloc((size_t)n * 2 * sizeof(int));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < 2; i++)
            asrc[p * 2 + i] = me * 1000 + p * 10 + i;
    PE_CHECK_EQ_I64(shmem_int_alltoall(SHMEM_TEAM_WORLD, adst, asrc, 2), 0);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < 2; i++)
            PE_CHECK_EQ_I64(adst[q * 2 + i], q * 1000 + me * 10 + i);
    PE_CHECK_EQ_I64(shmem_alltoallmem(SHMEM_TEAM_WORLD, adst, asrc, 2 * sizeof(int)), 0);
    for (int q = 0; q < n; q++)
        PE_CHECK_EQ_I64(adst[q * 2], q * 1000 + me * 10);
    PE_CHECK_EQ_I64(shmem_fcollectmem(SHMEM_TEAM_WORLD, adst, asrc, sizeof(int)), 0);
    for (int q = 0; q < n; q++)
        PE_CHECK_EQ_I64(adst[q], q * 1000);

    shmem_free(adst);
    shmem_free(asrc);
    shmem_free(bdst);
    shmem_free(bsrc);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

static void test_broadcast(void **state)
{
    (void)state;
    run_pes_each(body_broadcast, NULL);
}

/* ---- teams --------------------------------------------------------------------------- */

static int body_team(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    PE_CHECK_EQ_I64(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    PE_CHECK_EQ_I64(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
    PE_CHECK_EQ_I64(shmem_team_n_pes(SHMEM_TEAM_SHARED), n); /* one node */
    PE_CHECK_EQ_I64(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    PE_CHECK_EQ_I64(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    PE_CHECK_EQ_I64(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_INVALID), -1);

    /* The even PEs. */
    int n_even = (n + 1) / 2;
    shmem_team_t even = SHMEM_TEAM_WORLD; /* must be overwritten */
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n_even, NULL, 0, &even),
                    0);
    int *src = shmem_malloc(sizeof(int)), *dst = shmem_malloc(sizeof(int));
    *src = me;
    if (me % 2 == 0) {
        PE_CHECK(even != SHMEM_TEAM_INVALID && even != SHMEM_TEAM_WORLD);
        PE_CHECK_EQ_I64(shmem_team_my_pe(even), me / 2);
        PE_CHECK_EQ_I64(shmem_team_n_pes(even), n_even);
        for (int k = 0; k < n_even; k++)
            PE_CHECK_EQ_I64(shmem_team_translate_pe(even, k, SHMEM_TEAM_WORLD), 2 * k);
        PE_CHECK_EQ_I64(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even), me / 2);
        if (n > 1)
            PE_CHECK_EQ_I64(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even), -1);
        shmem_team_config_t config = {.num_contexts = -1};
        PE_CHECK_EQ_I64(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &config), 0);
        PE_CHECK_EQ_I64(config.num_contexts, 0);
        /* A reduction over the team sees only its members: 0 + 2 + 4 + ... */
        PE_CHECK_EQ_I64(shmem_int_sum_reduce(even, dst, src, 1), 0);
        PE_CHECK_EQ_I64(*dst, n_even * (n_even - 1));
        PE_CHECK_EQ_I64(shmem_team_sync(even), 0);
    } else {
        PE_CHECK(even == SHMEM_TEAM_INVALID);
        PE_CHECK_EQ_I64(shmem_team_my_pe(even), -1);
        PE_CHECK_EQ_I64(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even), -1);
        shmem_team_config_t config;
        PE_CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0);
    }
    shmem_team_destroy(even); /* SHMEM_TEAM_INVALID on the odd PEs: nothing happens */

    /* Splitting SHMEM_TEAM_INVALID makes no team and says so. */
    shmem_team_t none = SHMEM_TEAM_WORLD;
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &none) != 0);
    PE_CHECK(none == SHMEM_TEAM_INVALID);

    /* The odd PEs, split again into their upper half, and a broadcast from its root. */
    if (n >= 2) {
        shmem_team_t odd = SHMEM_TEAM_INVALID;
        PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd),
                        0);
        PE_CHECK_EQ_I64(shmem_team_my_pe(odd), me % 2 == 1 ? me / 2 : -1);
        if (odd != SHMEM_TEAM_INVALID) {
            int n_odd = n / 2, half = n_odd / 2;
            shmem_team_t upper = SHMEM_TEAM_INVALID;
            PE_CHECK_EQ_I64(shmem_team_split_strided(odd, half, 1, n_odd - half, NULL, 0, &upper),
                            0);
            int my_odd = me / 2;
            PE_CHECK_EQ_I64(shmem_team_my_pe(upper), my_odd >= half ? my_odd - half : -1);
            if (upper != SHMEM_TEAM_INVALID) {
                /* upper's PE 0 is world PE 2 * half + 1 */
                PE_CHECK_EQ_I64(shmem_team_translate_pe(upper, 0, SHMEM_TEAM_WORLD),
                                2 * half + 1);
                PE_CHECK_EQ_I64(shmem_int_broadcast(upper, dst, src, 1, 0), 0);
                PE_CHECK_EQ_I64(*dst, 2 * half + 1);
                shmem_team_destroy(upper);
            }
            shmem_team_destroy(odd);
        }
    }

    /* Teams are recycled: more splits than the core has team slots. */
    for (int k = 0; k < 80; k++) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        if (!PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t),
                             0))
            break;
        PE_CHECK_EQ_I64(shmem_team_n_pes(t), n);
        shmem_team_destroy(t);
    }

    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

static void test_team(void **state)
{
    (void)state;
    run_pes_each(body_team, NULL);
}

/* Team slots are recycled: a PE that is slow to leave a split must still see the team it
 * was given, even when the other PEs have meanwhile destroyed that team and split a new
 * one into the same slot. Many short jobs at 3 PEs, each splitting the even PEs, destroying
 * them and splitting the odd PEs; run in a forked child so that a failure inside the core
 * (an abort, or a hang cut short by SHMEMU_HANG_TIMEOUT) fails this test, not the suite. */
static int body_split_reuse(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), bad = 0;
    for (int k = 0; k < 4; k++) {
        shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
        bad |= (even != SHMEM_TEAM_INVALID) != (me % 2 == 0);
        shmem_team_destroy(even);
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd);
        bad |= (odd != SHMEM_TEAM_INVALID) != (me % 2 == 1);
        shmem_team_destroy(odd);
    }
    shmem_finalize();
    return bad;
}

static int child_split_reuse(void *arg)
{
    (void)arg;
    setenv("SHMEMU_HANG_TIMEOUT", "20", 1);
    int jobs = pe_check_scaled(300, 10);
    for (int job = 0; job < jobs; job++) {
        int rc = shmemu_launch(3, body_split_reuse, NULL);
        if (rc != 0) {
            fprintf(stderr, "job %d: a PE got the wrong team membership\n", job);
            return 1;
        }
    }
    return 0;
}

static void test_team_slot_reuse(void **state)
{
    (void)state;
    static char err[16384];
    int status = run_child(child_split_reuse, NULL, child_time_limit(), err, sizeof err, NULL);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return;
    print_error("child stderr:\n%s\n", err);
    fail_msg("split/destroy/split at 3 PEs failed (wait status 0x%x)", (unsigned)status);
}

/* ---- C11 type-generic interfaces ----------------------------------------------------- */

static int body_generic(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = right_of(me, n), left = left_of(me, n);

    /* A double put moves 8 bytes per element: a float routine would move half. */
    double *dbuf = shmem_calloc(RMA_N, sizeof(double));
    double dsrc[RMA_N];
    for (int i = 0; i < RMA_N; i++)
        dsrc[i] = me + i / 64.0;
    shmem_barrier_all();
    shmem_put(dbuf, dsrc, RMA_N, right);
    shmem_barrier_all();
    for (int i = 0; i < RMA_N; i++)
        PE_CHECK_EQ_DBL_BITS(dbuf[i], left + i / 64.0);
    const double *cdbuf = dbuf;
    PE_CHECK_EQ_DBL_BITS(shmem_g(cdbuf + 1, right), me + 1 / 64.0);
    short sgot[4] = {0};
    short *sbuf = shmem_calloc(4, sizeof(short));
    shmem_p(&sbuf[2], (short)(me + 7), right);
    shmem_barrier_all();
    shmem_get(sgot, sbuf, 4, me);
    PE_CHECK_EQ_I64(sgot[2], left + 7);

    long *counter = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    shmem_atomic_add(counter, 5L, 0);
    PE_CHECK(shmem_atomic_fetch_add(counter, 1L, 0) >= 5);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_atomic_fetch(counter, 0), 6L * n);

    long *lsrc = shmem_malloc(sizeof(long)), *ldst = shmem_malloc(sizeof(long));
    *lsrc = me + 1;
    PE_CHECK_EQ_I64(shmem_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 1), 0);
    PE_CHECK_EQ_I64(*ldst, (long)n * (n + 1) / 2);
    PE_CHECK_EQ_I64(shmem_test(counter, SHMEM_CMP_EQ, 6L * n), me == 0);
    shmem_wait_until(lsrc, SHMEM_CMP_EQ, (long)me + 1);

    shmem_barrier_all();
    shmem_free(ldst);
    shmem_free(lsrc);
    shmem_free(counter);
    shmem_free(sbuf);
    shmem_free(dbuf);
    shmem_finalize();
    return 0;
}

static void test_generic(void **state)
{
    (void)state;
    run_pes_each(body_generic, NULL);
}

/* ---- misuse: each aborts with a message that names the shmem_ call ------------------- */

/* Only PE 1 misuses; PE 0 waits in a barrier that the abort ends. */
static void scenario_signal_wait_bad_cmp(void *arg)
{
    (void)arg;
    shmem_init();
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    if (shmem_my_pe() == 1)
        shmem_signal_wait_until(sig, 17, 0);
    shmem_barrier_all();
}

static void scenario_wait_nvshmem_cmp(void *arg)
{
    (void)arg;
    shmem_init();
    int *x = shmem_calloc(1, sizeof(int));
    shmem_int_wait_until(x, NVSHMEM_CMP_EQ, 0);
}

static void scenario_test_nvshmem_cmp(void *arg)
{
    (void)arg;
    shmem_init();
    long *x = shmem_calloc(1, sizeof(long));
    (void)shmem_long_test_all(x, 1, NULL, NVSHMEM_CMP_EQ, 0);
}

static void scenario_put_signal_nvshmem_op(void *arg)
{
    (void)arg;
    shmem_init();
    int *buf = shmem_calloc(4, sizeof(int));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    int src[4] = {1, 2, 3, 4};
    shmem_int_put_signal(buf, src, 4, sig, 1, NVSHMEM_SIGNAL_SET, 0);
}

static void scenario_put64_signal_nbi_bad_op(void *arg)
{
    (void)arg;
    shmem_init();
    uint64_t *buf = shmem_calloc(4, sizeof(uint64_t));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    uint64_t src[4] = {1, 2, 3, 4};
    shmem_put64_signal_nbi(buf, src, 4, sig, 1, 2, 0);
}

/* NVSHMEM_TEAM_WORLD is the constant 0, a null pointer constant: GCC converts it to a
 * shmem_team_t without a warning. (The cast keeps clang's -Werror quiet here.) */
static void scenario_nvshmem_team_to_shmem(void *arg)
{
    (void)arg;
    shmem_init();
    (void)shmem_team_n_pes((shmem_team_t)(uintptr_t)NVSHMEM_TEAM_WORLD);
}

static void scenario_reduce_nvshmem_team(void *arg)
{
    (void)arg;
    shmem_init();
    int *x = shmem_calloc(2, sizeof(int));
    (void)shmem_int_sum_reduce((shmem_team_t)(uintptr_t)NVSHMEM_TEAM_WORLD, x, x + 1, 1);
}

static void test_misuse(void **state)
{
    (void)state;
    expect_child_failure(scenario_signal_wait_bad_cmp, NULL, 2,
                         "shmemu: PE 1: shmem_signal_wait_until: unknown comparison 17; use "
                         "SHMEM_CMP_EQ (1), SHMEM_CMP_NE (2)");
    expect_child_failure(scenario_wait_nvshmem_cmp, NULL, 1,
                         "shmem_int_wait_until: unknown comparison 0; use SHMEM_CMP_EQ (1)");
    expect_child_failure(scenario_test_nvshmem_cmp, NULL, 1,
                         "shmem_long_test_all: unknown comparison 0; use SHMEM_CMP_EQ (1)");
    expect_child_failure(scenario_test_nvshmem_cmp, NULL, 1, "(0 is NVSHMEM_CMP_EQ");
    expect_child_failure(scenario_put_signal_nvshmem_op, NULL, 1,
                         "shmem_int_put_signal: unknown signal op 9; use SHMEM_SIGNAL_SET (0) "
                         "or SHMEM_SIGNAL_ADD (1) (that is NVSHMEM_SIGNAL_SET");
    expect_child_failure(scenario_put64_signal_nbi_bad_op, NULL, 3,
                         "shmem_put64_signal_nbi: unknown signal op 2; use SHMEM_SIGNAL_SET");
    expect_child_failure(scenario_nvshmem_team_to_shmem, NULL, 1,
                         "shmem_team_n_pes: team is a null pointer, which is no OpenSHMEM team");
    expect_child_failure(scenario_reduce_nvshmem_team, NULL, 2,
                         "shmem_int_sum_reduce: team is a null pointer");
}

/* An unknown thread level is an error value, not an abort. */
static int body_bad_thread_level(void *arg)
{
    (void)arg;
    int provided = -1;
    int rc = shmem_init_thread(7, &provided);
    return rc != 0 && provided == -1 ? 0 : 1;
}

static int child_bad_thread_level(void *arg)
{
    (void)arg;
    return shmemu_launch(1, body_bad_thread_level, NULL);
}

static void test_bad_thread_level(void **state)
{
    (void)state;
    char err[4096];
    int status = run_child(child_bad_thread_level, NULL, child_time_limit(), err, sizeof err,
                           NULL);
    assert_true(status != -1 && WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_non_null(strstr(err, "shmem_init_thread: unknown thread level 7; use "
                                "SHMEM_THREAD_SINGLE (0)"));
}

/* shmem_global_exit from one PE ends every PE with its status. */
static int body_global_exit(void *arg)
{
    (void)arg;
    shmem_init();
    if (shmem_my_pe() == 1)
        shmem_global_exit(7);
    shmem_barrier_all(); /* PE 0 waits here until the exit ends it */
    shmem_finalize();
    return 0;
}

static int child_global_exit(void *arg)
{
    (void)arg;
    return shmemu_launch(2, body_global_exit, NULL);
}

static void test_global_exit(void **state)
{
    (void)state;
    char err[4096];
    int status = run_child(child_global_exit, NULL, child_time_limit(), err, sizeof err, NULL);
    assert_true(status != -1 && WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_init_query),
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_put_signal),
        cmocka_unit_test(test_put_signal_checked),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_wait),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_team),
        cmocka_unit_test(test_team_slot_reuse),
        cmocka_unit_test(test_generic),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_bad_thread_level),
        cmocka_unit_test(test_global_exit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
