/*
 * agree.c: collective agreement. Every PE of a team must make the team's collective calls
 * in the same order with the same arguments (the same PE_root, the same nelems, ...); a PE
 * that does not gets a wrong answer or a hang, never an error, unless the runtime compares.
 *
 * The mechanism (the heap's collective calls use it too, heap.c): each PE publishes the call
 * it is in, in its own record (pgas_pe.coll: the operation, the team and up to
 * PGAS_AGREE_ARGS named values), then meets the team at its first barrier; after it, every
 * member compares every member's record with the record of the team's PE 0 and fails at the
 * first difference. All members find the same pair, so the message is the same whichever
 * PE prints it: "team PE 0 (PE a) passes PE_root = 0, team PE 2 (PE c) passes PE_root = 1".
 * A record must stay valid until every member has compared it: the collective's last
 * barrier gives that, and only then does the PE clear it (pgas_agree_end).
 *
 * A PE on a different team's collective never meets the others' barrier, so it cannot be
 * compared there. Publishing checks instead for a certain deadlock: a member of this PE's
 * team that is blocked at the first barrier of a collective on another team of which this
 * PE is a member (its barrier generation unchanged since it published) waits for this PE,
 * which is about to wait for it. Both sides publish (sequentially consistent exchange)
 * before they look (sequentially consistent load), so at least one of them sees the other.
 * Only the own threads of PEs that speak OpenSHMEM take part in that check: the CUDA
 * emulator's stream and block threads of an NVSHMEM PE may run collectives of different
 * teams at once, for the same PE, and share its record (the comparison skips a record of
 * another team for the same reason). For the same reason the check is skipped while either
 * PE has another thread inside a collective (threads_in): that thread may be the one the
 * other team waits for. A thread of the PE that enters one at the very moment of the check
 * is not seen: OpenSHMEM programs whose threads run collectives of overlapping teams at
 * once could get a false report (docs/openshmem.md, "Collectives").
 *
 * Records are runtime bookkeeping (atomic exchanges and loads): they add no happens-before
 * edge (docs/design.md D4); the collective's barriers are the program's synchronization.
 *
 * Layer: called by the heap (below the API files), the teams, the collectives and the
 * reports; calls only errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "backend.h"
#include "nvshmem.h"

static void team_name(int team_id, char *out, size_t len)
{
    if (team_id == NVSHMEM_TEAM_WORLD)
        snprintf(out, len, "NVSHMEM_TEAM_WORLD");
    else
        snprintf(out, len, "team %d", team_id);
}

/* True when world PE pe is a member of team (a scan: only for the rare record of another
 * team; team.c's rank arithmetic is above this file). */
static bool is_member(const pgas_team *team, int pe)
{
    for (int rank = 0; rank < team->size; rank++)
        if (pgas_team_world_pe(team, rank) == pe)
            return true;
    return false;
}

void pgas_agree_publish(pgas_thread *t, const pgas_team *team, const pgas_coll_call *c)
{
    pgas_coll_record *r = &t->world->pes[t->pe].coll;
    atomic_exchange(&r->call, c->call);
    atomic_exchange(&r->op, c->op != NULL ? c->op : c->call);
    atomic_exchange(&r->team_id, c->team_id);
    atomic_exchange(&r->team, team);
    atomic_exchange(&r->generation, atomic_load(&team->barrier.generation));
    atomic_exchange(&r->n_args, c->n_args);
    atomic_exchange(&r->vary, c->vary);
    for (int i = 0; i < c->n_args; i++) {
        atomic_exchange(&r->names[i], c->names[i]);
        atomic_exchange(&r->values[i], c->values[i]);
    }
    /* Only an OpenSHMEM PE's own thread takes part in the deadlock check: an NVSHMEM PE's
     * stream and block threads may be in another team's collective for it at the same time
     * (its arrival there would make this "deadlock" progress). */
    bool checks = t->host && pgas_speaks_openshmem(t);
    atomic_exchange(&r->host, checks ? 1 : 0);
    atomic_exchange(&r->active, 1);
    /* Another thread of this PE in a collective may be the one the other team waits for. */
    if (atomic_fetch_add(&r->threads_in, 1) != 0 || !checks)
        return;
    /* A member of this team blocked in another team's collective that needs this PE. */
    for (int rank = 0; rank < team->size; rank++) {
        int q = pgas_team_world_pe(team, rank);
        const pgas_coll_record *o = &t->world->pes[q].coll;
        if (q == t->pe || !atomic_load(&o->active) || !atomic_load(&o->host) ||
            atomic_load(&o->threads_in) != 1)
            continue;
        const pgas_team *other = atomic_load(&o->team);
        if (other == NULL || other == team || !is_member(other, t->pe) ||
            atomic_load(&other->barrier.generation) != atomic_load(&o->generation))
            continue;
        char mine[32], theirs[32];
        team_name(c->team_id, mine, sizeof mine);
        team_name(atomic_load(&o->team_id), theirs, sizeof theirs);
        pgas_fail(c->call, "PE %d is in %s on %s, which needs PE %d, while PE %d waits in %s "
                           "on %s, which needs PE %d: a certain deadlock; every PE of a team "
                           "must make the team's collective calls in the same order",
                  t->pe, c->call, mine, q, q, atomic_load(&o->call), theirs, t->pe);
    }
}

