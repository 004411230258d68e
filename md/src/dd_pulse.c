/*
 * dd_pulse.c: what happens at a search step: atoms go to their owners, each PE orders its
 * home atoms, the pulse table is built (with the set-up exchange that fills the halos), and
 * each PE searches its pairs. See dd.h for the geometry.
 *
 * The set-up exchange runs pulse by pulse over all PEs: first every PE selects what it
 * sends (from what it holds so far), then every PE receives. A PE must not select atoms
 * that arrive in the same pulse, and the two phases guarantee it, as the barrier between
 * pulses of a real exchange would.
 */
#include <stdlib.h>
#include <string.h>

#include "dd.h"
#include "fixed.h"
#include "util.h"

void md_pe_init(md_pe *pe, const md_grid *g, int rank)
{
    memset(pe, 0, sizeof *pe);
    pe->rank = rank;
    md_grid_cell(g, rank, pe->cell);
    for (int p = 0; p < MD_MAX_PULSES; p++)
        pe->pulse[p].first_dep_pulse = -1;
    md_pe_region(g, pe, &pe->region);
}

void md_pe_free(md_pe *pe)
{
    md_atoms_free(&pe->at);
    for (int p = 0; p < MD_MAX_PULSES; p++)
        free(pe->pulse[p].index_map);
    md_pairlist_free(&pe->local);
    md_pairlist_free(&pe->nonlocal);
    md_cellgrid_free(&pe->cells);
    for (int d = 0; d < 3; d++)
        free(pe->xd[d]);
    memset(pe, 0, sizeof *pe);
}

void md_pe_region(const md_grid *g, const md_pe *pe, md_region *reg)
{
    for (int d = 0; d < 3; d++) {
        reg->box[d] = g->box[d];
        if (g->n[d] == 1) {
            reg->periodic[d] = true;
            reg->origin[d] = 0;
            reg->extent[d] = g->box[d];
        } else {
            int c = pe->cell[d];
            reg->periodic[d] = false;
            reg->origin[d] = g->bound[d][c];
            reg->extent[d] = g->bound[d][c + 1] - g->bound[d][c] + g->rhalo;
        }
    }
    reg->rsearch = g->rhalo;
}

/* ---- ownership --------------------------------------------------------------------------- */

static void put_on_owner(const md_grid *g, md_pe *pes, const md_atoms *src, int32_t i)
{
    int64_t x[3];
    for (int d = 0; d < 3; d++)
        x[d] = md_wrap(src->x[d][i], g->box[d]);
    md_pe *pe = &pes[md_grid_owner(g, x)];
    md_atoms_push(&pe->at, src, i);
    int32_t k = pe->at.n - 1;
    for (int d = 0; d < 3; d++) {
        pe->at.x[d][k] = x[d]; /* the wrap moves the atom: its image counts the lengths */
        pe->at.img[d][k] = (int32_t)(src->img[d][i] + md_wrap_count(src->x[d][i], g->box[d]));
    }
    pe->at.zone[k] = 0;
    pe->n_home = pe->at.n;
}

void md_dd_distribute(const md_grid *g, md_pe *pes, const md_atoms *all)
{
    for (int r = 0; r < g->npes; r++) {
        pes[r].at.n = 0;
        pes[r].n_home = 0;
    }
    for (int32_t i = 0; i < all->n; i++)
        put_on_owner(g, pes, all, i);
}

void md_dd_redistribute(const md_grid *g, md_pe *pes)
{
    /* Take every PE's home atoms out, then put each on its owner: PEs in rank order, atoms
     * in local order (the order is fixed again by md_dd_sort_home). */
    md_atoms *old = md_xcalloc((size_t)g->npes, sizeof *old);
    for (int r = 0; r < g->npes; r++) {
        old[r] = pes[r].at;
        old[r].n = pes[r].n_home;
        memset(&pes[r].at, 0, sizeof pes[r].at);
        md_atoms_reserve(&pes[r].at, old[r].cap > 0 ? old[r].cap : 16);
        pes[r].at.n = 0;
        pes[r].n_home = 0;
    }
    for (int r = 0; r < g->npes; r++)
        for (int32_t i = 0; i < old[r].n; i++)
            put_on_owner(g, pes, &old[r], i);
    for (int r = 0; r < g->npes; r++)
        md_atoms_free(&old[r]);
    free(old);
}

typedef struct sort_key {
    int32_t cell;
    int32_t index;
    int64_t id;
} sort_key;

static int cmp_key(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->cell != y->cell)
        return x->cell < y->cell ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

void md_dd_sort_home(const md_grid *g, md_pe *pe)
{
    (void)g;
    int n[3];
    md_cellgrid_dims(&pe->region, n);
    int32_t nh = pe->n_home;
    sort_key *keys = md_xmalloc((size_t)(nh ? nh : 1) * sizeof *keys);
    for (int32_t i = 0; i < nh; i++) {
        int64_t x[3] = {pe->at.x[0][i], pe->at.x[1][i], pe->at.x[2][i]};
        keys[i].cell = md_cell_index(&pe->region, n, x);
        keys[i].index = i;
        keys[i].id = pe->at.id[i];
    }
    qsort(keys, (size_t)nh, sizeof *keys, cmp_key);
    int32_t *perm = md_xmalloc((size_t)(nh ? nh : 1) * sizeof *perm);
    for (int32_t i = 0; i < nh; i++)
        perm[i] = keys[i].index;
    md_atoms_permute(&pe->at, perm, nh);
    free(perm);
    free(keys);
}

