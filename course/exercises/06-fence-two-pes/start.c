/* shmemu-lab: fence-two-pes
 * PE 0 puts into PE 1's box and then flags PE 2, which reads the box from PE 1. */
#include <stdio.h>
#include <shmem.h>

#define N 4

int main(void)
{
    static int box[N]; /* symmetric: PE 1's copy is the one used */
    static int ready;  /* symmetric: PE 2's copy is the one used */
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 3) {
        if (me == 0)
            fprintf(stderr, "fence-two-pes: run it on 3 PEs\n");
        shmem_finalize();
        return 1;
    }
    if (me == 0) {
        static int mine[N] = {7, 8, 9, 10};
        shmem_int_put_nbi(box, mine, N, 1);
        shmem_fence(); /* orders the put before the flag? */
        shmem_int_atomic_set(&ready, 1, 2);
    } else if (me == 2) {
        int got[N];
        shmem_int_wait_until(&ready, SHMEM_CMP_EQ, 1);
        shmem_int_get(got, box, N, 1);
        printf("PE 2: PE 1's box holds %d %d %d %d\n", got[0], got[1], got[2], got[3]);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
