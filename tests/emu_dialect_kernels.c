/*
 * emu_dialect_kernels.c: kernels written once in the dialect, built twice.
 *
 *   gcc/clang: included by tests/test_emu_dialect.c, which runs them in the emulator;
 *   nvcc:      nvcc -x cu -std=c++17 -arch=sm_90 -Ipgas/include -Iemu/include -c
 *              tests/emu_dialect_kernels.c     (no GPU needed to compile)
 *
 * Between them the kernels use every part of the dialect that does not need NVSHMEM
 * (kernels that call NVSHMEM also need -DSHMEMU_WITH_NVSHMEM and NVSHMEM's headers under
 * nvcc): dialect_kernel the common path, dialect_more_kernel 3D indices, the remaining
 * shuffles and votes, every atomic on 32- and 64-bit integers and on float and double,
 * every load and store order at sys scope, mbarrier tokens and try-waits, and a bulk copy
 * shared -> global; dialect_timer_kernel the clock, globaltimer(). `make` compiles this
 * file with nvcc when nvcc is found. The code is in the common subset of C and C++: no
 * compound literals, no implicit void * conversions.
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

/* ---- the rest of the dialect ------------------------------------------------------------ */

typedef struct {
    int *ids;                 /* per thread: linear id within the block, checked by host */
    int *shuffles;            /* per thread: up, down, broadcast and votes, encoded */
    unsigned *u32;            /* [0] inc, [1] cas, [2] cas winners, [3] exch, [4] or,
                               * [5] and, [6] xor */
    int *i32;                 /* [0] min, [1] max */
    long long *i64;           /* [0] min, [1] max, [2] add (acq_rel) */
    unsigned long long *u64;  /* [0] cas, [1] cas winners, [2] exch, [3] or, [4] and, [5] xor */
    float *f32;               /* [0] exch */
    double *f64;              /* [0] add */
    unsigned long long *sys;  /* [0] data, [1] flag, [2] what block 0 saw */
    int *mbar_ok;             /* per block: phases observed */
    int *bulk_dst;            /* gridDim.x * 64 ints, 16-byte aligned */
} dialect_more_args;

