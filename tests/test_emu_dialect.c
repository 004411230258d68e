/*
 * test_emu_dialect.c: runs the one-source kernels of tests/emu_dialect_kernels.c (which also
 * compile with nvcc -x cu) in the emulator and checks their results.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "shmemu/emu.h"
#include "support/pe_check.h"

#include "emu_dialect_kernels.c"

static int dialect_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    const int blocks = 4, threads = 64, n = blocks * threads;
    char *mem = NULL;
    cudaMalloc((void **)&mem, 8192);
    dialect_args a;
    memset(&a, 0, sizeof a);
    a.out = (int *)mem;                                  /* n ints: 1024 bytes */
    a.votes = (unsigned *)(mem + 1024);                  /* 8 */
    a.counter = (int *)(mem + 1088);                     /* 2 */
    a.wide = (unsigned long long *)(mem + 1104);
    a.fsum = (float *)(mem + 1112);
    a.flag = (uint32_t *)(mem + 1120);
    a.handoff = (int *)(mem + 1128);                     /* 2 */
    a.bulk_src = (int *)(mem + 2048);
    a.bulk_out = (int *)(mem + 4096);
    a.use_tma = 1;
    for (int i = 0; i < 64; i++)
        a.bulk_src[i] = 3 * i + 1;
    a.counter[1] = -1;
    dialect_launch(a, blocks, threads, NULL);
    PE_CHECK(cudaGetLastError() == cudaSuccess);
    cudaDeviceSynchronize();
    for (int g = 0; g < n; g++) {
        int b = g / threads, t = g % threads;
        int want = (b * threads + (t + 1) % threads) * 2 + g;
        PE_CHECK_EQ_I64(a.out[g], want);
    }
    for (int w = 0; w < n / 32; w++)
        PE_CHECK_EQ_U64(a.votes[w], 0x55555555u);
    PE_CHECK_EQ_I64(a.counter[0], n);
    PE_CHECK_EQ_I64(a.counter[1], n - 1);
    PE_CHECK_EQ_U64(*a.wide, 2ull * (unsigned long long)n);
    PE_CHECK_EQ_FLT_BITS(*a.fsum, 0.5f * (float)n);
    PE_CHECK_EQ_I64(a.handoff[1], 100);
    for (int i = 0; i < 64; i++)
        PE_CHECK_EQ_I64(a.bulk_out[i], 3 * i + 1);
    cudaFree(mem);
    nvshmem_finalize();
    return 0;
}

static int dialect_more_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    enum { blocks = 2, threads = 64, n = blocks * threads };
    char *mem = NULL;
    cudaMalloc((void **)&mem, 8192);
    memset(mem, 0, 8192);
    dialect_more_args a;
    a.ids = (int *)mem;                                   /* n ints: 512 bytes */
    a.shuffles = (int *)(mem + 512);                      /* n ints */
    a.u32 = (unsigned *)(mem + 1024);                     /* 7 */
    a.i32 = (int *)(mem + 1056);                          /* 2 */
    a.i64 = (long long *)(mem + 1088);                    /* 3 */
    a.u64 = (unsigned long long *)(mem + 1120);           /* 6 */
    a.f32 = (float *)(mem + 1184);
    a.f64 = (double *)(mem + 1192);
    a.sys = (unsigned long long *)(mem + 1216);           /* 3 */
    a.mbar_ok = (int *)(mem + 1248);                      /* blocks */
    a.bulk_dst = (int *)(mem + 2048);                     /* blocks * 64 ints */
    a.u32[5] = 0xffffffffu;
    a.i32[0] = INT32_MAX;
    a.i32[1] = INT32_MIN;
    a.u64[4] = ~0ull;
    dialect_more_launch(a, blocks, NULL);
    PE_CHECK(cudaGetLastError() == cudaSuccess);
    cudaDeviceSynchronize();
    for (int g = 0; g < n; g++) {
        int b = g / threads, t = g % threads, lane = t & 31;
        PE_CHECK_EQ_I64(a.ids[g], t + 1000 * b + 100000 * blocks);
        int up = lane == 0 ? 0 : lane - 1, down = lane + 2 < 32 ? lane + 2 : lane;
        PE_CHECK_EQ_I64(a.shuffles[g], up + 100 * down + 10000 + 20000 + 40000 + 80000 + 320000);
        PE_CHECK_EQ_I64(a.bulk_dst[g], 3 * g);
    }
    PE_CHECK_EQ_U64(a.u32[0], n % 8);             /* atomicInc wraps at limit 7 */
    PE_CHECK(a.u32[1] >= 1 && a.u32[1] <= n);     /* one CAS won ... */
    PE_CHECK_EQ_U64(a.u32[2], 1);                 /* ... exactly one */
    PE_CHECK(a.u32[3] < n);
    PE_CHECK_EQ_U64(a.u32[4], 0xffffffffu);
    PE_CHECK_EQ_U64(a.u32[5], 0);
    PE_CHECK_EQ_U64(a.u32[6], 128);               /* 1 ^ 2 ^ ... ^ 128 */
    PE_CHECK_EQ_I64(a.i32[0], -7);
    PE_CHECK_EQ_I64(a.i32[1], 0);
    PE_CHECK_EQ_I64(a.i64[0], -(int64_t)(n - 1) * 4000000000LL);
    PE_CHECK_EQ_I64(a.i64[1], (int64_t)(n - 1) * 4000000000LL);
    PE_CHECK_EQ_I64(a.i64[2], (int64_t)n * 3000000000LL);
    PE_CHECK(a.u64[0] >= 1 && a.u64[0] <= n);
    PE_CHECK_EQ_U64(a.u64[1], 1);
    PE_CHECK((a.u64[2] & ((1ull << 33) - 1)) == 0 && (a.u64[2] >> 33) < n);
    PE_CHECK_EQ_U64(a.u64[3], ~0ull);
    PE_CHECK_EQ_U64(a.u64[4], 0);
    PE_CHECK_EQ_U64(a.u64[5], 128);
    PE_CHECK_EQ_FLT_BITS(a.f32[0], 2.5f);
    PE_CHECK(a.f64[0] == 0.25 * n);
    PE_CHECK_EQ_U64(a.sys[2], 77);
    for (int b = 0; b < blocks; b++)
        PE_CHECK_EQ_I64(a.mbar_ok[b], 3);         /* test_wait after wait, then phase 1 */
    cudaFree(mem);
    nvshmem_finalize();
    return 0;
}

static void test_dialect_more_kernel(void **state)
{
    (void)state;
    run_pes(1, dialect_more_body, NULL);
    run_pes(3, dialect_more_body, NULL);
}

static void test_dialect_kernel(void **state)
{
    (void)state;
    run_pes(1, dialect_body, NULL);
    run_pes(2, dialect_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialect_kernel),
        cmocka_unit_test(test_dialect_more_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
