/*
 * test_cuda_device.cpp: CUDA's device built-ins on the emulator (shmemu_cuda/device.h):
 * indices and their types, __syncthreads_count/_and/_or, __syncwarp, shuffles with and
 * without a width (a butterfly sum, broadcasts, up/down at segment edges), votes and
 * __activemask in a partial warp, __match_*_sync and __reduce_*_sync, every atomic on every
 * type CUDA defines it for at the three scopes (atomicInc/atomicDec wrap, a CAS loop, a lock
 * made of atomicCAS, __threadfence and atomicExch), clock64 and __nanosleep (a thread waiting
 * for another thread of its block), and the integer and math intrinsics.
 */
#include <cmath>
#include <cstring>
#include <type_traits>

#include "cuda_test.h"

static_assert(std::is_same<decltype(threadIdx), uint3>::value, "threadIdx is a uint3");
static_assert(std::is_same<decltype(blockIdx), uint3>::value, "blockIdx is a uint3");
static_assert(std::is_same<decltype(blockDim), dim3>::value, "blockDim is a dim3");
static_assert(std::is_same<decltype(gridDim), dim3>::value, "gridDim is a dim3");
static_assert(warpSize == 32, "warpSize");
static_assert(dim3().x == 1 && dim3(4).y == 1 && dim3(4, 5).z == 1 && dim3(4, 5, 6).z == 6,
              "dim3's constructors default to 1");

/* Runs one kernel launch on one PE and checks with the body. */
template <class Body> static void on_one_pe(Body body)
{
    static Body *b;
    b = &body;
    run_pes(1, [](void *) -> int {
        nvshmem_init();
        (*b)();
        cudaDeviceSynchronize();
        nvshmem_finalize();
        return 0;
    }, nullptr);
}

/* ---- block barriers with predicates ----------------------------------------------------- */

void sync_pred_kernel(int *out)
{
    int t = static_cast<int>(threadIdx.x);
    out += 15 * 100 * blockIdx.x;
    out[0 * 100 + t] = __syncthreads_count(t % 3 == 0);
    out[1 * 100 + t] = __syncthreads_and(t < 100);
    out[2 * 100 + t] = __syncthreads_and(t < 99);
    out[3 * 100 + t] = __syncthreads_or(t == 57);
    out[4 * 100 + t] = __syncthreads_or(0);
    for (int i = 0; i < 10; i++) /* calls back to back reuse the block's slots */
        out[(5 + i) * 100 + t] = __syncthreads_count(t < i * 10);
}

static void test_syncthreads_predicates(void **)
{
    on_one_pe([] {
        int *out = nullptr;
        cudaMalloc(&out, 3 * 15 * 100 * sizeof(int));
        PE_CHECK(LAUNCH_K(sync_pred_kernel, (3, 100), out) == cudaSuccess);
        cudaDeviceSynchronize();
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 100; t++) {
                const int *o = out + 15 * 100 * b;
                PE_CHECK_EQ_I64(o[0 * 100 + t], 34);
                PE_CHECK_EQ_I64(o[1 * 100 + t], 1);
                PE_CHECK_EQ_I64(o[2 * 100 + t], 0);
                PE_CHECK_EQ_I64(o[3 * 100 + t], 1);
                PE_CHECK_EQ_I64(o[4 * 100 + t], 0);
                for (int i = 0; i < 10; i++)
                    PE_CHECK_EQ_I64(o[(5 + i) * 100 + t], i * 10);
            }
        cudaFree(out);
    });
}

/* ---- warp collectives -------------------------------------------------------------------- */

