/*
 * test_shmem_coll15.c: OpenSHMEM 1.5's collect, alltoalls, shmem_sync(team), shmem_team_ptr,
 * shmem_pcontrol, the distributed locks, and the report of collectives whose PEs disagree,
 * at 1, 2, 3 and 8 PEs.
 *
 * collect: every PE contributes its own count (some none), so a wrong order or a wrong
 * offset puts a block in the wrong place; alltoalls: strides 2 and 3 with sentinels in the
 * gaps, so a stride applied to the wrong index or a write into a gap shows. Every typed
 * variant runs once (table-driven from SHMEMU_SHMEM_RMA_TYPES, shmemu/typelists.h). Locks:
 * every PE increments a plain counter on PE 0 (a get, then a put: not atomic, and plain
 * loads and stores through shmem_ptr) under the lock; the total is exact only
 * under mutual exclusion, and, in checking mode (late puts), only when clear_lock completes
 * the holder's put before it releases. The same runs under the deterministic scheduler.
 * Misuse (a forked child each): clearing a lock not held, setting one held, and collectives
 * whose PEs pass different roots, counts, strides, calls or teams: the message names two PEs
 * and what differs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "shmem.h"
#include "nvshmem.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"
#include "support/sched_env.h"

#define MAX_PES 8

/* ---- collect ------------------------------------------------------------------------- */

/* PE p contributes (p % 3) elements (PEs 2, 5, ... none), element i being value(p, i). */
static size_t collect_count(int pe) { return (size_t)(pe % 3); }
static int collect_value(int pe, size_t i) { return pe * 10 + (int)i + 1; }

#define COLLECT_TYPED(TYPE, NAME)                                                             \
    static void collect_##NAME(int me, int n)                                                 \
    {                                                                                         \
        TYPE *src = shmem_malloc(4 * sizeof(TYPE));                                           \
        TYPE *dst = shmem_malloc((2 * MAX_PES + 1) * sizeof(TYPE));                           \
        for (size_t i = 0; i < collect_count(me); i++)                                        \
            src[i] = (TYPE)collect_value(me, i);                                              \
        for (int i = 0; i < 2 * MAX_PES + 1; i++)                                             \
            dst[i] = (TYPE)99;                                                                \
        PE_CHECK_EQ_I64(shmem_##NAME##_collect(SHMEM_TEAM_WORLD, dst, src,                    \
                                               collect_count(me)),                            \
                        0);                                                                   \
        size_t k = 0;                                                                         \
        for (int q = 0; q < n; q++)                                                           \
            for (size_t i = 0; i < collect_count(q); i++, k++)                                \
                PE_CHECK_MSG(dst[k] == (TYPE)collect_value(q, i),                             \
                             #NAME "_collect: dst[%zu] is not element %zu of PE %d", k, i,    \
                             q);                                                              \
        PE_CHECK_MSG(dst[k] == (TYPE)99, #NAME "_collect wrote past the end");                \
        shmem_free(dst);                                                                      \
        shmem_free(src);                                                                      \
    }
SHMEMU_SHMEM_RMA_TYPES(COLLECT_TYPED)
#undef COLLECT_TYPED

