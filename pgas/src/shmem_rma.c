/*
 * shmem_rma.c: OpenSHMEM RMA (put, get, p, g, strided, non-blocking), put-with-signal and
 * atomics, as thin entry points into the nvshmem_ routines of the same names.
 *
 * Only the put-with-signal routines translate anything: their signal op (SHMEM_SIGNAL_SET 0,
 * SHMEM_SIGNAL_ADD 1) to NVSHMEM's (9, 10), reporting any other value as misuse of the
 * shmem_ call. The fetching non-blocking atomics complete before they return, which OpenSHMEM
 * allows: completion is promised by shmem_quiet at the latest, not withheld until it.
 */
#include "shmem_internal.h"

/* ---- typed RMA and put-with-signal --------------------------------------------------- */

#define SHMEMU_SHMEM_DEFINE_RMA(TYPE, NAME)                                                   \
    void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe)            \
    {                                                                                         \
        nvshmem_##NAME##_put(dest, source, nelems, pe);                                       \
    }                                                                                         \
    void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe)        \
    {                                                                                         \
        nvshmem_##NAME##_put_nbi(dest, source, nelems, pe);                                   \
    }                                                                                         \
    void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe)            \
    {                                                                                         \
        nvshmem_##NAME##_get(dest, source, nelems, pe);                                       \
    }                                                                                         \
    void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe)        \
    {                                                                                         \
        nvshmem_##NAME##_get_nbi(dest, source, nelems, pe);                                   \
    }                                                                                         \
    void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe)                                     \
    {                                                                                         \
        nvshmem_##NAME##_p(dest, value, pe);                                                  \
    }                                                                                         \
    TYPE shmem_##NAME##_g(const TYPE *source, int pe) { return nvshmem_##NAME##_g(source, pe); } \
    void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,    \
                             size_t nelems, int pe)                                           \
    {                                                                                         \
        nvshmem_##NAME##_iput(dest, source, dst, sst, nelems, pe);                            \
    }                                                                                         \
    void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,    \
                             size_t nelems, int pe)                                           \
    {                                                                                         \
        nvshmem_##NAME##_iget(dest, source, dst, sst, nelems, pe);                            \
    }                                                                                         \
    void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,             \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)   \
    {                                                                                         \
        int op = pgas_shmem_sig_op(sig_op, "shmem_" #NAME "_put_signal");                     \
        nvshmem_##NAME##_put_signal(dest, source, nelems, sig_addr, signal, op, pe);          \
    }                                                                                         \
    void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,         \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op,       \
                                       int pe)                                                \
    {                                                                                         \
        int op = pgas_shmem_sig_op(sig_op, "shmem_" #NAME "_put_signal_nbi");                 \
        nvshmem_##NAME##_put_signal_nbi(dest, source, nelems, sig_addr, signal, op, pe);      \
    }
SHMEMU_SHMEM_RMA_TYPES(SHMEMU_SHMEM_DEFINE_RMA)
#undef SHMEMU_SHMEM_DEFINE_RMA

/* ---- sized RMA and put-with-signal --------------------------------------------------- */

#define SHMEMU_SHMEM_DEFINE_SIZED(BITS, TYPE)                                                 \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)               \
    {                                                                                         \
        nvshmem_put##BITS(dest, source, nelems, pe);                                          \
    }                                                                                         \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)         \
    {                                                                                         \
        nvshmem_put##BITS##_nbi(dest, source, nelems, pe);                                    \
    }                                                                                         \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)               \
    {                                                                                         \
        nvshmem_get##BITS(dest, source, nelems, pe);                                          \
    }                                                                                         \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)         \
    {                                                                                         \
        nvshmem_get##BITS##_nbi(dest, source, nelems, pe);                                    \
    }                                                                                         \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int pe)                                              \
    {                                                                                         \
        nvshmem_iput##BITS(dest, source, dst, sst, nelems, pe);                               \
    }                                                                                         \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int pe)                                              \
    {                                                                                         \
        nvshmem_iget##BITS(dest, source, dst, sst, nelems, pe);                               \
    }                                                                                         \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,              \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)    \
    {                                                                                         \
        int op = pgas_shmem_sig_op(sig_op, "shmem_put" #BITS "_signal");                      \
        nvshmem_put##BITS##_signal(dest, source, nelems, sig_addr, signal, op, pe);           \
    }                                                                                         \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,          \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op,        \
                                      int pe)                                                 \
    {                                                                                         \
        int op = pgas_shmem_sig_op(sig_op, "shmem_put" #BITS "_signal_nbi");                  \
        nvshmem_put##BITS##_signal_nbi(dest, source, nelems, sig_addr, signal, op, pe);       \
    }
SHMEMU_SIZED_TYPES(SHMEMU_SHMEM_DEFINE_SIZED)
#undef SHMEMU_SHMEM_DEFINE_SIZED

/* ---- bytes --------------------------------------------------------------------------- */

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    nvshmem_putmem(dest, source, nelems, pe);
}

