/*
 * test_cuda_launch.cpp: launches of .cu kernels through the layer (shmemu_cuda/launch.h):
 * every thread's own copy of the arguments, taken at the launch; configurations given as
 * dim3, int and unsigned; CUDA's errors for bad configurations and dynamic shared memory over
 * the limit, kept for cudaGetLastError; launches by address through register_kernel
 * (cudaLaunchKernel, cudaLaunchCooperativeKernel, nvshmemx_collective_launch) and their
 * errors; dynamic and static shared memory per block; the stream-ordered memory calls and a
 * synchronous cudaMemcpy after a kernel.
 */
#include <cstring>

#include "cuda_test.h"
#include "cooperative_groups.h"

namespace cg = cooperative_groups;

/* ---- arguments ------------------------------------------------------------------------ */

struct payload {
    int v[4];
};

/* A parameter whose move empties its source: every thread must move from its own copy. */
struct handle {
    const int *p;
    explicit handle(const int *q) : p(q) {}
    handle(const handle &) = default;
    handle(handle &&o) noexcept : p(o.p) { o.p = nullptr; }
};

/* Each thread changes its parameters: with shared copies the changes would add up. */
void args_kernel(int *out, int base, payload p, handle h)
{
    unsigned t = threadIdx.x + blockDim.x * blockIdx.x;
    base += static_cast<int>(t);
    p.v[0] += static_cast<int>(t);
    p.v[3] *= 2;
    __syncthreads();
    out[t] = h.p == nullptr ? -1 : base * 1000 + p.v[0] + p.v[3] + *h.p;
}
REGISTER(args_kernel);

static int args_body(void *)
{
    nvshmem_init();
    int *out = nullptr;
    PE_CHECK(cudaMalloc(&out, 128 * sizeof(int)) == cudaSuccess);
    int base = 7;
    payload p = {{1, 2, 3, 4}};
    static const int zero = 0;
    handle h(&zero);
    PE_CHECK(LAUNCH_K(args_kernel, (2, 64), out, base, p, h) == cudaSuccess);
    /* The launch copied them: later host writes are not the kernel's. */
    base = -1;
    p.v[0] = -1;
    p.v[3] = -1;
    PE_CHECK(cudaDeviceSynchronize() == cudaSuccess);
    for (int t = 0; t < 128; t++)
        PE_CHECK_EQ_I64(out[t], (7 + t) * 1000 + (1 + t) + 8);
    /* By address: the same copies from a void *args[] array. */
    std::memset(out, 0, 128 * sizeof(int));
    base = 3;
    p = payload{{10, 0, 0, 1}};
    void *args[] = {&out, &base, &p, &h};
    PE_CHECK(cudaLaunchKernel((const void *)args_kernel, dim3(1), dim3(128), args, 0, nullptr) ==
             cudaSuccess);
    base = 100;
    cudaDeviceSynchronize();
    for (int t = 0; t < 128; t++)
        PE_CHECK_EQ_I64(out[t], (3 + t) * 1000 + (10 + t) + 2);
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static void test_arguments_per_thread(void **)
{
    run_pes(1, args_body, nullptr);
    run_pes(2, args_body, nullptr);
}

/* ---- configurations -------------------------------------------------------------------- */

void where_kernel(uint32_t *out)
{
    uint3 t = threadIdx, b = blockIdx;
    dim3 bd = blockDim, gd = gridDim;
    unsigned block = b.x + gd.x * (b.y + gd.y * b.z);
    unsigned thread = t.x + bd.x * (t.y + bd.y * t.z);
    out[block * bd.x * bd.y * bd.z + thread] =
        (b.x << 24) | (b.y << 20) | (b.z << 16) | (t.x << 8) | (t.y << 4) | t.z;
}

template <class G, class B> static void check_where(G grid, B block, dim3 g, dim3 b)
{
    size_t n = static_cast<size_t>(g.x) * g.y * g.z * b.x * b.y * b.z;
    uint32_t *out = nullptr;
    cudaMalloc(&out, n * sizeof *out);
    PE_CHECK(LAUNCH_K(where_kernel, (grid, block), out) == cudaSuccess);
    cudaDeviceSynchronize();
    size_t i = 0;
    for (unsigned bz = 0; bz < g.z; bz++)
        for (unsigned by = 0; by < g.y; by++)
            for (unsigned bx = 0; bx < g.x; bx++)
                for (unsigned tz = 0; tz < b.z; tz++)
                    for (unsigned ty = 0; ty < b.y; ty++)
                        for (unsigned tx = 0; tx < b.x; tx++)
                            PE_CHECK_EQ_U64(out[i++], (bx << 24) | (by << 20) | (bz << 16) |
                                                          (tx << 8) | (ty << 4) | tz);
    cudaFree(out);
}

static int config_body(void *)
{
    nvshmem_init();
    check_where(3, 5, dim3(3), dim3(5));
    check_where(2u, 4u, dim3(2), dim3(4));
    check_where(dim3(3, 2, 2), dim3(5, 3, 2), dim3(3, 2, 2), dim3(5, 3, 2));
    check_where(static_cast<size_t>(2), dim3(1, 1, 3), dim3(2), dim3(1, 1, 3));
    /* through a pointer to the kernel: (*fp)<<<2, 3>>>(out) */
    void (*fp)(uint32_t *) = where_kernel;
    uint32_t *out = nullptr;
    cudaMalloc(&out, 6 * sizeof *out);
    PE_CHECK(LAUNCH_K((*fp), (2, 3), out) == cudaSuccess);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_U64(out[5], (1u << 24) | (2u << 8));
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static void test_configurations(void **) { run_pes(1, config_body, nullptr); }

/* ---- launch errors ------------------------------------------------------------------------ */

void fill_shared_kernel(int *out, int n)
{
    int *smem = ::shmemu_cuda::dynamic_shared<int>();
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x))
        smem[i] = i;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = smem[n - 1];
}
REGISTER(fill_shared_kernel);

