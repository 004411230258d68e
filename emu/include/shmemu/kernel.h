/*
 * shmemu/kernel.h: the kernel dialect (docs/design.md D1). One kernel source, two builds.
 *
 * A kernel is a C function of one argument struct passed by value:
 *
 *     typedef struct { float *x; int n; uint64_t *flag; } scale_args;
 *     KERNEL(scale, scale_args, a) {
 *         SHARED_ARRAY(float, tile, 256);
 *         int i = blockIdx.x * blockDim.x + threadIdx.x;
 *         SH_ST(tile, threadIdx.x, i < a.n ? a.x[i] : 0.0f);
 *         __syncthreads();
 *         ...
 *     }
 *     LAUNCH(scale, DIM3(64, 1, 1), DIM3(256, 1, 1), 0, stream, args);
 *
 * Under nvcc (__CUDACC__) every macro is CUDA: KERNEL is a __global__ function, LAUNCH is
 * <<<...>>>, the atomics are cuda::atomic_ref with the given scope and order, mbarrier and
 * bulk copies are PTX, and the NVSHMEM device API comes from NVSHMEM's headers when
 * SHMEMU_WITH_NVSHMEM is defined. Under gcc/clang they call the emulator (emu/src) and the
 * pgas runtime. Kernel bodies must be in the common subset of C and C++ (no compound
 * literals, no designated initializers out of order, no implicit void * conversions).
 *
 * docs/emu.md lists every name with its CUDA meaning and what the emulator checks.
 */
#ifndef SHMEMU_KERNEL_H
#define SHMEMU_KERNEL_H

#include <stdint.h>

/* Scopes and orders of atomics, loads and stores (the same values in both builds). */
enum { SCOPE_BLOCK = 0, SCOPE_GPU = 1, SCOPE_SYS = 2 };
enum { ORDER_RELAXED = 0, ORDER_ACQUIRE = 1, ORDER_RELEASE = 2, ORDER_ACQ_REL = 3 };

#ifdef __CUDACC__
/* ======================================================================================
 * CUDA: the dialect is CUDA itself.
 * ====================================================================================== */
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>
#ifdef SHMEMU_WITH_NVSHMEM
/* The NVSHMEM device API (nvshmem_*, nvshmemx_*_block/_warp, *_on_stream) and its host
 * API. Without it, kernels that make NVSHMEM calls do not compile under nvcc. */
#include <nvshmem.h>
#include <nvshmemx.h>
#endif

#define KERNEL(name, T, arg) __global__ void name(T arg)
/* A kernel that must launch with up to max_threads threads per block: nvcc then limits its
 * registers per thread so that such a block fits an SM (__launch_bounds__), spilling the
 * rest to local memory. The emulator has no registers to limit: it is KERNEL there. */
#define KERNEL_BOUNDED(name, T, arg, max_threads)                                             \
    __global__ void __launch_bounds__(max_threads) name(T arg)
#define KERNEL_DECL(name, T) __global__ void name(T)
#define DEVICE static __device__ inline
#define DIM3(x, y, z) dim3((x), (y), (z))
#define LAUNCH(k, grid, block, smem, stream, args) k<<<(grid), (block), (smem), (stream)>>>(args)
#define LAUNCH_COOP(k, grid, block, smem, stream, args)                                       \
    do {                                                                                      \
        void *emu_coop_args_[] = {(void *)&(args)};                                           \
        cudaLaunchCooperativeKernel((const void *)(k), (grid), (block), emu_coop_args_,       \
                                    (smem), (stream));                                        \
    } while (0)

#define SHARED_ARRAY(T, name, n) __shared__ __align__(16) T name[n]
#define EXTERN_SHARED(T, name)                                                                \
    extern __shared__ __align__(16) unsigned char emu_dynamic_smem_[];                        \
    T *const name = (T *)emu_dynamic_smem_
#define SH_LD(a, i) ((a)[i])
#define SH_ST(a, i, v) ((a)[i] = (v))

#define grid_sync() cooperative_groups::this_grid().sync()

template <class T> struct emu_same_type_ {
    typedef T type;
};

__device__ inline cuda::memory_order emu_cuda_order_(int order)
{
    switch (order) {
    case ORDER_ACQUIRE: return cuda::memory_order_acquire;
    case ORDER_RELEASE: return cuda::memory_order_release;
    case ORDER_ACQ_REL: return cuda::memory_order_acq_rel;
    default: return cuda::memory_order_relaxed;
    }
}

__device__ inline cuda::memory_order emu_cuda_fail_order_(int order)
{
    return (order == ORDER_ACQUIRE || order == ORDER_ACQ_REL) ? cuda::memory_order_acquire
                                                              : cuda::memory_order_relaxed;
}

