/*
 * atomic_fence_flag.cu: a flag between two blocks with CUDA's plain atomics and
 * __threadfence(), as CUDA code before libcu++ writes it (the "last block" and "lock"
 * idioms): block 1 writes a payload, __threadfence(), then raises the flag with
 * atomicExch; block 0 spins with atomicCAS(flag, 1, 1) until it reads 1, __threadfence(),
 * reads the payload and sends its sum to the next PE with nvshmem_longlong_p. CUDA's plain
 * atomics are relaxed in the PTX memory model; the fences make the pair synchronize, so the
 * program is correct. (Both blocks must be resident, as on a GPU with enough SMs.)
 *
 * Expect: PE p receives the sum of 0..N-1 plus N * prev.
 * -DBROKEN_NO_WRITER_FENCE: no fence between the payload and the atomicExch.
 * -DBROKEN_NO_READER_FENCE: no fence between the atomicCAS that saw the flag and the read.
 */
#include "common.h"

#define N 512

__global__ void handoff(int *payload, int *flag, long long *received)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    if (blockIdx.x == 1) {
        for (int i = threadIdx.x; i < N; i += blockDim.x)
            payload[i] = i + mype; /* RACY WRITE (with a BROKEN_ define) */
        __syncthreads();
        if (threadIdx.x == 0) {
#ifndef BROKEN_NO_WRITER_FENCE
            __threadfence();
#endif
            atomicExch(flag, 1);
        }
    } else if (threadIdx.x == 0) {
        while (atomicCAS(flag, 1, 1) != 1)
            ;
#ifndef BROKEN_NO_READER_FENCE
        __threadfence();
#endif
        long long sum = 0;
        for (int i = 0; i < N; i++)
            sum += payload[i]; /* RACY READ (with a BROKEN_ define) */
        nvshmem_longlong_p(received, sum, (mype + 1) % npes);
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *payload, *flag;
    CUDA_CHECK(cudaMalloc(&payload, N * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&flag, sizeof(int)));
    CUDA_CHECK(cudaMemset(flag, 0, sizeof(int)));
    long long *received = (long long *)nvshmem_calloc(1, sizeof(long long));

    handoff<<<2, 128, 0, stream>>>(payload, flag, received);
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);
    long long got = 0;
    CUDA_CHECK(cudaMemcpyAsync(&got, received, sizeof(got), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int prev = (mype - 1 + npes) % npes;
    long long want = (long long)N * (N - 1) / 2 + (long long)N * prev;
    CORPUS_RESULT("atomic_fence_flag", got != want);

    nvshmem_free(received);
    CUDA_CHECK(cudaFree(flag));
    CUDA_CHECK(cudaFree(payload));
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
