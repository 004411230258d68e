/*
 * fence_flag.c (lesson 3): PE 0 sends an array to PE 1 with a non-blocking put, then a
 * flag with another put. nvshmem_fence between the two makes the array arrive at PE 1
 * before the flag. PE 1 waits for the flag and reads the array.
 *
 * Expect: PE 1: got 10 20 30 40 (sum 100)
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
        int msg[N] = {10, 20, 30, 40};
        nvshmem_int_put_nbi(data, msg, N, 1);
        nvshmem_fence(); /* the puts to PE 1 before this one are delivered before those after */
        nvshmem_int_p(flag, 1, 1);
        nvshmem_quiet(); /* msg is a local array: complete the put before it goes out of scope */
    } else if (me == 1) {
        nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1);
        printf("PE 1: got %d %d %d %d (sum %d)\n", data[0], data[1], data[2], data[3],
               data[0] + data[1] + data[2] + data[3]);
    }

    nvshmem_barrier_all();
    nvshmem_free(flag);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}
