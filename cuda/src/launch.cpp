/*
 * launch.cpp: launches of .cu kernels (shmemu_cuda/launch.h has the design): the checks a GPU
 * makes before running a kernel, the registry of kernels by address, cudaLaunchKernel,
 * cudaLaunchCooperativeKernel and nvshmemx_collective_launch, and the device calls that stop
 * the program (__trap, __brkpt, a built-in read outside a kernel, a tile size not emulated).
 */
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "internal.h"
#include "shmemu/pgas.h"
#include "shmemu_cuda/cg.h"

namespace shmemu_cuda {
namespace detail {

namespace {
/* Written only by register_kernel_record, before main; read-only afterwards. */
registered_kernel *registry = nullptr;

bool dims_fit(dim3 d, const int max[3])
{
    return d.x >= 1 && d.y >= 1 && d.z >= 1 && d.x <= static_cast<unsigned>(max[0]) &&
           d.y <= static_cast<unsigned>(max[1]) && d.z <= static_cast<unsigned>(max[2]);
}
} // namespace

void register_kernel_record(registered_kernel *r)
{
    r->next = registry;
    registry = r;
}

const registered_kernel *find_kernel(const void *address)
{
    for (const registered_kernel *r = registry; r != nullptr; r = r->next)
        if (r->address == address)
            return r;
    return nullptr;
}

const registered_kernel *find_kernel_named(const std::string &name)
{
    for (const registered_kernel *r = registry; r != nullptr; r = r->next)
        if (name == r->kernel.name)
            return r;
    return nullptr;
}

cudaError_t check_launch(const char *how, const char *kernel, const char *file, int line,
                         const launch_config &c, bool cooperative)
{
    const cudaDeviceProp &p = device_properties();
    char call[512];
    if (file != nullptr)
        std::snprintf(call, sizeof call, "%s launch of kernel %s at %s:%d", how, kernel, file,
                      line);
    else
        std::snprintf(call, sizeof call, "%s of kernel %s", how, kernel);
    dim3 g = c.grid, b = c.block;
    unsigned long long threads = static_cast<unsigned long long>(b.x) * b.y * b.z;
    if (!dims_fit(b, p.maxThreadsDim) || threads > static_cast<unsigned long long>(p.maxThreadsPerBlock))
        return fail(cudaErrorInvalidConfiguration, call,
                    "block (%u,%u,%u) is not a valid block: each size at least 1, at most "
                    "(%d,%d,%d), and at most %d threads in all",
                    b.x, b.y, b.z, p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2],
                    p.maxThreadsPerBlock);
    if (!dims_fit(g, p.maxGridSize))
        return fail(cudaErrorInvalidConfiguration, call,
                    "grid (%u,%u,%u) is not a valid grid: each size at least 1, at most "
                    "(%d,%d,%d)",
                    g.x, g.y, g.z, p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    const registered_kernel *r = find_kernel_named(kernel);
    size_t limit = max_dynamic_shared(r != nullptr ? r->address : nullptr, kernel);
    if (c.shared_bytes > limit)
        return fail(cudaErrorInvalidValue, call,
                    "%zu bytes of dynamic shared memory exceed the kernel's limit of %zu; above "
                    "%zu bytes, call cudaFuncSetAttribute(%s, "
                    "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first (at most %zu)",
                    c.shared_bytes, limit, p.sharedMemPerBlock, kernel, p.sharedMemPerBlockOptin);
    if (cooperative) {
        unsigned long long blocks = static_cast<unsigned long long>(g.x) * g.y * g.z;
        int per_sm = occupancy(r != nullptr ? r->address : nullptr, kernel,
                               static_cast<int>(threads), c.shared_bytes);
        unsigned long long fit = static_cast<unsigned long long>(per_sm) * p.multiProcessorCount;
        if (blocks > fit)
            return fail(cudaErrorCooperativeLaunchTooLarge, call,
                        "a cooperative grid of %llu blocks of %llu threads cannot be resident at "
                        "once: %d SMs hold %d such blocks each (%llu in all); size the grid with "
                        "cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount "
                        "(SHMEMU_CUDA_SMS sets the SMs)",
                        blocks, threads, p.multiProcessorCount, per_sm, fit);
    }
    return cudaSuccess;
}

cudaError_t submit(const emu_kernel *k, const launch_config &c, const void *package,
                   size_t size, bool cooperative)
{
    return emu_launch(k, c.grid, c.block, c.shared_bytes, c.stream, package, size, cooperative);
}

/* cudaLaunchKernel and its cooperative forms: a registered kernel, checked, then launched. */
cudaError_t launch_by_address(const char *how, const void *func, const launch_config &c,
                              void **args, bool cooperative)
{
    const registered_kernel *r = find_kernel(func);
    if (r == nullptr)
        return fail(cudaErrorInvalidDeviceFunction, how,
                    "%p is not a registered kernel: shmemu-nvcc registers the non-template "
                    "__global__ functions of .cu files it compiled; launch template kernels "
                    "with <<<>>>",
                    func);
    if (r->n_params > 0 && args == nullptr)
        return fail(cudaErrorInvalidValue, how,
                    "kernel %s takes %zu parameters but args is NULL; pass an array of "
                    "pointers to them",
                    r->kernel.name, r->n_params);
    cudaError_t e = check_launch(how, r->kernel.name, nullptr, 0, c, cooperative);
    if (e != cudaSuccess)
        return e;
    return r->launch(*r, c, args, cooperative);
}

[[noreturn]] void outside_kernel(const char *what)
{
    std::fprintf(stderr, "shmemu: PE %d: %s read outside a kernel; it is a device built-in: "
                         "read it in a __global__ function or in code that one calls\n",
                 shmemu_my_pe(), what);
    std::fflush(nullptr);
    std::abort();
}

} // namespace detail
} // namespace shmemu_cuda

