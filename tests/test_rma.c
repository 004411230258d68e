/*
 * test_rma.c: puts and gets: typed put/get/p/g (every RMA type), putmem/getmem, the _nbi
 * forms with nvshmem_quiet, iput/iget strides, and the sized put8 ... put128 family.
 *
 * Each PE puts to the next PE in a ring and gets from it, with values that encode the
 * sender and the element index, so a value from the wrong PE or the wrong slot is caught.
 * Bytes around every destination hold a sentinel, so a put that writes too much is caught.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define MAX_PES 8

/* The value PE pe puts in element i: small enough for every type, exact in float. */
#define VAL(TYPE, pe, i) ((TYPE)(((pe) * 16 + (i)) % 100 + 1))

/* ---- typed put/get/p/g/_nbi, one function per type ----------------------------------- */

#define RMA_TYPED(TYPE, NAME)                                                                 \
    static void rma_##NAME(int me, int n)                                                     \
    {                                                                                         \
        enum { N = 9 };                                                                       \
        int next = (me + 1) % n, prev = (me - 1 + n) % n;                                     \
        TYPE *dest = nvshmem_malloc(N * sizeof(TYPE));                                        \
        TYPE *src = nvshmem_malloc(N * sizeof(TYPE));                                         \
        TYPE *slots = nvshmem_malloc(MAX_PES * sizeof(TYPE));                                 \
        TYPE local[N];                                                                        \
        for (int i = 0; i < N; i++) {                                                         \
            src[i] = VAL(TYPE, me, i);                                                        \
            dest[i] = (TYPE)0;                                                                \
            local[i] = VAL(TYPE, me, i + 50);                                                 \
        }                                                                                     \
        for (int q = 0; q < MAX_PES; q++)                                                     \
            slots[q] = (TYPE)0;                                                               \
        nvshmem_barrier_all();                                                                \
        /* put from a local (non-symmetric) source */                                         \
        nvshmem_##NAME##_put(dest, local, N, next);                                           \
        nvshmem_barrier_all();                                                                \
        for (int i = 0; i < N; i++)                                                           \
            PE_CHECK_MSG(dest[i] == VAL(TYPE, prev, i + 50), #NAME "_put: dest[%d] = %g", i,  \
                         (double)dest[i]);                                                    \
        /* get into a local destination */                                                    \
        nvshmem_##NAME##_get(local, src, N, next);                                            \
        for (int i = 0; i < N; i++)                                                           \
            PE_CHECK_MSG(local[i] == VAL(TYPE, next, i), #NAME "_get: local[%d] = %g", i,     \
                         (double)local[i]);                                                   \
        /* p: every PE writes its own slot on every PE */                                     \
        for (int q = 0; q < n; q++)                                                           \
            nvshmem_##NAME##_p(&slots[me], VAL(TYPE, me, 3), q);                              \
        nvshmem_barrier_all();                                                                \
        for (int q = 0; q < n; q++)                                                           \
            PE_CHECK_MSG(slots[q] == VAL(TYPE, q, 3), #NAME "_p: slot of PE %d = %g", q,      \
                         (double)slots[q]);                                                   \
        for (int q = n; q < MAX_PES; q++)                                                     \
            PE_CHECK_MSG(slots[q] == (TYPE)0, #NAME "_p: unused slot %d = %g", q,             \
                         (double)slots[q]);                                                   \
        /* g: every element of every PE */                                                    \
        for (int q = 0; q < n; q++)                                                           \
            for (int i = 0; i < N; i++) {                                                     \
                TYPE v = nvshmem_##NAME##_g(&src[i], q);                                      \
                PE_CHECK_MSG(v == VAL(TYPE, q, i), #NAME "_g(src[%d], PE %d) = %g", i, q,     \
                             (double)v);                                                      \
            }                                                                                 \
        /* put_nbi then quiet: complete before the barrier (which would also complete it) */  \
        TYPE out[N];                                                                          \
        for (int i = 0; i < N; i++)                                                           \
            out[i] = VAL(TYPE, me, i + 20);                                                   \
        nvshmem_##NAME##_put_nbi(dest, out, N, prev);                                         \
        nvshmem_quiet();                                                                      \
        nvshmem_barrier_all();                                                                \
        for (int i = 0; i < N; i++)                                                           \
            PE_CHECK_MSG(dest[i] == VAL(TYPE, next, i + 20), #NAME "_put_nbi: dest[%d] = %g", \
                         i, (double)dest[i]);                                                 \
        /* get_nbi then quiet */                                                              \
        nvshmem_##NAME##_get_nbi(local, src, N, prev);                                        \
        nvshmem_quiet();                                                                      \
        for (int i = 0; i < N; i++)                                                           \
            PE_CHECK_MSG(local[i] == VAL(TYPE, prev, i), #NAME "_get_nbi: local[%d] = %g", i, \
                         (double)local[i]);                                                   \
        /* put to oneself */                                                                  \
        nvshmem_##NAME##_put(dest, src, N, me);                                               \
        for (int i = 0; i < N; i++)                                                           \
            PE_CHECK_MSG(dest[i] == VAL(TYPE, me, i), #NAME "_put to self: dest[%d] = %g", i, \
                         (double)dest[i]);                                                    \
        nvshmem_barrier_all();                                                                \
        nvshmem_free(slots);                                                                  \
        nvshmem_free(src);                                                                    \
        nvshmem_free(dest);                                                                   \
    }
