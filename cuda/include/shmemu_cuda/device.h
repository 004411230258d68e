/*
 * shmemu_cuda/device.h: CUDA's device built-ins for kernels compiled by the host C++
 * compiler, on the emulator's calls (shmemu/kernel.h, docs/emu.md).
 *
 * Indices (threadIdx, ...) are the running emulated thread's, read from emu_view, typed as
 * CUDA types them (uint3 and dim3, by value: they cannot be assigned). Barriers, warp
 * collectives and fences are the emulator's own, so its checks (a __syncthreads not
 * reached by every thread, a warp mask naming exited lanes, ...) and the race checkers'
 * view are the dialect's. Calls that take a source position take it from the caller
 * (__builtin_FILE/__builtin_LINE default arguments, or kernel.h's macros), so reports name
 * the line of the .cu file.
 *
 * Atomics are the emulator's relaxed read-modify-writes at the scope of the name: atomicX at
 * gpu scope, atomicX_block at block scope, atomicX_system at system scope; exactly the types
 * CUDA defines each on. atomicDec (no emulator operation) is a relaxed CAS loop.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_DEVICE_H
#define SHMEMU_CUDA_DEVICE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "shmemu_cuda/runtime_api.h"
#include "shmemu/kernel.h"

/* The dialect's own names are not CUDA's: a .cu file may use them for itself. */
#undef KERNEL
#undef KERNEL_DECL
#undef DEVICE
#undef DIM3
#undef LAUNCH
#undef LAUNCH_COOP
#undef SHARED_ARRAY
#undef EXTERN_SHARED
#undef SH_LD
#undef SH_ST
#undef grid_sync
#undef atom_add
#undef atom_inc
#undef atom_cas
#undef atom_exch
#undef atom_min
#undef atom_max
#undef atom_and
#undef atom_or
#undef atom_xor
#undef ld_acquire
#undef ld_relaxed
#undef st_release
#undef st_relaxed
#undef globaltimer
#undef smid
#undef mbar_init
#undef mbar_inval
#undef mbar_arrive
#undef mbar_arrive_expect_tx
#undef mbar_expect_tx
#undef mbar_try_wait_parity
#undef mbar_wait_parity
#undef mbar_test_wait
#undef mbar_wait
#undef tma_ld
#undef tma_st
#undef fence_proxy_async
/* Replaced below by CUDA's typed forms. */
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim
#undef warpSize
#undef __syncwarp
#undef __shfl_sync
#undef __shfl_up_sync
#undef __shfl_down_sync
#undef __shfl_xor_sync
/* Kept from kernel.h (macros that pass the caller's position): __syncthreads(),
 * __ballot_sync, __any_sync, __all_sync, __activemask(), __threadfence_block(),
 * __threadfence(), __threadfence_system(). */

