/* nodes.c: an OpenSHMEM program as an outside user writes it, for the MPI backend across
 * "nodes" (run by tests/check-mpi-backend.sh with mpirun, SHMEMU_MPI_NODE_SIZE=k making
 * groups of k ranks that share no memory). Everything a peer on another node can only reach
 * through MPI: puts and gets of heap and static data, put-with-signal and a wait on the
 * signal, atomics from every PE on one counter, a lock around a read-modify-write done with
 * get and put, a team of the even PEs and a reduction on it, fcollect. Prints one line per
 * PE ("PE p ok: n of m peers reachable by shmem_ptr"); exits 1 on any wrong value. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 50

static long fetched[ROUNDS];     /* this PE's fetch-adds on PE 0's counter */
static long counter;             /* PE 0's is the one that counts */
static long guarded;             /* PE n-1's, updated under the lock with get + put */
static long lock;
static uint64_t sig;
static int statics[4];

static int check(int me, int ok, const char *what, long got, long want)
{
    if (!ok)
        printf("PE %d: %s: got %ld, expected %ld\n", me, what, got, want);
    return ok ? 0 : 1;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    int bad = 0;
    long *heap = shmem_calloc(8, sizeof(long));
    long *all = shmem_malloc((size_t)n * ROUNDS * sizeof(long));
    /* heap and statics, put then get */
    shmem_long_p(&heap[1], 1000 + me, right);
    int mine[4] = {me, me + 1, me + 2, me + 3};
    shmem_int_put(statics, mine, 4, right);
    shmem_barrier_all();
    bad += check(me, heap[1] == 1000 + left, "heap put from the left", heap[1], 1000 + left);
    bad += check(me, statics[3] == left + 3, "static put from the left", statics[3], left + 3);
    int back[4];
    shmem_int_get(back, statics, 4, right);
    bad += check(me, back[0] == me, "get of the right's statics", back[0], me);
    /* put-with-signal: data then signal, the reader waits on the signal only */
    long payload[16];
    for (int i = 0; i < 16; i++)
        payload[i] = me * 100 + i;
    long *inbox = shmem_calloc(16, sizeof(long));
    shmem_barrier_all();
    shmem_long_put_signal(inbox, payload, 16, &sig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    for (int i = 0; i < 16; i++)
        bad += check(me, inbox[i] == left * 100 + i, "put-with-signal data", inbox[i],
                     left * 100 + i);
    /* atomics from every PE on PE 0's counter: the fetched values are 0 .. n*ROUNDS-1 */
    for (int r = 0; r < ROUNDS; r++)
        fetched[r] = shmem_long_atomic_fetch_inc(&counter, 0);
    shmem_barrier_all();
    shmem_long_fcollect(SHMEM_TEAM_WORLD, all, fetched, ROUNDS);
    char *seen = calloc((size_t)n * ROUNDS, 1);
    for (int i = 0; i < n * ROUNDS; i++) {
        long v = all[i];
        if (v < 0 || v >= (long)n * ROUNDS || seen[v]++) {
            bad += check(me, 0, "fetch_inc values distinct and in range", v, -1);
            break;
        }
    }
    free(seen);
    /* a lock around get + add + put on the last PE's word */
    for (int r = 0; r < 10; r++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(&guarded, n - 1);
        shmem_long_p(&guarded, v + 1, n - 1);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    long total = shmem_long_g(&guarded, n - 1);
    bad += check(me, total == 10L * n, "increments under the lock", total, 10L * n);
    /* a team of the even PEs, and a sum over it */
    shmem_team_t evens;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens);
    if (evens != SHMEM_TEAM_INVALID) {
        long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long));
        *src = me;
        shmem_long_sum_reduce(evens, dst, src, 1);
        long want = 0;
        for (int p = 0; p < n; p += 2)
            want += p;
        bad += check(me, *dst == want, "sum over the even PEs", *dst, want);
        shmem_free(dst);
        shmem_free(src);
        shmem_team_destroy(evens);
    } else {
        /* the odd PEs allocate too: allocation is collective over the world */
        long *a = shmem_malloc(sizeof(long)), *b = shmem_malloc(sizeof(long));
        shmem_free(b);
        shmem_free(a);
    }
    int reachable = 0;
    for (int p = 0; p < n; p++)
        reachable += p != me && shmem_ptr(heap, p) != NULL;
    shmem_barrier_all();
    printf("PE %d %s: %d of %d peers reachable by shmem_ptr\n", me, bad ? "FAILED" : "ok",
           reachable, n - 1);
    shmem_free(inbox);
    shmem_free(all);
    shmem_free(heap);
    shmem_finalize();
    return bad ? 1 : 0;
}
