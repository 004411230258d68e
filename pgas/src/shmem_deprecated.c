/*
 * shmem_deprecated.c: the deprecated OpenSHMEM interfaces that 1.5 still defines
 * (shmemu/shmem_deprecated.h), each a thin entry point into the current routine or the core.
 *
 * The active-set collectives run the core collectives (collective.c) on the active set's
 * own team (active_set.c), so they share the algorithms, the argument agreement checks and
 * the deterministic reduction order of the team forms. pSync is checked, never written: the
 * core synchronizes through the team's barrier, so pSync holds SHMEM_SYNC_VALUE on return as
 * OpenSHMEM requires. The old atomics call pgas_amo under their own names, so that messages
 * name the call the program made.
 */
#include "amo_bits.h"
#include "shmem_internal.h"

/* ---- setup, query, memory ------------------------------------------------------------- */

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}

int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }

/* ---- pre-1.4 atomics ------------------------------------------------------------------ */

#define BITS PGAS_AMO_BITS
#define FROM_BITS PGAS_AMO_FROM_BITS

#define DEFINE_OLD_AMO_EXTENDED(TYPE, NAME)                                                   \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe)                                     \
    {                                                                                         \
        return FROM_BITS(TYPE, pgas_amo("shmem_" #NAME "_fetch", PGAS_AMO_FETCH,              \
                                        (void *)(uintptr_t)source, pe, sizeof(TYPE), 0, 0));  \
    }                                                                                         \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe)                                   \
    {                                                                                         \
        pgas_amo("shmem_" #NAME "_set", PGAS_AMO_SET, dest, pe, sizeof(TYPE),                 \
                 BITS(TYPE, value), 0);                                                       \
    }                                                                                         \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe)                                  \
    {                                                                                         \
        return FROM_BITS(TYPE, pgas_amo("shmem_" #NAME "_swap", PGAS_AMO_SWAP, dest, pe,      \
                                        sizeof(TYPE), BITS(TYPE, value), 0));                 \
    }
SHMEMU_AMO_EXTENDED_TYPES(DEFINE_OLD_AMO_EXTENDED)
#undef DEFINE_OLD_AMO_EXTENDED

