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

/* A PE body that runs one kernel of emu_dialect_kernels.c: lay its buffer out, initialize it,
 * launch (the kernel's own launch arguments, then the stream), check. */
#define DIALECT_BODY(NAME, ...)                                                               \
    static int NAME##_body(void *arg)                                                         \
    {                                                                                         \
        (void)arg;                                                                            \
        nvshmem_init();                                                                       \
        char *mem = NULL;                                                                     \
        cudaMalloc((void **)&mem, DIALECT_BUF_BYTES);                                         \
        NAME##_args a;                                                                        \
        NAME##_layout(mem, &a);                                                               \
        NAME##_init(&a);                                                                      \
        NAME##_launch(a, __VA_ARGS__, NULL);                                                  \
        PE_CHECK(cudaGetLastError() == cudaSuccess);                                          \
        cudaDeviceSynchronize();                                                              \
        NAME##_check(&a);                                                                     \
        cudaFree(mem);                                                                        \
        nvshmem_finalize();                                                                   \
        return 0;                                                                             \
    }

DIALECT_BODY(dialect, DIALECT_BLOCKS, DIALECT_THREADS)
DIALECT_BODY(dialect_more, DIALECT_MORE_BLOCKS)
DIALECT_BODY(dialect_timer, DIALECT_TIMER_BLOCKS, DIALECT_TIMER_THREADS)

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
