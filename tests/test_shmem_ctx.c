/*
 * test_shmem_ctx.c: OpenSHMEM 1.5 communication contexts (shmemu/shmem_ctx.h), at 1, 2, 3
 * and 8 PEs.
 *
 * Behaviour: every RMA group (typed, sized, mem; put, get, p, g, iput, iget, _nbi,
 * put-with-signal) and every AMO group (standard, extended, bitwise, with their _nbi forms)
 * through a created context, each to the next PE with values that differ per PE and per
 * call; team contexts address team PEs; team configurations come back from
 * shmem_team_get_config; the C11 generic forms select the ctx routine when their first
 * argument is a shmem_ctx_t and the plain one otherwise.
 * Semantics (checking mode, SHMEMU_CHECK_NBI=1): a quiet or fence on one context does not
 * complete or order another's operations, so the program that quiets the wrong context
 * reads stale data, while the correct one never does, over many seeds; destroy quiets.
 * Misuse (forked children): a SHMEM_CTX_PRIVATE context used by another thread, a destroyed
 * context, SHMEM_CTX_INVALID, destroying SHMEM_CTX_DEFAULT, a PE outside a team context's
 * team.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shmem.h" /* first: it must compile without nvshmem.h */
#include "shmemu/internal/pgas_emu.h" /* pgas_thread_attach: a second thread of one PE */
#include "shmemu/pgas.h"
#include "support/pe_check.h"

static int right_of(int me, int n) { return (me + 1) % n; }
static int left_of(int me, int n) { return (me + n - 1) % n; }

/* Checking mode with the given seed (0: off). */
static void checking_mode(int seed)
{
    if (seed == 0) {
        unsetenv("SHMEMU_CHECK_NBI");
        unsetenv("SHMEMU_CHECK_SEED");
        return;
    }
    char s[16];
    snprintf(s, sizeof s, "%d", seed);
    setenv("SHMEMU_CHECK_NBI", "1", 1);
    setenv("SHMEMU_CHECK_SEED", s, 1);
}

/* ---- constants ----------------------------------------------------------------------- */

_Static_assert(_Generic(SHMEM_CTX_DEFAULT, shmem_ctx_t: 1, default: 0),
               "SHMEM_CTX_DEFAULT is a shmem_ctx_t");

static void test_constants(void **state)
{
    (void)state;
    /* Sandia OpenSHMEM's values. */
    assert_int_equal(SHMEM_CTX_SERIALIZED, 1);
    assert_int_equal(SHMEM_CTX_PRIVATE, 2);
    assert_int_equal(SHMEM_CTX_NOSTORE, 4);
    assert_true(SHMEM_CTX_INVALID == NULL);
    assert_true(SHMEM_CTX_DEFAULT != SHMEM_CTX_INVALID);
}

/* ---- every RMA group through a context ------------------------------------------------ */

#define N 6

typedef struct rma_buffers {
    int ints[N];
    long longs[N];
    double doubles[N];
    long double ldoubles[N];
    uint8_t b8[N];
    uint16_t b16[N];
    uint32_t b32[N];
    uint64_t b64[N];
    shmemu_bits128 b128[N];
    char mem[N];
    int strided[2 * N];
    int nbi[N];
    short sig_data[N];
    uint64_t sigs[4];
} rma_buffers;

/* Every value PE `me` sends in round r: differs per PE, per element and per round. */
static long value_of(int me, int r, int i) { return 1000L * (me + 1) + 100L * r + i; }

