/* shmemu-lab: get-nbi
 * Fetch the previous PE's value with a non-blocking get. */
#include <stdio.h>
#include <shmem.h>

int main(void)
{
    static int value; /* symmetric */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int prev = (me - 1 + npes) % npes;

    value = 1000 + me;
    shmem_barrier_all(); /* every value is written */

    int got = -1;
    shmem_int_get_nbi(&got, &value, 1, prev);
    /* ... */
    printf("PE %d: PE %d's value is %d\n", me, prev, got);

    shmem_barrier_all(); /* nobody changes value while another PE reads it */
    shmem_finalize();
    return 0;
}
