/*
 * emu_costs.c: what the emulator's basic operations cost, beside their CPU floors, in the
 * kernel dialect (shmemu/kernel.h). bench/cuda_costs.cu is its twin in CUDA C++ built by
 * bin/shmemu-nvcc: the same kernels and the same method for the sets `block1024` and `job`,
 * so that bench/cuda_costs.sh can run the two side by side.
 *
 *   emu_costs            (what bench/run.sh runs; one PE)
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
 *   emu_costs block1024  (one PE; blocks of 1024 threads)
 *   stack_1024      the fiber stacks of one 1024-thread block, read from /proc/self/smaps
 *                   (the stack mappings that hold each thread's local variable: Size and
 *                   Rss) and /proc/self/status (VmSize, VmRSS before the process's first
 *                   launch and after it)
 *   launch_sync_1024  LAUNCH + cudaStreamSynchronize of an empty kernel of one 1024-thread
 *                   block
 *   syncthreads_1024  one __syncthreads of a 1024-thread block
 *   shfl_sync_1024, shfl_down_1024  one __shfl_sync (a rotation) or __shfl_down_sync (by 1)
 *                   by every thread of a 1024-thread block (32 warps)
 *   fiber_switch    one switch between two fibers (emu/src/fiber.c, called directly: the
 *                   bare switch, without the block's scheduler)
 *
 *   emu_costs job        (SHMEMU_NPES PEs, bench/cuda_costs.sh sets 4)
 *   job             per step, on every PE: a kernel of 8 blocks of 1024 threads, each block
 *                   filling its slice and sending it to the next PE with one
 *                   nvshmemx_int_put_block, then nvshmemx_barrier_all_on_stream and a stream
 *                   sync; the first step (block stacks mapped fresh) and the later ones
 *                   (stacks reused from the stream's cache) are reported apart
 *
 * Every kernel's result is checked (exit status 1 when one is wrong), so a broken emulator
 * cannot produce a table. Every time is the median over batches of per-operation times
 * (bench_common.h), printed as `emu NAME median_ns=... min_ns=...`. The two cores of this
 * machine are shared by whatever else runs.
 */
#include <nvshmem.h>
#include <shmemu/emu.h>
#include <shmemu/kernel.h>
#include <shmemu/pgas.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "bench_common.h"
/* The emulator's own fiber switch (emu_fiber_*), measured bare; -Iemu/src for this file
 * only (bench/bench.mk). */
#include "internal.h"

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

/* ---- blocks of 1024 threads (emu_costs block1024; the same kernels in bench/cuda_costs.cu) */

/* Launches are timed one by one (a noisy neighbour spoils fewer of them), barriers and
 * shuffles TIMED_ROUNDS to a kernel, one kernel per batch. */
enum {
    BIG = 1024,
    BIG_BATCHES = 21,
    LAUNCH_BATCHES = 41,
    TIMED_BATCHES = 31,
    TIMED_ROUNDS = 100,
    JOB_BLOCKS = 8,
    JOB_STEPS = 8
};

typedef struct {
    uintptr_t *where; /* [BIG]: each thread's local variable */
} addr_args;

KERNEL(addr_kernel, addr_args, a)
{
    int local = (int)threadIdx.x;
    a.where[threadIdx.x] = (uintptr_t)&local;
    __syncthreads(); /* every fiber is live at once */
}

/* The timed kernels stamp globaltimer() on thread 0 after a first __syncthreads and after a
 * last one, so that the launch and the fibers' creation stay out of the per-operation time. */
typedef struct {
    long rounds;
    int *out;       /* [BIG] */
    uint64_t *time; /* [2]: start, end */
    int *slot;      /* [2][BIG] */
} timed_args;

/* Round i: each thread writes its slot of buffer i % 2, and after the barrier reads its
 * neighbour's (a barrier that lets a thread through early shows in the sum). Buffer i % 2 is
 * written again in round i + 2, after the barrier of round i + 1, which every read of round
 * i precedes. */
