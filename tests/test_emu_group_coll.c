/*
 * test_emu_group_coll.c: NVSHMEM's team collectives made by a group of kernel threads
 * (nvshmemx_*_reduce_block/_warp, _broadcast_, _fcollect_, _alltoall_ and the *mem forms)
 * and queued on a stream (nvshmemx_*_on_stream), at 2 and 3 PEs.
 *
 * Each kernel writes the sources with every thread, makes the group call with every thread,
 * and reads the destinations with every thread right after the call: the group's
 * synchronization before and after is what makes those reads and writes safe. The stream
 * test fills the source with a kernel and reads the result with a kernel on the same stream:
 * the collective runs between them in stream order.
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
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "support/pe_check.h"

enum { N = 64, FC = 8, A2A = 4, MAXPES = 3 };

/* Symmetric buffers (one nvshmem_calloc each) and the kernel's private copy of the results. */
typedef struct {
    int *isrc, *isum, *imax, *ibc, *ifc, *ia2a_src, *ia2a;
    long *lsrc, *lprod;
    unsigned *usrc, *uand, *uor, *uxor;
    double *dsrc, *dmin;
    char *msrc, *mbc; /* the *mem broadcast */
    int *out;         /* cudaMalloc: N ints each thread copied from isum right after the call */
} coll_bufs;

static coll_bufs coll_alloc(void)
{
    coll_bufs b;
    b.isrc = nvshmem_calloc(N, sizeof(int));
    b.isum = nvshmem_calloc(N, sizeof(int));
    b.imax = nvshmem_calloc(N, sizeof(int));
    b.ibc = nvshmem_calloc(N, sizeof(int));
    b.ifc = nvshmem_calloc(FC * MAXPES, sizeof(int));
    b.ia2a_src = nvshmem_calloc(A2A * MAXPES, sizeof(int));
    b.ia2a = nvshmem_calloc(A2A * MAXPES, sizeof(int));
    b.lsrc = nvshmem_calloc(N, sizeof(long));
    b.lprod = nvshmem_calloc(N, sizeof(long));
    b.usrc = nvshmem_calloc(N, sizeof(unsigned));
    b.uand = nvshmem_calloc(N, sizeof(unsigned));
    b.uor = nvshmem_calloc(N, sizeof(unsigned));
    b.uxor = nvshmem_calloc(N, sizeof(unsigned));
    b.dsrc = nvshmem_calloc(N, sizeof(double));
    b.dmin = nvshmem_calloc(N, sizeof(double));
    b.msrc = nvshmem_calloc(N, 1);
    b.mbc = nvshmem_calloc(N, 1);
    b.out = NULL;
    cudaMalloc((void **)&b.out, N * sizeof(int));
    return b;
}

static void coll_free(coll_bufs *b)
{
    cudaFree(b->out);
    void *all[] = {b->isrc, b->isum, b->imax, b->ibc, b->ifc, b->ia2a_src, b->ia2a,
                   b->lsrc, b->lprod, b->usrc, b->uand, b->uor, b->uxor, b->dsrc,
                   b->dmin, b->msrc, b->mbc};
    for (size_t i = sizeof all / sizeof all[0]; i-- > 0;)
        nvshmem_free(all[i]);
}

/* The sources of PE p: distinct per PE and element, so a wrong PE or element shows. */
static int isrc_of(int p, int i) { return p * 100 + i - 7 * (i % 3); }
static long lsrc_of(int p, int i) { return (long)(p + 2) * (i % 5 + 1); }
static unsigned usrc_of(int p, int i) { return 0xf0f0u ^ (1u << (p + i % 8)) ^ (unsigned)i; }
static double dsrc_of(int p, int i) { return (double)((p * 37 + i * 11) % 17) - 8.5; }
static int a2a_of(int p, int j, int k) { return p * 100 + j * 10 + k; } /* p's block for j */

/* Every thread t of the group writes element t (and t + group size, ...) of the sources. */
DEVICE void fill_sources(coll_bufs b, int me, int n, int first, int count)
{
    for (int i = first; i < first + count; i++) {
        b.isrc[i] = isrc_of(me, i);
        b.lsrc[i] = lsrc_of(me, i);
        b.usrc[i] = usrc_of(me, i);
        b.dsrc[i] = dsrc_of(me, i);
        b.msrc[i] = (char)(me * 3 + i);
    }
    for (int i = first; i < first + count && i < A2A * n; i++)
        b.ia2a_src[i] = a2a_of(me, i / A2A, i % A2A);
}

