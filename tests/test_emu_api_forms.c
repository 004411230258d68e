/*
 * test_emu_api_forms.c: the NVSHMEM 3.x forms beside the core ones (emu/src/on_stream_forms.c,
 * emu/src/group_forms.c), on a ring of PEs:
 *
 *   - on a stream: typed put_nbi/get_nbi, put_signal(_nbi), iput/iget, g (which waits for
 *     the stream), the sized put/get/iput/iget/put_signal forms, the typed wait_until,
 *     wait_until_all (with a status mask) and wait_until_all_vector, and team_sync; each in
 *     stream order (a kernel queued after a wait sees what the wait waited for);
 *   - the core stream calls no other suite makes directly: putmem, getmem, TYPE_get,
 *     signal_op (set and add), sync_all, barrier(team), fcollectmem, alltoallmem;
 *   - in a kernel, block and warp forms: typed get_nbi, iput/iget, sized put/get/put_nbi/
 *     get_nbi/put_signal(_nbi)/iput/iget, barrier(team) and team_sync(team);
 *   - reduce-scatter (nvshmem_TYPENAME_OP_reducescatter) on the host, on a stream, and in its
 *     block and warp forms: PE r gets the reduction of block r of every PE's source;
 *   - misuse: a group call from a host thread, and a stream RMA to a PE out of range, end the
 *     program with a message naming the call.
 *
 * Every value is distinct per PE and element, so a wrong PE, element or stride shows.
 */
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
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "support/pe_check.h"

enum { N = 16 };

static int val(int pe, int i) { return pe * 1000 + i; }

/* ---- on a stream ------------------------------------------------------------------------ */

typedef struct {
    const long *in;
    long *out;
} copy_args;

KERNEL(copy_kernel, copy_args, a)
{
    int i = (int)threadIdx.x;
    a.out[i] = a.in[i];
}

