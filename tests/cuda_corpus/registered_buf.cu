/*
 * registered_buf.cu: a user buffer (cudaMalloc, not the symmetric heap) registered with
 * nvshmemx_buffer_register and used as the source of puts from a kernel. The host stages the
 * data into it with cudaMemcpyAsync on a copy stream; the kernel's stream waits on an event.
 *
 * Expect: PE p's symmetric dst holds 10 * prev + i.
 * -DBROKEN_NO_EVENT_WAIT: the kernel's stream does not wait for the staging copy (the
 * cudaStreamWaitEvent is missing), so the put may send the buffer before it is filled.
 */
#include "common.h"

#define N 2048

__global__ void send_registered(int *dst, const int *staged, int n, int peer)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        nvshmem_int_put(dst, staged, n, peer);
        nvshmem_quiet();
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream, copy_stream;
    cudaEvent_t staged_ev;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&staged_ev, cudaEventDisableTiming));

    int *dst = (int *)nvshmem_malloc(N * sizeof(int));
    int *staged;
    CUDA_CHECK(cudaMalloc(&staged, N * sizeof(int)));
    NVSHMEM_CHECK(nvshmemx_buffer_register(staged, N * sizeof(int)));

    int *host;
    CUDA_CHECK(cudaMallocHost(&host, N * sizeof(int)));
    for (int i = 0; i < N; i++)
        host[i] = 10 * mype + i;
    CUDA_CHECK(cudaMemcpyAsync(staged, host, N * sizeof(int), cudaMemcpyHostToDevice, copy_stream));
    CUDA_CHECK(cudaEventRecord(staged_ev, copy_stream));
#ifndef BROKEN_NO_EVENT_WAIT
    CUDA_CHECK(cudaStreamWaitEvent(stream, staged_ev, 0));
#endif
    send_registered<<<1, 32, 0, stream>>>(dst, staged, N, (mype + 1) % npes);
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);
    CUDA_CHECK(cudaStreamSynchronize(copy_stream));
    CUDA_CHECK(cudaMemcpyAsync(host, dst, N * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int prev = (mype - 1 + npes) % npes, errors = 0;
    for (int i = 0; i < N; i++)
        errors += host[i] != 10 * prev + i;
    CORPUS_RESULT("registered_buf", errors);

    NVSHMEM_CHECK(nvshmemx_buffer_unregister(staged));
    CUDA_CHECK(cudaFree(staged));
    CUDA_CHECK(cudaFreeHost(host));
    nvshmem_free(dst);
    CUDA_CHECK(cudaEventDestroy(staged_ev));
    CUDA_CHECK(cudaStreamDestroy(copy_stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
