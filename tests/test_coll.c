/*
 * test_coll.c: collectives on NVSHMEM_TEAM_WORLD: barrier_all, sync_all, broadcast from
 * every root, fcollect, alltoall, every reduction on every type of its list (also in place),
 * and the determinism of floating-point reductions.
 *
 * Reductions: the header promises the PEs' contributions are combined in team PE order
 * 0, 1, ..., n-1 on every PE, so each expected value is computed here by the same
 * sequential loop, in the element type, and compared bit for bit.
 *
 * Broadcast: the root's dest receives the data too (OpenSHMEM 1.5 team broadcast, which
 * NVSHMEM's nvshmem_TYPE_broadcast follows).
 */
#include <math.h>
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

/* ---- barriers ------------------------------------------------------------------------ */

static int barrier_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    const int rounds = pe_check_scaled(100, 5);
    uint64_t *counter = nvshmem_calloc(1, sizeof(uint64_t));
    int *box = nvshmem_calloc(1, sizeof(int));
    nvshmem_barrier_all();
    for (int r = 0; r < rounds; r++) {
        /* Everyone adds to PE 0's counter; after the barrier every add is there, and no
         * PE has started the next round (the second barrier). */
        nvshmem_uint64_atomic_add(counter, 1, 0);
        nvshmem_barrier_all();
        PE_CHECK_EQ_U64(nvshmem_uint64_atomic_fetch(counter, 0), (uint64_t)n * (uint64_t)(r + 1));
        /* barrier_all also completes _nbi puts (it implies nvshmem_quiet). */
        int v = r * 100 + me;
        nvshmem_int_put_nbi(box, &v, 1, next);
        nvshmem_barrier_all();
        PE_CHECK_EQ_I64(*box, r * 100 + prev);
    }
    PE_CHECK_EQ_I64(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);
    nvshmem_free(box);
    nvshmem_free(counter);
    nvshmem_finalize();
    return 0;
}

static void test_barrier_all(void **state)
{
    (void)state;
    run_pes_each(barrier_body, NULL);
}

static int sync_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    const int rounds = pe_check_scaled(100, 5);
    long *mine = nvshmem_calloc(1, sizeof(long));
    nvshmem_sync_all();
    for (int r = 1; r <= rounds; r++) {
        /* Plain local stores, published by the sync to loads through nvshmem_ptr. */
        *mine = (long)r * 1000 + me;
        if (r % 2)
            nvshmem_sync_all();
        else
            PE_CHECK_EQ_I64(nvshmem_team_sync(NVSHMEM_TEAM_WORLD), 0);
        for (int q = 0; q < n; q++) {
            const long *theirs = nvshmem_ptr(mine, q);
            PE_CHECK_EQ_I64(*theirs, (long)r * 1000 + q);
        }
        nvshmem_sync_all(); /* nobody overwrites before everyone has read */
    }
    nvshmem_free(mine);
    nvshmem_finalize();
    return 0;
}

static void test_sync_all(void **state)
{
    (void)state;
    run_pes_each(sync_body, NULL);
}

/* ---- broadcast, fcollect, alltoall --------------------------------------------------- */

#define PATTERN(TYPE, pe, i) ((TYPE)((pe) * 10 + (i) + 1))

