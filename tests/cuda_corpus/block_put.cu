/*
 * block_put.cu: a block-wide shift. Each block of 1024 threads builds its slice of a buffer
 * and sends it to the next PE with one nvshmemx_int_put_block (every thread of the block
 * calls it); a second kernel on the receiving side checks the slices after the barrier.
 *
 * Expect: no mismatches on any PE (the check kernel counts them into a __device__ counter).
 * -DBROKEN_NO_BARRIER: the check kernel runs without nvshmemx_barrier_all_on_stream after the
 * puts, so it reads slices the previous PE may not have written yet.
 */
#include "common.h"

#define THREADS 1024
#define BLOCKS 4

__device__ int mismatches;

__global__ void shift_block(int *dst, int *src, int mype, int npes)
{
    int *mine = src + blockIdx.x * blockDim.x;
    mine[threadIdx.x] = mype * 100000 + blockIdx.x * blockDim.x + threadIdx.x;
    __syncthreads();
    nvshmemx_int_put_block(dst + blockIdx.x * blockDim.x, mine, blockDim.x, (mype + 1) % npes);
}

__global__ void check(const int *dst, int prev)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (dst[i] != prev * 100000 + i)
        atomicAdd(&mismatches, 1);
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    size_t bytes = BLOCKS * THREADS * sizeof(int);
    int *src = (int *)nvshmem_malloc(bytes);
    int *dst = (int *)nvshmem_malloc(bytes);
    CUDA_CHECK(cudaMemsetAsync(dst, 0xff, bytes, stream));
    nvshmemx_barrier_all_on_stream(stream);

    shift_block<<<BLOCKS, THREADS, 0, stream>>>(dst, src, mype, npes);
    CUDA_CHECK(cudaGetLastError());
#ifndef BROKEN_NO_BARRIER
    nvshmemx_barrier_all_on_stream(stream);
#endif
    check<<<BLOCKS, THREADS, 0, stream>>>(dst, (mype - 1 + npes) % npes);
    CUDA_CHECK(cudaGetLastError());

    int errors = -1;
    CUDA_CHECK(cudaMemcpyFromSymbolAsync(&errors, mismatches, sizeof(int), 0,
                                         cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CORPUS_RESULT("block_put", errors);

    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