void warp_kernel(long long *out)
{
    static thread_local int sh[64]; /* __shared__ int sh[64]; */
    unsigned t = threadIdx.x, lane = t % 32;
    long long *o = out + 40 * t;
    const unsigned full = 0xffffffffu;
    sh[t] = static_cast<int>(t) * 3;
    __syncwarp();
    o[0] = sh[(t & ~31u) + 31 - lane];
    int v = static_cast<int>(lane) + 1;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(full, v, off);
    o[1] = v;
    double d = 0.5 * lane;
    for (int off = 16; off > 0; off /= 2)
        d += __shfl_xor_sync(full, d, off);
    o[2] = static_cast<long long>(d * 2);
    o[3] = __shfl_sync(full, static_cast<int>(lane) * 7, 5);
    o[4] = __shfl_up_sync(full, static_cast<int>(lane), 3);
    o[5] = __shfl_down_sync(full, static_cast<int>(lane), 4);
    o[6] = __shfl_sync(full, static_cast<int>(lane), 2, 8);
    o[7] = __shfl_up_sync(full, static_cast<int>(lane), 1, 8);
    o[8] = __shfl_down_sync(full, static_cast<int>(lane), 3, 16);
    o[9] = __shfl_xor_sync(full, static_cast<int>(lane), 8, 8);
    o[10] = __shfl_sync(full, -5000000000LL - lane, 31);
    o[11] = static_cast<long long>(__shfl_sync(full, 0xf000000000000000ull + lane, 1) >> 32);
    o[12] = __ballot_sync(full, lane % 2);
    o[13] = __any_sync(full, lane == 17);
    o[14] = __all_sync(full, lane < 32);
    o[15] = __all_sync(full, lane < 31);
    o[16] = __match_any_sync(full, lane / 4);
    int pred = -1;
    o[17] = __match_all_sync(full, 42.0f, &pred);
    o[18] = pred;
    o[19] = __match_all_sync(full, lane & 1, &pred);
    o[20] = pred;
    o[21] = __reduce_add_sync(full, lane);
    o[22] = __reduce_min_sync(full, static_cast<int>(lane) - 10);
    o[23] = __reduce_max_sync(full, lane);
    o[24] = __reduce_and_sync(full, lane | 0x100u);
    o[25] = __reduce_or_sync(full, 1u << lane);
    o[26] = __reduce_xor_sync(full, lane);
    o[27] = __shfl_sync(0x0000ffffu | (full << 16), static_cast<short>(-lane), 0, 16);
}

static void test_warp_collectives(void **)
{
    on_one_pe([] {
        long long *out = nullptr;
        cudaMalloc(&out, 64 * 40 * sizeof(long long));
        PE_CHECK(LAUNCH_K(warp_kernel, (1, 64), out) == cudaSuccess);
        cudaDeviceSynchronize();
        for (int t = 0; t < 64; t++) {
            long long *o = out + 40 * t;
            int lane = t % 32, base8 = lane & ~7, base16 = lane & ~15;
            PE_CHECK_EQ_I64(o[0], ((t & ~31) + 31 - lane) * 3);
            PE_CHECK_EQ_I64(o[1], 528);
            PE_CHECK_EQ_I64(o[2], 496);
            PE_CHECK_EQ_I64(o[3], 35);
            PE_CHECK_EQ_I64(o[4], lane < 3 ? lane : lane - 3);
            PE_CHECK_EQ_I64(o[5], lane >= 28 ? lane : lane + 4);
            PE_CHECK_EQ_I64(o[6], base8 + 2);
            PE_CHECK_EQ_I64(o[7], lane % 8 == 0 ? lane : lane - 1);
            PE_CHECK_EQ_I64(o[8], lane - base16 + 3 < 16 ? lane + 3 : lane);
            PE_CHECK_EQ_I64(o[9], lane % 16 < 8 ? lane : lane - 8);
            PE_CHECK_EQ_I64(o[10], -5000000031LL);
            PE_CHECK_EQ_I64(o[11], 0xf0000000LL);
            PE_CHECK_EQ_U64(static_cast<uint64_t>(o[12]), 0xaaaaaaaau);
            PE_CHECK_EQ_I64(o[13], 1);
            PE_CHECK_EQ_I64(o[14], 1);
            PE_CHECK_EQ_I64(o[15], 0);
            PE_CHECK_EQ_U64(static_cast<uint64_t>(o[16]), 0xfull << (4 * (lane / 4)));
            PE_CHECK_EQ_U64(static_cast<uint64_t>(o[17]), 0xffffffffu);
            PE_CHECK_EQ_I64(o[18], 1);
            PE_CHECK_EQ_I64(o[19], 0);
            PE_CHECK_EQ_I64(o[20], 0);
            PE_CHECK_EQ_I64(o[21], 496);
            PE_CHECK_EQ_I64(o[22], -10);
            PE_CHECK_EQ_I64(o[23], 31);
            PE_CHECK_EQ_I64(o[24], 0x100);
            PE_CHECK_EQ_U64(static_cast<uint64_t>(o[25]), 0xffffffffu);
            PE_CHECK_EQ_I64(o[26], 0);
            PE_CHECK_EQ_I64(o[27], -base16);
        }
        cudaFree(out);
    });
}

