/*
 * test_emu_graph.c: stream capture into CUDA graphs and their replay (emu/src/capture.c,
 * graph.c).
 *
 *   - a capture across two streams (fork with an event, kernels on both, join back) records
 *     and runs nothing; its graph replayed N times gives, each time, what the same work
 *     issued directly gives (a host model), also when a replay goes to another stream;
 *   - the two lanes of a replayed fork still run at once: a kernel of the joined stream
 *     waits for a flag that a kernel captured later on the origin stream sets (a replay that
 *     ran the graph on one stream would hang);
 *   - NVSHMEM's stream calls (put with signal, signal wait, _p, quiet, barrier) captured and
 *     replayed on 2 and 3 PEs;
 *   - cudaGraphExecUpdate takes a new capture's kernel arguments into an exec, and refuses a
 *     changed topology or kernel, leaving the exec as it was;
 *   - an external event record (cudaEventRecordWithFlags) captured is recorded by each replay;
 *   - every error CUDA gives: a second begin, end without capture, on a joined stream, an
 *     unjoined fork, waits on a capturing stream (synchronize, query), forbidden synchronous
 *     calls by capture mode (device synchronize, cudaMemcpy: unsupported or implicit), a wait
 *     on an uncaptured event, a merge of two captures, a captured event's query, a
 *     destroyed capturing stream, NULL handles; an invalidated capture ends with
 *     cudaErrorStreamCaptureInvalidated and a NULL graph, and its streams work again.
 * Under helgrind (make check-helgrind, or valgrind --tool=helgrind on this suite) the suite
 * must be clean: replay must not drop an edge the host's reads need.
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

enum { N = 64 };

typedef struct {
    int *buf;
    int mul, add;
} affine_args;

/* buf[i] = buf[i] * mul + add */
KERNEL(affine_kernel, affine_args, a)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < N)
        a.buf[i] = a.buf[i] * a.mul + a.add;
}

typedef struct {
    int *dst;
    const int *src;
} accumulate_args;

/* dst[i] += src[i] */
KERNEL(accumulate_kernel, accumulate_args, a)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < N)
        a.dst[i] += a.src[i];
}

static void launch_affine(int *buf, int mul, int add, cudaStream_t s)
{
    affine_args a = {buf, mul, add};
    LAUNCH(affine_kernel, DIM3(2, 1, 1), DIM3(32, 1, 1), 0, s, a);
}

static void launch_accumulate(int *dst, const int *src, cudaStream_t s)
{
    accumulate_args a = {dst, src};
    LAUNCH(accumulate_kernel, DIM3(2, 1, 1), DIM3(32, 1, 1), 0, s, a);
}

/* ---- fork/join capture, replayed ------------------------------------------------------ */