static int on_stream_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    int *src = nvshmem_calloc(2 * N, sizeof(int));
    int *a = nvshmem_calloc(2 * N, sizeof(int)), *b = nvshmem_calloc(2 * N, sizeof(int));
    int *c = nvshmem_calloc(2 * N, sizeof(int)), *d = nvshmem_calloc(2 * N, sizeof(int));
    uint32_t *s32 = nvshmem_calloc(N, sizeof(uint32_t)), *d32 = nvshmem_calloc(N, 4);
    uint64_t *sig = nvshmem_calloc(2, sizeof(uint64_t));
    long *flags = nvshmem_calloc(4, sizeof(long));
    long *seen = NULL;
    cudaMalloc((void **)&seen, 4 * sizeof(long));
    for (int i = 0; i < 2 * N; i++)
        src[i] = val(me, i);
    for (int i = 0; i < N; i++)
        s32[i] = (uint32_t)val(me, i) * 3u;
    nvshmem_barrier_all();

    cudaStream_t s;
    cudaStreamCreate(&s);
    /* typed and sized contiguous forms: each to its own buffer of the next PE */
    nvshmemx_int_put_nbi_on_stream(a, src, N, next, s);
    nvshmemx_int_put_signal_on_stream(b, src, N, &sig[0], 1, NVSHMEM_SIGNAL_ADD, next, s);
    nvshmemx_int_put_signal_nbi_on_stream(b + N, src + N, N, &sig[1], 5, NVSHMEM_SIGNAL_SET,
                                          next, s);
    nvshmemx_put32_on_stream(d32, s32, N / 2, next, s);
    nvshmemx_put32_nbi_on_stream(d32 + N / 2, s32 + N / 2, N / 2, next, s);
    nvshmemx_put64_signal_on_stream(c, src, N / 2, &sig[0], 1, NVSHMEM_SIGNAL_ADD, next, s);
    nvshmemx_put64_signal_nbi_on_stream(c + N, src + N, N / 2, &sig[0], 1, NVSHMEM_SIGNAL_ADD,
                                        next, s);
    /* strided: every second element of src into every element of d (typed), and the 32-bit
     * form into the odd slots of d's second half */
    nvshmemx_int_iput_on_stream(d, src, 1, 2, N, next, s);
    nvshmemx_iput32_on_stream(d + N + 1, src, 2, 2, N / 2, next, s);
    nvshmemx_quiet_on_stream(s);
    nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, s);
    /* the waits: the previous PE's three signalling puts add 3, its nbi signal sets 5 */
    nvshmemx_uint64_wait_until_on_stream(&sig[0], NVSHMEM_CMP_EQ, 3, s);
    int status[2] = {0, 0};
    nvshmemx_uint64_wait_until_all_on_stream(sig, 2, status, NVSHMEM_CMP_GE, 3, s);
    uint64_t want[2] = {3, 5};
    nvshmemx_uint64_wait_until_all_vector_on_stream(sig, 2, NULL, NVSHMEM_CMP_EQ, want, s);
    cudaStreamSynchronize(s);
    for (int i = 0; i < N; i++) {
        PE_CHECK_EQ_I64(a[i], val(prev, i));
        PE_CHECK_EQ_I64(b[i], val(prev, i));
        PE_CHECK_EQ_I64(b[N + i], val(prev, N + i));
        PE_CHECK_EQ_I64(c[i], val(prev, i));
        PE_CHECK_EQ_I64(c[N + i], val(prev, N + i));
        PE_CHECK_EQ_U64(d32[i], (uint32_t)val(prev, i) * 3u);
        PE_CHECK_EQ_I64(d[i], val(prev, 2 * i));
    }
    for (int i = 0; i < N / 2; i++) {
        PE_CHECK_EQ_I64(d[N + 1 + 2 * i], val(prev, 2 * i));
        PE_CHECK_EQ_I64(d[N + 2 * i], 0);
    }
    PE_CHECK_EQ_U64(sig[0], 3);
    PE_CHECK_EQ_U64(sig[1], 5);

    /* gets from the next PE, and g, which waits for the stream itself */
    int *got = NULL;
    cudaMalloc((void **)&got, 2 * N * sizeof(int));
    memset(got, 0, 2 * N * sizeof(int));
    nvshmemx_int_get_nbi_on_stream(got, src, N / 2, next, s);
    nvshmemx_get32_on_stream(got + N / 2, src + N / 2, N / 4, next, s);
    nvshmemx_get32_nbi_on_stream(got + 3 * N / 4, src + 3 * N / 4, N / 4, next, s);
    nvshmemx_int_iget_on_stream(got + N, src, 1, 3, N / 2, next, s);
    nvshmemx_iget64_on_stream(got + 3 * N / 2, src, 1, 1, N / 4, next, s); /* 2 ints a step */
    PE_CHECK_EQ_I64(nvshmemx_int_g_on_stream(&src[5], next, s), val(next, 5));
    for (int i = 0; i < N; i++)
        PE_CHECK_EQ_I64(got[i], val(next, i));
    for (int i = 0; i < N / 2; i++)
        PE_CHECK_EQ_I64(got[N + i], val(next, 3 * i));
    for (int i = 0; i < N / 2; i++)
        PE_CHECK_EQ_I64(got[3 * N / 2 + i], val(next, i));

    /* stream order: a kernel queued after a wait runs after what it waited for. The previous
     * PE's stream sets flags[0..3] with 4 p's after its barrier; the wait with a status mask
     * skips flags[3], which the kernel must then not see set... it is set last by a p that
     * follows a second team sync, queued after the kernel on the previous PE's stream */
    nvshmemx_barrier_all_on_stream(s);
    for (int i = 0; i < 3; i++)
        nvshmemx_long_p_on_stream(&flags[i], 10 + i, next, s);
    int mask[4] = {0, 0, 0, 1};
    nvshmemx_long_wait_until_all_on_stream(flags, 4, mask, NVSHMEM_CMP_GE, 10, s);
    copy_args ca = {flags, seen};
    LAUNCH(copy_kernel, DIM3(1, 1, 1), DIM3(4, 1, 1), 0, s, ca);
    nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, s);
    nvshmemx_long_p_on_stream(&flags[3], 13, next, s);
    nvshmemx_barrier_all_on_stream(s);
    cudaStreamSynchronize(s);
    for (int i = 0; i < 3; i++)
        PE_CHECK_EQ_I64(seen[i], 10 + i);
    PE_CHECK_EQ_I64(seen[3], 0);
    PE_CHECK_EQ_I64(flags[3], 13);

    cudaStreamDestroy(s);
    cudaFree(got);
    cudaFree(seen);
    void *all[] = {src, a, b, c, d, s32, d32, sig, flags};
    for (size_t i = sizeof all / sizeof all[0]; i-- > 0;)
        nvshmem_free(all[i]);
    nvshmem_finalize();
    return 0;
}

static void test_on_stream_forms(void **state)
{
    (void)state;
    run_pes_each(on_stream_body, NULL);
}


