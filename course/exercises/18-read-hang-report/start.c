/* shmemu-lab: read-hang-report
 * Every PE but 0 sends PE 0 a number with put-with-signal, each into its own slot and its
 * own signal word; PE 0 waits for each word in turn and prints the numbers. */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

#define MAX_PES 16

int main(void)
{
    static int slot[MAX_PES];         /* symmetric: PE 0's copy, slot[p] from PE p */
    static uint64_t arrived[MAX_PES]; /* symmetric: PE 0's copy, arrived[p] from PE p */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "read-hang-report: at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    if (me != 0) {
        int v = 7 * me;
        shmem_int_put_signal(&slot[me], &v, 1, &arrived[me - 1], 1, SHMEM_SIGNAL_SET, 0);
    } else {
        for (int p = 1; p < npes; p++) {
            shmem_signal_wait_until(&arrived[p], SHMEM_CMP_EQ, 1);
            printf("PE 0: PE %d sent %d\n", p, slot[p]);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
