/*
 * device.cpp: the emulated GPU of each PE, its properties and per-kernel attributes, and
 * occupancy.
 *
 * Every PE is its own GPU, an H100-like device: CUDA's limits per block (1024 threads, 48 KiB
 * of dynamic shared memory unless a kernel's attribute raises it, up to 227 KiB) and per SM
 * (2048 threads, 32 blocks, 228 KiB of shared memory), with SHMEMU_CUDA_SMS SMs (default 16:
 * a grid sized from the SM count is many threads on a CPU). Occupancy follows those limits;
 * registers and static shared memory are not known here and are taken as zero. The device is
 * the calling host thread's (the PE's), made on first use; device_properties() changes it.
 *
 * Attributes set with cudaFuncSetAttribute are kept by kernel identifier (kernel_key), which
 * is what a <<<>>> launch knows of its kernel. An address that register_kernel did not record
 * (a template kernel's instance) has no name here: its attributes go to one shared entry, used
 * by every launch of a kernel whose name is not registered. That entry can only make a launch
 * more permissive than CUDA (never refuse a correct one).
 */
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "internal.h"
#include "shmemu/env.h"
#include "shmemu/pgas.h"

namespace {

struct kernel_attributes {
    std::string key; /* "" for the unnamed entry */
    int max_dynamic_shared;
    int carveout;
};

struct emulated_device {
    bool made = false;
    cudaDeviceProp prop;
    int current = 0;
    unsigned flags = 0;
    std::vector<kernel_attributes> attributes;
};

thread_local emulated_device device;

int device_count()
{
    if (nvshmemx_init_status() >= NVSHMEM_STATUS_IS_INITIALIZED)
        return nvshmem_n_pes();
    return shmemu_npes_from_env();
}

void make_properties(cudaDeviceProp &p)
{
    std::memset(&p, 0, sizeof p);
    std::snprintf(p.name, sizeof p.name, "shmemu emulated GPU");
    int n = device_count();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t ram = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page)
                                       : (size_t(16) << 30);
    p.totalGlobalMem = ram / static_cast<size_t>(n > 0 ? n : 1);
    p.sharedMemPerBlock = 48 * 1024;
    p.regsPerBlock = 65536;
    p.warpSize = 32;
    p.memPitch = 2147483647;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim[0] = 1024;
    p.maxThreadsDim[1] = 1024;
    p.maxThreadsDim[2] = 64;
    p.maxGridSize[0] = 2147483647;
    p.maxGridSize[1] = 65535;
    p.maxGridSize[2] = 65535;
    p.clockRate = 1980000;
    p.totalConstMem = 65536;
    p.major = 9;
    p.minor = 0;
    p.textureAlignment = 512;
    p.texturePitchAlignment = 32;
    p.deviceOverlap = 1;
    p.multiProcessorCount = static_cast<int>(shmemu_env_int("SHMEMU_CUDA_SMS", 1, 4096, 16));
    p.integrated = 0;
    p.canMapHostMemory = 1;
    p.concurrentKernels = 1;
    p.asyncEngineCount = 2;
    p.unifiedAddressing = 1;
    p.memoryClockRate = 2619000;
    p.memoryBusWidth = 5120;
    p.l2CacheSize = 50 * 1024 * 1024;
    p.maxThreadsPerMultiProcessor = 2048;
    p.streamPrioritiesSupported = 1;
    p.globalL1CacheSupported = 1;
    p.localL1CacheSupported = 1;
    p.sharedMemPerMultiprocessor = 228 * 1024;
    p.regsPerMultiprocessor = 65536;
    p.managedMemory = 1;
    p.hostNativeAtomicSupported = 1;
    p.singleToDoublePrecisionPerfRatio = 2;
    p.pageableMemoryAccess = 1;
    p.concurrentManagedAccess = 1;
    p.computePreemptionSupported = 1;
    p.canUseHostPointerForRegisteredMem = 1;
    p.cooperativeLaunch = 1;
    p.sharedMemPerBlockOptin = 227 * 1024;
    p.pageableMemoryAccessUsesHostPageTables = 1;
    p.directManagedMemAccessFromHost = 1;
    p.maxBlocksPerMultiProcessor = 32;
    p.reservedSharedMemPerBlock = 1024;
    p.hostRegisterSupported = 1;
}

emulated_device &dev()
{
    if (!device.made) {
        make_properties(device.prop);
        device.made = true;
    }
    return device;
}

/* cudaSuccess when device d exists, else the error (reported for call). */
cudaError_t check_device(const char *call, int d)
{
    int n = device_count();
    if (d >= 0 && d < n)
        return cudaSuccess;
    return shmemu_cuda::detail::fail(cudaErrorInvalidDevice, call,
                                     "device %d does not exist: there are %d, 0 to %d (one per "
                                     "PE)",
                                     d, n, n - 1);
}

