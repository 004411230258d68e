/*
 * staged.cu (lesson 6): the same message as direct.cu, sent by the library instead of by
 * direct stores. The block packs the message into a local staging buffer, then all its
 * threads call nvshmemx_putmem_signal_block together (a _block operation: every thread of
 * the block must call it with the same arguments): the data and, after it, a SET of the
 * next PE's signal word. This works where nvshmem_ptr returns NULL (another node). On the
 * receiving side thread 0 waits for the signal; __syncthreads and a __threadfence by every
 * reader pass its acquire on to the block's threads (docs/checking.md says why the fence).
 *
 * Expect: every PE prints "staged: PE p ok".
 */
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <cstdint>
#include <cstdio>

#define N 256

__global__ void exchange(int *inbox, int *staging, uint64_t *ready, int *errors)
{
    int me = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (me + 1) % npes, prev = (me - 1 + npes) % npes;

    for (int i = threadIdx.x; i < N; i += blockDim.x)
        staging[i] = me * 1000 + i; /* pack */
    __syncthreads();                 /* the whole buffer is packed before the put reads it */
    nvshmemx_putmem_signal_block(inbox, staging, N * sizeof(int), ready, 1,
                                 NVSHMEM_SIGNAL_SET, next);
    if (threadIdx.x == 0)
        nvshmem_signal_wait_until(ready, NVSHMEM_CMP_EQ, 1);
    __syncthreads();
    __threadfence();
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        if (inbox[i] != prev * 1000 + i)
            atomicAdd(errors, 1);
}

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();
    cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE));

    int *inbox = (int *)nvshmem_calloc(N, sizeof(int));
    uint64_t *ready = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    int *staging, *errors;
    cudaMalloc(&staging, N * sizeof(int));
    cudaMalloc(&errors, sizeof(int));
    cudaMemset(errors, 0, sizeof(int));
    nvshmem_barrier_all();

    exchange<<<1, 64>>>(inbox, staging, ready, errors);
    cudaDeviceSynchronize();
    int host_errors = -1;
    cudaMemcpy(&host_errors, errors, sizeof(int), cudaMemcpyDeviceToHost);
    if (host_errors == 0)
        printf("staged: PE %d ok\n", me);
    else
        printf("staged: PE %d FAIL: %d wrong values\n", me, host_errors);

    nvshmem_barrier_all();
    cudaFree(errors);
    cudaFree(staging);
    nvshmem_free(ready);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return host_errors != 0;
}
