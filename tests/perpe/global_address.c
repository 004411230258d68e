/*
 * global_address.c: prints where each PE sees a global variable, to tell the two layouts of
 * shmemu-cc apart: per-PE globals (one address per PE) or --shmemu-globals=shared (one).
 */
#include <stdio.h>
#include <nvshmem.h>

int counter;

int main(void)
{
    nvshmem_init();
    printf("PE %d: global address %p\n", nvshmem_my_pe(), (void *)&counter);
    nvshmem_finalize();
    return 0;
}
