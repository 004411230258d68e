/*
 * group_coll.cu: thread-group forms. Each warp sends its 32 values to the next PE with
 * nvshmemx_int_put_warp; the block then calls nvshmemx_barrier_all_block (every thread of
 * the block, one barrier across the PEs), after which each warp sums what arrived with
 * __shfl_down_sync.
 *
 * Expect: warp w's sum is the sum of the previous PE's values of warp w.
 * -DBROKEN_WARP_BARRIER: the barrier is called as nvshmemx_barrier_all_warp by warp 0 only,
 * and the other warps read without waiting for it (a missing wait in the other warps).
 */
#include "common.h"

#define THREADS 256
#define WARPS (THREADS / 32)

__global__ void warp_shift(int *recv, int *send, int *sums)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    send[threadIdx.x] = mype * 1000 + threadIdx.x;
    __syncwarp();
    nvshmemx_int_put_warp(recv + warp * 32, send + warp * 32, 32, (mype + 1) % npes);
#ifdef BROKEN_WARP_BARRIER
    if (warp == 0)
        nvshmemx_barrier_all_warp();
#else
    nvshmemx_barrier_all_block();
#endif
    int v = recv[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0)
        sums[warp] = v;
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *send = (int *)nvshmem_malloc(THREADS * sizeof(int));
    int *recv = (int *)nvshmem_malloc(THREADS * sizeof(int));
    int *sums;
    CUDA_CHECK(cudaMalloc(&sums, WARPS * sizeof(int)));

    warp_shift<<<1, THREADS, 0, stream>>>(recv, send, sums);
    CUDA_CHECK(cudaGetLastError());
    int host[WARPS];
    CUDA_CHECK(cudaMemcpyAsync(host, sums, sizeof(host), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int prev = (mype - 1 + npes) % npes, errors = 0;
    for (int w = 0; w < WARPS; w++) {
        int want = 0;
        for (int l = 0; l < 32; l++)
            want += prev * 1000 + w * 32 + l;
        errors += host[w] != want;
    }
    CORPUS_RESULT("group_coll", errors);

    nvshmem_barrier_all();
    CUDA_CHECK(cudaFree(sums));
    nvshmem_free(recv);
    nvshmem_free(send);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
