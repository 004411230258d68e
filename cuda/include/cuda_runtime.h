/*
 * cuda_runtime.h for shmemu-nvcc: what nvcc makes visible in every .cu file (the driver
 * includes this header first, as nvcc does): the runtime's host API
 * (shmemu_cuda/runtime_api.h), the device built-ins (shmemu_cuda/device.h), launches
 * (shmemu_cuda/launch.h) and the NVSHMEM calls of this layer (shmemu_cuda/nvshmem_extra.h).
 * cuda/README.md says what is where; what is not emulated is left undeclared, so that using
 * it is a compile error that names it.
 *
 * Every public header of the layer (cuda_runtime_api.h, vector_types.h, cuda.h,
 * cooperative_groups.h, cuda/atomic, the nvshmem fronts) starts here. While this header is
 * being read, SHMEMU_CUDA_RUNTIME_BUSY_ tells the nvshmem fronts (which emu.h and kernel.h
 * include) not to come back here, so a program may include them in any order.
 */
#ifndef SHMEMU_CUDA_RUNTIME_H
#define SHMEMU_CUDA_RUNTIME_H
#define SHMEMU_CUDA_RUNTIME_BUSY_

#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "shmemu_cuda/runtime_api.h"
#include "shmemu_cuda/device.h"
#include "shmemu_cuda/launch.h"
#include "shmemu_cuda/nvshmem_extra.h"

#undef SHMEMU_CUDA_RUNTIME_BUSY_
#endif
