/*
 * same_instant_race.c: every PE puts its row into the next PE's box, and PE 1 reads its own
 * box before the barrier that orders the put: a race whose two accesses, on two CPUs, can
 * happen at the same instant. Free-running, ThreadSanitizer misses that often (each access
 * checks the other's shadow before either is written); shmemu-check runs TSan with the PEs
 * serialized so that it never does (tests/check-race-names.sh runs it several times).
 */
#include <stdio.h>
#include <nvshmem.h>

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int *box = nvshmem_malloc(4 * sizeof *box);
    int mine[4] = {me, me, me, me};
    nvshmem_int_put(box, mine, 4, (me + 1) % n);
    int early = me == 1 ? box[3] : 0; /* RACY READ */
    nvshmem_barrier_all();
    if (early < 0)
        printf("never\n");
    nvshmem_free(box);
    nvshmem_finalize();
    return 0;
}
