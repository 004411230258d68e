/*
 * put_bw_shmemu.c: nvshmem_putmem bandwidth from PE 0 to PE 1 against memcpy.
 *
 * For every size from 8 B to 64 MiB (powers of 2), PE 0 alternates trials of
 *   memcpy(nvshmem_ptr(dst, 1), src, size)   and   nvshmem_putmem(dst, src, size, 1)
 * (the order swaps every trial). Both copy the same source buffer into the same destination
 * memory, PE 1's copy of a symmetric buffer, so the two differ only in what putmem adds to
 * memcpy. A trial repeats the copy until it has moved about 64 MiB (at most 50000 copies,
 * at least one), and putmem trials end with nvshmem_quiet. Reported per size: the median
 * GB/s (1e9 bytes/s) of each, and the median of the per-pair ratios putmem/memcpy (a pair is
 * two adjacent trials, so a noisy neighbour slows both sides of it).
 *
 * Output, one line per size (putmem_gbs with 5 decimals: through MPI RMA a small put runs at
 * kB/s):
 *   put_bw bytes=<n> memcpy_gbs=<..> putmem_gbs=<..> ratio=<..> trials=<..>
 *
 * A peer that loads and stores cannot reach (nvshmem_ptr NULL: the MPI backend with the PEs
 * on two "nodes", SHMEMU_MPI_NODE_SIZE=1) has no memcpy to compare with: the program then
 * fails, unless BENCH_BW_PUT_ONLY=1, with which it times putmem alone (memcpy_gbs and ratio
 * print as 0) and checks each size's arrival with nvshmem_getmem.
 */
#include <nvshmem.h>
#include <shmemu/pgas.h>

#include "bench_common.h"

#define MIN_BYTES ((size_t)8)
#define MAX_BYTES ((size_t)64 << 20)
#define TRIAL_BYTES ((size_t)64 << 20)
#define MAX_REPS ((size_t)50000)
#define TRIALS_DEFAULT 9
#define TRIALS_MAX 101

/* Keeps the compiler from merging or dropping repeated copies into the same buffer. */
#define COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

static int trials_from_env(void)
{
    const char *s = getenv("BENCH_BW_TRIALS");
    if (!s || !*s)
        return TRIALS_DEFAULT;
    char *end = NULL;
    long n = strtol(s, &end, 10);
    if (*end != '\0' || n < 1 || n > TRIALS_MAX) {
        fprintf(stderr, "put_bw_shmemu: BENCH_BW_TRIALS=%s: need 1..%d\n", s, TRIALS_MAX);
        exit(2);
    }
    return (int)n;
}

static size_t reps_for(size_t bytes)
{
    size_t r = TRIAL_BYTES / bytes;
    return r < 1 ? 1 : r > MAX_REPS ? MAX_REPS : r;
}

/* GB/s of reps copies of `bytes` each. */
static double time_memcpy(void *dst, const void *src, size_t bytes, size_t reps)
{
    uint64_t t0 = bench_now_ns();
    for (size_t r = 0; r < reps; r++) {
        memcpy(dst, src, bytes);
        COMPILER_BARRIER();
    }
    uint64_t t = bench_now_ns() - t0;
    return (double)(bytes * reps) / (double)(t ? t : 1);
}

static double time_putmem(void *dst, const void *src, size_t bytes, size_t reps, int pe)
{
    uint64_t t0 = bench_now_ns();
    for (size_t r = 0; r < reps; r++) {
        nvshmem_putmem(dst, src, bytes, pe);
        COMPILER_BARRIER();
    }
    nvshmem_quiet();
    uint64_t t = bench_now_ns() - t0;
    return (double)(bytes * reps) / (double)(t ? t : 1);
}

/* check_put for a peer without a pointer: clears both ends of its buffer, puts, reads back. */
static int check_put_remote(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    static const unsigned char zero[8];
    unsigned char head[8], tail[8];
    nvshmem_putmem(dst, zero, 8, 1);
    nvshmem_putmem(dst + bytes - 8, zero, 8, 1);
    nvshmem_quiet();
    nvshmem_putmem(dst, src, bytes, 1);
    nvshmem_quiet();
    nvshmem_getmem(head, dst, 8, 1);
    nvshmem_getmem(tail, dst + bytes - 8, 8, 1);
    return memcmp(head, src, 8) != 0 || memcmp(tail, src + bytes - 8, 8) != 0;
}

