/*
 * test_emu_streams.c: streams, events, priorities, NVSHMEM's stream calls and timing
 * records in the emulator.
 *
 *   - kernels of one stream run in order (the second reads what the first wrote);
 *   - kernels of two streams run at once (the first waits for a flag the second sets);
 *   - an event recorded on one stream orders a kernel on another (cudaStreamWaitEvent);
 *   - with one SM, the blocks of a high-priority stream start before those of a
 *     low-priority stream queued earlier (asserted on the recorded admission order);
 *   - nvshmemx_*_on_stream calls run in stream order;
 *   - timing records become a Chrome trace file, written atomically;
 *   - a cooperative launch larger than the SM limit is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "shmemu/internal/pgas_emu.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

typedef struct {
    int *buf;
    int n;
    int add;
} step_args;

/* buf[i] = buf[i] * 2 + add: the order of two launches shows in the result */
KERNEL(step_kernel, step_args, a)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < a.n)
        a.buf[i] = a.buf[i] * 2 + a.add;
}

typedef struct {
    uint32_t *flag;
    int set;           /* 1: set the flag; 0: wait for it */
    uint32_t *started; /* if not NULL: set when the kernel runs */
} flag_args;

KERNEL(flag_kernel, flag_args, a)
{
    if (threadIdx.x != 0)
        return;
    if (a.started != NULL)
        st_release(a.started, 1u, SCOPE_SYS);
    if (a.set)
        st_release(a.flag, 1u, SCOPE_GPU);
    else
        while (ld_acquire(a.flag, SCOPE_GPU) == 0u) {
        }
}

/* ---- order within a stream, concurrency between streams, events ------------------------ */

