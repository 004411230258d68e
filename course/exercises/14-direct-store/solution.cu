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
    for (int r = 1; r <= ROUNDS; r++) {
        int *stage = mine + (r - 1) * N; /* this round's staging slot, here and there */
        for (int i = 0; i < N; i++)
            stage[i] = 1000 * mype * r + i + (r - 1) * 1000;
        /* the data, then the signal, into the next PE's slot for round r */
        nvshmem_int_put_signal(inbox + (r - 1) * N, stage, N, &ready[r - 1], 1,
                               NVSHMEM_SIGNAL_SET, next);

        nvshmem_signal_wait_until(&ready[r - 1], NVSHMEM_CMP_EQ, 1);
        long long s = 0;
        for (int i = 0; i < N; i++)
            s += inbox[(r - 1) * N + i];
        sums[r - 1] = s;
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int *inbox = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int)); /* a slot per round */
    int *mine = (int *)nvshmem_malloc(ROUNDS * N * sizeof(int)); /* staging, a slot per round */
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

    nvshmem_quiet();       /* the puts have read the staging slots */
    nvshmem_barrier_all(); /* nobody frees a buffer another PE still writes */
    cudaFree(sums);
    nvshmem_free(ready);
    nvshmem_free(mine);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return 0;
}
