/*
 * shmemu_cuda/atomic_ref.h: libcu++'s cuda::atomic_ref, cuda::atomic and their cuda::std
 * forms (system scope) on the emulator's annotated atomics (emu/src/atomic.c).
 *
 * Each operation is one emulator call with the scope of the type and the order given:
 * thread_scope_block (and _thread) is SCOPE_BLOCK, _device SCOPE_GPU, _system SCOPE_SYS; a
 * release creates a happens-before edge only for acquires whose scope includes both threads,
 * relaxed creates none, as docs/emu.md says. memory_order_seq_cst is a fence at the scope
 * followed by the acquire/release/acq_rel form (PTX's fence.sc then the access); consume is
 * acquire. Values are 4- or 8-byte integers, float, double or pointers; compare-exchange and
 * exchange on floating point compare and move bits.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_ATOMIC_REF_H
#define SHMEMU_CUDA_ATOMIC_REF_H

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "shmemu_cuda/device.h"

namespace cuda {
namespace std {
using memory_order = ::std::memory_order;
using ::std::memory_order_acq_rel;
using ::std::memory_order_acquire;
using ::std::memory_order_consume;
using ::std::memory_order_relaxed;
using ::std::memory_order_release;
using ::std::memory_order_seq_cst;
} // namespace std
using memory_order = ::std::memory_order;
using ::std::memory_order_acq_rel;
using ::std::memory_order_acquire;
using ::std::memory_order_consume;
using ::std::memory_order_relaxed;
using ::std::memory_order_release;
using ::std::memory_order_seq_cst;

/* libcu++'s values. */
enum thread_scope {
    thread_scope_system = 0,
    thread_scope_device = 1,
    thread_scope_block = 2,
    thread_scope_thread = 3
};
} // namespace cuda

namespace shmemu_cuda {
namespace detail {

constexpr int emu_scope(cuda::thread_scope s)
{
    return s == cuda::thread_scope_system ? SCOPE_SYS
                                          : (s == cuda::thread_scope_device ? SCOPE_GPU : SCOPE_BLOCK);
}

/* The operations on *ptr() at scope S, shared by atomic_ref and atomic (CRTP). */
template <class Self, class T, cuda::thread_scope S> class atomic_ops {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                  "shmemu: cuda::atomic_ref and cuda::atomic take 4- and 8-byte types");
    static_assert(std::is_integral<T>::value || std::is_floating_point<T>::value ||
                      std::is_pointer<T>::value,
                  "shmemu: cuda::atomic_ref and cuda::atomic take integers, float, double "
                  "and pointers");
    static constexpr int scope = emu_scope(S);
    /* Bits move as unsigned words; arithmetic uses the value's own type code. */
    static constexpr int bits_type = sizeof(T) == 4 ? EMU_U32 : EMU_U64;

    T *p() const { return static_cast<const Self *>(this)->ptr(); }
    static uint64_t bits(T v)
    {
        uint64_t w = 0;
        std::memcpy(&w, &v, sizeof v);
        return w;
    }
    static T value(uint64_t w)
    {
        T v;
        std::memcpy(&v, &w, sizeof v);
        return v;
    }
    static int order(std::memory_order mo)
    {
        switch (mo) {
        case std::memory_order_relaxed: return ORDER_RELAXED;
        case std::memory_order_consume:
        case std::memory_order_acquire: return ORDER_ACQUIRE;
        case std::memory_order_release: return ORDER_RELEASE;
        default: return ORDER_ACQ_REL;
        }
    }
    /* seq_cst: the fence first; returns the order of the access itself. */
    static int prepare(std::memory_order mo, int sc_order)
    {
        if (mo != std::memory_order_seq_cst)
            return order(mo);
        emu_fence(scope);
        return sc_order;
    }
    T rmw(int op, T v, std::memory_order mo) const
    {
        int o = prepare(mo, ORDER_ACQ_REL);
        if constexpr (std::is_pointer<T>::value)
            return value(emu_atomic(p(), bits_type, op, bits(v), 0, scope, o));
        else
            return atom<T>(p(), op, v, T(), scope, o);
    }

