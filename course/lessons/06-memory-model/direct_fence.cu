/*
 * direct_fence.cu (lesson 6): direct.cu written as CUDA code before libcu++ writes it: plain
 * (relaxed) system-scope atomics for the flag, and __threadfence_system() on each side. A
 * fence followed by a relaxed store is a release; a relaxed load followed by a fence is an
 * acquire (at the smaller of the fence's and the atomic's scopes: here system). Without
 * either fence the program has the race of direct_relaxed.cu.
 *
 * Expect: every PE prints "direct_fence: PE p ok".
 */
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
        __threadfence_system();         /* the block's stores, then ... */
        atomicExch_system(peer_flag, 1); /* ... the flag: together a system-scope release */
        while (atomicCAS_system(flag, 1, 1) != 1) /* a relaxed poll ... */
            ;
        __threadfence_system(); /* ... then a fence: together an acquire */
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
        printf("direct_fence: PE %d ok\n", me);
    else
        printf("direct_fence: PE %d FAIL: %d wrong values\n", me, host_errors);

    nvshmem_barrier_all();
    cudaFree(errors);
    nvshmem_free(flag);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return host_errors != 0;
}
