/*
 * p2p_sync.c: point-to-point synchronization, nvshmem_TYPE_wait_until and _test families.
 *
 * Each family is one generic routine over (ivars, element size and signedness, status
 * mask, one comparison value or a vector of them); the typed entry points only describe
 * their type. A satisfied wait or successful test is an acquire on the word(s) it read.
 * A status entry that is non-zero excludes its ivar, as in OpenSHMEM.
 *
 * Which satisfied ivar an _any call returns is the implementation's choice; a program that
 * loops "test_any, handle the index" without excluding what it handled (the specification's
 * fairness check) must still see every satisfied ivar. So the scan of an array starts one past
 * the index the calling thread's last _any call on the same array returned, wrapping around
 * (round robin; pgas_thread.any_cursor). The order depends only on the thread's own calls,
 * so deterministic runs stay reproducible.
 */
#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "nvshmem.h"

typedef struct ivar_set {
    const char *call;
    char *ivars;
    size_t elem_size;
    pgas_kind kind;
    size_t nelems;
    const int *status;
    int cmp;
    uint64_t value;         /* when values is NULL */
    const char *values;     /* vector forms: one comparison value per ivar */
    const void *caller;     /* the program's call site (PGAS_NOTE_CALLER) */
} ivar_set;

static pgas_kind kind_for(size_t size, bool is_signed)
{
    switch (size) {
    case 1: return is_signed ? PGAS_KIND_I8 : PGAS_KIND_U8;
    case 2: return is_signed ? PGAS_KIND_I16 : PGAS_KIND_U16;
    case 4: return is_signed ? PGAS_KIND_I32 : PGAS_KIND_U32;
    default: return is_signed ? PGAS_KIND_I64 : PGAS_KIND_U64;
    }
}

static bool included(const ivar_set *s, size_t i) { return s->status == NULL || s->status[i] == 0; }

static uint64_t value_at(const ivar_set *s, size_t i)
{
    if (s->values == NULL)
        return s->value;
    return pgas_load_kind(s->values + i * s->elem_size, s->kind);
}

static bool holds_at(const ivar_set *s, size_t i)
{
    uint64_t current = pgas_load_kind(s->ivars + i * s->elem_size, s->kind);
    return pgas_compare(current, s->kind, s->cmp, value_at(s, i));
}

static void acquire_at(const ivar_set *s, size_t i)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    pgas_hb_after(s->ivars + i * s->elem_size);
}

static pgas_thread *check_set(const ivar_set *s)
{
    pgas_thread *t = pgas_require(s->call);
    pgas_check_device_only(t, s->call);
    t->caller = s->caller;
    t->caller_call = t->api_call;
    if (!pgas_cmp_valid(s->cmp))
        pgas_fail(s->call, "unknown comparison %d; use NVSHMEM_CMP_EQ, _NE, _GT, _LE, _LT or "
                           "_GE (%d to %d)", s->cmp, NVSHMEM_CMP_EQ, NVSHMEM_CMP_GE);
    if (s->nelems == 0)
        return t;
    if (s->ivars == NULL)
        pgas_fail(s->call, "ivars is NULL; pass a symmetric array");
    if ((uintptr_t)s->ivars % s->elem_size != 0)
        pgas_fail(s->call, "ivar %p is not aligned to its %zu-byte type", (void *)s->ivars,
                  s->elem_size);
    if (s->nelems > SIZE_MAX / s->elem_size)
        pgas_fail(s->call, "nelems %zu overflows", s->nelems);
    pgas_heap_check_local(t, s->call, "ivars", s->ivars, s->nelems * s->elem_size);
    return t;
}

/* The event log (SHMEMU_EVENTS): a wait on ivar i starts, or ends satisfied with seen, the
 * value that satisfied it. */
static void ev_wait_start(pgas_thread *t, const ivar_set *s, size_t i)
{
    if (pgas_ev_on(t))
        pgas_ev_wait(t, PGAS_EV_WAIT_START, s->caller, s->ivars + i * s->elem_size, s->kind,
                     s->cmp, value_at(s, i));
}