/* ---- the pulse table ---------------------------------------------------------------------- */

static void map_push(md_pulse *pl, int32_t i)
{
    if (pl->send_size == pl->cap_map) {
        pl->cap_map = pl->cap_map ? 2 * pl->cap_map : 256;
        pl->index_map = md_xrealloc(pl->index_map, (size_t)pl->cap_map * sizeof *pl->index_map);
    }
    pl->index_map[pl->send_size++] = i;
}

/* Which pulse brought local atom i (>= n_home) to this PE. */
static int pulse_of_slot(const md_pe *pe, int npulses, int32_t i)
{
    for (int q = 0; q < npulses; q++) {
        const md_pulse *pl = &pe->pulse[q];
        if (i >= pl->atom_offset && i < pl->atom_offset + pl->recv_size)
            return q;
    }
    return -1;
}

void md_dd_select_pulse(const md_grid *g, md_pe *pe, int p)
{
    const int d = g->pulse_dim[p], k = g->pulse_k[p];
    md_pulse *pl = &pe->pulse[p];
    pl->dim = d;
    pl->k = k;
    int lower[3] = {pe->cell[0], pe->cell[1], pe->cell[2]};
    int upper[3] = {pe->cell[0], pe->cell[1], pe->cell[2]};
    lower[d] = (pe->cell[d] + g->n[d] - 1) % g->n[d];
    upper[d] = (pe->cell[d] + 1) % g->n[d];
    pl->send_rank = md_grid_rank(g, lower);
    pl->recv_rank = md_grid_rank(g, upper);
    for (int e = 0; e < 3; e++)
        pl->coord_shift[e] = (e == d && pe->cell[d] == 0) ? g->box[d] : 0;
    pl->send_size = 0;
    pl->dep_offset = pe->n_home;
    pl->dep_mask = 0;
    pl->first_dep_pulse = -1;
    const int64_t lo = g->bound[d][pe->cell[d]];
    const int64_t *x = pe->at.x[d];
    int32_t first, last;
    if (k == 0) {
        first = 0;
        last = pe->at.n;
    } else {
        /* The second pulse forwards what the first pulse along d brought. */
        const md_pulse *p0 = &pe->pulse[p - 1];
        first = p0->atom_offset;
        last = p0->atom_offset + p0->recv_size;
    }
    const uint8_t bit = (uint8_t)(1u << d);
    for (int32_t i = first; i < last; i++) {
        if (k == 0 && (pe->at.zone[i] & bit))
            continue;
        if (x[i] - lo < g->rhalo)
            map_push(pl, i);
    }
    /* Ascending local order puts home atoms (independent) first. */
    pl->n_indep = 0;
    for (int32_t s = 0; s < pl->send_size; s++) {
        int32_t i = pl->index_map[s];
        if (i < pl->dep_offset) {
            pl->n_indep++;
        } else {
            int q = pulse_of_slot(pe, p, i);
            pl->dep_mask |= 1u << q;
        }
    }
    for (int q = 0; q < p; q++)
        if (pl->dep_mask & (1u << q)) {
            pl->first_dep_pulse = q;
            break;
        }
}

static void receive_pulse(const md_grid *g, md_pe *pes, int p, const md_pe *sender)
{
    const md_pulse *sp = &sender->pulse[p];
    md_pe *rcv = &pes[sp->send_rank];
    md_pulse *rp = &rcv->pulse[p];
    const uint8_t bit = (uint8_t)(1u << g->pulse_dim[p]);
    rp->atom_offset = rcv->at.n;
    rp->recv_size = sp->send_size;
    md_atoms_reserve(&rcv->at, rcv->at.n + sp->send_size);
    md_atoms *dst = &rcv->at;
    const md_atoms *src = &sender->at;
    for (int32_t s = 0; s < sp->send_size; s++) {
        int32_t i = sp->index_map[s], o = dst->n++;
        dst->id[o] = src->id[i];
        dst->type[o] = src->type[i];
        dst->zone[o] = (uint8_t)(src->zone[i] | bit);
        for (int e = 0; e < 3; e++) {
            dst->x[e][o] = src->x[e][i] + sp->coord_shift[e];
            dst->p[e][o] = 0;
            dst->f[e][o] = 0;
            dst->img[e][o] = 0; /* halo copies carry no images */
        }
    }
}

void md_dd_build_pulses(const md_grid *g, md_pe *pes)
{
    for (int r = 0; r < g->npes; r++) {
        md_pe *pe = &pes[r];
        pe->at.n = pe->n_home;
        for (int32_t i = 0; i < pe->n_home; i++)
            pe->at.zone[i] = 0;
        for (int p = 0; p < MD_MAX_PULSES; p++) {
            pe->pulse[p].send_size = pe->pulse[p].recv_size = 0;
            pe->pulse[p].atom_offset = pe->n_home;
        }
    }
    for (int p = 0; p < g->total_pulses; p++) {
        for (int r = 0; r < g->npes; r++)
            md_dd_select_pulse(g, &pes[r], p);
        for (int r = 0; r < g->npes; r++)
            receive_pulse(g, pes, p, &pes[r]);
    }
}

int md_dd_search(const md_grid *g, md_pe *pes, double rlist2, md_error *err)
{
    for (int r = 0; r < g->npes; r++) {
        md_pe *pe = &pes[r];
        if (md_pairlist_build(&pe->local, &pe->nonlocal, &pe->cells, &pe->region, &pe->at,
                              pe->at.n, pe->n_home, rlist2, err) != 0)
            return -1;
    }
    return 0;
}
