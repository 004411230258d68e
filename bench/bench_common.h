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

/* ---- memory, read from /proc (bench/emu_costs.c and bench/cuda_costs.cu) ------------------ */

/* The value in KiB of one field of /proc/self/status ("VmSize", "VmRSS", "VmHWM"), or -1. */
static inline long bench_status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            kb = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* How many mappings the process has (lines of /proc/self/maps), or -1. Linux refuses new
 * ones beyond vm.max_map_count (bench_max_map_count), and every fiber stack is two (its
 * guard page and itself). */
static inline long bench_map_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    long n = 0;
    int c, last = '\n';
    while ((c = getc(f)) != EOF) {
        n += c == '\n';
        last = c;
    }
    fclose(f);
    return n + (last != '\n');
}

static inline long bench_max_map_count(void)
{
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long n = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &n) != 1)
            n = -1;
        fclose(f);
    }
    return n;
}

static int bench_cmp_uptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/* The mappings of /proc/self/smaps that hold at least one of addrs[0..n) (sorted in place):
 * how many there are, and the sums of their Size and Rss lines, in KiB. Returns 0, or -1 when
 * smaps cannot be read. Used on fiber stacks: each fiber's stack is a mapping of its own,
 * split from its neighbours by a PROT_NONE guard page, so the sum over the stacks that hold
 * the fibers' locals is what those stacks reserve (Size) and what they touched (Rss). */
static inline int bench_smaps_sum(uintptr_t *addrs, size_t n, long *vmas, long *size_kb,
                                  long *rss_kb)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL)
        return -1;
    qsort(addrs, n, sizeof *addrs, bench_cmp_uptr);
    *vmas = *size_kb = *rss_kb = 0;
    char line[512];
    int in = 0; /* the current mapping holds one of addrs */
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        long kb;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            size_t a = 0, b = n; /* the first address >= lo */
            while (a < b) {
                size_t m = a + (b - a) / 2;
                if (addrs[m] < lo)
                    a = m + 1;
                else
                    b = m;
            }
            in = a < n && addrs[a] < hi;
            *vmas += in;
        } else if (in && sscanf(line, "Size: %ld kB", &kb) == 1) {
            *size_kb += kb;
        } else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1) {
            *rss_kb += kb;
        }
    }
    fclose(f);
    return 0;
}

/* ---- the 1024-thread kernels of bench/emu_costs.c and bench/cuda_costs.cu ------------------ */

/* What thread t of a block of `threads` ends with after `rounds` rounds of a timed kernel:
 * which 0: the __syncthreads kernel (each round adds the neighbour's slot, i + (t+1) mod
 * threads); 1: the __shfl_sync rotation (lane l takes lane l+1's value); 2: the
 * __shfl_down_sync kernel (lane l takes lane l+1's value plus l+1; lane 31 keeps its own). */
static inline long bench_timed_want(int which, long rounds, int t, int threads)
{
    long base = t & ~31, lane = t & 31, v = 0;
    if (which == 0)
        return rounds * (rounds - 1) / 2 + rounds * ((t + 1) % threads);
    if (which == 1)
        return base + (lane + rounds) % 32;
    for (long k = 0; k < rounds; k++) /* the lanes the value passed through, and where it began */
        v += (lane + k < 31 ? lane + k : 31) + 1;
    return v + base + (lane + rounds < 31 ? lane + rounds : 31);
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
