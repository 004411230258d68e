/*
 * nvshmem.h for shmemu-nvcc: pgas's NVSHMEM API (pgas/include/nvshmem.h, C) and, for .cu
 * programs, the CUDA runtime with this layer's NVSHMEM calls (shmemu_cuda/nvshmem_extra.h).
 */
#ifndef SHMEMU_CUDA_NVSHMEM_FRONT_H
#include_next <nvshmem.h>
/* Not while cuda_runtime.h is being read (emu.h includes nvshmem.h): it is on its way. */
#ifndef SHMEMU_CUDA_RUNTIME_BUSY_
#define SHMEMU_CUDA_NVSHMEM_FRONT_H
#include "cuda_runtime.h"
#endif
#endif
