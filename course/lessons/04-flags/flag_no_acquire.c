/*
 * flag_no_acquire.c (lesson 4, broken twin of flag.c): the writer is right, but PE 1 polls
 * its flag with a plain (volatile) load instead of waiting with the library. The
 * plain load is no acquire: seeing the flag at 1 does not make PE 0's array visible, and
 * the load itself races with the library's write of the flag. (The loop also calls
 * nvshmem_int_test, which only gives the runtime a chance to make progress; its answer is
 * ignored.)
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
        nvshmem_int_atomic_set(flag, 1, 1);
    } else if (me == 1) {
        volatile int *my_flag = (volatile int *)flag;
        while (*my_flag != 1) /* BUG: a plain load, not an acquire */
            (void)nvshmem_int_test(flag, NVSHMEM_CMP_EQ, 2);
        printf("PE 1: got %d %d %d %d (sum %d)\n", data[0], data[1], data[2], data[3],
               data[0] + data[1] + data[2] + data[3]);
    }

    nvshmem_barrier_all();
    nvshmem_free(flag);
    nvshmem_free(data);
    nvshmem_finalize();
    return 0;
}
