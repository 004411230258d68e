/*
 * cuda_check.h: every CUDA runtime call and every symmetric or device allocation of the
 * parallel driver (par*.c) is checked here, the same way on the CPU emulator (emu/, whose
 * calls return cudaError_t as CUDA's do) and in the CUDA build.
 *
 *   MD_CUDA(call)                  a CUDA runtime call; on an error:
 *       shmemu-md: PE 1: cudaMemcpy(...) failed: invalid argument (md/src/par.c:200)
 *     and exit status 2
 *   md_sym_alloc(bytes, "xs")      nvshmem_malloc, collective; NULL (the heap is full) ends
 *                                  the run naming the buffer, the bytes and
 *                                  NVSHMEM_SYMMETRIC_SIZE, the setting to raise
 *   md_dev_alloc(&p, bytes, "floc") cudaMalloc; a failure names the buffer and the bytes
 *
 * Kernel launches are checked after each phase's launches (MD_CUDA(cudaGetLastError())):
 * a launch error is sticky in the thread's last error until read.
 */
#ifndef MD_CUDA_CHECK_H
#define MD_CUDA_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "shmemu/kernel.h" /* the CUDA runtime API: CUDA's or the emulator's */

#ifdef __cplusplus
extern "C" {
#endif

/* Report and exit(2). err_text: cudaGetErrorString's, taken where the call was made. */
__attribute__((noreturn)) void md_cuda_fail(const char *call, const char *err_text,
                                            const char *file, int line);
/* Report a failed allocation of buffer name and exit(2). sym: symmetric heap, else device;
 * err_text: the CUDA error for a device allocation (NULL for symmetric). */
__attribute__((noreturn)) void md_alloc_fail(bool sym, const char *name, size_t bytes,
                                             const char *err_text);

#ifdef __cplusplus
}
#endif

static inline void md_cuda_check_(cudaError_t e, const char *call, const char *file, int line)
{
    if (e != cudaSuccess)
        md_cuda_fail(call, cudaGetErrorString(e), file, line);
}

#define MD_CUDA(call) md_cuda_check_((call), #call, __FILE__, __LINE__)

static inline void *md_sym_alloc(size_t bytes, const char *name)
{
    void *p = nvshmem_malloc(bytes);
    if (p == NULL && bytes > 0)
        md_alloc_fail(true, name, bytes, NULL);
    return p;
}

/* *ptr: any object pointer's address (void ** as cudaMalloc takes it). */
static inline void md_dev_alloc(void **ptr, size_t bytes, const char *name)
{
    const cudaError_t e = cudaMalloc(ptr, bytes);
    if (e != cudaSuccess || (*ptr == NULL && bytes > 0))
        md_alloc_fail(false, name, bytes, cudaGetErrorString(e));
}

#endif
