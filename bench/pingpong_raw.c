/*
 * pingpong_raw.c: the hardware floor of a ping-pong between cores 0 and 1.
 *
 * Default ("raw"): two pthreads pass a counter through one C11 _Atomic uint64_t: the pinger
 * stores 2k+1 (release) and spins (acquire) until it reads 2k+2; the ponger spins until 2k+1
 * and stores 2k+2. Nothing else happens: every ping-pong in bench/ is compared with this one.
 *
 * With the argument `twoline` ("raw_2line"): the layout of a put-with-signal, still with
 * nothing but plain stores, a release store and an acquire spin. Each side owns a
 * 64-byte-aligned {data, signal} box; the sender writes data and then signal (release) into
 * the PEER's box and spins on its OWN box, with a pause instruction per poll as a runtime's
 * wait loop has (a tight spin is slower in this layout on the development machine: the
 * reader's loads keep pulling the line back from the writer). Every cache line then has one
 * fixed writer and one fixed reader, where the single counter's line migrates from core to
 * core; bench/RESULTS.md compares the two (the difference is the price of the protocol's
 * shape, not of any runtime).
 *
 * With the argument `oneline` ("raw_1line"): the same protocol as `twoline`, but both boxes
 * share one cache line. It separates "one line or two" from "one word or four".
 */
#include <stdatomic.h>

#include "bench_common.h"

/* One word on a cache line of its own. */
static _Alignas(64) _Atomic uint64_t word;

/* What one side receives. */
typedef struct {
    uint64_t data;
    _Atomic uint64_t sig;
} box;

/* twoline: each box on a line of its own; oneline: both boxes in one line. */
static struct {
    _Alignas(64) box b;
} apart[2];
static _Alignas(64) box together[2];
static box *rx[2]; /* rx[p]: side p's box */

static int twoline; /* either box layout (twoline or oneline) rather than the counter */
static long iters;
static double *per_rt_ns;

static void spin_until(uint64_t want)
{
    while (atomic_load_explicit(&word, memory_order_acquire) != want) {
    }
}

/* One message of the two-line protocol: value k to side `to`. */
static void box_send(int to, uint64_t k)
{
    rx[to]->data = k;
    atomic_store_explicit(&rx[to]->sig, k, memory_order_release);
}

static int box_wait(int me, uint64_t k)
{
    while (atomic_load_explicit(&rx[me]->sig, memory_order_acquire) < k)
        __builtin_ia32_pause();
    return rx[me]->data != k;
}

/* Each returns non-zero when the data that arrived was wrong. Errors are kept in locals:
 * a shared error flag would be one more cache line bouncing between the cores. */
static int ping_once(uint64_t *v)
{
    if (twoline) {
        ++*v;
        box_send(1, *v);
        return box_wait(0, *v);
    }
    atomic_store_explicit(&word, ++*v, memory_order_release);
    spin_until(++*v);
    return 0;
}

static int pong_once(uint64_t *v)
{
    if (twoline) {
        ++*v;
        int bad = box_wait(1, *v);
        box_send(0, *v);
        return bad;
    }
    spin_until(++*v);
    atomic_store_explicit(&word, ++*v, memory_order_release);
    return 0;
}

static int bad_ping, bad_pong; /* written once, at the end */

static void *pinger(void *arg)
{
    (void)arg;
    bench_pin_self(0);
    uint64_t v = 0;
    int bad = 0;
    for (long i = 0; i < PING_WARMUP; i++)
        bad |= ping_once(&v);
    for (long b = 0; b < iters / PING_BATCH; b++) {
        uint64_t t0 = bench_now_ns();
        for (long i = 0; i < PING_BATCH; i++)
            bad |= ping_once(&v);
        per_rt_ns[b] = (double)(bench_now_ns() - t0) / (double)PING_BATCH;
    }
    bad_ping = bad;
    return NULL;
}

static void *ponger(void *arg)
{
    (void)arg;
    bench_pin_self(1);
    uint64_t v = 0;
    int bad = 0;
    long total = PING_WARMUP + iters;
    for (long i = 0; i < total; i++)
        bad |= pong_once(&v);
    bad_pong = bad;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *name = "raw";
    if (argc == 2 && strcmp(argv[1], "twoline") == 0) {
        name = "raw_2line";
        rx[0] = &apart[0].b;
        rx[1] = &apart[1].b;
    } else if (argc == 2 && strcmp(argv[1], "oneline") == 0) {
        name = "raw_1line";
        rx[0] = &together[0];
        rx[1] = &together[1];
    } else if (argc != 1) {
        fprintf(stderr, "usage: pingpong_raw [twoline | oneline]\n");
        return 2;
    }
    twoline = argc == 2;
    iters = bench_ping_iters();
    per_rt_ns = calloc((size_t)(iters / PING_BATCH), sizeof *per_rt_ns);
    if (!per_rt_ns)
        return 1;
    pthread_t a, b;
    if (pthread_create(&b, NULL, ponger, NULL) != 0 || pthread_create(&a, NULL, pinger, NULL) != 0) {
        perror("pthread_create");
        return 1;
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (bad_ping || bad_pong) {
        fprintf(stderr, "pingpong_raw: wrong data received\n");
        return 1;
    }
    bench_report_pingpong(name, per_rt_ns, (size_t)(iters / PING_BATCH));
    free(per_rt_ns);
    return 0;
}
