/*
 * bookkeeping_race.c: the runtime's bookkeeping must not hide a race (docs/design.md D4).
 *
 * PE 0 and PE 1 both write PE 0's global `tally` (PE 1 through the pointer nvshmem_ptr gives
 * it; built by shmemu-cc, every PE has its own copy of the program's globals) with no
 * synchronization between them: a race
 * every checker must report. Meanwhile both drive the runtime's shared machinery: puts and
 * quiets to PE 2, which sits parked in a signal wait (so every put runs the wake-up path
 * over the same counters), nvshmem_ptr lookups and fences. If any of that created a
 * happens-before edge between PE 0 and PE 1, the race would vanish from the reports.
 * scripts/check-tools.sh requires each tool to report it at the RACY WRITE line.
 *
 * The two writes must not run at the same instant: ThreadSanitizer can miss a race whose two
 * accesses check their shadow memory simultaneously (a CI run saw tally 2, a lost update, and
 * no report). So PE 1 starts its rounds only after PE 0 has written, and PE 0 goes on with
 * rounds of its own: the runtime's bookkeeping of both PEs then lies between the two writes,
 * which is where a hidden edge would hide the race. The flag that orders them in time is a
 * relaxed atomic, which gives no happens-before to TSan; helgrind and DRD see it as plain
 * accesses and may report it too, which the check allows.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include <nvshmem.h>
#include <nvshmemx.h>

#define ROUNDS 50

static long tally;            /* PE 0's copy is the one both PEs write */
static _Atomic int pe0_wrote; /* PE 0's copy orders the writes in time only (see above) */

static void rounds(long *mailbox, int me)
{
    for (int i = 0; i < ROUNDS; i++) {
        long v = i;
        nvshmem_long_put(&mailbox[me * ROUNDS + i], &v, 1, 2);
        nvshmem_fence();
        (void)nvshmem_ptr(mailbox, 2);
        nvshmem_quiet();
    }
}

int main(void)
{
    nvshmem_init();
    if (nvshmem_n_pes() != 3) {
        fprintf(stderr, "bookkeeping_race: run with 3 PEs\n");
        return 2;
    }
    int me = nvshmem_my_pe();
    long *tally0 = nvshmem_ptr(&tally, 0);
    _Atomic int *pe0_wrote0 = nvshmem_ptr((const void *)&pe0_wrote, 0);
    long *mailbox = nvshmem_calloc(2 * ROUNDS, sizeof *mailbox);
    uint64_t *done = nvshmem_calloc(1, sizeof *done);
    if (me == 2) {
        nvshmem_signal_wait_until(done, NVSHMEM_CMP_EQ, 2);
    } else {
        if (me == 1)
            while (!atomic_load_explicit(pe0_wrote0, memory_order_relaxed))
                sched_yield();
        rounds(mailbox, me);
        *tally0 += me + 1; /* RACY WRITE: PE 0 and PE 1, no synchronization between them */
        if (me == 0) {
            atomic_store_explicit(pe0_wrote0, 1, memory_order_relaxed);
            rounds(mailbox, me);
        }
        nvshmemx_signal_op(done, 1, NVSHMEM_SIGNAL_ADD, 2);
    }
    nvshmem_barrier_all();
    if (me == 2)
        printf("tally %ld\n", *tally0);
    nvshmem_free(done);
    nvshmem_free(mailbox);
    nvshmem_finalize();
    return 0;
}
