/*
 * flag_plain_store.c (lesson 4, broken twin of flag.c): PE 0 raises the flag with a plain
 * store through the pointer nvshmem_ptr gives. A plain store is no release: nothing orders
 * the array before it, and PE 1's wait reads the flag while PE 0 writes it with no
 * synchronisation between them. bin/shmemu-check reports both races.
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
        nvshmem_fence();
        int *peer_flag = (int *)nvshmem_ptr(flag, 1);
        *peer_flag = 1; /* BUG: a plain store, not a release */
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