/* The attributes entry of a kernel: by its registered name, else the unnamed entry. */
kernel_attributes *attributes_of(const void *func, const char *kernel_text, bool create)
{
    std::string key;
    if (func != nullptr) {
        const shmemu_cuda::detail::registered_kernel *r = shmemu_cuda::detail::find_kernel(func);
        if (r != nullptr)
            key = r->kernel.name;
    } else {
        key = shmemu_cuda::detail::kernel_key(kernel_text);
        if (shmemu_cuda::detail::find_kernel_named(key) == nullptr)
            key.clear();
    }
    for (kernel_attributes &a : dev().attributes)
        if (a.key == key)
            return &a;
    if (!create)
        return nullptr;
    dev().attributes.push_back({key, -1, -1});
    return &dev().attributes.back();
}

} // namespace

namespace shmemu_cuda {

cudaDeviceProp &device_properties() { return dev().prop; }

namespace detail {

size_t max_dynamic_shared(const void *func, const char *kernel_text)
{
    const kernel_attributes *a = attributes_of(func, kernel_text, false);
    if (a != nullptr && a->max_dynamic_shared >= 0)
        return static_cast<size_t>(a->max_dynamic_shared);
    return dev().prop.sharedMemPerBlock;
}

int occupancy(const void *func, const char *kernel_text, int block_threads, size_t dyn_smem)
{
    const cudaDeviceProp &p = dev().prop;
    if (block_threads <= 0 || block_threads > p.maxThreadsPerBlock ||
        dyn_smem > max_dynamic_shared(func, kernel_text))
        return 0;
    int warps = (block_threads + p.warpSize - 1) / p.warpSize;
    int blocks = p.maxThreadsPerMultiProcessor / (warps * p.warpSize);
    if (blocks > p.maxBlocksPerMultiProcessor)
        blocks = p.maxBlocksPerMultiProcessor;
    size_t per_block = dyn_smem + p.reservedSharedMemPerBlock;
    if (dyn_smem > 0 && static_cast<size_t>(blocks) * per_block > p.sharedMemPerMultiprocessor)
        blocks = static_cast<int>(p.sharedMemPerMultiprocessor / per_block);
    return blocks;
}

} // namespace detail
} // namespace shmemu_cuda

using shmemu_cuda::detail::fail;

extern "C" {

cudaError_t cudaGetDeviceCount(int *count)
{
    if (count == nullptr)
        return fail(cudaErrorInvalidValue, "cudaGetDeviceCount", "count is NULL");
    *count = device_count();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int d)
{
    if (cudaError_t e = check_device("cudaSetDevice", d))
        return e;
    dev().current = d;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d)
{
    if (d == nullptr)
        return fail(cudaErrorInvalidValue, "cudaGetDevice", "device is NULL");
    *d = dev().current;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int d)
{
    if (prop == nullptr)
        return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties", "prop is NULL");
    if (cudaError_t e = check_device("cudaGetDeviceProperties", d))
        return e;
    *prop = dev().prop;
    prop->pciBusID = d;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int d)
{
    if (value == nullptr)
        return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute", "value is NULL");
    if (cudaError_t e = check_device("cudaDeviceGetAttribute", d))
        return e;
    const cudaDeviceProp &p = dev().prop;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxPitch: *value = static_cast<int>(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrTextureAlignment: *value = static_cast<int>(p.textureAlignment); break;
    case cudaDevAttrGpuOverlap: *value = p.deviceOverlap; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = p.computeMode; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = d; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrPciDomainId: *value = p.pciDomainID; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        *value = static_cast<int>(p.sharedMemPerMultiprocessor);
        break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
    case cudaDevAttrMultiGpuBoardGroupID: *value = p.multiGpuBoardGroupID; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
        *value = p.canUseHostPointerForRegisteredMem;
        break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrCooperativeMultiDeviceLaunch: *value = p.cooperativeMultiDeviceLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
        *value = static_cast<int>(p.sharedMemPerBlockOptin);
        break;
    case cudaDevAttrCanFlushRemoteWrites: *value = 0; break;
    case cudaDevAttrHostRegisterSupported: *value = p.hostRegisterSupported; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
        *value = p.pageableMemoryAccessUsesHostPageTables;
        break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
        *value = static_cast<int>(p.reservedSharedMemPerBlock);
        break;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; break;
    case cudaDevAttrGPUDirectRDMASupported: *value = p.gpuDirectRDMASupported; break;
    case cudaDevAttrClusterLaunch: *value = p.clusterLaunch; break;
    default:
        return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute",
                    "attribute %d is not emulated (cuda/README.md lists the emulated ones)",
                    static_cast<int>(attr));
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    dev().attributes.clear();
    return e;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    dev().flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (flags == nullptr)
        return fail(cudaErrorInvalidValue, "cudaGetDeviceFlags", "flags is NULL");
    *flags = dev().flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }

/* Every PE's memory is this process's: every device reaches every other. */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int d, int peer)
{
    if (canAccessPeer == nullptr)
        return fail(cudaErrorInvalidValue, "cudaDeviceCanAccessPeer", "canAccessPeer is NULL");
    if (cudaError_t e = check_device("cudaDeviceCanAccessPeer", d))
        return e;
    if (cudaError_t e = check_device("cudaDeviceCanAccessPeer", peer))
        return e;
    *canAccessPeer = d != peer;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int)
{
    return check_device("cudaDeviceEnablePeerAccess", peer);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer)
{
    return check_device("cudaDeviceDisablePeerAccess", peer);
}

