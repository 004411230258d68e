/*
 * test_heap.c: the symmetric heap: nvshmem_malloc, calloc, align, free, nvshmem_ptr, and
 * nvshmemx_buffer_register / unregister.
 *
 * Symmetry is checked without knowing where the heap lies: every PE publishes the address
 * of each of its objects in a table shared by the test (PEs are threads), and every PE
 * checks that nvshmem_ptr(obj, q) is exactly PE q's own address of that object.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define MAX_PES 8
#define N_OBJECTS 6

typedef struct heap_job {
    /* addresses[q][k]: PE q's own address of object k; written before a barrier */
    void *addresses[MAX_PES][N_OBJECTS];
} heap_job;

static int symmetric_offsets_body(void *arg)
{
    heap_job *job = arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    void *obj[N_OBJECTS];
    obj[0] = nvshmem_malloc(100);
    obj[1] = nvshmem_calloc(10, 8);
    obj[2] = nvshmem_align(4096, 64);
    obj[3] = nvshmem_malloc(1);
    obj[4] = nvshmem_align(256, 1000);
    obj[5] = nvshmem_malloc(1 << 20);
    for (int k = 0; k < N_OBJECTS; k++) {
        PE_CHECK_MSG(obj[k] != NULL, "object %d is NULL", k);
        PE_CHECK_EQ_PTR(nvshmem_ptr(obj[k], me), obj[k]);
        job->addresses[me][k] = obj[k];
    }
    /* Distinct objects do not overlap (sizes as allocated above). */
    static const size_t sizes[N_OBJECTS] = {100, 80, 64, 1, 1000, 1 << 20};
    for (int a = 0; a < N_OBJECTS; a++) {
        for (int b = a + 1; b < N_OBJECTS; b++) {
            uintptr_t pa = (uintptr_t)obj[a], pb = (uintptr_t)obj[b];
            PE_CHECK_MSG(pa + sizes[a] <= pb || pb + sizes[b] <= pa,
                         "objects %d and %d overlap", a, b);
        }
    }
    nvshmem_barrier_all();
    for (int q = 0; q < n; q++) {
        for (int k = 0; k < N_OBJECTS; k++) {
            /* nvshmem_ptr(obj, q) is PE q's own copy... */
            PE_CHECK_MSG(nvshmem_ptr(obj[k], q) == job->addresses[q][k],
                         "nvshmem_ptr(object %d, PE %d) = %p, but PE %d has it at %p", k, q,
                         nvshmem_ptr(obj[k], q), q, job->addresses[q][k]);
            /* ... at the same offset from PE q's first object as ours. */
            ptrdiff_t mine = (char *)obj[k] - (char *)obj[0];
            ptrdiff_t theirs = (char *)job->addresses[q][k] - (char *)job->addresses[q][0];
            PE_CHECK_EQ_I64(mine, theirs);
        }
    }
    nvshmem_barrier_all();
    for (int k = N_OBJECTS - 1; k >= 0; k--)
        nvshmem_free(obj[k]);
    nvshmem_finalize();
    return 0;
}

static void test_symmetric_offsets(void **state)
{
    (void)state;
    /* PEs write it, every PE reads it: shared, for the process backend's PE processes */
    heap_job *job = pe_check_shared_calloc(sizeof *job);
    run_pes_each(symmetric_offsets_body, job);
    pe_check_shared_free(job, sizeof *job);
}

static int calloc_zeroes_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    /* Dirty a block, free it, and ask for the same size again: the allocator hands back the
     * same (dirty) bytes, which calloc must clear. */
    unsigned char *dirty = nvshmem_malloc(4096);
    memset(dirty, 0xab, 4096);
    nvshmem_free(dirty);
    uint64_t *z = nvshmem_calloc(512, 8);
    PE_CHECK_EQ_PTR((void *)z, (void *)dirty);
    int nonzero = 0;
    for (int i = 0; i < 512; i++)
        nonzero += z[i] != 0;
    PE_CHECK_EQ_I64(nonzero, 0);
    nvshmem_free(z);
    /* calloc of a count that does not fill whole words. */
    unsigned char *d2 = nvshmem_malloc(37);
    memset(d2, 0xcd, 37);
    nvshmem_free(d2);
    unsigned char *z2 = nvshmem_calloc(37, 1);
    for (int i = 0; i < 37; i++)
        PE_CHECK_MSG(z2[i] == 0, "byte %d is 0x%02x", i, z2[i]);
    nvshmem_free(z2);
    nvshmem_finalize();
    return 0;
}

static void test_calloc_zeroes(void **state)
{
    (void)state;
    run_pes_each(calloc_zeroes_body, NULL);
}