static int fork_join_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    int *a = NULL, *b = NULL, *c = NULL;
    cudaMalloc((void **)&a, N * sizeof(int));
    cudaMalloc((void **)&b, N * sizeof(int));
    cudaMalloc((void **)&c, N * sizeof(int));
    int ma[N], mb[N], mc[N]; /* the host model */
    for (int i = 0; i < N; i++) {
        a[i] = ma[i] = i + me;
        b[i] = mb[i] = 2 * i;
        c[i] = mc[i] = 100 - i;
    }
    cudaStream_t s1, s2, s3;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking);
    cudaEvent_t fork, joined;
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&joined, cudaEventDisableTiming);

    cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
    PE_CHECK(cudaStreamIsCapturing(s1, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone);
    PE_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
    PE_CHECK(cudaStreamIsCapturing(s1, &st) == cudaSuccess && st == cudaStreamCaptureStatusActive);
    PE_CHECK(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone);
    launch_affine(a, 2, 1, s1);                          /* a = 2a + 1 */
    PE_CHECK(cudaEventRecord(fork, s1) == cudaSuccess);
    PE_CHECK(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess); /* s2 joins the capture */
    PE_CHECK(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusActive);
    unsigned long long id1 = 0, id2 = 0;
    cudaGraph_t during = NULL;
    PE_CHECK(cudaStreamGetCaptureInfo(s1, &st, &id1, &during, NULL, NULL) == cudaSuccess);
    PE_CHECK(cudaStreamGetCaptureInfo(s2, &st, &id2, NULL, NULL, NULL) == cudaSuccess);
    PE_CHECK(id1 != 0 && id1 == id2 && during != NULL);
    launch_accumulate(b, a, s2);                         /* b += a, after the fork */
    launch_affine(c, 3, -1, s1);                         /* c = 3c - 1, beside it */
    PE_CHECK(cudaEventRecord(joined, s2) == cudaSuccess);
    PE_CHECK(cudaStreamWaitEvent(s1, joined, 0) == cudaSuccess); /* join */
    launch_accumulate(c, b, s1);                         /* c += b, after the join */
    cudaGraph_t graph = NULL;
    PE_CHECK(cudaStreamEndCapture(s1, &graph) == cudaSuccess && graph != NULL);
    PE_CHECK(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone);
    /* nothing ran while capturing */
    cudaDeviceSynchronize();
    for (int i = 0; i < N; i++)
        PE_CHECK(a[i] == ma[i] && b[i] == mb[i] && c[i] == mc[i]);

    cudaGraphExec_t exec = NULL;
    PE_CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess && exec != NULL);
    PE_CHECK(cudaGraphDestroy(graph) == cudaSuccess); /* the exec keeps what it needs */
    const int replays = 4;
    for (int r = 0; r < replays; r++) {
        /* the last two replays are queued back to back, the last on another stream: it
         * still runs after the previous launch of the exec */
        cudaStream_t on = r == replays - 1 ? s3 : s1;
        PE_CHECK(cudaGraphLaunch(exec, on) == cudaSuccess);
        for (int i = 0; i < N; i++) {
            ma[i] = 2 * ma[i] + 1;
            mb[i] += ma[i];
            mc[i] = 3 * mc[i] - 1 + mb[i];
        }
        if (r == replays - 2)
            continue;
        PE_CHECK(cudaStreamSynchronize(on) == cudaSuccess);
        for (int i = 0; i < N; i++) {
            PE_CHECK_MSG(a[i] == ma[i] && b[i] == mb[i] && c[i] == mc[i],
                         "replay %d, element %d: a %d b %d c %d, expected %d %d %d", r, i, a[i],
                         b[i], c[i], ma[i], mb[i], mc[i]);
            if (a[i] != ma[i] || b[i] != mb[i] || c[i] != mc[i])
                break;
        }
    }
    PE_CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    cudaEventDestroy(fork);
    cudaEventDestroy(joined);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaStreamDestroy(s3);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    nvshmem_finalize();
    return 0;
}

static void test_fork_join_replay(void **state)
{
    (void)state;
    run_pes(1, fork_join_body, NULL);
    run_pes(2, fork_join_body, NULL);
}

/* ---- the lanes of a replay run at once ---------------------------------------------------- */

typedef struct {
    uint32_t *flag;
    int set; /* 1: set it; 0: wait for it */
} flag_args;

KERNEL(flag_kernel, flag_args, a)
{
    if (threadIdx.x != 0)
        return;
    if (a.set)
        st_release(a.flag, 1u, SCOPE_GPU);
    else
        while (ld_acquire(a.flag, SCOPE_GPU) == 0u) {
        }
}