static int body_collect(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN(TYPE, NAME) collect_##NAME(me, n);
    SHMEMU_SHMEM_RMA_TYPES(RUN)
#undef RUN
    /* collectmem counts bytes; the generic form selects on dest */
    char *bsrc = shmem_malloc(4);
    char *bdst = shmem_malloc(2 * MAX_PES + 1);
    memset(bsrc, 'a' + me, 4);
    memset(bdst, '.', 2 * MAX_PES + 1);
    PE_CHECK_EQ_I64(shmem_collectmem(SHMEM_TEAM_WORLD, bdst, bsrc, collect_count(me)), 0);
    size_t k = 0;
    for (int q = 0; q < n; q++)
        for (size_t i = 0; i < collect_count(q); i++, k++)
            PE_CHECK_EQ_I64(bdst[k], 'a' + q);
    PE_CHECK_EQ_I64(bdst[k], '.');
    long *lsrc = shmem_malloc(sizeof(long));
    long *ldst = shmem_malloc(MAX_PES * sizeof(long));
    *lsrc = 1000 + me;
    PE_CHECK_EQ_I64(shmem_collect(SHMEM_TEAM_WORLD, ldst, lsrc, 1), 0);
    for (int q = 0; q < n; q++)
        PE_CHECK_EQ_I64(ldst[q], 1000 + q);
    /* on a team of the odd PEs: team order, not world order */
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (n > 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        int tn = shmem_team_n_pes(odd);
        PE_CHECK_EQ_I64(shmem_collect(odd, ldst, lsrc, 1), 0);
        for (int r = 0; r < tn; r++)
            PE_CHECK_EQ_I64(ldst[r], 1000 + 1 + 2 * r);
    }
    shmem_team_destroy(odd);
    shmem_free(ldst);
    shmem_free(lsrc);
    shmem_free(bdst);
    shmem_free(bsrc);
    shmem_finalize();
    return 0;
}

static void test_collect(void **state)
{
    (void)state;
    run_pes_each(body_collect, NULL);
    set_sched("random", 11);
    run_pes(3, body_collect, NULL);
    clear_sched();
}

/* ---- alltoalls ----------------------------------------------------------------------- */

enum { A_N = 2, A_DST = 2, A_SST = 3 };
/* The element i that PE `from` sends to PE `to`. */
static int a2a_value(int from, int to, int i) { return from * 100 + to * 10 + i + 1; }