namespace shmemu_cuda {
namespace detail {

/* The running emulated thread's view; a device built-in read outside a kernel stops the
 * program with the built-in's name. */
[[noreturn]] void outside_kernel(const char *what);
inline const emu_thread_view &view(const char *what)
{
    const emu_thread_view *v = emu_view;
    if (v == nullptr)
        outside_kernel(what);
    return *v;
}
inline uint3 as_uint3(dim3 d) { return uint3{d.x, d.y, d.z}; }

/* Linear thread index in the block, and lane (CUDA: linear index mod 32). */
inline unsigned thread_rank()
{
    const emu_thread_view &v = view("thread_rank");
    return v.thread_idx.x + v.block_dim.x * (v.thread_idx.y + v.block_dim.y * v.thread_idx.z);
}
inline unsigned lane_id() { return thread_rank() & 31u; }
inline unsigned block_threads()
{
    const emu_thread_view &v = view("blockDim");
    return v.block_dim.x * v.block_dim.y * v.block_dim.z;
}
/* The lanes of the calling thread's warp that exist (the block's last warp may be partial). */
inline unsigned warp_lanes()
{
    unsigned n = block_threads() - (thread_rank() & ~31u);
    return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

/* Values travel through the emulator as 64-bit words: integers extended by their sign,
 * floating point as its bits. */
template <class T> inline uint64_t to_word(T v)
{
    static_assert(std::is_arithmetic<T>::value && sizeof(T) <= 8,
                  "shmemu: warp shuffles and atomics take integers, float and double");
    if constexpr (std::is_floating_point<T>::value) {
        uint64_t w = 0;
        std::memcpy(&w, &v, sizeof v);
        return w;
    } else if constexpr (std::is_signed<T>::value) {
        return static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
        return static_cast<uint64_t>(v);
    }
}
template <class T> inline T from_word(uint64_t w)
{
    if constexpr (std::is_floating_point<T>::value) {
        T v;
        std::memcpy(&v, &w, sizeof v);
        return v;
    } else {
        return static_cast<T>(w);
    }
}

/* A shuffle of width lanes (a power of two up to 32), as PTX's shfl.sync: each segment of
 * width lanes reads within itself (up, down, idx) or from itself and earlier segments
 * (xor); a source outside that keeps the lane's own value. */
inline uint64_t shuffle(int mode, unsigned mask, uint64_t v, int arg, int width,
                        const char *file, int line)
{
    if (width >= 32 || width <= 0)
        return emu_warp_op(mode, mask, v, arg, file, line);
    int lane = static_cast<int>(lane_id());
    int base = lane & ~(width - 1), last = base + width - 1, src = lane;
    switch (mode) {
    case EMU_WARP_SHFL: src = base + (arg & (width - 1)); break;
    case EMU_WARP_SHFL_UP: src = lane - arg >= base ? lane - arg : lane; break;
    case EMU_WARP_SHFL_DOWN: src = lane + arg <= last ? lane + arg : lane; break;
    default: src = (lane ^ (arg & 31)) <= last ? lane ^ (arg & 31) : lane; break;
    }
    return emu_warp_op(EMU_WARP_SHFL, mask, v, src, file, line);
}

} // namespace detail
} // namespace shmemu_cuda

/* ---- indices and sizes ------------------------------------------------------------------ */

#define threadIdx (::shmemu_cuda::detail::as_uint3(::shmemu_cuda::detail::view("threadIdx").thread_idx))
#define blockIdx (::shmemu_cuda::detail::as_uint3(::shmemu_cuda::detail::view("blockIdx").block_idx))
#define blockDim (dim3(::shmemu_cuda::detail::view("blockDim").block_dim))
#define gridDim (dim3(::shmemu_cuda::detail::view("gridDim").grid_dim))
constexpr int warpSize = 32;

/* ---- barriers and warp collectives ------------------------------------------------------- */

/* __syncthreads_count/_and/_or: a block barrier that also combines a predicate. The sum lives
 * in the block's thread-local slots (one block is one pthread); two slots alternate, so a
 * thread running ahead into the next call cannot disturb a slot still being read. */
namespace shmemu_cuda {
namespace detail {
inline int syncthreads_combine(int predicate, const char *file, int line)
{
    static thread_local int sum[2];
    static thread_local int slot;
    int s = slot;
    sum[s] += predicate != 0;
    emu_syncthreads(file, line);
    int total = sum[s];
    if (thread_rank() == 0) {
        sum[s ^ 1] = 0;
        slot = s ^ 1;
    }
    emu_syncthreads(file, line);
    return total;
}
} // namespace detail
} // namespace shmemu_cuda

inline int __syncthreads_count(int predicate, const char *file = __builtin_FILE(),
                               int line = __builtin_LINE())
{
    return ::shmemu_cuda::detail::syncthreads_combine(predicate, file, line);
}
inline int __syncthreads_and(int predicate, const char *file = __builtin_FILE(),
                             int line = __builtin_LINE())
{
    return ::shmemu_cuda::detail::syncthreads_combine(predicate, file, line) ==
           static_cast<int>(::shmemu_cuda::detail::block_threads());
}
inline int __syncthreads_or(int predicate, const char *file = __builtin_FILE(),
                            int line = __builtin_LINE())
{
    return ::shmemu_cuda::detail::syncthreads_combine(predicate, file, line) != 0;
}

inline void __syncwarp(unsigned mask = 0xffffffffu, const char *file = __builtin_FILE(),
                       int line = __builtin_LINE())
{
    emu_syncwarp(mask, file, line);
}

#define SHMEMU_CUDA_SHUFFLE_(name, mode, arg_type)                                             \
    template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>                 \
    inline T name(unsigned mask, T var, arg_type arg, int width = warpSize,                    \
                  const char *file = __builtin_FILE(), int line = __builtin_LINE())            \
    {                                                                                          \
        namespace d = ::shmemu_cuda::detail;                                                   \
        return d::from_word<T>(                                                                \
            d::shuffle(mode, mask, d::to_word(var), static_cast<int>(arg), width, file, line)); \
    }
SHMEMU_CUDA_SHUFFLE_(__shfl_sync, EMU_WARP_SHFL, int)
SHMEMU_CUDA_SHUFFLE_(__shfl_up_sync, EMU_WARP_SHFL_UP, unsigned)
SHMEMU_CUDA_SHUFFLE_(__shfl_down_sync, EMU_WARP_SHFL_DOWN, unsigned)
SHMEMU_CUDA_SHUFFLE_(__shfl_xor_sync, EMU_WARP_SHFL_XOR, int)
#undef SHMEMU_CUDA_SHUFFLE_

/* __match_any_sync: the lanes of mask whose value equals the caller's; __match_all_sync: mask
 * when all are equal (*pred = 1), else 0 (*pred = 0). One shuffle per lane of the mask. */
template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
inline unsigned __match_any_sync(unsigned mask, T value, const char *file = __builtin_FILE(),
                                 int line = __builtin_LINE())
{
    namespace d = ::shmemu_cuda::detail;
    uint64_t mine = d::to_word(value);
    unsigned same = 0;
    for (int l = 0; l < 32; l++)
        if ((mask >> l) & 1u)
            if (emu_warp_op(EMU_WARP_SHFL, mask, mine, l, file, line) == mine)
                same |= 1u << l;
    return same;
}
template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
inline unsigned __match_all_sync(unsigned mask, T value, int *pred,
                                 const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    unsigned same = __match_any_sync(mask, value, file, line);
    *pred = same == mask;
    return same == mask ? mask : 0u;
}

/* __reduce_*_sync (sm_80): every lane of mask gets the combination of their values. */
namespace shmemu_cuda {
namespace detail {
template <class T, class Op>
inline T warp_reduce(unsigned mask, T value, Op op, const char *file, int line)
{
    T acc = value;
    bool first = true;
    for (int l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u))
            continue;
        T v = from_word<T>(emu_warp_op(EMU_WARP_SHFL, mask, to_word(value), l, file, line));
        acc = first ? v : op(acc, v);
        first = false;
    }
    return acc;
}
} // namespace detail
} // namespace shmemu_cuda

