/*
 * cuda_runtime.h for shmemu-nvcc: what nvcc makes visible in every .cu file (the driver
 * includes this header first, as nvcc does): the runtime's host API (cuda_runtime_api.h),
 * the device built-ins (shmemu_cuda/device.h), launches (shmemu_cuda/launch.h), and the
 * NVSHMEM calls of this layer (shmemu_cuda/nvshmem_extra.h). cuda/README.md says what is
 * where; what is not emulated is left undeclared, so that using it is a compile error that
 * names it.
 */
#ifndef SHMEMU_CUDA_RUNTIME_H
#define SHMEMU_CUDA_RUNTIME_H

#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "cuda_runtime_api.h"
#include "shmemu_cuda/device.h"
#include "shmemu_cuda/launch.h"
#include "shmemu_cuda/nvshmem_extra.h"

#endif