KERNEL(sync_timed, timed_args, a)
{
    int acc = 0, t = (int)threadIdx.x;
    __syncthreads();
    if (t == 0)
        a.time[0] = globaltimer();
    for (long i = 0; i < a.rounds; i++) {
        int *buf = a.slot + (i & 1) * BIG;
        buf[t] = (int)i + t;
        __syncthreads();
        acc += buf[(t + 1) % BIG];
    }
    if (threadIdx.x == 0)
        a.time[1] = globaltimer();
    a.out[threadIdx.x] = acc;
}

/* Lane l takes lane l+1's value each round (a rotation of the warp). */
KERNEL(shfl_timed, timed_args, a)
{
    unsigned lane = threadIdx.x & 31u;
    int v = (int)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        a.time[0] = globaltimer();
    for (long i = 0; i < a.rounds; i++)
        v = __shfl_sync(0xffffffffu, v, (int)((lane + 1) & 31u));
    __syncthreads();
    if (threadIdx.x == 0)
        a.time[1] = globaltimer();
    a.out[threadIdx.x] = v;
}

/* Lane l takes lane l+1's value plus l+1 each round; lane 31 keeps its own (plus 32). The
 * sum records the path, so a lane that read the wrong one shows. */
KERNEL(shfl_down_timed, timed_args, a)
{
    int v = (int)threadIdx.x, lane = (int)(threadIdx.x & 31u);
    __syncthreads();
    if (threadIdx.x == 0)
        a.time[0] = globaltimer();
    for (long i = 0; i < a.rounds; i++)
        v = __shfl_down_sync(0xffffffffu, v, 1) + lane + 1;
    __syncthreads();
    if (threadIdx.x == 0)
        a.time[1] = globaltimer();
    a.out[threadIdx.x] = v;
}

static void fail_result(const char *what, int tid, long got, long want)
{
    fprintf(stderr, "emu_costs: WRONG RESULT: %s: thread %d has %ld, want %ld\n", what, tid, got,
            want);
    exit(1);
}

static void check_launch(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess || (rc = cudaGetLastError()) != cudaSuccess) {
        fprintf(stderr, "emu_costs: %s failed: %s\n", what, cudaGetErrorString(rc));
        exit(1);
    }
}

/* What the process reserves and touches for the fiber stacks of its first 1024-thread block
 * (run before any other launch, with the stream already made). */
static void bench_stack_memory(cudaStream_t s, uintptr_t *where)
{
    long vm0 = bench_status_kb("VmSize"), rss0 = bench_status_kb("VmRSS");
    addr_args a = {where};
    LAUNCH(addr_kernel, DIM3(1, 1, 1), DIM3(BIG, 1, 1), 0, s, a);
    check_launch(cudaStreamSynchronize(s), "addr_kernel");
    /* The block's stack mapping stays in the stream's cache, its pages as the fibers left them. */
    long vm1 = bench_status_kb("VmSize"), rss1 = bench_status_kb("VmRSS");
    long vmas = 0, size_kb = 0, rss_kb = 0;
    for (int i = 0; i < BIG; i++)
        if (where[i] == 0)
            fail_result("addr_kernel", i, 0, 1);
    if (bench_smaps_sum(where, BIG, &vmas, &size_kb, &rss_kb) != 0 || vmas != BIG) {
        fprintf(stderr, "emu_costs: WRONG RESULT: the %d threads' locals lie in %ld mappings of "
                        "/proc/self/smaps, want one stack each\n", BIG, vmas);
        exit(1);
    }
    printf("emu stack_1024 threads=%d stacks=%ld stack_size_kb=%ld stack_rss_kb=%ld "
           "vmsize_delta_kb=%ld vmrss_delta_kb=%ld\n",
           BIG, vmas, size_kb, rss_kb, vm1 - vm0, rss1 - rss0);
    fflush(stdout);
}