/* A block of 40 threads: its second warp has 8 lanes. */
void partial_warp_kernel(unsigned *out)
{
    unsigned t = threadIdx.x;
    unsigned mask = __activemask();
    out[3 * t] = mask;
    out[3 * t + 1] = __ballot_sync(mask, t % 4 == 0);
    out[3 * t + 2] = static_cast<unsigned>(__shfl_down_sync(mask, static_cast<int>(t), 1));
}

static void test_partial_warp(void **)
{
    on_one_pe([] {
        unsigned *out = nullptr;
        cudaMalloc(&out, 40 * 3 * sizeof(unsigned));
        PE_CHECK(LAUNCH_K(partial_warp_kernel, (1, 40), out) == cudaSuccess);
        cudaDeviceSynchronize();
        for (unsigned t = 0; t < 40; t++) {
            bool second = t >= 32;
            PE_CHECK_EQ_U64(out[3 * t], second ? 0xffu : 0xffffffffu);
            PE_CHECK_EQ_U64(out[3 * t + 1], second ? 0x11u : 0x11111111u);
            PE_CHECK_EQ_U64(out[3 * t + 2], (t == 31 || t == 39) ? t : t + 1);
        }
        cudaFree(out);
    });
}

/* ---- atomics -------------------------------------------------------------------------- */

struct counters {
    int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch;
    unsigned u_add, u_sub, u_min, u_max, u_and, u_or, u_xor, u_inc, u_dec, u_dec_big, u_cas;
    unsigned long long ull_add, ull_min, ull_max, ull_and, ull_or, ull_xor, ull_cas;
    long long ll_min, ll_max, ll_and, ll_or, ll_xor;
    float f_add, f_exch;
    double d_add;
    int block_add[4], sys_add, lock, locked_count;
    int old_seen[256];
};

void atomic_kernel(counters *c)
{
    unsigned t = threadIdx.x + blockDim.x * blockIdx.x;
    int ti = static_cast<int>(t);
    c->old_seen[atomicAdd(&c->i_add, 1)] += 1;
    atomicSub(&c->i_sub, 1);
    atomicMin(&c->i_min, -ti);
    atomicMax(&c->i_max, ti);
    atomicAnd(&c->i_and, ~(1 << (t % 31)));
    atomicOr(&c->i_or, 1 << (t % 31));
    atomicXor(&c->i_xor, 1 << (t % 16));
    atomicAdd(&c->u_add, 2u);
    atomicSub(&c->u_sub, 3u);
    atomicMin(&c->u_min, 1000u + t);
    atomicMax(&c->u_max, 1000u + t);
    atomicAnd(&c->u_and, ~(1u << (t % 32)));
    atomicOr(&c->u_or, 1u << (t % 32));
    atomicXor(&c->u_xor, t);
    if (t < 25) {
        atomicInc(&c->u_inc, 9u);
        atomicDec(&c->u_dec, 9u);
    }
    atomicAdd(&c->ull_add, 1ull << 33);
    atomicMin(&c->ull_min, 5000000000ull + t);
    atomicMax(&c->ull_max, 5000000000ull + t);
    atomicAnd(&c->ull_and, ~(1ull << (t % 64)));
    atomicOr(&c->ull_or, 1ull << (t % 64));
    atomicXor(&c->ull_xor, 1ull << (t % 64));
    atomicMin(&c->ll_min, -5000000000LL - ti);
    atomicMax(&c->ll_max, -5000000000LL + ti);
    atomicAnd(&c->ll_and, ~(1LL << (t % 63)));
    atomicOr(&c->ll_or, 1LL << (t % 63));
    atomicXor(&c->ll_xor, 1LL << (t % 32));
    atomicAdd(&c->f_add, 0.5f);
    atomicAdd(&c->d_add, 0.25);
    atomicExch(&c->f_exch, 2.5f);
    atomicExch(&c->i_exch, 7);
    /* a multiply made of a CAS loop (unsigned and 64-bit) */
    if (t < 10) {
        unsigned old = c->u_cas, seen;
        while ((seen = atomicCAS(&c->u_cas, old, old * 2)) != old)
            old = seen;
        unsigned long long o64 = c->ull_cas, s64;
        while ((s64 = atomicCAS(&c->ull_cas, o64, o64 * 3)) != o64)
            o64 = s64;
    }
    atomicAdd_block(&c->block_add[blockIdx.x], 1);
    atomicAdd_system(&c->sys_add, 1);
    /* a lock across blocks: CAS to take it, fences around the plain update, exchange back */
    while (atomicCAS(&c->lock, 0, 1) != 0) {
    }
    __threadfence();
    c->locked_count += 1;
    __threadfence();
    atomicExch(&c->lock, 0);
}