template <class T> void template_kernel(T *out) { out[threadIdx.x] = static_cast<T>(threadIdx.x); }

static int errors_body(void *)
{
    nvshmem_init();
    int *out = nullptr;
    cudaMalloc(&out, 4096 * sizeof(int));
    PE_CHECK(cudaGetLastError() == cudaSuccess);

    /* zero and too-large sizes */
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (0, 32), (uint32_t *)out), cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaSuccess);
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (1, 1025), (uint32_t *)out), cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (1, dim3(32, 32, 2)), (uint32_t *)out),
                    cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (1, dim3(1, 1, 65)), (uint32_t *)out),
                    cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (dim3(1, 65536), 1), (uint32_t *)out),
                    cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (1, dim3(0, 4)), (uint32_t *)out),
                    cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(LAUNCH_K(where_kernel, (1, 1024), (uint32_t *)out), cudaSuccess);
    cudaDeviceSynchronize();

    /* dynamic shared memory: 48 KiB without the attribute, up to the attribute's value */
    const int ints = 20000; /* 80000 bytes */
    PE_CHECK_EQ_I64(LAUNCH_K(fill_shared_kernel, (2, 64, 48 * 1024), out, 48 * 256), cudaSuccess);
    PE_CHECK_EQ_I64(LAUNCH_K(fill_shared_kernel, (2, 64, ints * sizeof(int)), out, ints),
                    cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(fill_shared_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024),
                    cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(fill_shared_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         ints * sizeof(int)),
                    cudaSuccess);
    cudaFuncAttributes fa;
    PE_CHECK_EQ_I64(cudaFuncGetAttributes(&fa, fill_shared_kernel), cudaSuccess);
    PE_CHECK_EQ_I64(fa.maxDynamicSharedSizeBytes, ints * sizeof(int));
    PE_CHECK_EQ_I64(LAUNCH_K(fill_shared_kernel, (2, 64, ints * sizeof(int)), out, ints),
                    cudaSuccess);
    PE_CHECK_EQ_I64(LAUNCH_K(fill_shared_kernel, (2, 64, ints * sizeof(int) + 4), out, ints),
                    cudaErrorInvalidValue);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_I64(out[0], ints - 1);
    PE_CHECK_EQ_I64(out[1], ints - 1);
    /* By address, the same limit. */
    int n = ints + 1;
    void *args[] = {&out, &n};
    PE_CHECK_EQ_I64(cudaLaunchKernel(fill_shared_kernel, dim3(1), dim3(32), args,
                                     (ints + 1) * sizeof(int), nullptr),
                    cudaErrorInvalidValue);

    /* A template kernel's instance is not registered: launched with <<<>>> only; its
     * attribute goes to the entry of unregistered kernels. */
    PE_CHECK_EQ_I64(cudaLaunchKernel((const void *)template_kernel<int>, dim3(1), dim3(32),
                                     args, 0, nullptr),
                    cudaErrorInvalidDeviceFunction);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    PE_CHECK_EQ_I64(LAUNCH_K(template_kernel<int>, (1, 32, 64 * 1024), out), cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(template_kernel<int>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024),
                    cudaSuccess);
    PE_CHECK_EQ_I64(LAUNCH_K(template_kernel<int>, (1, 32, 64 * 1024), out), cudaSuccess);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_I64(out[31], 31);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaSuccess);
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static void test_launch_errors(void **)
{
    static char out[16384];
    run_pes_capture(1, errors_body, nullptr, out, sizeof out);
    assert_contains(out, "<<<>>> launch of kernel where_kernel at ");
    assert_contains(out, "block (1025,1,1) is not a valid block");
    assert_contains(out, "cudaFuncAttributeMaxDynamicSharedMemorySize");
    assert_contains(out, "template kernels with <<<>>>");
    assert_contains(out, "cudaErrorInvalidDeviceFunction");
}

