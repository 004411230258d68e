/*
 * shmemu_cuda/qualifiers.h: CUDA's declaration qualifiers for the host C++ compiler.
 *
 * A .cu file compiled by shmemu-nvcc is host C++: every function runs on the CPU, so
 * __host__ and __device__ say nothing and are empty (in a .cu file, the rewriter removes
 * them, see below). Left out on purpose:
 *   __global__, __shared__  the rewriter (cuda/tools/cudafe.c) removes __global__ and turns
 *                           __shared__ into one copy per block (static thread_local: a block
 *                           is one pthread), and extern __shared__ into dynamic_shared<T>();
 *   __noinline__            the rewriter's too: libstdc++ spells __attribute__((__noinline__))
 *                           (bits/shared_ptr_base.h), which a macro would break;
 *   __CUDACC__, __CUDA_ARCH__  never defined: shmemu's own sources read __CUDACC__ as "real
 *                           nvcc", and a program's host path is the one that runs here.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_QUALIFIERS_H
#define SHMEMU_CUDA_QUALIFIERS_H

/* shmemu-nvcc preprocesses a .cu file with __SHMEMU_CUDAFE__ defined: __host__ and __device__
 * then stay in the text for its rewriter, which reads them (a device-only NVSHMEM call in host
 * code is a compile-time error, cuda/tools/cudafe.h) and blanks them. */
#ifndef __SHMEMU_CUDAFE__
#define __host__
#define __device__
#endif
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __builtin_assume(cond) ((void)0)

#define CUDART_VERSION 12080
#define CUDA_VERSION 12080

#endif
