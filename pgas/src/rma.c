/*
 * rma.c: one-sided puts and gets, the typed and sized NVSHMEM entry points on top of them.
 *
 * Every entry point checks its arguments (PE range, symmetric range, overflow of
 * nelems * size) and hands the bytes to delivery.c, which copies them now or, in checking
 * mode, later. A transfer of zero bytes (or zero elements) moves nothing and is valid with
 * any pointers, NULL included: only the PE is checked. A put-with-signal of zero bytes still
 * updates its signal, whose address must be valid.
 *
 * The transfers below are always inlined into the entry points, so that the return address
 * they note for the event log (SHMEMU_EVENTS, events.h) is the program's call site.
 */
#include <stdint.h>
#include <string.h>

#include "core_types.h"
#include "events.h"
#include "nvshmem.h"

static size_t byte_count(const char *call, size_t nelems, size_t elem_size)
{
    if (elem_size != 0 && nelems > SIZE_MAX / elem_size)
        pgas_fail(call, "nelems %zu of %zu-byte elements overflows size_t; check nelems", nelems,
                  elem_size);
    return nelems * elem_size;
}

static void check_source(const char *call, const void *source, size_t bytes)
{
    if (source == NULL && bytes > 0)
        pgas_fail(call, "source is NULL; pass the local buffer to send");
}

/* A zero-length transfer is valid with any pointers: only its PE is checked. */
static bool nothing_to_move(const pgas_thread *t, const char *call, size_t count, int pe)
{
    if (count > 0)
        return false;
    pgas_check_pe(t, call, pe);
    return true;
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE void put_bytes(const char *call, void *dest, const void *source, size_t bytes,
                             int pe, bool nbi)
{
    pgas_thread *t = pgas_require(call);
    if (nothing_to_move(t, call, bytes, pe))
        return;
    char *target = pgas_heap_translate(t, call, "dest", dest, bytes, pe);
    check_source(call, source, bytes);
    if (pgas_ev_on(t))
        pgas_ev_rma(t, nbi ? PGAS_EV_PUT_NBI : PGAS_EV_PUT, __builtin_return_address(0), pe,
                    dest, source, bytes);
    pgas_deliver_put(t, pe, target, source, bytes, nbi);
}

ALWAYS_INLINE void get_bytes(const char *call, void *dest, const void *source, size_t bytes,
                             int pe, bool nbi)
{
    pgas_thread *t = pgas_require(call);
    if (nothing_to_move(t, call, bytes, pe))
        return;
    char *from = pgas_heap_translate(t, call, "source", source, bytes, pe);
    if (dest == NULL)
        pgas_fail(call, "dest is NULL; pass the local buffer to receive into");
    if (pgas_ev_on(t))
        pgas_ev_rma(t, nbi ? PGAS_EV_GET_NBI : PGAS_EV_GET, __builtin_return_address(0), pe,
                    dest, source, bytes);
    pgas_deliver_get(t, pe, dest, from, bytes, nbi);
}

ALWAYS_INLINE void put_signal_bytes(const char *call, void *dest, const void *source,
                                    size_t bytes, uint64_t *sig_addr, uint64_t signal,
                                    int sig_op, int pe, bool nbi)
{
    pgas_thread *t = pgas_require(call);
    pgas_check_device_only(t, call);
    if (!pgas_signal_op_valid(sig_op))
        pgas_fail(call, "unknown signal operation %d; use NVSHMEM_SIGNAL_SET (%d) or "
                        "NVSHMEM_SIGNAL_ADD (%d)", sig_op, NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD);
    char *target = bytes == 0 ? NULL : pgas_heap_translate(t, call, "dest", dest, bytes, pe);
    if ((uintptr_t)sig_addr % sizeof(uint64_t) != 0)
        pgas_fail(call, "sig_addr %p is not 8-byte aligned; signal words are uint64_t",
                  (void *)sig_addr);
    uint64_t *sig_target =
        (uint64_t *)pgas_heap_translate(t, call, "sig_addr", sig_addr, sizeof *sig_addr, pe);
    check_source(call, source, bytes);
    if (pgas_ev_on(t)) {
        pgas_event *ev = pgas_ev_rma(t, PGAS_EV_PUT_SIGNAL, __builtin_return_address(0), pe,
                                     dest, source, bytes);
        if (ev != NULL) {
            ev->has_after = false; /* the word a wait sees is the signal's (delivery sets it) */
            ev->size = sizeof *sig_addr;
            ev->sig = pgas_ev_addr_of(t, sig_addr);
            ev->sub = (uint8_t)sig_op;
            ev->value = signal;
        }
        t->ev_writer = ev;
    }
    pgas_deliver_put_signal(t, pe, target, source, bytes, sig_target, sig_op, signal, nbi);
    t->ev_writer = NULL;
}

/* Strided: element i goes from source[i * sst] to dest[i * dst]. The log records one put
 * (or get) of the whole span. */
ALWAYS_INLINE void iput_bytes(const char *call, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t elem_size, int pe)
{
    pgas_thread *t = pgas_require(call);
    if (nothing_to_move(t, call, nelems, pe))
        return;
    if (dst < 1 || sst < 1)
        pgas_fail(call, "strides dst=%td and sst=%td must be at least 1 (in elements)", dst, sst);
    size_t span = byte_count(call, (nelems - 1), (size_t)dst * elem_size) + elem_size;
    char *target = pgas_heap_translate(t, call, "dest", dest, span, pe);
    check_source(call, source, elem_size);
    if (pgas_ev_on(t))
        pgas_ev_rma(t, PGAS_EV_PUT, __builtin_return_address(0), pe, dest, NULL, span);
    for (size_t i = 0; i < nelems; i++)
        pgas_deliver_put(t, pe, target + i * (size_t)dst * elem_size,
                         (const char *)source + i * (size_t)sst * elem_size, elem_size, false);
}

ALWAYS_INLINE void iget_bytes(const char *call, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t elem_size, int pe)
{
    pgas_thread *t = pgas_require(call);
    if (nothing_to_move(t, call, nelems, pe))
        return;
    if (dst < 1 || sst < 1)
        pgas_fail(call, "strides dst=%td and sst=%td must be at least 1 (in elements)", dst, sst);
    size_t span = byte_count(call, (nelems - 1), (size_t)sst * elem_size) + elem_size;
    char *from = pgas_heap_translate(t, call, "source", source, span, pe);
    if (dest == NULL)
        pgas_fail(call, "dest is NULL; pass the local buffer to receive into");
    if (pgas_ev_on(t))
        pgas_ev_rma(t, PGAS_EV_GET, __builtin_return_address(0), pe, dest, source, span);
    for (size_t i = 0; i < nelems; i++)
        pgas_deliver_get(t, pe, (char *)dest + i * (size_t)dst * elem_size,
                         from + i * (size_t)sst * elem_size, elem_size, false);
}

/* ---- untyped ------------------------------------------------------------------------- */

void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe)
{
    put_bytes("nvshmem_putmem", dest, source, bytes, pe, false);
}

