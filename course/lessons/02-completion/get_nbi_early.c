/*
 * get_nbi_early.c (lesson 2, broken twin of get_nbi.c): the PE sums fetched[] before
 * nvshmem_quiet. An _nbi get may write its destination at any time until quiet returns;
 * under the checking mode (SHMEMU_CHECK_NBI=1) shmemu delivers it as late as the
 * specification allows, so the sum reads the zeros fetched[] started with.
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
    nvshmem_barrier_all();

    int fetched[N] = {0};
    nvshmem_int_get_nbi(fetched, values, N, next);
    int sum = 0;
    for (int i = 0; i < N; i++)
        sum += fetched[i]; /* BUG: read before the quiet that completes the get */
    nvshmem_quiet();
    printf("PE %d: sum of next's values = %d\n", me, sum);

    nvshmem_barrier_all();
    nvshmem_free(values);
    nvshmem_finalize();
    return 0;
}