/* ---- the block forms ------------------------------------------------------------------- */

KERNEL(block_coll_kernel, coll_bufs, b)
{
    int t = (int)threadIdx.x, me = nvshmem_my_pe(), n = nvshmem_n_pes();
    nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
    fill_sources(b, me, n, t, 1); /* N threads: one element each */
    nvshmemx_int_sum_reduce_block(w, b.isum, b.isrc, N);
    b.out[t] = b.isum[t]; /* the result is there for every thread when the call returns */
    nvshmemx_int_max_reduce_block(w, b.imax, b.isrc, N);
    nvshmemx_long_prod_reduce_block(w, b.lprod, b.lsrc, N);
    nvshmemx_uint_and_reduce_block(w, b.uand, b.usrc, N);
    nvshmemx_uint_or_reduce_block(w, b.uor, b.usrc, N);
    nvshmemx_uint_xor_reduce_block(w, b.uxor, b.usrc, N);
    nvshmemx_double_min_reduce_block(w, b.dmin, b.dsrc, N);
    nvshmemx_int_broadcast_block(w, b.ibc, b.isrc, N, n - 1);
    nvshmemx_int_fcollect_block(w, b.ifc, b.isrc, FC);
    nvshmemx_int_alltoall_block(w, b.ia2a, b.ia2a_src, A2A);
    nvshmemx_broadcastmem_block(w, b.mbc, b.msrc, N, 0);
}

/* ---- the warp forms: warp 0 makes the first half of each call, then warp 1 the second -- */

KERNEL(warp_coll_kernel, coll_bufs, b)
{
    int t = (int)threadIdx.x, me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int warp = t / 32, lane = t % 32;
    nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
    /* the warps take turns: a PE's calls on one team must not overlap */
    for (int turn = 0; turn < 2; turn++) {
        if (warp == turn) {
            int h = 32 * warp;
            fill_sources(b, me, n, h + lane, 1);
            nvshmemx_int_sum_reduce_warp(w, b.isum + h, b.isrc + h, 32);
            b.out[h + lane] = b.isum[h + lane];
            nvshmemx_int_max_reduce_warp(w, b.imax + h, b.isrc + h, 32);
            nvshmemx_long_prod_reduce_warp(w, b.lprod + h, b.lsrc + h, 32);
            nvshmemx_uint_and_reduce_warp(w, b.uand + h, b.usrc + h, 32);
            nvshmemx_uint_or_reduce_warp(w, b.uor + h, b.usrc + h, 32);
            nvshmemx_uint_xor_reduce_warp(w, b.uxor + h, b.usrc + h, 32);
            nvshmemx_double_min_reduce_warp(w, b.dmin + h, b.dsrc + h, 32);
            nvshmemx_int_broadcast_warp(w, b.ibc + h, b.isrc + h, 32, n - 1);
            nvshmemx_broadcastmem_warp(w, b.mbc + h, b.msrc + h, 32, 0);
            if (warp == 0) {
                nvshmemx_int_fcollect_warp(w, b.ifc, b.isrc, FC);
                nvshmemx_int_alltoall_warp(w, b.ia2a, b.ia2a_src, A2A);
            }
        }
        __syncthreads();
    }
}

/* ---- the stream forms ------------------------------------------------------------------- */

KERNEL(fill_kernel, coll_bufs, b)
{
    int t = (int)threadIdx.x;
    fill_sources(b, nvshmem_my_pe(), nvshmem_n_pes(), t, 1);
}

KERNEL(read_kernel, coll_bufs, b)
{
    int t = (int)threadIdx.x;
    b.out[t] = b.isum[t];
}