/* ---- core stream calls, directly ------------------------------------------------------------ */

static int core_on_stream_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    long *src = nvshmem_calloc(N, sizeof(long)), *dst = nvshmem_calloc(N, sizeof(long));
    long *got = nvshmem_calloc(N, sizeof(long));
    uint64_t *sig = nvshmem_calloc(2, sizeof(uint64_t));
    char *fc = nvshmem_calloc((size_t)2 * n, 1), *mine = nvshmem_calloc(2, 1);
    char *a2a_src = nvshmem_calloc((size_t)n, 1), *a2a = nvshmem_calloc((size_t)n, 1);
    for (int i = 0; i < N; i++)
        src[i] = val(me, i);
    mine[0] = (char)('a' + me);
    mine[1] = (char)('A' + me);
    for (int j = 0; j < n; j++)
        a2a_src[j] = (char)(me * 10 + j);
    nvshmem_barrier_all();
    cudaStream_t s;
    cudaStreamCreate(&s);
    nvshmemx_putmem_on_stream(dst, src, N * sizeof(long), next, s);
    nvshmemx_signal_op_on_stream(&sig[0], 7, NVSHMEM_SIGNAL_SET, next, s);
    nvshmemx_signal_op_on_stream(&sig[1], 2, NVSHMEM_SIGNAL_ADD, next, s);
    nvshmemx_signal_op_on_stream(&sig[1], 3, NVSHMEM_SIGNAL_ADD, next, s);
    nvshmemx_quiet_on_stream(s);
    nvshmemx_sync_all_on_stream(s);
    PE_CHECK_EQ_I64(nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, s), 0);
    nvshmemx_long_get_on_stream(got, src, N / 2, next, s);
    nvshmemx_getmem_on_stream(got + N / 2, src + N / 2, N / 2 * sizeof(long), next, s);
    PE_CHECK_EQ_I64(nvshmemx_fcollectmem_on_stream(NVSHMEM_TEAM_WORLD, fc, mine, 2, s), 0);
    PE_CHECK_EQ_I64(nvshmemx_alltoallmem_on_stream(NVSHMEM_TEAM_WORLD, a2a, a2a_src, 1, s), 0);
    cudaStreamSynchronize(s);
    for (int i = 0; i < N; i++) {
        PE_CHECK_EQ_I64(dst[i], val(prev, i));
        PE_CHECK_EQ_I64(got[i], val(next, i));
    }
    PE_CHECK_EQ_U64(sig[0], 7);
    PE_CHECK_EQ_U64(sig[1], 5);
    for (int p = 0; p < n; p++) {
        PE_CHECK_EQ_I64(fc[2 * p], 'a' + p);
        PE_CHECK_EQ_I64(fc[2 * p + 1], 'A' + p);
        PE_CHECK_EQ_I64(a2a[p], p * 10 + me);
    }
    nvshmem_barrier_all();
    cudaStreamDestroy(s);
    void *all[] = {src, dst, got, sig, fc, mine, a2a_src, a2a};
    for (size_t i = sizeof all / sizeof all[0]; i-- > 0;)
        nvshmem_free(all[i]);
    nvshmem_finalize();
    return 0;
}

static void test_core_on_stream(void **state)
{
    (void)state;
    run_pes_each(core_on_stream_body, NULL);
}

static void signal_op_bad_op(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    nvshmemx_signal_op_on_stream(sig, 1, 3, 0, NULL);
    cudaDeviceSynchronize();
}

/* ---- block and warp forms in a kernel --------------------------------------------------- */

typedef struct {
    int *src;  /* symmetric, 2N: val(me, i) */
    int *dst;  /* symmetric, 8N: one N slice per form */
    int *got;  /* symmetric, 4N: gets land here */
    uint64_t *sig;
    int warp; /* 1: the _warp forms (one warp of 32), else _block */
} group_args;