using shmemu_cuda::detail::launch_by_address;
using shmemu_cuda::launch_config;

extern "C" {

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    return launch_by_address("cudaLaunchKernel", func,
                             launch_config(grid, block, sharedMem, stream), args, false);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block,
                                        void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_by_address("cudaLaunchCooperativeKernel", func,
                             launch_config(grid, block, sharedMem, stream), args, true);
}

int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims, void **args,
                               size_t sharedMem, cudaStream_t stream)
{
    cudaError_t e = launch_by_address("nvshmemx_collective_launch", func,
                                      launch_config(gridDims, blockDims, sharedMem, stream),
                                      args, true);
    return e == cudaSuccess ? NVSHMEMX_SUCCESS : NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
}

int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims, void **,
                                              size_t sharedMem, int *gridsize)
{
    if (func == nullptr || gridsize == nullptr) {
        shmemu_cuda::detail::fail(cudaErrorInvalidValue,
                                  "nvshmemx_collective_launch_query_gridsize",
                                  "func or gridsize is NULL");
        return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    int threads = static_cast<int>(blockDims.x * blockDims.y * blockDims.z);
    int per_sm = shmemu_cuda::detail::occupancy(func, nullptr, threads, sharedMem);
    *gridsize = per_sm * shmemu_cuda::device_properties().multiProcessorCount;
    return NVSHMEMX_SUCCESS;
}

} /* extern "C" */

[[noreturn]] void __trap(const char *file, int line)
{
    std::fprintf(stderr, "shmemu: PE %d: __trap() at %s:%d\n", shmemu_my_pe(), file, line);
    std::fflush(nullptr);
    std::abort();
}

[[noreturn]] void __brkpt(const char *file, int line)
{
    std::fprintf(stderr, "shmemu: PE %d: __brkpt() at %s:%d\n", shmemu_my_pe(), file, line);
    std::fflush(nullptr);
    std::raise(SIGTRAP);
    std::abort();
}

[[noreturn]] void cooperative_groups::shmemu_bad_tile_size(unsigned int size)
{
    std::fprintf(stderr, "shmemu: PE %d: tiled_partition(group, %u): tiles are powers of two "
                         "up to 32 lanes here (larger tiles are not emulated)\n",
                 shmemu_my_pe(), size);
    std::fflush(nullptr);
    std::abort();
}
