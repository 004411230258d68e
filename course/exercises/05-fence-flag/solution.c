/* shmemu-lab: fence-flag
 * An array, then a flag, to the next PE; the receiver waits for the flag and sums. */
#include <stdio.h>
#include <shmem.h>

#define N 4

int main(void)
{
    static int data[N]; /* symmetric: the next PE's array lands here */
    static int flag;    /* symmetric: 1 when data[] is there */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    int prev = (me - 1 + npes) % npes;

    int mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = me * N + i;
    shmem_int_put_nbi(data, mine, N, next);
    shmem_fence(); /* the data before the flag, at the next PE */
    shmem_int_atomic_set(&flag, 1, next);

    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
    int sum = 0;
    for (int i = 0; i < N; i++)
        sum += data[i];
    printf("PE %d: sum from PE %d is %d\n", me, prev, sum);
    shmem_barrier_all(); /* completes the put of mine[] before it goes out of scope */
    shmem_finalize();
    return 0;
}