#define SHMEMU_CUDA_REDUCE_(name, T, expr)                                                     \
    inline T name(unsigned mask, T value, const char *file = __builtin_FILE(),                 \
                  int line = __builtin_LINE())                                                 \
    {                                                                                          \
        return ::shmemu_cuda::detail::warp_reduce(                                             \
            mask, value, [](T a, T b) { return expr; }, file, line);                           \
    }
SHMEMU_CUDA_REDUCE_(__reduce_add_sync, int, a + b)
SHMEMU_CUDA_REDUCE_(__reduce_add_sync, unsigned, a + b)
SHMEMU_CUDA_REDUCE_(__reduce_min_sync, int, a < b ? a : b)
SHMEMU_CUDA_REDUCE_(__reduce_min_sync, unsigned, a < b ? a : b)
SHMEMU_CUDA_REDUCE_(__reduce_max_sync, int, a > b ? a : b)
SHMEMU_CUDA_REDUCE_(__reduce_max_sync, unsigned, a > b ? a : b)
SHMEMU_CUDA_REDUCE_(__reduce_and_sync, unsigned, a & b)
SHMEMU_CUDA_REDUCE_(__reduce_or_sync, unsigned, a | b)
SHMEMU_CUDA_REDUCE_(__reduce_xor_sync, unsigned, a ^ b)
#undef SHMEMU_CUDA_REDUCE_