SHMEMU_RMA_TYPES(RMA_TYPED)
#undef RMA_TYPED

static int typed_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
#define CALL(TYPE, NAME) rma_##NAME(me, n);
    SHMEMU_RMA_TYPES(CALL)
#undef CALL
    nvshmem_finalize();
    return 0;
}

static void test_typed_put_get_p_g(void **state)
{
    (void)state;
    run_pes_each(typed_body, NULL);
}

static void test_typed_without_ptr(void **state)
{
    (void)state;
    /* The put path forced (as between GPUs without NVLink): same results. */
    setenv("SHMEMU_NO_PTR", "1", 1);
    run_pes(3, typed_body, NULL);
}

static int unset_no_ptr(void **state)
{
    (void)state;
    unsetenv("SHMEMU_NO_PTR");
    return 0;
}

/* ---- putmem/getmem: odd sizes and offsets, sentinels around --------------------------- */

static unsigned char byte_of(int pe, size_t i, size_t size)
{
    return (unsigned char)((size_t)pe * 7u + i * 13u + size + 1u);
}

static int mem_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    enum { CAP = 8192 + 64, SENTINEL = 0xee };
    unsigned char *buf = nvshmem_malloc(CAP);
    unsigned char *sym_src = nvshmem_malloc(CAP);
    unsigned char *local = malloc(CAP);
    static const struct { size_t size, off; } cases[] = {
        {1, 0}, {7, 3}, {8, 8}, {63, 1}, {4097, 5}, {8192, 0}, {0, 17}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t size = cases[c].size, off = cases[c].off;
        memset(buf, SENTINEL, CAP);
        for (size_t i = 0; i < size; i++)
            local[i] = byte_of(me, i, size);
        nvshmem_barrier_all();
        nvshmem_putmem(buf + off, local, size, next);
        memset(local, 0, size); /* a blocking put's source is free again at once */
        nvshmem_barrier_all();
        size_t bad = 0;
        for (size_t i = 0; i < CAP; i++) {
            unsigned char want = (i >= off && i < off + size) ? byte_of(prev, i - off, size)
                                                              : SENTINEL;
            if (buf[i] != want && bad++ == 0)
                PE_CHECK_MSG(0, "putmem(%zu bytes at +%zu): byte %zu is 0x%02x, want 0x%02x",
                             size, off, i, buf[i], want);
        }
        /* getmem: read next's buf (which prev-of-next = me wrote) */
        memset(local, SENTINEL, CAP);
        nvshmem_getmem(local + 1, buf + off, size, next);
        for (size_t i = 0; i < size + 2; i++) {
            unsigned char want = (i >= 1 && i < size + 1) ? byte_of(me, i - 1, size) : SENTINEL;
            if (local[i] != want) {
                PE_CHECK_MSG(0, "getmem(%zu bytes at +%zu): byte %zu is 0x%02x, want 0x%02x",
                             size, off, i, local[i], want);
                break;
            }
        }
        nvshmem_barrier_all();
    }
    /* putmem_nbi / getmem_nbi of a large block, completed by quiet. */
    enum { BIG = 1 << 20 };
    unsigned char *big = nvshmem_malloc(BIG);
    unsigned char *big_src = malloc(BIG);
    for (size_t i = 0; i < BIG; i++)
        big_src[i] = byte_of(me, i, BIG);
    nvshmem_barrier_all();
    nvshmem_putmem_nbi(big, big_src, BIG, next);
    nvshmem_quiet();
    nvshmem_barrier_all();
    for (size_t i = 0; i < BIG; i++) {
        if (big[i] != byte_of(prev, i, BIG)) {
            PE_CHECK_MSG(0, "putmem_nbi 1 MiB: byte %zu is 0x%02x", i, big[i]);
            break;
        }
    }
    memset(big_src, 0, BIG);
    nvshmem_getmem_nbi(big_src, big, BIG, next);
    nvshmem_quiet();
    for (size_t i = 0; i < BIG; i++) {
        if (big_src[i] != byte_of(me, i, BIG)) {
            PE_CHECK_MSG(0, "getmem_nbi 1 MiB: byte %zu is 0x%02x", i, big_src[i]);
            break;
        }
    }
    nvshmem_barrier_all();
    free(big_src);
    nvshmem_free(big);
    free(local);
    nvshmem_free(sym_src);
    nvshmem_free(buf);
    nvshmem_finalize();
    return 0;
}