KERNEL(dialect_more_kernel, dialect_more_args, a)
{
    SHARED_ARRAY(int, tile, 64);
    SHARED_ARRAY(uint64_t, bar, 2);
    int t = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
    int n = (int)(blockDim.x * blockDim.y * blockDim.z);
    int g = (int)blockIdx.x * n + t;
    int lane = t & 31;
    unsigned full = 0xffffffffu;

    /* 3D indices */
    a.ids[g] = t + 1000 * (int)blockIdx.x + 100000 * (int)gridDim.x;

    /* shuffles and votes */
    int up = __shfl_up_sync(full, lane, 1);
    int down = __shfl_down_sync(full, lane, 2);
    long long wide = __shfl_sync(full, (long long)lane * 1000000007LL, 5);
    double dv = __shfl_xor_sync(full, (double)lane + 0.5, 3);
    int any3 = !!__any_sync(full, lane == 3);
    int all_small = !!__all_sync(full, lane < 32);
    int none = !!__any_sync(full, lane > 40);
    unsigned active = __activemask();
    a.shuffles[g] = up + 100 * down + 10000 * (wide == 5LL * 1000000007LL) +
                    20000 * (dv == (double)(lane ^ 3) + 0.5) + 40000 * any3 +
                    80000 * all_small + 160000 * none + 320000 * (active == full);

    /* every atomic, 32-bit */
    (void)atom_inc(a.u32 + 0, 7u, SCOPE_GPU, ORDER_RELAXED);
    if (atom_cas(a.u32 + 1, 0u, (unsigned)g + 1u, SCOPE_GPU, ORDER_ACQ_REL) == 0u)
        atom_add(a.u32 + 2, 1u, SCOPE_GPU, ORDER_RELAXED);
    (void)atom_exch(a.u32 + 3, (unsigned)g, SCOPE_BLOCK, ORDER_RELAXED);
    (void)atom_or(a.u32 + 4, 1u << lane, SCOPE_GPU, ORDER_RELEASE);
    (void)atom_and(a.u32 + 5, ~(1u << lane), SCOPE_GPU, ORDER_ACQUIRE);
    (void)atom_xor(a.u32 + 6, (unsigned)g + 1u, SCOPE_SYS, ORDER_RELAXED);
    (void)atom_min(a.i32 + 0, g - 7, SCOPE_GPU, ORDER_RELAXED);
    (void)atom_max(a.i32 + 1, -g, SCOPE_GPU, ORDER_RELAXED);
    /* 64-bit */
    (void)atom_min(a.i64 + 0, -(long long)g * 4000000000LL, SCOPE_SYS, ORDER_RELAXED);
    (void)atom_max(a.i64 + 1, (long long)g * 4000000000LL, SCOPE_SYS, ORDER_RELAXED);
    (void)atom_add(a.i64 + 2, 3000000000LL, SCOPE_GPU, ORDER_ACQ_REL);
    if (atom_cas(a.u64 + 0, 0ull, (unsigned long long)g + 1ull, SCOPE_SYS, ORDER_RELAXED) == 0ull)
        atom_add(a.u64 + 1, 1ull, SCOPE_GPU, ORDER_RELAXED);
    (void)atom_exch(a.u64 + 2, (unsigned long long)g << 33, SCOPE_GPU, ORDER_RELAXED);
    (void)atom_or(a.u64 + 3, 1ull << (g & 63), SCOPE_GPU, ORDER_RELAXED);
    (void)atom_and(a.u64 + 4, ~(1ull << (g & 63)), SCOPE_GPU, ORDER_RELAXED);
    (void)atom_xor(a.u64 + 5, (unsigned long long)g + 1ull, SCOPE_GPU, ORDER_RELAXED);
    /* floating point */
    (void)atom_exch(a.f32 + 0, 2.5f, SCOPE_GPU, ORDER_RELAXED);
    (void)atom_add(a.f64 + 0, 0.25, SCOPE_GPU, ORDER_RELAXED);

    /* sys-scope release store and acquire load between blocks; relaxed load after it */
    if (t == 0 && blockIdx.x == 1) {
        st_relaxed(a.sys + 0, 77ull, SCOPE_SYS);
        st_release(a.sys + 1, 1ull, SCOPE_SYS);
    }
    if (t == 0 && blockIdx.x == 0) {
        while (ld_acquire(a.sys + 1, SCOPE_SYS) == 0ull) {
        }
        a.sys[2] = ld_relaxed(a.sys + 0, SCOPE_SYS);
    }

    /* mbarrier tokens: phase 0 through arrive + wait(token), phase 1 through try_wait */
    if (t == 0) {
        mbar_init(bar, (unsigned)n);
        mbar_init(bar + 1, 1u);
    }
    __syncthreads();
    uint64_t token = mbar_arrive(bar);
    mbar_wait(bar, token);
    int seen = mbar_test_wait(bar, token) ? 1 : 0;
    (void)mbar_arrive(bar);
    while (!mbar_try_wait_parity(bar, 1u)) {
    }
    seen += 2;

    /* bulk copy shared -> global, completed through an mbarrier */
    SH_ST(tile, t, g * 3);
    __syncthreads();
    fence_proxy_async();
    if (t == 0) {
        mbar_expect_tx(bar + 1, 64u * sizeof(int));
        (void)mbar_arrive(bar + 1);
        tma_st(a.bulk_dst + blockIdx.x * 64, tile, 64u * sizeof(int), bar + 1);
        mbar_wait_parity(bar + 1, 0u);
        a.mbar_ok[blockIdx.x] = seen;
    }
    __syncthreads();
    if (t == 0) {
        mbar_inval(bar);
        mbar_inval(bar + 1);
    }
}

void dialect_more_launch(dialect_more_args args, int blocks, cudaStream_t stream);
void dialect_more_launch(dialect_more_args args, int blocks, cudaStream_t stream)
{
    LAUNCH(dialect_more_kernel, DIM3(blocks, 1, 1), DIM3(8, 4, 2), 0, stream, args);
}

/* ---- globaltimer ------------------------------------------------------------------------ */

typedef struct {
    uint64_t *t; /* per launch and block: [0], [1] two reads in a row, [2] after grid_sync */
} dialect_timer_args;

/* Thread 0 of each block reads the clock twice, then again after the grid barrier: every
 * read after the barrier follows every read before it, in any block. */
KERNEL(dialect_timer_kernel, dialect_timer_args, a)
{
    uint64_t *mine = a.t + 3 * blockIdx.x;
    if (threadIdx.x == 0) {
        mine[0] = globaltimer();
        mine[1] = globaltimer();
    }
    grid_sync();
    if (threadIdx.x == 0)
        mine[2] = globaltimer();
}

/* Two cooperative launches in stream order, the second into t + 3 * blocks. */
void dialect_timer_launch(dialect_timer_args args, int blocks, int threads, cudaStream_t stream);
void dialect_timer_launch(dialect_timer_args args, int blocks, int threads, cudaStream_t stream)
{
    LAUNCH_COOP(dialect_timer_kernel, DIM3(blocks, 1, 1), DIM3(threads, 1, 1), 0, stream, args);
    dialect_timer_args second = args;
    second.t = args.t + 3 * blocks;
    LAUNCH_COOP(dialect_timer_kernel, DIM3(blocks, 1, 1), DIM3(threads, 1, 1), 0, stream,
                second);
}