KERNEL(group_forms_kernel, group_args, g)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n;
    nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
    int *dst = g.dst, *got = g.got, *src = g.src;
    if (g.warp) {
        nvshmemx_put32_warp(dst, src, N, next);
        nvshmemx_put32_nbi_warp(dst + N, src, N, next);
        nvshmemx_put64_signal_warp(dst + 2 * N, src, N / 2, &g.sig[0], 1, NVSHMEM_SIGNAL_ADD,
                                   next);
        nvshmemx_put64_signal_nbi_warp(dst + 3 * N, src, N / 2, &g.sig[0], 1,
                                       NVSHMEM_SIGNAL_ADD, next);
        nvshmemx_int_iput_warp(dst + 4 * N, src, 1, 2, N, next);
        nvshmemx_iput32_warp(dst + 5 * N, src, 2, 1, N / 2, next);
        nvshmemx_barrier_warp(w);
        nvshmemx_int_get_nbi_warp(got, src, N, next);
        nvshmemx_get32_warp(got + N, src, N, next);
        nvshmemx_get32_nbi_warp(got + 2 * N, src, N / 2, next);
        nvshmemx_int_iget_warp(got + 3 * N, src, 1, 2, N, next);
        nvshmemx_iget64_warp(got + 2 * N + N / 2, src, 1, 1, N / 4, next);
        nvshmem_quiet();
        nvshmemx_team_sync_warp(w);
    } else {
        nvshmemx_put32_block(dst, src, N, next);
        nvshmemx_put32_nbi_block(dst + N, src, N, next);
        nvshmemx_put64_signal_block(dst + 2 * N, src, N / 2, &g.sig[0], 1, NVSHMEM_SIGNAL_ADD,
                                    next);
        nvshmemx_put64_signal_nbi_block(dst + 3 * N, src, N / 2, &g.sig[0], 1,
                                        NVSHMEM_SIGNAL_ADD, next);
        nvshmemx_int_iput_block(dst + 4 * N, src, 1, 2, N, next);
        nvshmemx_iput32_block(dst + 5 * N, src, 2, 1, N / 2, next);
        nvshmemx_barrier_block(w);
        nvshmemx_int_get_nbi_block(got, src, N, next);
        nvshmemx_get32_block(got + N, src, N, next);
        nvshmemx_get32_nbi_block(got + 2 * N, src, N / 2, next);
        nvshmemx_int_iget_block(got + 3 * N, src, 1, 2, N, next);
        nvshmemx_iget64_block(got + 2 * N + N / 2, src, 1, 1, N / 4, next);
        nvshmem_quiet();
        nvshmemx_team_sync_block(w);
    }
}

static int group_body(void *arg)
{
    int warp = *(const int *)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int prev = (me - 1 + n) % n, next = (me + 1) % n;
    group_args g;
    g.src = nvshmem_calloc(2 * N, sizeof(int));
    g.dst = nvshmem_calloc(8 * N, sizeof(int));
    g.got = nvshmem_calloc(4 * N, sizeof(int));
    g.sig = nvshmem_calloc(1, sizeof(uint64_t));
    g.warp = warp;
    for (int i = 0; i < 2 * N; i++)
        g.src[i] = val(me, i);
    nvshmem_barrier_all();
    LAUNCH(group_forms_kernel, DIM3(1, 1, 1), DIM3(warp ? 32 : 96, 1, 1), 0, NULL, g);
    cudaDeviceSynchronize();
    nvshmem_barrier_all();
    for (int i = 0; i < N; i++) {
        PE_CHECK_EQ_I64(g.dst[i], val(prev, i));
        PE_CHECK_EQ_I64(g.dst[N + i], val(prev, i));
        PE_CHECK_EQ_I64(g.dst[2 * N + i], val(prev, i));
        PE_CHECK_EQ_I64(g.dst[3 * N + i], val(prev, i));
        PE_CHECK_EQ_I64(g.dst[4 * N + i], val(prev, 2 * i));
        PE_CHECK_EQ_I64(g.got[i], val(next, i));
        PE_CHECK_EQ_I64(g.got[N + i], val(next, i));
        PE_CHECK_EQ_I64(g.got[3 * N + i], val(next, 2 * i));
    }
    for (int i = 0; i < N / 2; i++) {
        PE_CHECK_EQ_I64(g.dst[5 * N + 2 * i], val(prev, i));
        PE_CHECK_EQ_I64(g.dst[5 * N + 2 * i + 1], 0);
        PE_CHECK_EQ_I64(g.got[2 * N + i], val(next, i));
        PE_CHECK_EQ_I64(g.got[2 * N + N / 2 + i], val(next, i));
    }
    PE_CHECK_EQ_U64(*g.sig, 2);
    nvshmem_free(g.sig);
    nvshmem_free(g.got);
    nvshmem_free(g.dst);
    nvshmem_free(g.src);
    nvshmem_finalize();
    return 0;
}

static void test_group_forms(void **state)
{
    (void)state;
    int block = 0, warp = 1;
    run_pes_each(group_body, &block);
    run_pes_each(group_body, &warp);
}


