/*
 * test_backend.c: the backend seam's contract (pgas/src/backend.h), checked directly on every
 * backend of pgas_backends[], and a recording backend that shows the API layer goes through
 * the seam.
 *
 * Every contract test is written against the ops table alone: it starts a job on backend b
 * (pgas_backend_use), and its PE bodies call b's operations, not the layout. A second backend
 * joins by its entry in pgas_backends[]; nothing here changes.
 *
 *   translation   ptr and owner are inverse for every PE, at offsets 0, 1, the middle, the
 *                 last byte and the end; heap starts are PGAS_HEAP_ALIGN-aligned; addresses
 *                 outside every heap have no owner
 *   copies        put and get of 1 byte up to a whole heap, at unaligned offsets, with
 *                 sentinels on both sides
 *   wake          with nobody parked (returns), and with a parked waiter (wakes it at once,
 *                 not at its next timed look)
 *   barrier       over 1 to 8 PEs, rounds that a barrier letting anyone through early fails
 *   recording     a put is one translation and one copy and one wake; a get one translation
 *                 and one copy; a barrier one barrier
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../pgas/src/backend.h"
#include "nvshmem.h"
#include "nvshmemx.h"
#include "support/pe_check.h"

#define HEAP_BYTES ((size_t)4 << 20) /* per PE: small enough to copy whole */

static const pgas_backend *backend_of_job(void) { return pgas_current()->world->backend; }

/* Runs body on n PEs of a job on backend b, with a small heap. */
static void run_on(const pgas_backend *b, int n, int (*body)(void *), void *arg)
{
    setenv("NVSHMEM_SYMMETRIC_SIZE", "4M", 1);
    pgas_backend_use(b);
    run_pes(n, body, arg);
    pgas_backend_use(NULL);
    unsetenv("NVSHMEM_SYMMETRIC_SIZE");
}

/* Runs body on every backend of the table, at each of the given PE counts. */
static void run_all(int (*body)(void *), const int *counts, int n_counts)
{
    for (size_t i = 0; pgas_backends[i] != NULL; i++)
        for (int k = 0; k < n_counts; k++)
            run_on(pgas_backends[i], counts[k], body, NULL);
}

/* ---- translation --------------------------------------------------------------------- */

static int translation_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    const pgas_world *w = pgas_current()->world;
    const pgas_backend *b = backend_of_job();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    const size_t hs = w->heap_size;
    PE_CHECK_EQ_U64(hs, HEAP_BYTES);
    const size_t offsets[] = {0, 1, 63, hs / 2, hs - 8, hs - 1};
    for (int p = 0; p < n; p++) {
        char *base = b->ptr(w, p, 0);
        if (p == me)
            PE_CHECK_MSG(base != NULL, "ptr(own PE %d, 0) is NULL", p);
        if (base == NULL)
            continue; /* not directly reachable: allowed for a peer */
        PE_CHECK_MSG((uintptr_t)base % PGAS_HEAP_ALIGN == 0, "PE %d's heap %p is not aligned",
                     p, (void *)base);
        PE_CHECK_MSG(b->ptr(w, p, hs) == base + hs, "ptr(%d, heap_size) is not the end", p);
        for (size_t k = 0; k < sizeof offsets / sizeof *offsets; k++) {
            char *a = b->ptr(w, p, offsets[k]);
            PE_CHECK_MSG(a == base + offsets[k], "ptr(%d, %zu) = %p, base %p", p, offsets[k],
                         (void *)a, (void *)base);
            size_t off = 12345;
            int owner = b->owner(w, a, &off);
            PE_CHECK_MSG(owner == p && off == offsets[k],
                         "owner(ptr(%d, %zu)) = PE %d, offset %zu", p, offsets[k], owner, off);
        }
    }
    /* nvshmem_ptr agrees with the backend for an allocated object */
    char *obj = nvshmem_malloc(64);
    size_t obj_off = 0;
    PE_CHECK_EQ_I64(b->owner(w, obj, &obj_off), me);
    for (int p = 0; p < n; p++)
        PE_CHECK_MSG(nvshmem_ptr(obj, p) == b->ptr(w, p, obj_off), "nvshmem_ptr(obj, %d)", p);
    /* Outside every heap: a stack word, a malloc'd block, NULL, just before PE 0's heap. */
    int stack_word = 0;
    char *block = malloc(64);
    const volatile void *outside[] = {&stack_word, block, NULL,
                                      b->ptr(w, 0, 0) != NULL ? b->ptr(w, 0, 0) - 1 : NULL};
    for (size_t k = 0; k < sizeof outside / sizeof *outside; k++) {
        size_t off = 777;
        int owner = b->owner(w, outside[k], &off);
        PE_CHECK_MSG(owner == -1 && off == 777, "owner(%p) = %d, offset %zu (want -1, untouched)",
                     (const void *)outside[k], owner, off);
    }
    free(block);
    nvshmem_free(obj);
    nvshmem_finalize();
    return 0;
}

