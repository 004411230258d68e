/* shmemu-lab: credits
 * PE 0 produces ITEMS items into a ring of SLOTS slots on PE 1, with credits. */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

#define SLOTS 2
#define ITEMS 6

int main(void)
{
    static int slot[SLOTS];      /* symmetric: PE 1's copy is the ring */
    static uint64_t lap[SLOTS];  /* symmetric: PE 1's copy, the lap of each slot's item */
    static long credits;         /* symmetric: PE 0's copy, items PE 1 has consumed */
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "credits: run it on 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    for (int i = 0; i < ITEMS; i++) {
        int s = i % SLOTS;
        uint64_t l = (uint64_t)(i / SLOTS + 1);
        if (me == 0) {
            int item = 10 * i + 1;
            shmem_int_put_signal(&slot[s], &item, 1, &lap[s], l, SHMEM_SIGNAL_SET, 1);
        } else {
            shmem_signal_wait_until(&lap[s], SHMEM_CMP_GE, l);
            printf("PE 1: item %d is %d\n", i, slot[s]);
            shmem_long_atomic_inc(&credits, 0); /* the slot may be reused */
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
