/*
 * ring.c (lesson 1): every PE writes into the next PE's copy of a symmetric array with
 * nvshmem_int_put, then reads it back three ways once a barrier has completed the puts:
 * its own copy, the next PE's copy with nvshmem_int_g, and the next PE's copy through the
 * pointer nvshmem_ptr gives (NULL where the peer's memory cannot be loaded from directly).
 *
 * Expect, for each PE p of n (prev = p - 1, next = p + 1, mod n):
 *   PE p: box = prev*10+0 .. prev*10+3, next's box[0] by get = p*10, by pointer = p*10
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

    /* Symmetric: every PE allocates it, at the same offset of its own heap. */
    int *box = (int *)nvshmem_malloc(N * sizeof(int));

    int mine[N]; /* private: an ordinary local array is a fine source */
    for (int i = 0; i < N; i++)
        mine[i] = me * 10 + i;
    nvshmem_int_put(box, mine, N, next); /* the destination must be symmetric */

    nvshmem_barrier_all(); /* every put of every PE is complete and visible */

    int by_get = nvshmem_int_g(box, next);
    int *peer = (int *)nvshmem_ptr(box, next);
    int by_ptr = peer ? peer[0] : by_get;
    printf("PE %d: box = %d %d %d %d, next's box[0] by get = %d, by pointer = %d\n", me, box[0],
           box[1], box[2], box[3], by_get, by_ptr);

    nvshmem_barrier_all(); /* nobody frees box while a peer may still read it */
    nvshmem_free(box);
    nvshmem_finalize();
    return 0;
}
