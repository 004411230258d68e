/*
 * emu_costs.c: what the emulator's basic operations cost, beside their CPU floors.
 *
 *   launch_async    LAUNCH of an empty 1x1 kernel, many in a row, one sync at the end
 *                   (launch throughput: cost per kernel)
 *   launch_sync     LAUNCH + cudaStreamSynchronize of an empty 1x1 kernel (latency)
 *   floor_pthread   pthread_create + pthread_join of an empty thread: a block is a pthread,
 *                   so this is what a launch of one block cannot go below
 *   syncthreads_T   one __syncthreads of a block of T threads (the whole block's cost,
 *                   T fiber switches), from a kernel doing many in a loop
 *   signal_rt       round trip between two blocks of one kernel: st_release(SCOPE_SYS) of
 *                   a counter, then a spin of ld_acquire until the other block answers
 *   nvshmem_rt      the same through nvshmemx_signal_op + nvshmem_signal_wait_until
 *   floor_atomic_rt the same round trip between two plain pthreads, C11 release store and
 *                   acquire spin (unpinned, like the blocks)
 *
 * Every number is the median over batches of per-operation times (bench_common.h), printed
 * as `emu NAME median_ns=... min_ns=...`. One PE; the two cores of this machine are shared
 * by whatever else runs.
 */
#include <nvshmem.h>
#include <shmemu/emu.h>
#include <shmemu/kernel.h>
#include <shmemu/pgas.h>
#include <stdatomic.h>

#include "bench_common.h"

enum { BATCHES = 21 };

static void report(const char *name, double *per_op_ns, size_t n)
{
    double mn = bench_min(per_op_ns, n);
    double med = bench_median(per_op_ns, n);
    printf("emu %s median_ns=%.1f min_ns=%.1f batches=%zu\n", name, med, mn, n);
    fflush(stdout);
}

/* ---- kernels ------------------------------------------------------------------------------ */

typedef struct {
    int unused;
} empty_args;

KERNEL(empty_kernel, empty_args, a) { (void)a; }

typedef struct {
    long rounds;
    int *sink;
} sync_args;

KERNEL(sync_kernel, sync_args, a)
{
    int acc = 0;
    for (long i = 0; i < a.rounds; i++) {
        acc += (int)threadIdx.x;
        __syncthreads();
    }
    if (threadIdx.x == blockDim.x - 1)
        *a.sink = acc;
}

typedef struct {
    long rounds;
    uint64_t *ping; /* block 0 -> block 1 */
    uint64_t *pong; /* block 1 -> block 0 */
    int use_nvshmem;
} rt_args;

KERNEL(rt_kernel, rt_args, a)
{
    uint64_t *mine = blockIdx.x == 0 ? a.pong : a.ping;
    uint64_t *theirs = blockIdx.x == 0 ? a.ping : a.pong;
    int me = nvshmem_my_pe();
    for (uint64_t k = 1; k <= (uint64_t)a.rounds; k++) {
        if (blockIdx.x == 1) { /* answer after the ping arrived */
            if (a.use_nvshmem)
                nvshmem_signal_wait_until(mine, NVSHMEM_CMP_GE, k);
            else
                while (ld_acquire(mine, SCOPE_SYS) < k) {
                }
        }
        if (a.use_nvshmem)
            nvshmemx_signal_op(theirs, k, NVSHMEM_SIGNAL_SET, me);
        else
            st_release(theirs, k, SCOPE_SYS);
        if (blockIdx.x == 0) {
            if (a.use_nvshmem)
                nvshmem_signal_wait_until(mine, NVSHMEM_CMP_GE, k);
            else
                while (ld_acquire(mine, SCOPE_SYS) < k) {
                }
        }
    }
}

/* ---- measurements --------------------------------------------------------------------------- */

static void bench_launch(cudaStream_t s)
{
    const long per_batch = 200;
    double async_ns[BATCHES], sync_ns[BATCHES];
    empty_args a = {0};
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < per_batch; i++)
            LAUNCH(empty_kernel, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, s, a);
        cudaStreamSynchronize(s);
        async_ns[b] = (double)(bench_now_ns() - t0) / (double)per_batch;
        t0 = bench_now_ns();
        for (long i = 0; i < per_batch; i++) {
            LAUNCH(empty_kernel, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, s, a);
            cudaStreamSynchronize(s);
        }
        sync_ns[b] = (double)(bench_now_ns() - t0) / (double)per_batch;
    }
    report("launch_async", async_ns, BATCHES);
    report("launch_sync", sync_ns, BATCHES);
}

