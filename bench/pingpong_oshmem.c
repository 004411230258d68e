/*
 * pingpong_oshmem.c: Open MPI's OpenSHMEM, the 8-byte message being the flag itself:
 * shmem_long_p into the peer's symmetric word, then shmem_long_wait_until on one's own.
 *
 * By default each shmem_long_p is followed by shmem_quiet, which is what the OpenSHMEM
 * specification needs to guarantee the put's delivery; with the argument `noquiet` the
 * quiet is left out (the flag then relies on the implementation delivering eventually;
 * reported as "oshmem_noquiet"). Run under `oshrun -np 2 --bind-to core`.
 */
#include <shmem.h>

#include "bench_common.h"

static long flag; /* symmetric: a global, one per process */

int main(int argc, char **argv)
{
    int quiet = !(argc > 1 && strcmp(argv[1], "noquiet") == 0);
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "pingpong_oshmem: needs exactly 2 PEs, got %d\n", shmem_n_pes());
        shmem_global_exit(2);
    }
    if (bench_bound_core() < 0)
        fprintf(stderr, "pingpong_oshmem: PE %d is not bound to one core (use --bind-to core)\n",
                me);
    int peer = 1 - me;
    long iters = bench_ping_iters();
    size_t batches = (size_t)(iters / PING_BATCH);
    double *per_rt_ns = calloc(batches, sizeof *per_rt_ns);
    long v = 0;
    shmem_barrier_all();

    long total = PING_WARMUP + iters;
    size_t b = 0;
    uint64_t t0 = 0;
    for (long i = 0; i < total; i++) {
        if (i >= PING_WARMUP && (i - PING_WARMUP) % PING_BATCH == 0)
            t0 = bench_now_ns();
        if (me == 0) {
            shmem_long_p(&flag, ++v, peer);
            if (quiet)
                shmem_quiet();
            shmem_long_wait_until(&flag, SHMEM_CMP_GE, ++v);
        } else {
            shmem_long_wait_until(&flag, SHMEM_CMP_GE, ++v);
            shmem_long_p(&flag, ++v, peer);
            if (quiet)
                shmem_quiet();
        }
        if (i >= PING_WARMUP && (i - PING_WARMUP) % PING_BATCH == PING_BATCH - 1)
            per_rt_ns[b++] = (double)(bench_now_ns() - t0) / (double)PING_BATCH;
    }
    /* PE 0 last received v; PE 1 last received v - 1 (and sent v). */
    long want = me == 0 ? v : v - 1;
    int bad = flag != want;
    if (bad)
        fprintf(stderr, "pingpong_oshmem: PE %d: flag %ld, expected %ld\n", me, flag, want);
    shmem_barrier_all();
    if (me == 0 && !bad)
        bench_report_pingpong(quiet ? "oshmem" : "oshmem_noquiet", per_rt_ns, batches);
    free(per_rt_ns);
    shmem_finalize();
    return bad;
}