static void test_atomics(void **)
{
    on_one_pe([] {
        counters *c = nullptr;
        cudaMalloc(&c, sizeof *c);
        c->i_sub = 2000;
        c->i_min = 1 << 30;
        c->i_max = -(1 << 30);
        c->i_and = -1;
        c->u_sub = 5000;
        c->u_min = ~0u;
        c->u_and = ~0u;
        c->ull_min = ~0ull;
        c->ull_and = ~0ull;
        c->ll_min = 0;
        c->ll_max = -(1LL << 62);
        c->ll_and = -1;
        c->u_cas = 1;
        c->ull_cas = 1;
        PE_CHECK(LAUNCH_K(atomic_kernel, (4, 64), c) == cudaSuccess);
        cudaDeviceSynchronize();
        PE_CHECK_EQ_I64(c->i_add, 256);
        for (int i = 0; i < 256; i++)
            PE_CHECK_MSG(c->old_seen[i] == 1, "atomicAdd returned %d %d times", i, c->old_seen[i]);
        PE_CHECK_EQ_I64(c->i_sub, 2000 - 256);
        PE_CHECK_EQ_I64(c->i_min, -255);
        PE_CHECK_EQ_I64(c->i_max, 255);
        PE_CHECK_EQ_I64(c->i_and, static_cast<int>(0x80000000u));
        PE_CHECK_EQ_I64(c->i_or, 0x7fffffff);
        PE_CHECK_EQ_I64(c->i_xor, 0);
        PE_CHECK_EQ_I64(c->i_exch, 7);
        PE_CHECK_EQ_U64(c->u_add, 512u);
        PE_CHECK_EQ_U64(c->u_sub, 5000u - 768u);
        PE_CHECK_EQ_U64(c->u_min, 1000u);
        PE_CHECK_EQ_U64(c->u_max, 1255u);
        PE_CHECK_EQ_U64(c->u_and, 0u);
        PE_CHECK_EQ_U64(c->u_or, 0xffffffffu);
        PE_CHECK_EQ_U64(c->u_xor, 0u);
        PE_CHECK_EQ_U64(c->u_inc, 25u % 10u);
        PE_CHECK_EQ_U64(c->u_dec, 5u); /* 0 -> 9 -> 8 ... : -25 mod 10 */
        PE_CHECK_EQ_U64(c->ull_add, 256ull << 33);
        PE_CHECK_EQ_U64(c->ull_min, 5000000000ull);
        PE_CHECK_EQ_U64(c->ull_max, 5000000255ull);
        PE_CHECK_EQ_U64(c->ull_and, 0u);
        PE_CHECK_EQ_U64(c->ull_or, ~0ull);
        PE_CHECK_EQ_U64(c->ull_xor, 0u);
        PE_CHECK_EQ_I64(c->ll_min, -5000000255LL);
        PE_CHECK_EQ_I64(c->ll_max, -5000000000LL + 255);
        PE_CHECK_EQ_I64(c->ll_and, static_cast<long long>(1ull << 63));
        PE_CHECK_EQ_I64(c->ll_or, 0x7fffffffffffffffLL);
        PE_CHECK_EQ_I64(c->ll_xor, 0);
        PE_CHECK_EQ_FLT_BITS(c->f_add, 128.0f);
        PE_CHECK_EQ_DBL_BITS(c->d_add, 64.0);
        PE_CHECK_EQ_FLT_BITS(c->f_exch, 2.5f);
        PE_CHECK_EQ_U64(c->u_cas, 1024u);
        PE_CHECK_EQ_U64(c->ull_cas, 59049u);
        for (int b = 0; b < 4; b++)
            PE_CHECK_EQ_I64(c->block_add[b], 64);
        PE_CHECK_EQ_I64(c->sys_add, 256);
        PE_CHECK_EQ_I64(c->locked_count, 256);
        PE_CHECK_EQ_I64(c->lock, 0);
        cudaFree(c);
    });
}

/* Single-thread checks of what each call returns. */
void atomic_returns_kernel(long long *out)
{
    static thread_local unsigned u; /* __shared__ */
    static thread_local int i;
    static thread_local float f;
    u = 50;
    out[0] = atomicDec_block(&u, 9u); /* old > limit: becomes the limit */
    out[1] = u;
    u = 9;
    out[2] = atomicInc_block(&u, 9u); /* old >= limit: becomes 0 */
    out[3] = u;
    i = 5;
    out[4] = atomicCAS_block(&i, 4, 9); /* fails: returns the value, changes nothing */
    out[5] = i;
    out[6] = atomicCAS_system(&i, 5, 9);
    out[7] = i;
    f = 1.5f;
    out[8] = static_cast<long long>(atomicExch_block(&f, 3.0f) * 10);
    out[9] = static_cast<long long>(atomicAdd_system(&f, 0.5f) * 10);
    out[10] = static_cast<long long>(f * 10);
    out[11] = atomicSub_system(&i, 10);
    out[12] = i;
}

