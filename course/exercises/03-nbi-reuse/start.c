/* shmemu-lab: nbi-reuse
 * Two messages to the next PE from one staging buffer, with non-blocking puts. */
#include <stdio.h>
#include <shmem.h>

#define N 4

int main(void)
{
    static int first[N], second[N]; /* symmetric: the boxes */
    static int msg[N];              /* the staging buffer */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    int prev = (me - 1 + npes) % npes;

    for (int i = 0; i < N; i++)
        msg[i] = me + i;
    shmem_int_put_nbi(first, msg, N, next);
    /* ... */
    for (int i = 0; i < N; i++)
        msg[i] = 10 * (me + i);
    shmem_int_put_nbi(second, msg, N, next);
    shmem_barrier_all(); /* completes both puts everywhere */

    /* one printf per line: the PEs share standard output */
    printf("PE %d: from PE %d first %d %d %d %d second %d %d %d %d\n", me, prev, first[0],
           first[1], first[2], first[3], second[0], second[1], second[2], second[3]);
    shmem_finalize();
    return 0;
}