/* "name = value" of record r's argument i. */
static void describe_arg(const pgas_coll_record *r, int i, char *out, size_t len)
{
    snprintf(out, len, "%s = %" PRId64, atomic_load(&r->names[i]), atomic_load(&r->values[i]));
}

/* ---- ranks backends: the records are per process ------------------------------------ */

/* A published call as it travels between processes: strings by value (each process has its
 * own copies of the names), and the PE's heap-call count (heap.c compares it). */
typedef struct wire_record {
    int active, team_id, n_args;
    unsigned vary;
    uint64_t heap_calls;
    int64_t values[PGAS_AGREE_ARGS];
    char call[64], op[64];
    char names[PGAS_AGREE_ARGS][40];
} wire_record;

/* Each peer's last record in this process (its strings live here). */
static _Thread_local wire_record *mirror; /* n_pes of them, for the thread's job */
static _Thread_local int mirror_n;

static void copy_name(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s", name != NULL ? name : "");
}

void pgas_agree_gather(pgas_thread *t, const pgas_team *team)
{
    pgas_world *w = t->world;
    if (mirror_n != w->n_pes) {
        free(mirror);
        mirror = calloc((size_t)w->n_pes, sizeof *mirror);
        mirror_n = mirror != NULL ? w->n_pes : 0;
    }
    wire_record *all = calloc((size_t)team->size, sizeof *all);
    if (mirror == NULL || all == NULL)
        pgas_fail("a collective call", "out of memory comparing the PEs' arguments");
    const pgas_pe *me = &w->pes[t->pe];
    const pgas_coll_record *r = &me->coll;
    wire_record mine = {.active = atomic_load(&r->active), .team_id = atomic_load(&r->team_id),
                        .n_args = atomic_load(&r->n_args), .vary = atomic_load(&r->vary),
                        .heap_calls = atomic_load(&me->heap_calls)};
    copy_name(mine.call, sizeof mine.call, atomic_load(&r->call));
    copy_name(mine.op, sizeof mine.op, atomic_load(&r->op));
    for (int i = 0; i < mine.n_args && i < PGAS_AGREE_ARGS; i++) {
        mine.values[i] = atomic_load(&r->values[i]);
        copy_name(mine.names[i], sizeof mine.names[i], atomic_load(&r->names[i]));
    }
    w->backend->allgather(team, &mine, all, sizeof mine);
    for (int rank = 0; rank < team->size; rank++) {
        int q = pgas_team_world_pe(team, rank);
        if (q == t->pe)
            continue;
        wire_record *m = &mirror[q];
        *m = all[rank];
        pgas_pe *peer = &w->pes[q];
        pgas_coll_record *o = &peer->coll;
        atomic_exchange(&peer->heap_calls, m->heap_calls);
        atomic_exchange(&o->call, m->call);
        atomic_exchange(&o->op, m->op);
        atomic_exchange(&o->team_id, m->team_id);
        atomic_exchange(&o->team, team);
        atomic_exchange(&o->n_args, m->n_args);
        atomic_exchange(&o->vary, m->vary);
        for (int i = 0; i < m->n_args && i < PGAS_AGREE_ARGS; i++) {
            atomic_exchange(&o->names[i], m->names[i]);
            atomic_exchange(&o->values[i], m->values[i]);
        }
        atomic_exchange(&o->active, m->active);
    }
    free(all);
    t->agree_gathered = true;
}