static int align_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    /* A 1-byte object first, so that the next free offset is misaligned; each 24-byte
     * object below leaves it misaligned for the next, larger alignment again. */
    char *skew = nvshmem_malloc(1);
    void *objs[17];
    int n_objs = 0;
    for (size_t alignment = 1; alignment <= ((size_t)1 << 16); alignment <<= 1) {
        void *p = nvshmem_align(alignment, 24);
        PE_CHECK_MSG(p != NULL, "nvshmem_align(%zu, 24) returned NULL", alignment);
        PE_CHECK_MSG(((uintptr_t)p & (alignment - 1)) == 0,
                     "nvshmem_align(%zu, 24) = %p is misaligned", alignment, p);
        memset(p, 0x5a, 24); /* usable */
        objs[n_objs++] = p;
    }
    /* nvshmem_malloc itself returns memory aligned for any type, as malloc does. */
    void *m = nvshmem_malloc(40);
    PE_CHECK_MSG(((uintptr_t)m & (_Alignof(max_align_t) - 1)) == 0, "nvshmem_malloc = %p", m);
    nvshmem_free(m);
    for (int i = n_objs - 1; i >= 0; i--)
        nvshmem_free(objs[i]);
    nvshmem_free(skew);
    nvshmem_finalize();
    return 0;
}

static void test_align(void **state)
{
    (void)state;
    run_pes_each(align_body, NULL);
}

static int free_reuse_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    void *a = nvshmem_malloc(256);
    void *guard = nvshmem_malloc(8); /* keeps a's block from merging with the free tail */
    nvshmem_free(a);
    void *b = nvshmem_malloc(256);
    PE_CHECK_EQ_PTR(b, a);
    /* Many objects, freed in a scattered order, then allocated again: live objects never
     * overlap, and each holds what was written into it. */
    enum { K = 40 };
    unsigned char *objs[K];
    size_t sizes[K];
    for (int i = 0; i < K; i++) {
        sizes[i] = (size_t)(i * 37 % 200) + 1;
        objs[i] = nvshmem_malloc(sizes[i]);
        memset(objs[i], i, sizes[i]);
    }
    for (int i = 0; i < K; i += 3) {
        nvshmem_free(objs[i]);
        objs[i] = NULL;
    }
    for (int i = 0; i < K; i += 3) {
        sizes[i] = (size_t)(i * 53 % 300) + 1;
        objs[i] = nvshmem_malloc(sizes[i]);
        memset(objs[i], i, sizes[i]);
    }
    for (int i = 0; i < K; i++) {
        for (size_t j = 0; j < sizes[i]; j++) {
            if (objs[i][j] != (unsigned char)i) {
                PE_CHECK_MSG(0, "object %d byte %zu is %d: objects overlap", i, j, objs[i][j]);
                break;
            }
        }
    }
    for (int i = 0; i < K; i++)
        nvshmem_free(objs[i]);
    nvshmem_free(b);
    nvshmem_free(guard);
    /* Freeing NULL does nothing, as free(NULL). */
    nvshmem_free(NULL);
    nvshmem_finalize();
    return 0;
}

static void test_free_then_malloc_reuses(void **state)
{
    (void)state;
    run_pes_each(free_reuse_body, NULL);
}

static int exhaustion_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    /* More than the heap holds: NULL on every PE (NVSHMEM returns NULL, it does not abort),
     * and the heap stays usable. */
    void *huge = nvshmem_malloc((size_t)1 << 50);
    PE_CHECK_EQ_PTR(huge, NULL);
    int *ok = nvshmem_malloc(sizeof(int));
    PE_CHECK(ok != NULL);
    nvshmem_free(ok);
    nvshmem_finalize();
    return 0;
}

static void test_exhaustion_returns_null(void **state)
{
    (void)state;
    static char err[8192];
    run_pes_capture(1, exhaustion_body, NULL, err, sizeof err);
    assert_contains(err, "PE 0: nvshmem_malloc: ");
    run_pes_capture(3, exhaustion_body, NULL, err, sizeof err);
    assert_contains(err, "PE 2: nvshmem_malloc: ");
}

static int ptr_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    enum { N = 64 };
    int *arr = nvshmem_malloc(N * sizeof *arr);
    for (int i = 0; i < N; i++)
        arr[i] = me * 1000 + i;
    nvshmem_barrier_all();
    for (int q = 0; q < n; q++) {
        const int *peer = nvshmem_ptr(arr, q);
        if (!PE_CHECK_MSG(peer != NULL, "nvshmem_ptr(arr, %d) is NULL", q))
            continue;
        for (int i = 0; i < N; i++)
            PE_CHECK_EQ_I64(peer[i], q * 1000 + i);
        /* An interior address maps to the same interior element. */
        const int *mid = nvshmem_ptr(&arr[N / 2], q);
        PE_CHECK_EQ_PTR((const void *)mid, (const void *)&peer[N / 2]);
    }
    nvshmem_barrier_all();
    /* Stores through nvshmem_ptr land in the peer's object. */
    int next = (me + 1) % n;
    int *theirs = nvshmem_ptr(arr, next);
    theirs[0] = -(me + 1);
    nvshmem_barrier_all();
    PE_CHECK_EQ_I64(arr[0], -(((me - 1 + n) % n) + 1));
    nvshmem_barrier_all();
    nvshmem_free(arr);
    nvshmem_finalize();
    return 0;
}

