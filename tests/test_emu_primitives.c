/*
 * test_emu_primitives.c: the dialect's primitives in the emulator: warp shuffles and votes,
 * __syncwarp, atomics of every type with scope and order, fences with relaxed flags,
 * acquire loads and release stores across PEs, mbarrier phases, bulk copies (tma_st to a
 * peer, tma_ld from a peer) completed through an mbarrier, and NVSHMEM's block and warp
 * calls.
 *
 * Every cross-thread hand-off here is a correct protocol: helgrind and DRD must be silent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "support/pe_check.h"

/* ---- warp shuffles and votes ----------------------------------------------------------- */

typedef struct {
    int *out; /* 8 values per thread */
    float *fsum;
} warp_args;

KERNEL(warp_kernel, warp_args, a)
{
    SHARED_ARRAY(int, box, 64);
    int t = (int)threadIdx.x, lane = t % 32;
    unsigned full = 0xffffffffu;
    int *o = a.out + 8 * t;
    o[0] = __shfl_sync(full, t * 10, 3);
    o[1] = __shfl_up_sync(full, t, 1);
    o[2] = __shfl_down_sync(full, t, 2);
    o[3] = __shfl_xor_sync(full, t, 1);
    o[4] = (int)__ballot_sync(full, lane % 3 == 0);
    o[5] = __any_sync(full, t == 40);
    o[6] = __all_sync(full, lane < 32) && __activemask() == full;
    /* __syncwarp orders shared memory between the lanes of a warp */
    SH_ST(box, t, t + 100);
    __syncwarp(full);
    o[7] = SH_LD(box, (t / 32) * 32 + (lane + 1) % 32);
    /* a float reduction by shuffles */
    float v = (float)(t + 1) * 0.5f;
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(full, v, d);
    if (lane == 0)
        a.fsum[t / 32] = v;
}