/* Runs BODY with `r`, a cuda::atomic_ref of *p at the given scope. */
#define EMU_CUDA_SCOPED_(T, p, scope, BODY)                                                   \
    if ((scope) == SCOPE_BLOCK) {                                                             \
        cuda::atomic_ref<T, cuda::thread_scope_block> r(*(p));                                \
        BODY;                                                                                 \
    } else if ((scope) == SCOPE_GPU) {                                                        \
        cuda::atomic_ref<T, cuda::thread_scope_device> r(*(p));                               \
        BODY;                                                                                 \
    } else {                                                                                  \
        cuda::atomic_ref<T, cuda::thread_scope_system> r(*(p));                               \
        BODY;                                                                                 \
    }

#define EMU_CUDA_RMW_(name, method)                                                           \
    template <class T>                                                                        \
    __device__ inline T name(T *p, typename emu_same_type_<T>::type v, int scope, int order)  \
    {                                                                                         \
        EMU_CUDA_SCOPED_(T, p, scope, return r.method(v, emu_cuda_order_(order)))             \
    }
EMU_CUDA_RMW_(atom_add, fetch_add)
EMU_CUDA_RMW_(atom_exch, exchange)
EMU_CUDA_RMW_(atom_min, fetch_min)
EMU_CUDA_RMW_(atom_max, fetch_max)
EMU_CUDA_RMW_(atom_and, fetch_and)
EMU_CUDA_RMW_(atom_or, fetch_or)
EMU_CUDA_RMW_(atom_xor, fetch_xor)

template <class T>
__device__ inline T atom_cas(T *p, typename emu_same_type_<T>::type expected,
                             typename emu_same_type_<T>::type desired, int scope, int order)
{
    EMU_CUDA_SCOPED_(T, p, scope,
                     r.compare_exchange_strong(expected, desired, emu_cuda_order_(order),
                                               emu_cuda_fail_order_(order));
                     return expected)
}

/* atomicInc: old >= limit ? 0 : old + 1. */
template <class T>
__device__ inline T atom_inc(T *p, typename emu_same_type_<T>::type limit, int scope, int order)
{
    EMU_CUDA_SCOPED_(T, p, scope, T old = r.load(cuda::memory_order_relaxed);
                     while (!r.compare_exchange_weak(old, old >= limit ? 0 : old + 1,
                                                     emu_cuda_order_(order),
                                                     cuda::memory_order_relaxed)) {};
                     return old)
}

template <class T> __device__ inline T ld_acquire(const T *p, int scope)
{
    EMU_CUDA_SCOPED_(T, const_cast<T *>(p), scope, return r.load(cuda::memory_order_acquire))
}
template <class T> __device__ inline T ld_relaxed(const T *p, int scope)
{
    EMU_CUDA_SCOPED_(T, const_cast<T *>(p), scope, return r.load(cuda::memory_order_relaxed))
}
template <class T>
__device__ inline void st_release(T *p, typename emu_same_type_<T>::type v, int scope)
{
    EMU_CUDA_SCOPED_(T, p, scope, r.store(v, cuda::memory_order_release))
}
template <class T>
__device__ inline void st_relaxed(T *p, typename emu_same_type_<T>::type v, int scope)
{
    EMU_CUDA_SCOPED_(T, p, scope, r.store(v, cuda::memory_order_relaxed))
}

/* globaltimer(): the GPU's global nanosecond timer (PTX %globaltimer: one clock for every
 * SM of the device, so stamps of different blocks compare). For timing only: a kernel's
 * results must never depend on it. */
__device__ inline uint64_t globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

/* smid(): the SM the calling block runs on (PTX %smid). For records only: a block may in
 * principle be moved, and ids need not be dense. */
__device__ inline unsigned smid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

/* ---- mbarrier and bulk copies (PTX; sm_80 for mbarrier, sm_90 for tx counts and TMA) ---- */

