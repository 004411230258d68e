/*
 * ring_signal_early.c (lesson 9, broken twin of ring_signal.c): every PE reads the token
 * before it waits for the signal that says the token is there. The read races with the
 * previous PE's put; helgrind, DRD and ThreadSanitizer each report it, in their own words.
 */
#include <stdint.h>
#include <stdio.h>

#include <nvshmem.h>

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (me + 1) % npes, prev = (me - 1 + npes) % npes;

    long *token = (long *)nvshmem_calloc(4, sizeof(long));
    uint64_t *arrived = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    nvshmem_barrier_all();

    long mine[4] = {me * 7, me * 7, me * 7, me * 7};
    nvshmem_putmem_signal(token, mine, sizeof mine, arrived, 1, NVSHMEM_SIGNAL_SET, next);
    long seen = token[3]; /* BUG: read before the wait */
    nvshmem_signal_wait_until(arrived, NVSHMEM_CMP_EQ, 1);
    printf("PE %d: token from PE %d = %ld\n", me, prev, seen);

    nvshmem_barrier_all();
    nvshmem_free(arrived);
    nvshmem_free(token);
    nvshmem_finalize();
    return 0;
}
