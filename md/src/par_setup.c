/*
 * par_setup.c: a search step of the parallel driver, on each PE thread. Host work, the
 * only host work inside a run besides output: the streams are idle (par.c synchronized).
 *
 *   1. redistribution: every PE publishes its home atoms (id, type, wrapped x, p) in its
 *      symmetric `pub` area; after a barrier each PE reads every PE's list (nvshmem_getmem)
 *      and keeps the atoms it owns, in PE order then list order, and sorts them by (search
 *      cell, id) as the serial driver does, so the order comes from the data.
 *      GROMACS does not do this: at a partitioning step each rank sends only the atoms that
 *      left its domain, to the neighbour along each decomposed dimension in turn (the same
 *      staged forwarding as the halo: dd_redistribute), so the work per rank is
 *      proportional to the atoms that move, not to all atoms. Publishing everything is
 *      O(N) per PE per search and simple to get right; the result is the same set per PE.
 *   2. pulse table set-up exchange, pulse by pulse: each PE selects what it sends from
 *      what it holds (md_dd_select_pulse), publishes the count and the atoms (id, type,
 *      zone, shifted x); after a barrier it reads its recv_rank's list and appends it (the
 *      halo of the search step); a barrier before the area is reused. Then each PE
 *      publishes its atom_offset per pulse and reads its send_rank's: the remote offset
 *      where its sent coordinates land (a PE knows only its own atoms and slots).
 *   3. pair lists; the positions go to the symmetric coordinate array; the device pulse
 *      table gets the peers' addresses (nvshmem_ptr, or NULL for the put-signal path).
 */
#include <stdlib.h>
#include <string.h>

#include "fixed.h"
#include "par_int.h"
#include "util.h"

enum { PUB_ROW = 8, XCH_ROW = 6 };

int md_par_any_failed(md_par_pe *c, int mine)
{
    c->small[0] = mine;
    nvshmem_barrier_all();
    int any = 0;
    for (int r = 0; r < c->npes; r++) {
        int64_t v;
        nvshmem_getmem(&v, &c->small[0], sizeof v, r);
        any |= v != 0;
    }
    nvshmem_barrier_all();
    return any;
}

/* Reads PE r's published count and rows into a local array (rows of `row` int64). */
static int64_t *read_published(md_par_pe *c, int r, int row, int64_t *count)
{
    nvshmem_getmem(count, c->pub, sizeof *count, r);
    int64_t *rows = md_xmalloc((size_t)(*count * row + 1) * sizeof *rows);
    if (*count > 0)
        nvshmem_getmem(rows, c->pub + 1, (size_t)(*count * row) * sizeof *rows, r);
    return rows;
}

static void redistribute(md_par_pe *c)
{
    md_pe *pe = &c->pe;
    const md_grid *g = &c->grid;
    c->pub[0] = pe->n_home;
    for (int32_t i = 0; i < pe->n_home; i++) {
        int64_t *row = c->pub + 1 + (int64_t)i * PUB_ROW;
        row[0] = pe->at.id[i];
        row[1] = pe->at.type[i];
        for (int d = 0; d < 3; d++) {
            row[2 + d] = md_wrap(pe->at.x[d][i], g->box[d]);
            row[5 + d] = pe->at.p[d][i];
        }
    }
    nvshmem_barrier_all();
    pe->at.n = 0;
    pe->n_home = 0;
    for (int r = 0; r < c->npes; r++) {
        int64_t n;
        int64_t *rows = read_published(c, r, PUB_ROW, &n);
        for (int64_t k = 0; k < n; k++) {
            const int64_t *row = rows + k * PUB_ROW;
            if (md_grid_owner(g, row + 2) != c->me)
                continue;
            if (pe->at.n == pe->at.cap)
                md_atoms_reserve(&pe->at, pe->at.cap ? 2 * pe->at.cap : 256);
            int32_t o = pe->at.n++;
            pe->at.id[o] = row[0];
            pe->at.type[o] = (int32_t)row[1];
            pe->at.zone[o] = 0;
            for (int d = 0; d < 3; d++) {
                pe->at.x[d][o] = row[2 + d];
                pe->at.p[d][o] = row[5 + d];
                pe->at.f[d][o] = 0;
            }
        }
        free(rows);
    }
    pe->n_home = pe->at.n;
    nvshmem_barrier_all(); /* pub is reused next */
}

