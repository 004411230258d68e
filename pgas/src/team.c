/*
 * team.c: teams, strided subsets of the world's PEs.
 *
 * A team is (start, stride, size) in world PEs; splitting a strided team with a stride
 * gives a strided team again, so every team keeps that form. Team ids index the job's team
 * table; ids 0..5 are NVSHMEM's predefined teams of this one-node job with one PE per
 * emulated GPU: WORLD, SHARED, NODE and GPU_LEADERS hold every PE, and SAME_MYPE_NODE and
 * SAME_GPU hold the calling PE alone, so their id names a different team on each PE: it
 * resolves to the PE's own self_team (pgas_pe), not to the shared table.
 * A 2-D split is a sequence of strided splits, one per row and one per column.
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
    for (int pe = 0; pe < world->n_pes; pe++) {
        pgas_team *self = &world->pes[pe].self_team;
        atomic_init(&self->in_use, 1);
        self->start = pe;
        self->stride = 1;
        self->size = 1;
    }
}

pgas_team *pgas_team_get(const pgas_thread *t, const char *call, int team_id)
{
    if (team_id < 0 || team_id >= PGAS_MAX_TEAMS ||
        !atomic_load_explicit(&t->world->teams[team_id].in_use, memory_order_acquire))
        pgas_fail(call, "team %d is not a valid team (NVSHMEM_TEAM_INVALID, destroyed, or never "
                        "created); pass NVSHMEM_TEAM_WORLD or a team from "
                        "nvshmem_team_split_strided", team_id);
    if (team_id == PGAS_TEAM_SAME_MYPE_NODE || team_id == PGAS_TEAM_SAME_GPU)
        return &t->world->pes[t->pe].self_team;
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

/* The collective core of a strided split of parent_team (a valid team of which t's PE is a
 * member): *new_team is the new team for its members, NVSHMEM_TEAM_INVALID for the others. */
static int split(pgas_thread *t, const char *call, nvshmem_team_t parent_team, int start,
                 int stride, int size, nvshmem_team_t *new_team)
{
    *new_team = NVSHMEM_TEAM_INVALID;
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
    return split(t, call, parent_team, start, stride, size, new_team);
}

int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                          const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                          nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team)
{
    const char *call = "nvshmem_team_split_2d";
    pgas_thread *t = pgas_require(call);
    (void)xaxis_config;
    (void)xaxis_mask;
    (void)yaxis_config;
    (void)yaxis_mask;
    if (xaxis_team == NULL || yaxis_team == NULL)
        pgas_fail(call, "xaxis_team and yaxis_team must not be NULL; pass the addresses of two "
                        "nvshmem_team_t");
    *xaxis_team = *yaxis_team = NVSHMEM_TEAM_INVALID;
    if (parent_team == NVSHMEM_TEAM_INVALID)
        return 0;
    pgas_team *parent = pgas_team_get(t, call, parent_team);
    if (pgas_team_my_rank(parent, t->pe) < 0)
        pgas_fail(call, "this PE is not a member of parent team %d", parent_team);
    int n = parent->size;
    if (xrange < 1) {
        pgas_complain(call, "xrange %d is not positive; pass the number of PEs per row (>= 1)",
                      xrange);
        return 1;
    }
    int cols = xrange < n ? xrange : n;
    int rows = (n + cols - 1) / cols;
    /* Every member makes every split, in the same order, keeping the one it belongs to. */
    for (int r = 0; r < rows; r++) {
        int size = n - r * cols < cols ? n - r * cols : cols;
        nvshmem_team_t got;
        if (split(t, call, parent_team, r * cols, 1, size, &got) != 0)
            goto fail;
        if (got != NVSHMEM_TEAM_INVALID)
            *xaxis_team = got;
    }
    for (int c = 0; c < cols; c++) {
        nvshmem_team_t got;
        if (split(t, call, parent_team, c, cols, (n - c + cols - 1) / cols, &got) != 0)
            goto fail;
        if (got != NVSHMEM_TEAM_INVALID)
            *yaxis_team = got;
    }
    return 0;
fail:
    /* Every member failed at the same split: each destroys what it got, with its team. */
    nvshmem_team_destroy(*xaxis_team);
    nvshmem_team_destroy(*yaxis_team);
    *xaxis_team = *yaxis_team = NVSHMEM_TEAM_INVALID;
    return 1;
}

void nvshmem_team_destroy(nvshmem_team_t team_id)
{
    const char *call = "nvshmem_team_destroy";
    pgas_thread *t = pgas_require(call);
    if (team_id == NVSHMEM_TEAM_INVALID)
        return;
    if (team_id >= 0 && team_id < PGAS_TEAM_PREDEFINED)
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