/* Checks that one putmem of `bytes` lands: clears both ends of the peer's buffer first. */
static int check_put(unsigned char *peer_dst, unsigned char *dst, const unsigned char *src,
                     size_t bytes)
{
    memset(peer_dst, 0, 8);
    memset(peer_dst + bytes - 8, 0, 8);
    nvshmem_putmem(dst, src, bytes, 1);
    nvshmem_quiet();
    return memcmp(peer_dst, src, 8) != 0 || memcmp(peer_dst + bytes - 8, src + bytes - 8, 8) != 0;
}

static int pe_main(void *arg)
{
    int trials = *(const int *)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    bench_pin_self(me);
    unsigned char *src = nvshmem_malloc(MAX_BYTES);
    unsigned char *dst = nvshmem_malloc(MAX_BYTES);
    if (!src || !dst) {
        fprintf(stderr, "put_bw_shmemu: PE %d: nvshmem_malloc(64 MiB) failed\n", me);
        return 1;
    }
    /* Each PE touches its own pages first, as a GPU's memory belongs to its PE. */
    for (size_t i = 0; i < MAX_BYTES; i++)
        src[i] = (unsigned char)(i * 131u + 7u);
    memset(dst, 0, MAX_BYTES);
    nvshmem_barrier_all();

    int bad = 0;
    if (me == 0) {
        unsigned char *peer_dst = nvshmem_ptr(dst, 1);
        const char *put_only_env = getenv("BENCH_BW_PUT_ONLY");
        bool put_only = !peer_dst && put_only_env && strcmp(put_only_env, "1") == 0;
        if (!peer_dst && !put_only) {
            fprintf(stderr, "put_bw_shmemu: nvshmem_ptr(dst, 1) is NULL (SHMEMU_NO_PTR, or PE 1 on "
                            "another node): memcpy has no peer buffer to write; unset it, or set "
                            "BENCH_BW_PUT_ONLY=1 to time putmem alone\n");
            bad = 1;
        }
        double mc[TRIALS_MAX], pm[TRIALS_MAX], ratio[TRIALS_MAX];
        for (size_t bytes = MIN_BYTES; !bad && bytes <= MAX_BYTES; bytes *= 2) {
            size_t reps = reps_for(bytes);
            if (!put_only)
                time_memcpy(peer_dst, src, bytes, reps); /* warm-up of both, untimed */
            time_putmem(dst, src, bytes, reps, 1);
            for (int t = 0; t < trials; t++) {
                if (put_only) {
                    pm[t] = time_putmem(dst, src, bytes, reps, 1);
                    mc[t] = ratio[t] = 0;
                    continue;
                }
                if (t % 2 == 0) {
                    mc[t] = time_memcpy(peer_dst, src, bytes, reps);
                    pm[t] = time_putmem(dst, src, bytes, reps, 1);
                } else {
                    pm[t] = time_putmem(dst, src, bytes, reps, 1);
                    mc[t] = time_memcpy(peer_dst, src, bytes, reps);
                }
                ratio[t] = pm[t] / mc[t];
            }
            if (put_only ? check_put_remote(dst, src, bytes) : check_put(peer_dst, dst, src, bytes)) {
                fprintf(stderr, "put_bw_shmemu: putmem of %zu bytes did not arrive\n", bytes);
                bad = 1;
            }
            printf("put_bw bytes=%zu memcpy_gbs=%.3f putmem_gbs=%.5f ratio=%.3f trials=%d\n",
                   bytes, bench_median(mc, (size_t)trials), bench_median(pm, (size_t)trials),
                   bench_median(ratio, (size_t)trials), trials);
            fflush(stdout);
        }
    }
    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    nvshmem_finalize();
    return bad;
}

int main(void)
{
    /* Two 64 MiB buffers per PE, plus room for the runtime's own symmetric objects. */
    if (setenv("NVSHMEM_SYMMETRIC_SIZE", "160M", 1) != 0) {
        perror("setenv");
        return 1;
    }
    int trials = trials_from_env();
    return shmemu_launch(2, pe_main, &trials) != 0;
}
