/*
 * static_race.c: a race on a static symmetric array. PE 0 puts 8 longs into PE 1's `data`
 * and then sets PE 1's `flag`; PE 1 sums `data`. In the correct mode PE 1 first waits for the
 * flag; in the racy mode it does not, and every race checker must name the read.
 *   static_race [racy]     (2 PEs or more)
 */
#include <stdio.h>
#include <string.h>
#include <shmem.h>

static long data[8];
static long flag;

int main(int argc, char **argv)
{
    int racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    shmem_init();
    int me = shmem_my_pe();
    if (me == 0) {
        long src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        shmem_long_put(data, src, 8, 1);
        shmem_fence();
        shmem_long_atomic_set(&flag, 1, 1);
    } else if (me == 1) {
        if (!racy)
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        long sum = 0;
        for (int i = 0; i < 8; i++)
            sum += data[i]; /* RACY READ: without the wait */
        printf("PE 1 sum %ld\n", sum);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
