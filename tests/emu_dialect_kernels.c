/*
 * emu_dialect_kernels.c: kernels written once in the dialect, built twice.
 *
 *   gcc/clang: included by tests/test_emu_dialect.c, which runs them in the emulator;
 *   nvcc:      nvcc -x cu -std=c++17 -arch=sm_90 -Ipgas/include -Iemu/include -c
 *              tests/emu_dialect_kernels.c     (no GPU needed to compile)
 *
 * They use every part of the dialect that does not need NVSHMEM (kernels that call
 * NVSHMEM also need -DSHMEMU_WITH_NVSHMEM and NVSHMEM's headers under nvcc). The code is in
 * the common subset of C and C++: no compound literals, no implicit void * conversions.
 */
#include <stdint.h>

#include "shmemu/kernel.h"

typedef struct {
    int *out;        /* blockDim.x * gridDim.x ints */
    unsigned *votes; /* one per warp */
    int *counter;
    unsigned long long *wide;
    float *fsum;
    uint32_t *flag;
    int *handoff;
    int *bulk_src;   /* 64 ints, 16-byte aligned */
    int *bulk_out;   /* 64 ints */
    int use_tma;
} dialect_args;

DEVICE int dialect_neighbour(int t, int n) { return (t + 1) % n; }

KERNEL(dialect_kernel, dialect_args, a)
{
    SHARED_ARRAY(int, tile, 256);
    SHARED_ARRAY(uint64_t, bar, 1);
    EXTERN_SHARED(int, dyn);
    int t = (int)threadIdx.x, n = (int)blockDim.x;
    int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);

    /* shared memory, __syncthreads */
    SH_ST(tile, t, g * 2);
    SH_ST(dyn, t, g);
    __syncthreads();
    int v = SH_LD(tile, dialect_neighbour(t, n)) + SH_LD(dyn, t);

    /* warp shuffle and vote */
    unsigned full = 0xffffffffu;
    v += __shfl_xor_sync(full, t, 1) - (t ^ 1);
    unsigned vote = __ballot_sync(full, (t & 1) == 0);
    __syncwarp(full);
    if ((t & 31) == 0)
        a.votes[g / 32] = vote;
    a.out[g] = v;

    /* atomics with scope and order */
    atom_add(a.counter, 1, SCOPE_GPU, ORDER_RELAXED);
    atom_add(a.wide, 2ull, SCOPE_SYS, ORDER_RELEASE);
    atom_add(a.fsum, 0.5f, SCOPE_GPU, ORDER_RELAXED);
    (void)atom_max(a.counter + 1, g, SCOPE_GPU, ORDER_ACQ_REL);

    /* release/acquire between blocks: block 1 publishes, block 0 reads */
    if (t == 0 && blockIdx.x == 1) {
        a.handoff[0] = 99;
        __threadfence();
        st_relaxed(a.flag, 1u, SCOPE_GPU);
    }
    if (t == 0 && blockIdx.x == 0) {
        while (ld_acquire(a.flag, SCOPE_GPU) == 0u) {
        }
        a.handoff[1] = a.handoff[0] + 1;
    }
    __threadfence_block();

    /* mbarrier and a bulk copy (global -> shared), once every thread is done with tile */
    __syncthreads();
    if (a.use_tma) {
        if (t == 0) {
            mbar_init(bar, 1);
            (void)mbar_arrive_expect_tx(bar, 64 * sizeof(int));
            tma_ld(tile, a.bulk_src, 64 * sizeof(int), bar);
        }
        __syncthreads();
        mbar_wait_parity(bar, 0);
        if (blockIdx.x == 0 && t < 64)
            a.bulk_out[t] = SH_LD(tile, t);
    }

    /* the whole grid (cooperative launch) */
    grid_sync();
    __threadfence_system();
}

/* The host side: one launch, cooperative, in the given stream. */
void dialect_launch(dialect_args args, int blocks, int threads, cudaStream_t stream);
void dialect_launch(dialect_args args, int blocks, int threads, cudaStream_t stream)
{
    LAUNCH_COOP(dialect_kernel, DIM3(blocks, 1, 1), DIM3(threads, 1, 1),
                (size_t)threads * sizeof(int), stream, args);
}