static void rma_round(shmem_ctx_t ctx, rma_buffers *b, int r)
{
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = right_of(me, n), left = left_of(me, n);
    rma_buffers src; /* what this PE sends, laid out as what it receives */
    for (int i = 0; i < N; i++) {
        long v = value_of(me, r, i);
        src.ints[i] = (int)v;
        src.longs[i] = v * 3;
        src.doubles[i] = (double)v + 0.25;
        src.ldoubles[i] = (long double)v + 0.5L;
        src.b8[i] = (uint8_t)v;
        src.b16[i] = (uint16_t)(v * 7);
        src.b32[i] = (uint32_t)(v * 11);
        src.b64[i] = (uint64_t)v << 33;
        src.b128[i] = (shmemu_bits128){{(uint64_t)v, ~(uint64_t)v}};
        src.mem[i] = (char)('a' + (v % 26));
        src.sig_data[i] = (short)(v + 5);
    }
    for (int i = 0; i < 2 * N; i++)
        src.strided[i] = (int)value_of(me, r, i) + 50;
    shmem_ctx_int_put(ctx, b->ints, src.ints, N, right);
    shmem_ctx_long_put_nbi(ctx, b->longs, src.longs, N, right);
    shmem_ctx_double_put(ctx, b->doubles, src.doubles, N, right);
    shmem_ctx_longdouble_put(ctx, b->ldoubles, src.ldoubles, N, right);
    shmem_ctx_put8(ctx, b->b8, src.b8, N, right);
    shmem_ctx_put16_nbi(ctx, b->b16, src.b16, N, right);
    shmem_ctx_put32(ctx, b->b32, src.b32, N, right);
    shmem_ctx_put64_nbi(ctx, b->b64, src.b64, N, right);
    shmem_ctx_put128(ctx, b->b128, src.b128, N, right);
    shmem_ctx_putmem_nbi(ctx, b->mem, src.mem, N, right);
    /* strided: every other source element into every other destination element */
    shmem_ctx_int_iput(ctx, b->strided, src.strided, 2, 2, N, right);
    shmem_ctx_iput32(ctx, b->strided + 1, src.strided + 1, 2, 2, N, right);
    /* p, and put-with-signal (typed, sized, mem; blocking and _nbi) */
    shmem_ctx_int_p(ctx, &b->nbi[0], src.ints[0] + 7, right);
    shmem_ctx_short_put_signal(ctx, b->sig_data, src.sig_data, N, &b->sigs[0], (uint64_t)r + 1,
                               SHMEM_SIGNAL_SET, right);
    shmem_ctx_put64_signal_nbi(ctx, b->b64, src.b64, N, &b->sigs[1], 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_putmem_signal(ctx, b->mem, src.mem, N, &b->sigs[2], 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_int_put_signal_nbi(ctx, b->ints, src.ints, N, &b->sigs[3], 1, SHMEM_SIGNAL_ADD,
                                 right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();

    /* What the left neighbour sent arrived, each through its own call. */
    for (int i = 0; i < N; i++) {
        long v = value_of(left, r, i);
        PE_CHECK_EQ_I64(b->ints[i], (int)v);
        PE_CHECK_EQ_I64(b->longs[i], v * 3);
        PE_CHECK(b->doubles[i] == (double)v + 0.25);
        PE_CHECK(b->ldoubles[i] == (long double)v + 0.5L);
        PE_CHECK_EQ_U64(b->b8[i], (uint8_t)v);
        PE_CHECK_EQ_U64(b->b16[i], (uint16_t)(v * 7));
        PE_CHECK_EQ_U64(b->b32[i], (uint32_t)(v * 11));
        PE_CHECK_EQ_U64(b->b64[i], (uint64_t)v << 33);
        PE_CHECK_EQ_U64(b->b128[i].word[0], (uint64_t)v);
        PE_CHECK_EQ_U64(b->b128[i].word[1], ~(uint64_t)v);
        PE_CHECK_EQ_I64(b->mem[i], (char)('a' + (v % 26)));
        PE_CHECK_EQ_I64(b->sig_data[i], (short)(v + 5));
    }
    for (int i = 0; i < 2 * N; i++)
        PE_CHECK_EQ_I64(b->strided[i], (int)value_of(left, r, i) + 50);
    PE_CHECK_EQ_I64(b->nbi[0], (int)value_of(left, r, 0) + 7);
    PE_CHECK_EQ_U64(b->sigs[0], (uint64_t)r + 1);
    PE_CHECK_EQ_U64(b->sigs[1], 1); /* SHMEM_SIGNAL_ADD to a word reset each round */
    PE_CHECK_EQ_U64(b->sigs[2], 1);
    PE_CHECK_EQ_U64(b->sigs[3], 1);
    shmem_barrier_all();

    /* Gets from the right neighbour of what its left neighbour (this PE) sent it. */
    int gi[N] = {0}, gs[2 * N] = {0}, gn[N] = {0};
    long double gld[N] = {0};
    uint16_t g16[N] = {0};
    uint64_t g64[N] = {0};
    shmemu_bits128 g128[N] = {0};
    char gm[N] = {0};
    shmem_ctx_int_get(ctx, gi, b->ints, N, right);
    shmem_ctx_longdouble_get_nbi(ctx, gld, b->ldoubles, N, right);
    shmem_ctx_get16(ctx, g16, b->b16, N, right);
    shmem_ctx_get64_nbi(ctx, g64, b->b64, N, right);
    shmem_ctx_get128(ctx, g128, b->b128, N, right);
    shmem_ctx_getmem_nbi(ctx, gm, b->mem, N, right);
    shmem_ctx_int_iget(ctx, gs, b->strided, 2, 2, N, right);
    shmem_ctx_iget32(ctx, gs + 1, b->strided + 1, 2, 2, N, right);
    shmem_ctx_int_get_nbi(ctx, gn, b->ints, N, right);
    shmem_ctx_quiet(ctx); /* completes the _nbi gets */
    for (int i = 0; i < N; i++) {
        long v = value_of(me, r, i);
        PE_CHECK_EQ_I64(gi[i], (int)v);
        PE_CHECK_EQ_I64(gn[i], (int)v);
        PE_CHECK(gld[i] == (long double)v + 0.5L);
        PE_CHECK_EQ_U64(g16[i], (uint16_t)(v * 7));
        PE_CHECK_EQ_U64(g64[i], (uint64_t)v << 33);
        PE_CHECK_EQ_U64(g128[i].word[1], ~(uint64_t)v);
        PE_CHECK_EQ_I64(gm[i], (char)('a' + (v % 26)));
    }
    for (int i = 0; i < 2 * N; i++)
        PE_CHECK_EQ_I64(gs[i], (int)value_of(me, r, i) + 50);
    PE_CHECK_EQ_I64(shmem_ctx_int_g(ctx, &b->nbi[0], right), (int)value_of(me, r, 0) + 7);
    PE_CHECK(shmem_ctx_double_g(ctx, &b->doubles[1], right) == (double)value_of(me, r, 1) + 0.25);
    shmem_barrier_all();
    memset(b->sigs, 0, sizeof b->sigs);
    shmem_barrier_all();
}

static int body_rma(void *arg)
{
    (void)arg;
    shmem_init();
    rma_buffers *b = shmem_calloc(1, sizeof *b);
    const long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    int r = 0;
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        PE_CHECK_EQ_I64(shmem_ctx_create(options[k], &ctx), 0);
        PE_CHECK(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT);
        rma_round(ctx, b, r++);
        shmem_ctx_destroy(ctx);
    }
    rma_round(SHMEM_CTX_DEFAULT, b, r++); /* the default context through the ctx forms */
    shmem_free(b);
    shmem_finalize();
    return 0;
}

static void test_rma(void **state)
{
    (void)state;
    run_pes_each(body_rma, NULL);
}

static void test_rma_checked(void **state)
{
    (void)state;
    checking_mode(11);
    run_pes_each(body_rma, NULL);
    checking_mode(0);
}

/* ---- every AMO group through a context ----------------------------------------------- */

typedef struct amo_buffers {
    int inc;
    long add;
    long long fadd;
    unsigned int uor;
    unsigned long ulxor;
    uint64_t u64and;
    int32_t i32or;
    long cswap;
    double dset;
    float fswap;
    size_t snbi;
    unsigned long long ullnbi;
} amo_buffers;

static int body_amo(void *arg)
{
    (void)arg;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    amo_buffers *a = shmem_calloc(1, sizeof *a);
    a->u64and = ~(uint64_t)0;
    shmem_barrier_all();
    shmem_ctx_t ctx;
    PE_CHECK_EQ_I64(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    /* Everyone hits PE 0's words. */
    shmem_ctx_int_atomic_inc(ctx, &a->inc, 0);
    shmem_ctx_long_atomic_add(ctx, &a->add, me + 1, 0);
    long long before = shmem_ctx_longlong_atomic_fetch_add(ctx, &a->fadd, 10, 0);
    PE_CHECK(before >= 0 && before <= 10LL * (n - 1) && before % 10 == 0);
    shmem_ctx_uint_atomic_or(ctx, &a->uor, 1u << me, 0);
    shmem_ctx_ulong_atomic_xor(ctx, &a->ulxor, 1ul << (me + 3), 0);
    uint64_t was = shmem_ctx_uint64_atomic_fetch_and(ctx, &a->u64and, ~((uint64_t)1 << me), 0);
    PE_CHECK((was >> me & 1) == 1);
    int32_t or_was;
    shmem_ctx_int32_atomic_fetch_or_nbi(ctx, &or_was, &a->i32or, 1 << me, 0);
    PE_CHECK((or_was >> me & 1) == 0);
    /* One PE at a time wins each compare-and-swap step: me succeeds from value me. */
    while (shmem_ctx_long_atomic_compare_swap(ctx, &a->cswap, me, me + 1, 0) != me)
        ;
    size_t fi;
    shmem_ctx_size_atomic_fetch_inc_nbi(ctx, &fi, &a->snbi, 0);
    PE_CHECK(fi < (size_t)n);
    unsigned long long fa;
    shmem_ctx_ulonglong_atomic_fetch_add_nbi(ctx, &fa, &a->ullnbi, 2, 0);
    PE_CHECK(fa % 2 == 0 && fa < 2ull * n);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0) {
        PE_CHECK_EQ_I64(a->inc, n);
        PE_CHECK_EQ_I64(a->add, (long)n * (n + 1) / 2);
        PE_CHECK_EQ_I64(a->fadd, 10LL * n);
        PE_CHECK_EQ_U64(a->uor, (1u << n) - 1);
        PE_CHECK_EQ_U64(a->ulxor, ((1ul << n) - 1) << 3);
        PE_CHECK_EQ_U64(a->u64and, ~(uint64_t)0 << n);
        PE_CHECK_EQ_U64((uint32_t)a->i32or, (1u << n) - 1);
        PE_CHECK_EQ_I64(a->cswap, n);
        PE_CHECK_EQ_U64(a->snbi, (uint64_t)n);
        PE_CHECK_EQ_U64(a->ullnbi, 2ull * n);
    }
    shmem_barrier_all();
    /* Extended (fetch, set, swap; float, double) and the rest of the bitwise and _nbi forms,
     * each PE on its right neighbour's words. */
    const int right = right_of(me, n);
    shmem_ctx_double_atomic_set(ctx, &a->dset, me + 0.5, right);
    float old_f = shmem_ctx_float_atomic_swap(ctx, &a->fswap, (float)me + 0.25f, right);
    PE_CHECK(old_f == 0.0f);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    const int left = left_of(me, n);
    PE_CHECK(shmem_ctx_double_atomic_fetch(ctx, &a->dset, me) == left + 0.5);
    double fetched_d;
    shmem_ctx_double_atomic_fetch_nbi(ctx, &fetched_d, &a->dset, right);
    PE_CHECK(fetched_d == me + 0.5);
    float swapped;
    shmem_ctx_float_atomic_swap_nbi(ctx, &swapped, &a->fswap, -1.0f, me);
    PE_CHECK(swapped == (float)left + 0.25f);
    int cs_old;
    shmem_ctx_int_atomic_compare_swap_nbi(ctx, &cs_old, &a->inc, n, -5, me);
    PE_CHECK_EQ_I64(cs_old, me == 0 ? n : 0);
    PE_CHECK_EQ_I64(shmem_ctx_int_atomic_fetch_inc(ctx, &a->inc, me), me == 0 ? -5 : 0);
    PE_CHECK_EQ_I64(shmem_ctx_int_atomic_swap(ctx, &a->inc, 40, me), me == 0 ? -4 : 1);
    PE_CHECK_EQ_I64(shmem_ctx_int_atomic_fetch(ctx, &a->inc, me), 40);
    PE_CHECK_EQ_I64(shmem_ctx_long_atomic_fetch_add(ctx, &a->add, 1, me),
                    me == 0 ? (long)n * (n + 1) / 2 : 0);
    unsigned int u_old;
    shmem_ctx_uint_atomic_fetch_xor_nbi(ctx, &u_old, &a->uor, 0xf0u, me);
    PE_CHECK_EQ_U64(shmem_ctx_uint_atomic_fetch_and(ctx, &a->uor, 0xffu, me),
                    u_old ^ 0xf0u);
    shmem_ctx_uint_atomic_and(ctx, &a->uor, 0x3u, me);
    PE_CHECK_EQ_U64(shmem_ctx_uint_atomic_fetch_or(ctx, &a->uor, 0x100u, me),
                    (u_old ^ 0xf0u) & 0x3u);
    shmem_ctx_uint64_atomic_xor(ctx, &a->u64and, 1, me);
    uint64_t x_old;
    shmem_ctx_uint64_atomic_fetch_and_nbi(ctx, &x_old, &a->u64and, 0, me);
    PE_CHECK_EQ_U64(shmem_ctx_uint64_atomic_fetch_xor(ctx, &a->u64and, 6, me), 0);
    PE_CHECK_EQ_U64(shmem_ctx_uint64_atomic_fetch(ctx, &a->u64and, me), 6);
    shmem_ctx_int64_atomic_set(ctx, (int64_t *)&a->fadd, -3, me);
    PE_CHECK_EQ_I64(shmem_ctx_int64_atomic_fetch(ctx, (int64_t *)&a->fadd, me), -3);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(a);
    shmem_finalize();
    return 0;
}

static void test_amo(void **state)
{
    (void)state;
    run_pes_each(body_amo, NULL);
}

/* ---- team contexts and configurations ------------------------------------------------ */

static int body_team_ctx(void *arg)
{
    (void)arg;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    int *x = shmem_calloc(2, sizeof(int));
    /* The odd PEs counted from the end, as a team with a negative-free stride of 2 starting at
     * 1 (or PE 0 alone at 1 PE). */
    const int start = n > 1 ? 1 : 0, stride = 2, size = n > 1 ? n / 2 : 1;
    shmem_team_config_t config = {.num_contexts = 3};
    shmem_team_t team;
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &config,
                                             SHMEM_TEAM_NUM_CONTEXTS, &team),
                    0);
    shmem_ctx_t ctx;
    if (team == SHMEM_TEAM_INVALID) {
        PE_CHECK(shmem_team_create_ctx(team, 0, &ctx) != 0);
        PE_CHECK(ctx == SHMEM_CTX_INVALID);
    } else {
        shmem_team_config_t got = {.num_contexts = -1};
        PE_CHECK_EQ_I64(shmem_team_get_config(team, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
        PE_CHECK_EQ_I64(got.num_contexts, 3);
        const int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
        shmem_ctx_t ctxs[3];
        for (int i = 0; i < 3; i++)
            PE_CHECK_EQ_I64(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &ctxs[i]), 0);
        ctx = ctxs[1];
        shmem_team_t back = SHMEM_TEAM_INVALID;
        PE_CHECK_EQ_I64(shmem_ctx_get_team(ctx, &back), 0);
        PE_CHECK(back == team);
        /* Team PE tme+1 is world PE start + ((tme+1) % tn) * stride. */
        const int tright = (tme + 1) % tn;
        shmem_ctx_int_p(ctx, &x[0], 100 + me, tright);
        shmem_ctx_int_atomic_add(ctx, &x[1], 1000 + me, tright);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(team);
        const int tleft = (tme + tn - 1) % tn;
        const int world_left = start + tleft * stride;
        PE_CHECK_EQ_I64(x[0], 100 + world_left);
        PE_CHECK_EQ_I64(x[1], 1000 + world_left);
        PE_CHECK_EQ_I64(shmem_ctx_int_g(ctx, &x[0], tright), 100 + me);
        for (int i = 0; i < 3; i++)
            shmem_ctx_destroy(ctxs[i]);
        shmem_team_sync(team);
    }
    shmem_barrier_all();
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team);

    /* The default context's team is the world; a world context's too. */
    shmem_team_t t = SHMEM_TEAM_INVALID;
    PE_CHECK_EQ_I64(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0);
    PE_CHECK(t == SHMEM_TEAM_WORLD);
    PE_CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0);
    PE_CHECK(t == SHMEM_TEAM_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* does nothing */
    shmem_ctx_t wctx;
    PE_CHECK_EQ_I64(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &wctx), 0);
    PE_CHECK_EQ_I64(shmem_ctx_get_team(wctx, &t), 0);
    PE_CHECK(t == SHMEM_TEAM_WORLD);
    shmem_ctx_destroy(wctx);
    /* An unknown option bit is a failed create, not an abort. */
    PE_CHECK(shmem_ctx_create(1L << 10, &wctx) != 0);
    PE_CHECK(wctx == SHMEM_CTX_INVALID);
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    return 0;
}

