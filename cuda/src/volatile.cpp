/*
 * volatile.cpp: what ThreadSanitizer sees of a `volatile` access in a .cu file
 * (docs/checking.md, "volatile flags and fences"). TSan builds only.
 *
 * In the PTX memory model a volatile access in device code is a relaxed system-scope
 * access (ld.volatile / st.volatile), not a data race with another volatile access, and
 * "__threadfence; volatile store" read by "volatile load; __threadfence" synchronizes. A
 * .cu file compiled for TSan by bin/shmemu-nvcc gets clang's -tsan-distinguish-volatile=1:
 * the compiler, which knows the types, calls __tsan_volatile_readN / _writeN before each
 * volatile access instead of the plain __tsan_readN / _writeN. The TSan runtime of clang 14
 * does not define those entries; they are defined here, so this file decides:
 *   - in a kernel thread (emu_view set), a naturally aligned 4- or 8-byte volatile access
 *     is the dialect's relaxed system-scope access on that word: a read is emu_load
 *     (a scheduling point, an atomic load TSan sees, remembered for the thread's next fence
 *     to acquire, and a spin on an unchanged word parks, as a polling ld_relaxed does); a
 *     write is first emu_atomic's relaxed add of 0 (an atomic write to TSan, a release when
 *     the thread has fenced before, as a relaxed store after a fence is, and a wake of the
 *     word's waiters). The program's own access follows, uninstrumented: TSan sees the
 *     access only as the atomic one made here. The wake comes just before the program's
 *     store: a waiter woken early rereads the old value and parks again until its short
 *     spin timeout (free-running) or the scheduler's next look at its word;
 *   - anywhere else (host code, where volatile is C++'s and orders nothing; 1-, 2- and
 *     16-byte or misaligned accesses) it is the plain access TSan would have seen.
 * No edge is added beyond PTX's: a fence before a volatile store releases and a fence after
 * a volatile load acquires, exactly as for relaxed atomics (emu/src/atomic.c); a missing
 * fence on either side leaves the data racing.
 */
#include "shmemu/internal/checkers.h"

#ifdef SHMEMU_TSAN
#include <cstddef>
#include <cstdint>

#include "cuda_runtime.h"

extern "C" {
void __tsan_read1(void *addr);
void __tsan_read2(void *addr);
void __tsan_read4(void *addr);
void __tsan_read8(void *addr);
void __tsan_read16(void *addr);
void __tsan_write1(void *addr);
void __tsan_write2(void *addr);
void __tsan_write4(void *addr);
void __tsan_write8(void *addr);
void __tsan_write16(void *addr);
void __tsan_unaligned_read2(const void *addr);
void __tsan_unaligned_read4(const void *addr);
void __tsan_unaligned_read8(const void *addr);
void __tsan_unaligned_read16(const void *addr);
void __tsan_unaligned_write2(void *addr);
void __tsan_unaligned_write4(void *addr);
void __tsan_unaligned_write8(void *addr);
void __tsan_unaligned_write16(void *addr);
}

namespace {

/* The dialect's type of a kernel's volatile word, or -1 when it stays a plain access. */
int word_type(const void *addr, size_t size)
{
    if (emu_view == nullptr || (size != 4 && size != 8) ||
        reinterpret_cast<uintptr_t>(addr) % size != 0)
        return -1;
    return size == 4 ? EMU_U32 : EMU_U64;
}

bool relaxed_read(void *addr, size_t size)
{
    int type = word_type(addr, size);
    if (type < 0)
        return false;
    (void)emu_load(addr, type, SCOPE_SYS, ORDER_RELAXED);
    return true;
}

bool relaxed_write(void *addr, size_t size)
{
    int type = word_type(addr, size);
    if (type < 0)
        return false;
    (void)emu_atomic(addr, type, EMU_ATOM_ADD, 0, 0, SCOPE_SYS, ORDER_RELAXED);
    return true;
}

} // namespace

#define SHMEMU_VOLATILE_(N)                                                                 \
    extern "C" void __tsan_volatile_read##N(void *addr)                                     \
    {                                                                                       \
        if (!relaxed_read(addr, N))                                                         \
            __tsan_read##N(addr);                                                           \
    }                                                                                       \
    extern "C" void __tsan_volatile_write##N(void *addr)                                    \
    {                                                                                       \
        if (!relaxed_write(addr, N))                                                        \
            __tsan_write##N(addr);                                                          \
    }
SHMEMU_VOLATILE_(1)
SHMEMU_VOLATILE_(2)
SHMEMU_VOLATILE_(4)
SHMEMU_VOLATILE_(8)
SHMEMU_VOLATILE_(16)
#undef SHMEMU_VOLATILE_

#define SHMEMU_UNALIGNED_VOLATILE_(N)                                                       \
    extern "C" void __tsan_unaligned_volatile_read##N(void *addr)                           \
    {                                                                                       \
        if (!relaxed_read(addr, N))                                                         \
            __tsan_unaligned_read##N(addr);                                                 \
    }                                                                                       \
    extern "C" void __tsan_unaligned_volatile_write##N(void *addr)                          \
    {                                                                                       \
        if (!relaxed_write(addr, N))                                                        \
            __tsan_unaligned_write##N(addr);                                                \
    }
SHMEMU_UNALIGNED_VOLATILE_(2)
SHMEMU_UNALIGNED_VOLATILE_(4)
SHMEMU_UNALIGNED_VOLATILE_(8)
SHMEMU_UNALIGNED_VOLATILE_(16)
#undef SHMEMU_UNALIGNED_VOLATILE_

#endif