static void build_pulses(md_par_pe *c)
{
    md_pe *pe = &c->pe;
    const md_grid *g = &c->grid;
    pe->at.n = pe->n_home;
    for (int p = 0; p < MD_MAX_PULSES; p++) {
        pe->pulse[p].send_size = pe->pulse[p].recv_size = 0;
        pe->pulse[p].atom_offset = pe->n_home;
    }
    for (int p = 0; p < g->total_pulses; p++) {
        md_dd_select_pulse(g, pe, p);
        const md_pulse *sp = &pe->pulse[p];
        c->pub[0] = sp->send_size;
        for (int32_t s = 0; s < sp->send_size; s++) {
            int32_t i = sp->index_map[s];
            int64_t *row = c->pub + 1 + (int64_t)s * XCH_ROW;
            row[0] = pe->at.id[i];
            row[1] = pe->at.type[i];
            row[2] = pe->at.zone[i];
            for (int d = 0; d < 3; d++)
                row[3 + d] = pe->at.x[d][i] + sp->coord_shift[d];
        }
        nvshmem_barrier_all();
        int64_t n;
        int64_t *rows = read_published(c, sp->recv_rank, XCH_ROW, &n);
        md_pulse *rp = &pe->pulse[p];
        const uint8_t bit = (uint8_t)(1u << g->pulse_dim[p]);
        rp->atom_offset = pe->at.n;
        rp->recv_size = (int32_t)n;
        md_atoms_reserve(&pe->at, pe->at.n + (int32_t)n);
        for (int64_t k = 0; k < n; k++) {
            const int64_t *row = rows + k * XCH_ROW;
            int32_t o = pe->at.n++;
            pe->at.id[o] = row[0];
            pe->at.type[o] = (int32_t)row[1];
            pe->at.zone[o] = (uint8_t)(row[2] | bit);
            for (int d = 0; d < 3; d++) {
                pe->at.x[d][o] = row[3 + d];
                pe->at.p[d][o] = 0;
                pe->at.f[d][o] = 0;
            }
        }
        free(rows);
        nvshmem_barrier_all();
    }
}

/* Our atom offsets to the PEs that send to us; theirs to us. */
static void exchange_offsets(md_par_pe *c)
{
    for (int p = 0; p < c->grid.total_pulses; p++)
        c->small[8 + p] = c->pe.pulse[p].atom_offset;
    nvshmem_barrier_all();
    for (int p = 0; p < c->grid.total_pulses; p++) {
        int64_t v;
        nvshmem_getmem(&v, &c->small[8 + p], sizeof v, c->pe.pulse[p].send_rank);
        c->dp[p].remote_offset = (int32_t)v;
    }
    nvshmem_barrier_all();
}

static bool use_direct(const md_par_pe *c, const void *sym, int peer)
{
    if (c->job->opt.transport == MD_TRANSPORT_SIGNAL)
        return false;
    return nvshmem_ptr(sym, peer) != NULL;
}

/* The device pulse table (Alg. 1's PulseData with the remote pointers resolved). */
static void device_pulses(md_par_pe *c)
{
    const int32_t cap = c->job->cap;
    for (int p = 0; p < c->grid.total_pulses; p++) {
        const md_pulse *hp = &c->pe.pulse[p];
        md_dpulse *m = &c->dp[p];
        int32_t remote_offset = m->remote_offset;
        memset(m, 0, sizeof *m);
        m->send_rank = hp->send_rank;
        m->recv_rank = hp->recv_rank;
        m->send_size = hp->send_size;
        m->recv_size = hp->recv_size;
        m->atom_offset = hp->atom_offset;
        m->remote_offset = remote_offset;
        m->n_indep = hp->n_indep;
        m->dep_mask = hp->dep_mask;
        for (int d = 0; d < 3; d++)
            m->shift[d] = hp->coord_shift[d];
        m->index_map = hp->index_map;
        m->xstage = c->xstage + (int64_t)p * 3 * cap;
        m->fbuf = c->fbuf + (int64_t)p * 3 * cap;
        /* Coordinates out and forces back travel between the same two PEs each way: we
         * write into send_rank (and read our atoms' forces from it); recv_rank reads ours. */
        if (use_direct(c, c->xs, m->send_rank)) {
            for (int d = 0; d < 3; d++) {
                m->peer_x[d] = (int64_t *)nvshmem_ptr(md_par_x(c, d), m->send_rank) +
                               remote_offset;
                m->peer_f[d] = (const int64_t *)nvshmem_ptr(md_par_f(c, d), m->send_rank) +
                               remote_offset;
            }
            m->peer_sig_x = (uint64_t *)nvshmem_ptr(&c->sig->sig_x[p], m->send_rank);
        }
        if (use_direct(c, c->xs, m->recv_rank))
            m->owner_sig_f = (uint64_t *)nvshmem_ptr(&c->sig->sig_f[p], m->recv_rank);
    }
}

