/*
 * par_setup.c: a search step of the parallel driver, on each PE thread. Host work, the
 * only host work inside a run besides output: the streams are idle (par.c synchronized).
 *
 *   1. redistribution: every PE publishes its home atoms (id, type, wrapped x, p, and the
 *      image flags, which count the box lengths the wrap moved them: x + img·L is kept) in its
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
 *      table gets each pulse's transport (choose_transports, the one policy) and the
 *      peers' addresses (nvshmem_ptr; NULL on the signal transport).
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "fixed.h"
#include "md_assert.h"
#include "par_int.h"
#include "par_steps.h"
#include "shmemu/bugs.h"
#include "util.h"

enum { PUB_ROW = MD_PAR_PUB_ROW, XCH_ROW = 6 };

/* The bounce area holds as many int64 as pub. */
static size_t bounce_bytes(const md_par_pe *c)
{
    return (size_t)(1 + PUB_ROW * (int64_t)c->job->cap + 64) * sizeof(int64_t);
}

/* A copy from pageable host memory may return before it has landed on the GPU, and the
 * legacy stream does not order the non-blocking ones: every upload here and in the search
 * is followed by a device synchronize before a barrier or a kernel can see it. */
void md_par_sym_write(md_par_pe *c, void *sym, const void *src, size_t bytes)
{
    (void)c;
    if (bytes > 0)
        MD_CUDA(cudaMemcpy(sym, src, bytes, cudaMemcpyHostToDevice));
    MD_CUDA(cudaDeviceSynchronize());
}

void md_par_sym_read(md_par_pe *c, void *dst, const void *sym, size_t bytes, int pe)
{
    const size_t chunk = bounce_bytes(c);
    for (size_t done = 0; done < bytes; done += chunk) {
        const size_t n = bytes - done < chunk ? bytes - done : chunk;
        nvshmem_getmem(c->bounce, (const char *)sym + done, n, pe);
        MD_CUDA(cudaMemcpy((char *)dst + done, c->bounce, n, cudaMemcpyDeviceToHost));
    }
}

int md_par_any_failed(md_par_pe *c, int mine)
{
    const int64_t v0 = mine;
    md_par_sym_write(c, &c->small[0], &v0, sizeof v0);
    nvshmem_barrier_all();
    int any = 0;
    for (int r = 0; r < c->npes; r++) {
        int64_t v;
        md_par_sym_read(c, &v, &c->small[0], sizeof v, r);
        any |= v != 0;
    }
    nvshmem_barrier_all();
    return any;
}

/* Reads PE r's published count and rows into a local array (rows of `row` int64). */
static int64_t *read_published(md_par_pe *c, int r, int row, int64_t *count)
{
    md_par_sym_read(c, count, c->pub, sizeof *count, r);
    int64_t *rows = (int64_t *)md_xmalloc((size_t)(*count * row + 1) * sizeof *rows);
    if (*count > 0)
        md_par_sym_read(c, rows, c->pub + 1, (size_t)(*count * row) * sizeof *rows, r);
    return rows;
}

static void redistribute(md_par_pe *c)
{
    md_pe *pe = &c->pe;
    const md_grid *g = &c->grid;
    const size_t pub_bytes = (size_t)(1 + (int64_t)pe->n_home * PUB_ROW) * sizeof(int64_t);
    int64_t *pub = (int64_t *)md_xmalloc(pub_bytes);
    pub[0] = pe->n_home;
    for (int32_t i = 0; i < pe->n_home; i++) {
        int64_t *row = pub + 1 + (int64_t)i * PUB_ROW;
        row[0] = pe->at.id[i];
        row[1] = pe->at.type[i];
        for (int d = 0; d < 3; d++) { /* the wrap moves the atom by whole box lengths: its
                                       * image flag counts them and travels with it */
            row[2 + d] = md_wrap(pe->at.x[d][i], g->box[d]);
            row[5 + d] = pe->at.p[d][i];
            row[8 + d] = pe->at.img[d][i] + md_wrap_count(pe->at.x[d][i], g->box[d]);
        }
    }
    md_par_sym_write(c, c->pub, pub, pub_bytes);
    free(pub);
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
                pe->at.img[d][o] = (int32_t)row[8 + d];
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
        const size_t pub_bytes = (size_t)(1 + (int64_t)sp->send_size * XCH_ROW) * sizeof(int64_t);
        int64_t *pub = (int64_t *)md_xmalloc(pub_bytes);
        pub[0] = sp->send_size;
        for (int32_t s = 0; s < sp->send_size; s++) {
            int32_t i = sp->index_map[s];
            int64_t *row = pub + 1 + (int64_t)s * XCH_ROW;
            row[0] = pe->at.id[i];
            row[1] = pe->at.type[i];
            row[2] = pe->at.zone[i];
            for (int d = 0; d < 3; d++)
                row[3 + d] = pe->at.x[d][i] + sp->coord_shift[d];
        }
        md_par_sym_write(c, c->pub, pub, pub_bytes);
        free(pub);
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
                pe->at.img[d][o] = 0; /* halo copies carry no images */
            }
        }
        free(rows);
        nvshmem_barrier_all();
    }
}