void pgas_agree_check(pgas_thread *t, const pgas_team *team)
{
    const pgas_world *w = t->world;
    if (w->backend->ranks && team->size >= 2 && !t->agree_gathered)
        pgas_agree_gather(t, team);
    const pgas_coll_record *mine = &w->pes[t->pe].coll;
    if (team->size < 2)
        return;
    int pe0 = pgas_team_world_pe(team, 0);
    const pgas_coll_record *first = &w->pes[pe0].coll;
    int team_id = atomic_load(&mine->team_id);
    char tname[32];
    team_name(team_id, tname, sizeof tname);
    /* Records of other teams (a stale one, or a thread that is no PE's own) say nothing. */
    if (!atomic_load(&first->active) || atomic_load(&first->team) != team)
        return;
    const char *op0 = atomic_load(&first->op);
    int n0 = atomic_load(&first->n_args);
    unsigned vary0 = atomic_load(&first->vary);
    for (int rank = 1; rank < team->size; rank++) {
        int q = pgas_team_world_pe(team, rank);
        const pgas_coll_record *o = &w->pes[q].coll;
        if (!atomic_load(&o->active) || atomic_load(&o->team) != team)
            continue;
        const char *op = atomic_load(&o->op);
        if (strcmp(op, op0) != 0 || atomic_load(&o->n_args) != n0)
            pgas_fail(atomic_load(&mine->call),
                      "team PE 0 (PE %d) is in %s and team PE %d (PE %d) in %s at the same "
                      "point of %s's collective calls; every PE of a team must make the "
                      "same collective calls in the same order",
                      pe0, atomic_load(&first->call), rank, q, atomic_load(&o->call), tname);
        for (int i = 0; i < n0; i++) {
            if (vary0 & (1u << i) || atomic_load(&o->values[i]) == atomic_load(&first->values[i]))
                continue;
            char a[96], b[96];
            describe_arg(first, i, a, sizeof a);
            describe_arg(o, i, b, sizeof b);
            pgas_fail(atomic_load(&mine->call),
                      "the PEs of %s disagree: team PE 0 (PE %d) passes %s, team PE %d (PE %d) "
                      "passes %s to %s; every PE of the team must pass the same %s",
                      tname, pe0, a, rank, q, b, atomic_load(&o->call),
                      atomic_load(&o->names[i]));
        }
    }
}

void pgas_agree_end(pgas_thread *t)
{
    pgas_coll_record *r = &t->world->pes[t->pe].coll;
    if (t->agree_gathered) { /* the peers' mirrored records end with this call */
        for (int p = 0; p < t->world->n_pes; p++)
            if (p != t->pe)
                atomic_exchange(&t->world->pes[p].coll.active, 0);
        t->agree_gathered = false;
    }
    atomic_exchange(&r->active, 0);
    atomic_fetch_sub(&r->threads_in, 1);
}

int64_t pgas_agree_value(const pgas_world *world, int pe, int i)
{
    return atomic_load(&world->pes[pe].coll.values[i]);
}

/* The call and team as PE p's program names them (shmem_ names on an OpenSHMEM PE), as
 * error.c's voice does for messages. */
static const char *voiced(const pgas_world *w, int p, const char *name)
{
    bool openshmem = atomic_load(&w->pes[p].openshmem_names) != 0;
    if (openshmem && (strncmp(name, "nvshmem_", 8) == 0 || strncmp(name, "NVSHMEM_", 8) == 0))
        return name + 2;
    return name;
}

void pgas_agree_report(const pgas_world *w, FILE *f, const char *indent)
{
    int first = -1, active = 0;
    bool differ = false;
    for (int p = 0; p < w->n_pes; p++) {
        const pgas_coll_record *r = &w->pes[p].coll;
        if (!atomic_load(&r->active))
            continue;
        active++;
        if (first < 0)
            first = p;
        else if (atomic_load(&r->team) != atomic_load(&w->pes[first].coll.team) ||
                 strcmp(atomic_load(&r->op), atomic_load(&w->pes[first].coll.op)) != 0)
            differ = true;
    }
    /* Every PE in the same collective: the hang is elsewhere. */
    if (active == 0 || (active == w->n_pes && !differ))
        return;
    fprintf(f, "%scollective calls in progress (every PE of a team must make the team's "
               "collective calls in the same order):\n", indent);
    for (int p = 0; p < w->n_pes; p++) {
        const pgas_coll_record *r = &w->pes[p].coll;
        if (!atomic_load(&r->active)) {
            fprintf(f, "%s  PE %d is in no collective call\n", indent, p);
            continue;
        }
        char tname[32], args[256] = "";
        team_name(atomic_load(&r->team_id), tname, sizeof tname);
        for (int i = 0; i < atomic_load(&r->n_args); i++) {
            size_t used = strlen(args);
            char a[96];
            describe_arg(r, i, a, sizeof a);
            snprintf(args + used, sizeof args - used, "%s%s", i > 0 ? ", " : "", a);
        }
        fprintf(f, "%s  PE %d is in %s on %s%s%s%s\n", indent, p,
                voiced(w, p, atomic_load(&r->call)), voiced(w, p, tname),
                args[0] != '\0' ? " (" : "", args, args[0] != '\0' ? ")" : "");
    }
}