  public:
    static constexpr bool is_always_lock_free = true;
    static constexpr size_t required_alignment = sizeof(T);
    bool is_lock_free() const { return true; }

    T load(std::memory_order mo = std::memory_order_seq_cst) const
    {
        return value(emu_load(p(), bits_type, scope, prepare(mo, ORDER_ACQUIRE) == ORDER_RELAXED
                                                         ? ORDER_RELAXED
                                                         : ORDER_ACQUIRE));
    }
    void store(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        int o = prepare(mo, ORDER_RELEASE);
        emu_store(p(), bits_type, bits(v), scope, o == ORDER_RELAXED ? ORDER_RELAXED : ORDER_RELEASE);
    }
    operator T() const { return load(); }
    T exchange(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return value(emu_atomic(p(), bits_type, EMU_ATOM_EXCH, bits(v), 0, scope,
                                prepare(mo, ORDER_ACQ_REL)));
    }
    bool compare_exchange_strong(T &expected, T desired, std::memory_order success,
                                 std::memory_order failure) const
    {
        int o = prepare(success, ORDER_ACQ_REL);
        if (o == ORDER_RELEASE && order(failure) == ORDER_ACQUIRE)
            o = ORDER_ACQ_REL;
        if (o == ORDER_RELAXED && order(failure) == ORDER_ACQUIRE)
            o = ORDER_ACQUIRE;
        uint64_t old = emu_atomic(p(), bits_type, EMU_ATOM_CAS, bits(desired), bits(expected),
                                  scope, o);
        uint64_t mask = sizeof(T) == 4 ? 0xffffffffull : ~0ull;
        if ((old & mask) == (bits(expected) & mask))
            return true;
        expected = value(old);
        return false;
    }
    bool compare_exchange_strong(T &expected, T desired,
                                 std::memory_order mo = std::memory_order_seq_cst) const
    {
        std::memory_order failure = mo == std::memory_order_acq_rel   ? std::memory_order_acquire
                                    : mo == std::memory_order_release ? std::memory_order_relaxed
                                                                      : mo;
        return compare_exchange_strong(expected, desired, mo, failure);
    }
    /* Never fails spuriously here. */
    bool compare_exchange_weak(T &expected, T desired, std::memory_order success,
                               std::memory_order failure) const
    {
        return compare_exchange_strong(expected, desired, success, failure);
    }
    bool compare_exchange_weak(T &expected, T desired,
                               std::memory_order mo = std::memory_order_seq_cst) const
    {
        return compare_exchange_strong(expected, desired, mo);
    }

    /* Arithmetic: integers and floating point (pointers: in elements). */
    template <class U = T>
    std::enable_if_t<!std::is_pointer<U>::value, T>
    fetch_add(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return rmw(EMU_ATOM_ADD, v, mo);
    }
    template <class U = T>
    std::enable_if_t<!std::is_pointer<U>::value, T>
    fetch_sub(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        if constexpr (std::is_floating_point<T>::value)
            return rmw(EMU_ATOM_ADD, -v, mo);
        else
            return rmw(EMU_ATOM_ADD, static_cast<T>(std::make_unsigned_t<T>(0) -
                                                    static_cast<std::make_unsigned_t<T>>(v)),
                       mo);
    }
    template <class U = T>
    std::enable_if_t<std::is_pointer<U>::value, T>
    fetch_add(ptrdiff_t d, std::memory_order mo = std::memory_order_seq_cst) const
    {
        uint64_t step = static_cast<uint64_t>(d * static_cast<ptrdiff_t>(sizeof(*U())));
        return value(emu_atomic(p(), bits_type, EMU_ATOM_ADD, step, 0, scope,
                                prepare(mo, ORDER_ACQ_REL)));
    }
    template <class U = T>
    std::enable_if_t<std::is_pointer<U>::value, T>
    fetch_sub(ptrdiff_t d, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return fetch_add(-d, mo);
    }
    /* Integers only: bitwise, and libcu++'s fetch_min / fetch_max. */
    template <class U = T>
    std::enable_if_t<std::is_integral<U>::value, T>
    fetch_and(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return rmw(EMU_ATOM_AND, v, mo);
    }
    template <class U = T>
    std::enable_if_t<std::is_integral<U>::value, T>
    fetch_or(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return rmw(EMU_ATOM_OR, v, mo);
    }
    template <class U = T>
    std::enable_if_t<std::is_integral<U>::value, T>
    fetch_xor(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return rmw(EMU_ATOM_XOR, v, mo);
    }
    template <class U = T>
    std::enable_if_t<std::is_integral<U>::value, T>
    fetch_min(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return rmw(EMU_ATOM_MIN, v, mo);
    }
    template <class U = T>
    std::enable_if_t<std::is_integral<U>::value, T>
    fetch_max(T v, std::memory_order mo = std::memory_order_seq_cst) const
    {
        return rmw(EMU_ATOM_MAX, v, mo);
    }

    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator++() const { return fetch_add(1) + 1; }
    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator++(int) const { return fetch_add(1); }
    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator--() const { return fetch_sub(1) - 1; }
    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator--(int) const { return fetch_sub(1); }
    template <class U = T, class = std::enable_if_t<!std::is_pointer<U>::value>>
    T operator+=(T v) const { return fetch_add(v) + v; }
    template <class U = T, class = std::enable_if_t<!std::is_pointer<U>::value>>
    T operator-=(T v) const { return fetch_sub(v) - v; }
    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator&=(T v) const { return fetch_and(v) & v; }
    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator|=(T v) const { return fetch_or(v) | v; }
    template <class U = T, class = std::enable_if_t<std::is_integral<U>::value>>
    T operator^=(T v) const { return fetch_xor(v) ^ v; }

