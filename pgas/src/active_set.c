/*
 * active_set.c: OpenSHMEM's active sets (PE_start, logPE_stride, PE_size) as core teams, for
 * the deprecated pSync collectives (shmem_deprecated.c).
 *
 * An active set is a strided set of world PEs, which is exactly what a core team is, so each
 * distinct set gets a pgas_team of its own in world->active_sets and runs the same core
 * collectives as any team (collective.c); the team id PGAS_ACTIVE_SET_ID(slot) reaches it
 * through pgas_team_get. Only the set's members call, and nobody else knows the set, so the
 * slot cannot be chosen by a parent's collective as a split's is. Instead every member finds
 * it on its own: slots are probed in an order fixed by the set's key, and a slot's key goes
 * from 0 to a set's key once and never back (sets live for the job). Two members that probe
 * at the same time therefore stop at the same slot: the first slot of the order that holds
 * the key, or that was free when the first of them claimed it with a compare-and-swap.
 *
 * The claiming member writes the team's fields, then sets ready; the others wait for ready
 * (a few stores away) before they read them. That hand-off is annotated (pgas_hb_*), the
 * one ordering edge this file adds: it orders runtime fields, and adds nothing to what the
 * collective's first barrier, which every member passes next, orders anyway.
 */
#include <sched.h>

#include "backend.h"

static uint64_t set_key(int pe_start, int log_pe_stride, int pe_size)
{
    return ((uint64_t)(uint32_t)pe_start + 1) << 40 | (uint64_t)(uint32_t)log_pe_stride << 32 |
           (uint32_t)pe_size;
}

static void wait_ready(pgas_thread *t, const char *call, pgas_active_set *set)
{
    while (!atomic_load_explicit(&set->ready, memory_order_acquire)) {
        pgas_sched_point(t, call, false);
        sched_yield();
    }
    pgas_hb_after(&set->ready);
}

int pgas_active_set_team(pgas_thread *t, const char *call, int pe_start, int log_pe_stride,
                         int pe_size)
{
    int n = t->world->n_pes;
    if (pe_start < 0 || log_pe_stride < 0 || log_pe_stride > 30 || pe_size < 1 ||
        pe_start >= n)
        pgas_fail(call, "active set PE_start %d, logPE_stride %d, PE_size %d is not a set of "
                        "this job's %d PEs; need 0 <= PE_start < %d, 0 <= logPE_stride <= 30, "
                        "PE_size >= 1", pe_start, log_pe_stride, pe_size, n, n);
    long long stride = 1LL << log_pe_stride;
    long long last = pe_start + (long long)(pe_size - 1) * stride;
    if (last >= n)
        pgas_fail(call, "active set PE_start %d, logPE_stride %d (stride %lld), PE_size %d "
                        "reaches PE %lld, but the job has PEs 0 to %d; pass a smaller PE_size "
                        "or stride", pe_start, log_pe_stride, stride, pe_size, last, n - 1);
    long long d = t->pe - pe_start;
    if (d < 0 || d % stride != 0 || d / stride >= pe_size)
        pgas_fail(call, "this PE is not in the active set PE_start %d, logPE_stride %d, "
                        "PE_size %d; only the set's members call its collectives", pe_start,
                  log_pe_stride, pe_size);

    uint64_t key = set_key(pe_start, log_pe_stride, pe_size);
    size_t first = (size_t)(key % 0x9e3779b97f4a7c15ULL % PGAS_MAX_ACTIVE_SETS);
    for (size_t i = 0; i < PGAS_MAX_ACTIVE_SETS; i++) {
        size_t slot = (first + i) % PGAS_MAX_ACTIVE_SETS;
        pgas_active_set *set = &t->world->active_sets[slot];
        uint64_t seen = 0;
        if (atomic_compare_exchange_strong(&set->key, &seen, key)) {
            /* Read-modify-writes, as every runtime word is written (internal.h): PEs
             * outside the set may read these fields (agree.c's deadlock check follows
             * another PE's published team) with no ordering edge to this PE. */
            __atomic_exchange_n(&set->team.start, pe_start, __ATOMIC_RELAXED);
            __atomic_exchange_n(&set->team.stride, (int)stride, __ATOMIC_RELAXED);
            __atomic_exchange_n(&set->team.size, pe_size, __ATOMIC_RELAXED);
            atomic_exchange_explicit(&set->team.in_use, 1, memory_order_relaxed);
            /* On a ranks backend every member's first use of the set is here, in its own
             * records, at the same collective call: together they make its communicator. */
            if (t->world->backend->ranks)
                t->world->backend->team_create(&set->team);
            pgas_hb_before(&set->ready);
            atomic_exchange_explicit(&set->ready, 1, memory_order_release);
            return PGAS_ACTIVE_SET_ID((int)slot);
        }
        if (seen == key) {
            wait_ready(t, call, set);
            return PGAS_ACTIVE_SET_ID((int)slot);
        }
    }
    pgas_fail(call, "%d different active sets are in use, the most this job keeps; use fewer "
                    "distinct (PE_start, logPE_stride, PE_size), or teams "
                    "(shmem_team_split_strided) instead of the deprecated active-set calls",
              PGAS_MAX_ACTIVE_SETS);
}

pgas_team *pgas_active_set_get(const pgas_thread *t, int team_id)
{
    int slot = PGAS_ACTIVE_SET_ID(0) - team_id;
    if (slot < 0 || slot >= PGAS_MAX_ACTIVE_SETS)
        return NULL;
    pgas_active_set *set = &t->world->active_sets[slot];
    if (!atomic_load_explicit(&set->ready, memory_order_acquire))
        return NULL;
    return &set->team;
}
