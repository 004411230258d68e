/*
 * moe_dispatch.cu: a Mixture-of-Experts token dispatch (all-to-all with per-expert counts).
 * Each PE hosts EXPERTS_PER_PE experts; in each of STEPS steps every PE routes TOKENS tokens,
 * each to an expert chosen by a hash, so to the PE that hosts the expert. One persistent
 * kernel does all the steps:
 *   1. the block counts its tokens per destination PE and per expert (shared-memory atomics),
 *      and lays them out by destination (prefix sums);
 *   2. thread d sends PE d its tokens and per-expert counts (nvshmem_int_put_nbi into the
 *      slots for this source and step), nvshmem_fence, then adds 1 to PE d's arrival signal
 *      for this step (nvshmemx_signal_op, NVSHMEM_SIGNAL_ADD);
 *   3. thread 0 waits until this step's arrival signal reaches npes: every source has
 *      delivered this step. One signal per step: a source may already be a step ahead, and
 *      its adds must not count for this one (one shared counter waited for npes * (step + 1)
 *      did exactly that on 4 PEs: the first version of this program was wrong);
 *   4. the block sums the received tokens per local expert.
 *
 * Expect: each local expert's token count and token sum over all steps equal the host's
 * recomputation of the routing.
 * -DBROKEN_SIGNAL_RESET: one signal for every step: step 3 waits for npes and then resets it
 * to 0 for the next step, racing with the adds of PEs already in the next step: an add is
 * lost and a PE waits forever (the scheduler's deadlock report), or a step reads slots too
 * early.
 */
#include "common.h"

#define TOKENS 64
#define EXPERTS_PER_PE 4
#define STEPS 4
#define MAX_PES 16

__host__ __device__ inline int route(int pe, int step, int t, int n_experts)
{
    unsigned h = (unsigned)(pe * 7919 + step * 104729 + t * 31337);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return (int)(h % (unsigned)n_experts);
}

__host__ __device__ inline int token_value(int pe, int step, int t) { return pe * 10000 + step * 100 + t; }

struct slots {
    int *tokens;       /* [STEPS][MAX_PES src][TOKENS] token values, received */
    int *experts;      /* [STEPS][MAX_PES src][TOKENS] their expert ids */
    int *counts;       /* [STEPS][MAX_PES src] how many tokens src sent here */
    uint64_t *arrived; /* [STEPS] signals: sources that have delivered in each step */
};

__global__ void dispatch(slots s, int *expert_tokens, long long *expert_sums)
{
    __shared__ int per_pe[MAX_PES], offset[MAX_PES], fill[MAX_PES];
    __shared__ int out_tok[TOKENS], out_exp[TOKENS];
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int n_experts = EXPERTS_PER_PE * npes;

    for (int step = 0; step < STEPS; step++) {
        if (threadIdx.x < MAX_PES)
            per_pe[threadIdx.x] = fill[threadIdx.x] = 0;
        __syncthreads();
        int t = threadIdx.x;
        int e = route(mype, step, t, n_experts);
        atomicAdd(&per_pe[e / EXPERTS_PER_PE], 1);
        __syncthreads();
        if (threadIdx.x == 0) {
            int sum = 0;
            for (int d = 0; d < npes; d++) {
                offset[d] = sum;
                sum += per_pe[d];
            }
        }
        __syncthreads();
        int pos = offset[e / EXPERTS_PER_PE] + atomicAdd(&fill[e / EXPERTS_PER_PE], 1);
        out_tok[pos] = token_value(mype, step, t);
        out_exp[pos] = e;
        __syncthreads();
        if (threadIdx.x < npes) {
            int d = threadIdx.x;
            size_t slot = ((size_t)step * MAX_PES + mype) * TOKENS;
            nvshmem_int_put_nbi(s.tokens + slot, out_tok + offset[d], per_pe[d], d);
            nvshmem_int_put_nbi(s.experts + slot, out_exp + offset[d], per_pe[d], d);
            nvshmem_int_p(s.counts + step * MAX_PES + mype, per_pe[d], d);
            nvshmem_fence();
#ifdef BROKEN_SIGNAL_RESET
            nvshmemx_signal_op(s.arrived, 1, NVSHMEM_SIGNAL_ADD, d);
#else
            nvshmemx_signal_op(s.arrived + step, 1, NVSHMEM_SIGNAL_ADD, d);
#endif
            nvshmem_quiet(); /* out_tok/out_exp are rewritten next step */
        }
        if (threadIdx.x == 0) {
#ifdef BROKEN_SIGNAL_RESET
            nvshmem_signal_wait_until(s.arrived, NVSHMEM_CMP_GE, (uint64_t)npes);
            *s.arrived = 0; /* races with the next step's remote adds */
#else
            nvshmem_signal_wait_until(s.arrived + step, NVSHMEM_CMP_EQ, (uint64_t)npes);
#endif
        }
        __syncthreads();
        if (threadIdx.x < EXPERTS_PER_PE) {
            int local = threadIdx.x, mine = mype * EXPERTS_PER_PE + local;
            for (int src = 0; src < npes; src++) {
                size_t slot = ((size_t)step * MAX_PES + src) * TOKENS;
                int n = s.counts[step * MAX_PES + src];
                for (int k = 0; k < n; k++)
                    if (s.experts[slot + k] == mine) {
                        expert_tokens[local]++;
                        expert_sums[local] += s.tokens[slot + k];
                    }
            }
        }
        __syncthreads();
    }
}

