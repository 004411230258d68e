/* shmemu-lab: add-missing-wait
 * A message and a flag to the next PE; the receiver waits for the flag, then reads. */
#include <stdio.h>
#include <shmem.h>

int main(void)
{
    static long msg;  /* symmetric */
    static long flag; /* symmetric: 1 once msg has arrived */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    int prev = (me - 1 + npes) % npes;

    shmem_long_p(&msg, 4242 + me, next);
    shmem_fence(); /* msg before flag */
    shmem_long_atomic_set(&flag, 1, next);

    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1); /* the message is here */
    printf("PE %d: message from PE %d is %ld\n", me, prev, msg);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
