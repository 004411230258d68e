/*
 * cond.c: the condition a wait checks, `*addr cmp value`, and the clock that times it.
 *
 * A wait (park.c, p2p_sync.c, the emulator's) loads its word by kind (width and signedness)
 * and order, and compares it with an NVSHMEM_CMP_* comparison; the reports of waits that
 * never end (sched_report.c, for hang.c and the deterministic scheduler's deadlocks) print
 * the same comparison by name, the word's current value and how long the wait has lasted.
 * These are functions of their arguments alone: the file calls no other file of pgas/src,
 * so the reports sit below the waits that call them (docs/design.md, "Layering").
 */
#include <time.h>

#include "internal.h"
#include "nvshmem.h"

uint64_t pgas_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool pgas_cmp_valid(int cmp) { return cmp >= NVSHMEM_CMP_EQ && cmp <= NVSHMEM_CMP_GE; }

const char *pgas_cmp_name(int cmp)
{
    static const char *const names[] = {"==", "!=", ">", "<=", "<", ">="};
    return pgas_cmp_valid(cmp) ? names[cmp] : "?";
}

static bool kind_signed(pgas_kind kind)
{
    return kind == PGAS_KIND_I8 || kind == PGAS_KIND_I16 || kind == PGAS_KIND_I32 ||
           kind == PGAS_KIND_I64;
}

bool pgas_compare(uint64_t current, pgas_kind kind, int cmp, uint64_t value)
{
    if (kind_signed(kind)) {
        int64_t c = (int64_t)current, v = (int64_t)value;
        switch (cmp) {
        case NVSHMEM_CMP_EQ: return c == v;
        case NVSHMEM_CMP_NE: return c != v;
        case NVSHMEM_CMP_GT: return c > v;
        case NVSHMEM_CMP_LE: return c <= v;
        case NVSHMEM_CMP_LT: return c < v;
        case NVSHMEM_CMP_GE: return c >= v;
        default: return false;
        }
    }
    switch (cmp) {
    case NVSHMEM_CMP_EQ: return current == value;
    case NVSHMEM_CMP_NE: return current != value;
    case NVSHMEM_CMP_GT: return current > value;
    case NVSHMEM_CMP_LE: return current <= value;
    case NVSHMEM_CMP_LT: return current < value;
    case NVSHMEM_CMP_GE: return current >= value;
    default: return false;
    }
}

/* Loads with the requested order: an acquire wait must be a real acquire for TSan and for
 * the hardware, a relaxed one must not be. Signed kinds are sign-extended to 64 bits. */
uint64_t pgas_load_ordered(const volatile void *addr, pgas_kind kind, pgas_order order)
{
    int mo = (order == PGAS_ACQUIRE || order == PGAS_ACQ_REL) ? __ATOMIC_ACQUIRE
                                                               : __ATOMIC_RELAXED;
    switch (kind) {
    case PGAS_KIND_I8: return (uint64_t)(int64_t)__atomic_load_n((const volatile int8_t *)addr, mo);
    case PGAS_KIND_U8: return __atomic_load_n((const volatile uint8_t *)addr, mo);
    case PGAS_KIND_I16: return (uint64_t)(int64_t)__atomic_load_n((const volatile int16_t *)addr, mo);
    case PGAS_KIND_U16: return __atomic_load_n((const volatile uint16_t *)addr, mo);
    case PGAS_KIND_I32: return (uint64_t)(int64_t)__atomic_load_n((const volatile int32_t *)addr, mo);
    case PGAS_KIND_U32: return __atomic_load_n((const volatile uint32_t *)addr, mo);
    case PGAS_KIND_I64: return (uint64_t)__atomic_load_n((const volatile int64_t *)addr, mo);
    case PGAS_KIND_U64: return __atomic_load_n((const volatile uint64_t *)addr, mo);
    case PGAS_KIND_NONE: break;
    }
    return 0;
}

uint64_t pgas_load_kind(const volatile void *addr, pgas_kind kind)
{
    return pgas_load_ordered(addr, kind, PGAS_RELAXED);
}
