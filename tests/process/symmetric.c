/* symmetric.c: what every PE process must see of the others on the process backend (run by
 * tests/check-process-backend.sh). A global, a static and heap memory are symmetric across
 * processes; atomics, waits and barriers work between them; shmem_ptr reaches a peer's copy.
 * Prints one line per PE with its process id; exits 1 on any wrong value. */
#include <shmem.h>
#include <stdio.h>
#include <unistd.h>

static long flag;
static int counter;
long ring[64];
int pids[64];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, bad = 0;
    long *heap = shmem_calloc(2, sizeof(long));
    shmem_int_atomic_inc(&counter, 0);
    shmem_long_p(&ring[me], me + 100, right);
    shmem_long_p(&heap[0], me + 1, right);
    shmem_int_p(&pids[me], (int)getpid(), 0);
    shmem_quiet();
    shmem_long_atomic_set(&flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    if (ring[left] != left + 100 || heap[0] != left + 1) {
        printf("PE %d: ring %ld heap %ld, expected %d and %d\n", me, ring[left], heap[0],
               left + 100, left + 1);
        bad = 1;
    }
    long *peer = shmem_ptr(heap, right);
    if (peer == NULL || peer[0] != me + 1) {
        printf("PE %d: shmem_ptr(heap, %d) = %p does not reach PE %d's heap\n", me, right,
               (void *)peer, right);
        bad = 1;
    }
    if (me == 0) {
        if (counter != n) {
            printf("PE 0: counter %d after %d increments\n", counter, n);
            bad = 1;
        }
        int distinct = 1;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++)
                distinct &= pids[p] != pids[q];
        printf("PE 0: %d PEs in %s\n", n, distinct ? "distinct processes" : "ONE process");
    }
    printf("PE %d %s\n", me, bad ? "FAILED" : "ok");
    shmem_free(heap);
    shmem_finalize();
    return bad;
}
