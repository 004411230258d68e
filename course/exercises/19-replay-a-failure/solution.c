/* shmemu-lab: replay-a-failure
 * Every PE counts the multiples of 3 in its share of 0 .. 99 and adds its count into PE 0's
 * total; PE 0 prints the total. */
#include <stdio.h>
#include <shmem.h>

#define TOTAL_N 100

int main(void)
{
    static int total; /* symmetric: PE 0's copy is the sum */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();

    int count = 0;
    for (int i = me; i < TOTAL_N; i += npes)
        if (i % 3 == 0)
            count++;
    shmem_int_atomic_add(&total, count, 0);
    shmem_barrier_all(); /* every PE's add is complete */
    if (me == 0)
        printf("PE 0: %d multiples of 3 below %d\n", total, TOTAL_N);
    shmem_finalize();
    return 0;
}