static int warp_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *out = NULL;
    float *fsum = NULL;
    cudaMalloc((void **)&out, 64 * 8 * sizeof(int));
    cudaMalloc((void **)&fsum, 2 * sizeof(float));
    warp_args a = {out, fsum};
    LAUNCH(warp_kernel, DIM3(1, 1, 1), DIM3(64, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    unsigned ballot = 0;
    for (int l = 0; l < 32; l++)
        if (l % 3 == 0)
            ballot |= 1u << l;
    for (int t = 0; t < 64; t++) {
        int lane = t % 32, base = t - lane;
        const int *o = out + 8 * t;
        PE_CHECK_EQ_I64(o[0], (base + 3) * 10);
        PE_CHECK_EQ_I64(o[1], lane >= 1 ? t - 1 : t);
        PE_CHECK_EQ_I64(o[2], lane + 2 < 32 ? t + 2 : t);
        PE_CHECK_EQ_I64(o[3], t ^ 1);
        PE_CHECK_EQ_U64((unsigned)o[4], ballot);
        PE_CHECK_EQ_I64(o[5], base == 32 ? 1 : 0);
        PE_CHECK_EQ_I64(o[6], 1);
        PE_CHECK_EQ_I64(o[7], base + (lane + 1) % 32 + 100);
    }
    for (int w = 0; w < 2; w++) {
        float want = 0.0f;
        /* the same tree order as the kernel: lane 0 combines pairs at distances 16, 8, ... */
        float v[32];
        for (int l = 0; l < 32; l++)
            v[l] = (float)(32 * w + l + 1) * 0.5f;
        for (int d = 16; d > 0; d /= 2)
            for (int l = 0; l < 32; l++)
                v[l] += l + d < 32 ? v[l + d] : v[l];
        want = v[0];
        PE_CHECK_EQ_FLT_BITS(fsum[w], want);
    }
    cudaFree(out);
    cudaFree(fsum);
    nvshmem_finalize();
    return 0;
}

static void test_warp(void **state)
{
    (void)state;
    run_pes(1, warp_body, NULL);
}

/* ---- atomics --------------------------------------------------------------------------- */

typedef struct {
    int *i32;
    unsigned *u32;
    long long *i64;
    unsigned long long *u64;
    float *f32;
    double *f64;
    unsigned *inc;
    int *minmax;  /* [min, max] */
    unsigned *bits; /* [and, or, xor] */
    int *lock;
    long long *guarded; /* plain counter under the lock */
    int *exch;
} atom_args;

KERNEL(atom_kernel, atom_args, a)
{
    int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    atom_add(a.i32, -2, SCOPE_GPU, ORDER_RELAXED);
    atom_add(a.u32, 3u, SCOPE_GPU, ORDER_RELAXED);
    atom_add(a.i64, -5ll, SCOPE_SYS, ORDER_RELAXED);
    atom_add(a.u64, 7ull, SCOPE_GPU, ORDER_ACQ_REL);
    atom_add(a.f32, 0.25f, SCOPE_GPU, ORDER_RELAXED);
    atom_add(a.f64, 0.5, SCOPE_GPU, ORDER_RELAXED);
    atom_inc(a.inc, 9u, SCOPE_GPU, ORDER_RELAXED);
    atom_min(&a.minmax[0], g - 50, SCOPE_GPU, ORDER_RELAXED);
    atom_max(&a.minmax[1], g * 3, SCOPE_GPU, ORDER_RELAXED);
    atom_and(&a.bits[0], ~(1u << (g % 32)), SCOPE_GPU, ORDER_RELAXED);
    atom_or(&a.bits[1], 1u << (g % 32), SCOPE_GPU, ORDER_RELAXED);
    atom_xor(&a.bits[2], 1u << (g % 8), SCOPE_GPU, ORDER_RELAXED);
    (void)atom_exch(&a.exch[g], g + 1, SCOPE_BLOCK, ORDER_RELAXED);
    /* a spin lock: acquire by CAS, release by a release store */
    while (atom_cas(a.lock, 0, 1, SCOPE_GPU, ORDER_ACQUIRE) != 0) {
    }
    *a.guarded += g;
    st_release(a.lock, 0, SCOPE_GPU);
}

static int atom_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    enum { B = 4, T = 16, N = B * T };
    char *mem = NULL;
    cudaMalloc((void **)&mem, 4096);
    atom_args a;
    a.i32 = (int *)(mem + 0);
    a.u32 = (unsigned *)(mem + 8);
    a.i64 = (long long *)(mem + 16);
    a.u64 = (unsigned long long *)(mem + 24);
    a.f32 = (float *)(mem + 32);
    a.f64 = (double *)(mem + 40);
    a.inc = (unsigned *)(mem + 48);
    a.minmax = (int *)(mem + 56);
    a.bits = (unsigned *)(mem + 64);
    a.lock = (int *)(mem + 80);
    a.guarded = (long long *)(mem + 88);
    a.exch = (int *)(mem + 128);
    a.minmax[0] = 1000;
    a.minmax[1] = -1000;
    a.bits[0] = 0xffffffffu;
    LAUNCH(atom_kernel, DIM3(B, 1, 1), DIM3(T, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_I64(*a.i32, -2 * N);
    PE_CHECK_EQ_U64(*a.u32, 3u * N);
    PE_CHECK_EQ_I64(*a.i64, -5ll * N);
    PE_CHECK_EQ_U64(*a.u64, 7ull * N);
    PE_CHECK_EQ_FLT_BITS(*a.f32, 0.25f * N);
    PE_CHECK_EQ_DBL_BITS(*a.f64, 0.5 * N);
    PE_CHECK_EQ_U64(*a.inc, N % 10); /* wraps to 0 after 9 */
    PE_CHECK_EQ_I64(a.minmax[0], -50);
    PE_CHECK_EQ_I64(a.minmax[1], (N - 1) * 3);
    PE_CHECK_EQ_U64(a.bits[0], 0);
    PE_CHECK_EQ_U64(a.bits[1], 0xffffffffu);
    PE_CHECK_EQ_U64(a.bits[2], 0); /* each of 8 bits flipped N/8 (even) times */
    PE_CHECK_EQ_I64(*a.guarded, (long long)N * (N - 1) / 2);
    for (int g = 0; g < N; g++)
        PE_CHECK_EQ_I64(a.exch[g], g + 1);
    cudaFree(mem);
    nvshmem_finalize();
    return 0;
}

static void test_atomics(void **state)
{
    (void)state;
    run_pes(1, atom_body, NULL);
}

/* ---- fences and relaxed flags; acquire and release across PEs --------------------------- */

typedef struct {
    int *data;     /* symmetric */
    uint32_t *flag; /* symmetric */
    int *seen;
    int use_fence;
} flag_args;

/* Block 1 publishes to block 0 of the same PE with "data; fence; relaxed flag" or with a
 * release store; block 0 reads after "relaxed poll; fence" or an acquire load. */
KERNEL(fence_kernel, flag_args, a)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 1) {
        a.data[0] = 77;
        if (a.use_fence) {
            __threadfence();
            st_relaxed(a.flag, 1u, SCOPE_GPU);
        } else {
            st_release(a.flag, 1u, SCOPE_GPU);
        }
    } else {
        if (a.use_fence) {
            while (ld_relaxed(a.flag, SCOPE_GPU) == 0u) {
            }
            __threadfence();
        } else {
            while (ld_acquire(a.flag, SCOPE_GPU) == 0u) {
            }
        }
        *a.seen = a.data[0];
    }
}

/* PE 0 stores into PE 1's memory directly (nvshmem_ptr) and releases a flag there at
 * system scope; PE 1's kernel acquires it at system scope. */
