/*
 * shmemu_cuda/runtime_api.h: the CUDA runtime's host API for .cu programs built by
 * shmemu-nvcc (cuda_runtime_api.h and cuda_runtime.h include it).
 *
 * What emu/ already provides (streams, events, stream capture and graphs, cudaMalloc,
 * cudaMemcpy, ...) comes from shmemu/emu.h; this header adds the rest of what NVSHMEM
 * programs call, implemented in
 * cuda/src. Each PE is its own emulated GPU with the properties of device_properties()
 * (cuda/src/device.cpp: an H100-like device with SHMEMU_CUDA_SMS SMs, default 16).
 *
 * Three of emu's C functions behave here as CUDA's do, through function-like macros (so
 * C dialect programs keep emu's behaviour):
 *   cudaMemcpy, cudaMemset   wait for the PE's streams first: a synchronous copy follows the
 *                            kernels launched before it (emu's C versions do not wait);
 *   cudaGetErrorString       knows every code this layer returns.
 * cudaStreamLegacy and cudaStreamPerThread are the PE's default stream (emu's NULL stream,
 * which behaves as CUDA's per-thread default stream: no implicit synchronization with other
 * streams).
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_RUNTIME_API_IMPL_H
#define SHMEMU_CUDA_RUNTIME_API_IMPL_H

#ifndef __cplusplus
#error "shmemu-nvcc's CUDA headers are C++: compile .cu files with shmemu-nvcc"
#endif

#include <cstddef>
#include <cstdint>

#include "shmemu/emu.h"
#include "shmemu_cuda/qualifiers.h"
#include "shmemu_cuda/vector_types.h"

/* ---- constants ----------------------------------------------------------------------------- */

#define cudaStreamLegacy ((cudaStream_t)0)
#define cudaStreamPerThread ((cudaStream_t)0)
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)

#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaCooperativeLaunchMultiDeviceNoPreSync 0x01
#define cudaCooperativeLaunchMultiDeviceNoPostSync 0x02
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeClusterDimMustBeSet = 10,
    cudaFuncAttributeRequiredClusterWidth = 11,
    cudaFuncAttributeRequiredClusterHeight = 12,
    cudaFuncAttributeRequiredClusterDepth = 13,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
    cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
    cudaFuncAttributeMax
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

enum cudaSharedMemConfig {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrPciDomainId = 50,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrGlobalL1CacheSupported = 79,
    cudaDevAttrLocalL1CacheSupported = 80,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrMultiGpuBoardGroupID = 85,
    cudaDevAttrHostNativeAtomicSupported = 86,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrCooperativeMultiDeviceLaunch = 96,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrCanFlushRemoteWrites = 98,
    cudaDevAttrHostRegisterSupported = 99,
    cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
    cudaDevAttrDirectManagedMemAccessFromHost = 101,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrGPUDirectRDMASupported = 116,
    cudaDevAttrClusterLaunch = 120
};

typedef struct CUuuid_st {
    char bytes[16];
} cudaUUID_t;

/* CUDA 13's fields, and CUDA 12's that 13 dropped (clockRate, ...), which programs still read. */
struct cudaDeviceProp {
    char name[256];
    cudaUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate; /* kHz (CUDA 12) */
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap; /* CUDA 12 */
    int multiProcessorCount;
    int kernelExecTimeoutEnabled; /* CUDA 12 */
    int integrated;
    int canMapHostMemory;
    int computeMode; /* CUDA 12 */
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate; /* kHz (CUDA 12) */
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int singleToDoublePrecisionPerfRatio; /* CUDA 12 */
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    int cooperativeMultiDeviceLaunch; /* CUDA 12 */
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
    int reserved[56];
};

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
    int clusterDimMustBeSet;
    int requiredClusterWidth;
    int requiredClusterHeight;
    int requiredClusterDepth;
    int clusterSchedulingPolicyPreference;
    int nonPortableClusterSizeAllowed;
    int reserved[16];
};

typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

/* ---- functions (cuda/src) ----------------------------------------------------------------- */

extern "C" {

const char *cudaGetErrorName(cudaError_t error);
const char *shmemu_cuda_error_string(cudaError_t error); /* cudaGetErrorString */

/* Devices: every PE is its own GPU. There are as many devices as PEs (nvshmem_n_pes once
 * initialized, SHMEMU_NPES before), so cudaSetDevice(mype_node % count) picks one each. */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaDriverGetVersion(int *driverVersion);
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

/* Kernels: attributes and occupancy by the emulated device's limits (maxThreadsPerBlock,
 * maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor, sharedMemPerMultiprocessor);
 * registers and static shared memory are not known here and count as zero. */
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig config);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                   const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags);
/* func must be registered (a non-template kernel of a .cu file: the rewriter registers it);
 * otherwise cudaErrorInvalidDeviceFunction. */
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block,
                                        void **args, size_t sharedMem, cudaStream_t stream);