__device__ inline unsigned emu_smem_(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define EMU_SM90_(...) __VA_ARGS__
#else
#define EMU_SM90_(...) __trap()
#endif

__device__ inline void mbar_init(uint64_t *bar, unsigned count)
{
    EMU_SM90_(asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(emu_smem_(bar)),
                           "r"(count)
                           : "memory"));
}
__device__ inline void mbar_inval(uint64_t *bar)
{
    EMU_SM90_(asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(emu_smem_(bar))
                           : "memory"));
}
__device__ inline uint64_t mbar_arrive(uint64_t *bar)
{
    uint64_t token = 0;
    EMU_SM90_(asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                           : "=l"(token)
                           : "r"(emu_smem_(bar))
                           : "memory"));
    return token;
}
__device__ inline uint64_t mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    uint64_t token = 0;
    EMU_SM90_(asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                           : "=l"(token)
                           : "r"(emu_smem_(bar)), "r"(bytes)
                           : "memory"));
    return token;
}
__device__ inline void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
    EMU_SM90_(asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                               emu_smem_(bar)),
                           "r"(bytes)
                           : "memory"));
}
__device__ inline bool mbar_try_wait_parity(uint64_t *bar, unsigned parity)
{
    unsigned ok = 0;
    EMU_SM90_(asm volatile("{\n .reg .pred p;\n"
                           " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                           " selp.u32 %0, 1, 0, p;\n}"
                           : "=r"(ok)
                           : "r"(emu_smem_(bar)), "r"(parity)
                           : "memory"));
    return ok != 0;
}
__device__ inline void mbar_wait_parity(uint64_t *bar, unsigned parity)
{
    while (!mbar_try_wait_parity(bar, parity)) {
    }
}
__device__ inline bool mbar_test_wait(uint64_t *bar, uint64_t token)
{
    unsigned ok = 0;
    EMU_SM90_(asm volatile("{\n .reg .pred p;\n"
                           " mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n"
                           " selp.u32 %0, 1, 0, p;\n}"
                           : "=r"(ok)
                           : "r"(emu_smem_(bar)), "l"(token)
                           : "memory"));
    return ok != 0;
}
__device__ inline void mbar_wait(uint64_t *bar, uint64_t token)
{
    while (!mbar_test_wait(bar, token)) {
    }
}
__device__ inline void fence_proxy_async(void)
{
    EMU_SM90_(asm volatile("fence.proxy.async.shared::cta;" ::: "memory"));
}
/* Global (a peer's, through nvshmem_ptr) -> this block's shared memory; completes `bytes`
 * transaction bytes on bar. */
__device__ inline void tma_ld(void *dst_smem, const void *src, unsigned bytes, uint64_t *bar)
{
    EMU_SM90_(asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                           "[%0], [%1], %2, [%3];" ::"r"(emu_smem_(dst_smem)),
                           "l"(src), "r"(bytes), "r"(emu_smem_(bar))
                           : "memory"));
}
/* Shared -> global (a peer's); when the copy has completed, `bytes` transaction bytes are
 * completed on bar. */
__device__ inline void tma_st(void *dst, const void *src_smem, unsigned bytes, uint64_t *bar)
{
    EMU_SM90_(asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
                           "cp.async.bulk.commit_group;\n"
                           "cp.async.bulk.wait_group 0;\n"
                           "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%3], %2;" ::"l"(
                               dst),
                           "r"(emu_smem_(src_smem)), "r"(bytes), "r"(emu_smem_(bar))
                           : "memory"));
}

#else
/* ======================================================================================
 * gcc/clang: the emulator.
 * ====================================================================================== */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/emu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Who am I: the emulated thread that runs now on this pthread (set at each fiber switch). */
typedef struct emu_thread_view {
    dim3 thread_idx;
    dim3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
} emu_thread_view;
#ifdef __cplusplus
/* __thread, not thread_local: a C variable, with no C++ TLS wrapper (shmemu-nvcc's layer). */
extern __thread const emu_thread_view *emu_view;
#else
extern _Thread_local const emu_thread_view *emu_view;
#endif

#define threadIdx (emu_view->thread_idx)
#define blockIdx (emu_view->block_idx)
#define blockDim (emu_view->block_dim)
#define gridDim (emu_view->grid_dim)
#define warpSize 32

#define KERNEL(name, T, arg)                                                                  \
    void name(T arg);                                                                         \
    static void name##_emu_entry_(const void *emu_args_) { name(*(const T *)emu_args_); }    \
    extern const emu_kernel name##_emu_kernel_;                                               \
    const emu_kernel name##_emu_kernel_ = {#name, name##_emu_entry_, sizeof(T)};              \
    void name(T arg)
#define KERNEL_BOUNDED(name, T, arg, max_threads) KERNEL(name, T, arg)
#define KERNEL_DECL(name, T)                                                                  \
    void name(T);                                                                             \
    extern const emu_kernel name##_emu_kernel_
#define DEVICE static inline
#define DIM3(x, y, z) ((dim3){(unsigned)(x), (unsigned)(y), (unsigned)(z)})
#define LAUNCH(k, grid, block, smem, stream, args)                                            \
    ((void)emu_launch(&k##_emu_kernel_, (grid), (block), (smem), (stream), &(args),           \
                      sizeof(args), false))
#define LAUNCH_COOP(k, grid, block, smem, stream, args)                                       \
    ((void)emu_launch(&k##_emu_kernel_, (grid), (block), (smem), (stream), &(args),           \
                      sizeof(args), true))

/* ---- barriers and warp collectives --------------------------------------------------------- */

void emu_syncthreads(const char *file, int line);
void emu_syncwarp(unsigned mask, const char *file, int line);
enum {
    EMU_WARP_SHFL = 0,
    EMU_WARP_SHFL_UP,
    EMU_WARP_SHFL_DOWN,
    EMU_WARP_SHFL_XOR,
    EMU_WARP_BALLOT,
    EMU_WARP_ANY,
    EMU_WARP_ALL
};
uint64_t emu_warp_op(int op, unsigned mask, uint64_t value, int arg, const char *file,
                     int line);
