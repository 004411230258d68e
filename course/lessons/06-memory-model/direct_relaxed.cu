/*
 * direct_relaxed.cu (lesson 6, broken twin of direct.cu): thread 0 stores the next PE's
 * flag relaxed. A relaxed store orders nothing before it: the block's direct stores into
 * the inbox are not published, so the receiver's reads race with them, although it saw
 * the flag with an acquire. (On x86 this would happen to work; on a GPU it does not have
 * to, and shmemu reports it on any machine.)
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
        cuda::atomic_ref<int, cuda::thread_scope_system> f(*peer_flag);
        f.store(1, cuda::memory_order_relaxed); /* BUG: relaxed, not release */
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
        printf("direct_relaxed: PE %d ok\n", me);
    else
        printf("direct_relaxed: PE %d FAIL: %d wrong values\n", me, host_errors);

    nvshmem_barrier_all();
    cudaFree(errors);
    nvshmem_free(flag);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return host_errors != 0;
}