#define MOVE_TYPED(TYPE, NAME)                                                                \
    static void move_##NAME(int me, int n)                                                    \
    {                                                                                         \
        enum { N = 7 };                                                                       \
        TYPE *src = nvshmem_malloc(MAX_PES * N * sizeof(TYPE));                               \
        TYPE *dst = nvshmem_malloc((MAX_PES * N + 1) * sizeof(TYPE));                         \
        for (int root = 0; root < n; root++) {                                                \
            for (int i = 0; i < N; i++)                                                       \
                src[i] = PATTERN(TYPE, me, i);                                                \
            for (int i = 0; i < MAX_PES * N + 1; i++)                                         \
                dst[i] = (TYPE)99;                                                            \
            PE_CHECK_EQ_I64(nvshmem_##NAME##_broadcast(NVSHMEM_TEAM_WORLD, dst, src, N, root),\
                            0);                                                               \
            for (int i = 0; i < N; i++)                                                       \
                PE_CHECK_MSG(dst[i] == PATTERN(TYPE, root, i),                                \
                             #NAME "_broadcast root %d: dst[%d] = %g", root, i,               \
                             (double)dst[i]);                                                 \
            PE_CHECK_MSG(dst[N] == (TYPE)99, #NAME "_broadcast wrote past the end");          \
        }                                                                                     \
        /* fcollect: dst = every PE's N elements in PE order */                               \
        PE_CHECK_EQ_I64(nvshmem_##NAME##_fcollect(NVSHMEM_TEAM_WORLD, dst, src, N), 0);       \
        for (int q = 0; q < n; q++)                                                           \
            for (int i = 0; i < N; i++)                                                       \
                PE_CHECK_MSG(dst[q * N + i] == PATTERN(TYPE, q, i),                           \
                             #NAME "_fcollect: dst[%d] = %g", q * N + i,                      \
                             (double)dst[q * N + i]);                                         \
        PE_CHECK_MSG(dst[n * N] == (TYPE)99, #NAME "_fcollect wrote past the end");           \
        /* alltoall: block q of my source goes to PE q, into block me */                      \
        for (int q = 0; q < n; q++)                                                           \
            for (int i = 0; i < N; i++)                                                       \
                src[q * N + i] = PATTERN(TYPE, me * MAX_PES + q, i);                          \
        PE_CHECK_EQ_I64(nvshmem_##NAME##_alltoall(NVSHMEM_TEAM_WORLD, dst, src, N), 0);       \
        for (int p = 0; p < n; p++)                                                           \
            for (int i = 0; i < N; i++)                                                       \
                PE_CHECK_MSG(dst[p * N + i] == PATTERN(TYPE, p * MAX_PES + me, i),            \
                             #NAME "_alltoall: dst[%d] = %g", p * N + i,                      \
                             (double)dst[p * N + i]);                                         \
        PE_CHECK_MSG(dst[n * N] == (TYPE)99, #NAME "_alltoall wrote past the end");           \
        nvshmem_barrier_all();                                                                \
        nvshmem_free(dst);                                                                    \
        nvshmem_free(src);                                                                    \
    }
MOVE_TYPED(int, int)
MOVE_TYPED(long, long)
MOVE_TYPED(double, double)
MOVE_TYPED(float, float)
MOVE_TYPED(unsigned char, uchar)
MOVE_TYPED(int16_t, int16)
MOVE_TYPED(uint64_t, uint64)
#undef MOVE_TYPED

static int move_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    move_int(me, n);
    move_long(me, n);
    move_double(me, n);
    move_float(me, n);
    move_uchar(me, n);
    move_int16(me, n);
    move_uint64(me, n);

    /* The byte forms, with a size that is no multiple of a word. */
    enum { B = 13 };
    unsigned char *src = nvshmem_malloc(MAX_PES * B);
    unsigned char *dst = nvshmem_malloc(MAX_PES * B + 1);
    for (int root = 0; root < n; root++) {
        for (int i = 0; i < MAX_PES * B; i++)
            src[i] = (unsigned char)(me * 31 + i);
        memset(dst, 0xee, MAX_PES * B + 1);
        PE_CHECK_EQ_I64(nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, dst, src, B, root), 0);
        for (int i = 0; i < B; i++)
            PE_CHECK_EQ_U64(dst[i], (unsigned char)(root * 31 + i));
        PE_CHECK_EQ_U64(dst[B], 0xee);
    }
    PE_CHECK_EQ_I64(nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, dst, src, B), 0);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < B; i++)
            PE_CHECK_EQ_U64(dst[q * B + i], (unsigned char)(q * 31 + i));
    PE_CHECK_EQ_I64(nvshmem_alltoallmem(NVSHMEM_TEAM_WORLD, dst, src, B), 0);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < B; i++)
            PE_CHECK_EQ_U64(dst[p * B + i], (unsigned char)(p * 31 + me * B + i));
    PE_CHECK_EQ_U64(dst[n * B], 0xee);
    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    nvshmem_finalize();
    return 0;
}

static void test_broadcast_fcollect_alltoall(void **state)
{
    (void)state;
    run_pes_each(move_body, NULL);
}

/* ---- reductions: every op on every type ---------------------------------------------- */

enum { NR = 6 };

/* Contributions of PE p to element i, per operation. Small, so that no signed type
 * overflows; negative values wrap in unsigned types, identically in the runtime and here. */
