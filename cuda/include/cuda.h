/*
 * cuda.h for shmemu-nvcc: the little of CUDA's driver API that NVSHMEM programs touch
 * (result codes, device and context handles, version queries), answered by the emulated
 * device of the runtime (shmemu_cuda/runtime_api.h). Driver calls not listed here are not emulated.
 */
#ifndef SHMEMU_CUDA_DRIVER_H
#define SHMEMU_CUDA_DRIVER_H

#include "cuda_runtime.h"

typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999
} CUresult;

typedef int CUdevice;
typedef struct shmemu_cu_context *CUcontext;
typedef cudaStream_t CUstream;
typedef cudaEvent_t CUevent;
typedef unsigned long long CUdeviceptr;

/* The runtime's code of the same number (CUDA's driver and runtime codes agree on these). */
inline CUresult shmemu_cu_result(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidValue: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInvalidDevice: return CUDA_ERROR_INVALID_DEVICE;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

inline CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
inline CUresult cuDriverGetVersion(int *v) { return shmemu_cu_result(cudaDriverGetVersion(v)); }
inline CUresult cuDeviceGetCount(int *count) { return shmemu_cu_result(cudaGetDeviceCount(count)); }
inline CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    int n = 0;
    cudaGetDeviceCount(&n);
    if (device == nullptr || ordinal < 0 || ordinal >= n)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}
inline CUresult cuCtxGetDevice(CUdevice *device) { return shmemu_cu_result(cudaGetDevice(device)); }
inline CUresult cuCtxSynchronize(void) { return shmemu_cu_result(cudaDeviceSynchronize()); }
inline CUresult cuGetErrorString(CUresult error, const char **str)
{
    if (str == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    *str = shmemu_cuda_error_string(static_cast<cudaError_t>(error));
    return CUDA_SUCCESS;
}
inline CUresult cuGetErrorName(CUresult error, const char **str)
{
    if (str == nullptr)
        return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
    case CUDA_SUCCESS: *str = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *str = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *str = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *str = "CUDA_ERROR_NOT_INITIALIZED"; break;
    case CUDA_ERROR_NO_DEVICE: *str = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_INVALID_DEVICE: *str = "CUDA_ERROR_INVALID_DEVICE"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *str = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case CUDA_ERROR_NOT_SUPPORTED: *str = "CUDA_ERROR_NOT_SUPPORTED"; break;
    default: *str = "CUDA_ERROR_UNKNOWN"; break;
    }
    return CUDA_SUCCESS;
}

#endif