static int lanes_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint32_t *flag = NULL;
    cudaMalloc((void **)&flag, sizeof *flag);
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEvent_t fork, joined;
    cudaEventCreate(&fork);
    cudaEventCreate(&joined);
    PE_CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(s2, fork, 0);
    flag_args wait = {flag, 0}, set = {flag, 1};
    /* the waiter is captured first, on the joined stream; the setter after it, on the origin */
    LAUNCH(flag_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, s2, wait);
    LAUNCH(flag_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, s1, set);
    cudaEventRecord(joined, s2);
    cudaStreamWaitEvent(s1, joined, 0);
    cudaGraph_t graph = NULL;
    PE_CHECK(cudaStreamEndCapture(s1, &graph) == cudaSuccess);
    cudaGraphExec_t exec = NULL;
    PE_CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0) == cudaSuccess);
    for (int r = 0; r < 2; r++) {
        *flag = 0;
        PE_CHECK(cudaGraphLaunch(exec, s1) == cudaSuccess);
        PE_CHECK(cudaStreamSynchronize(s1) == cudaSuccess);
        PE_CHECK_EQ_U64(*flag, 1);
    }
    PE_CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    /* a second exec of the same graph (on the first one's lane stream, kept by the PE) */
    PE_CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    *flag = 0;
    PE_CHECK(cudaGraphLaunch(exec, s2) == cudaSuccess);
    PE_CHECK(cudaStreamSynchronize(s2) == cudaSuccess);
    PE_CHECK_EQ_U64(*flag, 1);
    PE_CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    PE_CHECK(cudaGraphDestroy(graph) == cudaSuccess);
    PE_CHECK(cudaGraphInstantiate(&exec, NULL, 0) == cudaErrorInvalidValue);
    cudaEventDestroy(fork);
    cudaEventDestroy(joined);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFree(flag);
    nvshmem_finalize();
    return 0;
}

static void test_replayed_lanes_run_at_once(void **state)
{
    (void)state;
    static char err[4096];
    run_pes_capture(1, lanes_body, NULL, err, sizeof err);
    assert_contains(err, "pGraphExec or graph is NULL");
}

/* ---- NVSHMEM stream calls, captured and replayed ----------------------------------------- */

typedef struct {
    const int *inbox;
    int *out;
} read_args;

KERNEL(read_inbox, read_args, a)
{
    int i = (int)threadIdx.x;
    if (i < N)
        a.out[i] = a.inbox[i] + 1;
}

static int on_stream_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    int *inbox = nvshmem_calloc(N, sizeof(int));
    int *ring = nvshmem_calloc(1, sizeof(int));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int *src = NULL, *out = NULL;
    cudaMalloc((void **)&src, N * sizeof(int));
    cudaMalloc((void **)&out, N * sizeof(int));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    PE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    nvshmemx_putmem_signal_on_stream(inbox, src, N * sizeof(int), sig, 1, NVSHMEM_SIGNAL_SET,
                                     next, s);
    nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, 1, s);
    read_args ra = {inbox, out};
    LAUNCH(read_inbox, DIM3(1, 1, 1), DIM3(N, 1, 1), 0, s, ra);
    nvshmemx_int_p_on_stream(ring, me + 7, next, s); /* the value as captured */
    nvshmemx_quiet_on_stream(s);
    nvshmemx_barrier_all_on_stream(s);
    cudaGraph_t graph = NULL;
    PE_CHECK(cudaStreamEndCapture(s, &graph) == cudaSuccess);
    cudaGraphExec_t exec = NULL;
    PE_CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    PE_CHECK_EQ_I64(*ring, 0); /* nothing ran while capturing */
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < N; i++) /* sources are read when the replayed put runs */
            src[i] = me * 1000 + i + 10 * r;
        *sig = 0;
        *ring = 0;
        nvshmem_barrier_all(); /* every PE's reset before any PE's put */
        PE_CHECK(cudaGraphLaunch(exec, s) == cudaSuccess);
        PE_CHECK(cudaStreamSynchronize(s) == cudaSuccess);
        for (int i = 0; i < N; i++)
            if (!PE_CHECK_MSG(out[i] == prev * 1000 + i + 10 * r + 1,
                              "replay %d: out[%d] = %d, expected %d", r, i, out[i],
                              prev * 1000 + i + 10 * r + 1))
                break;
        PE_CHECK_EQ_I64(*ring, prev + 7);
    }
    PE_CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    PE_CHECK(cudaGraphDestroy(graph) == cudaSuccess);
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

static void test_nvshmem_on_stream_replay(void **state)
{
    (void)state;
    run_pes(2, on_stream_body, NULL);
    run_pes(3, on_stream_body, NULL);
}

/* ---- cudaGraphExecUpdate ------------------------------------------------------------------ */

