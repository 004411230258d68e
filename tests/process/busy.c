/* busy.c: PEs that put to their neighbour and meet at barriers until killed (the process
 * backend's kill test, tests/check-process-backend.sh). Each PE prints "ready" once
 * initialized. */
#include <shmem.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *box = shmem_calloc(1024, sizeof(long));
    printf("PE %d ready %d\n", me, (int)getpid());
    fflush(stdout);
    for (long i = 0;; i++) {
        shmem_long_put(box, box, 1024, (me + 1) % n);
        shmem_barrier_all();
        if (i % 64 == 0)
            usleep(1000);
    }
}
