/* shmemu-lab: chunks-out-of-order
 * PE 0 sends NCHUNK chunks to PE 1, which sums each chunk as soon as it is complete. */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

#define NCHUNK 4
#define CHUNK 8

int main(void)
{
    static int buf[NCHUNK * CHUNK]; /* symmetric: PE 1's copy receives */
    static uint64_t ready[NCHUNK];  /* symmetric: ready[k] is 1 once chunk k is complete */
    static int src[NCHUNK * CHUNK];
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "chunks-out-of-order: run it on 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    if (me == 0) {
        for (int i = 0; i < NCHUNK * CHUNK; i++)
            src[i] = 1000 * (i / CHUNK) + i;
        for (int k = 0; k < NCHUNK; k++)
            shmem_int_put_signal_nbi(&buf[k * CHUNK], &src[k * CHUNK], CHUNK, &ready[k], 1,
                                     SHMEM_SIGNAL_SET, 1);
        shmem_quiet();
    } else {
        for (int k = 0; k < NCHUNK; k++) {
            shmem_signal_wait_until(&ready[k], SHMEM_CMP_EQ, 1); /* chunk k is complete */
            int sum = 0;
            for (int i = 0; i < CHUNK; i++)
                sum += buf[k * CHUNK + i];
            printf("PE 1: chunk %d sum %d\n", k, sum);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
