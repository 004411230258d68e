/*
 * chunks_ge.c (lesson 5, broken twin of chunks.c): the classic mistake. PE 1 wants to start
 * on chunk c as soon as it is there, so it waits until the ADD-counted signal is >= c + 1
 * and reads chunk c. But the count says how many chunks have arrived, not which: when chunk
 * 1 completes before chunk 0, the count is 1 and PE 1 reads chunk 0 before its data came.
 * (A signal per chunk, or SET with the chunk's own value, tells which chunk arrived.)
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
        nvshmem_quiet();
    } else if (me == 1) {
        int total = 0;
        printf("PE 1: chunk sums");
        for (int c = 0; c < CHUNKS; c++) {
            nvshmem_signal_wait_until(arrived, NVSHMEM_CMP_GE, c + 1); /* BUG: some chunk */
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
