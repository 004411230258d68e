/*
 * ring_signal.c (lesson 9): a ring of signals. Every PE sends a token to the next PE with
 * nvshmem_putmem_signal, then waits for the token of the previous PE. Sending before
 * waiting is what lets the ring start.
 *
 * Expect, for each PE p: PE p: token from PE prev = prev*7
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
    nvshmem_signal_wait_until(arrived, NVSHMEM_CMP_EQ, 1);
    printf("PE %d: token from PE %d = %ld\n", me, prev, token[3]);

    nvshmem_barrier_all();
    nvshmem_free(arrived);
    nvshmem_free(token);
    nvshmem_finalize();
    return 0;
}
