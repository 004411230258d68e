/*
 * chunks.c (lesson 5): put-with-signal. PE 0 sends a message to PE 1 in CHUNKS chunks, each
 * with nvshmem_putmem_signal_nbi: the chunk's data, then an ADD of 1 to PE 1's signal word,
 * delivered as one unit (the data before its signal). Chunks may complete in any order, so
 * the signal counts chunks that have arrived, not which ones: PE 1 waits until the count
 * reaches CHUNKS and only then reads any chunk.
 *
 * Expect: PE 1: chunk sums 10 26 42 58 (total 136)
 */
#include <stdint.h>
#include <stdio.h>

#include <nvshmem.h>
#include <nvshmemx.h>

#define CHUNKS 4
#define WIDTH 4 /* ints per chunk */

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();

    int *inbox = (int *)nvshmem_calloc(CHUNKS * WIDTH, sizeof(int));
    uint64_t *arrived = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));

    if (me == 0) {
        int msg[CHUNKS * WIDTH];
        for (int i = 0; i < CHUNKS * WIDTH; i++)
            msg[i] = i + 1;
        for (int c = 0; c < CHUNKS; c++)
            nvshmem_putmem_signal_nbi(inbox + c * WIDTH, msg + c * WIDTH, WIDTH * sizeof(int),
                                      arrived, 1, NVSHMEM_SIGNAL_ADD, 1);
        nvshmem_quiet(); /* msg is about to go out of scope */
    } else if (me == 1) {
        nvshmem_signal_wait_until(arrived, NVSHMEM_CMP_EQ, CHUNKS); /* all of them */
        int total = 0;
        printf("PE 1: chunk sums");
        for (int c = 0; c < CHUNKS; c++) {
            int s = 0;
            for (int k = 0; k < WIDTH; k++)
                s += inbox[c * WIDTH + k];
            printf(" %d", s);
            total += s;
        }
        printf(" (total %d)\n", total);
    }

    nvshmem_barrier_all();
    nvshmem_free(arrived);
    nvshmem_free(inbox);
    nvshmem_finalize();
    return 0;
}