#define DEFINE_OLD_AMO(TYPE, NAME)                                                            \
    TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe)                      \
    {                                                                                         \
        return (TYPE)pgas_amo("shmem_" #NAME "_cswap", PGAS_AMO_CSWAP, dest, pe,              \
                              sizeof(TYPE), BITS(TYPE, value), BITS(TYPE, cond));             \
    }                                                                                         \
    TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe)                                  \
    {                                                                                         \
        return (TYPE)pgas_amo("shmem_" #NAME "_fadd", PGAS_AMO_ADD, dest, pe, sizeof(TYPE),   \
                              BITS(TYPE, value), 0);                                          \
    }                                                                                         \
    TYPE shmem_##NAME##_finc(TYPE *dest, int pe)                                              \
    {                                                                                         \
        return (TYPE)pgas_amo("shmem_" #NAME "_finc", PGAS_AMO_ADD, dest, pe, sizeof(TYPE),   \
                              1, 0);                                                          \
    }                                                                                         \
    void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe)                                   \
    {                                                                                         \
        pgas_amo("shmem_" #NAME "_add", PGAS_AMO_ADD, dest, pe, sizeof(TYPE),                 \
                 BITS(TYPE, value), 0);                                                       \
    }                                                                                         \
    void shmem_##NAME##_inc(TYPE *dest, int pe)                                               \
    {                                                                                         \
        pgas_amo("shmem_" #NAME "_inc", PGAS_AMO_ADD, dest, pe, sizeof(TYPE), 1, 0);          \
    }
SHMEMU_AMO_TYPES(DEFINE_OLD_AMO)
#undef DEFINE_OLD_AMO

long(shmem_swap)(long *dest, long value, int pe) { return shmem_long_swap(dest, value, pe); }

/* ---- shmem_wait ----------------------------------------------------------------------- */
/* The volatile the old signatures carry only lets such pointers in: the wait itself is the
 * current wait_until, which reads the word as the runtime's waits do. */

#define DEFINE_OLD_WAIT(TYPE, NAME)                                                           \
    void shmem_##NAME##_wait(volatile TYPE *ivar, TYPE cmp_value)                             \
    {                                                                                         \
        shmem_##NAME##_wait_until((TYPE *)(uintptr_t)ivar, SHMEM_CMP_NE, cmp_value);          \
    }
SHMEMU_WAIT_TYPES(DEFINE_OLD_WAIT)
#undef DEFINE_OLD_WAIT

void(shmem_wait)(volatile long *ivar, long cmp_value) { shmem_long_wait(ivar, cmp_value); }

/* ---- active sets ---------------------------------------------------------------------- */

/* In an exported routine, first: checks the caller and notes the program's call site for
 * hang reports (a macro: the return address must be the exported function's). */
#define BEGIN(call)                                                                           \
    do {                                                                                      \
        pgas_thread *t_ = pgas_require(call);                                                 \
        PGAS_NOTE_CALLER(t_);                                                                 \
    } while (0)

/* The team id of the caller's active set, after the pSync contract: words_needed words,
 * each SHMEM_SYNC_VALUE (shmemu never writes them, so this holds on every later call too
 * unless the program wrote them). */
static int active_set(const char *call, int PE_start, int logPE_stride, int PE_size,
                      const long *pSync, int words_needed, const char *size_name)
{
    pgas_thread *t = pgas_require(call);
    if (pSync == NULL)
        pgas_fail(call, "pSync is NULL; pass a symmetric array of %s (%d) longs, each set to "
                        "SHMEM_SYNC_VALUE", size_name, words_needed);
    for (int i = 0; i < words_needed; i++)
        if (pSync[i] != SHMEM_SYNC_VALUE)
            pgas_fail(call, "pSync[%d] is %ld, not SHMEM_SYNC_VALUE (%ld); set all %s (%d) "
                            "words of pSync to SHMEM_SYNC_VALUE, and synchronize (for example "
                            "shmem_barrier_all) before the first collective that uses it",
                      i, pSync[i], SHMEM_SYNC_VALUE, size_name, words_needed);
    return pgas_active_set_team(t, call, PE_start, logPE_stride, PE_size);
}

#define ACTIVE_SET(call, sync_size)                                                           \
    active_set(call, PE_start, logPE_stride, PE_size, pSync, sync_size, #sync_size)

/* nelems elements of elem_size bytes, as a byte count. */
static size_t set_bytes(const char *call, size_t nelems, size_t elem_size)
{
    if (nelems > SIZE_MAX / elem_size)
        pgas_fail(call, "nelems %zu of %zu-byte elements overflows size_t", nelems, elem_size);
    return nelems * elem_size;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    const char *call = "shmem_barrier";
    BEGIN(call);
    pgas_coll_barrier(call, ACTIVE_SET(call, SHMEM_BARRIER_SYNC_SIZE));
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    const char *call = "shmem_sync";
    BEGIN(call);
    pgas_coll_sync(call, ACTIVE_SET(call, SHMEM_BARRIER_SYNC_SIZE));
}

#define DEFINE_SIZED_COLL(BITS_)                                                              \
    void shmem_broadcast##BITS_(void *dest, const void *source, size_t nelems, int PE_root,   \
                                int PE_start, int logPE_stride, int PE_size, long *pSync)     \
    {                                                                                         \
        const char *call = "shmem_broadcast" #BITS_;                                         \
        BEGIN(call);                                                                          \
        int team = ACTIVE_SET(call, SHMEM_BCAST_SYNC_SIZE);                                   \
        if (PE_root < 0 || PE_root >= PE_size)                                                \
            pgas_fail(call, "PE_root %d is not in the active set of %d PEs; pass the root's " \
                            "number within the set, 0 to %d", PE_root, PE_size, PE_size - 1); \
        pgas_coll_broadcast_others(call, team, dest, source,                                  \
                                   set_bytes(call, nelems, BITS_ / 8), PE_root);              \
    }                                                                                         \
    void shmem_collect##BITS_(void *dest, const void *source, size_t nelems, int PE_start,    \
                              int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                         \
        const char *call = "shmem_collect" #BITS_;                                           \
        BEGIN(call);                                                                          \
        pgas_coll_collect(call, ACTIVE_SET(call, SHMEM_COLLECT_SYNC_SIZE), dest, source,      \
                          nelems, BITS_ / 8);                                                 \
    }                                                                                         \
    void shmem_fcollect##BITS_(void *dest, const void *source, size_t nelems, int PE_start,   \
                               int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                         \
        const char *call = "shmem_fcollect" #BITS_;                                          \
        BEGIN(call);                                                                          \
        pgas_coll_fcollect(call, ACTIVE_SET(call, SHMEM_COLLECT_SYNC_SIZE), dest, source,     \
                           set_bytes(call, nelems, BITS_ / 8));                               \
    }                                                                                         \
    void shmem_alltoall##BITS_(void *dest, const void *source, size_t nelems, int PE_start,   \
                               int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                         \
        const char *call = "shmem_alltoall" #BITS_;                                          \
        BEGIN(call);                                                                          \
        pgas_coll_alltoall(call, ACTIVE_SET(call, SHMEM_ALLTOALL_SYNC_SIZE), dest, source,    \
                           set_bytes(call, nelems, BITS_ / 8));                               \
    }                                                                                         \
    void shmem_alltoalls##BITS_(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                                long *pSync)                                                  \
    {                                                                                         \
        const char *call = "shmem_alltoalls" #BITS_;                                         \
        BEGIN(call);                                                                          \
        pgas_coll_alltoalls(call, ACTIVE_SET(call, SHMEM_ALLTOALLS_SYNC_SIZE), dest, source,  \
                            dst, sst, nelems, BITS_ / 8);                                     \
    }