void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    put_bytes("nvshmem_putmem_nbi", dest, source, bytes, pe, true);
}

void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe)
{
    get_bytes("nvshmem_getmem", dest, source, bytes, pe, false);
}

void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    get_bytes("nvshmem_getmem_nbi", dest, source, bytes, pe, true);
}

void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                           uint64_t signal, int sig_op, int pe)
{
    put_signal_bytes("nvshmem_putmem_signal", dest, source, bytes, sig_addr, signal, sig_op, pe,
                     false);
}

void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                               uint64_t signal, int sig_op, int pe)
{
    put_signal_bytes("nvshmem_putmem_signal_nbi", dest, source, bytes, sig_addr, signal, sig_op,
                     pe, true);
}

/* ---- typed --------------------------------------------------------------------------- */

#define DEFINE_RMA(TYPE, NAME)                                                                \
    void nvshmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe)          \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_put";                                          \
        put_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, false);     \
    }                                                                                         \
    void nvshmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe)      \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_put_nbi";                                      \
        put_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, true);      \
    }                                                                                         \
    void nvshmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe)          \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_get";                                          \
        get_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, false);     \
    }                                                                                         \
    void nvshmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe)      \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_get_nbi";                                      \
        get_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, true);      \
    }                                                                                         \
    void nvshmem_##NAME##_p(TYPE *dest, TYPE value, int pe)                                   \
    {                                                                                         \
        put_bytes("nvshmem_" #NAME "_p", dest, &value, sizeof(TYPE), pe, false);             \
    }                                                                                         \
    TYPE nvshmem_##NAME##_g(const TYPE *source, int pe)                                       \
    {                                                                                         \
        TYPE value;                                                                           \
        get_bytes("nvshmem_" #NAME "_g", &value, source, sizeof(TYPE), pe, false);           \
        return value;                                                                         \
    }                                                                                         \
    void nvshmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems, int pe)                                         \
    {                                                                                         \
        iput_bytes("nvshmem_" #NAME "_iput", dest, source, dst, sst, nelems, sizeof(TYPE),   \
                   pe);                                                                       \
    }                                                                                         \
    void nvshmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems, int pe)                                         \
    {                                                                                         \
        iget_bytes("nvshmem_" #NAME "_iget", dest, source, dst, sst, nelems, sizeof(TYPE),   \
                   pe);                                                                       \
    }                                                                                         \
    void nvshmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,           \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_put_signal";                                   \
        put_signal_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)),          \
                         sig_addr, signal, sig_op, pe, false);                                \
    }                                                                                         \
    void nvshmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                         int pe)                                              \
    {                                                                                         \
        const char *call = "nvshmem_" #NAME "_put_signal_nbi";                               \
        put_signal_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)),          \
                         sig_addr, signal, sig_op, pe, true);                                 \
    }
