/*
 * onstream_put.cu: host-initiated communication ordered on a CUDA stream. A kernel fills a
 * symmetric source buffer, nvshmemx_int_put_on_stream sends it to the next PE, and
 * nvshmemx_barrier_all_on_stream completes the puts before the copy back to the host: the
 * pattern of NVSHMEM's on-stream examples.
 *
 * Expect: PE p holds 1000 * prev + i in element i, prev = (p - 1 + npes) % npes.
 * -DBROKEN_STREAM_ORDER: the fill kernel runs on a second stream and the put's stream does not
 * wait for it (the cudaStreamWaitEvent is missing), so the put reads the source while the
 * kernel writes it.
 */
#include "common.h"

#define N 4096

__global__ void fill(int *src, int mype, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        src[i] = 1000 * mype + i;
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));

    cudaStream_t stream, fill_stream;
    cudaEvent_t filled;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaStreamCreateWithFlags(&fill_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));

    int *src = (int *)nvshmem_malloc(N * sizeof(int));
    int *dst = (int *)nvshmem_malloc(N * sizeof(int));
    int *host = (int *)malloc(N * sizeof(int));

#ifdef BROKEN_STREAM_ORDER
    fill<<<4, 256, 0, fill_stream>>>(src, mype, N);
#else
    fill<<<4, 256, 0, fill_stream>>>(src, mype, N);
    CUDA_CHECK(cudaEventRecord(filled, fill_stream));
    CUDA_CHECK(cudaStreamWaitEvent(stream, filled, 0));
#endif
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_int_put_on_stream(dst, src, N, (mype + 1) % npes, stream);
    nvshmemx_barrier_all_on_stream(stream);
    CUDA_CHECK(cudaMemcpyAsync(host, dst, N * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int prev = (mype - 1 + npes) % npes, errors = 0;
    for (int i = 0; i < N; i++)
        if (host[i] != 1000 * prev + i)
            errors++;
    CORPUS_RESULT("onstream_put", errors);

    CUDA_CHECK(cudaDeviceSynchronize());
    free(host);
    nvshmem_free(dst);
    nvshmem_free(src);
    CUDA_CHECK(cudaEventDestroy(filled));
    CUDA_CHECK(cudaStreamDestroy(fill_stream));
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
