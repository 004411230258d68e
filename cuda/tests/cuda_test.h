/*
 * cuda_test.h: what the layer's suites share. Kernels are written as a .cu file has them,
 * after the rewriter (cuda/tools/cudafe.c): a __global__ function is a plain function,
 * registered with REGISTER (the rewriter's register_kernel line), and a launch
 * k<<<cfg>>>(args) is LAUNCH_K(k, (cfg), args), the rewriter's ::shmemu_cuda::launch call.
 * PE bodies check with pe_check.h's PE_CHECK* (cmocka's assertions belong to the test thread).
 */
#ifndef SHMEMU_CUDA_TEST_H
#define SHMEMU_CUDA_TEST_H

#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>

extern "C" {
#include <cmocka.h>

#include "support/pe_check.h"
}

#include "cuda_runtime.h"

/* k<<<cfg>>>(args...) as the rewriter writes it; evaluates to the launch's cudaError_t. */
#define LAUNCH_K(k, cfg, ...)                                                                 \
    ::shmemu_cuda::launch(::shmemu_cuda::launch_config cfg, #k, __FILE__, __LINE__,           \
                          [=](auto &&...shmemu_a_) {                                          \
                              k(static_cast<decltype(shmemu_a_) &&>(shmemu_a_)...);           \
                          },                                                                  \
                          __VA_ARGS__)

/* After a non-template __global__ function's definition. */
#define REGISTER(k) static const int shmemu_kreg_##k##_ = ::shmemu_cuda::register_kernel(k, #k)

#endif