static void ev_wait_done(pgas_thread *t, const ivar_set *s, size_t i, uint64_t seen)
{
    if (!pgas_ev_on(t))
        return;
    pgas_event *done = pgas_ev_wait(t, PGAS_EV_WAIT_DONE, s->caller, s->ivars + i * s->elem_size,
                                    s->kind, s->cmp, value_at(s, i));
    if (done != NULL)
        done->seen = seen;
}

/* ivar i's value now (after the acquire that found it satisfied) */
static uint64_t ivar_now(const ivar_set *s, size_t i)
{
    return pgas_load_kind(s->ivars + i * s->elem_size, s->kind);
}

/* Waits for one ivar on its own wake bucket. */
static void wait_one(const ivar_set *s, size_t i)
{
    pgas_thread *t = pgas_current();
    ev_wait_start(t, s, i);
    uint64_t seen = pgas_wait_value(s->ivars + i * s->elem_size, s->kind, s->cmp, value_at(s, i),
                                    PGAS_ACQUIRE, s->call);
    ev_wait_done(t, s, i, seen);
}

/* The index the scan of s->ivars starts at: one past the last index found there. */
static size_t scan_start(const pgas_thread *t, const ivar_set *s)
{
    for (int k = 0; k < PGAS_ANY_CURSORS; k++)
        if (t->any_cursor[k].ivars == s->ivars)
            return t->any_cursor[k].next % s->nelems;
    return 0;
}

/* Remembers that an _any call on s->ivars returned index found. */
static void note_found(pgas_thread *t, const ivar_set *s, size_t found)
{
    int k = 0;
    while (k < PGAS_ANY_CURSORS && t->any_cursor[k].ivars != s->ivars)
        k++;
    if (k == PGAS_ANY_CURSORS) {
        k = t->any_cursor_victim;
        t->any_cursor_victim = (k + 1) % PGAS_ANY_CURSORS;
        t->any_cursor[k].ivars = s->ivars;
    }
    t->any_cursor[k].next = found + 1;
}

/* The first included ivar that holds, scanning round robin from start; SIZE_MAX if none. */
static size_t find_any(const ivar_set *s, size_t start)
{
    for (size_t k = 0; k < s->nelems; k++) {
        size_t i = start + k < s->nelems ? start + k : start + k - s->nelems;
        if (included(s, i) && holds_at(s, i))
            return i;
    }
    return SIZE_MAX;
}

typedef struct any_ctx {
    const ivar_set *set;
    size_t start;
    size_t found;
} any_ctx;

static bool any_ready(void *ctx)
{
    any_ctx *a = ctx;
    a->found = find_any(a->set, a->start);
    return a->found != SIZE_MAX;
}

/* Waits until some included ivar holds; returns its index, or SIZE_MAX if none is included. */
static size_t wait_any(pgas_thread *t, const ivar_set *s)
{
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < s->nelems && first == SIZE_MAX; i++)
        if (included(s, i))
            first = i;
    if (first == SIZE_MAX)
        return SIZE_MAX;
    any_ctx ctx = {.set = s, .start = scan_start(t, s), .found = SIZE_MAX};
    ev_wait_start(t, s, first); /* the log names the set by its first included ivar */
    pgas_wait_heap_predicate(t->pe, s->ivars + first * s->elem_size, any_ready, &ctx, s->call,
                             "any of several ivars to satisfy the comparison");
    acquire_at(s, ctx.found);
    return ctx.found;
}

static void set_wait_all(const ivar_set *s)
{
    check_set(s);
    for (size_t i = 0; i < s->nelems; i++)
        if (included(s, i))
            wait_one(s, i);
}

static size_t set_wait_any(const ivar_set *s)
{
    pgas_thread *t = check_set(s);
    size_t found = wait_any(t, s);
    if (found != SIZE_MAX) {
        ev_wait_done(t, s, found, ivar_now(s, found));
        note_found(t, s, found);
    }
    return found;
}

