/*
 * pe_check.h: assertions for PE bodies, and helpers that start PEs from a cmocka test.
 *
 * cmocka's assert_* longjmp back into the test runner, which is only valid on the thread that
 * runs the test. A PE body runs on a PE thread, so it must not call them. Instead a body
 * checks with PE_CHECK* (records a failure for the calling PE and carries on, returning
 * false), and the test's own thread calls pe_check_assert_clean() once shmemu_launch has
 * returned: it prints every recorded failure and fails the test.
 *
 * A body that detects a failure should keep taking part in the collectives that the other
 * PEs expect, so that one wrong value does not turn into a hang.
 *
 *   static int body(void *arg) {
 *       nvshmem_init();
 *       PE_CHECK_EQ_U64(nvshmem_n_pes(), 4);
 *       nvshmem_finalize();
 *       return 0;
 *   }
 *   static void test_x(void **state) { run_pes(4, body, NULL); }
 *
 * Misuse scenarios (calls that must abort with a message) run in a forked child through
 * expect_child_failure(), which checks the exit status and the message on stderr.
 */
#ifndef SHMEMU_TESTS_PE_CHECK_H
#define SHMEMU_TESTS_PE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The PE counts every suite runs its tests at. */
#define PE_COUNTS_MAX 4
extern const int pe_counts[PE_COUNTS_MAX]; /* 1, 2, 3, 8 */
/* How many of pe_counts the suites run: all four natively and under ASan and TSan; the first
 * three (1, 2 and 3 PEs) under valgrind, which runs a process's threads one at a time, so 8
 * PE threads cost more than the other three counts together, and helgrind and DRD find the
 * runtime's races between any two PEs at 2 and 3 PEs already (docs/checking.md, "Cost"). */
int pe_counts_n(void);
#define PE_COUNTS_N (pe_counts_n())

/* True when running under valgrind: suites scale their loop counts down with it. */
bool pe_check_under_valgrind(void);
/* Zeroed memory that every PE of every job started from this program reads and writes at
 * the same address, whatever the backend: on the process backend PEs 1..N-1 are forked
 * processes, so what a PE body writes for the test thread to read must live here (the
 * failure table does). Aborts when it cannot map. */
void *pe_check_shared_calloc(size_t bytes);
/* Unmaps what pe_check_shared_calloc(bytes) returned (NULL: nothing). */
void pe_check_shared_free(void *p, size_t bytes);
/* True under helgrind or DRD, or in a ThreadSanitizer build: a test leaves out what the
 * runtime's model reports as a race on purpose (a plain put over a word another PE polls). */
bool pe_check_under_race_checker(void);
/* True under valgrind or in a sanitizer build: malloc is not glibc's, so glibc's heap
 * counts (mallinfo2) do not see it. */
bool pe_check_own_allocator(void);
/* n natively, max(1, n / div) under valgrind. */
int pe_check_scaled(int n, int div);

/* ---- recording failures on PE threads ------------------------------------------------ */

