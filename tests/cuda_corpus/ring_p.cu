/*
 * ring_p.cu: NVSHMEM's "simple shift" (the first example of NVSHMEM's documentation): every
 * PE writes its rank into the next PE's symmetric int with nvshmem_int_p from a kernel, a
 * barrier on the stream completes the puts, and the host reads the message back.
 *
 * Expect: PE p received (p - 1 + npes) % npes.
 * -DBROKEN_NO_BARRIER: the barrier on the stream is missing, so the copy back races with the
 * previous PE's put (helgrind, TSan: the read in cudaMemcpyAsync against the put).
 */
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#define CUDA_CHECK(stmt)                                                                   \
    do {                                                                                   \
        cudaError_t result = (stmt);                                                       \
        if (cudaSuccess != result) {                                                       \
            fprintf(stderr, "[%s:%d] CUDA failed with %s \n", __FILE__, __LINE__,         \
                    cudaGetErrorString(result));                                           \
            exit(-1);                                                                      \
        }                                                                                  \
    } while (0)

__global__ void simple_shift(int *destination)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int peer = (mype + 1) % npes;

    nvshmem_int_p(destination, mype, peer);
}

int main(void)
{
    int mype_node, msg;
    cudaStream_t stream;

    nvshmem_init();
    mype_node = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    CUDA_CHECK(cudaSetDevice(mype_node));
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *destination = (int *)nvshmem_malloc(sizeof(int));

    simple_shift<<<1, 1, 0, stream>>>(destination);
    CUDA_CHECK(cudaGetLastError());
#ifndef BROKEN_NO_BARRIER
    nvshmemx_barrier_all_on_stream(stream);
#endif
    CUDA_CHECK(cudaMemcpyAsync(&msg, destination, sizeof(int), cudaMemcpyDeviceToHost, stream));

    CUDA_CHECK(cudaStreamSynchronize(stream));
    int mype = nvshmem_my_pe(), npes = nvshmem_n_pes();
    int want = (mype - 1 + npes) % npes;
    printf("%d: received message %d\n", mype, msg);
    if (msg != want) {
        printf("ring_p: PE %d FAIL: received %d, want %d\n", mype, msg, want);
        nvshmem_global_exit(1);
    }
    printf("ring_p: PE %d ok\n", mype);

    nvshmem_free(destination);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
