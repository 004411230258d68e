/*
 * credit_pipe.cu: a persistent kernel, producer and consumer with credits. Every PE produces
 * ITEMS items for the next PE and consumes ITEMS from the previous one through a ring of SLOTS
 * slots in the consumer's memory:
 *   producer (block 0): before item i it waits for a credit, credits >= i - SLOTS + 1 (the
 *     consumer has freed the slot), then sends the item with nvshmem_int_put_signal_nbi; the
 *     slot's signal is set to the item's lap, i / SLOTS + 1;
 *   consumer (block 1): for item i it waits until slot i % SLOTS has the signal of lap
 *     i / SLOTS + 1, adds the item, and returns a credit to the producer (an atomic add on
 *     the producer's credit counter).
 * Both blocks run for the whole job (a persistent kernel: block 0 spins on what block 1 of
 * another PE does).
 *
 * Expect: each PE's consumed sum is the sum of the previous PE's items.
 * -DBROKEN_PHASE: the consumer waits for signal >= 1 instead of the lap (a phase mistake):
 *  from the second lap on it reads a slot before the producer has refilled it.
 */
#include "common.h"

#define ITEMS 64
#define SLOTS 4
#define WIDTH 32 /* ints per item */

__device__ inline int item_value(int pe, int i, int k) { return pe * 100000 + i * 100 + k; }

__global__ void pipe(int *ring, uint64_t *full, unsigned long long *credits, long long *consumed)
{
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (mype + 1) % npes, prev = (mype - 1 + npes) % npes;
    __shared__ int item[WIDTH];

    if (blockIdx.x == 0) { /* producer: sends to next */
        for (int i = 0; i < ITEMS; i++) {
            if (threadIdx.x == 0 && i >= SLOTS)
                nvshmem_ulonglong_wait_until(credits, NVSHMEM_CMP_GE,
                                             (unsigned long long)(i - SLOTS + 1));
            __syncthreads();
            item[threadIdx.x] = item_value(mype, i, threadIdx.x);
            __syncthreads();
            if (threadIdx.x == 0) {
                nvshmem_int_put_signal_nbi(ring + (i % SLOTS) * WIDTH, item, WIDTH,
                                           full + i % SLOTS, (uint64_t)(i / SLOTS + 1),
                                           NVSHMEM_SIGNAL_SET, next);
                nvshmem_quiet(); /* item[] is rewritten next iteration */
            }
            __syncthreads();
        }
    } else { /* consumer: receives from prev */
        long long sum = 0;
        for (int i = 0; i < ITEMS; i++) {
            if (threadIdx.x == 0) {
#ifdef BROKEN_PHASE
                nvshmem_signal_wait_until(full + i % SLOTS, NVSHMEM_CMP_GE, 1);
#else
                nvshmem_signal_wait_until(full + i % SLOTS, NVSHMEM_CMP_EQ,
                                          (uint64_t)(i / SLOTS + 1));
#endif
            }
            __syncthreads();
            /* Every reader fences: NVSHMEM's wait is a relaxed poll on the GPU, and without
             * the fence the slot's plain loads can hit the block's L1 copy of the previous
             * lap (measured on an H100, docs/cuda-corpus.md "On a GPU"). */
            __threadfence();
            sum += ring[(i % SLOTS) * WIDTH + threadIdx.x];
            __syncthreads();
            if (threadIdx.x == 0)
                nvshmem_ulonglong_atomic_add(credits, 1ULL, prev);
        }
        atomicAdd((unsigned long long *)consumed, (unsigned long long)sum);
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    int *ring = (int *)nvshmem_malloc(SLOTS * WIDTH * sizeof(int));
    uint64_t *full = (uint64_t *)nvshmem_calloc(SLOTS, sizeof(uint64_t));
    unsigned long long *credits = (unsigned long long *)nvshmem_calloc(1, sizeof(*credits));
    long long *consumed;
    CUDA_CHECK(cudaMalloc(&consumed, sizeof(*consumed)));
    CUDA_CHECK(cudaMemset(consumed, 0, sizeof(*consumed)));
    nvshmem_barrier_all();

    pipe<<<2, WIDTH, 0, stream>>>(ring, full, credits, consumed);
    CUDA_CHECK(cudaGetLastError());
    nvshmemx_barrier_all_on_stream(stream);
    long long got = 0;
    CUDA_CHECK(cudaMemcpyAsync(&got, consumed, sizeof(got), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int prev = (mype - 1 + npes) % npes;
    long long want = 0;
    for (int i = 0; i < ITEMS; i++)
        for (int k = 0; k < WIDTH; k++)
            want += prev * 100000 + i * 100 + k;
    CORPUS_RESULT("credit_pipe", got != want);

    CUDA_CHECK(cudaFree(consumed));
    nvshmem_free(credits);
    nvshmem_free(full);
    nvshmem_free(ring);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
