/*
 * ring_signal_hang.c (lesson 9, broken twin of ring_signal.c): every PE first waits for
 * the previous PE's token, then sends its own. Nobody sends first: every PE waits for a
 * signal that nobody will send. Under the deterministic scheduler shmemu sees at once that
 * no thread can run and prints the deadlock report; free-running, the hang timeout
 * (SHMEMU_HANG_TIMEOUT) prints the same waits.
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
    nvshmem_signal_wait_until(arrived, NVSHMEM_CMP_EQ, 1); /* BUG: waits before sending */
    nvshmem_putmem_signal(token, mine, sizeof mine, arrived, 1, NVSHMEM_SIGNAL_SET, next);
    printf("PE %d: token from PE %d = %ld\n", me, prev, token[3]);

    nvshmem_barrier_all();
    nvshmem_free(arrived);
    nvshmem_free(token);
    nvshmem_finalize();
    return 0;
}
