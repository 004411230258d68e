/*
 * cg/cuda/decl/nvshmemx.h: NOT NVSHMEM; see nvshmem.h beside it. md's extensions
 * (md/cuda/decl/nvshmemx.h) and the ones cg calls: the block-wide puts and reduction of
 * cg-mono's kernel, and cg-host's stream-ordered calls.
 */
#ifndef CG_CUDA_DECL_NVSHMEMX_H
#define CG_CUDA_DECL_NVSHMEMX_H

#include "nvshmem.h"
#include "../../../md/cuda/decl/nvshmemx.h"

__device__ void nvshmemx_double_put_signal_nbi_block(double *dest, const double *source,
                                                     size_t nelems, uint64_t *sig_addr,
                                                     uint64_t signal, int sig_op, int pe);
__device__ void nvshmemx_double_put_nbi_block(double *dest, const double *source,
                                              size_t nelems, int pe);
__device__ int nvshmemx_longlong_sum_reduce_block(nvshmem_team_t team, long long *dest,
                                                  const long long *source, size_t nreduce);
int nvshmemx_longlong_sum_reduce_on_stream(nvshmem_team_t team, long long *dest,
                                           const long long *source, size_t nreduce,
                                           cudaStream_t stream);
void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                      cudaStream_t stream);
void nvshmemx_quiet_on_stream(cudaStream_t stream);
void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                          cudaStream_t stream);

#endif
