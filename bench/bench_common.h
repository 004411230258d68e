/*
 * bench_common.h: timing, pinning and statistics shared by the bench/ programs.
 *
 * Header-only (static functions), so every benchmark builds from its own .c file with any
 * of the compilers it needs (gcc for shmemu and the raw floor, mpicc, oshcc).
 *
 * Ping-pong protocol shared by every variant: PING_WARMUP round trips untimed, then
 * ITERS round trips timed in batches of PING_BATCH; each batch gives one per-round-trip
 * time (batch time / PING_BATCH), and the report is the median and the minimum over the
 * batches. Batches absorb the cost of reading the clock; the median over batches discards
 * the batches that a noisy neighbour on this shared machine interrupted.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PING_WARMUP 20000L
#define PING_BATCH 1000L
#define PING_ITERS_DEFAULT 200000L

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Timed round trips: BENCH_ITERS (a multiple of PING_BATCH is used), default 200000. */
static inline long bench_ping_iters(void)
{
    const char *s = getenv("BENCH_ITERS");
    long n = PING_ITERS_DEFAULT;
    if (s && *s) {
        char *end = NULL;
        n = strtol(s, &end, 10);
        if (*end != '\0' || n < PING_BATCH) {
            fprintf(stderr, "bench: BENCH_ITERS=%s: need an integer >= %ld\n", s, PING_BATCH);
            exit(2);
        }
    }
    return n / PING_BATCH * PING_BATCH;
}

/* Pins the calling thread to one core; returns 0 or exits with a message. */
static inline int bench_pin_self(int core)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc != 0) {
        fprintf(stderr, "bench: pthread_setaffinity_np(core %d): %s\n", core, strerror(rc));
        exit(2);
    }
    return 0;
}

/* The single core this thread may run on, or -1 when it may run on several. */
static inline int bench_bound_core(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v in place). */
static inline double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline double bench_min(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

/* Prints the machine-readable result line of a ping-pong; per_rt_ns[i] is batch i's
 * nanoseconds per round trip (the array is sorted). */
static inline void bench_report_pingpong(const char *name, double *per_rt_ns, size_t batches)
{
    double mn = bench_min(per_rt_ns, batches);
    double med = bench_median(per_rt_ns, batches);
    printf("pingpong %s median_ns=%.1f min_ns=%.1f iters=%ld\n", name, med, mn,
           (long)batches * PING_BATCH);
    fflush(stdout);
}

#endif