/* ---- cooperative launches --------------------------------------------------------------- */

/* Every block writes its slot, the grid synchronizes, every block sums all slots. */
void grid_kernel(int *slots, int *sums)
{
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0)
        atomicExch_system(&slots[blockIdx.x], static_cast<int>(blockIdx.x) + 1);
    grid.sync();
    if (threadIdx.x == 0) {
        int s = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            s += atomicAdd_system(&slots[b], 0);
        sums[blockIdx.x] = s;
    }
}
REGISTER(grid_kernel);

static int coop_body(void *)
{
    nvshmem_init();
    ::shmemu_cuda::device_properties().multiProcessorCount = 2;
    int per_sm = 0;
    PE_CHECK_EQ_I64(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_kernel, 1024, 0),
                    cudaSuccess);
    PE_CHECK_EQ_I64(per_sm, 2);
    int grid_max = 0;
    PE_CHECK_EQ_I64(nvshmemx_collective_launch_query_gridsize((const void *)grid_kernel,
                                                               dim3(1024), nullptr, 0, &grid_max),
                    NVSHMEMX_SUCCESS);
    PE_CHECK_EQ_I64(grid_max, 4);
    int *slots = nullptr, *sums = nullptr;
    cudaMalloc(&slots, 8 * sizeof(int));
    cudaMalloc(&sums, 8 * sizeof(int));
    void *args[] = {&slots, &sums};
    PE_CHECK_EQ_I64(cudaLaunchCooperativeKernel(grid_kernel, dim3(4), dim3(1024), args, 0, nullptr),
                    cudaSuccess);
    cudaDeviceSynchronize();
    for (int b = 0; b < 4; b++)
        PE_CHECK_EQ_I64(sums[b], 10);
    PE_CHECK_EQ_I64(cudaLaunchCooperativeKernel(grid_kernel, dim3(5), dim3(1024), args, 0, nullptr),
                    cudaErrorCooperativeLaunchTooLarge);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
    /* Smaller blocks fit more per SM. */
    std::memset(slots, 0, 8 * sizeof(int));
    PE_CHECK_EQ_I64(nvshmemx_collective_launch((const void *)grid_kernel, dim3(8), dim3(256), args,
                                               0, nullptr),
                    NVSHMEMX_SUCCESS);
    cudaDeviceSynchronize();
    for (int b = 0; b < 8; b++)
        PE_CHECK_EQ_I64(sums[b], 36);
    PE_CHECK_EQ_I64(nvshmemx_collective_launch((const void *)grid_kernel, dim3(5), dim3(1024), args,
                                               0, nullptr),
                    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
    PE_CHECK_EQ_I64(nvshmemx_collective_launch((const void *)template_kernel<int>, dim3(1),
                                               dim3(32), args, 0, nullptr),
                    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    cudaFree(slots);
    cudaFree(sums);
    nvshmem_finalize();
    return 0;
}

static void test_cooperative(void **)
{
    static char out[8192];
    run_pes_capture(2, coop_body, nullptr, out, sizeof out);
    assert_contains(out, "cannot be resident at once: 2 SMs hold 2 such blocks each");
}

/* ---- shared memory per block ------------------------------------------------------------ */

void shared_kernel(int *out)
{
    int *const dyn = ::shmemu_cuda::dynamic_shared<int>(); /* extern __shared__ int dyn[]; */
    static thread_local int tile[64];                       /* __shared__ int tile[64]; */
    int (&mine)[64] = ::shmemu_cuda::static_shared<int[64]>([] {}, "mine");
    unsigned t = threadIdx.x, b = blockIdx.x;
    dyn[t] = static_cast<int>(b * 1000 + t);
    tile[t] = static_cast<int>(b * 100 + t);
    mine[t] = static_cast<int>(b * 10 + t);
    __syncthreads();
    unsigned u = (t + 1) % blockDim.x;
    out[3 * (b * blockDim.x + t)] = dyn[u];
    out[3 * (b * blockDim.x + t) + 1] = tile[u];
    out[3 * (b * blockDim.x + t) + 2] = mine[u];
    if (t == 0 && reinterpret_cast<uintptr_t>(dyn) % 16 != 0)
        out[0] = -1;
}

static int shared_body(void *)
{
    nvshmem_init();
    const int blocks = 16, threads = 64;
    int *out = nullptr;
    cudaMalloc(&out, 3 * blocks * threads * sizeof(int));
    PE_CHECK(LAUNCH_K(shared_kernel, (blocks, threads, threads * sizeof(int)), out) == cudaSuccess);
    cudaDeviceSynchronize();
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            int u = (t + 1) % threads;
            PE_CHECK_EQ_I64(out[3 * (b * threads + t)], b * 1000 + u);
            PE_CHECK_EQ_I64(out[3 * (b * threads + t) + 1], b * 100 + u);
            PE_CHECK_EQ_I64(out[3 * (b * threads + t) + 2], b * 10 + u);
        }
    cudaFree(out);
    nvshmem_finalize();
    return 0;
}

