/*
 * test_cuda_graph.cpp: stream capture and graphs through the layer (emu/src/graph.c does the
 * work; the layer adds cudaMemcpyAsync and cudaMemsetAsync, captured as one-thread kernels,
 * <<<>>> launches, CUDA's C++ default arguments, and its cudaMemcpy, which waits for the PE's
 * streams and must first refuse as CUDA does during a capture).
 *
 *   - a capture of copy in, memset, a fork with a kernel on each stream, a join, a kernel and
 *     a copy out, replayed 4 times with a new host source each time (a replayed copy reads
 *     its source when it runs), checked each time;
 *   - cudaMemcpy during a global capture: cudaErrorStreamCaptureUnsupported; during a relaxed
 *     capture of a blocking stream: cudaErrorStreamCaptureImplicit; both invalidate the
 *     capture; cudaFreeAsync on a capturing stream is refused (a replay would free again);
 *     error names and strings.
 */
#include <cstring>

#include "cuda_test.h"

enum { N = 64 };

void scale_kernel(int *v, int k)
{
    v[threadIdx.x] *= k;
}
REGISTER(scale_kernel);

void add_kernel(int *dst, const int *src)
{
    dst[threadIdx.x] += src[threadIdx.x];
}
REGISTER(add_kernel);

static int replay_body(void *)
{
    nvshmem_init();
    int *a = nullptr, *b = nullptr, *src = nullptr, *out = nullptr;
    PE_CHECK_EQ_I64(cudaMalloc(&a, N * sizeof(int)), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMalloc(&b, N * sizeof(int)), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMallocHost(&src, N * sizeof(int)), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMallocHost(&out, N * sizeof(int)), cudaSuccess);
    std::memset(out, 0xff, N * sizeof(int));
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEvent_t fork, join;
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);

    PE_CHECK_EQ_I64(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(a, src, N * sizeof(int), cudaMemcpyHostToDevice, s1),
                    cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemsetAsync(b, 1, N * sizeof(int), s1), cudaSuccess); /* 0x01010101 */
    PE_CHECK_EQ_I64(cudaEventRecord(fork, s1), cudaSuccess);
    PE_CHECK_EQ_I64(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
    PE_CHECK_EQ_I64(LAUNCH_K(scale_kernel, (1, N, 0, s2), a, 3), cudaSuccess); /* a = 3 src */
    PE_CHECK_EQ_I64(LAUNCH_K(scale_kernel, (1, N, 0, s1), b, 2), cudaSuccess); /* beside it */
    PE_CHECK_EQ_I64(cudaEventRecord(join, s2), cudaSuccess);
    PE_CHECK_EQ_I64(cudaStreamWaitEvent(s1, join, 0), cudaSuccess);
    PE_CHECK_EQ_I64(LAUNCH_K(add_kernel, (1, N, 0, s1), b, a), cudaSuccess); /* b += 3 src */
    PE_CHECK_EQ_I64(cudaMemcpyAsync(out, b, N * sizeof(int), cudaMemcpyDeviceToHost, s1),
                    cudaSuccess);
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    PE_CHECK_EQ_I64(cudaStreamGetCaptureInfo(s2, &st, &id), cudaSuccess); /* C++ defaults */
    PE_CHECK(st == cudaStreamCaptureStatusActive && id != 0);
    cudaGraph_t graph = nullptr;
    PE_CHECK_EQ_I64(cudaStreamEndCapture(s1, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    PE_CHECK_EQ_I64(cudaGraphInstantiate(&exec, graph), cudaSuccess); /* flags default to 0 */
    PE_CHECK_EQ_I64(cudaGraphUpload(exec, s1), cudaSuccess);
    PE_CHECK_EQ_I64(out[0], -1); /* nothing ran while capturing */
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < N; i++)
            src[i] = i * 10 + r;
        PE_CHECK_EQ_I64(cudaGraphLaunch(exec, s1), cudaSuccess);
        PE_CHECK_EQ_I64(cudaStreamSynchronize(s1), cudaSuccess);
        for (int i = 0; i < N; i++)
            if (!PE_CHECK_MSG(out[i] == 2 * 0x01010101 + 3 * (i * 10 + r),
                              "replay %d: out[%d] = %d", r, i, out[i]))
                break;
    }
    PE_CHECK_EQ_I64(cudaGraphExecDestroy(exec), cudaSuccess);
    PE_CHECK_EQ_I64(cudaGraphDestroy(graph), cudaSuccess);
    cudaEventDestroy(fork);
    cudaEventDestroy(join);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFreeHost(src);
    cudaFreeHost(out);
    cudaFree(a);
    cudaFree(b);
    nvshmem_finalize();
    return 0;
}

static void test_capture_copies_and_kernels(void **)
{
    run_pes(1, replay_body, nullptr);
    run_pes(2, replay_body, nullptr);
}

static int sync_copy_body(void *)
{
    nvshmem_init();
    int *d = nullptr, h[N] = {0};
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t nonblocking, blocking;
    cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);
    cudaStreamCreate(&blocking);
    cudaGraph_t g = nullptr;

    PE_CHECK_EQ_I64(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeGlobal), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost),
                    cudaErrorStreamCaptureUnsupported);
    PE_CHECK_EQ_I64(cudaStreamEndCapture(nonblocking, &g), cudaErrorStreamCaptureInvalidated);
    PE_CHECK(g == nullptr);

    PE_CHECK_EQ_I64(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost),
                    cudaErrorStreamCaptureImplicit);
    PE_CHECK_EQ_I64(cudaStreamEndCapture(blocking, &g), cudaErrorStreamCaptureInvalidated);

    PE_CHECK_EQ_I64(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemset(d, 0, sizeof h), cudaSuccess); /* relaxed, non-blocking: allowed */
    PE_CHECK_EQ_I64(cudaFreeAsync(d, nonblocking), cudaErrorStreamCaptureUnsupported);
    PE_CHECK_EQ_I64(cudaStreamEndCapture(nonblocking, &g), cudaSuccess);
    PE_CHECK_EQ_I64(cudaGraphDestroy(g), cudaSuccess);

    PE_CHECK(std::strcmp(cudaGetErrorName(cudaErrorStreamCaptureImplicit),
                         "cudaErrorStreamCaptureImplicit") == 0);
    PE_CHECK(std::strcmp(cudaGetErrorString(cudaErrorStreamCaptureInvalidated),
                         "operation failed due to a previous error during capture") == 0);
    (void)cudaGetLastError();
    cudaStreamDestroy(nonblocking);
    cudaStreamDestroy(blocking);
    cudaFree(d);
    nvshmem_finalize();
    return 0;
}

static void test_sync_copy_during_capture(void **)
{
    static char err[8192];
    run_pes_capture(1, sync_copy_body, nullptr, err, sizeof err);
    assert_contains(err, "cudaMemcpy: a synchronous call while a capture forbids it");
    assert_contains(err, "cudaMemcpy: a stream created without cudaStreamNonBlocking");
    assert_contains(err, "cudaFreeAsync: freeing in a stream capture");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_copies_and_kernels),
        cmocka_unit_test(test_sync_copy_during_capture),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
