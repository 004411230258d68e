/* shmemu-lab: set-vs-add
 * Every PE but 0 sends a number to PE 0 with put-with-signal; PE 0 waits for all. */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

#define MAX_PES 16

int main(void)
{
    static int slot[MAX_PES];  /* symmetric: PE 0's copy collects the numbers */
    static uint64_t arrived;   /* symmetric: PE 0's copy counts the senders */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "set-vs-add: at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    if (me != 0) {
        int v = 10 * me;
        shmem_int_put_signal(&slot[me], &v, 1, &arrived, 1, SHMEM_SIGNAL_ADD, 0);
    } else {
        shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, (uint64_t)(npes - 1));
        int sum = 0;
        for (int p = 1; p < npes; p++)
            sum += slot[p];
        printf("PE 0: sum of %d numbers %d\n", npes - 1, sum);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
