/*
 * shmemu/typelists.h: the type families of the NVSHMEM and OpenSHMEM APIs as X-macros.
 *
 * Each list calls X(TYPE, TYPENAME) once per member, where TYPE is the C type and TYPENAME
 * the spelling in the function names (nvshmem_TYPENAME_put, shmem_TYPENAME_put, ...).
 * Both API headers and their implementations expand these lists, so the declarations and
 * the definitions cannot drift apart.
 */
#ifndef SHMEMU_TYPELISTS_H
#define SHMEMU_TYPELISTS_H

#include <stddef.h>
#include <stdint.h>

/* Standard RMA types: put/get/p/g/iput/iget/put_signal, broadcast, fcollect, alltoall. */
#define SHMEMU_RMA_TYPES(X)                                                                   \
    X(float, float)                                                                           \
    X(double, double)                                                                         \
    X(char, char)                                                                             \
    X(signed char, schar)                                                                     \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int8_t, int8)                                                                           \
    X(int16_t, int16)                                                                         \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)                                                                         \
    X(uint8_t, uint8)                                                                         \
    X(uint16_t, uint16)                                                                       \
    X(uint32_t, uint32)                                                                       \
    X(uint64_t, uint64)                                                                       \
    X(size_t, size)                                                                           \
    X(ptrdiff_t, ptrdiff)

/* Point-to-point synchronization types: wait_until and test families. */
#define SHMEMU_WAIT_TYPES(X)                                                                  \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)                                                                         \
    X(uint32_t, uint32)                                                                       \
    X(uint64_t, uint64)                                                                       \
    X(size_t, size)                                                                           \
    X(ptrdiff_t, ptrdiff)

/* Standard AMO types: inc, fetch_inc, add, fetch_add, compare_swap (and the extended ops). */
#define SHMEMU_AMO_TYPES(X)                                                                   \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)                                                                         \
    X(uint32_t, uint32)                                                                       \
    X(uint64_t, uint64)                                                                       \
    X(size_t, size)                                                                           \
    X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set and swap also take the floating-point types. */
#define SHMEMU_AMO_EXTENDED_TYPES(X)                                                          \
    SHMEMU_AMO_TYPES(X)                                                                       \
    X(float, float)                                                                           \
    X(double, double)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define SHMEMU_AMO_BITWISE_TYPES(X)                                                           \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)                                                                         \
    X(uint32_t, uint32)                                                                       \
    X(uint64_t, uint64)

/* Reduction types for and/or/xor. */
#define SHMEMU_REDUCE_BITWISE_TYPES(X)                                                        \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int8_t, int8)                                                                           \
    X(int16_t, int16)                                                                         \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)                                                                         \
    X(uint8_t, uint8)                                                                         \
    X(uint16_t, uint16)                                                                       \
    X(uint32_t, uint32)                                                                       \
    X(uint64_t, uint64)                                                                       \
    X(size_t, size)

/* Reduction types for min/max (and, with the bitwise list's absence of float, sum/prod). */
#define SHMEMU_REDUCE_ARITH_TYPES(X)                                                          \
    X(char, char)                                                                             \
    X(signed char, schar)                                                                     \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(ptrdiff_t, ptrdiff)                                                                     \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int8_t, int8)                                                                           \
    X(int16_t, int16)                                                                         \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)                                                                         \
    X(uint8_t, uint8)                                                                         \
    X(uint16_t, uint16)                                                                       \
    X(uint32_t, uint32)                                                                       \
    X(uint64_t, uint64)                                                                       \
    X(size_t, size)                                                                           \
    X(float, float)                                                                           \
    X(double, double)

/* The reduction operators of each family, for one type: X(TYPE, TYPENAME, OP) per operator.
 * A list of reductions is SHMEMU_REDUCE_BITWISE_TYPES(Y) with Y(TYPE, NAME) expanding to
 * SHMEMU_REDUCE_BITWISE_OPS(X, TYPE, NAME), and the same for the arithmetic family. */
#define SHMEMU_REDUCE_BITWISE_OPS(X, TYPE, NAME)                                              \
    X(TYPE, NAME, and) X(TYPE, NAME, or) X(TYPE, NAME, xor)
#define SHMEMU_REDUCE_ARITH_OPS(X, TYPE, NAME)                                                \
    X(TYPE, NAME, min) X(TYPE, NAME, max) X(TYPE, NAME, sum) X(TYPE, NAME, prod)

/* Sized RMA routines: nvshmem_put8 ... put128, and their relatives (BITS, element type). */
#define SHMEMU_SIZED_TYPES(X)                                                                 \
    X(8, uint8_t)                                                                             \
    X(16, uint16_t)                                                                           \
    X(32, uint32_t)                                                                           \
    X(64, uint64_t)                                                                           \
    X(128, shmemu_bits128)

/* 128 bits of opaque data, for the sized 128-bit routines. */
typedef struct shmemu_bits128 {
    uint64_t word[2];
} shmemu_bits128;

/* ---- C11 type-generic selection (OpenSHMEM's shmem_put(), shmem_atomic_add(), ...) ----
 * _Generic cannot name two compatible types, and int64_t, size_t, ptrdiff_t ... are aliases
 * of the standard integer types, so OpenSHMEM's generic interfaces cover only the standard
 * C types (the rows without an asterisk in the specification's tables). */

#define SHMEMU_GENERIC_RMA_TYPES(X)                                                           \
    X(float, float)                                                                           \
    X(double, double)                                                                         \
    X(char, char)                                                                             \
    X(signed char, schar)                                                                     \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)

#define SHMEMU_GENERIC_WAIT_TYPES(X)                                                          \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)

#define SHMEMU_GENERIC_AMO_TYPES(X)                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)

#define SHMEMU_GENERIC_AMO_EXTENDED_TYPES(X)                                                  \
    SHMEMU_GENERIC_AMO_TYPES(X)                                                               \
    X(float, float)                                                                           \
    X(double, double)

#define SHMEMU_GENERIC_AMO_BITWISE_TYPES(X)                                                   \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)

#define SHMEMU_GENERIC_REDUCE_BITWISE_TYPES(X)                                                \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)

#define SHMEMU_GENERIC_REDUCE_ARITH_TYPES(X)                                                  \
    X(char, char)                                                                             \
    X(signed char, schar)                                                                     \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)                                                                    \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(float, float)                                                                           \
    X(double, double)

#endif
