/*
 * md/cuda/decl/nvshmemx.h: NOT NVSHMEM; see nvshmem.h beside it. The extensions md's CUDA
 * build calls: the signal operation, the unique-id bootstrap and the MPI bootstrap's
 * communicator field (otherwise opaque types here).
 */
#ifndef MD_CUDA_DECL_NVSHMEMX_H
#define MD_CUDA_DECL_NVSHMEMX_H

#include "nvshmem.h"

typedef struct { char opaque_[128]; } nvshmemx_uniqueid_t;
typedef struct { int version; void *mpi_comm; char opaque_[256]; } nvshmemx_init_attr_t;
#define NVSHMEMX_UNIQUEID_INITIALIZER {{0}}
#define NVSHMEMX_INIT_ATTR_INITIALIZER {0, 0, {0}}
enum { NVSHMEMX_INIT_WITH_MPI_COMM = 1 << 1, NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3 };

__device__ void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *id);
int nvshmemx_set_attr_uniqueid_args(int rank, int nranks, nvshmemx_uniqueid_t *id,
                                    nvshmemx_init_attr_t *attr);
int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr);

#endif
