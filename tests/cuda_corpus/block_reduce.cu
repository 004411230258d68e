/*
 * block_reduce.cu: NVSHMEM's device-side team collectives in their _block form, as a kernel
 * calls them: nvshmemx_int_sum_reduce_block over NVSHMEM_TEAM_WORLD, then
 * nvshmemx_int_broadcast_block from PE 0, and the host-side reduction on a stream
 * (nvshmemx_int_sum_reduce_on_stream).
 *
 * Expect: sum[i] = sum over PEs q of (q + i); bcast[i] = PE 0's sum[i] * 2; host[i] = sum[i].
 * -DBROKEN_EARLY_READ: the block reads the broadcast's destination before the broadcast
 * (a missing wait).
 */
#include "common.h"

#define N 256

__global__ void reduce_then_bcast(int *src, int *sum, int *bcast, int *out)
{
    int mype = nvshmem_my_pe();
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        src[i] = mype + i;
    __syncthreads();
    nvshmemx_int_sum_reduce_block(NVSHMEM_TEAM_WORLD, sum, src, N);
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        src[i] = 2 * sum[i];
    __syncthreads();
#ifdef BROKEN_EARLY_READ
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        out[i] = bcast[i];
#endif
    nvshmemx_int_broadcast_block(NVSHMEM_TEAM_WORLD, bcast, src, N, 0);
#ifndef BROKEN_EARLY_READ
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        out[i] = bcast[i];
#endif
}

int main(void)
{
    nvshmem_init();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *src = (int *)nvshmem_malloc(N * sizeof(int));
    int *sum = (int *)nvshmem_malloc(N * sizeof(int));
    int *bcast = (int *)nvshmem_malloc(N * sizeof(int));
    int *hsum = (int *)nvshmem_malloc(N * sizeof(int));
    int *out;
    CUDA_CHECK(cudaMalloc(&out, N * sizeof(int)));

    reduce_then_bcast<<<1, 128, 0, stream>>>(src, sum, bcast, out);
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, hsum, sum, N, stream);
    int host_out[N], host_sum[N];
    CUDA_CHECK(cudaMemcpyAsync(host_out, out, sizeof(host_out), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(host_sum, hsum, sizeof(host_sum), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int errors = 0, pes = npes * (npes - 1) / 2;
    for (int i = 0; i < N; i++) {
        int s = pes + npes * i;
        errors += host_out[i] != 2 * s;
        errors += host_sum[i] != npes * s;
    }
    CORPUS_RESULT("block_reduce", errors);

    nvshmem_barrier_all();
    CUDA_CHECK(cudaFree(out));
    nvshmem_free(hsum);
    nvshmem_free(bcast);
    nvshmem_free(sum);
    nvshmem_free(src);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
