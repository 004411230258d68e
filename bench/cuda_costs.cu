/*
 * cuda_costs.cu: bench/emu_costs.c's sets `block1024` and `job` written as CUDA C++, built
 * by bin/shmemu-nvcc (make bench-cuda) and run on the emulator through the CUDA layer. The
 * kernels, their checks and the method are emu_costs.c's, line for line where CUDA allows,
 * so that bench/cuda_costs.sh can put the two side by side and take the ratio .cu / dialect.
 *
 *   cuda_costs block1024   (1 PE) stack_1024, launch_sync_1024, syncthreads_1024,
 *                          shfl_sync_1024, shfl_down_1024 (the bare fiber switch is the
 *                          emulator's own code, the same under both: emu_costs times it)
 *   cuda_costs job         (SHMEMU_NPES PEs) per step: 8 blocks of 1024 threads, one
 *                          nvshmemx_int_put_block per block to the next PE, then
 *                          nvshmemx_barrier_all_on_stream and a stream sync
 *
 * Lines are printed as `cuda NAME ...` with emu_costs's fields. Every kernel's result is
 * checked; a wrong one ends the job with status 1, so a broken layer gives no table.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "bench_common.h"

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

static void report(const char *name, double *per_op_ns, size_t n)
{
    double mn = bench_min(per_op_ns, n);
    double med = bench_median(per_op_ns, n);
    printf("cuda %s median_ns=%.1f min_ns=%.1f batches=%zu\n", name, med, mn, n);
    fflush(stdout);
}

static void fail_result(const char *what, int tid, long got, long want)
{
    fprintf(stderr, "cuda_costs: WRONG RESULT: %s: thread %d has %ld, want %ld\n", what, tid,
            got, want);
    nvshmem_global_exit(1);
}

static void check_cuda(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess || (rc = cudaGetLastError()) != cudaSuccess) {
        fprintf(stderr, "cuda_costs: %s failed: %s\n", what, cudaGetErrorString(rc));
        nvshmem_global_exit(1);
    }
}

/* ---- kernels ------------------------------------------------------------------------------ */

__global__ void empty_kernel() {}

__global__ void addr_kernel(unsigned long long *where)
{
    int local = threadIdx.x;
    where[threadIdx.x] = reinterpret_cast<unsigned long long>(&local);
    __syncthreads(); /* every fiber is live at once */
}

/* Timed on thread 0 with clock64() (nanoseconds on the emulator) after a first
 * __syncthreads and after a last one, as emu_costs.c's kernels do with globaltimer(). */
__global__ void sync_timed(long rounds, int *out, long long *time, int *slot)
{
    int acc = 0, t = threadIdx.x;
    __syncthreads();
    if (t == 0)
        time[0] = clock64();
    for (long i = 0; i < rounds; i++) {
        int *buf = slot + (i & 1) * BIG;
        buf[t] = i + t;
        __syncthreads();
        acc += buf[(t + 1) % BIG];
    }
    if (threadIdx.x == 0)
        time[1] = clock64();
    out[threadIdx.x] = acc;
}

/* Lane l takes lane l+1's value each round (a rotation of the warp). */
__global__ void shfl_timed(long rounds, int *out, long long *time, int *)
{
    unsigned lane = threadIdx.x & 31u;
    int v = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        time[0] = clock64();
    for (long i = 0; i < rounds; i++)
        v = __shfl_sync(0xffffffffu, v, (lane + 1) & 31u);
    __syncthreads();
    if (threadIdx.x == 0)
        time[1] = clock64();
    out[threadIdx.x] = v;
}

/* Lane l takes lane l+1's value plus l+1 each round; lane 31 keeps its own (plus 32). */
__global__ void shfl_down_timed(long rounds, int *out, long long *time, int *)
{
    int v = threadIdx.x, lane = threadIdx.x & 31u;
    __syncthreads();
    if (threadIdx.x == 0)
        time[0] = clock64();
    for (long i = 0; i < rounds; i++)
        v = __shfl_down_sync(0xffffffffu, v, 1) + lane + 1;
    __syncthreads();
    if (threadIdx.x == 0)
        time[1] = clock64();
    out[threadIdx.x] = v;
}

