/*
 * direct.cu (lesson 6): direct stores through nvshmem_ptr, published with a system-scope
 * release. One block per PE: every thread stores its part of a message straight into the
 * next PE's inbox (nvshmem_ptr gives a pointer the GPU can store through: same node,
 * peer-to-peer). __syncthreads makes the block's stores happen before thread 0's release;
 * thread 0's release store of the next PE's flag, at system scope, publishes them. On the
 * receiving side thread 0 waits with an acquire load of its own flag, then __syncthreads
 * passes that on to the block's other threads, which read the inbox.
 *
 * Expect: every PE prints "direct: PE p ok" (the inbox holds prev*1000 + i).
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
        printf("direct: PE %d ok\n", me);
    else
        printf("direct: PE %d FAIL: %d wrong values\n", me, host_errors);

    nvshmem_barrier_all();
    cudaFree(errors);
    nvshmem_free(flag);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return host_errors != 0;
}