static int order_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    const int n = 100;
    int *buf = NULL;
    cudaMalloc((void **)&buf, (size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        buf[i] = i;
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    /* in order on one stream: (i*2+1)*2+3 */
    step_args a1 = {buf, n, 1}, a2 = {buf, n, 3};
    LAUNCH(step_kernel, DIM3(4, 1, 1), DIM3(32, 1, 1), 0, s1, a1);
    LAUNCH(step_kernel, DIM3(4, 1, 1), DIM3(32, 1, 1), 0, s1, a2);
    cudaStreamSynchronize(s1);
    for (int i = 0; i < n; i++)
        PE_CHECK_EQ_I64(buf[i], (i * 2 + 1) * 2 + 3);

    /* concurrent: the waiter is queued first on s1, the setter on s2 */
    uint32_t *flag = NULL;
    cudaMalloc((void **)&flag, sizeof *flag);
    flag_args wait = {flag, 0, NULL}, set = {flag, 1, NULL};
    LAUNCH(flag_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, s1, wait);
    LAUNCH(flag_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, s2, set);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_U64(*flag, 1);

    /* events: s2's kernel runs after s1's, through the event */
    cudaEvent_t start, done;
    cudaEventCreate(&start);
    cudaEventCreate(&done);
    for (int i = 0; i < n; i++)
        buf[i] = i;
    cudaEventRecord(start, s1);
    step_args b1 = {buf, n, 5}, b2 = {buf, n, 7};
    LAUNCH(step_kernel, DIM3(4, 1, 1), DIM3(32, 1, 1), 0, s1, b1);
    cudaEventRecord(done, s1);
    cudaStreamWaitEvent(s2, done, 0);
    LAUNCH(step_kernel, DIM3(4, 1, 1), DIM3(32, 1, 1), 0, s2, b2);
    cudaStreamSynchronize(s2);
    for (int i = 0; i < n; i++)
        PE_CHECK_EQ_I64(buf[i], (i * 2 + 5) * 2 + 7);
    PE_CHECK(cudaEventSynchronize(done) == cudaSuccess);
    PE_CHECK(cudaEventQuery(done) == cudaSuccess);
    float ms = -1.0f;
    PE_CHECK(cudaEventElapsedTime(&ms, start, done) == cudaSuccess);
    PE_CHECK(ms >= 0.0f);
    PE_CHECK(cudaStreamQuery(s2) == cudaSuccess);
    cudaEventDestroy(start);
    cudaEventDestroy(done);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFree(flag);
    cudaFree(buf);
    nvshmem_finalize();
    return 0;
}

static void test_stream_order_and_events(void **state)
{
    (void)state;
    run_pes(1, order_body, NULL);
    run_pes(2, order_body, NULL);
}

/* ---- priorities with one SM -------------------------------------------------------------- */

typedef struct {
    int *unused;
} empty_args;

KERNEL(empty_kernel, empty_args, a) { (void)a; }

static int priority_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int least = 0, greatest = 0;
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    PE_CHECK(greatest < least);
    cudaStream_t gate_s, low, high;
    cudaStreamCreate(&gate_s);
    cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least);
    cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest);
    emu_set_sm_limit(1);
    emu_set_timing(true);
    uint32_t *gate = NULL;
    cudaMalloc((void **)&gate, 2 * sizeof *gate);
    /* the gate kernel holds the only SM until the host opens it */
    flag_args g = {gate, 0, gate + 1};
    LAUNCH(flag_kernel, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, gate_s, g);
    pgas_wait_value(gate + 1, PGAS_KIND_U32, NVSHMEM_CMP_EQ, 1, PGAS_ACQUIRE, "gate started");
    empty_args e = {NULL};
    LAUNCH(empty_kernel, DIM3(4, 1, 1), DIM3(8, 1, 1), 0, low, e);
    LAUNCH(empty_kernel, DIM3(4, 1, 1), DIM3(8, 1, 1), 0, high, e);
    emu_wait_blocks_waiting_for_sm(8); /* both kernels queue for the SM */
    PE_CHECK_EQ_I64(emu_blocks_waiting_for_sm(), 8);
    st_release(gate, 1u, SCOPE_SYS);
    cudaDeviceSynchronize();
    emu_block_record rec[16];
    size_t n = emu_block_records(rec, 16);
    PE_CHECK_EQ_U64(n, 9);
    if (n == 9) {
        PE_CHECK_EQ_I64(rec[0].launch, 1); /* the gate */
        for (int i = 1; i <= 4; i++) {
            PE_CHECK_MSG(rec[i].priority == greatest && rec[i].launch == 3,
                         "block %d admitted was launch %u (priority %d), expected the "
                         "high-priority launch 3", i, rec[i].launch, rec[i].priority);
            PE_CHECK_EQ_I64(rec[i].sm, 0);
        }
        for (int i = 5; i <= 8; i++)
            PE_CHECK_EQ_I64(rec[i].launch, 2);
        for (int i = 1; i < 9; i++)
            PE_CHECK(rec[i].start_ns >= rec[i - 1].end_ns); /* one SM: one block at a time */
    }
    /* a cooperative launch needs every block resident */
    LAUNCH_COOP(empty_kernel, DIM3(2, 1, 1), DIM3(1, 1, 1), 0, NULL, e);
    PE_CHECK(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    emu_set_sm_limit(0);
    cudaStreamDestroy(gate_s);
    cudaStreamDestroy(low);
    cudaStreamDestroy(high);
    cudaFree(gate);
    nvshmem_finalize();
    return 0;
}

static void test_priorities_with_one_sm(void **state)
{
    (void)state;
    static char err[8192];
    run_pes_capture(1, priority_body, NULL, err, sizeof err);
    assert_contains(err, "a cooperative launch of 2 blocks cannot be resident at once with 1 SMs");
    run_pes_capture(2, priority_body, NULL, err, sizeof err);
}

/* ---- NVSHMEM stream calls --------------------------------------------------------------- */

typedef struct {
    int *inbox;
    int *out;
    int n;
} read_args;

KERNEL(read_inbox, read_args, a)
{
    int i = (int)threadIdx.x;
    if (i < a.n)
        a.out[i] = a.inbox[i] + 1;
}

