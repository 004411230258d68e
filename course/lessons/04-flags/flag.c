/*
 * flag.c (lesson 4): point-to-point synchronisation with a flag. PE 0 puts an array into
 * PE 1, orders it before the flag with nvshmem_fence, and raises the flag with an atomic
 * (the library writes the flag: a release of everything ordered before it). PE 1 blocks in
 * nvshmem_int_wait_until until the flag is 1 (an acquire: what PE 0 wrote before the flag
 * is visible after the wait), then reads the array.
 *
 * Expect: PE 1: got 1 2 3 4 (sum 10)
 */
#include <stdio.h>

#include <nvshmem.h>

#define N 4

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();

    int *data = (int *)nvshmem_calloc(N, sizeof(int));
    int *flag = (int *)nvshmem_calloc(1, sizeof(int));

    if (me == 0) {
        int msg[N] = {1, 2, 3, 4};
        nvshmem_int_put(data, msg, N, 1);
        nvshmem_fence();                    /* the array before the flag */
        nvshmem_int_atomic_set(flag, 1, 1); /* the flag, written by the library */
    } else if (me == 1) {
        nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1); /* blocks; an acquire */
        printf("PE 1: got %d %d %d %d (sum %d)\n", data[0], data[1], data[2], data[3],
               data[0] + data[1] + data[2] + data[3]);
    }

    nvshmem_barrier_all();
    nvshmem_free(flag);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}
