/*
 * ring_early.c (lesson 1, broken twin of ring.c): the PE reads its box before the barrier.
 * Nothing orders the previous PE's put before this read: a data race, which
 * bin/shmemu-check reports with both accesses.
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

    int *box = (int *)nvshmem_malloc(N * sizeof(int));

    int mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = me * 10 + i;
    nvshmem_int_put(box, mine, N, next);

    int first = box[0]; /* BUG: read before the barrier that completes the put */
    nvshmem_barrier_all();
    printf("PE %d: box[0] = %d\n", me, first);

    nvshmem_barrier_all();
    nvshmem_free(box);
    nvshmem_finalize();
    return 0;
}
