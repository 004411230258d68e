/*
 * pthreads.c: threads a PE creates with pthread_create belong to that PE (docs/openshmem.md,
 * "Threads"). Plain OpenSHMEM C, as a user writes it.
 *
 * Every PE starts NT threads; each checks shmem_my_pe() and shmem_n_pes(), puts its own value
 * into its slot of the right neighbour's symmetric array, gets the left neighbour's slot back
 * after the barrier, and adds to a counter on PE 0 with an atomic. Thread 0 of each PE also
 * creates a thread of its own (nested creation) that must belong to the same PE. A thread
 * that exits through pthread_exit leaves its PE cleanly. Prints one "PE p: ok" line per PE.
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4

static int failures;

/* The symmetric objects come from the symmetric heap and travel in the argument, so that the
 * program runs with either layout of globals (per PE, or shared by the PEs). */
struct arg {
    int me, id;
    long *slots;   /* NT + 1 slots, written by the left neighbour's threads */
    long *counter; /* on PE 0: one add per thread of every PE */
};

static void check(int ok, const char *what, int me, int id)
{
    if (!ok) {
        printf("PE %d thread %d: %s\n", me, id, what);
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    }
}

static void *nested(void *p)
{
    struct arg *a = p;
    check(shmem_my_pe() == a->me, "nested thread: shmem_my_pe differs from its creator's", a->me,
          a->id);
    long v = 1000L * a->me + NT;
    shmem_long_put(&a->slots[NT], &v, 1, (a->me + 1) % shmem_n_pes());
    shmem_long_atomic_add(a->counter, 1, 0);
    shmem_quiet();
    pthread_exit(NULL);
}

static void *body(void *p)
{
    struct arg *a = p;
    int me = shmem_my_pe(), n = shmem_n_pes();
    check(me == a->me, "shmem_my_pe differs from its creator's", a->me, a->id);
    check(n == shmem_n_pes(), "shmem_n_pes", me, a->id);
    long v = 1000L * me + a->id;
    shmem_long_put(&a->slots[a->id], &v, 1, (me + 1) % n);
    shmem_long_atomic_add(a->counter, 1, 0);
    shmem_quiet();
    if (a->id == 0) {
        pthread_t t;
        struct arg inner = {me, NT, a->slots, a->counter};
        if (pthread_create(&t, NULL, nested, &inner) != 0)
            check(0, "pthread_create (nested)", me, a->id);
        else
            pthread_join(t, NULL);
    }
    return p;
}

int main(void)
{
    int provided = -1;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *slots = shmem_calloc(NT + 1, sizeof *slots);
    long *counter = shmem_calloc(1, sizeof *counter);
    if (provided != SHMEM_THREAD_MULTIPLE)
        check(0, "shmem_init_thread did not provide SHMEM_THREAD_MULTIPLE", me, -1);
    pthread_t t[NT];
    struct arg args[NT];
    for (int i = 0; i < NT; i++) {
        args[i] = (struct arg){me, i, slots, counter};
        if (pthread_create(&t[i], NULL, body, &args[i]) != 0) {
            printf("PE %d: pthread_create failed\n", me);
            return 1;
        }
    }
    for (int i = 0; i < NT; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        check(r == &args[i], "the thread's result", me, i);
    }
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    for (int i = 0; i <= NT; i++)
        check(slots[i] == 1000L * left + i, "a slot written by the left neighbour's thread", me,
              i);
    long got = -1;
    shmem_long_get(&got, &slots[0], 1, (me + 1) % n);
    check(got == 1000L * me, "get of the right neighbour's slot 0", me, 0);
    if (me == 0) {
        long c = shmem_long_atomic_fetch(counter, 0);
        check(c == (long)n * (NT + 1), "the counter on PE 0", me, -1);
    }
    shmem_barrier_all();
    if (failures == 0)
        printf("PE %d: ok\n", me);
    shmem_free(slots);
    shmem_free(counter);
    shmem_finalize();
    return failures != 0;
}
