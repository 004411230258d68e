/*
 * cg/cuda/decl/nvshmem.h: NOT NVSHMEM. md's declarations (md/cuda/decl/nvshmem.h: what they
 * are for, and what they cannot catch), and the further NVSHMEM calls that cg's CUDA build
 * makes, with NVSHMEM's documented signatures and execution spaces, so that `make
 * cuda-cg-compile` compiles (never links or runs) cg's CUDA sources where NVSHMEM is not
 * installed. `make cuda-cg` always uses the real NVSHMEM.
 */
#ifndef CG_CUDA_DECL_NVSHMEM_H
#define CG_CUDA_DECL_NVSHMEM_H

#include "../../../md/cuda/decl/nvshmem.h"

typedef int32_t nvshmem_team_t;
enum { NVSHMEM_TEAM_WORLD = 0 };

__host__ __device__ int nvshmem_longlong_sum_reduce(nvshmem_team_t team, long long *dest,
                                                    const long long *source, size_t nreduce);
__host__ __device__ void nvshmem_double_put_nbi(double *dest, const double *source,
                                                size_t nelems, int pe);

#endif
