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
#include <stdlib.h>

#include "backend.h"
#include "nvshmem.h"

/* r with d == r * stride and 0 <= r < size, or -1 (stride != 0, of either sign). */
static int strided_rank(int d, int stride, int size)
{
    int r = d / stride;
    return r * stride == d && r >= 0 && r < size ? r : -1;
}

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
    if (team_id <= PGAS_ACTIVE_SET_ID(0)) { /* OpenSHMEM's active sets (active_set.c) */
        pgas_team *set = pgas_active_set_get(t, team_id);
        if (set != NULL)
            return set;
    }
    if (team_id < 0 || team_id >= PGAS_MAX_TEAMS ||
        !atomic_load_explicit(&t->world->teams[team_id].in_use, memory_order_acquire))
        pgas_fail(call, "team %d is not a valid team (NVSHMEM_TEAM_INVALID, destroyed, or never "
                        "created); pass NVSHMEM_TEAM_WORLD or a team from "
                        "nvshmem_team_split_strided", team_id);
    if (team_id == PGAS_TEAM_SAME_MYPE_NODE || team_id == PGAS_TEAM_SAME_GPU)
        return &t->world->pes[t->pe].self_team;
    return &t->world->teams[team_id];
}

/* The rank r with world_pe == start + r * stride, 0 <= r < size, or -1. The stride may be
 * negative (a split with a negative stride lists its PEs downwards); it is never 0. */
int pgas_team_my_rank(const pgas_team *team, int world_pe)
{
    return strided_rank(world_pe - team->start, team->stride, team->size);
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

/* The first free team slot of this process's records, marked in use, or -1. */
static int take_slot(pgas_world *w)
{
    for (int i = PGAS_TEAM_PREDEFINED; i < PGAS_MAX_TEAMS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&w->teams[i].in_use, &expected, 1)) {
            pgas_hb_after(&w->teams[i].in_use);
            return i;
        }
    }
    return -1;
}

/* A split on a ranks backend (MPI), after the arguments were compared: every process keeps
 * its own records, so each member of the new team takes a slot of its own (a team's id may
 * differ between PEs, as NVSHMEM's handles may), the members agree that every one found a
 * slot, and the backend makes the team's communicator. */
static int split_ranks(pgas_thread *t, const char *call, pgas_team *parent, int my_rank,
                       int start, int stride, int size, int num_contexts,
                       nvshmem_team_t *new_team)
{
    pgas_world *w = t->world;
    bool member = strided_rank(my_rank - start, stride, size) >= 0;
    int chosen = member ? take_slot(w) : -1;
    int ok = !member || chosen >= 0;
    int *oks = calloc((size_t)parent->size, sizeof *oks);
    if (oks == NULL)
        pgas_fail(call, "out of memory");
    w->backend->allgather(parent, &ok, oks, sizeof ok);
    bool all_ok = true;
    for (int r = 0; r < parent->size; r++)
        all_ok = all_ok && oks[r];
    free(oks);
    if (!all_ok) {
        if (chosen >= 0)
            atomic_exchange(&w->teams[chosen].in_use, 0);
        pgas_agree_end(t);
        pgas_complain(call, "all %d team slots are in use on some PE; destroy teams you no "
                            "longer need", PGAS_MAX_TEAMS);
        return 1;
    }
    if (member) {
        pgas_team *team = &w->teams[chosen];
        team->start = pgas_team_world_pe(parent, start);
        team->stride = parent->stride * stride;
        team->size = size;
        team->num_contexts = num_contexts;
        atomic_exchange(&team->barrier.arrived, 0);
        w->backend->team_create(team); /* collective over the new team's members */
        *new_team = chosen;
    }
    pgas_agree_end(t);
    return 0;
}

/* The collective core of a strided split of parent_team (a valid team of which t's PE is a
 * member): *new_team is the new team for its members, NVSHMEM_TEAM_INVALID for the others.
 * num_contexts is the new team's configuration (shmem_team_get_config returns it). */
