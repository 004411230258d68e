/*
 * emu_dialect_host.h: the host side of tests/emu_dialect_kernels.c, shared by both builds:
 * where each argument lives in one 8 KiB buffer, the values written before a launch, and
 * every result checked after it.
 *
 *   tests/test_emu_dialect.c      runs the kernels in the emulator (cmocka)
 *   tests/cuda/dialect_gpu.c      runs them on a GPU (nvcc -x cu; `make gpu-dialect`)
 *
 * The includer defines DIALECT_CHECK(cond, fmt, ...) to record a failed check. Host code
 * in the common subset of C and C++, like the kernels.
 */
#ifndef EMU_DIALECT_HOST_H
#define EMU_DIALECT_HOST_H

#include <stdint.h>
#include <string.h>

#define DIALECT_BUF_BYTES 8192
enum { DIALECT_BLOCKS = 4, DIALECT_THREADS = 64, DIALECT_MORE_BLOCKS = 2,
       DIALECT_MORE_THREADS = 64 /* 8 x 4 x 2 */, DIALECT_TIMER_BLOCKS = 4,
       DIALECT_TIMER_THREADS = 32 };

/* ---- dialect_kernel ---------------------------------------------------------------------- */

static void dialect_layout(char *mem, dialect_args *a)
{
    memset(a, 0, sizeof *a);
    a->out = (int *)mem;                                /* blocks * threads ints: 1024 bytes */
    a->votes = (unsigned *)(mem + 1024);                /* 8 */
    a->counter = (int *)(mem + 1088);                   /* 2 */
    a->wide = (unsigned long long *)(mem + 1104);
    a->fsum = (float *)(mem + 1112);
    a->flag = (uint32_t *)(mem + 1120);
    a->handoff = (int *)(mem + 1128);                   /* 2 */
    a->bulk_src = (int *)(mem + 2048);                  /* 64 */
    a->bulk_out = (int *)(mem + 4096);                  /* 64 */
    a->use_tma = 1;
}

/* Writes the inputs through a layout over host memory. */
static void dialect_init(const dialect_args *a)
{
    memset(a->out, 0, DIALECT_BUF_BYTES);
    for (int i = 0; i < 64; i++)
        a->bulk_src[i] = 3 * i + 1;
    a->counter[1] = -1;
}

static void dialect_check(const dialect_args *a)
{
    const int blocks = DIALECT_BLOCKS, threads = DIALECT_THREADS, n = blocks * threads;
    for (int g = 0; g < n; g++) {
        int b = g / threads, t = g % threads;
        int want = (b * threads + (t + 1) % threads) * 2 + g;
        DIALECT_CHECK(a->out[g] == want, "out[%d] = %d, want %d", g, a->out[g], want);
    }
    for (int w = 0; w < n / 32; w++)
        DIALECT_CHECK(a->votes[w] == 0x55555555u, "votes[%d] = %#x", w, a->votes[w]);
    DIALECT_CHECK(a->counter[0] == n, "counter = %d, want %d", a->counter[0], n);
    DIALECT_CHECK(a->counter[1] == n - 1, "max = %d, want %d", a->counter[1], n - 1);
    DIALECT_CHECK(*a->wide == 2ull * (unsigned long long)n, "wide = %llu", *a->wide);
    DIALECT_CHECK(*a->fsum == 0.5f * (float)n, "fsum = %g", (double)*a->fsum);
    DIALECT_CHECK(a->handoff[1] == 100, "handoff = %d, want 100", a->handoff[1]);
    for (int i = 0; i < 64; i++)
        DIALECT_CHECK(a->bulk_out[i] == 3 * i + 1, "bulk_out[%d] = %d", i, a->bulk_out[i]);
}

/* ---- dialect_more_kernel ----------------------------------------------------------------- */

static void dialect_more_layout(char *mem, dialect_more_args *a)
{
    a->ids = (int *)mem;                                /* n ints: 512 bytes */
    a->shuffles = (int *)(mem + 512);                   /* n ints */
    a->u32 = (unsigned *)(mem + 1024);                  /* 7 */
    a->i32 = (int *)(mem + 1056);                       /* 2 */
    a->i64 = (long long *)(mem + 1088);                 /* 3 */
    a->u64 = (unsigned long long *)(mem + 1120);        /* 6 */
    a->f32 = (float *)(mem + 1184);
    a->f64 = (double *)(mem + 1192);
    a->sys = (unsigned long long *)(mem + 1216);        /* 3 */
    a->mbar_ok = (int *)(mem + 1248);                   /* blocks */
    a->bulk_dst = (int *)(mem + 2048);                  /* blocks * 64 ints */
}

static void dialect_more_init(const dialect_more_args *a)
{
    memset(a->ids, 0, DIALECT_BUF_BYTES);
    a->u32[5] = 0xffffffffu;
    a->i32[0] = INT32_MAX;
    a->i32[1] = INT32_MIN;
    a->u64[4] = ~0ull;
}