static void test_atomic_returns(void **)
{
    on_one_pe([] {
        long long *out = nullptr;
        cudaMalloc(&out, 16 * sizeof(long long));
        PE_CHECK(LAUNCH_K(atomic_returns_kernel, (1, 1), out) == cudaSuccess);
        cudaDeviceSynchronize();
        const long long want[] = {50, 9, 9, 0, 5, 5, 5, 9, 15, 30, 35, 9, -1};
        for (int k = 0; k < 13; k++)
            PE_CHECK_MSG(out[k] == want[k], "out[%d] = %lld, expected %lld", k, out[k], want[k]);
        cudaFree(out);
    });
}

/* A flag published after a fence and read before one, between two blocks. */
void fence_kernel(int *data, int *flag, int *out)
{
    if (blockIdx.x == 1 && threadIdx.x == 0) {
        data[0] = 4242;
        __threadfence();
        atomicExch(flag, 1);
    } else if (blockIdx.x == 0 && threadIdx.x == 0) {
        while (atomicCAS(flag, 1, 1) != 1) {
        }
        __threadfence();
        out[0] = data[0];
    }
    __threadfence_block();
    __threadfence_system();
}

static void test_fences(void **)
{
    on_one_pe([] {
        int *mem = nullptr;
        cudaMalloc(&mem, 3 * sizeof(int));
        PE_CHECK(LAUNCH_K(fence_kernel, (2, 32), mem, mem + 1, mem + 2) == cudaSuccess);
        cudaDeviceSynchronize();
        PE_CHECK_EQ_I64(mem[2], 4242);
        cudaFree(mem);
    });
}

/* ---- time --------------------------------------------------------------------------- */

/* Thread 0 sleeps until thread 32 (another warp of its block) sets a flag: the sleep must
 * let it run. clock64 never goes backwards. */
void sleep_kernel(long long *out)
{
    static thread_local volatile int flag;
    unsigned t = threadIdx.x;
    long long start = clock64();
    if (t == 0) {
        int polls = 0;
        while (flag == 0) {
            __nanosleep(1000);
            polls++;
        }
        out[0] = polls;
    } else if (t == 32) {
        flag = 1;
    }
    __syncthreads();
    long long end = clock64();
    out[1 + t] = end >= start;
    if (t == 0)
        out[100] = static_cast<long long>(__globaltimer() > 0);
}

static void test_clock_and_sleep(void **)
{
    on_one_pe([] {
        long long *out = nullptr;
        cudaMalloc(&out, 128 * sizeof(long long));
        PE_CHECK(LAUNCH_K(sleep_kernel, (1, 64), out) == cudaSuccess);
        cudaDeviceSynchronize();
        PE_CHECK(out[0] >= 1);
        for (int t = 0; t < 64; t++)
            PE_CHECK_EQ_I64(out[1 + t], 1);
        PE_CHECK_EQ_I64(out[100], 1);
        cudaFree(out);
    });
}

/* ---- integer and math intrinsics (plain functions: checked on the test's thread) -------- */

