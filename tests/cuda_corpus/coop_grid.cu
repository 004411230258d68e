/*
 * coop_grid.cu: a cooperative kernel launched with nvshmemx_collective_launch (the launch
 * NVSHMEM requires for kernels that synchronize across PEs). Every block sends its slice to
 * the next PE; the grid synchronizes (cooperative_groups::this_grid().sync()); one thread
 * runs nvshmem_barrier_all(); the grid synchronizes again; then every block reduces what
 * arrived.
 *
 * Expect: total = sum over the slices of the previous PE's values.
 * -DBROKEN_NO_GRID_SYNC: the grid sync after the device barrier is missing, so blocks other
 * than block 0 read the received buffer before the barrier has completed the puts.
 */
#include <cooperative_groups.h>

#include "common.h"

namespace cg = cooperative_groups;

#define BLOCKS 8
#define THREADS 128

__global__ void exchange_and_reduce(int *send, int *recv, unsigned long long *total)
{
    cg::grid_group grid = cg::this_grid();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    send[i] = mype * 1000 + i;
    __syncthreads();
    nvshmemx_int_put_nbi_block(recv + blockIdx.x * blockDim.x, send + blockIdx.x * blockDim.x,
                               blockDim.x, (mype + 1) % npes);
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        nvshmem_barrier_all(); /* completes every block's puts, on every PE */
#ifndef BROKEN_NO_GRID_SYNC
    grid.sync();
#endif
    atomicAdd(total, (unsigned long long)recv[i]);
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *send = (int *)nvshmem_malloc(BLOCKS * THREADS * sizeof(int));
    int *recv = (int *)nvshmem_malloc(BLOCKS * THREADS * sizeof(int));
    unsigned long long *total;
    CUDA_CHECK(cudaMalloc(&total, sizeof(*total)));
    CUDA_CHECK(cudaMemset(total, 0, sizeof(*total)));

    int grid_max = 0;
    void *args[] = {&send, &recv, &total};
    NVSHMEM_CHECK(nvshmemx_collective_launch_query_gridsize((const void *)exchange_and_reduce,
                                                            THREADS, args, 0, &grid_max));
    if (grid_max < BLOCKS) {
        fprintf(stderr, "coop_grid: %d blocks cannot be co-resident (at most %d)\n", BLOCKS,
                grid_max);
        return 1;
    }
    NVSHMEM_CHECK(nvshmemx_collective_launch((const void *)exchange_and_reduce, BLOCKS, THREADS,
                                             args, 0, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    unsigned long long got = 0, want = 0;
    CUDA_CHECK(cudaMemcpy(&got, total, sizeof(got), cudaMemcpyDeviceToHost));
    int prev = (mype - 1 + npes) % npes;
    for (int i = 0; i < BLOCKS * THREADS; i++)
        want += (unsigned long long)(prev * 1000 + i);
    CORPUS_RESULT("coop_grid", got != want);

    nvshmem_barrier_all();
    CUDA_CHECK(cudaFree(total));
    nvshmem_free(recv);
    nvshmem_free(send);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
