/*
 * fence_two_pes.c (lesson 3, broken): what nvshmem_fence does not order. PE 0 stores an
 * array on PE 2, calls nvshmem_fence, then raises a flag on PE 1. PE 1 waits for the flag
 * and fetches the array from PE 2. The fence orders PE 0's puts to each PE separately; it
 * says nothing about a put to PE 2 against a put to PE 1, so PE 1 can fetch the array
 * before it has arrived at PE 2. The fix is nvshmem_quiet (which completes the put to
 * PE 2) in place of the fence. Run with 3 PEs.
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
        nvshmem_int_put_nbi(data, msg, N, 2);
        nvshmem_fence(); /* BUG: orders puts to one PE only; the flag goes to another */
        nvshmem_int_p(flag, 1, 1);
        nvshmem_quiet();
    } else if (me == 1) {
        nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 1);
        int got[N];
        nvshmem_int_get(got, data, N, 2);
        printf("PE 1: got %d %d %d %d from PE 2 (sum %d)\n", got[0], got[1], got[2], got[3],
               got[0] + got[1] + got[2] + got[3]);
    }

    nvshmem_barrier_all();
    nvshmem_free(flag);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}