static void test_integer_intrinsics(void **)
{
    assert_int_equal(__popc(0xf0f0u), 8);
    assert_int_equal(__popcll(~0ull), 64);
    assert_int_equal(__ffs(0), 0);
    assert_int_equal(__ffs(8), 4);
    assert_int_equal(__ffsll(1LL << 40), 41);
    assert_int_equal(__clz(0), 32);
    assert_int_equal(__clz(1), 31);
    assert_int_equal(__clz(-1), 0);
    assert_int_equal(__clzll(0), 64);
    assert_int_equal(__clzll(1LL << 40), 23);
    assert_int_equal(__brev(1u), 0x80000000u);
    assert_int_equal(__brev(0x12345678u), 0x1e6a2c48u);
    assert_true(__brevll(1ull) == 1ull << 63);
    assert_true(__brevll(0x12345678ull) == 0x1e6a2c4800000000ull);
    assert_int_equal(__byte_perm(0x33221100u, 0x77665544u, 0x5410u), 0x55441100u);
    assert_int_equal(__byte_perm(0x33221100u, 0x77665544u, 0x0123u), 0x00112233u);
    assert_int_equal(__funnelshift_l(0x89abcdefu, 0x01234567u, 4), 0x12345678u);
    assert_int_equal(__funnelshift_l(0x89abcdefu, 0x01234567u, 36), 0x12345678u);
    assert_int_equal(__funnelshift_lc(0x89abcdefu, 0x01234567u, 36), 0x89abcdefu);
    assert_int_equal(__funnelshift_r(0x89abcdefu, 0x01234567u, 4), 0x789abcdeu);
    assert_int_equal(__funnelshift_rc(0x89abcdefu, 0x01234567u, 40), 0x01234567u);
    assert_int_equal(__mulhi(0x40000000, 8), 2);
    assert_int_equal(__mulhi(-1, 1), -1);
    assert_int_equal(__umulhi(0xffffffffu, 0xffffffffu), 0xfffffffeu);
    assert_true(__mul64hi(-1LL, 1LL) == -1LL);
    assert_true(__umul64hi(~0ull, 2ull) == 1ull);
    assert_int_equal(__mul24(0x00ffffff, 2), -2);
    assert_int_equal(__umul24(0x01000003u, 2u), 6u);
    assert_int_equal(__sad(1, 5, 10u), 14u);
    assert_int_equal(__usad(7u, 2u, 1u), 6u);
    assert_int_equal(__hadd(-3, 0), -2);
    assert_int_equal(__rhadd(1, 2), 2);
    assert_int_equal(__uhadd(0xffffffffu, 1u), 0x80000000u);
    assert_int_equal(__urhadd(0xffffffffu, 0u), 0x80000000u);
    int v[2] = {3, 4};
    assert_int_equal(__ldg(&v[1]), 4);
    __stcg(&v[0], 9);
    assert_int_equal(__ldcs(&v[0]), 9);
}

static void test_math_intrinsics(void **)
{
    assert_true(std::fabs(__expf(1.0f) - 2.7182817f) < 1e-6f);
    assert_true(rsqrtf(4.0f) == 0.5f);
    assert_true(rsqrt(16.0) == 0.25);
    assert_true(__fdividef(1.0f, 4.0f) == 0.25f);
    assert_true(__saturatef(-1.0f) == 0.0f && __saturatef(2.0f) == 1.0f);
    assert_true(__saturatef(0.25f) == 0.25f && __saturatef(NAN) == 0.0f);
    assert_true(__int_as_float(0x3f800000) == 1.0f);
    assert_int_equal(__float_as_uint(1.0f), 0x3f800000u);
    assert_true(__longlong_as_double(__double_as_longlong(-2.5)) == -2.5);
    assert_true(__hiloint2double(__double2hiint(3.75), __double2loint(3.75)) == 3.75);
    assert_int_equal(__float2int_rn(2.5f), 2);
    assert_int_equal(__float2int_rn(3.5f), 4);
    assert_int_equal(__float2int_rd(-1.5f), -2);
    assert_int_equal(__float2int_ru(-1.5f), -1);
    assert_int_equal(__float2int_rz(-1.7f), -1);
    assert_true(__double2float_rn(0.5) == 0.5f);
    assert_true(std::fabs(sinpif(0.5f) - 1.0f) < 1e-6f);
    assert_true(std::fabs(cospi(1.0) + 1.0) < 1e-12);
    float s = 0, c = 0;
    __sincosf(0.0f, &s, &c);
    assert_true(s == 0.0f && c == 1.0f);
    assert_true(norm3df(2.0f, 3.0f, 6.0f) == 7.0f);
    assert_true(__fmaf_rn(2.0f, 3.0f, 1.0f) == 7.0f);
    /* CUDA's global min/max: mixed signedness compares as unsigned */
    assert_int_equal(min(3, 5u), 3u);
    assert_int_equal(max(-1, 2u), 0xffffffffu);
    assert_true(min(-5LL, 4LL) == -5LL);
    assert_true(max(1.5f, 2.5) == 2.5);
    assert_true(min(1.5f, -2.0f) == -2.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syncthreads_predicates),
        cmocka_unit_test(test_warp_collectives),
        cmocka_unit_test(test_partial_warp),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_atomic_returns),
        cmocka_unit_test(test_fences),
        cmocka_unit_test(test_clock_and_sleep),
        cmocka_unit_test(test_integer_intrinsics),
        cmocka_unit_test(test_math_intrinsics),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
