/*
 * test_cuda_groups.cpp: cuda::atomic_ref / cuda::std::atomic_ref / cuda::atomic on the
 * emulator's atomics (every operation, the orders, the scopes, a release/acquire flag between
 * blocks, wait), and cooperative groups: the block, tiles of 32 down to 2 lanes (ranks, meta
 * groups, shuffles, votes, cg::reduce), a tile of a tile, a thread_group from a dynamic
 * partition, and the coalesced group of a divergent branch.
 */
#include <cstring>

#include "cuda_test.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
#include <cuda/std/atomic>

namespace cg = cooperative_groups;

/* ---- atomic_ref ------------------------------------------------------------------------- */

struct words {
    int counter;
    int seen[256];
    int data, flag;
    int exch, cas, weak_max, bits_and, bits_or, bits_xor, min_v, max_v, sub;
    float f;
    double d;
    int *ptr;
    int array[8];
    unsigned long long sys;
    int block_count[2];
    cuda::atomic<int, cuda::thread_scope_device> object;
    int waited, wait_flag, loser_saw_winner;
    long long results[16];
};

void atomic_ref_kernel(words *w)
{
    unsigned t = threadIdx.x + blockDim.x * blockIdx.x;
    int ti = static_cast<int>(t);
    cuda::atomic_ref<int, cuda::thread_scope_device> counter(w->counter);
    w->seen[counter.fetch_add(1, cuda::memory_order_relaxed)] += 1;

    /* release/acquire between blocks at system scope */
    cuda::atomic_ref<int, cuda::thread_scope_system> flag(w->flag);
    if (blockIdx.x == 1 && threadIdx.x == 0) {
        w->data = 77;
        flag.store(1, cuda::memory_order_release);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        while (flag.load(cuda::memory_order_acquire) == 0) {
        }
        w->results[0] = w->data;
    }

    cuda::atomic_ref<int, cuda::thread_scope_device> exch(w->exch), cas(w->cas);
    cuda::atomic_ref<int, cuda::thread_scope_device> wmax(w->weak_max), sub(w->sub);
    exch.exchange(ti, cuda::memory_order_acq_rel);
    int expected = 0;
    if (cas.compare_exchange_strong(expected, 1000 + ti))
        w->results[1] = ti;            /* the one thread that won */
    else if (expected >= 1000)          /* a loser sees the winner's value */
        atomicOr(&w->loser_saw_winner, 1);
    int cur = wmax.load(cuda::memory_order_relaxed);
    while (cur < ti && !wmax.compare_exchange_weak(cur, ti, cuda::memory_order_relaxed)) {
    }
    sub.fetch_sub(2);
    cuda::atomic_ref<int, cuda::thread_scope_device>(w->bits_and).fetch_and(~(1 << (t % 31)));
    cuda::atomic_ref<int, cuda::thread_scope_device>(w->bits_or).fetch_or(1 << (t % 31));
    cuda::atomic_ref<int, cuda::thread_scope_device>(w->bits_xor) ^= 1 << (t % 8);
    cuda::atomic_ref<int, cuda::thread_scope_device>(w->min_v).fetch_min(-ti);
    cuda::atomic_ref<int, cuda::thread_scope_device>(w->max_v).fetch_max(ti);
    cuda::atomic_ref<float, cuda::thread_scope_device>(w->f).fetch_add(0.5f);
    cuda::atomic_ref<double, cuda::thread_scope_device> d(w->d);
    d += 0.25;
    if (t < 8) {
        cuda::atomic_ref<int *, cuda::thread_scope_device> p(w->ptr);
        int *mine = p.fetch_add(1);
        *mine = ti + 1;
    }
    cuda::std::atomic_ref<unsigned long long> sys(w->sys);
    ++sys;
    sys.fetch_add(1ull << 40, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_block>(w->block_count[blockIdx.x])++;
    w->object.fetch_add(3, cuda::memory_order_relaxed);

    /* wait: thread 0 of block 0 waits for block 1's thread 5 */
    cuda::atomic_ref<int, cuda::thread_scope_system> wf(w->wait_flag);
    if (blockIdx.x == 0 && threadIdx.x == 1) {
        wf.wait(0, cuda::memory_order_acquire);
        w->waited = 1;
    }
    if (blockIdx.x == 1 && threadIdx.x == 5) {
        wf.store(1, cuda::memory_order_release);
        wf.notify_all();
    }
}

static int atomic_ref_body(void *)
{
    nvshmem_init();
    words *w = nullptr;
    cudaMalloc(&w, sizeof *w);
    w->bits_and = -1;
    w->weak_max = -1;
    w->sub = 1000;
    w->min_v = 1 << 20;
    w->max_v = -(1 << 20);
    w->ptr = w->array;
    new (&w->object) cuda::atomic<int, cuda::thread_scope_device>(5);
    PE_CHECK(LAUNCH_K(atomic_ref_kernel, (2, 128), w) == cudaSuccess);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_I64(w->counter, 256);
    for (int i = 0; i < 256; i++)
        PE_CHECK_MSG(w->seen[i] == 1, "fetch_add returned %d %d times", i, w->seen[i]);
    PE_CHECK_EQ_I64(w->results[0], 77);
    PE_CHECK(w->exch >= 0 && w->exch < 256);
    PE_CHECK_EQ_I64(w->cas, 1000 + w->results[1]);
    PE_CHECK_EQ_I64(w->loser_saw_winner, 1);
    PE_CHECK_EQ_I64(w->weak_max, 255);
    PE_CHECK_EQ_I64(w->sub, 1000 - 512);
    PE_CHECK_EQ_I64(w->bits_and, static_cast<int>(0x80000000u));
    PE_CHECK_EQ_I64(w->bits_or, 0x7fffffff);
    PE_CHECK_EQ_I64(w->bits_xor, 0);
    PE_CHECK_EQ_I64(w->min_v, -255);
    PE_CHECK_EQ_I64(w->max_v, 255);
    PE_CHECK_EQ_FLT_BITS(w->f, 128.0f);
    PE_CHECK_EQ_DBL_BITS(w->d, 64.0);
    PE_CHECK_EQ_PTR(w->ptr, w->array + 8);
    int sum = 0;
    for (int i = 0; i < 8; i++)
        sum += w->array[i];
    PE_CHECK_EQ_I64(sum, 36);
    PE_CHECK_EQ_U64(w->sys, 256ull + (256ull << 40));
    PE_CHECK_EQ_I64(w->block_count[0], 128);
    PE_CHECK_EQ_I64(w->block_count[1], 128);
    PE_CHECK_EQ_I64(w->object.load(), 5 + 3 * 256);
    PE_CHECK_EQ_I64(w->waited, 1);
    cudaFree(w);
    nvshmem_finalize();
    return 0;
}

static void test_atomic_ref(void **) { run_pes(2, atomic_ref_body, nullptr); }

/* Host-side use (CUDA allows atomic_ref in host code too). */
static void test_atomic_ref_host(void **)
{
    long long v = 10;
    cuda::std::atomic_ref<long long> r(v);
    assert_true(r.exchange(20) == 10);
    long long e = 5;
    assert_false(r.compare_exchange_strong(e, 30));
    assert_true(e == 20);
    assert_true(r.compare_exchange_strong(e, 30, cuda::std::memory_order_acq_rel,
                                          cuda::std::memory_order_acquire));
    assert_true(r.load(cuda::std::memory_order_relaxed) == 30);
    assert_true(--r == 29);
    assert_true(r.fetch_sub(9) == 29);
    assert_true(static_cast<long long>(r) == 20);
    r = -4;
    assert_true(v == -4);
    double x = 1.0;
    cuda::atomic_ref<double> rx(x);
    double ex = 1.0;
    assert_true(rx.compare_exchange_strong(ex, 2.5));
    assert_true(x == 2.5 && rx.fetch_sub(0.5) == 2.5 && x == 2.0);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
}

/* ---- cooperative groups ------------------------------------------------------------------ */

template <unsigned N> static void tile_checks(const cg::thread_block &block, long long *o)
{
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    unsigned r = tile.thread_rank();
    o[0] = r;
    o[1] = tile.size();
    o[2] = tile.meta_group_rank();
    o[3] = tile.meta_group_size();
    o[4] = cg::reduce(tile, static_cast<int>(r), cg::plus<int>());
    o[5] = tile.shfl(static_cast<int>(r) * 10, static_cast<int>(N) - 1);
    o[6] = tile.shfl_down(static_cast<int>(r), 1);
    o[7] = tile.shfl_up(static_cast<int>(r), 1);
    o[8] = tile.shfl_xor(static_cast<int>(r), 1);
    o[9] = tile.ballot(r % 2 == 1);
    o[10] = tile.any(r == N - 1);
    o[11] = tile.all(r < N);
    o[12] = cg::reduce(tile, static_cast<int>(r) + 5, cg::less<int>());
    o[13] = cg::reduce(tile, static_cast<int>(r), cg::greater<int>());
    tile.sync();
}

void groups_kernel(long long *out)
{
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    long long *o = out + 128 * t;
    o[0] = t;
    o[1] = block.size();
    o[2] = block.group_index().x;
    o[3] = block.thread_index().x == threadIdx.x;
    block.sync();
    tile_checks<32>(block, o + 10);
    tile_checks<16>(block, o + 24);
    tile_checks<8>(block, o + 38);
    tile_checks<4>(block, o + 52);
    tile_checks<2>(block, o + 66);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
    o[80] = quad.meta_group_rank();
    o[81] = quad.meta_group_size();
    cg::thread_group g = cg::tiled_partition(block, 8);
    o[82] = g.size();
    o[83] = g.thread_rank();
    g.sync();
    cg::sync(g);
    o[84] = cg::group_size(block);
}

/* The coalesced group of a converged warp: 44 threads, so the second warp has 12 lanes. (In
 * a divergent branch the emulator's __activemask is every lane that has not exited: see
 * cuda/README.md.) */
void coalesced_kernel(long long *out)
{
    unsigned t = threadIdx.x, lane = t % 32;
    long long *o = out + 8 * t;
    cg::coalesced_group active = cg::coalesced_threads();
    o[0] = active.size();
    o[1] = active.thread_rank();
    o[2] = active.shfl(static_cast<int>(lane) * 2, 3);
    o[3] = cg::reduce(active, static_cast<int>(lane), cg::plus<int>());
    o[4] = active.ballot(lane >= 5);
    o[5] = active.any(lane == 11);
    o[6] = active.all(lane < 12);
    active.sync();
}

static void check_tile(unsigned N, unsigned t, const long long *o)
{
    unsigned r = t % N;
    PE_CHECK_EQ_I64(o[0], r);
    PE_CHECK_EQ_I64(o[1], N);
    PE_CHECK_EQ_I64(o[2], t / N);
    PE_CHECK_EQ_I64(o[3], 64 / N);
    PE_CHECK_EQ_I64(o[4], N * (N - 1) / 2);
    PE_CHECK_EQ_I64(o[5], (N - 1) * 10);
    PE_CHECK_EQ_I64(o[6], r + 1 < N ? r + 1 : r);
    PE_CHECK_EQ_I64(o[7], r >= 1 ? r - 1 : r);
    PE_CHECK_EQ_I64(o[8], r ^ 1);
    PE_CHECK_EQ_U64(static_cast<uint64_t>(o[9]), 0xaaaaaaaau & (N == 32 ? ~0u : (1u << N) - 1));
    PE_CHECK_EQ_I64(o[10], 1);
    PE_CHECK_EQ_I64(o[11], 1);
    PE_CHECK_EQ_I64(o[12], 5);
    PE_CHECK_EQ_I64(o[13], N - 1);
}

static int groups_body(void *)
{
    nvshmem_init();
    long long *out = nullptr;
    cudaMalloc(&out, 64 * 128 * sizeof(long long));
    PE_CHECK(LAUNCH_K(groups_kernel, (1, 64), out) == cudaSuccess);
    cudaDeviceSynchronize();
    for (unsigned t = 0; t < 64; t++) {
        const long long *o = out + 128 * t;
        unsigned lane = t % 32;
        PE_CHECK_EQ_I64(o[0], t);
        PE_CHECK_EQ_I64(o[1], 64);
        PE_CHECK_EQ_I64(o[2], 0);
        PE_CHECK_EQ_I64(o[3], 1);
        check_tile(32, t, o + 10);
        check_tile(16, t, o + 24);
        check_tile(8, t, o + 38);
        check_tile(4, t, o + 52);
        check_tile(2, t, o + 66);
        PE_CHECK_EQ_I64(o[80], lane / 4);
        PE_CHECK_EQ_I64(o[81], 8);
        PE_CHECK_EQ_I64(o[82], 8);
        PE_CHECK_EQ_I64(o[83], t % 8);
        PE_CHECK_EQ_I64(o[84], 64);
    }
    PE_CHECK(LAUNCH_K(coalesced_kernel, (1, 44), out) == cudaSuccess);
    cudaDeviceSynchronize();
    for (unsigned t = 0; t < 44; t++) {
        const long long *o = out + 8 * t;
        unsigned lane = t % 32;
        bool second = t >= 32;
        PE_CHECK_EQ_I64(o[0], second ? 12 : 32);
        PE_CHECK_EQ_I64(o[1], lane);
        PE_CHECK_EQ_I64(o[2], 6);
        PE_CHECK_EQ_I64(o[3], second ? 66 : 496);
        PE_CHECK_EQ_U64(static_cast<uint64_t>(o[4]), second ? 0xfe0u : 0xffffffe0u);
        PE_CHECK_EQ_I64(o[5], 1);
        PE_CHECK_EQ_I64(o[6], second ? 1 : 0);
    }
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static void test_cooperative_groups(void **) { run_pes(1, groups_body, nullptr); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atomic_ref),
        cmocka_unit_test(test_atomic_ref_host),
        cmocka_unit_test(test_cooperative_groups),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
