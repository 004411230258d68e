/*
 * amo_bits.h: a typed AMO operand as the raw bits of a 4- or 8-byte word, and back, for the
 * typed atomic entry points over pgas_amo (amo_api.c, shmem_ctx.c). float and double travel
 * as bits, so fetch, set and swap are exact for them too.
 */
#ifndef PGAS_AMO_BITS_H
#define PGAS_AMO_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(int) == 4 && sizeof(long) == 8 && sizeof(long long) == 8 &&
                   sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8 && sizeof(float) == 4 &&
                   sizeof(double) == 8,
               "the AMO types must be 4- or 8-byte words (LP64)");

static inline uint64_t pgas_amo_raw_bits(const void *p, size_t size)
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

#define PGAS_AMO_BITS(TYPE, x) pgas_amo_raw_bits(&(TYPE){(x)}, sizeof(TYPE))
#define PGAS_AMO_FROM_BITS(TYPE, bits)                                                        \
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

#endif
