/*
 * credits.c (lesson 7): flow control with credits. PE 0 produces ITEMS items for PE 1
 * through a ring of SLOTS slots in PE 1's memory. Item i goes to slot i % SLOTS, on lap
 * i / SLOTS + 1, which is the value the slot's signal is SET to.
 *   producer (PE 0): before it reuses a slot it waits for a credit (the consumer has read
 *     the slot's last item), and calls nvshmem_quiet before it rewrites the staging buffer
 *     the slot's last put was sent from: the credit says the data arrived at PE 1, not that
 *     the put has finished reading its source; only quiet says that.
 *   consumer (PE 1): waits for the slot's signal to reach the item's lap, adds the item,
 *     and returns a credit (an ADD on PE 0's credit word).
 *
 * Expect: PE 1: consumed 6 items, sum 12168
 */
#include <stdint.h>
#include <stdio.h>

#include <nvshmem.h>
#include <nvshmemx.h>

#define ITEMS 6
#define SLOTS 2
#define WIDTH 8 /* ints per item */

static int staging[SLOTS][WIDTH]; /* PE 0's send buffers, one per slot */

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();

    int *ring = (int *)nvshmem_calloc(SLOTS * WIDTH, sizeof(int));
    uint64_t *full = (uint64_t *)nvshmem_calloc(SLOTS, sizeof(uint64_t)); /* lap per slot */
    uint64_t *credits = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));   /* on PE 0 */

    if (me == 0) {
        for (int i = 0; i < ITEMS; i++) {
            int slot = i % SLOTS;
            if (i >= SLOTS) {
                /* the consumer has read item i - SLOTS, which used this slot */
                nvshmem_signal_wait_until(credits, NVSHMEM_CMP_GE, (uint64_t)(i - SLOTS + 1));
                nvshmem_quiet(); /* the put from staging[slot] is complete */
            }
            for (int k = 0; k < WIDTH; k++)
                staging[slot][k] = i * 100 + k;
            nvshmem_putmem_signal_nbi(ring + slot * WIDTH, staging[slot], sizeof staging[slot],
                                      full + slot, (uint64_t)(i / SLOTS + 1),
                                      NVSHMEM_SIGNAL_SET, 1);
        }
        nvshmem_quiet();
    } else if (me == 1) {
        long sum = 0;
        for (int i = 0; i < ITEMS; i++) {
            int slot = i % SLOTS;
            nvshmem_signal_wait_until(full + slot, NVSHMEM_CMP_EQ, (uint64_t)(i / SLOTS + 1));
            for (int k = 0; k < WIDTH; k++)
                sum += ring[slot * WIDTH + k];
            nvshmemx_signal_op(credits, 1, NVSHMEM_SIGNAL_ADD, 0); /* the slot is free */
        }
        printf("PE 1: consumed %d items, sum %ld\n", ITEMS, sum);
    }

    nvshmem_barrier_all();
    nvshmem_free(credits);
    nvshmem_free(full);
    nvshmem_free(ring);
    nvshmem_finalize();
    return 0;
}
