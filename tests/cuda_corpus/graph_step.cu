/*
 * graph_step.cu: one step of an iterative code captured into a CUDA graph and replayed:
 * a kernel updates a symmetric vector and puts its boundary to the next PE
 * (nvshmem_int_put_nbi, nvshmem_quiet), then nvshmemx_barrier_all_on_stream, all captured
 * with cudaStreamBeginCapture / cudaStreamEndCapture, instantiated once and launched STEPS
 * times with cudaGraphLaunch.
 *
 * The halo is double-buffered by step parity: step s reads the slot the previous PE's step
 * s - 1 filled and puts into the other, so a PE a step ahead never writes the slot its
 * neighbour is still to read (with one slot, step s's put raced with the neighbour's step-s
 * read: the first version of this program failed on an H100 and under shmemu's scheduler).
 *
 * Expect: step s saw the previous PE's boundary of step s - 1, the last step's boundary sits
 * in halo[STEPS % 2], and every interior value = STEPS.
 * -DBROKEN_NO_BARRIER: the barrier is left out of the captured step: a step's read of its
 * halo is no longer ordered after the previous PE's put of the step before, and it can read
 * the slot's older value.
 */
#include "common.h"

#define N 256
#define STEPS 5

__global__ void step_kernel(int *v, int *halo, int *boundary, int *seen, int mype, int npes)
{
    int i = threadIdx.x;
    v[i] += 1;
    __syncthreads();
    if (i == 0) {
        int s = v[0]; /* this step, 1..STEPS */
        seen[s - 1] = halo[(s - 1) % 2]; /* the halo the previous step delivered */
        *boundary = s * 1000 + mype;
        nvshmem_int_put_nbi(halo + s % 2, boundary, 1, (mype + 1) % npes);
        nvshmem_quiet();
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    int *v = (int *)nvshmem_calloc(N, sizeof(int));
    int *halo = (int *)nvshmem_calloc(2, sizeof(int));
    int *boundary = (int *)nvshmem_calloc(1, sizeof(int));
    int *seen;
    CUDA_CHECK(cudaMalloc(&seen, STEPS * sizeof(int)));
    nvshmem_barrier_all();

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    step_kernel<<<1, N, 0, stream>>>(v, halo, boundary, seen, mype, npes);
#ifndef BROKEN_NO_BARRIER
    nvshmemx_barrier_all_on_stream(stream);
#endif
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int s = 0; s < STEPS; s++)
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    nvshmemx_barrier_all_on_stream(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int host_v[N], host_seen[STEPS], host_halo[2];
    CUDA_CHECK(cudaMemcpy(host_v, v, sizeof(host_v), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(host_seen, seen, sizeof(host_seen), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(host_halo, halo, sizeof(host_halo), cudaMemcpyDeviceToHost));
    int prev = (mype - 1 + npes) % npes, errors = 0;
    for (int i = 0; i < N; i++)
        errors += host_v[i] != STEPS;
    for (int s = 1; s < STEPS; s++) /* step s saw the previous PE's boundary of step s - 1 */
        errors += host_seen[s] != s * 1000 + prev;
    errors += host_halo[STEPS % 2] != STEPS * 1000 + prev;
    CORPUS_RESULT("graph_step", errors);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(seen));
    nvshmem_free(boundary);
    nvshmem_free(halo);
    nvshmem_free(v);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
