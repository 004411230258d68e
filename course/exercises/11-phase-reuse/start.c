/* shmemu-lab: phase-reuse
 * Three rounds, PE 0 to PE 1, one signal word and one acknowledgement word. */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

#define ROUNDS 3

int main(void)
{
    static long value;      /* symmetric: PE 1's copy receives */
    static uint64_t sig;    /* symmetric: PE 1's copy, the round whose value is there */
    static long acked;      /* symmetric: PE 0's copy, rounds PE 1 has read */
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "phase-reuse: run it on 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    for (int r = 1; r <= ROUNDS; r++) {
        if (me == 0) {
            long v = 100 * r + 100 * (r == ROUNDS);
            shmem_long_wait_until(&acked, SHMEM_CMP_GE, r - 1); /* PE 1 read round r - 1 */
            shmem_long_put_signal(&value, &v, 1, &sig, 1, SHMEM_SIGNAL_SET, 1);
        } else {
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1); /* round r is here? */
            printf("PE 1: round %d value %ld\n", r, value);
            shmem_long_atomic_inc(&acked, 0);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