static void test_shared_per_block(void **) { run_pes(2, shared_body, nullptr); }

/* ---- stream order ------------------------------------------------------------------------ */

/* Writes late: the host must wait for it. */
void slow_kernel(int *out, int n, int value)
{
    for (int i = 0; i < 20; i++)
        __nanosleep(100000);
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x))
        out[i] = value + i;
}

static int seen_by_host_fn;
static void host_fn(void *p) { seen_by_host_fn = *static_cast<int *>(p); }

static int stream_body(void *)
{
    nvshmem_init();
    const int n = 256;
    int *dev = nullptr, *host = nullptr;
    cudaMalloc(&dev, n * sizeof(int));
    PE_CHECK_EQ_I64(cudaMallocHost(&host, n * sizeof(int)), cudaSuccess);
    /* cudaMemcpy follows the kernel before it. */
    PE_CHECK(LAUNCH_K(slow_kernel, (1, 32), dev, n, 5) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++)
        PE_CHECK_EQ_I64(host[i], 5 + i);
    /* cudaMemset too. */
    PE_CHECK(LAUNCH_K(slow_kernel, (1, 32), dev, n, 9) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemset(dev, 0, n * sizeof(int)), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDefault), cudaSuccess);
    PE_CHECK_EQ_I64(host[n - 1], 0);
    /* Async calls run in stream order: kernel, set, kernel, copy, host function. */
    cudaStream_t s;
    cudaStreamCreate(&s);
    PE_CHECK(LAUNCH_K(slow_kernel, (1, 64, 0, s), dev, n, 100) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemsetAsync(dev, 0xff, 16 * sizeof(int), s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s),
                    cudaSuccess);
    PE_CHECK_EQ_I64(cudaLaunchHostFunc(s, host_fn, &dev[n - 1]), cudaSuccess);
    int *scratch = nullptr;
    PE_CHECK_EQ_I64(cudaMallocAsync(&scratch, 64, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaFreeAsync(scratch, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < n; i++)
        PE_CHECK_EQ_I64(host[i], i < 16 ? -1 : 100 + i);
    PE_CHECK_EQ_I64(seen_by_host_fn, 100 + n - 1);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(host, dev, 4, static_cast<cudaMemcpyKind>(7), s),
                    cudaErrorInvalidMemcpyDirection);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    cudaStreamDestroy(s);
    cudaFreeHost(host);
    cudaFree(dev);
    nvshmem_finalize();
    return 0;
}

static void test_stream_order(void **) { run_pes(1, stream_body, nullptr); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments_per_thread),
        cmocka_unit_test(test_configurations),
        cmocka_unit_test(test_launch_errors),
        cmocka_unit_test(test_cooperative),
        cmocka_unit_test(test_shared_per_block),
        cmocka_unit_test(test_stream_order),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