/* body at each PE count, whose complaints (error values, not aborts) must name needle. */
static void run_each_complaining(int (*body)(void *), const char *needle)
{
    char err[4096];
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes_capture(pe_counts[i], body, NULL, err, sizeof err);
        assert_contains(err, needle);
    }
}

static void test_team_ctx(void **state)
{
    (void)state;
    run_each_complaining(body_team_ctx, "shmem_ctx_create: unknown option bits 0x400");
}

static int body_config(void *arg)
{
    (void)arg;
    shmem_init();
    const int n = shmem_n_pes();
    shmem_team_config_t got = {.num_contexts = -1};
    PE_CHECK_EQ_I64(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    PE_CHECK_EQ_I64(got.num_contexts, 0);

    shmem_team_config_t five = {.num_contexts = 5};
    shmem_team_t with, without;
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &five,
                                             SHMEM_TEAM_NUM_CONTEXTS, &with),
                    0);
    PE_CHECK_EQ_I64(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &five, 0, &without), 0);
    PE_CHECK_EQ_I64(shmem_team_get_config(with, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    PE_CHECK_EQ_I64(got.num_contexts, 5);
    PE_CHECK_EQ_I64(shmem_team_get_config(without, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    PE_CHECK_EQ_I64(got.num_contexts, 0); /* the mask did not name it */
    got.num_contexts = 77;
    PE_CHECK_EQ_I64(shmem_team_get_config(with, 0, &got), 0);
    PE_CHECK_EQ_I64(got.num_contexts, 77); /* an empty mask fills nothing */
    shmem_team_destroy(with);
    shmem_team_destroy(without);

    shmem_team_config_t xc = {.num_contexts = 2}, yc = {.num_contexts = 7};
    shmem_team_t x, y;
    PE_CHECK_EQ_I64(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &xc, SHMEM_TEAM_NUM_CONTEXTS, &x,
                                        &yc, SHMEM_TEAM_NUM_CONTEXTS, &y),
                    0);
    PE_CHECK_EQ_I64(shmem_team_get_config(x, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    PE_CHECK_EQ_I64(got.num_contexts, 2);
    PE_CHECK_EQ_I64(shmem_team_get_config(y, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
    PE_CHECK_EQ_I64(got.num_contexts, 7);
    shmem_team_destroy(x);
    shmem_team_destroy(y);

    /* A negative num_contexts is an error value on every PE. */
    shmem_team_config_t bad = {.num_contexts = -2};
    shmem_team_t none;
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, &bad, SHMEM_TEAM_NUM_CONTEXTS,
                                      &none) != 0);
    PE_CHECK(none == SHMEM_TEAM_INVALID);
    shmem_finalize();
    return 0;
}

static void test_config(void **state)
{
    (void)state;
    run_each_complaining(body_config, "shmem_team_split_strided: config->num_contexts is -2");
}

/* ---- checking mode: a context's quiet and fence are its own -------------------------- */

/* What the scenario does: data on ctx B, a flag on ctx A, then a quiet (or fence) of `right`
 * (the correct context) or of the other one. Each PE then reads its right neighbour's words
 * through the default context, whose gets deliver nothing of A's or B's queues, and counts a
 * stale read. */
typedef struct order_case {
    bool fence;          /* test ctx_fence (an AMO on A then delivers what the fence ordered) */
    bool correct;        /* quiet / fence the context that carries the data */
    _Atomic int stale;   /* reads that saw the flag but not the data */
    _Atomic int flagged; /* reads that saw the flag */
} order_case;

static int body_order(void *arg)
{
    order_case *c = arg;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = right_of(me, n);
    int *data = shmem_calloc(4, sizeof(int));
    int *flag = shmem_calloc(2, sizeof(int));
    shmem_ctx_t a, b;
    PE_CHECK_EQ_I64(shmem_ctx_create(SHMEM_CTX_PRIVATE, &a), 0);
    PE_CHECK_EQ_I64(shmem_ctx_create(SHMEM_CTX_PRIVATE, &b), 0);
    const int payload[4] = {me + 1, me + 2, me + 3, me + 4};
    if (!c->fence) {
        shmem_ctx_int_put(b, data, payload, 4, right); /* data on B */
        shmem_ctx_int_p(a, flag, 1, right);            /* flag on A */
        shmem_ctx_quiet(a);
        if (c->correct)
            shmem_ctx_quiet(b);
    } else {
        shmem_ctx_int_put(a, data, payload, 4, right);
        shmem_ctx_fence(c->correct ? a : b);
        shmem_ctx_int_p(a, flag, 1, right);
        /* An AMO on A delivers what A's fences put before it (not a fetch, which would
         * deliver everything to its PE). */
        shmem_ctx_int_atomic_add(a, &flag[1], 1, right);
    }
    /* Read through the default context: nothing of A's or B's queues is delivered here. */
    int seen_flag = shmem_int_g(flag, right);
    int seen[4];
    shmem_int_get(seen, data, 4, right);
    if (seen_flag == 1 || c->fence) {
        atomic_fetch_add(&c->flagged, 1);
        if (seen[0] != me + 1 || seen[3] != me + 4)
            atomic_fetch_add(&c->stale, 1);
    }
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b); /* quiets B: the late data is delivered now */
    shmem_barrier_all();
    const int left = left_of(me, n);
    PE_CHECK_EQ_I64(data[0], left + 1);
    PE_CHECK_EQ_I64(data[3], left + 4);
    PE_CHECK_EQ_I64(flag[0], 1);
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(data);
    shmem_finalize();
    return 0;
}

/* Runs body_order under checking mode for seeds 1..seeds at each PE count; returns how many
 * reads were stale. */
static int order_stale(bool fence, bool correct, int seeds, int *flagged)
{
    int stale = 0;
    *flagged = 0;
    for (int seed = 1; seed <= seeds; seed++) {
        checking_mode(seed);
        for (int i = 0; i < PE_COUNTS_N; i++) {
            order_case c = {.fence = fence, .correct = correct};
            run_pes(pe_counts[i], body_order, &c);
            stale += atomic_load(&c.stale);
            *flagged += atomic_load(&c.flagged);
        }
    }
    checking_mode(0);
    return stale;
}

static void test_quiet_is_per_context(void **state)
{
    (void)state;
    const int seeds = pe_check_scaled(8, 4);
    int flagged;
    /* The program that quiets only the flag's context sees the flag before the data. */
    int stale = order_stale(false, false, seeds, &flagged);
    printf("quiet(A) only: %d of %d flagged reads stale\n", stale, flagged);
    assert_true(flagged > 0);
    assert_true(stale > 0);
    /* The one that quiets both never does. */
    stale = order_stale(false, true, seeds, &flagged);
    assert_true(flagged > 0);
    assert_int_equal(stale, 0);
}

static void test_fence_is_per_context(void **state)
{
    (void)state;
    const int seeds = pe_check_scaled(8, 4);
    int flagged;
    int stale = order_stale(true, false, seeds, &flagged);
    printf("fence(B) for puts on A: %d of %d reads stale\n", stale, flagged);
    assert_true(stale > 0);
    stale = order_stale(true, true, seeds, &flagged);
    assert_int_equal(stale, 0);
}

/* shmem_ctx_destroy quiets: an _nbi put on a context is delivered by its destroy. */
static int body_destroy_quiets(void *arg)
{
    (void)arg;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = right_of(me, n);
    long *x = shmem_calloc(8, sizeof(long));
    long src[8];
    for (int i = 0; i < 8; i++)
        src[i] = 10L * me + i + 1;
    shmem_ctx_t ctx;
    PE_CHECK_EQ_I64(shmem_ctx_create(0, &ctx), 0);
    shmem_ctx_long_put_nbi(ctx, x, src, 8, right);
    shmem_ctx_destroy(ctx);
    long got[8];
    shmem_long_get(got, x, 8, right); /* the default context: delivers nothing of ctx's */
    PE_CHECK_MEM(got, src, sizeof got);
    shmem_barrier_all();
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static void test_destroy_quiets(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 4; seed++) {
        checking_mode(seed);
        run_pes_each(body_destroy_quiets, NULL);
    }
    checking_mode(0);
}

/* ---- C11 generic forms with and without a context ------------------------------------- */

static int body_generic(void *arg)
{
    (void)arg;
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    const int right = right_of(me, n), left = left_of(me, n);
    long *l = shmem_calloc(8, sizeof(long));
    double *d = shmem_calloc(4, sizeof(double));
    unsigned int *u = shmem_calloc(4, sizeof(unsigned int));
    uint64_t *sig = shmem_calloc(2, sizeof(uint64_t));
    shmem_ctx_t ctx;
    PE_CHECK_EQ_I64(shmem_ctx_create(0, &ctx), 0);
    const long src[2] = {me + 100L, me + 200L};
    shmem_put(ctx, l, src, 2, right);     /* ctx form */
    shmem_put(l + 2, src, 2, right);      /* plain form */
    shmem_p(ctx, l + 4, me + 300L, right);
    shmem_p(l + 5, me + 400L, right);
    shmem_put_nbi(ctx, d, (const double[]){me + 0.5}, 1, right);
    shmem_put_nbi(d + 1, (const double[]){me + 1.5}, 1, right);
    shmem_iput(ctx, l + 6, src, 1, 1, 1, right);
    shmem_put_signal(ctx, l + 7, src + 1, 1, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(d + 2, (const double[]){me + 2.5}, 1, sig + 1, 1, SHMEM_SIGNAL_ADD,
                         right);
    shmem_atomic_add(ctx, u, 1u, 0);
    shmem_atomic_add(u + 1, 2u, 0);
    shmem_atomic_inc(ctx, u + 2, 0);
    shmem_atomic_or(ctx, u + 3, 1u << me, 0);
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    PE_CHECK_EQ_I64(l[0], left + 100L);
    PE_CHECK_EQ_I64(l[1], left + 200L);
    PE_CHECK_EQ_I64(l[2], left + 100L);
    PE_CHECK_EQ_I64(l[4], left + 300L);
    PE_CHECK_EQ_I64(l[5], left + 400L);
    PE_CHECK_EQ_I64(l[6], left + 100L);
    PE_CHECK_EQ_I64(l[7], left + 200L);
    PE_CHECK(d[0] == left + 0.5 && d[1] == left + 1.5 && d[2] == left + 2.5);
    PE_CHECK_EQ_U64(sig[0], 1);
    PE_CHECK_EQ_U64(sig[1], 1);
    if (me == 0) {
        PE_CHECK_EQ_U64(u[0], (unsigned)n);
        PE_CHECK_EQ_U64(u[1], 2u * n);
        PE_CHECK_EQ_U64(u[2], (unsigned)n);
        PE_CHECK_EQ_U64(u[3], (1u << n) - 1);
    }
    shmem_barrier_all();
    /* Fetching forms, and gets. */
    PE_CHECK_EQ_I64(shmem_g(ctx, l, right), me + 100L);
    PE_CHECK_EQ_I64(shmem_g(l + 1, right), me + 200L);
    long got[2] = {0, 0};
    shmem_get(ctx, got, l, 2, right);
    PE_CHECK_EQ_I64(got[1], me + 200L);
    shmem_get_nbi(got, l + 4, 1, right);
    shmem_quiet();
    PE_CHECK_EQ_I64(got[0], me + 300L);
    shmem_iget(ctx, got, l + 4, 1, 1, 2, right);
    PE_CHECK_EQ_I64(got[1], me + 400L);
    shmem_get_nbi(ctx, got, l + 6, 1, right);
    shmem_ctx_quiet(ctx);
    PE_CHECK_EQ_I64(got[0], me + 100L);
    PE_CHECK(shmem_atomic_fetch(ctx, d, right) == me + 0.5);
    PE_CHECK(shmem_atomic_fetch(d + 1, right) == me + 1.5);
    shmem_barrier_all();
    unsigned int old = shmem_atomic_fetch_add(ctx, u, 0u, 0);
    PE_CHECK_EQ_U64(old, (unsigned)n);
    unsigned int f;
    shmem_atomic_fetch_inc_nbi(ctx, &f, u + 2, 0);
    PE_CHECK(f >= (unsigned)n && f < 2u * n);
    shmem_atomic_fetch_and_nbi(&f, u + 3, ~0u, 0);
    PE_CHECK_EQ_U64(f, (1u << n) - 1);
    PE_CHECK_EQ_U64(shmem_atomic_fetch_xor(ctx, u + 3, 0u, 0), (1u << n) - 1);
    long swapped = shmem_atomic_swap(ctx, l + 4, 5L, me);
    PE_CHECK_EQ_I64(swapped, left + 300L);
    PE_CHECK_EQ_I64(shmem_atomic_compare_swap(ctx, l + 4, 5L, 6L, me), 5L);
    shmem_atomic_set(ctx, l + 4, 9L, me);
    PE_CHECK_EQ_I64(shmem_atomic_fetch(l + 4, me), 9L);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(u);
    shmem_free(d);
    shmem_free(l);
    shmem_finalize();
    return 0;
}

static void test_generic(void **state)
{
    (void)state;
    run_pes_each(body_generic, NULL);
}

/* The generic forms as a user compiles them (-std=c17 -Wall -Wextra -Werror -pedantic): both
 * forms compile, and a type outside the family fails, with or without ctx. Needs a C
 * compiler (CC, else cc) and the sources (the suite runs from the repository root). */
static int compile_snippet(const char *body)
{
    char path[] = "/tmp/shmemu-ctx-generic-XXXXXX.c";
    int fd = mkstemps(path, 2);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    fprintf(f, "#include <shmem.h>\nvoid f(shmem_ctx_t ctx, long *l, float *fl, int *i);\n"
               "void f(shmem_ctx_t ctx, long *l, float *fl, int *i)\n{\n"
               "    (void)ctx; (void)l; (void)fl; (void)i;\n    %s\n}\n",
            body);
    fclose(f);
    const char *cc = getenv("CC") != NULL ? getenv("CC") : "cc";
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s -std=c17 -Wall -Wextra -Werror -pedantic -fsyntax-only -Ipgas/include %s "
             "2>/dev/null",
             cc, path);
    int rc = system(cmd);
    unlink(path);
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_generic_compile(void **state)
{
    (void)state;
    if (access("pgas/include/shmem.h", R_OK) != 0) {
        printf("skipped: not run from the repository root\n");
        return;
    }
    const char *good = "shmem_put(ctx, l, l, 1, 0); shmem_put(l, l, 1, 0); "
                       "shmem_p(ctx, i, 1, 0); shmem_p(i, 1, 0); "
                       "(void)shmem_g(ctx, fl, 0); (void)shmem_g(fl, 0); "
                       "shmem_atomic_inc(ctx, i, 0); shmem_atomic_inc(i, 0); "
                       "(void)shmem_atomic_fetch(ctx, fl, 0); "
                       "shmem_atomic_set(fl, 1.0f, 0);";
    if (compile_snippet("") != 0) {
        printf("skipped: no C compiler to run\n");
        return;
    }
    assert_int_equal(compile_snippet(good), 0);
    /* float is no standard AMO type; int * takes no float routine; a struct is no RMA type */
    assert_int_not_equal(compile_snippet("shmem_atomic_add(ctx, fl, 1.0f, 0);"), 0);
    assert_int_not_equal(compile_snippet("shmem_atomic_add(fl, 1.0f, 0);"), 0);
    assert_int_not_equal(compile_snippet("struct s { int x; } v; shmem_put(ctx, &v, &v, 1, 0);"),
                         0);
    assert_int_not_equal(compile_snippet("struct s { int x; } v; shmem_put(&v, &v, 1, 0);"), 0);
    /* a ctx where none belongs: the routine without ctx takes no extra argument */
    assert_int_not_equal(compile_snippet("shmem_atomic_inc(ctx, i, 0, 0);"), 0);
}

/* ---- misuse ---------------------------------------------------------------------------- */

typedef struct other_thread {
    pgas_thread *parent;
    int pe;
    shmem_ctx_t ctx;
    int *x;
} other_thread;

/* A second thread of the same PE (attached as the emulator's threads are). */
static void *use_from_other_thread(void *arg)
{
    other_thread *o = arg;
    if (pgas_thread_attach(o->parent, o->pe, "worker") != 0)
        return NULL;
    shmem_ctx_int_p(o->ctx, o->x, 1, o->pe);
    pgas_thread_detach();
    return NULL;
}

static void private_from_other_thread(void *arg)
{
    (void)arg;
    shmem_init();
    other_thread o = {.parent = pgas_thread_self(), .pe = shmem_my_pe()};
    o.x = shmem_calloc(1, sizeof(int));
    if (shmem_my_pe() == shmem_n_pes() - 1) {
        PE_CHECK_EQ_I64(shmem_ctx_create(SHMEM_CTX_PRIVATE, &o.ctx), 0);
        shmem_ctx_int_p(o.ctx, o.x, 1, o.pe); /* the creator may */
        pthread_t th;
        if (pthread_create(&th, NULL, use_from_other_thread, &o) == 0)
            pthread_join(th, NULL);
    }
    shmem_barrier_all();
}

/* The same program without SHMEM_CTX_PRIVATE is correct. One PE creates the thread: glibc
 * recycles thread stacks through a cache whose lock helgrind does not see, so threads that
 * several PEs create at once would give it false reports about the recycled stacks. */
static int shared_from_other_thread(void *arg)
{
    (void)arg;
    shmem_init();
    other_thread o = {.parent = pgas_thread_self(), .pe = shmem_my_pe()};
    o.x = shmem_calloc(1, sizeof(int));
    if (shmem_my_pe() == shmem_n_pes() - 1) {
        PE_CHECK_EQ_I64(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &o.ctx), 0);
        pthread_t th;
        PE_CHECK_EQ_I64(pthread_create(&th, NULL, use_from_other_thread, &o), 0);
        pthread_join(th, NULL);
        shmem_ctx_quiet(o.ctx);
        PE_CHECK_EQ_I64(*o.x, 1);
        shmem_ctx_destroy(o.ctx);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

static void use_after_destroy(void *arg)
{
    (void)arg;
    shmem_init();
    long *x = shmem_calloc(1, sizeof(long));
    shmem_ctx_t ctx;
    shmem_ctx_create(0, &ctx);
    shmem_ctx_destroy(ctx);
    if (shmem_my_pe() == shmem_n_pes() - 1)
        shmem_ctx_long_atomic_inc(ctx, x, 0);
    shmem_barrier_all();
}

static void destroy_twice(void *arg)
{
    (void)arg;
    shmem_init();
    shmem_ctx_t ctx;
    shmem_ctx_create(0, &ctx);
    shmem_ctx_destroy(ctx);
    shmem_ctx_destroy(ctx);
}

static void use_invalid(void *arg)
{
    (void)arg;
    shmem_init();
    int *x = shmem_calloc(1, sizeof(int));
    shmem_ctx_t ctx;
    if (shmem_ctx_create(1L << 20, &ctx) != 0) /* fails: ctx is SHMEM_CTX_INVALID */
        shmem_ctx_putmem(ctx, x, x, sizeof(int), 0);
    shmem_barrier_all();
}

static void quiet_invalid(void *arg)
{
    (void)arg;
    shmem_init();
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
}

static void destroy_default(void *arg)
{
    (void)arg;
    shmem_init();
    shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
}

/* PE 0's context handed to PE 1 (the PEs of this suite share its globals). */
static shmem_ctx_t shared_handle;

static void other_pes_ctx(void *arg)
{
    (void)arg;
    shmem_init();
    int *x = shmem_calloc(1, sizeof(int));
    if (shmem_my_pe() == 0)
        shmem_ctx_create(0, &shared_handle);
    shmem_barrier_all();
    if (shmem_my_pe() == 1)
        shmem_ctx_int_atomic_inc(shared_handle, x, 0);
    shmem_barrier_all();
}

/* A team context takes team PE numbers: world PE n-1 is no PE of a team of one PE. */
static void pe_outside_team(void *arg)
{
    (void)arg;
    shmem_init();
    const int n = shmem_n_pes();
    int *x = shmem_calloc(1, sizeof(int));
    shmem_team_t team;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &team);
    if (team != SHMEM_TEAM_INVALID && shmem_my_pe() == 1) {
        shmem_ctx_t ctx;
        shmem_team_create_ctx(team, 0, &ctx);
        shmem_ctx_int_p(ctx, x, 1, n - 1); /* team PE n-1 of a team of 2 */
    }
    shmem_barrier_all();
}

static void test_misuse(void **state)
{
    (void)state;
    expect_child_failure(private_from_other_thread, NULL, 1,
                         "shmemu: PE 0: shmem_ctx_int_p: ctx 0x");
    expect_child_failure(private_from_other_thread, NULL, 3,
                         "was created with SHMEM_CTX_PRIVATE by thread \"host\" of PE 2, and "
                         "another thread, \"worker\" of PE 2, uses it");
    expect_child_failure(private_from_other_thread, NULL, 2,
                         "uses it; a private context belongs to the thread that created it");
    expect_child_failure(use_after_destroy, NULL, 2,
                         "shmemu: PE 1: shmem_ctx_long_atomic_inc: ctx 0x");
    expect_child_failure(use_after_destroy, NULL, 3, "was destroyed by shmem_ctx_destroy");
    expect_child_failure(destroy_twice, NULL, 1,
                         "shmem_ctx_destroy: ctx 0x");
    expect_child_failure(destroy_twice, NULL, 1, "was destroyed by shmem_ctx_destroy");
    expect_child_failure(use_invalid, NULL, 2,
                         "shmem_ctx_putmem: ctx is SHMEM_CTX_INVALID, which names no context");
    expect_child_failure(quiet_invalid, NULL, 1, "shmem_ctx_quiet: ctx is SHMEM_CTX_INVALID");
    expect_child_failure(other_pes_ctx, NULL, 2,
                         "shmemu: PE 1: shmem_ctx_int_atomic_inc: ctx 0x");
    expect_child_failure(other_pes_ctx, NULL, 3, "belongs to PE 0, not to this PE 1");
    expect_child_failure(destroy_default, NULL, 1,
                         "shmem_ctx_destroy: SHMEM_CTX_DEFAULT cannot be destroyed");
    expect_child_failure(pe_outside_team, NULL, 3,
                         "shmemu: PE 1: shmem_ctx_int_p: PE 2 is not in ctx's team of 2 PEs");
    expect_child_failure(pe_outside_team, NULL, 8, "PE 7 is not in ctx's team of 2 PEs");
}

static void test_shared_ctx_other_thread(void **state)
{
    (void)state;
    run_pes_each(shared_from_other_thread, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),
        cmocka_unit_test(test_rma),
        cmocka_unit_test(test_rma_checked),
        cmocka_unit_test(test_amo),
        cmocka_unit_test(test_team_ctx),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_quiet_is_per_context),
        cmocka_unit_test(test_fence_is_per_context),
        cmocka_unit_test(test_destroy_quiets),
        cmocka_unit_test(test_generic),
        cmocka_unit_test(test_generic_compile),
        cmocka_unit_test(test_shared_ctx_other_thread),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