#define GEN_SUM(TYPE, p, i) ((TYPE)(((p) * 3 + (i) * 5) % 8 - 3) + (TYPE)((i) % 2 ? 0.25 : 0))
/* at most two 2s and two 3s per element at 8 PEs: products up to 36 fit every type */
#define GEN_PROD(TYPE, p, i) ((TYPE)(((p) + (i)) % 4 == 0 ? 2 : ((p) + (i)) % 4 == 1 ? 3 : 1))
#define GEN_MINMAX(TYPE, p, i) ((TYPE)(((p) * 7 + (i) * 3) % 11 - 5))
#define BITS_OF(TYPE) ((int)(sizeof(TYPE) * 8))
#define GEN_AND(TYPE, p, i) ((TYPE) ~(1ull << (((p) * 5 + (i)) % BITS_OF(TYPE))))
#define GEN_OR(TYPE, p, i) ((TYPE)(1ull << (((p) * 5 + (i)) % BITS_OF(TYPE))))
#define GEN_XOR(TYPE, p, i) ((TYPE)(0x9e3779b97f4a7c15ull * (uint64_t)((p) + 1) + (uint64_t)(i)))

#define COMB_SUM(TYPE, a, b) ((TYPE)((a) + (b)))
#define COMB_PROD(TYPE, a, b) ((TYPE)((a) * (b)))
#define COMB_MIN(TYPE, a, b) ((b) < (a) ? (b) : (a))
#define COMB_MAX(TYPE, a, b) ((b) > (a) ? (b) : (a))
#define COMB_AND(TYPE, a, b) ((TYPE)((a) & (b)))
#define COMB_OR(TYPE, a, b) ((TYPE)((a) | (b)))
#define COMB_XOR(TYPE, a, b) ((TYPE)((a) ^ (b)))