static void test_nvshmem_ptr_reaches_peer(void **state)
{
    (void)state;
    run_pes_each(ptr_body, NULL);
}

static int no_ptr_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    long *x = nvshmem_malloc(sizeof *x);
    *x = me;
    nvshmem_barrier_all();
    /* SHMEMU_NO_PTR: only the PE itself is reachable by load/store; puts still work. */
    for (int q = 0; q < n; q++) {
        if (q == me)
            PE_CHECK_EQ_PTR(nvshmem_ptr(x, q), (void *)x);
        else
            PE_CHECK_EQ_PTR(nvshmem_ptr(x, q), NULL);
    }
    PE_CHECK_EQ_I64(nvshmem_long_g(x, (me + 1) % n), (me + 1) % n);
    nvshmem_barrier_all();
    nvshmem_free(x);
    nvshmem_finalize();
    return 0;
}

static void test_no_ptr_mode(void **state)
{
    (void)state;
    setenv("SHMEMU_NO_PTR", "1", 1);
    run_pes_each(no_ptr_body, NULL);
}

static int unset_no_ptr(void **state)
{
    (void)state;
    unsetenv("SHMEMU_NO_PTR");
    return 0;
}

static int register_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    enum { LEN = 4096 };
    char *local = malloc(2 * LEN);
    memset(local, 'a' + me, 2 * LEN);
    char on_stack[16];
    PE_CHECK_EQ_I64(nvshmemx_buffer_register(local, LEN), 0);
    /* Overlapping an existing registration is refused. */
    PE_CHECK(nvshmemx_buffer_register(local + LEN / 2, LEN) != 0);
    PE_CHECK_EQ_I64(nvshmemx_buffer_register(local + LEN, LEN), 0);

    /* A registered buffer is a put source and a get destination. */
    char *dest = nvshmem_calloc(LEN, 1);
    nvshmem_barrier_all();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    nvshmem_putmem(dest, local, LEN, next);
    nvshmem_barrier_all();
    PE_CHECK_EQ_I64(dest[0], 'a' + prev);
    PE_CHECK_EQ_I64(dest[LEN - 1], 'a' + prev);
    nvshmem_getmem(local + LEN, dest, LEN, next); /* next holds what `me` put */
    PE_CHECK_EQ_I64(local[LEN], 'a' + me);
    PE_CHECK_EQ_I64(local[2 * LEN - 1], 'a' + me);

    PE_CHECK_EQ_I64(nvshmemx_buffer_unregister(local), 0);
    /* Unregistering what is not (or no longer) registered returns non-zero. */
    PE_CHECK(nvshmemx_buffer_unregister(local) != 0);
    PE_CHECK(nvshmemx_buffer_unregister(on_stack) != 0);
    PE_CHECK(nvshmemx_buffer_unregister(local + 1) != 0);
    /* After unregister, the range can be registered again. */
    PE_CHECK_EQ_I64(nvshmemx_buffer_register(local, LEN), 0);
    nvshmemx_buffer_unregister_all();
    PE_CHECK(nvshmemx_buffer_unregister(local) != 0);
    PE_CHECK(nvshmemx_buffer_unregister(local + LEN) != 0);

    nvshmem_barrier_all();
    nvshmem_free(dest);
    free(local);
    nvshmem_finalize();
    return 0;
}

static void test_buffer_register(void **state)
{
    (void)state;
    static char err[65536];
    for (int i = 0; i < PE_COUNTS_N; i++) {
        int n = pe_counts[i];
        run_pes_capture(n, register_body, NULL, err, sizeof err);
        char who[64];
        snprintf(who, sizeof who, "PE %d: nvshmemx_buffer_register: ", n - 1);
        assert_contains(err, who); /* the overlap */
        snprintf(who, sizeof who, "PE %d: nvshmemx_buffer_unregister: ", n - 1);
        assert_contains(err, who);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symmetric_offsets),
        cmocka_unit_test(test_calloc_zeroes),
        cmocka_unit_test(test_align),
        cmocka_unit_test(test_free_then_malloc_reuses),
        cmocka_unit_test(test_exhaustion_returns_null),
        cmocka_unit_test(test_nvshmem_ptr_reaches_peer),
        cmocka_unit_test_teardown(test_no_ptr_mode, unset_no_ptr),
        cmocka_unit_test(test_buffer_register),
    };
    return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