/* Test mode: encode each home atom's id in its coordinates, run the step's coordinate
 * halo kernels, and check that every halo slot holds its atom's code plus the periodic
 * shift of its route (a slot above the box edge, as the set-up exchange placed it, got one
 * box length). Restores the coordinates. Returns the problems (first in err). */
static int64_t halo_selftest(md_par_pe *c, md_error *err)
{
    md_pe *pe = &c->pe;
    const int64_t *box = c->grid.box;
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < pe->n_home; i++)
            md_par_x(c, d)[i] = pe->at.id[i] * 8 + d;
    nvshmem_barrier_all(); /* every PE's codes are in place before anyone packs */
    md_par_halo_x(c);
    cudaDeviceSynchronize();
    int64_t bad = 0;
    for (int32_t k = pe->n_home; k < pe->at.n; k++)
        for (int d = 0; d < 3; d++) {
            int64_t want = pe->at.id[k] * 8 + d + (pe->at.x[d][k] >= box[d] ? box[d] : 0);
            int64_t got = md_par_x(c, d)[k];
            if (got != want && !bad++)
                md_fail(err, "PE %d: halo slot %d (atom %lld) holds code %lld in %c, "
                        "expected %lld", c->me, k, (long long)pe->at.id[k], (long long)got,
                        'x' + d, (long long)want);
        }
    c->halo_checks += (int64_t)(pe->at.n - pe->n_home);
    nvshmem_barrier_all(); /* everyone has read its halo before the positions return */
    for (int d = 0; d < 3; d++)
        memcpy(md_par_x(c, d), pe->at.x[d], (size_t)pe->at.n * sizeof(int64_t));
    return bad;
}

int md_par_search(md_par_pe *c, md_error *err)
{
    md_pe *pe = &c->pe;
    for (int d = 0; d < 3; d++)
        memcpy(pe->at.x[d], md_par_x(c, d), (size_t)pe->n_home * sizeof(int64_t));
    redistribute(c);
    md_dd_sort_home(&c->grid, pe);
    build_pulses(c);
    int failed = 0;
    if (pe->at.n > c->job->cap)
        failed = md_fail(err, "PE %d holds %d atoms (home and halo), more than its arrays "
                         "(%d): a bug in the decomposition", c->me, pe->at.n, c->job->cap);
    else if (md_pairlist_build(&pe->local, &pe->nonlocal, &pe->cells, &pe->region, &pe->at,
                               pe->at.n, pe->n_home, c->lj.rlist2, err) != 0)
        failed = -1;
    if (md_par_any_failed(c, failed != 0))
        return failed ? -1 : md_fail(err, "another PE failed at the search");
    exchange_offsets(c);
    device_pulses(c);
    for (int d = 0; d < 3; d++)
        memcpy(md_par_x(c, d), pe->at.x[d], (size_t)pe->at.n * sizeof(int64_t));
    if (c->job->opt.check_halo) {
        int64_t bad = halo_selftest(c, err);
        if (md_par_any_failed(c, bad != 0))
            return bad ? -1 : md_fail(err, "another PE found wrong halo slots");
    }
    nvshmem_barrier_all(); /* every PE's halo and pulse table are set before the kernels */
    return 0;
}
