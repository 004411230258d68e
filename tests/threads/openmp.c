/*
 * openmp.c: the threads of a PE's OpenMP parallel regions belong to that PE (docs/openshmem.md,
 * "Threads"). Plain OpenSHMEM C with OpenMP, built with -fopenmp (GCC's libgomp).
 *
 * Each PE runs: a parallel region whose threads put into their slot on the right neighbour
 * and add to a counter on PE 0; a parallel for with a dynamic schedule (a combined form that
 * libgomp enters another way) whose iterations each add to the counter; parallel sections; a
 * nested region (each thread of an outer team starts an inner one); and many small regions in
 * a row (libgomp reuses its workers). Prints one "PE p: ok" line per PE.
 */
#include <omp.h>
#include <shmem.h>
#include <stdio.h>

#define NT 4
#define ITERS 64
#define REPEAT 200

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, bad = 0;
    long *slots = shmem_calloc(NT, sizeof *slots);
    long *counter = shmem_calloc(1, sizeof *counter);
    int wrong_pe = 0;
    shmem_barrier_all();

#pragma omp parallel num_threads(NT) reduction(+ : wrong_pe)
    {
        int id = omp_get_thread_num();
        wrong_pe += shmem_my_pe() != me;
        shmem_long_p(&slots[id], 10L * me + id, right);
        shmem_long_atomic_add(counter, 1, 0);
    }
#pragma omp parallel for schedule(dynamic, 4) num_threads(NT) reduction(+ : wrong_pe)
    for (int i = 0; i < ITERS; i++) {
        wrong_pe += shmem_my_pe() != me;
        shmem_long_atomic_add(counter, 1, 0);
    }
#pragma omp parallel sections num_threads(2) reduction(+ : wrong_pe)
    {
#pragma omp section
        {
            wrong_pe += shmem_my_pe() != me;
            shmem_long_atomic_add(counter, 1, 0);
        }
#pragma omp section
        {
            wrong_pe += shmem_my_pe() != me;
            shmem_long_atomic_add(counter, 1, 0);
        }
    }
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : wrong_pe)
    {
#pragma omp parallel num_threads(2) reduction(+ : wrong_pe)
        {
            wrong_pe += shmem_my_pe() != me;
            shmem_long_atomic_add(counter, 1, 0);
        }
    }
    for (int r = 0; r < REPEAT; r++) {
#pragma omp parallel num_threads(2) reduction(+ : wrong_pe)
        wrong_pe += shmem_my_pe() != me;
    }

    shmem_barrier_all();
    int left = (me + n - 1) % n;
    for (int i = 0; i < NT; i++)
        if (slots[i] != 10L * left + i) {
            printf("PE %d: slot %d is %ld, want %ld\n", me, i, slots[i], 10L * left + i);
            bad++;
        }
    long want = (long)n * (NT + ITERS + 2 + 4);
    if (me == 0 && *counter != want) {
        printf("PE 0: counter %ld, want %ld\n", *counter, want);
        bad++;
    }
    if (wrong_pe != 0) {
        printf("PE %d: %d OpenMP threads saw another shmem_my_pe\n", me, wrong_pe);
        bad++;
    }
    if (bad == 0)
        printf("PE %d: ok\n", me);
    shmem_barrier_all();
    shmem_free(slots);
    shmem_free(counter);
    shmem_finalize();
    return bad != 0;
}
