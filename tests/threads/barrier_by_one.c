/*
 * barrier_by_one.c: several threads of each PE put, and one of them completes them all.
 *
 * Written as an OpenSHMEM user writes it (plain pthreads, SHMEM_THREAD_MULTIPLE): each of
 * NTHREADS threads of a PE puts its value into its slot of the right-hand neighbour's
 * symmetric array; the threads meet at a pthread barrier; the last created thread alone
 * calls shmem_barrier_all, which completes every thread's default-context puts (OpenSHMEM
 * 1.5: an operation of any thread is the PE's), the main thread's put made before it created
 * the others included; the threads meet again and check what their left neighbour's threads
 * sent. Prints "PE p: ok" when every slot holds its value.
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define ROUNDS 20
#define BARRIER_THREAD (NTHREADS - 1) /* a created thread, not main */

static int slots[NTHREADS];
static int before_threads; /* put by main before it creates the threads */
static pthread_barrier_t meet;
static int me, npes, bad;

static void *work(void *arg)
{
    int k = (int)(size_t)arg;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int r = 0; r < ROUNDS; r++) {
        int value = 1000 * r + 10 * me + k;
        shmem_int_put(&slots[k], &value, 1, right);
        pthread_barrier_wait(&meet);
        if (k == BARRIER_THREAD)
            shmem_barrier_all();
        pthread_barrier_wait(&meet);
        if (r == 0 && k == 0 && before_threads != 100 + left) {
            printf("PE %d: the put made before the threads holds %d, want %d\n", me,
                   before_threads, 100 + left);
            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        }
        if (slots[k] != 1000 * r + 10 * left + k) {
            printf("PE %d thread %d round %d: slot holds %d, want %d\n", me, k, r, slots[k],
                   1000 * r + 10 * left + k);
            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        }
        pthread_barrier_wait(&meet);
        if (k == BARRIER_THREAD)
            shmem_barrier_all(); /* nobody writes the next round before all have read */
        pthread_barrier_wait(&meet);
    }
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (provided != SHMEM_THREAD_MULTIPLE) {
        printf("PE %d: thread level %d, want SHMEM_THREAD_MULTIPLE\n", shmem_my_pe(), provided);
        return 1;
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_int_p(&before_threads, 100 + me, (me + 1) % npes);
    pthread_barrier_init(&meet, NULL, NTHREADS);
    pthread_t threads[NTHREADS];
    for (int k = 1; k < NTHREADS; k++)
        pthread_create(&threads[k], NULL, work, (void *)(size_t)k);
    work(NULL);
    for (int k = 1; k < NTHREADS; k++)
        pthread_join(threads[k], NULL);
    pthread_barrier_destroy(&meet);
    if (bad == 0)
        printf("PE %d: ok\n", me);
    shmem_finalize();
    return bad != 0;
}