    /* Waits until the value differs from old (the emulator parks a spinning load). */
    void wait(T old, std::memory_order mo = std::memory_order_seq_cst) const
    {
        while (bits(load(mo)) == bits(old)) {
        }
    }
    /* Waiters poll (their loads park and wake on the emulator's stores): nothing to do. */
    void notify_one() const {}
    void notify_all() const {}
};

} // namespace detail
} // namespace shmemu_cuda

namespace cuda {

template <class T, thread_scope S = thread_scope_system>
class atomic_ref : public ::shmemu_cuda::detail::atomic_ops<atomic_ref<T, S>, T, S> {
    T *p_;

  public:
    using value_type = T;
    explicit atomic_ref(T &obj) : p_(&obj) {}
    atomic_ref(const atomic_ref &) = default;
    atomic_ref &operator=(const atomic_ref &) = delete;
    T operator=(T v) const
    {
        this->store(v);
        return v;
    }
    T *ptr() const { return p_; }
};

/* An atomic object (placed in device memory by the program). */
template <class T, thread_scope S = thread_scope_system>
class atomic : public ::shmemu_cuda::detail::atomic_ops<atomic<T, S>, T, S> {
    mutable T value_;

  public:
    using value_type = T;
    atomic() = default;
    constexpr atomic(T v) : value_(v) {}
    atomic(const atomic &) = delete;
    atomic &operator=(const atomic &) = delete;
    T operator=(T v)
    {
        this->store(v);
        return v;
    }
    T *ptr() const { return &value_; }
};

namespace std {
template <class T> class atomic_ref : public ::cuda::atomic_ref<T, ::cuda::thread_scope_system> {
  public:
    explicit atomic_ref(T &obj) : ::cuda::atomic_ref<T, ::cuda::thread_scope_system>(obj) {}
    using ::cuda::atomic_ref<T, ::cuda::thread_scope_system>::operator=;
};
template <class T> class atomic : public ::cuda::atomic<T, ::cuda::thread_scope_system> {
  public:
    atomic() = default;
    constexpr atomic(T v) : ::cuda::atomic<T, ::cuda::thread_scope_system>(v) {}
    using ::cuda::atomic<T, ::cuda::thread_scope_system>::operator=;
};
inline void atomic_thread_fence(memory_order) { emu_fence(SCOPE_SYS); }
} // namespace std

/* A fence at scope S (relaxed: none). */
inline void atomic_thread_fence(memory_order mo, thread_scope s = thread_scope_system)
{
    if (mo != memory_order_relaxed)
        emu_fence(::shmemu_cuda::detail::emu_scope(s));
}

} // namespace cuda

#endif
