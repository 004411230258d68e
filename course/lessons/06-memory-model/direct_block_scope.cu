/*
 * direct_block_scope.cu (lesson 6, broken twin of direct.cu): the release is made at block
 * scope. A block-scope release orders the stores only for threads of the same block; the
 * next PE's block is not one of them, so its reads of the inbox race with the stores.
 * Data read by another PE needs a system-scope release (thread_scope_system, or
 * __threadfence_system() before the flag store).
 */
#include <cuda/atomic>

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <cstdio>

#define N 256

__global__ void exchange(int *inbox, int *flag, int *errors)
{
    int me = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (me + 1) % npes, prev = (me - 1 + npes) % npes;
    int *peer_inbox = (int *)nvshmem_ptr(inbox, next);
    int *peer_flag = (int *)nvshmem_ptr(flag, next);

    for (int i = threadIdx.x; i < N; i += blockDim.x)
        peer_inbox[i] = me * 1000 + i; /* direct store into the next PE's memory */
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_block> f(*peer_flag); /* BUG: block scope */
        f.store(1, cuda::memory_order_release); /* publishes the block's stores */
        cuda::atomic_ref<int, cuda::thread_scope_system> mine(*flag);
        while (mine.load(cuda::memory_order_acquire) != 1)
            ;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        if (inbox[i] != prev * 1000 + i) /* read after the acquire */
            atomicAdd(errors, 1);
}

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();
    cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE));

    int *inbox = (int *)nvshmem_calloc(N, sizeof(int));
    int *flag = (int *)nvshmem_calloc(1, sizeof(int));
    int *errors;
    cudaMalloc(&errors, sizeof(int));
    cudaMemset(errors, 0, sizeof(int));
    nvshmem_barrier_all(); /* every PE's inbox and flag are zero before anyone stores */

    exchange<<<1, 64>>>(inbox, flag, errors);
    cudaDeviceSynchronize();
    int host_errors = -1;
    cudaMemcpy(&host_errors, errors, sizeof(int), cudaMemcpyDeviceToHost);
    if (host_errors == 0)
        printf("direct_block_scope: PE %d ok\n", me);
    else
        printf("direct_block_scope: PE %d FAIL: %d wrong values\n", me, host_errors);

    nvshmem_barrier_all();
    cudaFree(errors);
    nvshmem_free(flag);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return host_errors != 0;
}
