/*
 * fiber_reuse_race.c: a kernel's plain read racing with another PE's put into the same
 * symmetric buffer, where the reading block ends before the writing block starts, for
 * proving that ThreadSanitizer sees no edge from one block's fibers to a later block's
 * (docs/design.md D4, emu/src/fiber.c). TSan recycles the memory of a destroyed fiber for
 * the next one created; when the fiber switches synchronized on that memory, the writer's
 * fibers inherited the finished reader's clock and TSan saw the put as ordered after the
 * read. (The corpus twin ring_bcast -DBROKEN_COMPARE is still missed under the scheduler:
 * another edge, not this one; docs/cuda-corpus.md.)
 *
 *   correct  PE 1 waits for the put's signal before reading  -> no report
 *   racy     PE 1 reads at once                               -> race
 *
 * The block has 32 threads: with one, no fiber switches after the read, so no clock leaked.
 * Under SHMEMU_SCHED=random with seeds 1-3 PE 1's block runs to its end first.
 *
 *   SHMEMU_BUILD=build-tsan SHMEMU_CC=clang bin/shmemu-cc -g -O1 -fsanitize=thread \
 *       -o /tmp/fiber_reuse_race tests/racy/fiber_reuse_race.c
 *   SHMEMU_NPES=2 SHMEMU_SCHED=random SHMEMU_SEED=1 /tmp/fiber_reuse_race racy
 * The racing accesses are the lines marked RACING PUT and RACY READ.
 */
#include <stdio.h>
#include <string.h>

#include "nvshmem.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"

#define N 64
#define THREADS 32

typedef struct {
    int *data;     /* symmetric */
    uint64_t *sig; /* symmetric */
    int *seen;
    int racy;
} reuse_args;

KERNEL(publish, reuse_args, a)
{
    if (threadIdx.x != 0)
        return;
    if (nvshmem_my_pe() == 0) {
        int src[N];
        for (int i = 0; i < N; i++)
            src[i] = i + 1;
        nvshmem_int_put_signal(a.data, src, N, a.sig, 1, NVSHMEM_SIGNAL_SET, 1); /* RACING PUT */
    } else if (nvshmem_my_pe() == 1) {
        if (!a.racy)
            nvshmem_signal_wait_until(a.sig, NVSHMEM_CMP_EQ, 1);
        *a.seen = a.data[N / 2]; /* RACY READ */
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "racy") != 0 && strcmp(argv[1], "correct") != 0)) {
        fprintf(stderr, "usage: %s racy|correct\n", argv[0]);
        return 2;
    }
    nvshmem_init();
    int *data = nvshmem_calloc(N, sizeof(int));
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int *seen = NULL;
    cudaMalloc((void **)&seen, sizeof(int));
    nvshmem_barrier_all();
    reuse_args a = {data, sig, seen, strcmp(argv[1], "racy") == 0};
    LAUNCH(publish, DIM3(1, 1, 1), DIM3(THREADS, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    if (nvshmem_my_pe() == 1)
        printf("PE 1 saw %d\n", *seen);
    nvshmem_barrier_all();
    cudaFree(seen);
    nvshmem_free(data);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}
