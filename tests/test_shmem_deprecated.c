/*
 * test_shmem_deprecated.c: the deprecated interfaces OpenSHMEM 1.5 still defines
 * (shmemu/shmem_deprecated.h), at 1, 2, 3 and 8 PEs.
 *
 * Setup and memory (start_pes, _my_pe, shmalloc, ...), every pre-1.4 atomic of every type
 * and the old generic names, shmem_wait, and the active-set collectives on sets with and
 * without stride (logPE_stride 1 gives two disjoint sets, evens and odds, that run at the
 * same time). Each collective is checked for its values (the reductions exactly, against
 * the same combination done here in active-set order), for the broadcast leaving
 * the root's dest alone, and for pSync holding SHMEM_SYNC_VALUE on return. Misuse (a pSync
 * not initialized, a PE outside the set, a root outside it) aborts with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem.h"
#include "support/pe_check.h"

/* ---- constants ------------------------------------------------------------------------ */

static void test_constants(void **state)
{
    (void)state;
    assert_int_equal(SHMEM_SYNC_VALUE, 0);
    assert_int_equal(_SHMEM_SYNC_VALUE, SHMEM_SYNC_VALUE);
    const long sizes[] = {SHMEM_BARRIER_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE,
                          SHMEM_REDUCE_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE,
                          SHMEM_ALLTOALL_SYNC_SIZE, SHMEM_ALLTOALLS_SYNC_SIZE};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        assert_true(sizes[i] >= 1);
        assert_true(sizes[i] <= SHMEM_SYNC_SIZE); /* SHMEM_SYNC_SIZE is the largest */
    }
    assert_true(SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1);
    assert_int_equal(_SHMEM_BARRIER_SYNC_SIZE, SHMEM_BARRIER_SYNC_SIZE);
    assert_int_equal(_SHMEM_BCAST_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE);
    assert_int_equal(_SHMEM_REDUCE_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE);
    assert_int_equal(_SHMEM_COLLECT_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE);
    assert_int_equal(_SHMEM_REDUCE_MIN_WRKDATA_SIZE, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    assert_int_equal(_SHMEM_SYNC_SIZE, SHMEM_SYNC_SIZE);
    assert_int_equal(_SHMEM_CMP_EQ, SHMEM_CMP_EQ);
    assert_int_equal(_SHMEM_CMP_LE, SHMEM_CMP_LE);
    assert_int_equal(_SHMEM_MAX_NAME_LEN, SHMEM_MAX_NAME_LEN);
}

/* ---- setup, query, memory ------------------------------------------------------------- */

static int body_setup(void *arg)
{
    (void)arg;
    start_pes(0);
    PE_CHECK_EQ_I64(_my_pe(), shmem_my_pe());
    PE_CHECK_EQ_I64(_num_pes(), shmem_n_pes());
    long *a = shmalloc(4 * sizeof(long));
    PE_CHECK(a != NULL && shmem_addr_accessible(a, shmem_my_pe()));
    for (int i = 0; i < 4; i++)
        a[i] = 10 + i;
    a = shrealloc(a, 64 * sizeof(long));
    PE_CHECK(a != NULL);
    for (int i = 0; i < 4; i++)
        PE_CHECK_EQ_I64(a[i], 10 + i); /* shrealloc keeps the contents */
    void *b = shmemalign(4096, 100);
    PE_CHECK(b != NULL && (uintptr_t)b % 4096 == 0);
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_clear_cache_line_inv(a);
    shmem_set_cache_line_inv(a);
    shmem_udcflush();
    shmem_udcflush_line(a);
    shfree(b);
    shfree(a);
    shmem_finalize();
    return 0;
}

static void test_setup(void **state)
{
    (void)state;
    run_pes_each(body_setup, NULL);
}

/* ---- pre-1.4 atomics, every type ------------------------------------------------------- */

/* Every PE adds to PE 0's words (fadd me+1, finc, add 2me+1 and inc), then each PE runs
 * cswap, swap, fetch and set on its right neighbour's word, a barrier apart. */
