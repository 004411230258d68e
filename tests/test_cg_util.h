/*
 * test_cg_util.h: helpers shared by the cg suites (test_cg_*.c): a seeded generator of
 * their own (so no suite depends on rand()), shuffles, and reading the data files.
 * Header-only, so that each suite stays one file to build.
 */
#ifndef TEST_CG_UTIL_H
#define TEST_CG_UTIL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cg/matrix.h"
#include "cg/plan.h"
#include "cg/solve.h"
#include "cg/xsum.h"

/* CGT_TSAN: 1 in a ThreadSanitizer build (make check-tsan), where, as under valgrind, the
 * suites cut their slowest cases and skip runs of planted races (TSan would report them and
 * fail the run). */
#if defined(__SANITIZE_THREAD__)
#define CGT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CGT_TSAN 1
#endif
#endif
#ifndef CGT_TSAN
#define CGT_TSAN 0
#endif

/* Forks a child for a run in checking mode (a report aborts the process): makes the pipe
 * fd (the child writes its results to fd[1]), and in the child closes fd[0] and sets
 * SHMEMU_CHECK_NBI=1, SHMEMU_CHECK_SEED=5. Returns fork's value. */
static inline pid_t cgt_fork_checking(int fd[2])
{
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        setenv("SHMEMU_CHECK_NBI", "1", 1);
        setenv("SHMEMU_CHECK_SEED", "5", 1);
    }
    return pid;
}

/* SplitMix64 stream: *state advances by the golden-ratio step. */
static inline uint64_t cgt_next(uint64_t *state)
{
    return cg_hash(0x5eed, (*state)++);
}

/* Uniform in [0, n). */
static inline uint64_t cgt_below(uint64_t *state, uint64_t n)
{
    return cgt_next(state) % n;
}

/* Fisher-Yates shuffle of n elements of size bytes each. */
static inline void cgt_shuffle(void *base, size_t n, size_t size, uint64_t *state)
{
    char *b = base, tmp[64];
    assert_true(size <= sizeof tmp);
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)cgt_below(state, i);
        memcpy(tmp, b + (i - 1) * size, size);
        memcpy(b + (i - 1) * size, b + j * size, size);
        memcpy(b + j * size, tmp, size);
    }
}

static inline uint64_t cgt_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Asserts equal bits, printing both values when not. */
#define assert_same_double(a, b)                                                              \
    do {                                                                                      \
        double a_ = (a), b_ = (b);                                                            \
        if (cgt_bits(a_) != cgt_bits(b_))                                                     \
            fail_msg("%s = %.17g (%016llx) but %s = %.17g (%016llx)", #a, a_,                 \
                     (unsigned long long)cgt_bits(a_), #b, b_, (unsigned long long)cgt_bits(b_)); \
    } while (0)

/* The whole of tests/cg_data/NAME, NUL-terminated; *len without the NUL. */
static inline char *cgt_read_data(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CG_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Parses a Matrix Market text that must be accepted. */
static inline void cgt_parse_ok(const char *text, cg_csr *a)
{
    cg_mtx_info info;
    cg_error err;
    err.msg[0] = '\0';
    if (cg_mtx_parse(text, strlen(text), "t.mtx", a, &info, &err) != 0)
        fail_msg("refused: %s", err.msg);
    if (cg_csr_check(a, &err) != 0)
        fail_msg("accepted but broken: %s", err.msg);
}

/* A test problem of the parallel suites: A and b = A x* (x* from seed 7). */
typedef struct cgt_problem {
    cg_csr a;
    double *b;
    const char *name;
} cgt_problem;

/* Problem `which`: 0 poisson1d 50, 1 poisson2d 10, 2 poisson3d 6, 3 (or more) spd40.mtx. */
static inline void cgt_problem_make(cgt_problem *p, int which)
{
    cg_error err;
    int rc = 0;
    switch (which) {
    case 0:
        p->name = "poisson1d 50";
        rc = cg_poisson1d(&p->a, 50, &err);
        break;
    case 1:
        p->name = "poisson2d 10";
        rc = cg_poisson2d(&p->a, 10, &err);
        break;
    case 2:
        p->name = "poisson3d 6";
        rc = cg_poisson3d(&p->a, 6, &err);
        break;
    default: {
        p->name = "spd40.mtx";
        char path[1024];
        snprintf(path, sizeof path, "%s/spd40.mtx", CG_TEST_DATA_DIR);
        cg_mtx_info info;
        rc = cg_mtx_read(path, &p->a, &info, &err);
        break;
    }
    }
    if (rc != 0)
        fail_msg("%s: %s", p->name, err.msg);
    double *xs = malloc((size_t)p->a.n * sizeof *xs);
    p->b = malloc((size_t)p->a.n * sizeof *p->b);
    assert_non_null(xs);
    assert_non_null(p->b);
    cg_manufactured(xs, p->a.n, 7);
    cg_spmv(&p->a, xs, p->b);
    free(xs);
}

static inline void cgt_problem_free(cgt_problem *p)
{
    free(p->b);
    cg_csr_free(&p->a);
}

#endif
