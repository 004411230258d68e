/* shmemu-lab: plain-flag
 * An array to the next PE, then a flag; the receiver waits for the flag and sums. */
#include <stdio.h>
#include <shmem.h>

#define N 4

int main(void)
{
    static int data[N]; /* symmetric */
    static int flag;    /* symmetric: 1 once data[] has arrived */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    int prev = (me - 1 + npes) % npes;

    int mine[N];
    for (int i = 0; i < N; i++)
        mine[i] = me + i + 1;
    shmem_int_put(data, mine, N, next);
    shmem_fence();                        /* the data before the flag */
    shmem_int_atomic_set(&flag, 1, next); /* the library writes the flag */

    while (!shmem_int_test(&flag, SHMEM_CMP_EQ, 1))
        ; /* poll until the flag is 1 */
    int sum = 0;
    for (int i = 0; i < N; i++)
        sum += data[i];
    printf("PE %d: sum from PE %d is %d\n", me, prev, sum);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