static void test_translation(void **state)
{
    (void)state;
    static const int counts[] = {1, 2, 3, 8};
    run_all(translation_body, counts, 4);
}

/* ---- copies -------------------------------------------------------------------------- */

static uint8_t pattern(size_t i, size_t salt) { return (uint8_t)((i * 131 + salt * 7 + 1) % 251); }

/* PE 0 puts `bytes` at offset `off` of PE 1's heap (from a local buffer at an unaligned
 * address), PE 1 checks them and the sentinels around them, PE 0 gets them back. */
static int copies_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    const pgas_world *w = pgas_current()->world;
    const pgas_backend *b = backend_of_job();
    const int me = nvshmem_my_pe();
    const size_t hs = w->heap_size;
    struct { size_t off, bytes; } cases[] = {
        {5, 1}, {8, 1}, {8, 2}, {8, 4}, {8, 8}, {3, 8}, {1, 7}, {9, 63}, {17, 4097},
        {hs - 1, 1}, {hs - 3, 3}, {1, hs - 2}, {0, hs},
    };
    const size_t n_cases = sizeof cases / sizeof *cases;
    char *src = malloc(hs + 1), *back = malloc(hs + 1);
    PE_CHECK(src != NULL && back != NULL);
    char *mine = b->ptr(w, me, 0);
    for (size_t c = 0; c < n_cases; c++) {
        const size_t off = cases[c].off, bytes = cases[c].bytes;
        memset(mine, 0xa5, hs); /* sentinels */
        nvshmem_barrier_all();
        if (me == 0) {
            char *target = b->ptr(w, 1, off);
            if (target != NULL) {
                for (size_t i = 0; i < bytes; i++)
                    src[1 + i] = (char)pattern(i, c);
                b->put(w, 1, target, src + 1, bytes); /* src + 1: an unaligned source */
                b->wake(target, bytes);
            }
        }
        nvshmem_barrier_all();
        if (me == 1) {
            size_t bad = SIZE_MAX;
            for (size_t i = 0; i < hs && bad == SIZE_MAX; i++) {
                uint8_t want = i >= off && i - off < bytes ? pattern(i - off, c) : 0xa5;
                if ((uint8_t)mine[i] != want)
                    bad = i;
            }
            PE_CHECK_MSG(bad == SIZE_MAX, "put of %zu bytes at offset %zu: byte %zu wrong",
                         bytes, off, bad);
        }
        if (me == 0 && b->ptr(w, 1, off) != NULL) {
            memset(back, 0x5a, hs + 1);
            b->get(w, 1, back + 1, b->ptr(w, 1, off), bytes); /* unaligned destination */
            size_t bad = SIZE_MAX;
            for (size_t i = 0; i < bytes && bad == SIZE_MAX; i++)
                if ((uint8_t)back[1 + i] != pattern(i, c))
                    bad = i;
            PE_CHECK_MSG(bad == SIZE_MAX, "get of %zu bytes at offset %zu: byte %zu wrong",
                         bytes, off, bad);
            PE_CHECK_MSG((uint8_t)back[0] == 0x5a && (bytes > hs - 1 || (uint8_t)back[1 + bytes] == 0x5a),
                         "get of %zu bytes wrote outside its destination", bytes);
        }
        nvshmem_barrier_all();
    }
    free(src);
    free(back);
    nvshmem_finalize();
    return 0;
}

static void test_copies(void **state)
{
    (void)state;
    static const int counts[] = {2};
    run_all(copies_body, counts, 1);
}

/* ---- wake ---------------------------------------------------------------------------- */

typedef struct wake_shared {
    _Atomic uint64_t woke_ns[4];
    _Atomic uint64_t stored_ns[4];
} wake_shared;
/* Written by PE 1 and read by PE 0: shared memory, for the process backend's PEs. */
static wake_shared *wake_times;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* PE 1 waits on a word of its heap; PE 0 waits until it has parked, lets its timed sleeps
 * grow long, stores the word without waking, then wakes it through the backend. A wake that
 * does nothing shows as a wake-up late by up to the waiter's sleep (100 ms). */