/* What element i of PE pe's slice holds at step `step`: every step and PE differ. */
__host__ __device__ inline int job_value(int step, int pe, int i)
{
    return (step + 1) * 1000000 + pe * 10000 + i;
}

__global__ void put_kernel(int *dst, int *src, int mype, int npes, int step)
{
    int *mine = src + blockIdx.x * blockDim.x;
    mine[threadIdx.x] = job_value(step, mype, blockIdx.x * blockDim.x + threadIdx.x);
    __syncthreads();
    nvshmemx_int_put_block(dst + blockIdx.x * blockDim.x, mine, blockDim.x, (mype + 1) % npes);
}

/* ---- block1024 -------------------------------------------------------------------------- */

static void bench_stack_memory(cudaStream_t s, unsigned long long *where_d)
{
    long vm0 = bench_status_kb("VmSize"), rss0 = bench_status_kb("VmRSS");
    addr_kernel<<<1, BIG, 0, s>>>(where_d);
    check_cuda(cudaStreamSynchronize(s), "addr_kernel");
    long vm1 = bench_status_kb("VmSize"), rss1 = bench_status_kb("VmRSS");
    uintptr_t where[BIG];
    check_cuda(cudaMemcpy(where, where_d, sizeof where, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int i = 0; i < BIG; i++)
        if (where[i] == 0)
            fail_result("addr_kernel", i, 0, 1);
    long vmas = 0, size_kb = 0, rss_kb = 0;
    if (bench_smaps_sum(where, BIG, &vmas, &size_kb, &rss_kb) != 0 || vmas != BIG) {
        fprintf(stderr, "cuda_costs: WRONG RESULT: the %d threads' locals lie in %ld mappings "
                        "of /proc/self/smaps, want one stack each\n", BIG, vmas);
        nvshmem_global_exit(1);
    }
    printf("cuda stack_1024 threads=%d stacks=%ld stack_size_kb=%ld stack_rss_kb=%ld "
           "vmsize_delta_kb=%ld vmrss_delta_kb=%ld\n",
           BIG, vmas, size_kb, rss_kb, vm1 - vm0, rss1 - rss0);
    fflush(stdout);
}

static void bench_launch_1024(cudaStream_t s)
{
    double ns[LAUNCH_BATCHES];
    for (int b = 0; b < LAUNCH_BATCHES; b++) {
        uint64_t t0 = bench_now_ns();
        empty_kernel<<<1, BIG, 0, s>>>();
        check_cuda(cudaStreamSynchronize(s), "empty_kernel");
        ns[b] = static_cast<double>(bench_now_ns() - t0);
    }
    report("launch_sync_1024", ns, LAUNCH_BATCHES);
}

/* One timed kernel per batch; which: 0 __syncthreads, 1 __shfl_sync, 2 __shfl_down_sync. */
static void bench_timed(cudaStream_t s, int which, int *out_d, long long *time_d, int *slot_d)
{
    static const char *const names[] = {"syncthreads_1024", "shfl_sync_1024", "shfl_down_1024"};
    const long rounds = TIMED_ROUNDS;
    double ns[TIMED_BATCHES];
    int out[BIG];
    long long time[2];
    for (int b = 0; b < TIMED_BATCHES; b++) {
        if (which == 0)
            sync_timed<<<1, BIG, 0, s>>>(rounds, out_d, time_d, slot_d);
        else if (which == 1)
            shfl_timed<<<1, BIG, 0, s>>>(rounds, out_d, time_d, slot_d);
        else
            shfl_down_timed<<<1, BIG, 0, s>>>(rounds, out_d, time_d, slot_d);
        check_cuda(cudaStreamSynchronize(s), names[which]);
        check_cuda(cudaMemcpy(out, out_d, sizeof out, cudaMemcpyDeviceToHost), "cudaMemcpy");
        check_cuda(cudaMemcpy(time, time_d, sizeof time, cudaMemcpyDeviceToHost), "cudaMemcpy");
        ns[b] = static_cast<double>(time[1] - time[0]) / static_cast<double>(rounds);
        for (int t = 0; t < BIG; t++)
            if (out[t] != bench_timed_want(which, rounds, t, BIG))
                fail_result(names[which], t, out[t], bench_timed_want(which, rounds, t, BIG));
    }
    report(names[which], ns, TIMED_BATCHES);
}

static int block1024_main()
{
    cudaStream_t s;
    check_cuda(cudaStreamCreate(&s), "cudaStreamCreate");
    unsigned long long *where = nullptr;
    int *out = nullptr;
    long long *time = nullptr;
    int *slot = nullptr;
    check_cuda(cudaMalloc(&slot, 2 * BIG * sizeof *slot), "cudaMalloc");
    check_cuda(cudaMalloc(&where, BIG * sizeof *where), "cudaMalloc");
    check_cuda(cudaMalloc(&out, BIG * sizeof *out), "cudaMalloc");
    check_cuda(cudaMalloc(&time, 2 * sizeof *time), "cudaMalloc");
    bench_stack_memory(s, where); /* first: the process's first block stacks */
    bench_launch_1024(s);
    bench_timed(s, 0, out, time, slot);
    bench_timed(s, 1, out, time, slot);
    bench_timed(s, 2, out, time, slot);
    cudaFree(slot);
    cudaFree(where);
    cudaFree(out);
    cudaFree(time);
    cudaStreamDestroy(s);
    return 0;
}

/* ---- the job ---------------------------------------------------------------------------- */

static int job_main()
{
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    check_cuda(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)), "cudaSetDevice");
    cudaStream_t s;
    check_cuda(cudaStreamCreate(&s), "cudaStreamCreate");
    const int n = JOB_BLOCKS * BIG;
    int *src = static_cast<int *>(nvshmem_malloc(n * sizeof(int)));
    int *dst = static_cast<int *>(nvshmem_malloc(n * sizeof(int)));
    int *got = static_cast<int *>(malloc(n * sizeof(int)));
    if (src == nullptr || dst == nullptr || got == nullptr) {
        fprintf(stderr, "cuda_costs: out of memory\n");
        nvshmem_global_exit(1);
    }
    double ns[JOB_STEPS];
    int prev = (me - 1 + npes) % npes;
    for (int step = 0; step < JOB_STEPS; step++) {
        nvshmem_barrier_all();
        uint64_t t0 = bench_now_ns();
        put_kernel<<<JOB_BLOCKS, BIG, 0, s>>>(dst, src, me, npes, step);
        nvshmemx_barrier_all_on_stream(s);
        check_cuda(cudaStreamSynchronize(s), "put_kernel");
        ns[step] = static_cast<double>(bench_now_ns() - t0);
        check_cuda(cudaMemcpy(got, dst, n * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
        for (int i = 0; i < n; i++)
            if (got[i] != job_value(step, prev, i)) {
                fprintf(stderr, "cuda_costs: WRONG RESULT: job step %d: PE %d element %d is "
                                "%d, want %d\n", step, me, i, got[i], job_value(step, prev, i));
                nvshmem_global_exit(1);
            }
        nvshmem_barrier_all(); /* every PE has checked before the next step's puts */
    }
    if (me == 0) {
        double first = ns[0];
        double mn = bench_min(ns + 1, JOB_STEPS - 1), med = bench_median(ns + 1, JOB_STEPS - 1);
        printf("cuda job pes=%d blocks=%d threads=%d steps=%d first_ns=%.0f median_ns=%.0f "
               "min_ns=%.0f maps=%ld max_map_count=%ld\n", npes, JOB_BLOCKS, BIG, JOB_STEPS, first,
               med, mn, bench_map_count(), bench_max_map_count());
        fflush(stdout);
    }
    free(got);
    nvshmem_free(dst);
    nvshmem_free(src);
    cudaStreamDestroy(s);
    return 0;
}

int main(int argc, char **argv)
{
    const char *set = argc == 2 ? argv[1] : "";
    bool block1024 = strcmp(set, "block1024") == 0, job = strcmp(set, "job") == 0;
    if (!block1024 && !job) {
        fprintf(stderr, "usage: cuda_costs block1024 | job   (job: SHMEMU_NPES PEs)\n");
        return 2;
    }
    nvshmem_init();
    int rc = block1024 ? block1024_main() : job_main();
    nvshmem_finalize();
    return rc;
}