/* Runs one reduction out of place and one in place, and checks both bit for bit. */
#define REDUCE_CASE(TYPE, NAME, OP, GEN, COMB)                                                \
    static void reduce_##NAME##_##OP(void *src_buf, void *dst_buf, int me, int n)             \
    {                                                                                         \
        TYPE *src = src_buf, *dst = dst_buf;                                                  \
        TYPE want[NR];                                                                        \
        for (int i = 0; i < NR; i++) {                                                        \
            src[i] = GEN(TYPE, me, i);                                                        \
            dst[i] = (TYPE)123;                                                               \
            want[i] = GEN(TYPE, 0, i);                                                        \
            for (int q = 1; q < n; q++)                                                       \
                want[i] = COMB(TYPE, want[i], GEN(TYPE, q, i));                               \
        }                                                                                     \
        dst[NR] = (TYPE)77;                                                                   \
        PE_CHECK_EQ_I64(nvshmem_##NAME##_##OP##_reduce(NVSHMEM_TEAM_WORLD, dst, src, NR), 0); \
        for (int i = 0; i < NR; i++)                                                          \
            PE_CHECK_MSG(memcmp(&dst[i], &want[i], sizeof(TYPE)) == 0,                        \
                         #NAME "_" #OP "_reduce: element %d is %g, want %g", i,               \
                         (double)dst[i], (double)want[i]);                                    \
        PE_CHECK_MSG(dst[NR] == (TYPE)77, #NAME "_" #OP "_reduce wrote past the end");        \
        /* in place: dest == source */                                                        \
        for (int i = 0; i < NR; i++)                                                          \
            dst[i] = GEN(TYPE, me, i);                                                        \
        PE_CHECK_EQ_I64(nvshmem_##NAME##_##OP##_reduce(NVSHMEM_TEAM_WORLD, dst, dst, NR), 0); \
        for (int i = 0; i < NR; i++)                                                          \
            PE_CHECK_MSG(memcmp(&dst[i], &want[i], sizeof(TYPE)) == 0,                        \
                         #NAME "_" #OP "_reduce in place: element %d is %g, want %g", i,      \
                         (double)dst[i], (double)want[i]);                                    \
    }

#define ARITH_CASES(TYPE, NAME)                                                               \
    REDUCE_CASE(TYPE, NAME, sum, GEN_SUM, COMB_SUM)                                           \
    REDUCE_CASE(TYPE, NAME, prod, GEN_PROD, COMB_PROD)                                        \
    REDUCE_CASE(TYPE, NAME, min, GEN_MINMAX, COMB_MIN)                                        \
    REDUCE_CASE(TYPE, NAME, max, GEN_MINMAX, COMB_MAX)
SHMEMU_REDUCE_ARITH_TYPES(ARITH_CASES)
#undef ARITH_CASES

#define BITWISE_CASES(TYPE, NAME)                                                             \
    REDUCE_CASE(TYPE, NAME, and, GEN_AND, COMB_AND)                                           \
    REDUCE_CASE(TYPE, NAME, or, GEN_OR, COMB_OR)                                              \
    REDUCE_CASE(TYPE, NAME, xor, GEN_XOR, COMB_XOR)
SHMEMU_REDUCE_BITWISE_TYPES(BITWISE_CASES)
#undef BITWISE_CASES

static int reduce_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    /* One pair of buffers for every case: a PE may reuse its source and dest as soon as
     * the reduction returns, so no barrier separates the cases. */
    void *src = nvshmem_malloc((NR + 1) * 16);
    void *dst = nvshmem_malloc((NR + 1) * 16);
#define CALL(TYPE, NAME)                                                                      \
    reduce_##NAME##_sum(src, dst, me, n);                                                     \
    reduce_##NAME##_prod(src, dst, me, n);                                                    \
    reduce_##NAME##_min(src, dst, me, n);                                                     \
    reduce_##NAME##_max(src, dst, me, n);
    SHMEMU_REDUCE_ARITH_TYPES(CALL)
#undef CALL
#define CALL(TYPE, NAME)                                                                      \
    reduce_##NAME##_and(src, dst, me, n);                                                     \
    reduce_##NAME##_or(src, dst, me, n);                                                      \
    reduce_##NAME##_xor(src, dst, me, n);
    SHMEMU_REDUCE_BITWISE_TYPES(CALL)
#undef CALL
    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    nvshmem_finalize();
    return 0;
}

static void test_every_reduction(void **state)
{
    (void)state;
    run_pes_each(reduce_body, NULL);
}

/* ---- determinism of a float sum ------------------------------------------------------ */

enum { ND = 16 };

/* Values of very different magnitudes and both signs: their float sum depends on the
 * order of the additions. */
static float det_value(int p, int i)
{
    int e = ((p * 7 + i * 3) % 5) * 10 - 20;
    double frac = ((p * 37 + i * 11) % 64) / 64.0 + 1.0 / (1 << 20);
    double s = (p + i) % 2 ? -1.0 : 1.0;
    return (float)(s * ldexp(1.0 + frac, e));
}

static int determinism_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    float *src = nvshmem_malloc(ND * sizeof(float));
    float *dst = nvshmem_malloc(ND * sizeof(float));
    double *dsrc = nvshmem_malloc(ND * sizeof(double));
    double *ddst = nvshmem_malloc(ND * sizeof(double));
    float want[ND], reverse[ND], first[ND];
    double dwant[ND];
    int order_matters = 0;
    for (int i = 0; i < ND; i++) {
        src[i] = det_value(me, i);
        dsrc[i] = (double)det_value(me, i) * (1.0 + 1e-9 * me);
        want[i] = det_value(0, i);
        dwant[i] = (double)det_value(0, i);
        for (int q = 1; q < n; q++) {
            want[i] = want[i] + det_value(q, i);
            dwant[i] = dwant[i] + (double)det_value(q, i) * (1.0 + 1e-9 * q);
        }
        reverse[i] = det_value(n - 1, i);
        for (int q = n - 2; q >= 0; q--)
            reverse[i] = reverse[i] + det_value(q, i);
        order_matters += memcmp(&want[i], &reverse[i], sizeof(float)) != 0;
    }
    /* The test means something: for 3 PEs and more, another order gives other bits. */
    if (n >= 3)
        PE_CHECK_MSG(order_matters > 0, "the values do not depend on the order at %d PEs", n);
    const int reps = pe_check_scaled(20, 4);
    for (int rep = 0; rep < reps; rep++) {
        memset(dst, 0, ND * sizeof(float));
        PE_CHECK_EQ_I64(nvshmem_float_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, ND), 0);
        PE_CHECK_EQ_I64(nvshmem_double_sum_reduce(NVSHMEM_TEAM_WORLD, ddst, dsrc, ND), 0);
        for (int i = 0; i < ND; i++) {
            PE_CHECK_EQ_FLT_BITS(dst[i], want[i]);
            PE_CHECK_EQ_DBL_BITS(ddst[i], dwant[i]);
        }
        if (rep == 0)
            memcpy(first, dst, sizeof first);
        PE_CHECK_MEM(dst, first, sizeof first);
    }
    nvshmem_barrier_all();
    nvshmem_free(ddst);
    nvshmem_free(dsrc);
    nvshmem_free(dst);
    nvshmem_free(src);
    nvshmem_finalize();
    return 0;
}

static void test_float_sum_is_deterministic(void **state)
{
    (void)state;
    run_pes_each(determinism_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_all),
        cmocka_unit_test(test_sync_all),
        cmocka_unit_test(test_broadcast_fcollect_alltoall),
        cmocka_unit_test(test_every_reduction),
        cmocka_unit_test(test_float_sum_is_deterministic),
    };
    return cmocka_run_group_tests_name("coll", tests, NULL, NULL);
}