static int wake_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    pgas_world *w = pgas_current()->world;
    const pgas_backend *b = backend_of_job();
    const int me = nvshmem_my_pe();
    uint64_t *flag = nvshmem_calloc(1, sizeof *flag);
    /* nobody waits: wake returns, on a heap word and on a word outside the heap */
    uint64_t outside = 0;
    b->wake(flag, sizeof *flag);
    b->wake(&outside, sizeof outside);
    nvshmem_barrier_all();
    for (int round = 0; round < 3; round++) {
        if (me == 1) {
            nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_GE, (uint64_t)round + 1);
            atomic_exchange(&wake_times->woke_ns[round], now_ns());
        } else if (me == 0) {
            uint64_t start = now_ns();
            while (atomic_load(&w->pes[1].parked) == 0 && now_ns() - start < 5000000000u) {
                struct timespec pause = {0, 1000000};
                nanosleep(&pause, NULL);
            }
            PE_CHECK_MSG(atomic_load(&w->pes[1].parked) > 0, "PE 1 never parked");
            struct timespec grow = {0, 300000000}; /* the waiter now sleeps 100 ms at a time */
            nanosleep(&grow, NULL);
            size_t flag_off = 0;
            (void)b->owner(w, flag, &flag_off);
            uint64_t *target = (uint64_t *)(void *)b->ptr(w, 1, flag_off);
            atomic_exchange(&wake_times->stored_ns[round], now_ns());
            /* an exchange, as the runtime stores a word others poll (valgrind sees an RMW as a
             * read, so it does not race with the waiter's polls) */
            (void)__atomic_exchange_n(target, (uint64_t)round + 1, __ATOMIC_RELEASE);
            b->wake(target, sizeof *target);
        }
        nvshmem_barrier_all();
        if (me == 0 && !pe_check_under_valgrind()) {
            uint64_t late = atomic_load(&wake_times->woke_ns[round]) -
                            atomic_load(&wake_times->stored_ns[round]);
            PE_CHECK_MSG(late < 50000000u, "round %d: the waiter woke %.1f ms after the wake",
                         round, (double)late * 1e-6);
        }
    }
    nvshmem_free(flag);
    nvshmem_finalize();
    return 0;
}

static void test_wake(void **state)
{
    (void)state;
    if (wake_times == NULL)
        wake_times = pe_check_shared_calloc(sizeof *wake_times);
    setenv("SHMEMU_SPIN", "0", 1); /* park at once */
    static const int counts[] = {2};
    run_all(wake_body, counts, 1);
    unsetenv("SHMEMU_SPIN");
}

/* ---- barrier ------------------------------------------------------------------------- */

/* Each round every PE writes the round into its slot on every PE, passes the primitive, and
 * expects every slot of its own to hold the round; a second barrier keeps the next round's
 * writes out of this round's checks. The slots are atomics, so the test itself never races
 * and needs nothing from the barrier but the waiting. */
static int barrier_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    pgas_thread *t = pgas_current();
    const pgas_world *w = t->world;
    const pgas_backend *b = backend_of_job();
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    _Atomic uint64_t *slots = nvshmem_calloc((size_t)n, sizeof *slots);
    size_t slots_off = 0;
    (void)b->owner(w, slots, &slots_off);
    pgas_barrier *bar = &t->world->teams[0].barrier;
    const int rounds = pe_check_scaled(50, 10);
    for (int r = 1; r <= rounds; r++) {
        for (int p = 0; p < n; p++) {
            _Atomic uint64_t *peer = (_Atomic uint64_t *)(void *)b->ptr(w, p, slots_off);
            atomic_exchange_explicit(&peer[me], (uint64_t)r, memory_order_relaxed);
        }
        b->barrier(t, bar, n, "test barrier");
        for (int p = 0; p < n; p++) {
            uint64_t v = atomic_load_explicit(&slots[p], memory_order_relaxed);
            PE_CHECK_MSG(v == (uint64_t)r, "round %d: PE %d's slot holds %llu after the barrier",
                         r, p, (unsigned long long)v);
        }
        b->barrier(t, bar, n, "test barrier");
    }
    nvshmem_free(slots);
    nvshmem_finalize();
    return 0;
}

static void test_barrier(void **state)
{
    (void)state;
    static const int counts[] = {1, 2, 3, 4, 5, 6, 7, 8};
    run_all(barrier_body, counts, 8);
}

/* ---- a recording backend: the API layer goes through the seam ------------------------ */

enum { REC_PTR, REC_OWNER, REC_PUT, REC_GET, REC_WAKE, REC_BARRIER, REC_N };
static const char *const rec_names[REC_N] = {"ptr", "owner", "put", "get", "wake", "barrier"};
/* Per thread: each PE counts only its own calls (a parked peer may ask owner meanwhile). */
static _Thread_local uint64_t rec_calls[REC_N];