unsigned emu_activemask(void);
void emu_grid_sync(const char *file, int line);

#define __syncthreads() emu_syncthreads(__FILE__, __LINE__)
#define __syncwarp(mask) emu_syncwarp((mask), __FILE__, __LINE__)
#define __activemask() emu_activemask()
#define __ballot_sync(mask, pred)                                                             \
    ((unsigned)emu_warp_op(EMU_WARP_BALLOT, (mask), (pred) != 0, 0, __FILE__, __LINE__))
#define __any_sync(mask, pred)                                                                \
    ((int)emu_warp_op(EMU_WARP_ANY, (mask), (pred) != 0, 0, __FILE__, __LINE__))
#define __all_sync(mask, pred)                                                                \
    ((int)emu_warp_op(EMU_WARP_ALL, (mask), (pred) != 0, 0, __FILE__, __LINE__))
#define grid_sync() emu_grid_sync(__FILE__, __LINE__)

/* Value conversions to and from the 64-bit words the runtime moves: X(type, tag, class)
 * where class is S (signed), U (unsigned) or F (floating point, moved as its bits). */
#define EMU_VALUE_TYPES_(X)                                                                   \
    X(int, i32, S)                                                                            \
    X(unsigned int, u32, U)                                                                   \
    X(long, il, S)                                                                            \
    X(unsigned long, ul, U)                                                                   \
    X(long long, ill, S)                                                                      \
    X(unsigned long long, ull, U)                                                             \
    X(float, f32, F)                                                                          \
    X(double, f64, F)
#define EMU_TO_U64_S_(v, w) (w) = (uint64_t)(int64_t)(v)
#define EMU_TO_U64_U_(v, w) (w) = (uint64_t)(v)
#define EMU_TO_U64_F_(v, w) memcpy(&(w), &(v), sizeof(v))
#define EMU_FROM_U64_S_(T, w, v) (v) = (T)(w)
#define EMU_FROM_U64_U_(T, w, v) (v) = (T)(w)
#define EMU_FROM_U64_F_(T, w, v) memcpy(&(v), &(w), sizeof(v))
#define EMU_CONVERT_(T, TK, C)                                                                \
    static inline uint64_t emu_to_u64_##TK(T v)                                               \
    {                                                                                         \
        uint64_t w = 0;                                                                       \
        EMU_TO_U64_##C##_(v, w);                                                              \
        return w;                                                                             \
    }                                                                                         \
    static inline T emu_from_u64_##TK(uint64_t w)                                             \
    {                                                                                         \
        T v;                                                                                  \
        EMU_FROM_U64_##C##_(T, w, v);                                                         \
        return v;                                                                             \
    }
EMU_VALUE_TYPES_(EMU_CONVERT_)
#undef EMU_CONVERT_

#define EMU_SHFL_FN_(T, TK, C)                                                                 \
    static inline T emu_shfl_##TK(int op, unsigned mask, T v, int arg, const char *file,      \
                                  int line)                                                   \
    {                                                                                         \
        return emu_from_u64_##TK(emu_warp_op(op, mask, emu_to_u64_##TK(v), arg, file, line)); \
    }
EMU_VALUE_TYPES_(EMU_SHFL_FN_)
#undef EMU_SHFL_FN_

