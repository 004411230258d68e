/*
 * ring.c: the main job until the MD app lands. An ordinary NVSHMEM program: every PE sends
 * a message to the next PE around a ring with nvshmem_putmem_signal_nbi, waits for the one
 * from the previous PE, and prints what it received. Built with bin/shmemu-cc semantics
 * (main runs once per PE thread) and started with `bin/shmemu-run -n 8`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <nvshmem.h>
#include <nvshmemx.h>

#define ROUNDS 3
#define WORDS 4

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    uint64_t *inbox = nvshmem_calloc(WORDS, sizeof *inbox);
    uint64_t *signal = nvshmem_calloc(1, sizeof *signal);
    uint64_t outbox[WORDS];
    int bad = 0;
    for (uint64_t round = 1; round <= ROUNDS; round++) {
        for (int w = 0; w < WORDS; w++)
            outbox[w] = round * 1000000 + (uint64_t)me * 1000 + (uint64_t)w;
        nvshmem_putmem_signal_nbi(inbox, outbox, sizeof outbox, signal, round,
                                  NVSHMEM_SIGNAL_SET, next);
        nvshmem_signal_wait_until(signal, NVSHMEM_CMP_EQ, round);
        for (int w = 0; w < WORDS; w++)
            bad += inbox[w] != round * 1000000 + (uint64_t)prev * 1000 + (uint64_t)w;
        /* The sender may reuse outbox and the next round may overwrite inbox only when
         * every PE has read this round's message. */
        nvshmem_quiet();
        nvshmem_barrier_all();
    }
    printf("PE %d of %d received from PE %d: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
           " (signal %" PRIu64 ")%s\n", me, n, prev, inbox[0], inbox[1], inbox[2], inbox[3],
           *signal, bad ? "  WRONG" : "");
    uint64_t *sum = nvshmem_malloc(sizeof *sum);
    uint64_t *mine = nvshmem_malloc(sizeof *mine);
    *mine = inbox[0];
    nvshmem_uint64_sum_reduce(NVSHMEM_TEAM_WORLD, sum, mine, 1);
    if (me == 0)
        printf("checksum (sum of first words over all PEs): %" PRIu64 "\n", *sum);
    nvshmem_free(mine);
    nvshmem_free(sum);
    nvshmem_free(signal);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return bad ? 1 : 0;
}