DEFINE_SIZED_COLL(32)
DEFINE_SIZED_COLL(64)
#undef DEFINE_SIZED_COLL

/* COMBINE names the core combiner: the type's own, but for and/or/xor on the signed types,
 * which the team reductions do not have, that of the unsigned type of the same width (C lets
 * either read the other's objects, and the bits come out the same). */
#define DEFINE_TO_ALL(TYPE, NAME, OP, COMBINE)                                                \
    void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,            \
                                      int PE_start, int logPE_stride, int PE_size,            \
                                      TYPE *pWrk, long *pSync)                                \
    {                                                                                         \
        const char *call = "shmem_" #NAME "_" #OP "_to_all";                                  \
        BEGIN(call);                                                                          \
        (void)pWrk;                                                                           \
        int team = ACTIVE_SET(call, SHMEM_REDUCE_SYNC_SIZE);                                  \
        if (nreduce < 0)                                                                      \
            pgas_fail(call, "nreduce %d is negative; pass the number of elements to reduce",  \
                      nreduce);                                                               \
        pgas_coll_reduce(call, team, dest, source, (size_t)nreduce, sizeof(TYPE),             \
                         COMBINE);                                                            \
    }
#define DEFINE_TO_ALL_BITWISE(TYPE, NAME, UNAME)                                              \
    DEFINE_TO_ALL(TYPE, NAME, and, pgas_combine_##UNAME##_and)                                \
    DEFINE_TO_ALL(TYPE, NAME, or, pgas_combine_##UNAME##_or)                                  \
    DEFINE_TO_ALL(TYPE, NAME, xor, pgas_combine_##UNAME##_xor)
#define DEFINE_TO_ALL_MINMAX(TYPE, NAME)                                                      \
    DEFINE_TO_ALL(TYPE, NAME, min, pgas_combine_##NAME##_min)                                 \
    DEFINE_TO_ALL(TYPE, NAME, max, pgas_combine_##NAME##_max)
#define DEFINE_TO_ALL_SUMPROD(TYPE, NAME)                                                     \
    DEFINE_TO_ALL(TYPE, NAME, sum, pgas_combine_##NAME##_sum)                                 \
    DEFINE_TO_ALL(TYPE, NAME, prod, pgas_combine_##NAME##_prod)
/* SHMEMU_SHMEM_TO_ALL_BITWISE_TYPES, each with its unsigned counterpart. */
DEFINE_TO_ALL_BITWISE(short, short, ushort)
DEFINE_TO_ALL_BITWISE(int, int, uint)
DEFINE_TO_ALL_BITWISE(long, long, ulong)
DEFINE_TO_ALL_BITWISE(long long, longlong, ulonglong)
SHMEMU_SHMEM_TO_ALL_MINMAX_TYPES(DEFINE_TO_ALL_MINMAX)
SHMEMU_SHMEM_TO_ALL_SUMPROD_TYPES(DEFINE_TO_ALL_SUMPROD)
#undef DEFINE_TO_ALL_SUMPROD
#undef DEFINE_TO_ALL_MINMAX
#undef DEFINE_TO_ALL_BITWISE
#undef DEFINE_TO_ALL
