/*
 * test_strict_device.c: strict mode for device-only NVSHMEM calls (SHMEMU_STRICT_DEVICE,
 * pgas/src/device_only.c).
 *
 *   - off (a C program's default): a PE's host thread may call nvshmem_signal_wait_until,
 *     put-with-signal, wait_until and test (shmemu's CPU API);
 *   - on (SHMEMU_STRICT_DEVICE=1, or shmemu_strict_device_default(1) as a .cu program's
 *     cuda_runtime.h does): each of those calls from a host thread ends the program with a
 *     message naming the call; SHMEMU_STRICT_DEVICE=0 overrides the default;
 *   - on, the same calls stay allowed where NVSHMEM has them: in a kernel, on a stream's
 *     thread (nvshmemx_signal_wait_until_on_stream), and on a PE that called shmem_init
 *     (OpenSHMEM's host calls).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmem.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* Every device-only family once, on this PE's own words (all satisfied at once). */
static int host_calls_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int *x = nvshmem_calloc(2, sizeof(int));
    nvshmem_int_put_signal(x, x + 1, 1, sig, 1, NVSHMEM_SIGNAL_SET, me);
    PE_CHECK_EQ_U64(nvshmem_signal_fetch(sig), 1);
    PE_CHECK_EQ_U64(nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1), 1);
    nvshmem_int_wait_until(x, NVSHMEM_CMP_EQ, 0);
    PE_CHECK(nvshmem_int_test(x, NVSHMEM_CMP_EQ, 0));
    nvshmem_free(x);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_off_by_default(void **state)
{
    (void)state;
    unsetenv("SHMEMU_STRICT_DEVICE");
    run_pes(2, host_calls_body, NULL);
    setenv("SHMEMU_STRICT_DEVICE", "0", 1);
    shmemu_strict_device_default(1);
    run_pes(2, host_calls_body, NULL); /* the variable overrides the default */
    shmemu_strict_device_default(0);
    unsetenv("SHMEMU_STRICT_DEVICE");
}

/* ---- on: host calls are flagged ------------------------------------------------------- */

static void wait_until_on_host(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *x = nvshmem_calloc(1, sizeof(int));
    nvshmem_int_wait_until(x, NVSHMEM_CMP_EQ, 0);
}

static void test_on_host(void *arg)
{
    (void)arg;
    nvshmem_init();
    long *x = nvshmem_calloc(1, sizeof(long));
    (void)nvshmem_long_test(x, NVSHMEM_CMP_EQ, 0);
}

static void put_signal_on_host(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    char *buf = nvshmem_calloc(8, 1);
    nvshmem_putmem_signal_nbi(buf, buf + 4, 4, sig, 1, NVSHMEM_SIGNAL_ADD, 0);
}

static void signal_wait_on_host(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    (void)nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 0);
}

static void signal_fetch_on_host(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    (void)nvshmem_signal_fetch(sig);
}

static void test_on_flags_host_calls(void **state)
{
    (void)state;
    setenv("SHMEMU_STRICT_DEVICE", "1", 1);
    expect_child_failure(wait_until_on_host, NULL, 2,
                         "nvshmem_int_wait_until: a device-only NVSHMEM call");
    expect_child_failure(test_on_host, NULL, 1, "nvshmem_long_test: a device-only NVSHMEM call");
    expect_child_failure(put_signal_on_host, NULL, 2,
                         "nvshmem_putmem_signal_nbi: a device-only NVSHMEM call");
    expect_child_failure(signal_wait_on_host, NULL, 1,
                         "nvshmem_signal_wait_until: a device-only NVSHMEM call");
    unsetenv("SHMEMU_STRICT_DEVICE");
    /* the default a .cu program sets turns it on without the variable */
    shmemu_strict_device_default(1);
    expect_child_failure(signal_fetch_on_host, NULL, 1,
                         "nvshmem_signal_fetch: a device-only NVSHMEM call (NVSHMEM declares it "
                         "__device__");
    shmemu_strict_device_default(0);
}

/* ---- on: where NVSHMEM has the calls, they stay allowed --------------------------------- */

typedef struct {
    uint64_t *sig;
    int *x;
    int next;
} ring_args;

KERNEL(device_calls_kernel, ring_args, a)
{
    if (threadIdx.x != 0)
        return;
    nvshmem_int_put_signal(a.x, a.x + 1, 1, a.sig, 1, NVSHMEM_SIGNAL_ADD, a.next);
    nvshmem_signal_wait_until(a.sig, NVSHMEM_CMP_GE, 1);
    /* x[1] is only ever read (x[0] is what the puts write) */
    nvshmem_int_wait_until(a.x + 1, NVSHMEM_CMP_EQ, 0);
    (void)nvshmem_int_test(a.x + 1, NVSHMEM_CMP_EQ, 0);
}

static int allowed_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    uint64_t *sig = nvshmem_calloc(2, sizeof(uint64_t));
    int *x = nvshmem_calloc(2, sizeof(int));
    ring_args a = {sig, x, (me + 1) % n};
    LAUNCH(device_calls_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    cudaStream_t s;
    cudaStreamCreate(&s);
    nvshmemx_putmem_signal_on_stream(x, x + 1, sizeof(int), &sig[1], 1, NVSHMEM_SIGNAL_SET,
                                     (me + 1) % n, s);
    nvshmemx_signal_wait_until_on_stream(&sig[1], NVSHMEM_CMP_EQ, 1, s);
    nvshmemx_int_wait_until_on_stream(x + 1, NVSHMEM_CMP_EQ, 0, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    PE_CHECK_EQ_U64(sig[0], 1);
    PE_CHECK_EQ_U64(sig[1], 1);
    nvshmem_barrier_all();
    nvshmem_free(x);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static int openshmem_body(void *arg)
{
    (void)arg;
    shmem_init();
    int *x = shmem_calloc(1, sizeof(int));
    shmem_int_wait_until(x, SHMEM_CMP_EQ, 0);
    PE_CHECK(shmem_int_test(x, SHMEM_CMP_EQ, 0));
    shmem_free(x);
    shmem_finalize();
    return 0;
}

static void test_on_allows_device_and_openshmem(void **state)
{
    (void)state;
    setenv("SHMEMU_STRICT_DEVICE", "1", 1);
    run_pes(2, allowed_body, NULL);
    run_pes(2, openshmem_body, NULL);
    unsetenv("SHMEMU_STRICT_DEVICE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_on_flags_host_calls),
        cmocka_unit_test(test_on_allows_device_and_openshmem),
    };
    return cmocka_run_group_tests_name("strict_device", tests, NULL, NULL);
}