/* A capture on s of buf = buf * mul + add, then (if twice) once more; or of buf += buf. */
static cudaGraph_t capture_step(cudaStream_t s, int *buf, int mul, int add, int shape)
{
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    if (shape == 2)
        launch_accumulate(buf, buf, s);
    else
        launch_affine(buf, mul, add, s);
    if (shape == 1)
        launch_affine(buf, mul, add, s);
    cudaGraph_t g = NULL;
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess);
    return g;
}

static int update_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *buf = NULL;
    cudaMalloc((void **)&buf, N * sizeof(int));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaGraphExec_t x = NULL;
    cudaGraph_t g = capture_step(s, buf, 2, 0, 0);
    PE_CHECK(cudaGraphInstantiate(&x, g, 0) == cudaSuccess);
    cudaGraphDestroy(g);
    for (int i = 0; i < N; i++)
        buf[i] = i;
    int expect[N];
    for (int i = 0; i < N; i++)
        expect[i] = i;
    cudaGraphExecUpdateResultInfo info;
    for (int r = 1; r <= 3; r++) { /* each step's graph differs in a kernel argument only */
        g = capture_step(s, buf, 2, r, 0);
        PE_CHECK(cudaGraphExecUpdate(x, g, &info) == cudaSuccess &&
                 info.result == cudaGraphExecUpdateSuccess);
        cudaGraphDestroy(g); /* the exec keeps the graph it took */
        PE_CHECK(cudaGraphLaunch(x, s) == cudaSuccess);
        for (int i = 0; i < N; i++)
            expect[i] = expect[i] * 2 + r;
    }
    /* refused: another topology, another kernel; the exec keeps the last update */
    g = capture_step(s, buf, 2, 9, 1);
    PE_CHECK(cudaGraphExecUpdate(x, g, &info) == cudaErrorGraphExecUpdateFailure &&
             info.result == cudaGraphExecUpdateErrorTopologyChanged);
    cudaGraphDestroy(g);
    g = capture_step(s, buf, 2, 9, 2);
    PE_CHECK(cudaGraphExecUpdate(x, g, &info) == cudaErrorGraphExecUpdateFailure &&
             info.result == cudaGraphExecUpdateErrorFunctionChanged);
    cudaGraphDestroy(g);
    PE_CHECK(cudaGraphExecUpdate(x, NULL, &info) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    PE_CHECK(cudaGraphLaunch(x, s) == cudaSuccess);
    for (int i = 0; i < N; i++)
        expect[i] = expect[i] * 2 + 3;
    PE_CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    for (int i = 0; i < N; i++)
        if (!PE_CHECK_MSG(buf[i] == expect[i], "buf[%d] = %d, expected %d", i, buf[i],
                          expect[i]))
            break;
    PE_CHECK(cudaGraphExecDestroy(x) == cudaSuccess);
    cudaStreamDestroy(s);
    cudaFree(buf);
    nvshmem_finalize();
    return 0;
}

static void test_exec_update(void **state)
{
    (void)state;
    static char err[4096];
    run_pes_capture(1, update_body, NULL, err, sizeof err);
    assert_contains(err, "hGraphExec, hGraph or resultInfo is NULL");
}

/* ---- an external event record is a node: each replay records it ---------------------------- */

