/*
 * test_emu_dialect.c: runs the one-source kernels of tests/emu_dialect_kernels.c (which also
 * compile with nvcc -x cu) in the emulator and checks their results with the checks that
 * the GPU run uses too (tests/emu_dialect_host.h).
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

#define DIALECT_CHECK(cond, ...) PE_CHECK_MSG(cond, __VA_ARGS__)
#include "emu_dialect_host.h"

static int dialect_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *mem = NULL;
    cudaMalloc((void **)&mem, DIALECT_BUF_BYTES);
    dialect_args a;
    dialect_layout(mem, &a);
    dialect_init(&a);
    dialect_launch(a, DIALECT_BLOCKS, DIALECT_THREADS, NULL);
    PE_CHECK(cudaGetLastError() == cudaSuccess);
    cudaDeviceSynchronize();
    dialect_check(&a);
    cudaFree(mem);
    nvshmem_finalize();
    return 0;
}

static int dialect_more_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *mem = NULL;
    cudaMalloc((void **)&mem, DIALECT_BUF_BYTES);
    dialect_more_args a;
    dialect_more_layout(mem, &a);
    dialect_more_init(&a);
    dialect_more_launch(a, DIALECT_MORE_BLOCKS, NULL);
    PE_CHECK(cudaGetLastError() == cudaSuccess);
    cudaDeviceSynchronize();
    dialect_more_check(&a);
    cudaFree(mem);
    nvshmem_finalize();
    return 0;
}

static int dialect_timer_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *mem = NULL;
    cudaMalloc((void **)&mem, DIALECT_BUF_BYTES);
    dialect_timer_args a;
    dialect_timer_layout(mem, &a);
    dialect_timer_init(&a);
    dialect_timer_launch(a, DIALECT_TIMER_BLOCKS, DIALECT_TIMER_THREADS, NULL);
    PE_CHECK(cudaGetLastError() == cudaSuccess);
    cudaDeviceSynchronize();
    dialect_timer_check(&a);
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

static void test_dialect_more_kernel(void **state)
{
    (void)state;
    run_pes(1, dialect_more_body, NULL);
    run_pes(3, dialect_more_body, NULL);
}

/* globaltimer(): non-decreasing within a thread, across a grid barrier, across launches. */
static void test_dialect_globaltimer(void **state)
{
    (void)state;
    run_pes(1, dialect_timer_body, NULL);
    run_pes(2, dialect_timer_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialect_kernel),
        cmocka_unit_test(test_dialect_more_kernel),
        cmocka_unit_test(test_dialect_globaltimer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