/* The pulse table's invariants, which the kernels rely on and cannot check:
 *   - the pulses' receive ranges tile the halo [n_home, at.n) in pulse order, so every halo
 *     slot belongs to one pulse and is written by one sender per exchange (this is the
 *     table's half of "each slot written once per step"; counting the kernels' writes per
 *     slot would need the kernels, and --check-halo's self-test checks the values);
 *   - a pulse sends only atoms held before it: home atoms, or atoms of earlier pulses;
 *   - index_map[0, n_indep) are below dep_offset (packable at once), and every later entry
 *     is at or above it, and an atom received in pulse q is sent only with bit q of
 *     dep_mask set (the fused kernel waits for exactly those pulses: packWithDeps). */
static void check_pulse_table(const md_par_pe *c)
{
    const md_pe *pe = &c->pe;
    const int np = c->grid.total_pulses;
    int32_t next = pe->n_home;
    for (int p = 0; p < np; p++) {
        const md_pulse *mp = &pe->pulse[p];
        MD_ASSERT(mp->atom_offset == next && mp->recv_size >= 0);
        MD_ASSERT(mp->n_indep >= 0 && mp->n_indep <= mp->send_size);
        for (int32_t s = 0; s < mp->send_size; s++) {
            const int32_t i = mp->index_map[s];
            MD_ASSERT(i >= 0 && i < mp->atom_offset);
            MD_ASSERT(s < mp->n_indep ? i < mp->dep_offset : i >= mp->dep_offset);
            if (s < mp->n_indep || i < pe->n_home)
                continue;
            int q = 0;
            while (q < p && i >= pe->pulse[q].atom_offset + pe->pulse[q].recv_size)
                q++;
            MD_ASSERT(q < p && (mp->dep_mask >> q & 1u));
        }
        next += mp->recv_size;
    }
    MD_ASSERT(next == pe->at.n);
}

/* The signal words and election counters at a search, after redistribute's barrier: every
 * PE's streams are idle (each synchronized before that barrier), so no signal is in flight
 * and each word holds what the last exchange left (kernels/halo.h): sig_x[p] the number of
 * the last coordinate exchange, sig_f[p] and the fused kernels' done_f[p] that of the last
 * force exchange, and the fused election counters halo_blocks per exchange. A lost, doubled
 * or out-of-order signal, or a sequence number that went backwards, shows here. Only the
 * variants with signal words (fused, pulse); the planted x-seq-not-incremented keeps seq_x at
 * 1 on purpose (the race checkers' case), so the coordinate words are not checked under it. */
static void check_signals(md_par_pe *c)
{
    const bool fused = c->halo == &md_halo_fused;
    if (!fused && c->halo != &md_halo_pulse)
        return;
    md_dsig s;
    MD_CUDA(cudaMemcpy(&s, c->sig, sizeof s, cudaMemcpyDeviceToHost));
    const uint64_t nb = (uint64_t)c->job->opt.halo_blocks;
    const char *hint = "a halo signal word does not match the exchange count at a quiet "
                       "point: a signal was lost, sent twice, or a sequence number went "
                       "backwards (kernels/halo.h); report it with the command line";
    for (int p = 0; p < c->grid.total_pulses; p++) {
        if (!c->seq_x_stuck) {
            MD_ASSERT_HINT(s.sig_x[p] == c->seq_x, hint);
            MD_ASSERT_HINT(!fused || s.cnt_x[p] == nb * c->seq_x, hint);
        }
        MD_ASSERT_HINT(s.sig_f[p] == c->seq_f, hint);
        MD_ASSERT_HINT(!fused || (s.cnt_f[p] == nb * c->seq_f && s.done_f[p] == c->seq_f),
                       hint);
    }
}