#define EMU_BY_VALUE_(fn, v)                                                                  \
    _Generic((v), int: fn##_i32, unsigned int: fn##_u32, long: fn##_il,                       \
             unsigned long: fn##_ul, long long: fn##_ill, unsigned long long: fn##_ull,      \
             float: fn##_f32, double: fn##_f64, default: fn##_ill)
#define __shfl_sync(mask, v, lane)                                                            \
    EMU_BY_VALUE_(emu_shfl, v)(EMU_WARP_SHFL, (mask), (v), (lane), __FILE__, __LINE__)
#define __shfl_up_sync(mask, v, delta)                                                        \
    EMU_BY_VALUE_(emu_shfl, v)(EMU_WARP_SHFL_UP, (mask), (v), (delta), __FILE__, __LINE__)
#define __shfl_down_sync(mask, v, delta)                                                      \
    EMU_BY_VALUE_(emu_shfl, v)(EMU_WARP_SHFL_DOWN, (mask), (v), (delta), __FILE__, __LINE__)
#define __shfl_xor_sync(mask, v, lanemask)                                                    \
    EMU_BY_VALUE_(emu_shfl, v)(EMU_WARP_SHFL_XOR, (mask), (v), (lanemask), __FILE__, __LINE__)

/* ---- shared memory --------------------------------------------------------------------------- */

/* The block's copy of a static shared array declared at `site` (allocated on first use). */
void *emu_shared_static(const void *site, size_t bytes, size_t align, const char *name);
void *emu_shared_dynamic(void);
/* Checks the access base[i] (elem bytes; write or read) against the shared allocation that
 * holds base and the block's hazard records; returns i. */
size_t emu_shared_index(const void *base, size_t i, size_t elem, int write, const char *file,
                        int line);

#define SHARED_ARRAY(T, name, n)                                                              \
    static const char name##_emu_site_;                                                       \
    T *const name = (T *)emu_shared_static(&name##_emu_site_, sizeof(T) * (size_t)(n),       \
                                           _Alignof(T), #name)
#define EXTERN_SHARED(T, name) T *const name = (T *)emu_shared_dynamic()
#define SH_LD(a, i) ((a)[emu_shared_index((a), (size_t)(i), sizeof((a)[0]), 0, __FILE__, __LINE__)])
#define SH_ST(a, i, v)                                                                        \
    ((a)[emu_shared_index((a), (size_t)(i), sizeof((a)[0]), 1, __FILE__, __LINE__)] = (v))

/* ---- atomics, loads, stores, fences -------------------------------------------------------- */

enum {
    EMU_ATOM_ADD = 0,
    EMU_ATOM_INC,
    EMU_ATOM_CAS,
    EMU_ATOM_EXCH,
    EMU_ATOM_MIN,
    EMU_ATOM_MAX,
    EMU_ATOM_AND,
    EMU_ATOM_OR,
    EMU_ATOM_XOR
};
/* Value types of the runtime's atomics. */
enum { EMU_I32 = 0, EMU_U32, EMU_I64, EMU_U64, EMU_F32, EMU_F64 };
#define EMU_TYPE_i32 EMU_I32
#define EMU_TYPE_u32 EMU_U32
#define EMU_TYPE_il EMU_I64
#define EMU_TYPE_ul EMU_U64
#define EMU_TYPE_ill EMU_I64
#define EMU_TYPE_ull EMU_U64
#define EMU_TYPE_f32 EMU_F32
#define EMU_TYPE_f64 EMU_F64

uint64_t emu_atomic(void *p, int type, int op, uint64_t value, uint64_t compare, int scope,
                    int order);
uint64_t emu_load(const volatile void *p, int type, int scope, int order);
void emu_store(volatile void *p, int type, uint64_t value, int scope, int order);
void emu_fence(int scope);

#define EMU_ATOM_FNS_(T, TK, C)                                                                \
    static inline T emu_atom_##TK(int op, T *p, T v, T c, int scope, int order)               \
    {                                                                                         \
        return emu_from_u64_##TK(emu_atomic(p, EMU_TYPE_##TK, op, emu_to_u64_##TK(v),         \
                                            emu_to_u64_##TK(c), scope, order));               \
    }                                                                                         \
    static inline T emu_ld_##TK(const volatile T *p, int scope, int order)                    \
    {                                                                                         \
        return emu_from_u64_##TK(emu_load(p, EMU_TYPE_##TK, scope, order));                   \
    }                                                                                         \
    static inline void emu_st_##TK(volatile T *p, T v, int scope, int order)                  \
    {                                                                                         \
        emu_store(p, EMU_TYPE_##TK, emu_to_u64_##TK(v), scope, order);                        \
    }
EMU_VALUE_TYPES_(EMU_ATOM_FNS_)
#undef EMU_ATOM_FNS_

#define EMU_BY_TARGET_(fn, p) EMU_BY_VALUE_(fn, *(p))
#define atom_add(p, v, scope, order)                                                          \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_ADD, (p), (v), 0, (scope), (order))
#define atom_inc(p, limit, scope, order)                                                      \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_INC, (p), (limit), 0, (scope), (order))
#define atom_cas(p, expected, desired, scope, order)                                          \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_CAS, (p), (desired), (expected), (scope), (order))
#define atom_exch(p, v, scope, order)                                                         \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_EXCH, (p), (v), 0, (scope), (order))
#define atom_min(p, v, scope, order)                                                          \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_MIN, (p), (v), 0, (scope), (order))
#define atom_max(p, v, scope, order)                                                          \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_MAX, (p), (v), 0, (scope), (order))
#define atom_and(p, v, scope, order)                                                          \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_AND, (p), (v), 0, (scope), (order))
#define atom_or(p, v, scope, order)                                                           \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_OR, (p), (v), 0, (scope), (order))
#define atom_xor(p, v, scope, order)                                                          \
    EMU_BY_TARGET_(emu_atom, p)(EMU_ATOM_XOR, (p), (v), 0, (scope), (order))
#define ld_acquire(p, scope) EMU_BY_TARGET_(emu_ld, p)((p), (scope), ORDER_ACQUIRE)
#define ld_relaxed(p, scope) EMU_BY_TARGET_(emu_ld, p)((p), (scope), ORDER_RELAXED)
#define st_release(p, v, scope) EMU_BY_TARGET_(emu_st, p)((p), (v), (scope), ORDER_RELEASE)
#define st_relaxed(p, v, scope) EMU_BY_TARGET_(emu_st, p)((p), (v), (scope), ORDER_RELAXED)

/* globaltimer(): nanoseconds of CLOCK_MONOTONIC (emu/src/clock.c), the emulator's
 * %globaltimer: one clock for every block, PE and stream, never going backwards. For timing
 * only: a kernel's results must never depend on it. */
uint64_t emu_globaltimer(void);
#define globaltimer() emu_globaltimer()
/* smid(): the SM the calling block runs on (PTX %smid): the emulator's worker slot of the
 * block (emu/src/sm_pool.c; with SHMEMU_EMU_SMS=N, 0..N-1). For records only. */
unsigned emu_smid(void);
#define smid() emu_smid()
/* CUDA's __nanosleep (emu/src/sleep.c): lets the block's other threads run, or sleeps up to
 * ns when none can. */
void emu_nanosleep(unsigned ns);

#define __threadfence_block() emu_fence(SCOPE_BLOCK)
#define __threadfence() emu_fence(SCOPE_GPU)
#define __threadfence_system() emu_fence(SCOPE_SYS)

/* ---- mbarrier and bulk copies ------------------------------------------------------------- */

void emu_mbar_init(uint64_t *bar, unsigned count, const char *file, int line);
void emu_mbar_inval(uint64_t *bar, const char *file, int line);
uint64_t emu_mbar_arrive(uint64_t *bar, unsigned tx_bytes, bool expect, const char *file,
                         int line);
void emu_mbar_expect_tx(uint64_t *bar, unsigned bytes, const char *file, int line);
bool emu_mbar_test(uint64_t *bar, uint64_t phase_or_parity, bool parity, bool block,
                   const char *file, int line);
void emu_tma(void *dst, const void *src, unsigned bytes, uint64_t *bar, bool to_shared,
             const char *file, int line);
void emu_fence_proxy_async(void);

#define mbar_init(bar, count) emu_mbar_init((bar), (count), __FILE__, __LINE__)
#define mbar_inval(bar) emu_mbar_inval((bar), __FILE__, __LINE__)
#define mbar_arrive(bar) emu_mbar_arrive((bar), 0, false, __FILE__, __LINE__)
#define mbar_arrive_expect_tx(bar, bytes) emu_mbar_arrive((bar), (bytes), true, __FILE__, __LINE__)
#define mbar_expect_tx(bar, bytes) emu_mbar_expect_tx((bar), (bytes), __FILE__, __LINE__)
#define mbar_try_wait_parity(bar, parity)                                                     \
    emu_mbar_test((bar), (parity), true, false, __FILE__, __LINE__)
#define mbar_wait_parity(bar, parity)                                                         \
    ((void)emu_mbar_test((bar), (parity), true, true, __FILE__, __LINE__))
#define mbar_test_wait(bar, token) emu_mbar_test((bar), (token), false, false, __FILE__, __LINE__)
#define mbar_wait(bar, token)                                                                 \
    ((void)emu_mbar_test((bar), (token), false, true, __FILE__, __LINE__))
#define tma_ld(dst_smem, src, bytes, bar)                                                     \
    emu_tma((dst_smem), (src), (bytes), (bar), true, __FILE__, __LINE__)
#define tma_st(dst, src_smem, bytes, bar)                                                     \
    emu_tma((dst), (src_smem), (bytes), (bar), false, __FILE__, __LINE__)
#define fence_proxy_async() emu_fence_proxy_async()

/* ---- NVSHMEM's group calls (every thread of the block or warp calls them) ---------------- */
/* The group synchronizes, one thread issues the operation, the group synchronizes again:
 * data arrives before the signal, and the sources may be reused when the call returns. */

#define SHMEMU_DECLARE_GROUP_(G)                                                              \
    void nvshmemx_putmem_##G(void *dest, const void *source, size_t bytes, int pe);           \
    void nvshmemx_putmem_nbi_##G(void *dest, const void *source, size_t bytes, int pe);       \
    void nvshmemx_getmem_##G(void *dest, const void *source, size_t bytes, int pe);           \
    void nvshmemx_getmem_nbi_##G(void *dest, const void *source, size_t bytes, int pe);       \
    void nvshmemx_putmem_signal_##G(void *dest, const void *source, size_t bytes,             \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void nvshmemx_putmem_signal_nbi_##G(void *dest, const void *source, size_t bytes,         \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                        int pe);                                              \
    void nvshmemx_barrier_all_##G(void);                                                      \
    void nvshmemx_sync_all_##G(void);
SHMEMU_DECLARE_GROUP_(block)
SHMEMU_DECLARE_GROUP_(warp)
#undef SHMEMU_DECLARE_GROUP_

#define SHMEMU_DECLARE_TYPED_GROUP_(TYPE, NAME)                                               \
    void nvshmemx_##NAME##_put_block(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
    void nvshmemx_##NAME##_put_warp(TYPE *dest, const TYPE *source, size_t nelems, int pe);   \
    void nvshmemx_##NAME##_put_nbi_block(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         int pe);                                             \
    void nvshmemx_##NAME##_put_nbi_warp(TYPE *dest, const TYPE *source, size_t nelems,        \
                                        int pe);                                              \
    void nvshmemx_##NAME##_get_block(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
    void nvshmemx_##NAME##_get_warp(TYPE *dest, const TYPE *source, size_t nelems, int pe);   \
    void nvshmemx_##NAME##_put_signal_block(TYPE *dest, const TYPE *source, size_t nelems,    \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,  \
                                            int pe);                                          \
    void nvshmemx_##NAME##_put_signal_warp(TYPE *dest, const TYPE *source, size_t nelems,     \
                                           uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                           int pe);                                           \
    void nvshmemx_##NAME##_put_signal_nbi_block(TYPE *dest, const TYPE *source,               \
                                                size_t nelems, uint64_t *sig_addr,            \
                                                uint64_t signal, int sig_op, int pe);         \
    void nvshmemx_##NAME##_put_signal_nbi_warp(TYPE *dest, const TYPE *source, size_t nelems, \
                                               uint64_t *sig_addr, uint64_t signal,           \
                                               int sig_op, int pe);
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_TYPED_GROUP_)
#undef SHMEMU_DECLARE_TYPED_GROUP_

