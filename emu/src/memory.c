/*
 * memory.c: CUDA device memory on the host: cudaMalloc is an aligned, zeroed host
 * allocation (256-byte aligned, as cudaMalloc promises), and cudaMemcpy and cudaMemset are
 * memmove and memset (every PE's "device" is the process's memory). Both are synchronous
 * calls on CUDA's legacy stream, which a stream capture may forbid (capture.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    if (ptr == NULL)
        return emu_set_error(cudaErrorInvalidValue);
    size_t rounded = (size + 255) & ~(size_t)255;
    *ptr = aligned_alloc(256, rounded ? rounded : 256);
    if (*ptr == NULL)
        return emu_set_error(cudaErrorMemoryAllocation);
    memset(*ptr, 0, rounded ? rounded : 256);
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    if (ptr == NULL && count > 0)
        return emu_set_error(cudaErrorInvalidValue);
    cudaError_t e = emu_capture_sync_allowed("cudaMemset", true);
    if (e != cudaSuccess)
        return e;
    memset(ptr, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    (void)kind;
    if ((dst == NULL || src == NULL) && count > 0)
        return emu_set_error(cudaErrorInvalidValue);
    cudaError_t e = emu_capture_sync_allowed("cudaMemcpy", true);
    if (e != cudaSuccess)
        return e;
    memmove(dst, src, count);
    return cudaSuccess;
}