/* ---- integer intrinsics ------------------------------------------------------------------ */

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline unsigned int __brev(unsigned int x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++, x >>= 1)
        r = (r << 1) | (x & 1u);
    return r;
}
inline unsigned long long __brevll(unsigned long long x)
{
    return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) |
           __brev(static_cast<unsigned>(x >> 32));
}
/* Byte i of the result is byte s[4i+2:4i] of the 8 bytes y:x (x the low word). */
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned>((v << (shift < 32 ? shift : 32)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned>(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift)
{
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned>(v >> (shift < 32 ? shift : 32));
}
inline int __mulhi(int x, int y)
{
    return static_cast<int>((static_cast<long long>(x) * y) >> 32);
}
inline unsigned int __umulhi(unsigned int x, unsigned int y)
{
    return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline long long __mul64hi(long long x, long long y)
{
    return static_cast<long long>((static_cast<__int128>(x) * y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
inline int __mul24(int x, int y)
{
    return static_cast<int>(static_cast<unsigned>((x << 8) >> 8) *
                            static_cast<unsigned>((y << 8) >> 8));
}
inline unsigned int __umul24(unsigned int x, unsigned int y)
{
    return (x & 0xffffffu) * (y & 0xffffffu);
}
inline unsigned int __sad(int x, int y, unsigned int z)
{
    return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y
                                           : static_cast<long long>(y) - x);
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z)
{
    return z + (x > y ? x - y : y - x);
}
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y)
{
    return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1);
}
inline unsigned int __uhadd(unsigned int x, unsigned int y)
{
    return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y)
{
    return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

/* ---- atomics ---------------------------------------------------------------------------- */

namespace shmemu_cuda {
namespace detail {
template <class T> constexpr int atom_type()
{
    if constexpr (std::is_same<T, float>::value)
        return EMU_F32;
    else if constexpr (std::is_same<T, double>::value)
        return EMU_F64;
    else if constexpr (sizeof(T) == 4)
        return std::is_signed<T>::value ? EMU_I32 : EMU_U32;
    else
        return std::is_signed<T>::value ? EMU_I64 : EMU_U64;
}
template <class T> inline T atom(T *p, int op, T v, T compare, int scope, int order = ORDER_RELAXED)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shmemu: atomics are on 4- and 8-byte words");
    return from_word<T>(emu_atomic(p, atom_type<T>(), op, to_word(v), to_word(compare), scope, order));
}
template <class T> inline T atom_load(const volatile T *p, int scope, int order)
{
    return from_word<T>(emu_load(p, atom_type<T>(), scope, order));
}
template <class T> inline void atom_store(volatile T *p, T v, int scope, int order)
{
    emu_store(p, atom_type<T>(), to_word(v), scope, order);
}
/* atomicDec: ((old == 0) || (old > limit)) ? limit : old - 1. */
inline unsigned atom_dec(unsigned *p, unsigned limit, int scope)
{
    unsigned old = atom_load(p, scope, ORDER_RELAXED);
    for (;;) {
        unsigned next = (old == 0 || old > limit) ? limit : old - 1;
        unsigned seen = atom(p, EMU_ATOM_CAS, next, old, scope);
        if (seen == old)
            return old;
        old = seen;
    }
}
} // namespace detail
} // namespace shmemu_cuda

#define SHMEMU_CUDA_ATOMIC_(name, T, op)                                                         \
    inline T name(T *address, T val)                                                            \
    {                                                                                            \
        return ::shmemu_cuda::detail::atom<T>(address, op, val, static_cast<T>(0), SHMEMU_CUDA_SCOPE_);\
    }
#define SHMEMU_CUDA_ATOMIC_SUB_(name, T)                                                         \
    inline T name(T *address, T val)                                                            \
    {                                                                                            \
        return ::shmemu_cuda::detail::atom<T>(address, EMU_ATOM_ADD,                             \
                                              static_cast<T>(0u - static_cast<unsigned>(val)),  \
                                              static_cast<T>(0), SHMEMU_CUDA_SCOPE_);            \
    }
#define SHMEMU_CUDA_ATOMIC_CAS_(name, T)                                                         \
    inline T name(T *address, T compare, T val)                                                 \
    {                                                                                            \
        return ::shmemu_cuda::detail::atom<T>(address, EMU_ATOM_CAS, val, compare,               \
                                              SHMEMU_CUDA_SCOPE_);                               \
    }
#define SHMEMU_CUDA_ATOMICS_(S)                                                                  \
    SHMEMU_CUDA_ATOMIC_(atomicAdd##S, int, EMU_ATOM_ADD)                                         \
    SHMEMU_CUDA_ATOMIC_(atomicAdd##S, unsigned int, EMU_ATOM_ADD)                                \
    SHMEMU_CUDA_ATOMIC_(atomicAdd##S, unsigned long long, EMU_ATOM_ADD)                          \
    SHMEMU_CUDA_ATOMIC_(atomicAdd##S, float, EMU_ATOM_ADD)                                       \
    SHMEMU_CUDA_ATOMIC_(atomicAdd##S, double, EMU_ATOM_ADD)                                      \
    SHMEMU_CUDA_ATOMIC_SUB_(atomicSub##S, int)                                                   \
    SHMEMU_CUDA_ATOMIC_SUB_(atomicSub##S, unsigned int)                                          \
    SHMEMU_CUDA_ATOMIC_(atomicExch##S, int, EMU_ATOM_EXCH)                                       \
    SHMEMU_CUDA_ATOMIC_(atomicExch##S, unsigned int, EMU_ATOM_EXCH)                              \
    SHMEMU_CUDA_ATOMIC_(atomicExch##S, unsigned long long, EMU_ATOM_EXCH)                        \
    SHMEMU_CUDA_ATOMIC_(atomicExch##S, float, EMU_ATOM_EXCH)                                     \
    SHMEMU_CUDA_ATOMIC_(atomicMin##S, int, EMU_ATOM_MIN)                                         \
    SHMEMU_CUDA_ATOMIC_(atomicMin##S, unsigned int, EMU_ATOM_MIN)                                \
    SHMEMU_CUDA_ATOMIC_(atomicMin##S, long long, EMU_ATOM_MIN)                                   \
    SHMEMU_CUDA_ATOMIC_(atomicMin##S, unsigned long long, EMU_ATOM_MIN)                          \
    SHMEMU_CUDA_ATOMIC_(atomicMax##S, int, EMU_ATOM_MAX)                                         \
    SHMEMU_CUDA_ATOMIC_(atomicMax##S, unsigned int, EMU_ATOM_MAX)                                \
    SHMEMU_CUDA_ATOMIC_(atomicMax##S, long long, EMU_ATOM_MAX)                                   \
    SHMEMU_CUDA_ATOMIC_(atomicMax##S, unsigned long long, EMU_ATOM_MAX)                          \
    SHMEMU_CUDA_ATOMIC_(atomicInc##S, unsigned int, EMU_ATOM_INC)                                \
    inline unsigned int atomicDec##S(unsigned int *address, unsigned int val)                    \
    {                                                                                            \
        return ::shmemu_cuda::detail::atom_dec(address, val, SHMEMU_CUDA_SCOPE_);                \
    }                                                                                            \
    SHMEMU_CUDA_ATOMIC_CAS_(atomicCAS##S, int)                                                   \
    SHMEMU_CUDA_ATOMIC_CAS_(atomicCAS##S, unsigned int)                                          \
    SHMEMU_CUDA_ATOMIC_CAS_(atomicCAS##S, unsigned long long)                                    \
    SHMEMU_CUDA_ATOMIC_(atomicAnd##S, int, EMU_ATOM_AND)                                         \
    SHMEMU_CUDA_ATOMIC_(atomicAnd##S, unsigned int, EMU_ATOM_AND)                                \
    SHMEMU_CUDA_ATOMIC_(atomicAnd##S, long long, EMU_ATOM_AND)                                   \
    SHMEMU_CUDA_ATOMIC_(atomicAnd##S, unsigned long long, EMU_ATOM_AND)                          \
    SHMEMU_CUDA_ATOMIC_(atomicOr##S, int, EMU_ATOM_OR)                                           \
    SHMEMU_CUDA_ATOMIC_(atomicOr##S, unsigned int, EMU_ATOM_OR)                                  \
    SHMEMU_CUDA_ATOMIC_(atomicOr##S, long long, EMU_ATOM_OR)                                     \
    SHMEMU_CUDA_ATOMIC_(atomicOr##S, unsigned long long, EMU_ATOM_OR)                            \
    SHMEMU_CUDA_ATOMIC_(atomicXor##S, int, EMU_ATOM_XOR)                                         \
    SHMEMU_CUDA_ATOMIC_(atomicXor##S, unsigned int, EMU_ATOM_XOR)                                \
    SHMEMU_CUDA_ATOMIC_(atomicXor##S, long long, EMU_ATOM_XOR)                                   \
    SHMEMU_CUDA_ATOMIC_(atomicXor##S, unsigned long long, EMU_ATOM_XOR)

#define SHMEMU_CUDA_SCOPE_ SCOPE_GPU
SHMEMU_CUDA_ATOMICS_()
#undef SHMEMU_CUDA_SCOPE_
#define SHMEMU_CUDA_SCOPE_ SCOPE_BLOCK
SHMEMU_CUDA_ATOMICS_(_block)
#undef SHMEMU_CUDA_SCOPE_
#define SHMEMU_CUDA_SCOPE_ SCOPE_SYS
SHMEMU_CUDA_ATOMICS_(_system)
#undef SHMEMU_CUDA_SCOPE_
#undef SHMEMU_CUDA_ATOMICS_
#undef SHMEMU_CUDA_ATOMIC_
#undef SHMEMU_CUDA_ATOMIC_SUB_
#undef SHMEMU_CUDA_ATOMIC_CAS_

/* ---- loads and stores with cache hints: plain accesses here ------------------------------ */

template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }

/* ---- time, sleep, traps --------------------------------------------------------------- */

/* clock64: nanoseconds of the emulator's clock (never backwards within a thread), for
 * timing only. __globaltimer is shmemu's name for PTX %globaltimer (CUDA has no function). */
inline long long clock64() { return static_cast<long long>(emu_globaltimer()); }
inline unsigned long long __globaltimer() { return emu_globaltimer(); }
/* Lets the block's other threads run (a spin on a flag another thread of the block sets
 * then progresses), or sleeps up to ns when none can. */
inline void __nanosleep(unsigned int ns) { emu_nanosleep(ns); }
[[noreturn]] void __trap(const char *file = __builtin_FILE(), int line = __builtin_LINE());
[[noreturn]] void __brkpt(const char *file = __builtin_FILE(), int line = __builtin_LINE());

#include "shmemu_cuda/math.h"

#endif
