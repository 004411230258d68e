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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