KERNEL(sys_kernel, flag_args, a)
{
    if (threadIdx.x != 0)
        return;
    int me = nvshmem_my_pe();
    if (me == 0) {
        int *peer_data = (int *)nvshmem_ptr(a.data, 1);
        uint32_t *peer_flag = (uint32_t *)nvshmem_ptr(a.flag, 1);
        peer_data[0] = 555;
        __threadfence_system();
        st_relaxed(peer_flag, 1u, SCOPE_SYS);
    } else if (me == 1) {
        while (ld_acquire(a.flag, SCOPE_SYS) != 1u) {
        }
        *a.seen = a.data[0];
    }
}

static int flag_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    int *data = nvshmem_calloc(1, sizeof(int));
    uint32_t *flag = nvshmem_calloc(1, sizeof(uint32_t));
    int *seen = NULL;
    cudaMalloc((void **)&seen, sizeof(int));
    for (int use_fence = 0; use_fence < 2; use_fence++) {
        *data = 0;
        *flag = 0;
        *seen = -1;
        flag_args a = {data, flag, seen, use_fence};
        LAUNCH(fence_kernel, DIM3(2, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
        cudaDeviceSynchronize();
        PE_CHECK_EQ_I64(*seen, 77);
    }
    *data = 0;
    *flag = 0;
    *seen = -1;
    nvshmem_barrier_all();
    flag_args s = {data, flag, seen, 0};
    LAUNCH(sys_kernel, DIM3(1, 1, 1), DIM3(2, 1, 1), 0, NULL, s);
    cudaDeviceSynchronize();
    if (me == 1)
        PE_CHECK_EQ_I64(*seen, 555);
    nvshmem_barrier_all();
    cudaFree(seen);
    nvshmem_free(data);
    nvshmem_free(flag);
    nvshmem_finalize();
    return 0;
}

static void test_fences_and_scopes(void **state)
{
    (void)state;
    run_pes(2, flag_body, NULL);
}

/* ---- mbarrier phases ------------------------------------------------------------------- */

typedef struct {
    int *out;
    int phases;
} mbar_args;

/* Every phase: each thread writes its slot and arrives; all wait for the phase; each reads
 * its neighbour's slot (ordered by the mbarrier, no __syncthreads). */
KERNEL(mbar_kernel, mbar_args, a)
{
    SHARED_ARRAY(uint64_t, bar, 1);
    SHARED_ARRAY(int, slots, 256);
    int t = (int)threadIdx.x, n = (int)blockDim.x;
    if (t == 0)
        mbar_init(bar, (unsigned)n);
    __syncthreads();
    int sum = 0;
    for (int p = 0; p < a.phases; p++) {
        SH_ST(slots, (p % 2) * 128 + t, t * 10 + p);
        uint64_t token = mbar_arrive(bar);
        switch (p % 4) {
        case 0: mbar_wait_parity(bar, (unsigned)(p & 1)); break;
        case 1: mbar_wait(bar, token); break;
        case 2:
            while (!mbar_try_wait_parity(bar, (unsigned)(p & 1))) {
            }
            break;
        default:
            while (!mbar_test_wait(bar, token)) {
            }
            break;
        }
        sum += SH_LD(slots, (p % 2) * 128 + (t + 1) % n);
    }
    __syncthreads();
    if (t == 0)
        mbar_inval(bar);
    a.out[(int)blockIdx.x * n + t] = sum;
}

static int mbar_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    const int n = 64, phases = 6;
    int *out = NULL;
    cudaMalloc((void **)&out, (size_t)(2 * n) * sizeof(int));
    mbar_args a = {out, phases};
    LAUNCH(mbar_kernel, DIM3(2, 1, 1), DIM3(n, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    for (int t = 0; t < n; t++) {
        int want = 0;
        for (int p = 0; p < phases; p++)
            want += ((t + 1) % n) * 10 + p;
        PE_CHECK_EQ_I64(out[t], want);
        PE_CHECK_EQ_I64(out[n + t], want);
    }
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static void test_mbarrier(void **state)
{
    (void)state;
    run_pes(1, mbar_body, NULL);
}

/* ---- bulk copies to and from a peer through an mbarrier --------------------------------- */

enum { TMA_N = 256 };

typedef struct {
    int *inbox;    /* symmetric: TMA_N ints written by the previous PE */
    uint64_t *sig; /* symmetric */
    int *out;      /* what this PE read back from its inbox through shared memory */
} tma_args;

KERNEL(tma_kernel, tma_args, a)
{
    SHARED_ARRAY(int, tile, TMA_N);
    SHARED_ARRAY(uint64_t, bar, 1);
    int t = (int)threadIdx.x;
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), next = (me + 1) % n;
    if (t == 0)
        mbar_init(bar, 1);
    for (int i = t; i < TMA_N; i += (int)blockDim.x)
        SH_ST(tile, i, me * 1000 + i);
    fence_proxy_async();
    __syncthreads();
    if (t == 0) {
        /* shared -> the next PE's inbox, completed through the mbarrier, then signalled */
        int *peer_inbox = (int *)nvshmem_ptr(a.inbox, next);
        mbar_arrive_expect_tx(bar, TMA_N * sizeof(int));
        tma_st(peer_inbox, tile, TMA_N * sizeof(int), bar);
        mbar_wait_parity(bar, 0);
        __threadfence_system();
        nvshmemx_signal_op(a.sig, 1, NVSHMEM_SIGNAL_SET, next);
        /* my inbox -> shared, completed through the mbarrier's next phase */
        nvshmem_signal_wait_until(a.sig, NVSHMEM_CMP_EQ, 1);
        mbar_arrive_expect_tx(bar, TMA_N * sizeof(int));
        tma_ld(tile, a.inbox, TMA_N * sizeof(int), bar);
    }
    __syncthreads();
    mbar_wait_parity(bar, 1);
    for (int i = t; i < TMA_N; i += (int)blockDim.x)
        a.out[i] = SH_LD(tile, i);
}

static int tma_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), prev = (me - 1 + n) % n;
    int *inbox = nvshmem_calloc(TMA_N, sizeof(int));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int *out = NULL;
    cudaMalloc((void **)&out, TMA_N * sizeof(int));
    nvshmem_barrier_all();
    tma_args a = {inbox, sig, out};
    LAUNCH(tma_kernel, DIM3(1, 1, 1), DIM3(32, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    for (int i = 0; i < TMA_N; i++)
        PE_CHECK_EQ_I64(out[i], prev * 1000 + i);
    nvshmem_barrier_all();
    cudaFree(out);
    nvshmem_free(inbox);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_bulk_copy_to_peer(void **state)
{
    (void)state;
    run_pes(2, tma_body, NULL);
    run_pes(3, tma_body, NULL);
}

/* ---- NVSHMEM block and warp calls ------------------------------------------------------ */

typedef struct {
    int *recv;     /* symmetric: 2 * 64 ints */
    uint64_t *sig; /* symmetric: 2 */
    int *got;      /* what a block get fetched */
} group_args;

KERNEL(group_kernel, group_args, a)
{
    SHARED_ARRAY(int, buf, 64);
    int t = (int)threadIdx.x;
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), next = (me + 1) % n;
    /* every thread fills its element; the block call sends the whole buffer, then the
     * signal: the receiver reads only after the signal */
    SH_ST(buf, t, me * 100 + t);
    nvshmemx_int_put_signal_nbi_block(a.recv, buf, 64, &a.sig[0], 1, NVSHMEM_SIGNAL_SET, next);
    /* each warp sends its half with the warp call and ADDs to the second signal */
    int w = t / 32;
    nvshmemx_putmem_signal_warp(a.recv + 64 + 32 * w, buf + 32 * w, 32 * sizeof(int), &a.sig[1],
                                1, NVSHMEM_SIGNAL_ADD, next);
    nvshmem_signal_wait_until(&a.sig[0], NVSHMEM_CMP_EQ, 1);
    nvshmem_signal_wait_until(&a.sig[1], NVSHMEM_CMP_EQ, 2);
    nvshmemx_barrier_all_block();
    /* a block get of the next PE's inbox (its previous PE is me) */
    nvshmemx_getmem_block(a.got, a.recv, 64 * sizeof(int), next);
}

static int group_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), prev = (me - 1 + n) % n;
    int *recv = nvshmem_calloc(128, sizeof(int));
    uint64_t *sig = nvshmem_calloc(2, sizeof(uint64_t));
    int *got = NULL;
    cudaMalloc((void **)&got, 64 * sizeof(int));
    nvshmem_barrier_all();
    group_args a = {recv, sig, got};
    LAUNCH(group_kernel, DIM3(1, 1, 1), DIM3(64, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    for (int i = 0; i < 64; i++) {
        PE_CHECK_EQ_I64(recv[i], prev * 100 + i);
        PE_CHECK_EQ_I64(recv[64 + i], prev * 100 + i);
        PE_CHECK_EQ_I64(got[i], me * 100 + i);
    }
    nvshmem_barrier_all();
    cudaFree(got);
    nvshmem_free(recv);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void test_group_calls(void **state)
{
    (void)state;
    run_pes(2, group_body, NULL);
    run_pes(3, group_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warp),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_fences_and_scopes),
        cmocka_unit_test(test_mbarrier),
        cmocka_unit_test(test_bulk_copy_to_peer),
        cmocka_unit_test(test_group_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