/* The rest of the family (group_forms.c): typed get_nbi, strided iput/iget, the sized
 * (8..128 bits) forms, and the team barrier and sync of a group. */
#define SHMEMU_DECLARE_GROUP_FORMS_(G)                                                        \
    int nvshmemx_barrier_##G(nvshmem_team_t team);                                            \
    int nvshmemx_team_sync_##G(nvshmem_team_t team);
SHMEMU_DECLARE_GROUP_FORMS_(block)
SHMEMU_DECLARE_GROUP_FORMS_(warp)
#undef SHMEMU_DECLARE_GROUP_FORMS_

#define SHMEMU_DECLARE_TYPED_FORMS_ONE_(TYPE, NAME, G)                                        \
    void nvshmemx_##NAME##_get_nbi_##G(TYPE *dest, const TYPE *source, size_t nelems,         \
                                       int pe);                                               \
    void nvshmemx_##NAME##_iput_##G(TYPE *dest, const TYPE *source, ptrdiff_t dst,            \
                                    ptrdiff_t sst, size_t nelems, int pe);                    \
    void nvshmemx_##NAME##_iget_##G(TYPE *dest, const TYPE *source, ptrdiff_t dst,            \
                                    ptrdiff_t sst, size_t nelems, int pe);
#define SHMEMU_DECLARE_TYPED_FORMS_(TYPE, NAME)                                               \
    SHMEMU_DECLARE_TYPED_FORMS_ONE_(TYPE, NAME, block)                                        \
    SHMEMU_DECLARE_TYPED_FORMS_ONE_(TYPE, NAME, warp)
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_TYPED_FORMS_)
#undef SHMEMU_DECLARE_TYPED_FORMS_
#undef SHMEMU_DECLARE_TYPED_FORMS_ONE_

