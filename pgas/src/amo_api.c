/*
 * amo_api.c: the typed NVSHMEM atomic entry points. Each converts its operands to the raw
 * bits of a 4- or 8-byte word (amo_bits.h) and calls pgas_amo (amo.c); float and double
 * travel as bits, so fetch, set and swap are exact for them too.
 */
#include "amo_bits.h"
#include "internal.h"
#include "nvshmem.h"

#define BITS PGAS_AMO_BITS
#define FROM_BITS PGAS_AMO_FROM_BITS

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
