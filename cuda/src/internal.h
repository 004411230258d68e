/*
 * cuda/src/internal.h: what the layer's files share. The emulated device and its per-kernel
 * attributes belong to the calling host thread (a PE's GPU, which only that PE's host thread
 * configures and launches on), so nothing here is shared between PEs and nothing needs a
 * lock: a lock between PEs would be an ordering the race checkers see and the program does
 * not have. The kernel registry is written before main (static initializers) and read-only
 * afterwards.
 */
#ifndef SHMEMU_CUDA_SRC_INTERNAL_H
#define SHMEMU_CUDA_SRC_INTERNAL_H

#include <string>

#include "cuda_runtime.h"

namespace shmemu_cuda {
namespace detail {

/* The registered kernel at this address, or null. */
const registered_kernel *find_kernel(const void *address);
const registered_kernel *find_kernel_named(const std::string &name);
/* A kernel's name as a launch wrote it ("ns::k<float>", "(*fp)") reduced to its own
 * identifier ("k", "fp"): the key of the attributes set by address. */
std::string kernel_key(const char *text);

/* The dynamic shared memory a launch of the kernel may use: its attribute, else the
 * device's default (sharedMemPerBlock). func may be null (a <<<>>> launch: by name). */
size_t max_dynamic_shared(const void *func, const char *kernel_text);
/* Resident blocks per SM for this block size and dynamic shared memory (0: none fit). */
int occupancy(const void *func, const char *kernel_text, int block_threads, size_t dyn_smem);

/* Prints "shmemu: PE p: call: message" and records e as the last error; returns e. */
cudaError_t fail(cudaError_t e, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

} // namespace detail
} // namespace shmemu_cuda

#endif
