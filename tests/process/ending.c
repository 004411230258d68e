/* ending.c: a PE process that ends its own way (tests/check-process-backend.sh):
 *   ending exit3       PE 1 calls exit(3) while the others wait in a barrier
 *   ending exit0       PE 1 calls exit(0) between shmem_init and shmem_finalize
 *   ending pe0-exit0   PE 0 calls exit(0) between shmem_init and shmem_finalize
 *   ending late-exit0  every PE calls exit(0) after shmem_finalize (a normal end)
 *   ending bad-put     PE 1 puts to a PE that does not exist (the runtime stops it)
 *   ending crash       PE 2 writes through a null pointer (SIGSEGV) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long word;

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (me == 1 && strcmp(mode, "exit3") == 0)
        exit(3);
    if (me == 1 && strcmp(mode, "exit0") == 0)
        exit(0);
    if (me == 0 && strcmp(mode, "pe0-exit0") == 0)
        exit(0);
    if (me == 2 && strcmp(mode, "crash") == 0) {
        volatile long *nowhere = NULL;
        *nowhere = 1;
    }
    if (me == 1 && strcmp(mode, "bad-put") == 0)
        shmem_long_p(&word, 1, n + 5);
    shmem_barrier_all();
    printf("PE %d done\n", me);
    shmem_finalize();
    if (strcmp(mode, "late-exit0") == 0)
        exit(0);
    return 0;
}