static void test_putmem_getmem(void **state)
{
    (void)state;
    run_pes_each(mem_body, NULL);
}

/* ---- strided iput/iget --------------------------------------------------------------- */

static int strided_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me - 1 + n) % n;
    enum { LEN = 64 };
    int *dest = nvshmem_malloc(LEN * sizeof(int));
    int *src = nvshmem_malloc(LEN * sizeof(int));
    double *ddest = nvshmem_malloc(LEN * sizeof(double));
    int local[LEN];
    for (int i = 0; i < LEN; i++) {
        dest[i] = -1;
        src[i] = me * 1000 + i;
        ddest[i] = -1.0;
        local[i] = me * 1000 + i;
    }
    nvshmem_barrier_all();
    /* dest[3k] on next = local[2k], k < 5; nothing else changes. */
    nvshmem_int_iput(dest, local, 3, 2, 5, next);
    double dsrc[LEN];
    for (int i = 0; i < LEN; i++)
        dsrc[i] = me + i * 0.25;
    nvshmem_double_iput(ddest, dsrc, 1, 4, 7, next); /* ddest[k] = dsrc[4k], k < 7 */
    nvshmem_barrier_all();
    for (int i = 0; i < LEN; i++) {
        int want = (i % 3 == 0 && i / 3 < 5) ? prev * 1000 + (i / 3) * 2 : -1;
        PE_CHECK_MSG(dest[i] == want, "int_iput: dest[%d] = %d, want %d", i, dest[i], want);
        double dwant = i < 7 ? prev + (4 * i) * 0.25 : -1.0;
        PE_CHECK_MSG(ddest[i] == dwant, "double_iput: ddest[%d] = %g, want %g", i, ddest[i],
                     dwant);
    }
    /* local[2k] = src[3k] of next, k < 6. */
    for (int i = 0; i < LEN; i++)
        local[i] = -7;
    nvshmem_int_iget(local, src, 2, 3, 6, next);
    for (int i = 0; i < LEN; i++) {
        int want = (i % 2 == 0 && i / 2 < 6) ? next * 1000 + (i / 2) * 3 : -7;
        PE_CHECK_MSG(local[i] == want, "int_iget: local[%d] = %d, want %d", i, local[i], want);
    }
    /* Sized strided forms: iput32 / iget64, and stride 1 equals a plain put. */
    nvshmem_barrier_all();
    for (int i = 0; i < LEN; i++)
        dest[i] = -1;
    nvshmem_barrier_all();
    uint32_t w32[LEN];
    for (int i = 0; i < LEN; i++)
        w32[i] = (uint32_t)(me * 100 + i);
    nvshmem_iput32(dest, w32, 2, 1, 10, next); /* dest[2k] = w32[k], k < 10 */
    nvshmem_barrier_all();
    for (int i = 0; i < LEN; i++) {
        int want = (i % 2 == 0 && i / 2 < 10) ? prev * 100 + i / 2 : -1;
        PE_CHECK_MSG(dest[i] == want, "iput32: dest[%d] = %d, want %d", i, dest[i], want);
    }
    uint64_t g64[LEN];
    memset(g64, 0, sizeof g64);
    /* src as 64-bit words: word k of next holds ints 2k and 2k+1 of next. */
    nvshmem_iget64(g64, src, 1, 3, 5, next); /* g64[k] = word 3k of next */
    for (int k = 0; k < 5; k++) {
        uint64_t want;
        int pair[2] = {next * 1000 + 6 * k, next * 1000 + 6 * k + 1};
        memcpy(&want, pair, sizeof want);
        PE_CHECK_EQ_U64(g64[k], want);
    }
    PE_CHECK_EQ_U64(g64[5], 0);
    nvshmem_barrier_all();
    nvshmem_free(ddest);
    nvshmem_free(src);
    nvshmem_free(dest);
    nvshmem_finalize();
    return 0;
}

