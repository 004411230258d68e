/*
 * shmemu_cuda/nvshmem_extra.h: NVSHMEM host calls that involve CUDA launches, for .cu
 * programs (the rest of NVSHMEM is pgas's, with emu's *_on_stream calls: shmemu/emu.h).
 *
 * nvshmemx_collective_launch launches a registered kernel (see shmemu_cuda/launch.h) as a
 * cooperative launch, after NVSHMEM's co-residency check: the grid must fit on the emulated
 * device at once (occupancy of the block size and shared memory, times the SMs); each PE
 * checks its own launch (NVSHMEM agrees on the outcome across PEs; here no PE waits for the
 * others, so the check adds no synchronization between PEs).
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_NVSHMEM_EXTRA_H
#define SHMEMU_CUDA_NVSHMEM_EXTRA_H

#include "shmemu_cuda/runtime_api.h"

/* NVSHMEM's status codes. */
enum nvshmemx_status {
    NVSHMEMX_SUCCESS = 0,
    NVSHMEMX_ERROR_INVALID_VALUE,
    NVSHMEMX_ERROR_OUT_OF_MEMORY,
    NVSHMEMX_ERROR_NOT_SUPPORTED,
    NVSHMEMX_ERROR_SYMMETRY,
    NVSHMEMX_ERROR_GPU_NOT_SELECTED,
    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED,
    NVSHMEMX_ERROR_INTERNAL,
    NVSHMEMX_ERROR_SENTINEL = 1 << 30
};

extern "C" {
/* NVSHMEMX_SUCCESS, or NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED (after a message) when the
 * grid cannot be co-resident or the launch fails (the CUDA error is kept for
 * cudaGetLastError). */
int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims, void **args,
                               size_t sharedMem, cudaStream_t stream);
/* The largest grid nvshmemx_collective_launch accepts with these blocks (in *gridsize). */
int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims, void **args,
                                              size_t sharedMem, int *gridsize);
}

/* A .cu program is held to nvcc's rule that the calls NVSHMEM declares __device__ only are not
 * made from host code: shmemu-nvcc's rewriter refuses those it sees at compile time
 * (cuda/tools/cudafe.h), and strict mode (SHMEMU_STRICT_DEVICE, pgas/src/device_only.c) the
 * rest when they run; it is on by default, set before main and so before any PE starts.
 * SHMEMU_STRICT_DEVICE=0 turns it off. */
extern "C" int shmemu_strict_device_default(int on);
namespace shmemu_cuda {
inline const int strict_device_default_ = shmemu_strict_device_default(1);
}

#endif
