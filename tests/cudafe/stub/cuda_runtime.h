/*
 * tests/cudafe/stub/cuda_runtime.h: a stand-in for shmemu's CUDA layer, just enough for
 * tests/check-cudafe.sh to prove that shmemu-cudafe's output is valid C++ and that
 * bin/shmemu-nvcc builds and runs a program, without the layer itself. It declares what
 * the rewrites call (::shmemu_cuda::launch, launch_config, dynamic_shared,
 * dynamic_shared_array, register_kernel, kernel_param_t, literal_zero) with the
 * signatures the layer must accept, and runs a launch sequentially: every block, every
 * thread, one after another (no __syncthreads).
 */
#ifndef SHMEMU_CUDAFE_STUB_H
#define SHMEMU_CUDAFE_STUB_H

#include <cstddef>
#include <tuple>
#include <type_traits>

struct float2 {
    float x, y;
};
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
#ifndef __SHMEMU_CUDAFE__ /* as shmemu_cuda/qualifiers.h: the rewriter's in a .cu file */
#define __device__
#define __host__
#endif
#define __forceinline__ inline

extern thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

inline cudaError_t cudaDeviceSynchronize() { return 0; }
int shmemu_cudafe_stub_lib(); /* in libshmemu_cuda.a of the test (stub_lib.cpp) */

namespace shmemu_cuda {

struct launch_cfg {
    dim3 grid, block;
    std::size_t shared;
    cudaStream_t stream;
};

inline launch_cfg launch_config(dim3 grid, dim3 block, std::size_t shared = 0,
                                cudaStream_t stream = nullptr)
{
    return launch_cfg{ grid, block, shared, stream };
}

inline thread_local unsigned char *dyn_shared;

template <class T> T *dynamic_shared() { return reinterpret_cast<T *>(dyn_shared); }

template <class T> struct dynamic_shared_array {
    operator T *() const { return dynamic_shared<T>(); }
};

/* The launch: the body once per thread, the arguments decay-copied once, as CUDA does. */
template <class Body, class... Args>
int launch(const launch_cfg &c, const char *kernel, const char *file, int line, Body &&body,
           Args &&...args)
{
    (void)kernel, (void)file, (void)line;
    std::tuple<std::decay_t<Args>...> copies(static_cast<Args &&>(args)...);
    alignas(16) static thread_local unsigned char shared[1 << 16];
    dyn_shared = shared;
    gridDim = c.grid;
    blockDim = c.block;
    for (unsigned b = 0; b < c.grid.x * c.grid.y * c.grid.z; b++) {
        blockIdx = dim3(b % c.grid.x, b / c.grid.x % c.grid.y, b / c.grid.x / c.grid.y);
        for (unsigned t = 0; t < c.block.x * c.block.y * c.block.z; t++) {
            threadIdx = dim3(t % c.block.x, t / c.block.x % c.block.y,
                             t / c.block.x / c.block.y);
            std::apply(body, copies);
        }
    }
    return 0;
}

template <class F> int register_kernel(F *f, const char *name)
{
    (void)f, (void)name;
    return 0;
}

template <class F> struct kernel_params;
template <class R, class... P> struct kernel_params<R(P...)> {
    using type = std::tuple<P...>;
};
/* The I-th parameter type of a kernel (a function, or a pointer or reference to one). */
template <class F, std::size_t I>
using kernel_param_t = std::tuple_element_t<
    I, typename kernel_params<std::remove_cv_t<
           std::remove_pointer_t<std::remove_cv_t<std::remove_reference_t<F>>>>>::type>;

/* A literal 0 or NULL argument: converts to whatever the parameter is, pointers included. */
struct literal_zero {
    template <class T> constexpr operator T() const { return T(); }
};

} // namespace shmemu_cuda

#endif