cudaError_t cudaDriverGetVersion(int *v)
{
    if (v == nullptr)
        return fail(cudaErrorInvalidValue, "cudaDriverGetVersion", "version is NULL");
    *v = CUDA_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (v == nullptr)
        return fail(cudaErrorInvalidValue, "cudaRuntimeGetVersion", "version is NULL");
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (free_bytes == nullptr || total == nullptr)
        return fail(cudaErrorInvalidValue, "cudaMemGetInfo", "free or total is NULL");
    *total = dev().prop.totalGlobalMem;
    *free_bytes = *total;
    return cudaSuccess;
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value)
{
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetAttribute", "func is NULL");
    const cudaDeviceProp &p = dev().prop;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || static_cast<size_t>(value) > p.sharedMemPerBlockOptin)
            return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute",
                        "cudaFuncAttributeMaxDynamicSharedMemorySize %d is outside 0 to %zu "
                        "(sharedMemPerBlockOptin)", value, p.sharedMemPerBlockOptin);
        attributes_of(func, nullptr, true)->max_dynamic_shared = value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute",
                        "cudaFuncAttributePreferredSharedMemoryCarveout %d is outside -1 to 100",
                        value);
        attributes_of(func, nullptr, true)->carveout = value;
        return cudaSuccess;
    default:
        return fail(cudaErrorNotSupported, "cudaFuncSetAttribute",
                    "attribute %d is not emulated (thread block clusters are not)",
                    static_cast<int>(attr));
    }
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func)
{
    if (attr == nullptr)
        return fail(cudaErrorInvalidValue, "cudaFuncGetAttributes", "attr is NULL");
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction, "cudaFuncGetAttributes", "func is NULL");
    std::memset(attr, 0, sizeof *attr);
    const kernel_attributes *a = attributes_of(func, nullptr, false);
    attr->maxThreadsPerBlock = dev().prop.maxThreadsPerBlock;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes =
        static_cast<int>(shmemu_cuda::detail::max_dynamic_shared(func, nullptr));
    attr->preferredShmemCarveout = a != nullptr ? a->carveout : -1;
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache)
{
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetCacheConfig", "func is NULL");
    return cudaSuccess;
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig)
{
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetSharedMemConfig",
                    "func is NULL");
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                   const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int)
{
    if (numBlocks == nullptr || blockSize <= 0)
        return fail(cudaErrorInvalidValue, "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                    "numBlocks is NULL or blockSize %d is not positive", blockSize);
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction,
                    "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "func is NULL");
    *numBlocks = shmemu_cuda::detail::occupancy(func, nullptr, blockSize, dynamicSMemSize);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

cudaError_t shmemu_cuda_max_potential_block_size(int *minGridSize, int *blockSize,
                                                 const void *func, size_t dynamicSMemSize,
                                                 int blockSizeLimit)
{
    if (minGridSize == nullptr || blockSize == nullptr)
        return fail(cudaErrorInvalidValue, "cudaOccupancyMaxPotentialBlockSize",
                    "minGridSize or blockSize is NULL");
    if (func == nullptr)
        return fail(cudaErrorInvalidDeviceFunction, "cudaOccupancyMaxPotentialBlockSize",
                    "func is NULL");
    const cudaDeviceProp &p = dev().prop;
    int limit = blockSizeLimit > 0 && blockSizeLimit < p.maxThreadsPerBlock ? blockSizeLimit
                                                                             : p.maxThreadsPerBlock;
    int best_size = 0, best_blocks = 0, best_threads = 0;
    for (int size = limit / p.warpSize * p.warpSize; size > 0; size -= p.warpSize) {
        int blocks = shmemu_cuda::detail::occupancy(func, nullptr, size, dynamicSMemSize);
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best_blocks = blocks;
            best_size = size;
        }
    }
    *blockSize = best_size;
    *minGridSize = best_blocks * p.multiProcessorCount;
    return cudaSuccess;
}

} /* extern "C" */