static void dialect_more_check(const dialect_more_args *a)
{
    const int blocks = DIALECT_MORE_BLOCKS, threads = DIALECT_MORE_THREADS;
    const int n = blocks * threads;
    for (int g = 0; g < n; g++) {
        int b = g / threads, t = g % threads, lane = t & 31;
        int want_id = t + 1000 * b + 100000 * blocks;
        DIALECT_CHECK(a->ids[g] == want_id, "ids[%d] = %d, want %d", g, a->ids[g], want_id);
        int up = lane == 0 ? 0 : lane - 1, down = lane + 2 < 32 ? lane + 2 : lane;
        int want = up + 100 * down + 10000 + 20000 + 40000 + 80000 + 320000;
        DIALECT_CHECK(a->shuffles[g] == want, "shuffles[%d] = %d, want %d", g, a->shuffles[g],
                      want);
        DIALECT_CHECK(a->bulk_dst[g] == 3 * g, "bulk_dst[%d] = %d", g, a->bulk_dst[g]);
    }
    DIALECT_CHECK(a->u32[0] == (unsigned)(n % 8), "inc = %u (atomicInc wraps at limit 7)",
                  a->u32[0]);
    DIALECT_CHECK(a->u32[1] >= 1 && a->u32[1] <= (unsigned)n, "cas value %u", a->u32[1]);
    DIALECT_CHECK(a->u32[2] == 1, "cas winners %u, want exactly 1", a->u32[2]);
    DIALECT_CHECK(a->u32[3] < (unsigned)n, "exch %u", a->u32[3]);
    DIALECT_CHECK(a->u32[4] == 0xffffffffu, "or %#x", a->u32[4]);
    DIALECT_CHECK(a->u32[5] == 0, "and %#x", a->u32[5]);
    DIALECT_CHECK(a->u32[6] == 128, "xor %u, want 1^2^...^128 = 128", a->u32[6]);
    DIALECT_CHECK(a->i32[0] == -7, "min %d", a->i32[0]);
    DIALECT_CHECK(a->i32[1] == 0, "max %d", a->i32[1]);
    DIALECT_CHECK(a->i64[0] == -(long long)(n - 1) * 4000000000LL, "min64 %lld", a->i64[0]);
    DIALECT_CHECK(a->i64[1] == (long long)(n - 1) * 4000000000LL, "max64 %lld", a->i64[1]);
    DIALECT_CHECK(a->i64[2] == (long long)n * 3000000000LL, "add64 %lld", a->i64[2]);
    DIALECT_CHECK(a->u64[0] >= 1 && a->u64[0] <= (unsigned long long)n, "cas64 %llu",
                  a->u64[0]);
    DIALECT_CHECK(a->u64[1] == 1, "cas64 winners %llu", a->u64[1]);
    DIALECT_CHECK((a->u64[2] & ((1ull << 33) - 1)) == 0 && (a->u64[2] >> 33) < (unsigned)n,
                  "exch64 %#llx", a->u64[2]);
    DIALECT_CHECK(a->u64[3] == ~0ull, "or64 %#llx", a->u64[3]);
    DIALECT_CHECK(a->u64[4] == 0, "and64 %#llx", a->u64[4]);
    DIALECT_CHECK(a->u64[5] == 128, "xor64 %llu", a->u64[5]);
    DIALECT_CHECK(a->f32[0] == 2.5f, "exch float %g", (double)a->f32[0]);
    DIALECT_CHECK(a->f64[0] == 0.25 * n, "add double %g", a->f64[0]);
    DIALECT_CHECK(a->sys[2] == 77, "sys-scope handoff saw %llu, want 77", a->sys[2]);
    for (int b = 0; b < blocks; b++)
        DIALECT_CHECK(a->mbar_ok[b] == 3, "mbarrier phases of block %d: %d, want 3", b,
                      a->mbar_ok[b]);
}

/* ---- dialect_timer_kernel ---------------------------------------------------------------- */

static void dialect_timer_layout(char *mem, dialect_timer_args *a)
{
    a->t = (uint64_t *)mem; /* 2 launches x blocks x 3 stamps: 192 bytes */
}

static void dialect_timer_init(const dialect_timer_args *a)
{
    memset(a->t, 0, 2 * 3 * DIALECT_TIMER_BLOCKS * sizeof(uint64_t));
}

/* globaltimer() never goes backwards: two reads in a row, reads ordered by a grid barrier
 * (any blocks), and reads ordered by stream order (the second launch after the first). */
static void dialect_timer_check(const dialect_timer_args *a)
{
    const int nb = DIALECT_TIMER_BLOCKS;
    for (int l = 0; l < 2; l++) {
        const uint64_t *t = a->t + 3 * nb * l;
        for (int b = 0; b < nb; b++) {
            const uint64_t *s = t + 3 * b;
            DIALECT_CHECK(s[0] != 0, "launch %d block %d: globaltimer() read 0", l, b);
            DIALECT_CHECK(s[1] >= s[0], "launch %d block %d: second read %llu before first %llu",
                          l, b, (unsigned long long)s[1], (unsigned long long)s[0]);
            for (int c = 0; c < nb; c++)
                DIALECT_CHECK(t[3 * c + 2] >= s[1], "launch %d: block %d after grid_sync read "
                              "%llu, before block %d's %llu from before it", l, c,
                              (unsigned long long)t[3 * c + 2], b, (unsigned long long)s[1]);
        }
    }
    for (int b = 0; b < nb; b++)
        for (int c = 0; c < nb; c++)
            DIALECT_CHECK(a->t[3 * nb + 3 * c] >= a->t[3 * b + 2], "second launch block %d "
                          "read %llu, before the first launch's block %d (%llu)", c,
                          (unsigned long long)a->t[3 * nb + 3 * c], b,
                          (unsigned long long)a->t[3 * b + 2]);
}

#endif