static void queue_on_stream(coll_bufs b, cudaStream_t s)
{
    int n = nvshmem_n_pes();
    nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
    LAUNCH(fill_kernel, DIM3(1, 1, 1), DIM3(N, 1, 1), 0, s, b);
    nvshmemx_int_sum_reduce_on_stream(w, b.isum, b.isrc, N, s);
    LAUNCH(read_kernel, DIM3(1, 1, 1), DIM3(N, 1, 1), 0, s, b);
    nvshmemx_int_max_reduce_on_stream(w, b.imax, b.isrc, N, s);
    nvshmemx_long_prod_reduce_on_stream(w, b.lprod, b.lsrc, N, s);
    nvshmemx_uint_and_reduce_on_stream(w, b.uand, b.usrc, N, s);
    nvshmemx_uint_or_reduce_on_stream(w, b.uor, b.usrc, N, s);
    nvshmemx_uint_xor_reduce_on_stream(w, b.uxor, b.usrc, N, s);
    nvshmemx_double_min_reduce_on_stream(w, b.dmin, b.dsrc, N, s);
    nvshmemx_int_broadcast_on_stream(w, b.ibc, b.isrc, N, n - 1, s);
    nvshmemx_int_fcollect_on_stream(w, b.ifc, b.isrc, FC, s);
    nvshmemx_int_alltoall_on_stream(w, b.ia2a, b.ia2a_src, A2A, s);
    nvshmemx_broadcastmem_on_stream(w, b.mbc, b.msrc, N, 0, s);
}

/* ---- checks ----------------------------------------------------------------------------- */

/* The results on this PE, recomputed on the host from every PE's sources. */
static void check_results(const coll_bufs *b)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    for (int i = 0; i < N; i++) {
        int sum = 0, max = isrc_of(0, i);
        long prod = 1;
        unsigned and_ = ~0u, or_ = 0, xor_ = 0;
        double min = dsrc_of(0, i);
        for (int p = 0; p < n; p++) {
            sum += isrc_of(p, i);
            max = isrc_of(p, i) > max ? isrc_of(p, i) : max;
            prod *= lsrc_of(p, i);
            and_ &= usrc_of(p, i);
            or_ |= usrc_of(p, i);
            xor_ ^= usrc_of(p, i);
            min = dsrc_of(p, i) < min ? dsrc_of(p, i) : min;
        }
        PE_CHECK_EQ_I64(b->isum[i], sum);
        PE_CHECK_EQ_I64(b->out[i], sum);
        PE_CHECK_EQ_I64(b->imax[i], max);
        PE_CHECK_EQ_I64(b->lprod[i], prod);
        PE_CHECK_EQ_U64(b->uand[i], and_);
        PE_CHECK_EQ_U64(b->uor[i], or_);
        PE_CHECK_EQ_U64(b->uxor[i], xor_);
        PE_CHECK_EQ_DBL_BITS(b->dmin[i], min);
        PE_CHECK_EQ_I64(b->ibc[i], isrc_of(n - 1, i));
        PE_CHECK_EQ_I64(b->mbc[i], (char)i); /* PE 0's msrc */
    }
    for (int p = 0; p < n; p++) {
        for (int i = 0; i < FC; i++)
            PE_CHECK_EQ_I64(b->ifc[p * FC + i], isrc_of(p, i));
        for (int k = 0; k < A2A; k++)
            PE_CHECK_EQ_I64(b->ia2a[p * A2A + k], a2a_of(p, me, k));
    }
}

typedef enum { FORM_BLOCK, FORM_WARP, FORM_STREAM } coll_form;

static int coll_body(void *arg)
{
    coll_form form = *(const coll_form *)arg;
    nvshmem_init();
    coll_bufs b = coll_alloc();
    nvshmem_barrier_all();
    cudaStream_t s;
    cudaStreamCreate(&s);
    if (form == FORM_BLOCK)
        LAUNCH(block_coll_kernel, DIM3(1, 1, 1), DIM3(N, 1, 1), 0, s, b);
    else if (form == FORM_WARP)
        LAUNCH(warp_coll_kernel, DIM3(1, 1, 1), DIM3(N, 1, 1), 0, s, b);
    else
        queue_on_stream(b, s);
    cudaStreamSynchronize(s);
    check_results(&b);
    nvshmem_barrier_all();
    cudaStreamDestroy(s);
    coll_free(&b);
    nvshmem_finalize();
    return 0;
}

static void run_form(coll_form form)
{
    run_pes(2, coll_body, &form);
    run_pes(3, coll_body, &form);
}

static void test_block_collectives(void **state)
{
    (void)state;
    run_form(FORM_BLOCK);
}

static void test_warp_collectives(void **state)
{
    (void)state;
    run_form(FORM_WARP);
}

static void test_on_stream_collectives(void **state)
{
    (void)state;
    run_form(FORM_STREAM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_collectives),
        cmocka_unit_test(test_warp_collectives),
        cmocka_unit_test(test_on_stream_collectives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