static int external_event_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *first = NULL, *second = NULL;
    cudaMalloc((void **)&first, N * sizeof(int));
    cudaMalloc((void **)&second, N * sizeof(int));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEvent_t start, mid;
    cudaEventCreate(&start);
    cudaEventCreate(&mid);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    launch_affine(first, 1, 1, s);
    PE_CHECK(cudaEventRecordWithFlags(mid, s, cudaEventRecordExternal) == cudaSuccess);
    launch_affine(second, 1, 1, s);
    cudaGraph_t g = NULL;
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess);
    cudaGraphExec_t x = NULL;
    PE_CHECK(cudaGraphInstantiate(&x, g, 0) == cudaSuccess);
    PE_CHECK(cudaEventQuery(mid) == cudaSuccess); /* not recorded by the capture */
    for (int r = 1; r <= 3; r++) {
        cudaEventRecord(start, s);
        PE_CHECK(cudaGraphLaunch(x, s) == cudaSuccess);
        /* this replay's record of mid: after the first kernel, not the second */
        PE_CHECK(cudaEventSynchronize(mid) == cudaSuccess);
        PE_CHECK_EQ_I64(first[N - 1], r);
        float ms = -1.0f;
        PE_CHECK(cudaEventElapsedTime(&ms, start, mid) == cudaSuccess && ms >= 0.0f);
        PE_CHECK(cudaStreamSynchronize(s) == cudaSuccess);
        PE_CHECK_EQ_I64(second[0], r);
    }
    PE_CHECK(cudaEventRecordWithFlags(mid, s, 4) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaEventDestroy(start);
    cudaEventDestroy(mid);
    cudaStreamDestroy(s);
    cudaFree(first);
    cudaFree(second);
    nvshmem_finalize();
    return 0;
}

static void test_external_event_record(void **state)
{
    (void)state;
    run_pes(1, external_event_body, NULL);
}

/* ---- errors ------------------------------------------------------------------------------- */

/* Ends s's capture, which must have been invalidated; then s works again. */
static void end_invalidated(cudaStream_t s, int *buf)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    PE_CHECK(cudaStreamIsCapturing(s, &st) == cudaSuccess &&
             st == cudaStreamCaptureStatusInvalidated);
    affine_args a = {buf, 1, 1};
    PE_CHECK(emu_launch(&affine_kernel_emu_kernel_, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, s, &a,
                        sizeof a, false) == cudaErrorStreamCaptureInvalidated);
    cudaGraph_t g = (cudaGraph_t)&st; /* not NULL: EndCapture must clear it */
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    PE_CHECK(g == NULL);
    PE_CHECK(cudaGetLastError() == cudaErrorStreamCaptureInvalidated);
    PE_CHECK(cudaStreamIsCapturing(s, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone);
    int before = buf[0];
    launch_affine(buf, 1, 1, s);
    PE_CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    PE_CHECK_EQ_I64(buf[0], before + 1);
}

