/*
 * md/cuda/decl/nvshmem.h: NOT NVSHMEM. Declarations of the part of NVSHMEM's API that md's
 * CUDA build calls, with NVSHMEM's documented signatures and execution spaces, and the
 * constant values of docs/design.md D2 (other values here are placeholders), so that `make
 * cuda-compile` can compile (never link or run) md's CUDA sources with nvcc where NVSHMEM is not
 * installed: the development machine and CI. It catches md code that leaves the C/C++ common
 * subset or CUDA's rules; it cannot catch a call that the real headers would refuse. `make cuda`
 * always uses the real NVSHMEM.
 */
#ifndef MD_CUDA_DECL_NVSHMEM_H
#define MD_CUDA_DECL_NVSHMEM_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

enum { NVSHMEM_CMP_EQ = 0, NVSHMEM_CMP_NE, NVSHMEM_CMP_GT, NVSHMEM_CMP_LE, NVSHMEM_CMP_LT,
       NVSHMEM_CMP_GE };
enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 };

void nvshmem_init(void);
void nvshmem_finalize(void);
__host__ __device__ int nvshmem_my_pe(void);
__host__ __device__ int nvshmem_n_pes(void);
void *nvshmem_malloc(size_t size);
void nvshmem_free(void *ptr);
__host__ __device__ void nvshmem_barrier_all(void);
__host__ __device__ void *nvshmem_ptr(const void *dest, int pe);
__host__ __device__ void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe);
__host__ __device__ void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe);
__host__ __device__ void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes,
                                            int pe);
__device__ void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,
                                          int pe);
__device__ uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
__host__ __device__ void nvshmem_fence(void);
__host__ __device__ void nvshmem_quiet(void);

#endif
