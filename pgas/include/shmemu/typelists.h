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

/* ---- OpenSHMEM's families, where they differ from NVSHMEM's ----------------------------
 * OpenSHMEM 1.5 (tables "Standard RMA Types and Names" and "Reduction Types, Names and
 * Supporting Operations") has types NVSHMEM lacks: long double in RMA, the collectives on
 * RMA types and min/max/sum/prod, and double _Complex / float _Complex in sum/prod only. The
 * families above stay NVSHMEM's (nvshmem.h, the emulator); shmem.h expands these. Each
 * SHMEMU_SHMEM_*_EXTRA_TYPES list holds just the types OpenSHMEM adds, for the core entries
 * that the shared families do not define. The AMO, wait and bitwise families are the same in
 * both APIs (1.5's "Standard AMO Types", "Extended AMO Types", "Bitwise AMO Types"). */

#define SHMEMU_SHMEM_RMA_EXTRA_TYPES(X) X(long double, longdouble)

/* Standard RMA types of OpenSHMEM 1.5: put/get/p/g/iput/iget/nbi, broadcast, fcollect,
 * alltoall, collect. (put_signal takes SHMEMU_RMA_TYPES plus long double as well.) */
#define SHMEMU_SHMEM_RMA_TYPES(X)                                                             \
    SHMEMU_RMA_TYPES(X)                                                                       \
    SHMEMU_SHMEM_RMA_EXTRA_TYPES(X)

/* min/max: the arithmetic family plus long double. */
#define SHMEMU_SHMEM_REDUCE_MINMAX_EXTRA_TYPES(X) X(long double, longdouble)
#define SHMEMU_SHMEM_REDUCE_MINMAX_TYPES(X)                                                   \
    SHMEMU_REDUCE_ARITH_TYPES(X)                                                              \
    SHMEMU_SHMEM_REDUCE_MINMAX_EXTRA_TYPES(X)

/* sum/prod: min/max's types plus the complex types (which have no order). */
#define SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(X)                                                  \
    X(double _Complex, complexd)                                                              \
    X(float _Complex, complexf)
#define SHMEMU_SHMEM_REDUCE_SUMPROD_TYPES(X)                                                  \
    SHMEMU_SHMEM_REDUCE_MINMAX_TYPES(X)                                                       \
    SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(X)

/* The deprecated active-set reductions (shmem_TYPENAME_OP_to_all, shmemu/shmem_deprecated.h)
 * keep their older, smaller families: and/or/xor on the four signed integer types, min/max
 * adding the real floating types, sum/prod adding the complex ones. */
#define SHMEMU_SHMEM_TO_ALL_BITWISE_TYPES(X)                                                  \
    X(short, short)                                                                           \
    X(int, int)                                                                               \
    X(long, long)                                                                             \
    X(long long, longlong)
#define SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(X)                                                   \
    SHMEMU_SHMEM_TO_ALL_BITWISE_TYPES(X)                                                      \
    X(float, float)                                                                           \
    X(double, double)                                                                         \
    X(long double, longdouble)
#define SHMEMU_SHMEM_TO_ALL_SUMPROD_TYPES(X)                                                  \
    SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(X)                                                       \
    SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(X)

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
 * of the standard integer types. So each list holds every standard C type of its family and
 * then only those fixed-width types that cannot alias a type already listed: a signed
 * fixed-width type where the family has no signed standard type (int32_t, int64_t in the
 * bitwise atomics; int8_t..int64_t in the and/or/xor reductions). Every other listed type
 * (uint32_t, size_t, ptrdiff_t, ...) is one of the standard types on every ABI, so a pointer
 * to it selects that type's routine, which does the same thing. Together the lists cover
 * every type of the specification's tables. */

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
    X(unsigned long long, ulonglong)                                                          \
    X(long double, longdouble)

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
    X(unsigned long long, ulonglong)                                                          \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)

#define SHMEMU_GENERIC_REDUCE_BITWISE_TYPES(X)                                                \
    X(unsigned char, uchar)                                                                   \
    X(unsigned short, ushort)                                                                 \
    X(unsigned int, uint)                                                                     \
    X(unsigned long, ulong)                                                                   \
    X(unsigned long long, ulonglong)                                                          \
    X(int8_t, int8)                                                                           \
    X(int16_t, int16)                                                                         \
    X(int32_t, int32)                                                                         \
    X(int64_t, int64)

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
    X(double, double)                                                                         \
    X(long double, longdouble)

/* sum/prod take the complex types too (spelled out, not SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES:
 * a generic call inside an expansion of that list would not expand it again). */
#define SHMEMU_GENERIC_REDUCE_SUMPROD_TYPES(X)                                                \
    SHMEMU_GENERIC_REDUCE_ARITH_TYPES(X)                                                      \
    X(double _Complex, complexd)                                                              \
    X(float _Complex, complexf)

#endif
