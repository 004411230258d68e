/* shmemu-lab: ptr-read
 * Every PE fills data[], then sums the previous PE's data[] through shmem_ptr. */
#include <stdio.h>
#include <shmem.h>

#define N 8

int main(void)
{
    static int data[N]; /* symmetric */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int prev = (me - 1 + npes) % npes;

    for (int i = 0; i < N; i++)
        data[i] = 100 * me + i;
    shmem_barrier_all(); /* every PE's stores before any PE's loads */

    const int *theirs = shmem_ptr(data, prev);
    if (theirs == NULL) {
        fprintf(stderr, "PE %d: PE %d's data cannot be reached with loads\n", me, prev);
        shmem_global_exit(1);
    }
    long sum = 0;
    for (int i = 0; i < N; i++)
        sum += theirs[i];
    printf("PE %d: sum of PE %d's data %ld\n", me, prev, sum);
    shmem_barrier_all(); /* nobody rewrites or frees data[] while another PE reads it */
    shmem_finalize();
    return 0;
}