/* Our atom offsets to the PEs that send to us; theirs to us. */
static void exchange_offsets(md_par_pe *c)
{
    int64_t mine[MD_KMAX_PULSES];
    for (int p = 0; p < c->grid.total_pulses; p++)
        mine[p] = c->pe.pulse[p].atom_offset;
    md_par_sym_write(c, &c->small[8], mine, (size_t)c->grid.total_pulses * sizeof *mine);
    nvshmem_barrier_all();
    for (int p = 0; p < c->grid.total_pulses; p++) {
        int64_t v;
        md_par_sym_read(c, &v, &c->small[8 + p], sizeof v, c->pe.pulse[p].send_rank);
        c->hdp[p].remote_offset = (int32_t)v;
    }
    nvshmem_barrier_all();
}

/* The transport policy, the one place a pulse's md_xport is chosen (halo_dev.h): signal
 * when asked (--transport signal) or when, on any PE, nvshmem_ptr does not reach a peer of
 * the pulse (send_rank or recv_rank); else direct, with bulk copies when --bulk-copy is on
 * (auto: MD_BULK_BUILD_DEFAULT). Collective: every PE gets the same value per pulse, so the
 * two ends of each pulse agree (who stores into whom, who reads whose forces). */
static void choose_transports(md_par_pe *c, md_xport xport[MD_KMAX_PULSES])
{
    const md_par_opts *o = &c->job->opt;
    const bool bulk = (o->bulk == MD_BULK_AUTO ? MD_BULK_BUILD_DEFAULT : o->bulk) == MD_BULK_ON;
    int64_t far = 0; /* bit p: pulse p has a peer that some PE cannot address */
    if (o->transport != MD_TRANSPORT_SIGNAL) { /* the same opt on every PE */
        int64_t mine = 0;
        for (int p = 0; p < c->grid.total_pulses; p++)
            if (!nvshmem_ptr(c->xs, c->pe.pulse[p].send_rank) ||
                !nvshmem_ptr(c->xs, c->pe.pulse[p].recv_rank))
                mine |= (int64_t)1 << p;
        md_par_sym_write(c, &c->small[32], &mine, sizeof mine);
        nvshmem_barrier_all();
        for (int r = 0; r < c->npes; r++) {
            int64_t v;
            md_par_sym_read(c, &v, &c->small[32], sizeof v, r);
            far |= v;
        }
        nvshmem_barrier_all();
    }
    for (int p = 0; p < c->grid.total_pulses; p++)
        xport[p] = o->transport == MD_TRANSPORT_SIGNAL || (far >> p & 1) ? MD_XPORT_SIGNAL
                   : bulk                                                ? MD_XPORT_BULK
                                                                         : MD_XPORT_DIRECT;
}

/* The device pulse table (paper 000's Alg. 1 PulseData, docs/papers.md, with the remote pointers
 * resolved), built in hdp and copied to dp, with the index maps. */