void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    nvshmem_putmem_nbi(dest, source, nelems, pe);
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    nvshmem_getmem(dest, source, nelems, pe);
}

void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    nvshmem_getmem_nbi(dest, source, nelems, pe);
}

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe)
{
    int op = pgas_shmem_sig_op(sig_op, "shmem_putmem_signal");
    nvshmem_putmem_signal(dest, source, nelems, sig_addr, signal, op, pe);
}

void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe)
{
    int op = pgas_shmem_sig_op(sig_op, "shmem_putmem_signal_nbi");
    nvshmem_putmem_signal_nbi(dest, source, nelems, sig_addr, signal, op, pe);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr) { return nvshmem_signal_fetch(sig_addr); }

/* ---- atomics ------------------------------------------------------------------------- */

#define SHMEMU_SHMEM_DEFINE_AMO_EXTENDED(TYPE, NAME)                                          \
    TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                              \
    {                                                                                         \
        return nvshmem_##NAME##_atomic_fetch(source, pe);                                     \
    }                                                                                         \
    void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe)             \
    {                                                                                         \
        *fetch = nvshmem_##NAME##_atomic_fetch(source, pe);                                   \
    }                                                                                         \
    void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)                            \
    {                                                                                         \
        nvshmem_##NAME##_atomic_set(dest, value, pe);                                         \
    }                                                                                         \
    TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)                           \
    {                                                                                         \
        return nvshmem_##NAME##_atomic_swap(dest, value, pe);                                 \
    }                                                                                         \
    void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe)          \
    {                                                                                         \
        *fetch = nvshmem_##NAME##_atomic_swap(dest, value, pe);                               \
    }
SHMEMU_AMO_EXTENDED_TYPES(SHMEMU_SHMEM_DEFINE_AMO_EXTENDED)
#undef SHMEMU_SHMEM_DEFINE_AMO_EXTENDED

#define SHMEMU_SHMEM_DEFINE_AMO(TYPE, NAME)                                                   \
    TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe)        \
    {                                                                                         \
        return nvshmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);                   \
    }                                                                                         \
    void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,           \
                                                TYPE value, int pe)                           \
    {                                                                                         \
        *fetch = nvshmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);                 \
    }                                                                                         \
    void shmem_##NAME##_atomic_inc(TYPE *dest, int pe)                                        \
    {                                                                                         \
        nvshmem_##NAME##_atomic_inc(dest, pe);                                                \
    }                                                                                         \
    TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                                  \
    {                                                                                         \
        return nvshmem_##NAME##_atomic_fetch_inc(dest, pe);                                   \
    }                                                                                         \
    void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe)                 \
    {                                                                                         \
        *fetch = nvshmem_##NAME##_atomic_fetch_inc(dest, pe);                                 \
    }                                                                                         \
    void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)                            \
    {                                                                                         \
        nvshmem_##NAME##_atomic_add(dest, value, pe);                                         \
    }                                                                                         \
    TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)                      \
    {                                                                                         \
        return nvshmem_##NAME##_atomic_fetch_add(dest, value, pe);                            \
    }                                                                                         \
    void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe)     \
    {                                                                                         \
        *fetch = nvshmem_##NAME##_atomic_fetch_add(dest, value, pe);                          \
    }
SHMEMU_AMO_TYPES(SHMEMU_SHMEM_DEFINE_AMO)
#undef SHMEMU_SHMEM_DEFINE_AMO

#define SHMEMU_SHMEM_DEFINE_AMO_BITWISE_OP(TYPE, NAME, OP)                                    \
    void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                           \
    {                                                                                         \
        nvshmem_##NAME##_atomic_##OP(dest, value, pe);                                        \
    }                                                                                         \
    TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)                     \
    {                                                                                         \
        return nvshmem_##NAME##_atomic_fetch_##OP(dest, value, pe);                           \
    }                                                                                         \
    void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe)  \
    {                                                                                         \
        *fetch = nvshmem_##NAME##_atomic_fetch_##OP(dest, value, pe);                         \
    }
#define SHMEMU_SHMEM_DEFINE_AMO_BITWISE(TYPE, NAME)                                           \
    SHMEMU_SHMEM_DEFINE_AMO_BITWISE_OP(TYPE, NAME, and)                                       \
    SHMEMU_SHMEM_DEFINE_AMO_BITWISE_OP(TYPE, NAME, or)                                        \
    SHMEMU_SHMEM_DEFINE_AMO_BITWISE_OP(TYPE, NAME, xor)
SHMEMU_AMO_BITWISE_TYPES(SHMEMU_SHMEM_DEFINE_AMO_BITWISE)
#undef SHMEMU_SHMEM_DEFINE_AMO_BITWISE
#undef SHMEMU_SHMEM_DEFINE_AMO_BITWISE_OP