static void test_iput_iget_strides(void **state)
{
    (void)state;
    run_pes_each(strided_body, NULL);
}

/* ---- sized put8 ... put128 ----------------------------------------------------------- */

static void fill_bytes(void *p, size_t bytes, int pe, int salt)
{
    unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(pe * 31 + (int)i * 7 + salt);
}

#define SIZED(BITS, TYPE)                                                                     \
    static void sized_##BITS(int me, int n)                                                   \
    {                                                                                         \
        enum { N = 11, E = sizeof(TYPE) };                                                    \
        int next = (me + 1) % n, prev = (me - 1 + n) % n;                                     \
        TYPE *dest = nvshmem_calloc(2 * N, E);                                                \
        TYPE *src = nvshmem_malloc(N * E);                                                    \
        TYPE out[N], in[2 * N], want[2 * N];                                                  \
        fill_bytes(src, N * E, me, BITS);                                                     \
        fill_bytes(out, N * E, me, BITS + 1);                                                 \
        nvshmem_barrier_all();                                                                \
        nvshmem_put##BITS(dest, out, N, next);                                                \
        nvshmem_barrier_all();                                                                \
        fill_bytes(want, N * E, prev, BITS + 1);                                              \
        memset((char *)want + N * E, 0, N * E);                                               \
        PE_CHECK_MEM(dest, want, 2 * N * E);                                                  \
        nvshmem_get##BITS(in, src, N, next);                                                  \
        fill_bytes(want, N * E, next, BITS);                                                  \
        PE_CHECK_MEM(in, want, N * E);                                                        \
        /* _nbi forms */                                                                      \
        nvshmem_barrier_all();                                                                \
        fill_bytes(out, N * E, me, BITS + 2);                                                 \
        nvshmem_put##BITS##_nbi(dest + N, out, N, next);                                      \
        nvshmem_get##BITS##_nbi(in, src, N, prev);                                            \
        nvshmem_quiet();                                                                      \
        fill_bytes(want, N * E, prev, BITS);                                                  \
        PE_CHECK_MEM(in, want, N * E);                                                        \
        nvshmem_barrier_all();                                                                \
        fill_bytes((char *)want + N * E, N * E, prev, BITS + 2);                              \
        fill_bytes(want, N * E, prev, BITS + 1);                                              \
        PE_CHECK_MEM(dest, want, 2 * N * E);                                                  \
        /* strided: dest[2k] = out[k] (k < 4) on next; in[k] = src[3k] of next (k < 3) */     \
        nvshmem_barrier_all();                                                                \
        memset(dest, 0, 2 * N * E);                                                           \
        nvshmem_barrier_all();                                                                \
        nvshmem_iput##BITS(dest, out, 2, 1, 4, next);                                         \
        nvshmem_barrier_all();                                                                \
        TYPE prev_out[N];                                                                     \
        fill_bytes(prev_out, N * E, prev, BITS + 2);                                          \
        memset(want, 0, 2 * N * E);                                                           \
        for (int k = 0; k < 4; k++)                                                           \
            want[2 * k] = prev_out[k];                                                        \
        PE_CHECK_MEM(dest, want, 2 * N * E);                                                  \
        TYPE next_src[N];                                                                     \
        fill_bytes(next_src, N * E, next, BITS);                                              \
        memset(in, 0, sizeof in);                                                             \
        nvshmem_iget##BITS(in, src, 1, 3, 3, next);                                           \
        memset(want, 0, sizeof want);                                                         \
        for (int k = 0; k < 3; k++)                                                           \
            want[k] = next_src[3 * k];                                                        \
        PE_CHECK_MEM(in, want, 2 * N * E);                                                    \
        nvshmem_barrier_all();                                                                \
        nvshmem_free(src);                                                                    \
        nvshmem_free(dest);                                                                   \
    }
SHMEMU_SIZED_TYPES(SIZED)
#undef SIZED

static int sized_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
#define CALL(BITS, TYPE) sized_##BITS(me, n);
    SHMEMU_SIZED_TYPES(CALL)
#undef CALL
    nvshmem_finalize();
    return 0;
}

static void test_sized_put8_to_put128(void **state)
{
    (void)state;
    run_pes_each(sized_body, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typed_put_get_p_g),
        cmocka_unit_test_teardown(test_typed_without_ptr, unset_no_ptr),
        cmocka_unit_test(test_putmem_getmem),
        cmocka_unit_test(test_iput_iget_strides),
        cmocka_unit_test(test_sized_put8_to_put128),
    };
    return cmocka_run_group_tests_name("rma", tests, NULL, NULL);
}
