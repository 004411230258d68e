/*
 * misuse.c: wrong uses of threads that a PE creates, each of which must stop the program with
 * a message (tests/check-app-threads.sh). argv[1] names the case:
 *   after-finalize  a thread the PE created calls shmem_long_p after the PE's shmem_finalize
 *                   (the PE waits for it with an ordinary atomic flag, no SHMEM call).
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static int finalized; /* 1 once PE 0 has finalized (an ordinary atomic, not SHMEM) */
static long *target;

static void *late(void *p)
{
    (void)p;
    while (!__atomic_load_n(&finalized, __ATOMIC_ACQUIRE))
        ;
    shmem_long_p(target, 1, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    shmem_init();
    target = shmem_malloc(sizeof *target);
    pthread_t t;
    if (strcmp(what, "after-finalize") == 0) {
        pthread_create(&t, NULL, late, NULL);
        shmem_finalize();
        __atomic_store_n(&finalized, 1, __ATOMIC_RELEASE);
        pthread_join(t, NULL);
    } else {
        printf("usage: misuse after-finalize\n");
        return 2;
    }
    return 0;
}
