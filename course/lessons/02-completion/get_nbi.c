/*
 * get_nbi.c (lesson 2): non-blocking transfers and their completion. Every PE fetches the
 * next PE's array with nvshmem_int_get_nbi, does other work meanwhile, and calls
 * nvshmem_quiet before it reads what it fetched: the _nbi call only starts the transfer;
 * quiet is what completes it.
 *
 * Expect: PE p: sum of next's values = 4 * next * 100 + 6 (values next*100 + 0..3).
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

    int *values = (int *)nvshmem_malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        values[i] = me * 100 + i;
    nvshmem_barrier_all(); /* every PE's values are written before anyone fetches */

    int fetched[N] = {0};
    nvshmem_int_get_nbi(fetched, values, N, next); /* starts the transfer, returns at once */
    int local_work = 0;
    for (int i = 0; i < N; i++)
        local_work += values[i]; /* overlap: work that does not touch fetched[] */
    nvshmem_quiet(); /* now fetched[] holds the next PE's values */

    int sum = 0;
    for (int i = 0; i < N; i++)
        sum += fetched[i];
    printf("PE %d: sum of next's values = %d (own %d)\n", me, sum, local_work);

    nvshmem_barrier_all();
    nvshmem_free(values);
    nvshmem_finalize();
    return 0;
}
