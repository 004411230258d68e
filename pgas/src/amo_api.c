/*
 * amo_api.c: the typed NVSHMEM atomic entry points. Each converts its operands to the raw
 * bits of a 4- or 8-byte word and calls pgas_amo (amo.c); float and double travel as bits,
 * so fetch, set and swap are exact for them too.
 */
#include <string.h>

#include "internal.h"
#include "nvshmem.h"

_Static_assert(sizeof(int) == 4 && sizeof(long) == 8 && sizeof(long long) == 8 &&
                   sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8 && sizeof(float) == 4 &&
                   sizeof(double) == 8,
               "the AMO types must be 4- or 8-byte words (LP64)");

static inline uint64_t raw_bits(const void *p, size_t size)
{
    uint64_t bits = 0;
    if (size == 4) {
        uint32_t b32;
        memcpy(&b32, p, 4);
        bits = b32;
    } else {
        memcpy(&bits, p, 8);
    }
    return bits;
}

#define BITS(TYPE, x) raw_bits(&(TYPE){(x)}, sizeof(TYPE))
#define FROM_BITS(TYPE, bits)                                                                 \
    ({                                                                                        \
        TYPE v_;                                                                              \
        uint64_t b_ = (bits);                                                                 \
        if (sizeof(TYPE) == 4) {                                                              \
            uint32_t b32_ = (uint32_t)b_;                                                     \
            memcpy(&v_, &b32_, 4);                                                            \
        } else {                                                                              \
            memcpy(&v_, &b_, 8);                                                              \
        }                                                                                     \
        v_;                                                                                   \
    })

#define DEFINE_AMO_EXTENDED(TYPE, NAME)                                                       \
    TYPE nvshmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                            \
    {                                                                                         \
        return FROM_BITS(TYPE, pgas_amo("nvshmem_" #NAME "_atomic_fetch", PGAS_AMO_FETCH,     \
                                        (void *)(uintptr_t)source, pe, sizeof(TYPE), 0, 0));  \
    }                                                                                         \
    void nvshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)                          \
    {                                                                                         \
        pgas_amo("nvshmem_" #NAME "_atomic_set", PGAS_AMO_SET, dest, pe, sizeof(TYPE),        \
                 BITS(TYPE, value), 0);                                                       \
    }                                                                                         \
    TYPE nvshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)                         \
    {                                                                                         \
        return FROM_BITS(TYPE, pgas_amo("nvshmem_" #NAME "_atomic_swap", PGAS_AMO_SWAP, dest, \
                                        pe, sizeof(TYPE), BITS(TYPE, value), 0));             \
    }
SHMEMU_AMO_EXTENDED_TYPES(DEFINE_AMO_EXTENDED)
#undef DEFINE_AMO_EXTENDED

#define DEFINE_AMO(TYPE, NAME)                                                                \
    TYPE nvshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe)      \
    {                                                                                         \
        return (TYPE)pgas_amo("nvshmem_" #NAME "_atomic_compare_swap", PGAS_AMO_CSWAP, dest,  \
                              pe, sizeof(TYPE), BITS(TYPE, value), BITS(TYPE, cond));         \
    }                                                                                         \
    void nvshmem_##NAME##_atomic_inc(TYPE *dest, int pe)                                      \
    {                                                                                         \
        pgas_amo("nvshmem_" #NAME "_atomic_inc", PGAS_AMO_ADD, dest, pe, sizeof(TYPE), 1, 0); \
    }                                                                                         \
    TYPE nvshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                                \
    {                                                                                         \
        return (TYPE)pgas_amo("nvshmem_" #NAME "_atomic_fetch_inc", PGAS_AMO_ADD, dest, pe,   \
                              sizeof(TYPE), 1, 0);                                            \
    }                                                                                         \
    void nvshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)                          \
    {                                                                                         \
        pgas_amo("nvshmem_" #NAME "_atomic_add", PGAS_AMO_ADD, dest, pe, sizeof(TYPE),        \
                 BITS(TYPE, value), 0);                                                       \
    }                                                                                         \
    TYPE nvshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)                    \
    {                                                                                         \
        return (TYPE)pgas_amo("nvshmem_" #NAME "_atomic_fetch_add", PGAS_AMO_ADD, dest, pe,   \
                              sizeof(TYPE), BITS(TYPE, value), 0);                            \
    }
SHMEMU_AMO_TYPES(DEFINE_AMO)
#undef DEFINE_AMO

#define DEFINE_AMO_BITWISE_OP(TYPE, NAME, OP, PGAS_OP)                                        \
    void nvshmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                         \
    {                                                                                         \
        pgas_amo("nvshmem_" #NAME "_atomic_" #OP, PGAS_OP, dest, pe, sizeof(TYPE),            \
                 BITS(TYPE, value), 0);                                                       \
    }                                                                                         \
    TYPE nvshmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)                   \
    {                                                                                         \
        return (TYPE)pgas_amo("nvshmem_" #NAME "_atomic_fetch_" #OP, PGAS_OP, dest, pe,       \
                              sizeof(TYPE), BITS(TYPE, value), 0);                            \
    }
#define DEFINE_AMO_BITWISE(TYPE, NAME)                                                        \
    DEFINE_AMO_BITWISE_OP(TYPE, NAME, and, PGAS_AMO_AND)                                      \
    DEFINE_AMO_BITWISE_OP(TYPE, NAME, or, PGAS_AMO_OR)                                        \
    DEFINE_AMO_BITWISE_OP(TYPE, NAME, xor, PGAS_AMO_XOR)
SHMEMU_AMO_BITWISE_TYPES(DEFINE_AMO_BITWISE)
#undef DEFINE_AMO_BITWISE
#undef DEFINE_AMO_BITWISE_OP