static int errors_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *buf = NULL, host[N];
    cudaMalloc((void **)&buf, N * sizeof(int));
    cudaStream_t s, s2, blocking;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaStreamCreate(&blocking);
    cudaEvent_t ev, outside;
    cudaEventCreate(&ev);
    cudaEventCreate(&outside);
    cudaGraph_t g = NULL;

    /* begin, end: misuse */
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaErrorIllegalState);
    PE_CHECK(cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7) == cudaErrorInvalidValue);
    PE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    PE_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
    PE_CHECK(cudaStreamEndCapture(s, NULL) == cudaErrorInvalidValue);
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess && g != NULL); /* empty graph */
    PE_CHECK(cudaGraphDestroy(g) == cudaSuccess);

    /* waits for a capturing stream */
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    PE_CHECK(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported);
    end_invalidated(s, buf);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    PE_CHECK(cudaStreamQuery(s) == cudaErrorStreamCaptureUnsupported);
    end_invalidated(s, buf);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    PE_CHECK(cudaStreamDestroy(s) == cudaErrorStreamCaptureUnsupported);
    end_invalidated(s, buf);

    /* synchronous calls, by capture mode */
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    PE_CHECK(cudaDeviceSynchronize() == cudaErrorStreamCaptureUnsupported);
    end_invalidated(s, buf);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    PE_CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost) ==
             cudaErrorStreamCaptureUnsupported);
    end_invalidated(s, buf);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed); /* allowed: the capture stays */
    launch_affine(buf, 1, 2, s);
    PE_CHECK(cudaDeviceSynchronize() == cudaSuccess);
    PE_CHECK(cudaMemcpy(host, buf, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    PE_CHECK(cudaMemset(buf, 0, 0) == cudaSuccess);
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess && g != NULL);
    PE_CHECK(cudaGraphDestroy(g) == cudaSuccess);
    cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed); /* a blocking stream */
    PE_CHECK(cudaMemset(buf, 0, 4) == cudaErrorStreamCaptureImplicit);
    PE_CHECK(cudaDeviceSynchronize() == cudaSuccess); /* not the legacy stream: relaxed */
    end_invalidated(blocking, buf);

    /* events */
    cudaEventRecord(outside, s2);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    PE_CHECK(cudaStreamWaitEvent(s, outside, 0) == cudaErrorStreamCaptureIsolation);
    end_invalidated(s, buf);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ev, s);
    PE_CHECK(cudaEventQuery(ev) == cudaErrorCapturedEvent);
    end_invalidated(s, buf);
    PE_CHECK(cudaEventQuery(ev) == cudaSuccess); /* an ordinary event once the capture ended */
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    cudaStreamBeginCapture(s2, cudaStreamCaptureModeRelaxed);
    cudaEventRecord(ev, s);
    PE_CHECK(cudaStreamWaitEvent(s2, ev, 0) == cudaErrorStreamCaptureMerge);
    end_invalidated(s2, buf);
    end_invalidated(s, buf);

    /* forks */
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ev, s);
    cudaStreamWaitEvent(s2, ev, 0);
    launch_affine(buf, 1, 3, s2); /* never joined back */
    PE_CHECK(cudaStreamEndCapture(s2, &g) == cudaErrorStreamCaptureUnmatched);
    end_invalidated(s, buf);
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
    PE_CHECK(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaEventRecord(ev, s);
    cudaStreamWaitEvent(s2, ev, 0);
    launch_affine(buf, 1, 3, s2);
    g = (cudaGraph_t)&st;
    PE_CHECK(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureUnjoined && g == NULL);
    PE_CHECK(cudaStreamIsCapturing(s2, &st) == cudaSuccess && st == cudaStreamCaptureStatusNone);
    PE_CHECK(cudaStreamGetCaptureInfo(s, &st, NULL, NULL, NULL, (size_t *)&g) ==
             cudaErrorNotSupported);

    /* NULL handles */
    cudaGraphExec_t x = NULL;
    PE_CHECK(cudaGraphLaunch(NULL, s) == cudaErrorInvalidValue);
    PE_CHECK(cudaGraphInstantiate(&x, NULL, 0) == cudaErrorInvalidValue);
    PE_CHECK(cudaGraphExecDestroy(NULL) == cudaErrorInvalidValue);
    PE_CHECK(cudaGraphDestroy(NULL) == cudaErrorInvalidValue);
    PE_CHECK(cudaStreamIsCapturing(s, NULL) == cudaErrorInvalidValue);
    PE_CHECK(strcmp(cudaGetErrorString(cudaErrorStreamCaptureUnjoined),
                    "capturing stream has unjoined work") == 0);
    (void)cudaGetLastError();

    cudaEventDestroy(ev);
    cudaEventDestroy(outside);
    cudaStreamDestroy(s);
    cudaStreamDestroy(s2);
    cudaStreamDestroy(blocking);
    cudaFree(buf);
    nvshmem_finalize();
    return 0;
}

static void test_capture_errors(void **state)
{
    (void)state;
    static char err[32768];
    run_pes_capture(1, errors_body, NULL, err, sizeof err);
    assert_contains(err, "cudaStreamEndCapture: stream 1 is not capturing");
    assert_contains(err, "cudaStreamSynchronize: the stream is capturing");
    assert_contains(err, "cudaMemset: a stream created without cudaStreamNonBlocking");
    assert_contains(err, "cudaStreamWaitEvent: a capturing stream waits on an event recorded "
                         "outside the capture");
    assert_contains(err, "cudaStreamEndCapture: stream 2 joined the capture");
    assert_contains(err, "cudaErrorStreamCaptureInvalidated");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_join_replay),
        cmocka_unit_test(test_replayed_lanes_run_at_once),
        cmocka_unit_test(test_nvshmem_on_stream_replay),
        cmocka_unit_test(test_exec_update),
        cmocka_unit_test(test_external_event_record),
        cmocka_unit_test(test_capture_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
