/* shmemu-lab: ring-allreduce
 * A ring allreduce (sum) of an N-vector with non-blocking put-with-signal. */
#include <stdint.h>
#include <stdio.h>
#include <shmem.h>

#define N 4
#define MAX_PES 16

int main(void)
{
    static int sendbuf[N];             /* the vector this PE sends in this step */
    static int slots[MAX_PES][N];      /* symmetric: slots[s] receives step s */
    static uint64_t arrived[MAX_PES];  /* symmetric: arrived[s] is 1 once step s is here */
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int next = (me + 1) % npes;
    if (npes > MAX_PES) {
        fprintf(stderr, "ring-allreduce: at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    int sum[N];
    for (int i = 0; i < N; i++)
        sum[i] = sendbuf[i] = (me + 1) * (i + 1);
    for (int s = 1; s < npes; s++) {
        shmem_int_put_signal_nbi(slots[s], sendbuf, N, &arrived[s], 1, SHMEM_SIGNAL_SET, next);
        shmem_signal_wait_until(&arrived[s], SHMEM_CMP_EQ, 1); /* step s is here */
        shmem_quiet(); /* the put has read sendbuf: it may be rewritten */
        for (int i = 0; i < N; i++) {
            sum[i] += slots[s][i];
            sendbuf[i] = slots[s][i];
        }
    }
    printf("PE %d: sum %d %d %d %d\n", me, sum[0], sum[1], sum[2], sum[3]);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