static int on_stream_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    enum { N = 32 };
    int *inbox = nvshmem_calloc(N, sizeof(int));
    int *ring = nvshmem_calloc(1, sizeof(int));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int *src = NULL, *out = NULL;
    cudaMalloc((void **)&src, N * sizeof(int));
    cudaMalloc((void **)&out, N * sizeof(int));
    for (int i = 0; i < N; i++)
        src[i] = me * 1000 + i;
    cudaStream_t s;
    cudaStreamCreate(&s);
    nvshmemx_barrier_all_on_stream(s);
    nvshmemx_putmem_signal_on_stream(inbox, src, N * sizeof(int), sig, 1, NVSHMEM_SIGNAL_SET,
                                     next, s);
    nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, 1, s);
    read_args a = {inbox, out, N};
    LAUNCH(read_inbox, DIM3(1, 1, 1), DIM3(N, 1, 1), 0, s, a);
    nvshmemx_int_p_on_stream(ring, me + 7, next, s);
    nvshmemx_quiet_on_stream(s);
    nvshmemx_barrier_all_on_stream(s);
    cudaStreamSynchronize(s);
    for (int i = 0; i < N; i++)
        PE_CHECK_EQ_I64(out[i], prev * 1000 + i + 1);
    PE_CHECK_EQ_I64(*ring, prev + 7);
    nvshmem_barrier_all();
    cudaStreamDestroy(s);
    cudaFree(src);
    cudaFree(out);
    nvshmem_free(inbox);
    nvshmem_free(ring);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_nvshmem_on_stream(void **state)
{
    (void)state;
    run_pes(2, on_stream_body, NULL);
    run_pes(3, on_stream_body, NULL);
}

/* ---- timing records as a Chrome trace ------------------------------------------------------ */

static char trace_dir[64];

static int trace_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    emu_set_timing(true);
    cudaStream_t s;
    cudaStreamCreateWithPriority(&s, 0, -2);
    int *buf = NULL;
    cudaMalloc((void **)&buf, 128 * sizeof(int));
    /* two streams may run at once: each kernel gets its own half of the buffer */
    step_args a = {buf, 64, 1}, b = {buf + 64, 64, 1};
    LAUNCH(step_kernel, DIM3(2, 1, 1), DIM3(32, 1, 1), 0, s, a);
    LAUNCH(step_kernel, DIM3(2, 1, 1), DIM3(32, 1, 1), 0, NULL, b);
    cudaDeviceSynchronize();
    char path[128];
    snprintf(path, sizeof path, "%s/trace.%d.json", trace_dir, me);
    PE_CHECK_EQ_I64(emu_trace_write(path), 0);
    FILE *f = fopen(path, "r");
    PE_CHECK(f != NULL);
    if (f != NULL) {
        static char text[2][65536];
        size_t got = fread(text[me], 1, sizeof text[me] - 1, f);
        text[me][got] = '\0';
        fclose(f);
        char pe_name[32];
        snprintf(pe_name, sizeof pe_name, "\"PE %d\"", me);
        PE_CHECK(strstr(text[me], "\"traceEvents\"") != NULL);
        PE_CHECK(strstr(text[me], pe_name) != NULL);
        PE_CHECK(strstr(text[me], "step_kernel block (1,0,0)") != NULL);
        PE_CHECK(strstr(text[me], "stream 1 (priority -2)") != NULL);
        PE_CHECK(strstr(text[me], "\"stream 0, SM ") != NULL); /* one track per stream and SM */
        PE_CHECK(strstr(text[me], "\"ph\":\"X\"") != NULL);
        PE_CHECK(text[me][got - 2] == '}'); /* complete JSON object */
    }
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", path, (long)getpid(), me);
    PE_CHECK(access(tmp, F_OK) != 0); /* renamed into place */
    unlink(path);
    cudaStreamDestroy(s);
    cudaFree(buf);
    nvshmem_finalize();
    return 0;
}

static void test_trace_file(void **state)
{
    (void)state;
    snprintf(trace_dir, sizeof trace_dir, "/tmp/shmemu-trace-XXXXXX");
    assert_non_null(mkdtemp(trace_dir));
    run_pes(2, trace_body, NULL);
    rmdir(trace_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_order_and_events),
        cmocka_unit_test(test_priorities_with_one_sm),
        cmocka_unit_test(test_nvshmem_on_stream),
        cmocka_unit_test(test_trace_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
