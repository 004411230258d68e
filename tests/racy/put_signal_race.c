/*
 * put_signal_race.c: the race every checker must report, and its correct twin.
 *
 *   put_signal_race racy     PE 1 reads the message before waiting for the signal
 *   put_signal_race correct  PE 1 waits for the signal, then reads
 *
 * PE 0 sends a message to PE 1 with nvshmem_putmem_signal. In racy mode nothing orders
 * PE 0's write of the message before PE 1's read, so helgrind, DRD and ThreadSanitizer must
 * each report a data race at the line marked RACY READ. In correct mode they must report
 * nothing. scripts/check-tools.sh runs both under each tool.
 *
 * In racy mode PE 1 first sleeps a little (no synchronization for any checker) so that the
 * write usually comes first in real time: then DRD, which reports the second access of a
 * racing pair, names the read. Any tool may name either line of the pair.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <nvshmem.h>
#include <nvshmemx.h>

#define WORDS 8

int main(int argc, char **argv)
{
    int racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    nvshmem_init();
    if (nvshmem_n_pes() != 2) {
        fprintf(stderr, "put_signal_race: run with 2 PEs\n");
        return 2;
    }
    long *message = nvshmem_calloc(WORDS, sizeof *message);
    uint64_t *signal = nvshmem_calloc(1, sizeof *signal);
    long sum = 0;
    if (nvshmem_my_pe() == 0) {
        long outbox[WORDS];
        for (int i = 0; i < WORDS; i++)
            outbox[i] = 100 + i;
        nvshmem_putmem_signal(message, outbox, sizeof outbox, signal, 1, NVSHMEM_SIGNAL_SET,
                              1); /* RACING PUT */
    } else {
        if (racy) {
            usleep(200000);
            for (int i = 0; i < WORDS; i++)
                sum += message[i]; /* RACY READ: no wait before reading the message */
        }
        nvshmem_signal_wait_until(signal, NVSHMEM_CMP_EQ, 1);
        if (!racy) {
            for (int i = 0; i < WORDS; i++)
                sum += message[i]; /* CORRECT READ: after the acquire */
        }
        printf("PE 1 read sum %ld (%s)\n", sum, racy ? "racy" : "correct");
    }
    nvshmem_barrier_all();
    nvshmem_free(signal);
    nvshmem_free(message);
    nvshmem_finalize();
    return 0;
}