static int rec_heap_map(pgas_world *w, char *err, size_t len)
{
    return pgas_backend_threads.heap_map(w, err, len);
}
static void rec_heap_unmap(pgas_world *w) { pgas_backend_threads.heap_unmap(w); }
static char *rec_ptr(const pgas_world *w, int pe, size_t off)
{
    rec_calls[REC_PTR]++;
    return pgas_backend_threads.ptr(w, pe, off);
}
static int rec_owner(const pgas_world *w, const volatile void *a, size_t *off)
{
    rec_calls[REC_OWNER]++;
    return pgas_backend_threads.owner(w, a, off);
}
static void rec_put(const pgas_world *w, int pe, char *target, const void *src, size_t bytes)
{
    rec_calls[REC_PUT]++;
    pgas_backend_threads.put(w, pe, target, src, bytes);
}
static void rec_get(const pgas_world *w, int pe, void *dest, const char *src, size_t bytes)
{
    rec_calls[REC_GET]++;
    pgas_backend_threads.get(w, pe, dest, src, bytes);
}
static void rec_wake(const volatile void *a, size_t bytes)
{
    rec_calls[REC_WAKE]++;
    pgas_backend_threads.wake(a, bytes);
}
static void rec_barrier(pgas_thread *t, pgas_barrier *bar, int n, const char *call)
{
    rec_calls[REC_BARRIER]++;
    pgas_backend_threads.barrier(t, bar, n, call);
}

static const pgas_backend recording = {
    .name = "recording", .heap_map = rec_heap_map, .heap_unmap = rec_heap_unmap,
    .ptr = rec_ptr, .owner = rec_owner, .put = rec_put, .get = rec_get, .wake = rec_wake,
    .barrier = rec_barrier,
};

/* The calls made by `op`, compared with the expected counts (ptr, owner, put, get, wake,
 * barrier; owner is not compared: a wake asks it whether anybody is parked). */
#define EXPECT_CALLS(what, op, e_ptr, e_put, e_get, e_wake, e_barrier)                         \
    do {                                                                                      \
        uint64_t before_[REC_N];                                                              \
        memcpy(before_, rec_calls, sizeof before_);                                           \
        op;                                                                                   \
        const uint64_t want_[REC_N] = {e_ptr, 0, e_put, e_get, e_wake, e_barrier};            \
        for (int k_ = 0; k_ < REC_N; k_++)                                                    \
            if (k_ != REC_OWNER)                                                              \
                PE_CHECK_MSG(rec_calls[k_] - before_[k_] == want_[k_],                        \
                             "%s: %llu calls of %s, expected %llu", what,                     \
                             (unsigned long long)(rec_calls[k_] - before_[k_]), rec_names[k_], \
                             (unsigned long long)want_[k_]);                                  \
    } while (0)

static int recording_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    PE_CHECK_MSG(backend_of_job() == &recording, "the job does not run on the recording backend");
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes(), next = (me + 1) % n;
    char *buf = nvshmem_malloc(256);
    uint64_t *sig = nvshmem_calloc(1, sizeof *sig);
    char local[256];
    memset(local, me, sizeof local);
    nvshmem_barrier_all();
    EXPECT_CALLS("nvshmem_putmem 200 B", nvshmem_putmem(buf, local, 200, next), 1, 1, 0, 1, 0);
    EXPECT_CALLS("nvshmem_int_p", nvshmem_int_p((int *)(void *)buf + 60, 7, next), 1, 1, 0, 1, 0);
    EXPECT_CALLS("nvshmem_getmem 100 B", nvshmem_getmem(local, buf, 100, next), 1, 0, 1, 0, 0);
    EXPECT_CALLS("nvshmem_ptr", (void)nvshmem_ptr(buf, next), 1, 0, 0, 0, 0);
    EXPECT_CALLS("nvshmem_putmem_signal", nvshmem_putmem_signal(buf, local, 64, sig, 1,
                                                                NVSHMEM_SIGNAL_ADD, next),
                 2, 1, 0, 2, 0);
    EXPECT_CALLS("nvshmem_uint64_atomic_add", nvshmem_uint64_atomic_add(sig, 1, next), 1, 0, 0,
                 1, 0);
    EXPECT_CALLS("nvshmem_barrier_all", nvshmem_barrier_all(), 0, 0, 0, 0, 1);
    nvshmem_free(sig);
    nvshmem_free(buf);
    nvshmem_finalize();
    return 0;
}

static void test_recording_backend(void **state)
{
    (void)state;
    run_on(&recording, 2, recording_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_wake),
        cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_recording_backend),
    };
    return cmocka_run_group_tests_name("backend", tests, NULL, NULL);
}
