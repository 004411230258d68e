/*
 * pingpong_shmemu.c: the 8-byte ping-pong through shmemu's put-with-signal.
 *
 * Two PE threads (shmemu_launch), pinned to cores 0 and 1. The message is one symmetric
 * block {data, signal}: 8 bytes of data with its signal word beside it, the natural layout
 * of a small message. Round trip k: PE 0 puts k into PE 1's data word with
 * nvshmem_putmem_signal(..., k, NVSHMEM_SIGNAL_SET, 1); PE 1 waits with
 * nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, k), checks the data, and answers the same
 * way into PE 0's block. Signal values increase by one per round trip, so no reset is needed.
 */
#include <nvshmem.h>
#include <shmemu/pgas.h>

#include "bench_common.h"

typedef struct {
    uint64_t data;
    uint64_t sig;
} message;

typedef struct {
    long iters;
    double *per_rt_ns;
    int bad; /* written by PE 0 only */
} job;

static void msg_send(message *box, uint64_t k, int pe)
{
    uint64_t v = k;
    nvshmem_putmem_signal(&box->data, &v, sizeof v, &box->sig, k, NVSHMEM_SIGNAL_SET, pe);
}

static int msg_receive(message *box, uint64_t k)
{
    nvshmem_signal_wait_until(&box->sig, NVSHMEM_CMP_GE, k);
    return box->data != k;
}

static int pe_main(void *arg)
{
    job *j = arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    bench_pin_self(me);
    message *box = nvshmem_calloc(1, sizeof *box);
    if (!box) {
        fprintf(stderr, "pingpong_shmemu: nvshmem_calloc failed\n");
        return 1;
    }
    nvshmem_barrier_all();

    int peer = 1 - me;
    long total = PING_WARMUP + j->iters;
    int bad = 0;
    uint64_t k = 0;
    if (me == 0) {
        for (long i = 0; i < PING_WARMUP; i++) {
            msg_send(box, ++k, peer);
            bad |= msg_receive(box, k);
        }
        for (long b = 0; b < j->iters / PING_BATCH; b++) {
            uint64_t t0 = bench_now_ns();
            for (long i = 0; i < PING_BATCH; i++) {
                msg_send(box, ++k, peer);
                bad |= msg_receive(box, k);
            }
            j->per_rt_ns[b] = (double)(bench_now_ns() - t0) / (double)PING_BATCH;
        }
        j->bad = bad;
    } else {
        for (long i = 0; i < total; i++) {
            bad |= msg_receive(box, ++k);
            msg_send(box, k, peer);
        }
    }
    if (bad)
        fprintf(stderr, "pingpong_shmemu: PE %d received wrong data\n", me);
    nvshmem_barrier_all();
    nvshmem_free(box);
    nvshmem_finalize();
    return bad;
}

int main(void)
{
    job j = {.iters = bench_ping_iters()};
    size_t batches = (size_t)(j.iters / PING_BATCH);
    j.per_rt_ns = calloc(batches, sizeof *j.per_rt_ns);
    if (!j.per_rt_ns)
        return 1;
    int rc = shmemu_launch(2, pe_main, &j);
    if (rc == 0 && !j.bad)
        bench_report_pingpong("shmemu", j.per_rt_ns, batches);
    free(j.per_rt_ns);
    return rc != 0 || j.bad;
}