#define ALLTOALLS_TYPED(TYPE, NAME)                                                           \
    static void alltoalls_##NAME(int me, int n)                                               \
    {                                                                                         \
        size_t slen = (size_t)A_SST * MAX_PES * A_N, dlen = (size_t)A_DST * MAX_PES * A_N;    \
        TYPE *src = shmem_malloc(slen * sizeof(TYPE));                                        \
        TYPE *dst = shmem_malloc(dlen * sizeof(TYPE));                                        \
        for (size_t i = 0; i < slen; i++)                                                     \
            src[i] = (TYPE)7;                                                                 \
        for (size_t i = 0; i < dlen; i++)                                                     \
            dst[i] = (TYPE)99;                                                                \
        for (int to = 0; to < n; to++)                                                        \
            for (int i = 0; i < A_N; i++)                                                     \
                src[A_SST * (to * A_N + i)] = (TYPE)a2a_value(me, to, i);                     \
        PE_CHECK_EQ_I64(                                                                      \
            shmem_##NAME##_alltoalls(SHMEM_TEAM_WORLD, dst, src, A_DST, A_SST, A_N), 0);      \
        for (size_t j = 0; j < dlen; j++) {                                                   \
            size_t e = j / A_DST;                                                             \
            int from = (int)(e / A_N), i = (int)(e % A_N);                                    \
            TYPE want = j % A_DST == 0 && from < n ? (TYPE)a2a_value(from, me, i) : (TYPE)99; \
            PE_CHECK_MSG(dst[j] == want, #NAME "_alltoalls: dst[%zu] is wrong", j);           \
        }                                                                                     \
        shmem_free(dst);                                                                      \
        shmem_free(src);                                                                      \
    }
SHMEMU_SHMEM_RMA_TYPES(ALLTOALLS_TYPED)
#undef ALLTOALLS_TYPED

static int body_alltoalls(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN(TYPE, NAME) alltoalls_##NAME(me, n);
    SHMEMU_SHMEM_RMA_TYPES(RUN)
#undef RUN
    /* alltoallsmem (bytes) with stride 1 is alltoallmem; the generic form too */
    char *bsrc = shmem_malloc(MAX_PES);
    char *bdst = shmem_malloc(MAX_PES);
    for (int q = 0; q < n; q++)
        bsrc[q] = (char)('0' + me * MAX_PES + q);
    PE_CHECK_EQ_I64(shmem_alltoallsmem(SHMEM_TEAM_WORLD, bdst, bsrc, 1, 1, 1), 0);
    for (int q = 0; q < n; q++)
        PE_CHECK_EQ_I64(bdst[q], '0' + q * MAX_PES + me);
    int *isrc = shmem_malloc(2 * MAX_PES * sizeof(int));
    int *idst = shmem_malloc(MAX_PES * sizeof(int));
    for (int q = 0; q < n; q++)
        isrc[2 * q] = me * 1000 + q;
    PE_CHECK_EQ_I64(shmem_alltoalls(SHMEM_TEAM_WORLD, idst, isrc, 1, 2, 1), 0);
    for (int q = 0; q < n; q++)
        PE_CHECK_EQ_I64(idst[q], q * 1000 + me);
    shmem_free(idst);
    shmem_free(isrc);
    shmem_free(bdst);
    shmem_free(bsrc);
    shmem_finalize();
    return 0;
}

static void test_alltoalls(void **state)
{
    (void)state;
    run_pes_each(body_alltoalls, NULL);
    set_sched("random", 11);
    run_pes(3, body_alltoalls, NULL);
    clear_sched();
}

/* ---- shmem_sync, shmem_team_ptr, shmem_pcontrol -------------------------------------- */

static int body_sync_ptr(void *arg)
{
    (void)arg;
    shmem_pcontrol(1); /* before init too: it does nothing */
    shmem_init();
    shmem_pcontrol(0);
    shmem_pcontrol(2);
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *x = shmem_calloc(1, sizeof(long));
    /* the specification's example: put to the next PE, quiet, sync; the value is there */
    const int rounds = pe_check_scaled(50, 5);
    for (int r = 1; r <= rounds; r++) {
        shmem_long_p(x, r * 100 + me, (me + 1) % n);
        shmem_quiet();
        PE_CHECK_EQ_I64(shmem_sync(SHMEM_TEAM_WORLD), 0);
        PE_CHECK_EQ_I64(*x, r * 100 + (me + n - 1) % n);
        PE_CHECK_EQ_I64(shmem_sync(SHMEM_TEAM_WORLD), 0); /* all have read before the next */
    }
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
    PE_CHECK_EQ_PTR(shmem_team_ptr(SHMEM_TEAM_INVALID, x, 0), NULL);
    if (even != SHMEM_TEAM_INVALID) {
        for (int r = 0; r < shmem_team_n_pes(even); r++)
            PE_CHECK_EQ_PTR(shmem_team_ptr(even, x, r), shmem_ptr(x, 2 * r));
        PE_CHECK_EQ_I64(shmem_sync(even), 0);
    }
    shmem_team_destroy(even);
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static void test_sync_team_ptr_pcontrol(void **state)
{
    (void)state;
    run_pes_each(body_sync_ptr, NULL);
}

/* ---- locks --------------------------------------------------------------------------- */

static int body_lock_counter(void *arg)
{
    (void)arg;
    shmem_init();
    int n = shmem_n_pes();
    long *lock = shmem_calloc(1, sizeof(long));
    long *counter = shmem_calloc(2, sizeof(long));
    const int rounds = pe_check_scaled(200, 20);
    for (int r = 0; r < rounds; r++) {
        shmem_set_lock(lock);
        /* not atomic: a get and a put; exact only if no other PE is between them */
        long v = shmem_long_g(counter, 0);
        /* an atomic between the two: a point where the deterministic scheduler may switch */
        shmem_long_atomic_inc(counter + 1, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_long_g(counter, 0), (long)n * rounds);
    PE_CHECK_EQ_I64(shmem_long_g(counter + 1, 0), (long)n * rounds);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
    shmem_finalize();
    return 0;
}

/* Plain loads and stores of PE 0's word through shmem_ptr, under the lock: exact, and (the
 * point under helgrind, DRD and TSan) no race report, because clear_lock is a release and
 * set_lock an acquire for the checkers. */
static int body_lock_plain(void *arg)
{
    (void)arg;
    shmem_init();
    int n = shmem_n_pes();
    long *lock = shmem_calloc(1, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    long *plain = shmem_ptr(counter, 0);
    const int rounds = pe_check_scaled(200, 20);
    for (int r = 0; r < rounds; r++) {
        shmem_set_lock(lock);
        *plain = *plain + 1;
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    PE_CHECK_EQ_I64(*plain, (long)n * rounds);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
    shmem_finalize();
    return 0;
}

static void test_lock_counter(void **state)
{
    (void)state;
    run_pes_each(body_lock_counter, NULL);
    run_pes_each(body_lock_plain, NULL);
}

/* Checking mode delivers puts late: the total is exact only because clear_lock completes
 * the holder's put (quiet) before the next holder reads. */
static void test_lock_counter_checked(void **state)
{
    (void)state;
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    for (int seed = 1; seed <= 3; seed++) {
        char s[16];
        snprintf(s, sizeof s, "%d", seed);
        setenv("SHMEMU_CHECK_SEED", s, 1);
        run_pes(3, body_lock_counter, NULL);
        run_pes(8, body_lock_counter, NULL);
    }
    unsetenv("SHMEMU_CHECK_SEED");
    unsetenv("SHMEMU_CHECK_NBI");
}

static void test_lock_counter_deterministic(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 4; seed++) {
        set_sched(seed % 2 ? "random" : "pct", seed);
        run_pes(2, body_lock_counter, NULL);
        run_pes(3, body_lock_counter, NULL);
        run_pes(8, body_lock_counter, NULL);
    }
    clear_sched();
}

/* test_lock: 0 when it set the lock, 1 while another PE holds it; waiting is FIFO. */
static int body_test_lock(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *lock = shmem_calloc(1, sizeof(long));
    long *owner = shmem_calloc(1, sizeof(long));
    if (me == 0) {
        PE_CHECK_EQ_I64(shmem_test_lock(lock), 0);
        PE_CHECK_EQ_I64(shmem_test_lock(lock), 1); /* held by this PE: still set */
    }
    shmem_barrier_all();
    if (me != 0)
        PE_CHECK_EQ_I64(shmem_test_lock(lock), 1);
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(lock);
    shmem_barrier_all();
    /* Every PE polls until it gets the lock, then records itself; all get it once. */
    while (shmem_test_lock(lock) != 0)
        ;
    long seen = shmem_long_atomic_fetch_add(owner, 1, 0);
    PE_CHECK(seen >= 0 && seen < n);
    shmem_clear_lock(lock);
    shmem_barrier_all();
    PE_CHECK_EQ_I64(shmem_long_g(owner, 0), n);
    shmem_barrier_all();
    shmem_free(owner);
    shmem_free(lock);
    shmem_finalize();
    return 0;
}

static void test_test_lock(void **state)
{
    (void)state;
    run_pes_each(body_test_lock, NULL);
    set_sched("random", 7);
    run_pes(3, body_test_lock, NULL);
    clear_sched();
}

/* ---- misuse -------------------------------------------------------------------------- */

static int last_pe(void) { return shmem_n_pes() - 1; }

static void clear_unheld(void *arg)
{
    (void)arg;
    shmem_init();
    long *lock = shmem_calloc(1, sizeof(long));
    if (shmem_my_pe() == 0 && shmem_n_pes() > 1)
        shmem_set_lock(lock);
    shmem_barrier_all();
    if (shmem_my_pe() == last_pe())
        shmem_clear_lock(lock);
    shmem_barrier_all();
}

static void set_twice(void *arg)
{
    (void)arg;
    shmem_init();
    long *lock = shmem_calloc(1, sizeof(long));
    if (shmem_my_pe() == last_pe()) {
        shmem_set_lock(lock);
        shmem_set_lock(lock);
    }
    shmem_barrier_all();
}

static void team_ptr_out_of_range(void *arg)
{
    (void)arg;
    shmem_init();
    long *x = shmem_calloc(1, sizeof(long));
    if (shmem_my_pe() == last_pe())
        (void)shmem_team_ptr(SHMEM_TEAM_WORLD, x, shmem_n_pes());
    shmem_barrier_all();
}

static void alltoalls_zero_stride(void *arg)
{
    (void)arg;
    shmem_init();
    long *buf = shmem_calloc(64, sizeof(long));
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, buf + 32, buf, 0, 1, 1);
}

static void test_call_misuse(void **state)
{
    (void)state;
    expect_child_failure(team_ptr_out_of_range, NULL, 2, "PE 1: shmem_team_ptr: PE 2 is out of "
                                                         "range; the team has PEs 0 to 1");
    expect_child_failure(alltoalls_zero_stride, NULL, 1, "PE 0: shmem_long_alltoalls: strides "
                                                         "dst 0 and sst 1 must both be at "
                                                         "least 1");
}

static void test_lock_misuse(void **state)
{
    (void)state;
    expect_child_failure(clear_unheld, NULL, 2,
                         "PE 1: shmem_clear_lock: lock 0x");
    expect_child_failure(clear_unheld, NULL, 3, "is not held by this PE (PE 2; it is held by "
                                                "PE 0)");
    expect_child_failure(clear_unheld, NULL, 1, "is not held by this PE (PE 0; no PE holds it)");
    expect_child_failure(set_twice, NULL, 2, "PE 1: shmem_set_lock: lock 0x");
    expect_child_failure(set_twice, NULL, 1, "is already held by this PE (PE 0): setting it "
                                             "again would wait for ever");
}

static void root_differs(void *arg)
{
    (void)arg;
    shmem_init();
    int *buf = shmem_calloc(8, sizeof(int));
    shmem_int_broadcast(SHMEM_TEAM_WORLD, buf + 4, buf, 4, shmem_my_pe() == last_pe() ? 1 : 0);
    shmem_barrier_all();
}

static void nelems_differs(void *arg)
{
    const char *which = arg;
    shmem_init();
    long *buf = shmem_calloc(64, sizeof(long));
    size_t n = shmem_my_pe() == last_pe() ? 3 : 2;
    if (strcmp(which, "fcollect") == 0)
        shmem_long_fcollect(SHMEM_TEAM_WORLD, buf + 32, buf, n);
    else if (strcmp(which, "alltoall") == 0)
        shmem_long_alltoall(SHMEM_TEAM_WORLD, buf + 32, buf, n);
    else if (strcmp(which, "reduce") == 0)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, buf + 32, buf, n);
    else if (strcmp(which, "alltoalls") == 0)
        shmem_long_alltoalls(SHMEM_TEAM_WORLD, buf + 32, buf, 1, (ptrdiff_t)n, 1);
    shmem_barrier_all();
}

static void call_differs(void *arg)
{
    (void)arg;
    shmem_init();
    int *buf = shmem_calloc(32, sizeof(int));
    if (shmem_my_pe() == last_pe())
        shmem_int_fcollect(SHMEM_TEAM_WORLD, buf + 16, buf, 1);
    else
        shmem_int_broadcast(SHMEM_TEAM_WORLD, buf + 16, buf, 1, 0);
    shmem_barrier_all();
}

/* PE 0 calls on the team {0, 1}, PE 1 on SHMEM_TEAM_WORLD: each waits for the other. */
static void teams_differ(void *arg)
{
    (void)arg;
    shmem_init();
    int *buf = shmem_calloc(32, sizeof(int));
    shmem_team_t pair = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &pair);
    if (shmem_my_pe() == 0)
        shmem_int_broadcast(pair, buf + 16, buf, 1, 0);
    else
        shmem_int_broadcast(SHMEM_TEAM_WORLD, buf + 16, buf, 1, 0);
    shmem_barrier_all();
}

/* PE 0 enters a broadcast that the others never make: they wait for a flag instead. */
static void skipped_collective(void *arg)
{
    (void)arg;
    shmem_init();
    int *buf = shmem_calloc(32, sizeof(int));
    if (shmem_my_pe() == 0)
        shmem_int_broadcast(SHMEM_TEAM_WORLD, buf + 16, buf, 1, 0);
    else
        shmem_int_wait_until(buf + 31, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
}

static void nv_root_differs(void *arg)
{
    (void)arg;
    nvshmem_init();
    double *buf = nvshmem_calloc(8, sizeof(double));
    nvshmem_double_broadcast(NVSHMEM_TEAM_WORLD, buf + 4, buf, 4,
                             nvshmem_my_pe() == nvshmem_n_pes() - 1 ? 1 : 0);
    nvshmem_barrier_all();
}

static void test_collective_mismatch(void **state)
{
    (void)state;
    /* Every PE finds the same pair (team PE 0 and the first that differs), so the text is
     * the same whichever PE prints it. */
    expect_child_failure(root_differs, NULL, 2,
                         "shmem_int_broadcast: the PEs of SHMEM_TEAM_WORLD disagree: team PE 0 "
                         "(PE 0) passes PE_root = 0, team PE 1 (PE 1) passes PE_root = 1 to "
                         "shmem_int_broadcast; every PE of the team must pass the same PE_root");
    expect_child_failure(root_differs, NULL, 8, "team PE 0 (PE 0) passes PE_root = 0, team PE 7 "
                                                "(PE 7) passes PE_root = 1");
    expect_child_failure(nelems_differs, "fcollect", 3,
                         "team PE 0 (PE 0) passes nelems (as bytes) = 16, team PE 2 (PE 2) "
                         "passes nelems (as bytes) = 24 to shmem_long_fcollect");
    expect_child_failure(nelems_differs, "alltoall", 2, "passes nelems (as bytes) = 24 to "
                                                        "shmem_long_alltoall");
    expect_child_failure(nelems_differs, "reduce", 3, "team PE 0 (PE 0) passes nreduce = 2, "
                                                      "team PE 2 (PE 2) passes nreduce = 3 to "
                                                      "shmem_long_sum_reduce");
    expect_child_failure(nelems_differs, "alltoalls", 2, "team PE 0 (PE 0) passes sst = 2, team "
                                                         "PE 1 (PE 1) passes sst = 3");
    expect_child_failure(call_differs, NULL, 3, "team PE 0 (PE 0) is in shmem_int_broadcast and "
                                                "team PE 2 (PE 2) in shmem_int_fcollect at the "
                                                "same point");
    expect_child_failure(nv_root_differs, NULL, 2, "nvshmem_double_broadcast: the PEs of "
                                                   "NVSHMEM_TEAM_WORLD disagree: team PE 0 (PE 0) "
                                                   "passes PE_root = 0, team PE 1 (PE 1) passes "
                                                   "PE_root = 1");
    /* Which of the two notices the deadlock first is a race: both messages name both. */
    const char *const teams[] = {
        "PE 0 is in shmem_int_broadcast on team 6, which needs PE 1, while PE 1 waits in "
        "shmem_int_broadcast on SHMEM_TEAM_WORLD, which needs PE 0: a certain deadlock",
        "PE 1 is in shmem_int_broadcast on SHMEM_TEAM_WORLD, which needs PE 0, while PE 0 "
        "waits in shmem_int_broadcast on team 6, which needs PE 1: a certain deadlock",
        NULL};
    expect_child_failure_any(teams_differ, NULL, 2, teams);
    expect_child_failure_any(teams_differ, NULL, 3, teams);
    /* A collective that only some PEs make: the deterministic scheduler's deadlock report
     * lists the collective call each PE is in. */
    set_sched("random", 3);
    expect_child_failure(skipped_collective, NULL, 3,
                         "PE 0 is in shmem_int_broadcast on SHMEM_TEAM_WORLD (PE_root = 0, "
                         "nelems (as bytes) = 4)\n    PE 1 is in no collective call\n    PE 2 "
                         "is in no collective call");
    clear_sched();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collect),
        cmocka_unit_test(test_alltoalls),
        cmocka_unit_test(test_sync_team_ptr_pcontrol),
        cmocka_unit_test(test_lock_counter),
        cmocka_unit_test(test_lock_counter_checked),
        cmocka_unit_test(test_lock_counter_deterministic),
        cmocka_unit_test(test_test_lock),
        cmocka_unit_test(test_lock_misuse),
        cmocka_unit_test(test_call_misuse),
        cmocka_unit_test(test_collective_mismatch),
    };
    return cmocka_run_group_tests_name("shmem_coll15", tests, NULL, NULL);
}