/* cudaOccupancyMaxPotentialBlockSize (a template below). */
cudaError_t shmemu_cuda_max_potential_block_size(int *minGridSize, int *blockSize,
                                                 const void *func, size_t dynamicSMemSize,
                                                 int blockSizeLimit);

/* Host memory: plain host memory (every PE's "device" is this process's memory). */
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
/* Stream-ordered: the copy, set, free or host function runs on the stream's thread in
 * stream order (as a one-thread kernel named after the call, which traces and race reports
 * show). cudaMallocAsync allocates at once. */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
/* cudaMemcpy and cudaMemset as CUDA has them: after the PE's earlier work (macros below). */
cudaError_t shmemu_cuda_memcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t shmemu_cuda_memset(void *devPtr, int value, size_t count);

} /* extern "C" */

#define cudaMemcpy(...) shmemu_cuda_memcpy(__VA_ARGS__)
#define cudaMemset(...) shmemu_cuda_memset(__VA_ARGS__)
#define cudaGetErrorString(...) shmemu_cuda_error_string(__VA_ARGS__)

/* ---- C++ forms (CUDA's cuda_runtime.h templates) ---------------------------------------- */

template <class T> inline cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return ::cudaMalloc(reinterpret_cast<void **>(devPtr), size);
}
template <class T> inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T> inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                     unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged(reinterpret_cast<void **>(devPtr), size, flags);
}
template <class T> inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream)
{
    return ::cudaMallocAsync(reinterpret_cast<void **>(devPtr), size, stream);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return ::cudaHostGetDevicePointer(reinterpret_cast<void **>(pDevice), pHost, flags);
}

/* __device__ and __constant__ variables are host variables here: a symbol is its address. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                      size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return shmemu_cuda_memcpy(reinterpret_cast<char *>(const_cast<T *>(&symbol)) + offset, src,
                              count, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                        size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return shmemu_cuda_memcpy(dst, reinterpret_cast<const char *>(&symbol) + offset, count, kind);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                           size_t offset, cudaMemcpyKind kind,
                                           cudaStream_t stream = 0)
{
    return ::cudaMemcpyAsync(reinterpret_cast<char *>(const_cast<T *>(&symbol)) + offset, src,
                             count, kind, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                             size_t offset, cudaMemcpyKind kind,
                                             cudaStream_t stream = 0)
{
    return ::cudaMemcpyAsync(dst, reinterpret_cast<const char *>(&symbol) + offset, count, kind,
                             stream);
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
    *devPtr = const_cast<T *>(&symbol);
    return cudaSuccess;
}
template <class T> inline cudaError_t cudaGetSymbolSize(size_t *size, const T &)
{
    *size = sizeof(T);
    return cudaSuccess;
}

template <class T> inline cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value)
{
    return ::cudaFuncSetAttribute(reinterpret_cast<const void *>(entry), attr, value);
}
template <class T> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry)
{
    return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(entry));
}
template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *func, cudaFuncCache config)
{
    return ::cudaFuncSetCacheConfig(reinterpret_cast<const void *>(func), config);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                 int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        numBlocks, reinterpret_cast<const void *>(func), blockSize, dynamicSMemSize);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T func,
                                                                          int blockSize,
                                                                          size_t dynamicSMemSize,
                                                                          unsigned int flags)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, reinterpret_cast<const void *>(func), blockSize, dynamicSMemSize, flags);
}
/* The block size with the most resident threads per SM (the largest such, a multiple of the
 * warp size), and the grid that fills the device with it. */
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                      size_t dynamicSMemSize = 0,
                                                      int blockSizeLimit = 0)
{
    return shmemu_cuda_max_potential_block_size(minGridSize, blockSize,
                                                reinterpret_cast<const void *>(func),
                                                dynamicSMemSize, blockSizeLimit);
}
template <class T>
inline cudaError_t cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args,
                                    size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cudaLaunchKernel(reinterpret_cast<const void *>(func), grid, block, args,
                              sharedMem, stream);
}
template <class T>
inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args,
                                               size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(func), grid, block,
                                         args, sharedMem, stream);
}

namespace shmemu_cuda {
/* The calling PE's emulated device: read it, or change it before launching (SM count, shared
 * memory, thread limits). Starts as the defaults (SHMEMU_CUDA_SMS SMs). */
cudaDeviceProp &device_properties();
} // namespace shmemu_cuda

#endif
