/* shmemu-lab: release-acquire
 * Block 1 publishes a payload with a flag; block 0 waits for the flag and sends the sum. */
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define N 512

__global__ void handoff(int *payload, int *flag, long long *received)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    if (blockIdx.x == 1) {
        for (int i = threadIdx.x; i < N; i += blockDim.x)
            payload[i] = i + mype;
        __syncthreads();
        if (threadIdx.x == 0)
            f.store(1, cuda::memory_order_release); /* the payload before the flag */
    } else if (threadIdx.x == 0) {
        while (f.load(cuda::memory_order_acquire) != 1) /* the flag before the reads */
            ;
        long long sum = 0;
        for (int i = 0; i < N; i++)
            sum += payload[i];
        nvshmem_longlong_p(received, sum, (mype + 1) % npes);
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE));
    cudaStream_t stream;
    cudaStreamCreate(&stream);

    int *payload, *flag;
    cudaMalloc(&payload, N * sizeof(int));
    cudaMalloc(&flag, sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    long long *received = (long long *)nvshmem_calloc(1, sizeof(long long));

    /* both blocks must be resident at once: block 0 spins on what block 1 does */
    handoff<<<2, 64, 0, stream>>>(payload, flag, received);
    nvshmemx_barrier_all_on_stream(stream);
    long long got = 0;
    cudaMemcpyAsync(&got, received, sizeof(got), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    printf("PE %d: received %lld\n", mype, got);

    nvshmem_free(received);
    cudaFree(flag);
    cudaFree(payload);
    cudaStreamDestroy(stream);
    nvshmem_finalize();
    return 0;
}
