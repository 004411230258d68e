/* nvshmemx.h for shmemu-nvcc: pgas's nvshmemx.h, with the rest of nvshmem.h's front. */
#ifndef SHMEMU_CUDA_NVSHMEMX_FRONT_H
#include_next <nvshmemx.h>
#ifndef SHMEMU_CUDA_RUNTIME_BUSY_
#define SHMEMU_CUDA_NVSHMEMX_FRONT_H
#include "nvshmem.h"
#endif
#endif
