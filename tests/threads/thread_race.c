/*
 * thread_race.c: a race between threads that two PEs created. PE 0's thread puts 8 longs into
 * PE 1's `data` and then sets PE 1's `flag`; PE 1's thread sums `data`. In the correct mode
 * PE 1's thread first waits for the flag; in the racy mode it does not, and every race checker
 * must name the read and the threads' PEs (tests/check-app-threads.sh).
 *   thread_race [racy]     (2 PEs or more)
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static long data[8];
static long flag;
static int racy;

static void *sender(void *p)
{
    (void)p;
    long src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    shmem_long_put(data, src, 8, 1);
    shmem_fence();
    shmem_long_atomic_set(&flag, 1, 1);
    return NULL;
}

static void *receiver(void *p)
{
    (void)p;
    if (!racy)
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    long sum = 0;
    for (int i = 0; i < 8; i++)
        sum += data[i]; /* RACY READ: without the wait */
    printf("PE 1's thread: sum %ld\n", sum);
    return NULL;
}

int main(int argc, char **argv)
{
    racy = argc > 1 && strcmp(argv[1], "racy") == 0;
    shmem_init();
    int me = shmem_my_pe();
    pthread_t t;
    if (me <= 1) {
        pthread_create(&t, NULL, me == 0 ? sender : receiver, NULL);
        pthread_join(t, NULL);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