static size_t collect_satisfied(const ivar_set *s, size_t *indices)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nelems; i++) {
        if (included(s, i) && holds_at(s, i)) {
            acquire_at(s, i);
            indices[n++] = i;
        }
    }
    return n;
}

static size_t set_wait_some(const ivar_set *s, size_t *indices)
{
    pgas_thread *t = check_set(s);
    if (indices == NULL && s->nelems > 0)
        pgas_fail(s->call, "indices is NULL; pass an array of nelems size_t");
    if (wait_any(t, s) == SIZE_MAX)
        return 0;
    size_t n = collect_satisfied(s, indices);
    for (size_t k = 0; k < n; k++) /* one satisfied wait per ivar found */
        ev_wait_done(t, s, indices[k], ivar_now(s, indices[k]));
    return n;
}

/* Tests make progress in checking mode: a polling loop must see its own puts delivered.
 * In deterministic mode a test is a sync point, and one that finds nothing a soft wait
 * (test_failed), so a polling loop cannot hold the turn forever. */
static pgas_thread *check_test(const ivar_set *s)
{
    pgas_thread *t = check_set(s);
    pgas_deliver_all(t);
    pgas_sched_point(t, s->call, false);
    return t;
}

static void test_failed(const ivar_set *s) { pgas_sched_poll(s->call, false); }

static int set_test_all(const ivar_set *s)
{
    check_test(s);
    for (size_t i = 0; i < s->nelems; i++)
        if (included(s, i) && !holds_at(s, i)) {
            test_failed(s);
            return 0;
        }
    for (size_t i = 0; i < s->nelems; i++)
        if (included(s, i))
            acquire_at(s, i);
    return 1;
}

static size_t set_test_any(const ivar_set *s)
{
    pgas_thread *t = check_test(s);
    size_t found = s->nelems == 0 ? SIZE_MAX : find_any(s, scan_start(t, s));
    if (found == SIZE_MAX) {
        test_failed(s);
        return SIZE_MAX;
    }
    acquire_at(s, found);
    note_found(t, s, found);
    return found;
}

static size_t set_test_some(const ivar_set *s, size_t *indices)
{
    check_test(s);
    if (indices == NULL && s->nelems > 0)
        pgas_fail(s->call, "indices is NULL; pass an array of nelems size_t");
    size_t n = collect_satisfied(s, indices);
    if (n == 0)
        test_failed(s);
    return n;
}

#define SET(NAME_SUFFIX, TYPE, IVARS, N, STATUS, CMP, VALUE, VALUES)                          \
    ((ivar_set){.call = "nvshmem_" NAME_SUFFIX, .ivars = (char *)(IVARS),                     \
                .elem_size = sizeof(TYPE), .kind = kind_for(sizeof(TYPE), (TYPE)~(TYPE)0 < (TYPE)1), \
                .nelems = (N), .status = (STATUS), .cmp = (CMP), .value = (uint64_t)(VALUE),  \
                .values = (const char *)(VALUES), .caller = __builtin_return_address(0)})

