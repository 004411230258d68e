/*
 * c11_threads.c: threads a PE creates with C11's thrd_create belong to that PE (docs/openshmem.md,
 * "Threads"). Plain OpenSHMEM C, as a user writes it.
 *
 * Every PE starts NT threads; each adds its number to a counter on the right neighbour with a
 * fetching atomic, puts its value into its slot there, and ends through thrd_exit or return
 * with a result that thrd_join must read back. Prints one "PE p: ok" line per PE.
 */
#include <shmem.h>
#include <stdio.h>
#include <threads.h>

#define NT 3

struct arg {
    int me, id;
    long *slots, *counter; /* symmetric, from shmem_calloc */
};

static int body(void *p)
{
    struct arg *a = p;
    if (shmem_my_pe() != a->me)
        return -1;
    int right = (a->me + 1) % shmem_n_pes();
    shmem_long_atomic_fetch_add(a->counter, a->id + 1, right);
    long v = 100L * a->me + a->id;
    shmem_long_p(&a->slots[a->id], v, right);
    shmem_quiet();
    if (a->id == NT - 1)
        thrd_exit(40 + a->id);
    return 40 + a->id;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), bad = 0;
    long *slots = shmem_calloc(NT, sizeof *slots);
    long *counter = shmem_calloc(1, sizeof *counter);
    thrd_t t[NT];
    struct arg args[NT];
    for (int i = 0; i < NT; i++) {
        args[i] = (struct arg){me, i, slots, counter};
        if (thrd_create(&t[i], body, &args[i]) != thrd_success) {
            printf("PE %d: thrd_create failed\n", me);
            return 1;
        }
    }
    for (int i = 0; i < NT; i++) {
        int r = -2;
        thrd_join(t[i], &r);
        if (r != 40 + i) {
            printf("PE %d: thread %d returned %d, want %d\n", me, i, r, 40 + i);
            bad++;
        }
    }
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    if (*counter != NT * (NT + 1) / 2) {
        printf("PE %d: counter %ld, want %d\n", me, *counter, NT * (NT + 1) / 2);
        bad++;
    }
    for (int i = 0; i < NT; i++)
        if (slots[i] != 100L * left + i) {
            printf("PE %d: slot %d is %ld, want %ld\n", me, i, slots[i], 100L * left + i);
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
