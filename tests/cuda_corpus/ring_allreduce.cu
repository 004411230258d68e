/*
 * ring_allreduce.cu: a ring allreduce (sum) with put-with-signal. In step s (1 .. npes-1) each
 * PE sends the vector it received in step s-1 (its own in step 1) from a send buffer to the
 * next PE's slot for step s with nvshmem_int_put_signal_nbi, waits for its own slot's signal,
 * adds the vector into its sum and copies it into the send buffer for the next step. Thread 0
 * talks; the block adds and copies.
 *
 * Expect: every PE's sum is the sum over PEs q of (q + 1) * (i + 1).
 * -DBROKEN_NO_QUIET: the send buffer is overwritten for step s+1 without nvshmem_quiet after
 * the non-blocking put of step s, whose source may not have been read yet (seen with
 * SHMEMU_CHECK_NBI=1, which delivers non-blocking puts late).
 */
#include "common.h"

#define N 1024
#define MAX_PES 64

__global__ void ring_allreduce(int *sendbuf, int *slots, uint64_t *signals, int *sum, int n)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (mype + 1) % npes;

    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        sendbuf[i] = (mype + 1) * (i + 1);
        sum[i] = sendbuf[i];
    }
    __syncthreads();
    for (int step = 1; step < npes; step++) {
        int *slot = slots + step * n;
        if (threadIdx.x == 0) {
            nvshmem_int_put_signal_nbi(slot, sendbuf, n, &signals[step], 1, NVSHMEM_SIGNAL_SET,
                                       next);
            nvshmem_signal_wait_until(&signals[step], NVSHMEM_CMP_EQ, 1);
#ifndef BROKEN_NO_QUIET
            nvshmem_quiet(); /* the put has read sendbuf: it may be overwritten */
#endif
        }
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            sum[i] += slot[i];
            sendbuf[i] = slot[i];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        nvshmem_quiet();
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "ring_allreduce: at most %d PEs\n", MAX_PES);
        return 1;
    }
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *sendbuf = (int *)nvshmem_malloc(N * sizeof(int));
    int *slots = (int *)nvshmem_malloc((size_t)MAX_PES * N * sizeof(int));
    uint64_t *signals = (uint64_t *)nvshmem_calloc(MAX_PES, sizeof(uint64_t));
    int *sum;
    CUDA_CHECK(cudaMalloc(&sum, N * sizeof(int)));

    ring_allreduce<<<1, 128, 0, stream>>>(sendbuf, slots, signals, sum, N);
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);
    int *host = (int *)malloc(N * sizeof(int));
    CUDA_CHECK(cudaMemcpyAsync(host, sum, N * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int errors = 0, pes_sum = npes * (npes + 1) / 2;
    for (int i = 0; i < N; i++)
        if (host[i] != pes_sum * (i + 1))
            errors++;
    CORPUS_RESULT("ring_allreduce", errors);

    free(host);
    CUDA_CHECK(cudaFree(sum));
    nvshmem_free(signals);
    nvshmem_free(slots);
    nvshmem_free(sendbuf);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