static void device_pulses(md_par_pe *c)
{
    const int32_t cap = c->job->cap;
    const md_par_opts *o = &c->job->opt;
    const int32_t chunk = o->bulk_chunk > 0 ? o->bulk_chunk : MD_BULK_SMEM; /* md_par_run checked */
    md_xport xport[MD_KMAX_PULSES];
    choose_transports(c, xport);
    for (int p = 0; p < c->grid.total_pulses; p++) {
        const md_pulse *hp = &c->pe.pulse[p];
        md_dpulse *m = &c->hdp[p];
        int32_t remote_offset = m->remote_offset;
        memset(m, 0, sizeof *m);
        m->send_rank = hp->send_rank;
        m->recv_rank = hp->recv_rank;
        m->send_size = hp->send_size;
        m->recv_size = hp->recv_size;
        m->atom_offset = hp->atom_offset;
        m->remote_offset = remote_offset;
        m->n_indep = md_pulse_n_indep(hp->n_indep, m->send_size);
        m->dep_mask = hp->dep_mask;
        for (int d = 0; d < 3; d++)
            m->shift[d] = md_pulse_shift(hp->coord_shift[d]);
        m->index_map = c->imap + (int64_t)p * cap;
        MD_CUDA(cudaMemcpy(c->imap + (int64_t)p * cap, hp->index_map,
                           (size_t)hp->send_size * sizeof(int32_t), cudaMemcpyHostToDevice));
        m->xstage = c->xstage + (int64_t)p * 3 * cap;
        m->fbuf = c->fbuf + (int64_t)p * 3 * cap;
        /* Coordinates out and forces back travel between the same two PEs each way: we
         * write into send_rank (and read our atoms' forces from it); recv_rank reads ours. */
        m->xport = xport[p];
        if (m->xport != MD_XPORT_SIGNAL) {
            for (int d = 0; d < 3; d++) {
                m->peer_x[d] = (int64_t *)nvshmem_ptr(md_par_x(c, d), m->send_rank) +
                               remote_offset;
                m->peer_f[d] = (const int64_t *)nvshmem_ptr(md_par_f(c, d), m->send_rank) +
                               remote_offset;
            }
            m->peer_sig_x = (uint64_t *)nvshmem_ptr(&c->sig->sig_x[p], m->send_rank);
            m->owner_sig_f = (uint64_t *)nvshmem_ptr(&c->sig->sig_f[p], m->recv_rank);
        }
        if (m->xport == MD_XPORT_BULK)
            m->bulk_chunk = chunk;
    }
    MD_CUDA(cudaMemcpy(c->dp, c->hdp, MD_KMAX_PULSES * sizeof *c->dp, cudaMemcpyHostToDevice));
}

void md_par_upload_list(const md_pairlist *h, md_ientry **ent, int32_t **jl,
                        int64_t *cap_ent, int64_t *cap_jl, md_pairlist *dev, const char *name)
{
    if (h->nent > *cap_ent || !*ent) {
        MD_CUDA(cudaFree(*ent));
        *cap_ent = h->nent + h->nent / 4 + 16;
        md_dev_alloc((void **)ent, (size_t)*cap_ent * sizeof(md_ientry), name);
    }
    if (h->npairs > *cap_jl || !*jl) {
        MD_CUDA(cudaFree(*jl));
        *cap_jl = h->npairs + h->npairs / 4 + 16;
        md_dev_alloc((void **)jl, (size_t)*cap_jl * sizeof(int32_t), name);
    }
    if (h->nent > 0)
        MD_CUDA(cudaMemcpy(*ent, h->ent, (size_t)h->nent * sizeof(md_ientry),
                           cudaMemcpyHostToDevice));
    if (h->npairs > 0)
        MD_CUDA(cudaMemcpy(*jl, h->j, (size_t)h->npairs * sizeof(int32_t), cudaMemcpyHostToDevice));
    *dev = *h;
    dev->ent = *ent;
    dev->j = *jl;
    dev->cap_ent = *cap_ent;
    dev->cap_j = *cap_jl;
}

void md_par_device_lists(md_par_pe *c, const md_pairlist *nonlocal)
{
    md_pairlist dev[2];
    md_par_upload_list(&c->pe.local, &c->ent[0], &c->jlist[0], &c->cap_ent[0], &c->cap_jl[0],
                       &dev[0], "local pair list");
    md_par_upload_list(nonlocal, &c->ent[1], &c->jlist[1], &c->cap_ent[1], &c->cap_jl[1],
                       &dev[1], "non-local pair list");
    MD_CUDA(cudaMemcpy(c->lists, dev, sizeof dev, cudaMemcpyHostToDevice));
}

void md_par_upload_state(md_par_pe *c)
{
    const md_pe *pe = &c->pe;
    const int32_t cap = c->job->cap;
    for (int d = 0; d < 3; d++) {
        MD_CUDA(cudaMemcpy(md_par_x(c, d), pe->at.x[d], (size_t)pe->at.n * sizeof(int64_t),
                           cudaMemcpyHostToDevice));
        MD_CUDA(cudaMemcpy(c->ps + (int64_t)d * cap, pe->at.p[d],
                           (size_t)pe->n_home * sizeof(int64_t), cudaMemcpyHostToDevice));
    }
    MD_CUDA(cudaMemcpy(c->type, pe->at.type, (size_t)pe->n_home * sizeof(int32_t),
                       cudaMemcpyHostToDevice));
}

