/*
 * atomic_flag.cu: a flag between two blocks of one kernel with cuda::atomic_ref (libcu++).
 * Block 1 writes a payload and publishes it with a release store of a device-scope flag;
 * block 0 spins on an acquire load of the flag, then reads the payload and sends its sum to
 * the next PE with nvshmem_longlong_p. (Block 0 spins on what block 1 does: both must be
 * resident, as on a GPU with enough SMs.)
 *
 * Expect: PE p receives the sum of 0..N-1 plus N * prev.
 * -DBROKEN_RELAXED: the store and the load are memory_order_relaxed: the payload is not
 * ordered before the flag (helgrind and TSan report the payload's read against its write).
 */
#include <cuda/atomic>

#include "common.h"

#define N 512

#ifdef BROKEN_RELAXED
#define PUBLISH cuda::memory_order_relaxed
#define OBSERVE cuda::memory_order_relaxed
#else
#define PUBLISH cuda::memory_order_release
#define OBSERVE cuda::memory_order_acquire
#endif

__global__ void handoff(int *payload, int *flag, long long *received)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    if (blockIdx.x == 1) {
        for (int i = threadIdx.x; i < N; i += blockDim.x)
            payload[i] = i + mype; /* RACY WRITE (with -DBROKEN_RELAXED) */
        __syncthreads();
        if (threadIdx.x == 0) {
            cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
            f.store(1, PUBLISH);
        }
    } else if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
        while (f.load(OBSERVE) != 1)
            ;
        long long sum = 0;
        for (int i = 0; i < N; i++)
            sum += payload[i]; /* RACY READ (with -DBROKEN_RELAXED) */
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
    CORPUS_RESULT("atomic_flag", got != want);

    nvshmem_free(received);
    CUDA_CHECK(cudaFree(flag));
    CUDA_CHECK(cudaFree(payload));
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