#define SHMEMU_DECLARE_SIZED_FORMS_ONE_(BITS, G)                                              \
    void nvshmemx_put##BITS##_##G(void *dest, const void *source, size_t nelems, int pe);     \
    void nvshmemx_put##BITS##_nbi_##G(void *dest, const void *source, size_t nelems, int pe); \
    void nvshmemx_get##BITS##_##G(void *dest, const void *source, size_t nelems, int pe);     \
    void nvshmemx_get##BITS##_nbi_##G(void *dest, const void *source, size_t nelems, int pe); \
    void nvshmemx_put##BITS##_signal_##G(void *dest, const void *source, size_t nelems,       \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                         int pe);                                             \
    void nvshmemx_put##BITS##_signal_nbi_##G(void *dest, const void *source, size_t nelems,   \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                             int pe);                                         \
    void nvshmemx_iput##BITS##_##G(void *dest, const void *source, ptrdiff_t dst,             \
                                   ptrdiff_t sst, size_t nelems, int pe);                     \
    void nvshmemx_iget##BITS##_##G(void *dest, const void *source, ptrdiff_t dst,             \
                                   ptrdiff_t sst, size_t nelems, int pe);
#define SHMEMU_DECLARE_SIZED_FORMS_(BITS, TYPE)                                               \
    SHMEMU_DECLARE_SIZED_FORMS_ONE_(BITS, block)                                              \
    SHMEMU_DECLARE_SIZED_FORMS_ONE_(BITS, warp)
SHMEMU_SIZED_TYPES(SHMEMU_DECLARE_SIZED_FORMS_)
#undef SHMEMU_DECLARE_SIZED_FORMS_
#undef SHMEMU_DECLARE_SIZED_FORMS_ONE_