int main(void)
{
    nvshmem_init();
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "moe_dispatch: at most %d PEs\n", MAX_PES);
        return 1;
    }
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    slots s;
    s.tokens = (int *)nvshmem_malloc(sizeof(int) * STEPS * MAX_PES * TOKENS);
    s.experts = (int *)nvshmem_malloc(sizeof(int) * STEPS * MAX_PES * TOKENS);
    s.counts = (int *)nvshmem_calloc(STEPS * MAX_PES, sizeof(int));
    s.arrived = (uint64_t *)nvshmem_calloc(STEPS, sizeof(uint64_t));
    int *expert_tokens;
    long long *expert_sums;
    CUDA_CHECK(cudaMalloc(&expert_tokens, EXPERTS_PER_PE * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&expert_sums, EXPERTS_PER_PE * sizeof(long long)));
    CUDA_CHECK(cudaMemsetAsync(expert_tokens, 0, EXPERTS_PER_PE * sizeof(int), stream));
    CUDA_CHECK(cudaMemsetAsync(expert_sums, 0, EXPERTS_PER_PE * sizeof(long long), stream));
    nvshmemx_barrier_all_on_stream(stream);

    dispatch<<<1, TOKENS, 0, stream>>>(s, expert_tokens, expert_sums);
    CUDA_CHECK(cudaGetLastError());
    int got_tokens[EXPERTS_PER_PE];
    long long got_sums[EXPERTS_PER_PE];
    CUDA_CHECK(cudaMemcpyAsync(got_tokens, expert_tokens, sizeof(got_tokens),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(got_sums, expert_sums, sizeof(got_sums), cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    int want_tokens[EXPERTS_PER_PE] = {0};
    long long want_sums[EXPERTS_PER_PE] = {0};
    for (int step = 0; step < STEPS; step++)
        for (int src = 0; src < npes; src++)
            for (int t = 0; t < TOKENS; t++) {
                int e = route(src, step, t, EXPERTS_PER_PE * npes);
                if (e / EXPERTS_PER_PE == mype) {
                    want_tokens[e % EXPERTS_PER_PE]++;
                    want_sums[e % EXPERTS_PER_PE] += token_value(src, step, t);
                }
            }
    int errors = 0;
    for (int x = 0; x < EXPERTS_PER_PE; x++)
        errors += got_tokens[x] != want_tokens[x] || got_sums[x] != want_sums[x];
    CORPUS_RESULT("moe_dispatch", errors);

    nvshmem_barrier_all();
    CUDA_CHECK(cudaFree(expert_sums));
    CUDA_CHECK(cudaFree(expert_tokens));
    nvshmem_free(s.arrived);
    nvshmem_free(s.counts);
    nvshmem_free(s.experts);
    nvshmem_free(s.tokens);
    CUDA_CHECK(cudaStreamDestroy(stream));
    nvshmem_finalize();
    return 0;
}