int64_t *md_par_halo_codes(md_par_pe *c)
{
    md_pe *pe = &c->pe;
    int64_t *code = (int64_t *)md_xmalloc(3 * (size_t)pe->at.n * sizeof(int64_t) + 1);
    for (int d = 0; d < 3; d++) {
        int64_t *cd = code + (size_t)d * pe->at.n;
        for (int32_t i = 0; i < pe->n_home; i++)
            cd[i] = pe->at.id[i] * 8 + d;
        MD_CUDA(cudaMemcpy(md_par_x(c, d), cd, (size_t)pe->n_home * sizeof(int64_t),
                           cudaMemcpyHostToDevice));
    }
    MD_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all(); /* every PE's codes are in place before anyone packs */
    c->halo->exchange_x(c, c->s_nl); /* the run's variant, as a step issues it */
    MD_CUDA(cudaDeviceSynchronize());
    for (int d = 0; d < 3; d++)
        MD_CUDA(cudaMemcpy(code + (size_t)d * pe->at.n, md_par_x(c, d),
                           (size_t)pe->at.n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    return code;
}

void md_par_halo_codes_done(md_par_pe *c, int64_t *code)
{
    md_pe *pe = &c->pe;
    c->halo_checks += (int64_t)(pe->at.n - pe->n_home);
    free(code);
    nvshmem_barrier_all(); /* everyone has read its halo before the positions return */
    for (int d = 0; d < 3; d++)
        MD_CUDA(cudaMemcpy(md_par_x(c, d), pe->at.x[d], (size_t)pe->at.n * sizeof(int64_t),
                           cudaMemcpyHostToDevice));
}

/* Test mode: encode each home atom's id in its coordinates, run the step's coordinate
 * halo kernels, and check that every halo slot holds its atom's code plus the periodic
 * shift of its route (a slot above the box edge, as the set-up exchange placed it, got one
 * box length). Restores the coordinates. Returns the problems (first in err). */
static int64_t halo_selftest(md_par_pe *c, md_error *err)
{
    md_pe *pe = &c->pe;
    const int64_t *box = c->grid.box;
    int64_t *code = md_par_halo_codes(c);
    int64_t bad = 0;
    for (int32_t k = pe->n_home; k < pe->at.n; k++)
        for (int d = 0; d < 3; d++) {
            int64_t want = pe->at.id[k] * 8 + d + (pe->at.x[d][k] >= box[d] ? box[d] : 0);
            int64_t got = code[(size_t)d * pe->at.n + k];
            if (got != want && !bad++)
                md_fail(err, "halo slot %d (atom %lld) holds code %lld in %c, "
                        "expected %lld", k, (long long)pe->at.id[k], (long long)got,
                        'x' + d, (long long)want);
        }
    md_par_halo_codes_done(c, code);
    return bad;
}

int md_par_search(md_par_pe *c, md_error *err)
{
    md_pe *pe = &c->pe;
    const int32_t cap = c->job->cap;
    for (int d = 0; d < 3; d++) { /* the home atoms' state as the kernels left it */
        const size_t bytes = (size_t)pe->n_home * sizeof(int64_t);
        MD_CUDA(cudaMemcpy(pe->at.x[d], md_par_x(c, d), bytes, cudaMemcpyDeviceToHost));
        MD_CUDA(cudaMemcpy(pe->at.p[d], c->ps + (int64_t)d * cap, bytes, cudaMemcpyDeviceToHost));
    }
    redistribute(c);
    md_dd_sort_home(&c->grid, pe);
    if (c->halo->search(c, err) != 0)
        return -1;
    c->halo->traffic(c, &c->step_traffic); /* what each exchange until the next search sends */
    return 0;
}

int md_par_pulse_search(md_par_pe *c, md_error *err)
{
    md_pe *pe = &c->pe;
    check_signals(c); /* the last search's words, before this one's table replaces it */
    build_pulses(c);
    check_pulse_table(c);
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
    md_par_device_lists(c, &pe->nonlocal);
    md_par_upload_state(c);
    if (c->job->opt.check_halo) {
        int64_t bad = halo_selftest(c, err);
        if (md_par_any_failed(c, bad != 0))
            return bad ? -1 : md_fail(err, "another PE found wrong halo slots");
    }
    MD_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all(); /* every PE's halo and pulse table are set before the kernels */
    return 0;
}