#define CHECK_OLD_AMO(TYPE, NAME)                                                             \
    static void old_amo_##NAME(int me, int n)                                                 \
    {                                                                                         \
        TYPE *x = shmem_calloc(4, sizeof(TYPE));                                              \
        int right = (me + 1) % n;                                                             \
        x[3] = (TYPE)100;                                                                     \
        shmem_barrier_all();                                                                  \
        TYPE before = shmem_##NAME##_fadd(&x[0], (TYPE)(me + 1), 0);                          \
        PE_CHECK(before <= (TYPE)(n * (n + 1) / 2));                                          \
        shmem_##NAME##_finc(&x[1], 0);                                                        \
        shmem_##NAME##_add(&x[2], (TYPE)(2 * me + 1), 0);                                     \
        shmem_##NAME##_inc(&x[2], 0);                                                         \
        shmem_barrier_all();                                                                  \
        if (me == 0) {                                                                        \
            PE_CHECK_EQ_I64(x[0], n * (n + 1) / 2);                                           \
            PE_CHECK_EQ_I64(x[1], n);                                                         \
            PE_CHECK_EQ_I64(x[2], n * n + n); /* sum of 2me+1 is n^2, plus n incs */          \
        }                                                                                     \
        PE_CHECK_EQ_I64(shmem_##NAME##_cswap(&x[3], (TYPE)100, (TYPE)7, right), 100);         \
        shmem_barrier_all();                                                                  \
        PE_CHECK_EQ_I64(shmem_##NAME##_cswap(&x[3], (TYPE)100, (TYPE)9, right), 7);           \
        PE_CHECK_EQ_I64(shmem_##NAME##_fetch(&x[3], right), 7);                               \
        shmem_barrier_all();                                                                  \
        PE_CHECK_EQ_I64(shmem_##NAME##_swap(&x[3], (TYPE)11, right), 7);                      \
        shmem_barrier_all();                                                                  \
        PE_CHECK_EQ_I64(x[3], 11);                                                            \
        shmem_barrier_all();                                                                  \
        shmem_##NAME##_set(&x[3], (TYPE)13, right);                                           \
        shmem_barrier_all();                                                                  \
        PE_CHECK_EQ_I64(x[3], 13);                                                            \
        shmem_barrier_all();                                                                  \
        shmem_free(x);                                                                        \
    }
SHMEMU_AMO_TYPES(CHECK_OLD_AMO)
#undef CHECK_OLD_AMO

/* float and double: fetch, set and swap move the exact bits. */
#define CHECK_OLD_AMO_FLOAT(TYPE, NAME)                                                       \
    static void old_amo_##NAME(int me, int n)                                                 \
    {                                                                                         \
        TYPE *x = shmem_calloc(1, sizeof(TYPE));                                              \
        int right = (me + 1) % n;                                                             \
        shmem_barrier_all();                                                                  \
        shmem_##NAME##_set(x, (TYPE)0.1 * (TYPE)(right + 1), right);                          \
        shmem_barrier_all();                                                                  \
        PE_CHECK(*x == (TYPE)0.1 * (TYPE)(me + 1));                                           \
        shmem_barrier_all();                                                                  \
        PE_CHECK(shmem_##NAME##_swap(x, (TYPE)-2.5, right) == (TYPE)0.1 * (TYPE)(right + 1)); \
        PE_CHECK(shmem_##NAME##_fetch(x, right) == (TYPE)-2.5);                               \
        shmem_barrier_all();                                                                  \
        shmem_free(x);                                                                        \
    }
CHECK_OLD_AMO_FLOAT(float, float)
CHECK_OLD_AMO_FLOAT(double, double)
#undef CHECK_OLD_AMO_FLOAT

static int body_old_amo(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN_OLD_AMO(TYPE, NAME) old_amo_##NAME(me, n);
    SHMEMU_AMO_EXTENDED_TYPES(RUN_OLD_AMO)
#undef RUN_OLD_AMO

    /* The old generic names select by type. */
    long *l = shmem_calloc(2, sizeof(long));
    int *i = shmem_calloc(1, sizeof(int));
    double *d = shmem_calloc(1, sizeof(double));
    shmem_barrier_all();
    shmem_fadd(&l[0], 2L, 0);
    shmem_finc(&l[0], 0);
    shmem_add(i, 5, 0);
    shmem_inc(i, 0);
    shmem_barrier_all();
    if (me == 0) {
        PE_CHECK_EQ_I64(l[0], 3 * n);
        PE_CHECK_EQ_I64(*i, 6 * n);
    }
    shmem_barrier_all();
    if (me == 0) {
        PE_CHECK_EQ_I64(shmem_swap(&l[1], 4L, 0), 0);
        PE_CHECK_EQ_I64(shmem_cswap(&l[1], 4L, 5L, 0), 4);
        PE_CHECK_EQ_I64(shmem_fetch(&l[1], 0), 5);
        shmem_set(d, 0.75, 0);
        PE_CHECK(shmem_fetch(d, 0) == 0.75);
        PE_CHECK(shmem_swap(d, 1.5, 0) == 0.75);
    }
    shmem_barrier_all();
    shmem_free(d);
    shmem_free(i);
    shmem_free(l);
    shmem_finalize();
    return 0;
}

static void test_old_atomics(void **state)
{
    (void)state;
    run_pes_each(body_old_amo, NULL);
}

/* ---- shmem_wait ----------------------------------------------------------------------- */

/* PE 0 waits for a word each other PE changes; the typed, generic and volatile forms. */
static int body_wait(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *flags = shmem_calloc((size_t)n, sizeof(long));
    int *iflag = shmem_calloc(1, sizeof(int));
    shmem_barrier_all();
    if (me != 0) {
        shmem_long_p(&flags[me], me + 1L, 0);
        if (me == n - 1)
            shmem_int_p(iflag, 9, 0);
    } else {
        for (int p = 1; p < n; p++) {
            if (p % 2 == 0)
                shmem_long_wait(&flags[p], 0);
            else
                shmem_wait(&flags[p], 0); /* C11: selects shmem_long_wait */
            PE_CHECK_EQ_I64(flags[p], p + 1);
        }
        if (n > 1) {
            volatile int *v = iflag; /* the old signatures take volatile pointers */
            shmem_int_wait(v, 0);
            PE_CHECK_EQ_I64(*iflag, 9);
        }
    }
    shmem_barrier_all();
    shmem_free(iflag);
    shmem_free(flags);
    shmem_finalize();
    return 0;
}

static void test_wait(void **state)
{
    (void)state;
    run_pes_each(body_wait, NULL);
}

/* ---- active sets ---------------------------------------------------------------------- */

typedef struct active_set {
    int start, log_stride, size;
} active_set;

/* The caller's number in the set, or -1. */
static int set_rank(const active_set *s, int pe)
{
    int stride = 1 << s->log_stride, d = pe - s->start;
    if (d < 0 || d % stride != 0 || d / stride >= s->size)
        return -1;
    return d / stride;
}

static int set_pe(const active_set *s, int rank) { return s->start + (rank << s->log_stride); }

static long *psync_new(void)
{
    long *p = shmem_malloc(SHMEM_SYNC_SIZE * sizeof(long));
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        p[i] = SHMEM_SYNC_VALUE;
    return p;
}

static void check_psync(const long *p, const char *after)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        if (!PE_CHECK_MSG(p[i] == SHMEM_SYNC_VALUE, "pSync[%d] = %ld after %s", i, p[i],
                          after))
            return;
}

/* The value rank r contributes at element i of a reduction: small and exact in every type. */
#define CONTRIB(TYPE, r, i) ((TYPE)((r) % 5 + 1 + (i)))
#define CONTRIB_COMPLEX(TYPE, r, i) ((TYPE)((r) % 5 + 1 + (i)) + (TYPE)((r) % 3) * (TYPE)I)

enum { RED_N = 5 };

/* One reduction of TYPE and OP over set s: each member's dest must equal the combination,
 * done here in set order, bit for bit. */
#define TO_ALL_CHECK(TYPE, NAME, OP, EXPR, CONTRIB_OF)                                        \
    static void to_all_##NAME##_##OP(const active_set *s, int rank, long *psync)              \
    {                                                                                         \
        TYPE *src = shmem_malloc(RED_N * sizeof(TYPE));                                       \
        TYPE *dst = shmem_malloc(RED_N * sizeof(TYPE));                                       \
        TYPE *wrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(TYPE));               \
        if (rank >= 0) {                                                                      \
            for (int i = 0; i < RED_N; i++)                                                   \
                src[i] = CONTRIB_OF(TYPE, rank, i);                                           \
            shmem_##NAME##_##OP##_to_all(dst, src, RED_N, s->start, s->log_stride, s->size,   \
                                         wrk, psync);                                         \
            for (int i = 0; i < RED_N; i++) {                                                 \
                TYPE a = CONTRIB_OF(TYPE, 0, i);                                              \
                for (int r = 1; r < s->size; r++) {                                           \
                    TYPE b = CONTRIB_OF(TYPE, r, i);                                          \
                    a = (EXPR);                                                               \
                }                                                                             \
                PE_CHECK_MSG(dst[i] == a, /* values, not bytes: long double pads */           \
                             "shmem_" #NAME "_" #OP "_to_all: element %d differs", i);        \
            }                                                                                 \
            check_psync(psync, "shmem_" #NAME "_" #OP "_to_all");                             \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        shmem_free(wrk);                                                                      \
        shmem_free(dst);                                                                      \
        shmem_free(src);                                                                      \
    }
#define TO_ALL_BITWISE(TYPE, NAME)                                                            \
    TO_ALL_CHECK(TYPE, NAME, and, (TYPE)(a & b), CONTRIB)                                     \
    TO_ALL_CHECK(TYPE, NAME, or, (TYPE)(a | b), CONTRIB)                                      \
    TO_ALL_CHECK(TYPE, NAME, xor, (TYPE)(a ^ b), CONTRIB)
#define TO_ALL_MINMAX(TYPE, NAME)                                                             \
    TO_ALL_CHECK(TYPE, NAME, min, (b < a ? b : a), CONTRIB)                                   \
    TO_ALL_CHECK(TYPE, NAME, max, (b > a ? b : a), CONTRIB)
#define TO_ALL_SUMPROD(TYPE, NAME)                                                            \
    TO_ALL_CHECK(TYPE, NAME, sum, (TYPE)(a + b), CONTRIB)                                     \
    TO_ALL_CHECK(TYPE, NAME, prod, (TYPE)(a * b), CONTRIB)
#define TO_ALL_SUMPROD_COMPLEX(TYPE, NAME)                                                    \
    TO_ALL_CHECK(TYPE, NAME, sum, (TYPE)(a + b), CONTRIB_COMPLEX)                             \
    TO_ALL_CHECK(TYPE, NAME, prod, (TYPE)(a * b), CONTRIB_COMPLEX)
SHMEMU_SHMEM_TO_ALL_BITWISE_TYPES(TO_ALL_BITWISE)
SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_MINMAX)
SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_SUMPROD)
SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(TO_ALL_SUMPROD_COMPLEX)

static void all_to_all_reductions(const active_set *s, int rank, long *psync)
{
#define RUN_BITWISE(TYPE, NAME)                                                               \
    to_all_##NAME##_and(s, rank, psync);                                                      \
    to_all_##NAME##_or(s, rank, psync);                                                       \
    to_all_##NAME##_xor(s, rank, psync);
#define RUN_MINMAX(TYPE, NAME)                                                                \
    to_all_##NAME##_min(s, rank, psync);                                                      \
    to_all_##NAME##_max(s, rank, psync);
#define RUN_SUMPROD(TYPE, NAME)                                                               \
    to_all_##NAME##_sum(s, rank, psync);                                                      \
    to_all_##NAME##_prod(s, rank, psync);
    SHMEMU_SHMEM_TO_ALL_BITWISE_TYPES(RUN_BITWISE)
    SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(RUN_MINMAX)
    SHMEMU_SHMEM_TO_ALL_SUMPROD_TYPES(RUN_SUMPROD)
#undef RUN_SUMPROD
#undef RUN_MINMAX
#undef RUN_BITWISE
}

enum { COLL_N = 3 };

/* The data collectives of one width over set s (rank: the caller's, or -1 outside it).
 * Every PE makes the same allocations; only members call the collective. */
#define SIZED_COLLECTIVES(BITS, UTYPE)                                                        \
    static void sized_colls_##BITS(const active_set *s, int rank, long *psync)                \
    {                                                                                         \
        int n = s->size;                                                                      \
        /* sized by the job, not the set: every PE allocates alike */                         \
        size_t cap = (size_t)shmem_n_pes() * COLL_N * 2;                                      \
        UTYPE *src = shmem_malloc(cap * sizeof(UTYPE));                                       \
        UTYPE *dst = shmem_malloc(cap * sizeof(UTYPE));                                       \
        const UTYPE sentinel = (UTYPE)0x5A5A5A5A5A5A5A5Aull;                                  \
        /* broadcast from every root: the root's dest stays as it was */                      \
        for (int root = 0; root < shmem_n_pes(); root++) { /* barrier_alls: the job's count */\
            for (int i = 0; i < COLL_N; i++) {                                                \
                src[i] = (UTYPE)(1000 * (rank + 1) + i);                                      \
                dst[i] = sentinel;                                                            \
            }                                                                                 \
            shmem_barrier_all();                                                              \
            if (rank >= 0 && root < n) {                                                      \
                shmem_broadcast##BITS(dst, src, COLL_N, root, s->start, s->log_stride, n,     \
                                      psync);                                                 \
                for (int i = 0; i < COLL_N; i++)                                              \
                    PE_CHECK_EQ_U64(dst[i], rank == root ? sentinel                           \
                                                         : (UTYPE)(1000 * (root + 1) + i));   \
                check_psync(psync, "shmem_broadcast" #BITS);                                  \
            }                                                                                 \
            shmem_barrier_all();                                                              \
        }                                                                                     \
        /* fcollect: block r is member r's source */                                          \
        if (rank >= 0) {                                                                      \
            for (int i = 0; i < COLL_N; i++)                                                  \
                src[i] = (UTYPE)(100 * rank + i);                                             \
            shmem_fcollect##BITS(dst, src, COLL_N, s->start, s->log_stride, n, psync);        \
            for (int r = 0; r < n; r++)                                                       \
                for (int i = 0; i < COLL_N; i++)                                              \
                    PE_CHECK_EQ_U64(dst[r * COLL_N + i], 100 * r + i);                        \
            check_psync(psync, "shmem_fcollect" #BITS);                                       \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        /* collect: member r gives r + 1 elements */                                          \
        if (rank >= 0) {                                                                      \
            for (int i = 0; i <= rank; i++)                                                   \
                src[i] = (UTYPE)(100 * rank + i);                                             \
            shmem_collect##BITS(dst, src, (size_t)rank + 1, s->start, s->log_stride, n,       \
                                psync);                                                       \
            int k = 0;                                                                        \
            for (int r = 0; r < n; r++)                                                       \
                for (int i = 0; i <= r; i++)                                                  \
                    PE_CHECK_EQ_U64(dst[k++], 100 * r + i);                                   \
            check_psync(psync, "shmem_collect" #BITS);                                        \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        /* alltoall: block j of member r's source goes to member j's block r */               \
        if (rank >= 0) {                                                                      \
            for (int j = 0; j < n; j++)                                                       \
                for (int i = 0; i < COLL_N; i++)                                              \
                    src[j * COLL_N + i] = (UTYPE)(10000 * rank + 100 * j + i);                \
            shmem_alltoall##BITS(dst, src, COLL_N, s->start, s->log_stride, n, psync);        \
            for (int r = 0; r < n; r++)                                                       \
                for (int i = 0; i < COLL_N; i++)                                              \
                    PE_CHECK_EQ_U64(dst[r * COLL_N + i], 10000 * r + 100 * rank + i);         \
            check_psync(psync, "shmem_alltoall" #BITS);                                       \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        /* alltoalls: source read at stride 2, dest written at stride 2 */                    \
        if (rank >= 0) {                                                                      \
            for (int j = 0; j < n * COLL_N; j++) {                                            \
                src[2 * j] = (UTYPE)(10000 * rank + j);                                       \
                src[2 * j + 1] = sentinel;                                                    \
                dst[2 * j] = dst[2 * j + 1] = sentinel;                                       \
            }                                                                                 \
            shmem_alltoalls##BITS(dst, src, 2, 2, COLL_N, s->start, s->log_stride, n, psync); \
            for (int r = 0; r < n; r++)                                                       \
                for (int i = 0; i < COLL_N; i++) {                                            \
                    int j = r * COLL_N + i;                                                   \
                    PE_CHECK_EQ_U64(dst[2 * j], 10000 * r + rank * COLL_N + i);               \
                    PE_CHECK_EQ_U64(dst[2 * j + 1], sentinel);                                \
                }                                                                             \
            check_psync(psync, "shmem_alltoalls" #BITS);                                      \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        shmem_free(dst);                                                                      \
        shmem_free(src);                                                                      \
    }
SIZED_COLLECTIVES(32, uint32_t)
SIZED_COLLECTIVES(64, uint64_t)

/* shmem_barrier completes puts: each member puts to the next member, then the barrier, then
 * each reads what the previous member put. shmem_sync just synchronizes. */
static void barrier_and_sync(const active_set *s, int rank, long *psync)
{
    long *box = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    if (rank >= 0) {
        int n = s->size, next = set_pe(s, (rank + 1) % n), prev = (rank + n - 1) % n;
        shmem_long_put_nbi(box, &(long){rank + 7L}, 1, next);
        shmem_barrier(s->start, s->log_stride, n, psync);
        PE_CHECK_EQ_I64(*box, prev + 7);
        check_psync(psync, "shmem_barrier");
        shmem_sync(s->start, s->log_stride, n, psync);
        check_psync(psync, "shmem_sync");
    }
    shmem_barrier_all();
    shmem_free(box);
}

/* The sets of a job of n PEs: everyone, and (n >= 2) the even and the odd PEs (logPE_stride
 * 1), which run at the same time, each on its own pSync. */
static int body_active_sets(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *psync = psync_new();
    long *psync2 = psync_new();
    shmem_barrier_all();

    active_set all = {0, 0, n};
    active_set evens = {0, 1, (n + 1) / 2}, odds = {1, 1, n / 2};
    const active_set *mine = me % 2 == 0 ? &evens : &odds;
    bool split = n >= 2;
    for (int round = 0; round < (split ? 2 : 1); round++) {
        const active_set *s = round == 0 ? &all : mine;
        long *p = round == 0 ? psync : psync2;
        int rank = set_rank(s, me);
        /* in the split round every PE is in exactly one set */
        PE_CHECK(rank >= 0);
        PE_CHECK_EQ_I64(set_pe(s, rank), me);
        barrier_and_sync(s, rank, p);
        sized_colls_32(s, rank, p);
        sized_colls_64(s, rank, p);
        all_to_all_reductions(s, rank, p);
    }

    /* A set that leaves PEs out (n >= 3: PEs 1..n-1): the others only take part in the
     * barrier_alls between the collectives. */
    if (n >= 3) {
        active_set tail = {1, 0, n - 1};
        int rank = set_rank(&tail, me);
        barrier_and_sync(&tail, rank, psync);
        sized_colls_64(&tail, rank, psync);
        to_all_double_sum(&tail, rank, psync);
    }
    shmem_barrier_all();
    shmem_free(psync2);
    shmem_free(psync);
    shmem_finalize();
    return 0;
}

static void test_active_sets(void **state)
{
    (void)state;
    run_pes_each(body_active_sets, NULL);
}

/* ---- misuse --------------------------------------------------------------------------- */

static void scenario_psync_not_initialized(void *arg)
{
    (void)arg;
    shmem_init();
    long *psync = psync_new();
    psync[1] = 5; /* within SHMEM_BARRIER_SYNC_SIZE */
    shmem_barrier_all();
    shmem_barrier(0, 0, shmem_n_pes(), psync);
}

static void scenario_not_a_member(void *arg)
{
    (void)arg;
    shmem_init();
    long *psync = psync_new();
    shmem_barrier_all();
    if (shmem_my_pe() == 0) /* the set is PE 1 alone */
        shmem_barrier(1, 0, 1, psync);
    shmem_barrier_all();
}

static void scenario_set_too_big(void *arg)
{
    (void)arg;
    shmem_init();
    long *psync = psync_new();
    shmem_barrier_all();
    shmem_sync(0, 1, shmem_n_pes(), psync); /* stride 2 runs past the last PE */
}

static void scenario_bad_root(void *arg)
{
    (void)arg;
    shmem_init();
    long *psync = psync_new();
    long *buf = shmem_calloc(4, sizeof(long));
    shmem_barrier_all();
    shmem_broadcast64(buf, buf, 1, 2, 0, 0, 2, psync);
}

static void test_misuse(void **state)
{
    (void)state;
    expect_child_failure(scenario_psync_not_initialized, NULL, 2,
                         "shmem_barrier: pSync[1] is 5, not SHMEM_SYNC_VALUE");
    expect_child_failure(scenario_not_a_member, NULL, 2,
                         "shmem_barrier: this PE is not in the active set PE_start 1");
    expect_child_failure(scenario_set_too_big, NULL, 3, "shmem_sync: active set PE_start 0");
    expect_child_failure(scenario_bad_root, NULL, 2,
                         "shmem_broadcast64: PE_root 2 is not in the active set of 2 PEs");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),   cmocka_unit_test(test_setup),
        cmocka_unit_test(test_old_atomics), cmocka_unit_test(test_wait),
        cmocka_unit_test(test_active_sets), cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