SHMEMU_RMA_TYPES(DEFINE_RMA)
SHMEMU_SHMEM_RMA_EXTRA_TYPES(DEFINE_RMA) /* OpenSHMEM's extra types (shmem_internal.h) */
#undef DEFINE_RMA

/* ---- sized --------------------------------------------------------------------------- */

#define DEFINE_SIZED(BITS, TYPE)                                                              \
    void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)             \
    {                                                                                         \
        const char *call = "nvshmem_put" #BITS;                                              \
        put_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, false);     \
    }                                                                                         \
    void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)       \
    {                                                                                         \
        const char *call = "nvshmem_put" #BITS "_nbi";                                       \
        put_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, true);      \
    }                                                                                         \
    void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)             \
    {                                                                                         \
        const char *call = "nvshmem_get" #BITS;                                              \
        get_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, false);     \
    }                                                                                         \
    void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)       \
    {                                                                                         \
        const char *call = "nvshmem_get" #BITS "_nbi";                                       \
        get_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)), pe, true);      \
    }                                                                                         \
    void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                            size_t nelems, int pe)                                            \
    {                                                                                         \
        iput_bytes("nvshmem_iput" #BITS, dest, source, dst, sst, nelems, sizeof(TYPE), pe);  \
    }                                                                                         \
    void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                            size_t nelems, int pe)                                            \
    {                                                                                         \
        iget_bytes("nvshmem_iget" #BITS, dest, source, dst, sst, nelems, sizeof(TYPE), pe);  \
    }                                                                                         \
    void nvshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,            \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)  \
    {                                                                                         \
        const char *call = "nvshmem_put" #BITS "_signal";                                    \
        put_signal_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)),          \
                         sig_addr, signal, sig_op, pe, false);                                \
    }                                                                                         \
    void nvshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,        \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                        int pe)                                               \
    {                                                                                         \
        const char *call = "nvshmem_put" #BITS "_signal_nbi";                                \
        put_signal_bytes(call, dest, source, byte_count(call, nelems, sizeof(TYPE)),          \
                         sig_addr, signal, sig_op, pe, true);                                 \
    }
SHMEMU_SIZED_TYPES(DEFINE_SIZED)
#undef DEFINE_SIZED

/* ---- the core of OpenSHMEM's shmem_ctx_ calls (shmem_ctx.c) -------------------------- */

size_t pgas_rma_bytes(const char *call, size_t nelems, size_t elem_size)
{
    return byte_count(call, nelems, elem_size);
}

void pgas_rma_put(const char *call, void *dest, const void *source, size_t bytes, int pe,
                  bool nbi)
{
    put_bytes(call, dest, source, bytes, pe, nbi);
}

void pgas_rma_get(const char *call, void *dest, const void *source, size_t bytes, int pe,
                  bool nbi)
{
    get_bytes(call, dest, source, bytes, pe, nbi);
}

void pgas_rma_put_signal(const char *call, void *dest, const void *source, size_t bytes,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, bool nbi)
{
    put_signal_bytes(call, dest, source, bytes, sig_addr, signal, sig_op, pe, nbi);
}

void pgas_rma_iput(const char *call, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t nelems, size_t elem_size, int pe)
{
    iput_bytes(call, dest, source, dst, sst, nelems, elem_size, pe);
}

void pgas_rma_iget(const char *call, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t nelems, size_t elem_size, int pe)
{
    iget_bytes(call, dest, source, dst, sst, nelems, elem_size, pe);
}