static int split(pgas_thread *t, const char *call, nvshmem_team_t parent_team, int start,
                 int stride, int size, int num_contexts, nvshmem_team_t *new_team)
{
    *new_team = NVSHMEM_TEAM_INVALID;
    pgas_team *parent = pgas_team_get(t, call, parent_team);
    int my_rank = pgas_team_my_rank(parent, t->pe);
    if (my_rank < 0)
        pgas_fail(call, "this PE is not a member of parent team %d", parent_team);
    /* Every member must pass the same triplet (OpenSHMEM): compared after a parent barrier,
     * with a message naming two PEs and what differs (agree.c). */
    pgas_coll_call args = {.call = call, .op = "nvshmem_team_split_strided",
                           .team_id = parent_team, .n_args = 3,
                           .names = {"start", "stride", "size"},
                           .values = {start, stride, size}};
    pgas_agree_publish(t, parent, &args);
    pgas_barrier_wait(t, &parent->barrier, parent->size, call);
    pgas_agree_check(t, parent);
    /* OpenSHMEM 1.5: a valid triplet has start + stride * i in [0, N) for every i < size,
     * so the stride may be negative (the new team lists its PEs downwards), and 0 only for
     * a team of one PE. Every member computes the same verdict, so all return the same
     * error together. */
    long long last = (long long)start + (long long)(size - 1) * stride;
    bool bad = size < 1 || (stride == 0 && size > 1) || start < 0 || start >= parent->size ||
               last < 0 || last >= parent->size;
    if (bad) {
        pgas_barrier_wait(t, &parent->barrier, parent->size, call);
        pgas_agree_end(t);
        pgas_complain(call, "start %d, stride %d, size %d do not fit parent team %d of %d PEs; "
                            "need size >= 1 and start + stride * i in 0..%d for every i < size "
                            "(stride may be negative, and 0 only when size is 1)",
                      start, stride, size, parent_team, parent->size, parent->size - 1);
        return 1;
    }
    if (size == 1)
        stride = 1; /* one PE: the stride means nothing, and the core's is never 0 */
    if (t->world->backend->ranks)
        return split_ranks(t, call, parent, my_rank, start, stride, size, num_contexts,
                           new_team);
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
            team->num_contexts = num_contexts;
            atomic_exchange(&team->barrier.arrived, 0);
        }
        atomic_exchange(&root_team->split_result, chosen);
    }
    pgas_barrier_wait(t, &parent->barrier, parent->size, call);
    int chosen = atomic_load(&root_team->split_result);
    pgas_barrier_wait(t, &parent->barrier, parent->size, call);
    pgas_agree_end(t);
    if (chosen < 0) {
        pgas_complain(call, "all %d team slots are in use; destroy teams you no longer need",
                      PGAS_MAX_TEAMS);
        return 1;
    }
    /* Membership comes from the arguments, not from the slot: once the second barrier is
     * passed, a fast member may already destroy the team and reuse its slot. */
    if (strided_rank(my_rank - start, stride, size) >= 0)
        *new_team = chosen;
    return 0;
}

/* The num_contexts a split's configuration asks for (bit 0 of the mask: NVSHMEM's and
 * OpenSHMEM's SHMEM_TEAM_NUM_CONTEXTS), else 0; non-zero with a message when it is negative
 * (every member gets the same arguments, so every member returns the error). */
static int config_num_contexts(const char *call, const nvshmem_team_config_t *config,
                               long config_mask, int *num_contexts)
{
    *num_contexts = 0;
    if (config == NULL || (config_mask & 1L) == 0)
        return 0;
    if (config->num_contexts < 0) {
        pgas_complain(call, "config->num_contexts is %d; pass the number of contexts the team "
                            "will create (>= 0)", config->num_contexts);
        return 1;
    }
    *num_contexts = config->num_contexts;
    return 0;
}

int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                               const nvshmem_team_config_t *config, long config_mask,
                               nvshmem_team_t *new_team)
{
    const char *call = "nvshmem_team_split_strided";
    pgas_thread *t = pgas_require(call);
    if (new_team == NULL)
        pgas_fail(call, "new_team is NULL; pass the address of an nvshmem_team_t");
    *new_team = NVSHMEM_TEAM_INVALID;
    if (parent_team == NVSHMEM_TEAM_INVALID)
        return 0; /* a PE outside the parent takes no part, as in NVSHMEM */
    int num_contexts;
    if (config_num_contexts(call, config, config_mask, &num_contexts) != 0)
        return 1;
    return split(t, call, parent_team, start, stride, size, num_contexts, new_team);
}

int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                          const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                          nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team)
{
    const char *call = "nvshmem_team_split_2d";
    pgas_thread *t = pgas_require(call);
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
    int x_contexts, y_contexts;
    if (config_num_contexts(call, xaxis_config, xaxis_mask, &x_contexts) != 0 ||
        config_num_contexts(call, yaxis_config, yaxis_mask, &y_contexts) != 0)
        return 1;
    int cols = xrange < n ? xrange : n;
    int rows = (n + cols - 1) / cols;
    /* Every member makes every split, in the same order, keeping the one it belongs to. */
    for (int r = 0; r < rows; r++) {
        int size = n - r * cols < cols ? n - r * cols : cols;
        nvshmem_team_t got;
        if (split(t, call, parent_team, r * cols, 1, size, x_contexts, &got) != 0)
            goto fail;
        if (got != NVSHMEM_TEAM_INVALID)
            *xaxis_team = got;
    }
    for (int c = 0; c < cols; c++) {
        nvshmem_team_t got;
        if (split(t, call, parent_team, c, cols, (n - c + cols - 1) / cols, y_contexts, &got) !=
            0)
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
    if (t->world->backend->ranks) { /* every member holds its own slot */
        t->world->backend->team_free(team);
        atomic_exchange(&team->in_use, 0);
        return;
    }
    if (rank == 0) {
        pgas_hb_before(&team->in_use);
        atomic_exchange(&team->in_use, 0);
    }
}
