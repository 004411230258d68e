/*
 * fence_put_flag.cu: data and a flag to the next PE, as NVSHMEM code wrote it before
 * put-with-signal: one kernel thread puts a block of ints with nvshmem_int_put_nbi,
 * nvshmem_fence() (puts to one PE arrive in order), then sets the peer's flag with
 * nvshmem_int_p. The receiving kernel spins on the flag through a volatile pointer,
 * __threadfence(), then reads the data. Correct in NVSHMEM's model (the fence orders the
 * two puts; the volatile poll and the fence make the reader's acquire).
 *
 * Expect: PE p's data holds prev * N + i.
 * -DBROKEN_NO_FENCE: no nvshmem_fence between the data and the flag: the flag may arrive
 *   first (SHMEMU_CHECK_NBI=1 delivers it first).
 * -DBROKEN_NO_READER_FENCE: no __threadfence between the flag's poll and the data's read.
 */
#include "common.h"

#define N 256

__global__ void send(int *data, int *src, int *flag)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int peer = (mype + 1) % npes;
    for (int i = 0; i < N; i++)
        src[i] = mype * N + i;
    nvshmem_int_put_nbi(data, src, N, peer);
#ifndef BROKEN_NO_FENCE
    nvshmem_fence();
#endif
    nvshmem_int_p(flag, 1, peer);
    nvshmem_quiet();
}

__global__ void receive(const int *data, int *flag, int *errors)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int prev = (mype - 1 + npes) % npes;
    volatile int *f = flag;
    while (*f == 0)
        ;
#ifndef BROKEN_NO_READER_FENCE
    __threadfence();
#endif
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += data[i] != prev * N + i; /* RACY READ (with a BROKEN_ define) */
    *errors = bad;
}

int main(void)
{
    nvshmem_init();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t send_stream, recv_stream;
    CUDA_CHECK(cudaStreamCreate(&send_stream));
    CUDA_CHECK(cudaStreamCreate(&recv_stream));

    int *data = (int *)nvshmem_malloc(N * sizeof(int));
    int *flag = (int *)nvshmem_calloc(1, sizeof(int));
    int *src, *errors;
    CUDA_CHECK(cudaMalloc(&src, N * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
    nvshmem_barrier_all();

    /* The receiver spins until the sender's flag arrives: both kernels run at once. */
    receive<<<1, 1, 0, recv_stream>>>(data, flag, errors);
    send<<<1, 1, 0, send_stream>>>(data, src, flag);
    CUDA_CHECK(cudaGetLastError());
    int bad = -1;
    CUDA_CHECK(cudaMemcpyAsync(&bad, errors, sizeof(bad), cudaMemcpyDeviceToHost, recv_stream));
    CUDA_CHECK(cudaStreamSynchronize(recv_stream));
    CUDA_CHECK(cudaStreamSynchronize(send_stream));
    nvshmem_barrier_all();
    CORPUS_RESULT("fence_put_flag", bad);

    CUDA_CHECK(cudaFree(errors));
    CUDA_CHECK(cudaFree(src));
    nvshmem_free(flag);
    nvshmem_free(data);
    CUDA_CHECK(cudaStreamDestroy(recv_stream));
    CUDA_CHECK(cudaStreamDestroy(send_stream));
    nvshmem_finalize();
    return 0;
}
