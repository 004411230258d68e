/*
 * team.c: teams, strided subsets of the world's PEs.
 *
 * A team is (start, stride, size) in world PEs; splitting a strided team with a stride
 * gives a strided team again, so every team keeps that form. Team ids index the job's team
 * table; ids 0..2 are WORLD, SHARED and NODE, which all hold every PE of this one-node job.
 * A split is collective over the parent: the parent's PE 0 claims a free slot and publishes
 * its id, and a parent barrier on each side of that makes every member read the same id.
 */
#include <stdio.h>

#include "internal.h"
#include "nvshmem.h"

void pgas_teams_init(pgas_world *world)
{
    for (int i = 0; i < PGAS_TEAM_PREDEFINED; i++) {
        pgas_team *team = &world->teams[i];
        atomic_init(&team->in_use, 1);
        team->start = 0;
        team->stride = 1;
        team->size = world->n_pes;
    }
}

pgas_team *pgas_team_get(const pgas_thread *t, const char *call, int team_id)
{
    if (team_id < 0 || team_id >= PGAS_MAX_TEAMS ||
        !atomic_load_explicit(&t->world->teams[team_id].in_use, memory_order_acquire))
        pgas_fail(call, "team %d is not a valid team (NVSHMEM_TEAM_INVALID, destroyed, or never "
                        "created); pass NVSHMEM_TEAM_WORLD or a team from "
                        "nvshmem_team_split_strided", team_id);
    return &t->world->teams[team_id];
}

int pgas_team_my_rank(const pgas_team *team, int world_pe)
{
    int d = world_pe - team->start;
    if (d < 0 || d % team->stride != 0 || d / team->stride >= team->size)
        return -1;
    return d / team->stride;
}

/* Returns the team, or NULL when team_id is NVSHMEM_TEAM_INVALID (queries answer -1). */
static pgas_team *team_or_null(const pgas_thread *t, const char *call, nvshmem_team_t team_id)
{
    if (team_id == NVSHMEM_TEAM_INVALID)
        return NULL;
    return pgas_team_get(t, call, team_id);
}

int nvshmem_team_my_pe(nvshmem_team_t team_id)
{
    const char *call = "nvshmem_team_my_pe";
    pgas_thread *t = pgas_require(call);
    pgas_team *team = team_or_null(t, call, team_id);
    return team == NULL ? -1 : pgas_team_my_rank(team, t->pe);
}

int nvshmem_team_n_pes(nvshmem_team_t team_id)
{
    const char *call = "nvshmem_team_n_pes";
    pgas_thread *t = pgas_require(call);
    pgas_team *team = team_or_null(t, call, team_id);
    return team == NULL ? -1 : team->size;
}

int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team)
{
    const char *call = "nvshmem_team_translate_pe";
    pgas_thread *t = pgas_require(call);
    pgas_team *src = team_or_null(t, call, src_team);
    pgas_team *dst = team_or_null(t, call, dest_team);
    if (src == NULL || dst == NULL || src_pe < 0 || src_pe >= src->size)
        return -1;
    return pgas_team_my_rank(dst, pgas_team_world_pe(src, src_pe));
}

int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                               const nvshmem_team_config_t *config, long config_mask,
                               nvshmem_team_t *new_team)
{
    const char *call = "nvshmem_team_split_strided";
    pgas_thread *t = pgas_require(call);
    (void)config;
    (void)config_mask;
    if (new_team == NULL)
        pgas_fail(call, "new_team is NULL; pass the address of an nvshmem_team_t");
    *new_team = NVSHMEM_TEAM_INVALID;
    if (parent_team == NVSHMEM_TEAM_INVALID)
        return 0; /* a PE outside the parent takes no part, as in NVSHMEM */
    pgas_team *parent = pgas_team_get(t, call, parent_team);
    int my_rank = pgas_team_my_rank(parent, t->pe);
    if (my_rank < 0)
        pgas_fail(call, "this PE is not a member of parent team %d", parent_team);
    /* Every member computes the same verdict, so all return the same error together. */
    bool bad = size < 1 || stride < 1 || start < 0 || start >= parent->size ||
               (long long)start + (long long)(size - 1) * stride >= parent->size;
    if (bad) {
        pgas_complain(call, "start %d, stride %d, size %d do not fit parent team %d of %d PEs; "
                            "need start >= 0, stride >= 1, size >= 1 and start + (size-1) * "
                            "stride < %d", start, stride, size, parent_team, parent->size,
                      parent->size);
        return 1;
    }
    pgas_team *root_team = parent;
    if (my_rank == 0) {
        int chosen = -1;
        for (int i = PGAS_TEAM_PREDEFINED; i < PGAS_MAX_TEAMS && chosen < 0; i++) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&t->world->teams[i].in_use, &expected, 1)) {
                /* Pairs with destroy's release: the last users of a recycled slot are done
                 * with its fields before they are overwritten here. */
                pgas_hb_after(&t->world->teams[i].in_use);
                chosen = i;
            }
        }
        if (chosen >= 0) {
            pgas_team *team = &t->world->teams[chosen];
            team->start = pgas_team_world_pe(parent, start);
            team->stride = parent->stride * stride;
            team->size = size;
            atomic_exchange(&team->barrier.arrived, 0);
        }
        atomic_exchange(&root_team->split_result, chosen);
    }
    pgas_barrier_wait(t, &parent->barrier, parent->size, call);
    int chosen = atomic_load(&root_team->split_result);
    pgas_barrier_wait(t, &parent->barrier, parent->size, call);
    if (chosen < 0) {
        pgas_complain(call, "all %d team slots are in use; destroy teams you no longer need",
                      PGAS_MAX_TEAMS);
        return 1;
    }
    /* Membership comes from the arguments, not from the slot: once the second barrier is
     * passed, a fast member may already destroy the team and reuse its slot. */
    int d = my_rank - start;
    if (d >= 0 && d % stride == 0 && d / stride < size)
        *new_team = chosen;
    return 0;
}

void nvshmem_team_destroy(nvshmem_team_t team_id)
{
    const char *call = "nvshmem_team_destroy";
    pgas_thread *t = pgas_require(call);
    if (team_id == NVSHMEM_TEAM_INVALID)
        return;
    if (team_id < PGAS_TEAM_PREDEFINED)
        pgas_fail(call, "team %d is predefined and cannot be destroyed", team_id);
    pgas_team *team = pgas_team_get(t, call, team_id);
    int rank = pgas_team_my_rank(team, t->pe);
    if (rank < 0)
        pgas_fail(call, "this PE is not a member of team %d", team_id);
    pgas_barrier_wait(t, &team->barrier, team->size, call);
    if (rank == 0) {
        pgas_hb_before(&team->in_use);
        atomic_exchange(&team->in_use, 0);
    }
}