#define DEFINE_WAIT(TYPE, NAME)                                                               \
    void nvshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)                     \
    {                                                                                         \
        ivar_set s = SET(#NAME "_wait_until", TYPE, ivar, 1, NULL, cmp, cmp_value, NULL);     \
        set_wait_all(&s);                                                                     \
    }                                                                                         \
    void nvshmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,       \
                                         int cmp, TYPE cmp_value)                             \
    {                                                                                         \
        ivar_set s =                                                                          \
            SET(#NAME "_wait_until_all", TYPE, ivars, nelems, status, cmp, cmp_value, NULL);  \
        set_wait_all(&s);                                                                     \
    }                                                                                         \
    size_t nvshmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,     \
                                           int cmp, TYPE cmp_value)                           \
    {                                                                                         \
        ivar_set s =                                                                          \
            SET(#NAME "_wait_until_any", TYPE, ivars, nelems, status, cmp, cmp_value, NULL);  \
        return set_wait_any(&s);                                                              \
    }                                                                                         \
    size_t nvshmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,      \
                                            const int *status, int cmp, TYPE cmp_value)       \
    {                                                                                         \
        ivar_set s =                                                                          \
            SET(#NAME "_wait_until_some", TYPE, ivars, nelems, status, cmp, cmp_value, NULL); \
        return set_wait_some(&s, indices);                                                    \
    }                                                                                         \
    void nvshmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,                   \
                                                const int *status, int cmp,                   \
                                                TYPE *cmp_values)                             \
    {                                                                                         \
        ivar_set s = SET(#NAME "_wait_until_all_vector", TYPE, ivars, nelems, status, cmp, 0, \
                         cmp_values);                                                         \
        set_wait_all(&s);                                                                     \
    }                                                                                         \
    size_t nvshmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                 \
                                                  const int *status, int cmp,                 \
                                                  TYPE *cmp_values)                           \
    {                                                                                         \
        ivar_set s = SET(#NAME "_wait_until_any_vector", TYPE, ivars, nelems, status, cmp, 0, \
                         cmp_values);                                                         \
        return set_wait_any(&s);                                                              \
    }                                                                                         \
    size_t nvshmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,                \
                                                   size_t *indices, const int *status,        \
                                                   int cmp, TYPE *cmp_values)                 \
    {                                                                                         \
        ivar_set s = SET(#NAME "_wait_until_some_vector", TYPE, ivars, nelems, status, cmp,   \
                         0, cmp_values);                                                      \
        return set_wait_some(&s, indices);                                                    \
    }                                                                                         \
    int nvshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                            \
    {                                                                                         \
        ivar_set s = SET(#NAME "_test", TYPE, ivar, 1, NULL, cmp, cmp_value, NULL);           \
        return set_test_all(&s);                                                              \
    }                                                                                         \
    int nvshmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,     \
                                  TYPE cmp_value)                                             \
    {                                                                                         \
        ivar_set s = SET(#NAME "_test_all", TYPE, ivars, nelems, status, cmp, cmp_value, NULL); \
        return set_test_all(&s);                                                              \
    }                                                                                         \
    size_t nvshmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,  \
                                     TYPE cmp_value)                                          \
    {                                                                                         \
        ivar_set s = SET(#NAME "_test_any", TYPE, ivars, nelems, status, cmp, cmp_value, NULL); \
        return set_test_any(&s);                                                              \
    }                                                                                         \
    size_t nvshmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,            \
                                      const int *status, int cmp, TYPE cmp_value)             \
    {                                                                                         \
        ivar_set s =                                                                          \
            SET(#NAME "_test_some", TYPE, ivars, nelems, status, cmp, cmp_value, NULL);       \
        return set_test_some(&s, indices);                                                    \
    }                                                                                         \
    int nvshmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,       \
                                         int cmp, TYPE *cmp_values)                           \
    {                                                                                         \
        ivar_set s =                                                                          \
            SET(#NAME "_test_all_vector", TYPE, ivars, nelems, status, cmp, 0, cmp_values);   \
        return set_test_all(&s);                                                              \
    }                                                                                         \
    size_t nvshmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,    \
                                            int cmp, TYPE *cmp_values)                        \
    {                                                                                         \
        ivar_set s =                                                                          \
            SET(#NAME "_test_any_vector", TYPE, ivars, nelems, status, cmp, 0, cmp_values);   \
        return set_test_any(&s);                                                              \
    }                                                                                         \
    size_t nvshmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,     \
                                             const int *status, int cmp, TYPE *cmp_values)    \
    {                                                                                         \
        ivar_set s = SET(#NAME "_test_some_vector", TYPE, ivars, nelems, status, cmp, 0,      \
                         cmp_values);                                                         \
        return set_test_some(&s, indices);                                                    \
    }
SHMEMU_WAIT_TYPES(DEFINE_WAIT)
#undef DEFINE_WAIT
