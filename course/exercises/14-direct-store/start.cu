/* shmemu-lab: direct-store
 * Two rounds of data to the next PE; the next PE sums each round after its signal. */
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define N 64
#define ROUNDS 2

__global__ void exchange(int *inbox, int *mine, uint64_t *ready, long long *sums)
{
    int mype = nvshmem_my_pe();
    int next = (mype + 1) % nvshmem_n_pes();
    if (threadIdx.x != 0)
        return;
    int *theirs = (int *)nvshmem_ptr(inbox, next); /* NULL if not reachable by stores */
    if (theirs == NULL)
        return;
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            theirs[i] = 1000 * mype * r + i + (r - 1) * 1000;
        __threadfence_system(); /* the stores before the signal */
        nvshmemx_signal_op(ready, (uint64_t)r, NVSHMEM_SIGNAL_SET, next);

        nvshmem_signal_wait_until(ready, NVSHMEM_CMP_GE, (uint64_t)r);
        long long s = 0;
        for (int i = 0; i < N; i++)
            s += inbox[i];
        sums[r - 1] = s;
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int *inbox = (int *)nvshmem_malloc(N * sizeof(int));
    int *mine = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int));
    uint64_t *ready = (uint64_t *)nvshmem_calloc(ROUNDS, sizeof(uint64_t));
    long long *sums;
    cudaMalloc(&sums, ROUNDS * sizeof(long long));
    nvshmem_barrier_all(); /* every PE's signals are 0 before anyone signals */

    exchange<<<1, 32>>>(inbox, mine, ready, sums);
    cudaDeviceSynchronize();
    long long host[ROUNDS];
    cudaMemcpy(host, sums, sizeof(host), cudaMemcpyDeviceToHost);
    printf("PE %d: from PE %d round 1 sum %lld round 2 sum %lld\n", mype, (mype - 1 + npes) % npes,
           host[0], host[1]);

    nvshmem_barrier_all(); /* nobody frees a buffer another PE still writes */
    cudaFree(sums);
    nvshmem_free(ready);
    nvshmem_free(mine);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return 0;
}