static void *empty_thread(void *arg) { return arg; }

static void bench_floor_pthread(void)
{
    const long per_batch = 200;
    double ns[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < per_batch; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, empty_thread, NULL) != 0) {
                fprintf(stderr, "emu_costs: pthread_create failed\n");
                exit(1);
            }
            pthread_join(t, NULL);
        }
        ns[b] = (double)(bench_now_ns() - t0) / (double)per_batch;
    }
    report("floor_pthread", ns, BATCHES);
}

static void bench_syncthreads(cudaStream_t s, int threads, int *sink)
{
    const long rounds = threads >= 256 ? 200 : 2000;
    double ns[BATCHES];
    sync_args a = {rounds, sink};
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = bench_now_ns();
        LAUNCH(sync_kernel, DIM3(1, 1, 1), DIM3(threads, 1, 1), 0, s, a);
        cudaStreamSynchronize(s);
        ns[b] = (double)(bench_now_ns() - t0) / (double)rounds;
        int want = (int)rounds * (threads - 1); /* the last thread's sum */
        if (*sink != want) {
            fprintf(stderr, "emu_costs: syncthreads kernel gave %d, want %d\n", *sink, want);
            exit(1);
        }
    }
    char name[32];
    snprintf(name, sizeof name, "syncthreads_%d", threads);
    report(name, ns, BATCHES);
}

static void bench_block_rt(cudaStream_t s, uint64_t *words, int use_nvshmem)
{
    const long rounds = 2000;
    double ns[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        words[0] = words[1] = 0;
        rt_args a = {rounds, words, words + 1, use_nvshmem};
        uint64_t t0 = bench_now_ns();
        LAUNCH(rt_kernel, DIM3(2, 1, 1), DIM3(1, 1, 1), 0, s, a);
        cudaStreamSynchronize(s);
        ns[b] = (double)(bench_now_ns() - t0) / (double)rounds;
        if (words[0] != (uint64_t)rounds || words[1] != (uint64_t)rounds) {
            fprintf(stderr, "emu_costs: round trip ended at %llu/%llu, want %ld\n",
                    (unsigned long long)words[0], (unsigned long long)words[1], rounds);
            exit(1);
        }
    }
    report(use_nvshmem ? "nvshmem_rt" : "signal_rt", ns, BATCHES);
}

typedef struct {
    _Atomic uint64_t ping, pong;
    long rounds;
} raw_rt;

static void *raw_answer(void *arg)
{
    raw_rt *r = arg;
    for (uint64_t k = 1; k <= (uint64_t)r->rounds; k++) {
        while (atomic_load_explicit(&r->ping, memory_order_acquire) < k) {
        }
        atomic_store_explicit(&r->pong, k, memory_order_release);
    }
    return NULL;
}

static void bench_floor_atomic(void)
{
    const long rounds = 20000;
    double ns[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        raw_rt r;
        atomic_init(&r.ping, 0);
        atomic_init(&r.pong, 0);
        r.rounds = rounds;
        pthread_t t;
        if (pthread_create(&t, NULL, raw_answer, &r) != 0) {
            fprintf(stderr, "emu_costs: pthread_create failed\n");
            exit(1);
        }
        uint64_t t0 = bench_now_ns();
        for (uint64_t k = 1; k <= (uint64_t)rounds; k++) {
            atomic_store_explicit(&r.ping, k, memory_order_release);
            while (atomic_load_explicit(&r.pong, memory_order_acquire) < k) {
            }
        }
        ns[b] = (double)(bench_now_ns() - t0) / (double)rounds;
        pthread_join(t, NULL);
    }
    report("floor_atomic_rt", ns, BATCHES);
}

static int pe_main(void *arg)
{
    (void)arg;
    nvshmem_init();
    cudaStream_t s;
    cudaStreamCreate(&s);
    uint64_t *words = nvshmem_calloc(2, sizeof(uint64_t));
    int *sink = NULL;
    cudaMalloc((void **)&sink, sizeof(int));
    if (words == NULL || sink == NULL) {
        fprintf(stderr, "emu_costs: out of memory\n");
        return 1;
    }
    bench_launch(s);
    bench_floor_pthread();
    bench_syncthreads(s, 32, sink);
    bench_syncthreads(s, 256, sink);
    bench_block_rt(s, words, 0);
    bench_block_rt(s, words, 1);
    bench_floor_atomic();
    cudaStreamDestroy(s);
    cudaFree(sink);
    nvshmem_free(words);
    nvshmem_finalize();
    return 0;
}

int main(void) { return shmemu_launch(1, pe_main, NULL); }