/* ---- reduce-scatter --------------------------------------------------------------------- */

enum { K = 5 };

typedef struct {
    const double *dsrc;
    double *ddst;
    const unsigned *usrc;
    unsigned *udst;
} rs_args;

KERNEL(reducescatter_kernel, rs_args, a)
{
    nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
    if (threadIdx.x < 32)
        nvshmemx_uint_or_reducescatter_warp(w, a.udst, a.usrc, K);
    nvshmemx_double_sum_reducescatter_block(w, a.ddst, a.dsrc, K);
}

static int reducescatter_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int *isrc = nvshmem_calloc((size_t)n * K, sizeof(int));
    int *idst = nvshmem_calloc(K, sizeof(int)), *imax = nvshmem_calloc(K, sizeof(int));
    double *dsrc = nvshmem_calloc((size_t)n * K, sizeof(double));
    double *ddst = nvshmem_calloc(K, sizeof(double));
    unsigned *usrc = nvshmem_calloc((size_t)n * K, sizeof(unsigned));
    unsigned *udst = nvshmem_calloc(K, sizeof(unsigned));
    for (int j = 0; j < n * K; j++) {
        isrc[j] = val(me, j);
        dsrc[j] = 0.5 * val(me, j);
        usrc[j] = (1u << me) | ((unsigned)j << 8);
    }
    PE_CHECK_EQ_I64(nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, idst, isrc, K), 0);
    cudaStream_t s;
    cudaStreamCreate(&s);
    PE_CHECK_EQ_I64(nvshmemx_int_max_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, imax, isrc, K,
                                                             s),
                    0);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    rs_args a = {dsrc, ddst, usrc, udst};
    LAUNCH(reducescatter_kernel, DIM3(1, 1, 1), DIM3(64, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    for (int i = 0; i < K; i++) {
        int j = me * K + i; /* my block */
        PE_CHECK_EQ_I64(idst[i], 1000 * n * (n - 1) / 2 + n * j);
        PE_CHECK_EQ_I64(imax[i], val(n - 1, j));
        PE_CHECK_EQ_DBL_BITS(ddst[i], 0.5 * (1000.0 * n * (n - 1) / 2 + (double)n * j));
        PE_CHECK_EQ_U64(udst[i], ((1u << n) - 1) | ((unsigned)j << 8));
    }
    nvshmem_barrier_all();
    void *all[] = {isrc, idst, imax, dsrc, ddst, usrc, udst};
    for (size_t i = sizeof all / sizeof all[0]; i-- > 0;)
        nvshmem_free(all[i]);
    nvshmem_finalize();
    return 0;
}

static void test_reducescatter(void **state)
{
    (void)state;
    run_pes_each(reducescatter_body, NULL);
}

/* n blocks of nreduce ints that overflow a size_t: refused with the count */
static void reducescatter_overflow(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *src = nvshmem_calloc(1, sizeof(int));
    (void)nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, src, src, (size_t)1 << 62);
}

/* ---- misuse ----------------------------------------------------------------------------- */

static void group_from_host(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *buf = nvshmem_calloc(4, sizeof(int));
    nvshmemx_put32_block(buf, buf, 1, 0);
}

static void stream_pe_out_of_range(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *buf = nvshmem_calloc(4, sizeof(int));
    nvshmemx_int_iput_on_stream(buf, buf, 1, 1, 2, 5, NULL);
    cudaDeviceSynchronize();
}

static void team_sync_bad_team(void *arg)
{
    (void)arg;
    nvshmem_init();
    nvshmemx_team_sync_on_stream(40, NULL);
    cudaDeviceSynchronize();
}

static void test_misuse(void **state)
{
    (void)state;
    expect_child_failure(group_from_host, NULL, 1, "nvshmemx_put32_block");
    expect_child_failure(stream_pe_out_of_range, NULL, 2, "nvshmem_int_iput");
    expect_child_failure(team_sync_bad_team, NULL, 2, "team 40 is not a valid team");
    expect_child_failure(signal_op_bad_op, NULL, 1,
                         "nvshmemx_signal_op: unknown signal operation 3");
    expect_child_failure(reducescatter_overflow, NULL, 2,
                         "nvshmem_int_sum_reducescatter: nreduce 4611686018427387904 overflows");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_stream_forms),
        cmocka_unit_test(test_core_on_stream),
        cmocka_unit_test(test_group_forms),
        cmocka_unit_test(test_reducescatter),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests_name("emu_api_forms", tests, NULL, NULL);
}
