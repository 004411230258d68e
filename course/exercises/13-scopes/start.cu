/* shmemu-lab: scopes
 * Block 1 builds a table and publishes it; block 0 waits for it and copies it out. */
#include <cstdio>
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <nvshmem.h>

#define N 64

typedef cuda::atomic_ref<int, cuda::thread_scope_block> flag_ref;

__global__ void build_table(int *table, int *flag, int *out)
{
    flag_ref f(*flag);
    if (blockIdx.x == 1) {
        for (int i = threadIdx.x; i < N; i += blockDim.x)
            table[i] = 2 * i + 2 * nvshmem_my_pe() + 1;
        __syncthreads();
        if (threadIdx.x == 0)
            f.store(1, cuda::memory_order_release);
    } else {
        if (threadIdx.x == 0)
            while (f.load(cuda::memory_order_acquire) != 1)
                ;
        __syncthreads();
        __threadfence_block(); /* the acquire of thread 0, for every thread of the block */
        for (int i = threadIdx.x; i < N; i += blockDim.x)
            out[i] = table[i];
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int *table, *flag, *out;
    cudaMalloc(&table, N * sizeof(int));
    cudaMalloc(&flag, sizeof(int));
    cudaMalloc(&out, N * sizeof(int));
    cudaMemset(flag, 0, sizeof(int));

    build_table<<<2, 32>>>(table, flag, out); /* both blocks resident: block 0 spins */
    int host[N];
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
    long sum = 0;
    for (int i = 0; i < N; i++)
        sum += host[i];
    printf("PE %d: table checksum %ld\n", mype, sum);

    cudaFree(out);
    cudaFree(flag);
    cudaFree(table);
    nvshmem_finalize();
    return 0;
}