static void bench_launch_1024(cudaStream_t s)
{
    double ns[LAUNCH_BATCHES];
    empty_args a = {0};
    for (int b = 0; b < LAUNCH_BATCHES; b++) {
        uint64_t t0 = bench_now_ns();
        LAUNCH(empty_kernel, DIM3(1, 1, 1), DIM3(BIG, 1, 1), 0, s, a);
        check_launch(cudaStreamSynchronize(s), "empty_kernel");
        ns[b] = (double)(bench_now_ns() - t0);
    }
    report("launch_sync_1024", ns, LAUNCH_BATCHES);
}

/* One timed kernel per batch; which: 0 __syncthreads, 1 __shfl_sync, 2 __shfl_down_sync. */
static void bench_timed(cudaStream_t s, int which, int *out, uint64_t *time, int *slot)
{
    static const char *const names[] = {"syncthreads_1024", "shfl_sync_1024", "shfl_down_1024"};
    const long rounds = TIMED_ROUNDS;
    double ns[TIMED_BATCHES];
    timed_args a = {rounds, out, time, slot};
    for (int b = 0; b < TIMED_BATCHES; b++) {
        if (which == 0)
            LAUNCH(sync_timed, DIM3(1, 1, 1), DIM3(BIG, 1, 1), 0, s, a);
        else if (which == 1)
            LAUNCH(shfl_timed, DIM3(1, 1, 1), DIM3(BIG, 1, 1), 0, s, a);
        else
            LAUNCH(shfl_down_timed, DIM3(1, 1, 1), DIM3(BIG, 1, 1), 0, s, a);
        check_launch(cudaStreamSynchronize(s), names[which]);
        ns[b] = (double)(time[1] - time[0]) / (double)rounds;
        for (int t = 0; t < BIG; t++)
            if (out[t] != bench_timed_want(which, rounds, t, BIG))
                fail_result(names[which], t, out[t], bench_timed_want(which, rounds, t, BIG));
    }
    report(names[which], ns, TIMED_BATCHES);
}

/* ---- the bare fiber switch -------------------------------------------------------------- */

static emu_fiber switch_main, switch_other;

static void switch_entry(void)
{
    emu_fiber_started(&switch_other);
    for (;;)
        emu_fiber_switch(&switch_other, &switch_main);
}

static void bench_fiber_switch(void)
{
    const long round_trips = 100000;
    size_t bytes = emu_fiber_stack_size();
    char *stack = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) {
        perror("emu_costs: mmap");
        exit(1);
    }
    emu_fiber_init_main(&switch_main);
    emu_fiber_make(&switch_other, stack, bytes, switch_entry);
    double ns[BIG_BATCHES];
    for (int b = 0; b < BIG_BATCHES; b++) {
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < round_trips; i++)
            emu_fiber_switch(&switch_main, &switch_other);
        ns[b] = (double)(bench_now_ns() - t0) / (double)(2 * round_trips);
    }
    emu_fiber_destroy(&switch_other);
    emu_fiber_destroy_main(&switch_main);
    munmap(stack, bytes);
    report("fiber_switch", ns, BIG_BATCHES);
}

static int block1024_main(void *arg)
{
    (void)arg;
    nvshmem_init();
    cudaStream_t s;
    cudaStreamCreate(&s);
    uintptr_t *where = NULL;
    int *out = NULL;
    uint64_t *time = NULL;
    int *slot = NULL;
    cudaMalloc((void **)&where, BIG * sizeof *where);
    cudaMalloc((void **)&out, BIG * sizeof *out);
    cudaMalloc((void **)&time, 2 * sizeof *time);
    cudaMalloc((void **)&slot, 2 * BIG * sizeof *slot);
    if (where == NULL || out == NULL || time == NULL || slot == NULL) {
        fprintf(stderr, "emu_costs: out of memory\n");
        return 1;
    }
    bench_stack_memory(s, where); /* first: the process's first block stacks */
    bench_launch_1024(s);
    bench_timed(s, 0, out, time, slot);
    bench_timed(s, 1, out, time, slot);
    bench_timed(s, 2, out, time, slot);
    bench_fiber_switch();
    cudaFree(slot);
    cudaFree(where);
    cudaFree(out);
    cudaFree(time);
    cudaStreamDestroy(s);
    nvshmem_finalize();
    return 0;
}

