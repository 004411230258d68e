/*
 * ring_private.c (lesson 1, broken twin of ring.c): the destination of the put is an
 * ordinary local array, not symmetric memory. A local array has no counterpart on the
 * other PE that the library could find, so the put has nowhere to go: shmemu stops the
 * program at the call and says which argument is wrong.
 */
#include <stdio.h>

#include <nvshmem.h>

#define N 4

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int next = (me + 1) % npes;

    int box[N] = {0}; /* BUG: private, on this PE's stack */

    int mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = me * 10 + i;
    nvshmem_int_put(box, mine, N, next);

    nvshmem_barrier_all();
    printf("PE %d: box = %d %d %d %d\n", me, box[0], box[1], box[2], box[3]);
    nvshmem_finalize();
    return 0;
}
