/* shmemu-lab: put-neighbor
 * Each PE sends p * 10 to the next PE on the ring and prints what it received. */
#include <stdio.h>
#include <shmem.h>

int main(void)
{
    static int received = -1; /* symmetric: every PE has its own copy */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    int prev = (me - 1 + npes) % npes;

    shmem_int_p(&received, me * 10, next); /* the next PE's copy */
    shmem_barrier_all();                 /* every put is complete and visible here */
    printf("PE %d: received %d from PE %d\n", me, received, prev);
    shmem_finalize();
    return 0;
}