#define SHMEMU_DECLARE_GROUP_REDUCESCATTER_OP_(TYPE, NAME, OP)                                \
    int nvshmemx_##NAME##_##OP##_reducescatter_block(nvshmem_team_t team, TYPE *dest,         \
                                                     const TYPE *source, size_t nreduce);     \
    int nvshmemx_##NAME##_##OP##_reducescatter_warp(nvshmem_team_t team, TYPE *dest,          \
                                                    const TYPE *source, size_t nreduce);
#define SHMEMU_DECLARE_GROUP_REDUCESCATTER_BITWISE_(TYPE, NAME)                               \
    SHMEMU_REDUCE_BITWISE_OPS(SHMEMU_DECLARE_GROUP_REDUCESCATTER_OP_, TYPE, NAME)
#define SHMEMU_DECLARE_GROUP_REDUCESCATTER_ARITH_(TYPE, NAME)                                 \
    SHMEMU_REDUCE_ARITH_OPS(SHMEMU_DECLARE_GROUP_REDUCESCATTER_OP_, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_DECLARE_GROUP_REDUCESCATTER_BITWISE_)
SHMEMU_REDUCE_ARITH_TYPES(SHMEMU_DECLARE_GROUP_REDUCESCATTER_ARITH_)
#undef SHMEMU_DECLARE_GROUP_REDUCESCATTER_ARITH_
#undef SHMEMU_DECLARE_GROUP_REDUCESCATTER_BITWISE_
#undef SHMEMU_DECLARE_GROUP_REDUCESCATTER_OP_

/* Team collectives of a group (emu/src/group_coll.c): every thread of the block or warp calls
 * with the same arguments, and the group makes one call of the collective (nvshmem.h's), its
 * threads synchronized before and after. Return 0. */
#define SHMEMU_DECLARE_GROUP_COLL_MEM_(G)                                                     \
    int nvshmemx_broadcastmem_##G(nvshmem_team_t team, void *dest, const void *source,        \
                                  size_t nelems, int PE_root);                                \
    int nvshmemx_fcollectmem_##G(nvshmem_team_t team, void *dest, const void *source,         \
                                 size_t nelems);                                              \
    int nvshmemx_alltoallmem_##G(nvshmem_team_t team, void *dest, const void *source,         \
                                 size_t nelems);
SHMEMU_DECLARE_GROUP_COLL_MEM_(block)
SHMEMU_DECLARE_GROUP_COLL_MEM_(warp)
#undef SHMEMU_DECLARE_GROUP_COLL_MEM_

#define SHMEMU_DECLARE_GROUP_COLL_ONE_(TYPE, NAME, G)                                         \
    int nvshmemx_##NAME##_broadcast_##G(nvshmem_team_t team, TYPE *dest, const TYPE *source,  \
                                        size_t nelems, int PE_root);                          \
    int nvshmemx_##NAME##_fcollect_##G(nvshmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems);                                        \
    int nvshmemx_##NAME##_alltoall_##G(nvshmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems);
#define SHMEMU_DECLARE_GROUP_COLL_(TYPE, NAME)                                                \
    SHMEMU_DECLARE_GROUP_COLL_ONE_(TYPE, NAME, block)                                         \
    SHMEMU_DECLARE_GROUP_COLL_ONE_(TYPE, NAME, warp)
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_GROUP_COLL_)
#undef SHMEMU_DECLARE_GROUP_COLL_
#undef SHMEMU_DECLARE_GROUP_COLL_ONE_

#define SHMEMU_DECLARE_GROUP_REDUCE_OP_(TYPE, NAME, OP)                                       \
    int nvshmemx_##NAME##_##OP##_reduce_block(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nreduce);            \
    int nvshmemx_##NAME##_##OP##_reduce_warp(nvshmem_team_t team, TYPE *dest,                 \
                                             const TYPE *source, size_t nreduce);
#define SHMEMU_DECLARE_GROUP_REDUCE_BITWISE_(TYPE, NAME)                                      \
    SHMEMU_REDUCE_BITWISE_OPS(SHMEMU_DECLARE_GROUP_REDUCE_OP_, TYPE, NAME)
#define SHMEMU_DECLARE_GROUP_REDUCE_ARITH_(TYPE, NAME)                                        \
    SHMEMU_REDUCE_ARITH_OPS(SHMEMU_DECLARE_GROUP_REDUCE_OP_, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_DECLARE_GROUP_REDUCE_BITWISE_)
SHMEMU_REDUCE_ARITH_TYPES(SHMEMU_DECLARE_GROUP_REDUCE_ARITH_)
#undef SHMEMU_DECLARE_GROUP_REDUCE_ARITH_
#undef SHMEMU_DECLARE_GROUP_REDUCE_BITWISE_
#undef SHMEMU_DECLARE_GROUP_REDUCE_OP_

#ifdef __cplusplus
}
#endif

#endif /* __CUDACC__ */

#endif
