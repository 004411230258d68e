/*
 * ring_bcast.cu: a ring broadcast with put-with-signal. PE 0 holds the message; every other PE
 * waits on its signal word, then forwards the message to the next PE with
 * nvshmem_int_put_signal_nbi, the last PE stopping the ring. One thread per PE talks; the block
 * copies the message out after __syncthreads.
 *
 * Expect: every PE holds the root's message, out[i] = 7 * i + 3.
 * -DBROKEN_COMPARE: the wait compares with NVSHMEM_CMP_GE 0 (always true: a compare
 * mistake), so a PE forwards and reads the message before it has arrived.
 */
#include "common.h"

#define N 2048
#define ROOT 0

#ifdef BROKEN_COMPARE
#define ARRIVED_CMP NVSHMEM_CMP_GE
#define ARRIVED_VALUE 0
#else
#define ARRIVED_CMP NVSHMEM_CMP_EQ
#define ARRIVED_VALUE 1
#endif

__global__ void ring_bcast(int *data, uint64_t *signal, int *out, int n)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (mype + 1) % npes;

    if (threadIdx.x == 0) {
        if (mype != ROOT)
            nvshmem_signal_wait_until(signal, ARRIVED_CMP, ARRIVED_VALUE);
        if (next != ROOT)
            nvshmem_int_put_signal_nbi(data, data, n, signal, 1, NVSHMEM_SIGNAL_SET, next);
        nvshmem_quiet();
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[i] = data[i];
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *data = (int *)nvshmem_malloc(N * sizeof(int));
    uint64_t *signal = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    int *out;
    CUDA_CHECK(cudaMalloc(&out, N * sizeof(int)));
    int *host = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        host[i] = mype == ROOT ? 7 * i + 3 : -1;
    CUDA_CHECK(cudaMemcpy(data, host, N * sizeof(int), cudaMemcpyHostToDevice));
    nvshmem_barrier_all();

    ring_bcast<<<1, 256, 0, stream>>>(data, signal, out, N);
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);
    CUDA_CHECK(cudaMemcpyAsync(host, out, N * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int errors = 0;
    for (int i = 0; i < N; i++)
        if (host[i] != 7 * i + 3)
            errors++;
    CORPUS_RESULT("ring_bcast", errors);

    free(host);
    CUDA_CHECK(cudaFree(out));
    nvshmem_free(signal);
    nvshmem_free(data);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