bool pe_check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ok, or records the failure described by fmt and returns false. */
bool pe_check_true(bool ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool pe_check_eq_u64(const char *file, int line, const char *a_text, const char *b_text,
                     uint64_t a, uint64_t b);
bool pe_check_eq_i64(const char *file, int line, const char *a_text, const char *b_text,
                     int64_t a, int64_t b);
/* Exact comparison of the bit patterns (so -0.0 != 0.0 and NaN == the same NaN). */
bool pe_check_eq_bits_double(const char *file, int line, const char *a_text,
                             const char *b_text, double a, double b);
bool pe_check_eq_bits_float(const char *file, int line, const char *a_text, const char *b_text,
                            float a, float b);
bool pe_check_eq_ptr(const char *file, int line, const char *a_text, const char *b_text,
                     const void *a, const void *b);
bool pe_check_mem(const char *file, int line, const char *a_text, const char *b_text,
                  const void *a, const void *b, size_t bytes);

/* Each evaluates to true when the check holds, so a body can skip what depends on it. */
#define PE_CHECK(cond) pe_check_true((cond) ? true : false, __FILE__, __LINE__, "%s", #cond)
/* PE_CHECK with a message: PE_CHECK_MSG(x == 3, "iteration %d", i). */
#define PE_CHECK_MSG(cond, ...)                                                               \
    pe_check_true((cond) ? true : false, __FILE__, __LINE__, __VA_ARGS__)
#define PE_CHECK_EQ_U64(a, b)                                                                 \
    pe_check_eq_u64(__FILE__, __LINE__, #a, #b, (uint64_t)(a), (uint64_t)(b))
#define PE_CHECK_EQ_I64(a, b)                                                                 \
    pe_check_eq_i64(__FILE__, __LINE__, #a, #b, (int64_t)(a), (int64_t)(b))
#define PE_CHECK_EQ_DBL_BITS(a, b) pe_check_eq_bits_double(__FILE__, __LINE__, #a, #b, (a), (b))
#define PE_CHECK_EQ_FLT_BITS(a, b) pe_check_eq_bits_float(__FILE__, __LINE__, #a, #b, (a), (b))
#define PE_CHECK_EQ_PTR(a, b) pe_check_eq_ptr(__FILE__, __LINE__, #a, #b, (a), (b))
#define PE_CHECK_MEM(a, b, bytes) pe_check_mem(__FILE__, __LINE__, #a, #b, (a), (b), (bytes))

/* Number of failures recorded since the last reset. */
int pe_check_failures(void);
void pe_check_reset(void);
/* Main (test) thread only: prints the recorded failures, resets, and fails the cmocka test
 * if there were any. `context` (may be NULL) is printed with them, e.g. "3 PEs". */
void pe_check_assert_clean(const char *context);

/* ---- starting PEs from a test -------------------------------------------------------- */

/* Runs body on n PEs (shmemu_launch), then asserts that no PE recorded a failure and that
 * every PE returned 0. Returns shmemu_launch's result (0 when it gets that far). */
int run_pes(int n, int (*body)(void *), void *arg);
/* run_pes at each of pe_counts. */
void run_pes_each(int (*body)(void *), void *arg);
/* run_pes with the process's stderr captured into out (NUL-terminated, truncated to
 * out_len), for bodies whose calls are expected to complain. The capture is echoed when a
 * check fails. */
int run_pes_capture(int n, int (*body)(void *), void *arg, char *out, size_t out_len);
/* Fails the test (printing text) unless text contains needle. */
void assert_contains(const char *text, const char *needle);

/* Runs the scenario on n_pes PEs in a forked child whose stderr is captured, and asserts
 * that the child failed (non-zero exit, or SIGABRT) within the time limit and that its
 * stderr contains expected_substring. The scenario is the PE body: it calls nvshmem_init
 * itself. The child's stderr is printed when the check fails. */
void expect_child_failure(void (*scenario)(void *), void *arg, int n_pes,
                          const char *expected_substring);
/* The same, where any of the NULL-terminated alternatives may appear (for races between
 * PEs over which one reports first). */
void expect_child_failure_any(void (*scenario)(void *), void *arg, int n_pes,
                              const char *const *alternatives);

/* The general form: the child runs fn(arg) (which may launch PEs itself, set environment
 * variables first, ...) and exits with its return value. Captures the child's stderr into
 * out (NUL-terminated, truncated to out_len) and returns the raw wait status, or -1 when the
 * child had to be killed after limit_s seconds (elapsed time in *elapsed_s if not NULL). */
int run_child(int (*fn)(void *), void *arg, double limit_s, char *out, size_t out_len,
              double *elapsed_s);

/* Seconds a forked child may run before it is killed: 60 natively, 300 under valgrind. */
double child_time_limit(void);

#endif