/* ---- the job: 4 PEs, 8 blocks of 1024 threads, a block put and a barrier ---------------- */

typedef struct {
    int *dst, *src;
    int mype, npes, step;
} put_args;

/* What element i of PE pe's slice holds at step `step`: every step and PE differ. */
static inline int job_value(int step, int pe, int i)
{
    return (step + 1) * 1000000 + pe * 10000 + i;
}

KERNEL(put_kernel, put_args, a)
{
    int *mine = a.src + blockIdx.x * blockDim.x;
    mine[threadIdx.x] = job_value(a.step, a.mype, (int)(blockIdx.x * blockDim.x + threadIdx.x));
    __syncthreads();
    nvshmemx_int_put_block(a.dst + blockIdx.x * blockDim.x, mine, blockDim.x,
                           (a.mype + 1) % a.npes);
}

static int job_main(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    cudaStream_t s;
    cudaStreamCreate(&s);
    const int n = JOB_BLOCKS * BIG;
    int *src = nvshmem_malloc(n * sizeof(int));
    int *dst = nvshmem_malloc(n * sizeof(int));
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "emu_costs: out of symmetric memory\n");
        nvshmem_global_exit(1);
    }
    double ns[JOB_STEPS];
    int prev = (me - 1 + npes) % npes;
    for (int step = 0; step < JOB_STEPS; step++) {
        nvshmem_barrier_all();
        uint64_t t0 = bench_now_ns();
        put_args a = {dst, src, me, npes, step};
        LAUNCH(put_kernel, DIM3(JOB_BLOCKS, 1, 1), DIM3(BIG, 1, 1), 0, s, a);
        nvshmemx_barrier_all_on_stream(s);
        check_launch(cudaStreamSynchronize(s), "put_kernel");
        ns[step] = (double)(bench_now_ns() - t0);
        for (int i = 0; i < n; i++)
            if (dst[i] != job_value(step, prev, i)) {
                fprintf(stderr, "emu_costs: WRONG RESULT: job step %d: PE %d element %d is %d, "
                                "want %d\n", step, me, i, dst[i], job_value(step, prev, i));
                nvshmem_global_exit(1);
            }
        nvshmem_barrier_all(); /* every PE has checked before the next step's puts */
    }
    if (me == 0) {
        double first = ns[0];
        double mn = bench_min(ns + 1, JOB_STEPS - 1), med = bench_median(ns + 1, JOB_STEPS - 1);
        printf("emu job pes=%d blocks=%d threads=%d steps=%d first_ns=%.0f median_ns=%.0f "
               "min_ns=%.0f maps=%ld max_map_count=%ld\n", npes, JOB_BLOCKS, BIG, JOB_STEPS, first,
               med, mn, bench_map_count(), bench_max_map_count());
        fflush(stdout);
    }
    nvshmem_free(dst);
    nvshmem_free(src);
    cudaStreamDestroy(s);
    nvshmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    const char *set = argc > 1 ? argv[1] : "";
    if (argc == 1)
        return shmemu_launch(1, pe_main, NULL);
    if (argc == 2 && strcmp(set, "block1024") == 0)
        return shmemu_launch(1, block1024_main, NULL);
    if (argc == 2 && strcmp(set, "job") == 0)
        return shmemu_launch(shmemu_npes_from_env(), job_main, NULL);
    fprintf(stderr, "usage: emu_costs [block1024 | job]   (job: SHMEMU_NPES PEs)\n");
    return 2;
}
