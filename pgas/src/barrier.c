/*
 * barrier.c: the team barrier under every collective.
 *
 * A counter and a generation: each member reads the generation, announces "before" on the
 * generation's token, and increments the counter (acq_rel); the last to arrive resets the
 * counter and advances the generation (release) and wakes the others, who wait for the
 * generation to change (acquire) and announce "after". The annotation tokens alternate by
 * generation parity (see pgas_barrier), so a PE that races ahead into the next barrier
 * cannot lend its later work to a PE still leaving this one.
 */
#include "internal.h"
#include "nvshmem.h"
#include "shmemu/bugs.h"

void pgas_barrier_wait(pgas_thread *t, pgas_barrier *b, int n_members, const char *call)
{
    uint32_t gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    const char *token = &b->hb_token[gen & 1];
    const bool hb = !shmemu_bug(SHMEMU_BUG_RT_BARRIER_NO_HB);
    if (hb)
        pgas_hb_before(token);
    uint32_t arrived = atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1;
    if (arrived == (uint32_t)n_members) {
        atomic_exchange_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->generation, 1, memory_order_release);
        pgas_wake(&b->generation);
    } else {
        (void)t;
        pgas_wait_value(&b->generation, PGAS_KIND_U32, NVSHMEM_CMP_NE, gen, PGAS_ACQUIRE, call);
    }
    if (hb)
        pgas_hb_after(token);
}
