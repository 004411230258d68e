/*
 * par_direct26.c: the direct ghost exchange (--halo direct26): HOOMD-blue's communication
 * (Glaser et al. 2015, §4.3 and §5.3; docs/papers.md) as a halo variant of the parallel
 * driver. docs/md.md "Direct exchange (--halo direct26)" has the whole argument.
 *
 * Search step (d26_search, the variant's search, which md_par_search calls after its
 * redistribution: every atom to the PE that owns its wrapped position, home atoms sorted by
 * (search cell, id): the same migration as the staged variants):
 *   1. the ghost lists, HOOMD's way (dd_direct26.c): each home atom's set of neighbour
 *      directions (within rhalo of that face, edge or corner), expanded to (atom,
 *      direction) pairs, sorted by direction (stable), gathered per direction;
 *   2. the set-up exchange through symmetric memory: the PEs agree on the largest buffer
 *      (collective max, one nvshmem_malloc), each publishes per direction its count and
 *      rows (id, type, shifted x); each reads, for each of its directions, what the
 *      neighbour published for the opposite direction and appends it: local arrays are
 *      [home | ghosts from direction 0 | 1 | ...] in increasing direction code; then each
 *      publishes its atom offsets and reads where its own sends land on each neighbour;
 *   3. pair lists: home-home once, home-ghost all, no ghost-ghost (direct26.h), the
 *      home-ghost pairs split by global id into `own` (par.c's non-local list) and
 *      `other`; the device tables (transport per direction: put-with-signal when asked or
 *      when nvshmem_ptr does not reach the neighbour, else direct stores).
 * Every step: exchange_x is one kernel (kernels/halo_direct26.c), all directions at once,
 * one signal per direction carrying the exchange's seq. exchange_f returns no forces: it
 * computes the `other` pairs (energy off) into a buffer of its own, acknowledges the
 * ghosts to every neighbour (they may overwrite them next step: a one-sided store needs
 * this back pressure, which the staged exchange gets from its force return), and adds the
 * `other` forces to the home atoms' non-local forces.
 *
 * Exactness. Positions are integers and a ghost's coordinates are its owner's plus a box
 * multiple, so PE A's displacement for (home i, ghost j) is exactly the negation of PE B's
 * for (home j, ghost i), and md_pair_force_fx rounds to nearest even, symmetric under
 * negation: A adds to i exactly what the staged exchange's one computation of the pair
 * gives i, and B to j. Integer sums in any order: every home atom's force, hence the
 * checksum, is the staged exchange's bit for bit at every step.
 *
 * Energies and virial: each home-ghost pair is computed on two PEs; it is counted once, on
 * the PE whose home atom has the smaller global id (the `own` list, par.c's non-local
 * kernel with the step's energy flag); the `other` list never sums energies (its counters
 * go to a buffer nobody reads). Halving the global non-local sum would also be exact (it
 * is even), but par.c's sample adds every force-kernel counter as it is; splitting by id
 * keeps the thermo lines equal to the staged run's with no change there, at the cost of a
 * second non-local launch.
 *
 * Limits: domains at least rhalo thick (one shell of neighbours; the staged exchange's
 * second pulse has no counterpart here), and home + ghosts within the driver's per-PE
 * arrays (the system's atoms + 64): with two domains along a dimension the ghosts come from
 * both sides, so a small box can need more; both are refused with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "direct26.h"
#include "fixed.h"
#include "kernels/halo_direct26.h"
#include "md_assert.h"
#include "par_int.h"
#include "util.h"

enum { ROW = 5 };                  /* set-up row: id, type, x[3] shifted */
enum { HDR = 2 * MD_D26_CODES };   /* buf header: count by code, first row by code */
enum { CTL_NEED = 0, CTL_OFFSET = 1, CTL_N = 1 + MD_D26_CODES };
enum { ADD_THREADS = 256 };

typedef struct md_par_d26 {
    int ndir;
    md_d26_dir dir[MD_D26_DIRS];      /* increasing code */
    int32_t start[MD_D26_DIRS + 1];   /* send[start[k] .. start[k+1]): dir[k]'s home atoms */
    int32_t *send;
    int64_t cap_send;
    int32_t recv_size[MD_D26_DIRS], atom_offset[MD_D26_DIRS], remote_offset[MD_D26_DIRS];
    md_region region;
    md_pairlist all, other;           /* host: every home-ghost pair; the `other` half */
    /* symmetric */
    md_d26_sig *sig;
    int64_t *ctl;                     /* [CTL_N]: buffer need, atom offsets by code */
    int64_t *buf;                     /* search: HDR + set-up rows; steps: staging [3 send] */
    int64_t cap_buf;
    /* device */
    md_d26_nbr hnbr[MD_D26_DIRS];     /* the host's copy of nbr */
    md_d26_nbr *nbr;
    int32_t *imap;
    int64_t cap_imap;
    md_pairlist *list_other;
    md_ientry *ent;
    int32_t *jl;
    int64_t cap_ent, cap_jl;
    int64_t *fo;                      /* [3 cap] forces of the `other` pairs */
    double *xd;                       /* [3 cap] */
    int64_t *scratch;                 /* [G][3][cap] */
    md_force_acc *acc;                /* [G]: the `other` kernel's counters, never summed */
} md_par_d26;

static md_par_d26 *d26_alloc(md_par_pe *c)
{
    const size_t cap = (size_t)c->job->cap;
    md_par_d26 *d = (md_par_d26 *)md_xcalloc(1, sizeof *d);
    d->sig = (md_d26_sig *)md_sym_alloc(sizeof *d->sig, "d26 sig");
    d->ctl = (int64_t *)md_sym_alloc(CTL_N * sizeof(int64_t), "d26 ctl");
    MD_CUDA(cudaMemset(d->sig, 0, sizeof *d->sig));
    MD_CUDA(cudaMemset(d->ctl, 0, CTL_N * sizeof(int64_t)));
    md_dev_alloc((void **)&d->nbr, MD_D26_DIRS * sizeof *d->nbr, "d26 nbr");
    md_dev_alloc((void **)&d->list_other, sizeof *d->list_other, "d26 list_other");
    md_dev_alloc((void **)&d->fo, 3 * cap * sizeof(int64_t), "d26 fo");
    md_dev_alloc((void **)&d->xd, 3 * cap * sizeof(double), "d26 xd");
    md_dev_alloc((void **)&d->scratch,
                 (c->G > 1 ? (size_t)c->G * 3 * cap : 1) * sizeof(int64_t), "d26 scratch");
    md_dev_alloc((void **)&d->acc, (size_t)c->G * sizeof *d->acc, "d26 acc");
    MD_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all(); /* the signal words are zero before any peer writes one */
    return d;
}

static void d26_release(md_par_pe *c)
{
    md_par_d26 *d = c->d26;
    if (!d)
        return;
    nvshmem_free(d->sig);
    nvshmem_free(d->ctl);
    if (d->buf)
        nvshmem_free(d->buf);
    MD_CUDA(cudaFree(d->nbr));
    MD_CUDA(cudaFree(d->imap));
    MD_CUDA(cudaFree(d->list_other));
    MD_CUDA(cudaFree(d->ent));
    MD_CUDA(cudaFree(d->jl));
    MD_CUDA(cudaFree(d->fo));
    MD_CUDA(cudaFree(d->xd));
    MD_CUDA(cudaFree(d->scratch));
    MD_CUDA(cudaFree(d->acc));
    md_pairlist_free(&d->all);
    md_pairlist_free(&d->other);
    free(d->send);
    free(d);
    c->d26 = NULL;
}

/* ---- the search ------------------------------------------------------------------------- */

/* Collective: the largest `need` of all PEs; buf grows (one nvshmem_malloc on every PE,
 * the same size) when it is smaller. */
static void agree_buffer(md_par_pe *c, int64_t need)
{
    md_par_d26 *d = c->d26;
    md_par_sym_write(c, &d->ctl[CTL_NEED], &need, sizeof need);
    nvshmem_barrier_all();
    int64_t most = 0;
    for (int r = 0; r < c->npes; r++) {
        int64_t v;
        md_par_sym_read(c, &v, &d->ctl[CTL_NEED], sizeof v, r);
        most = v > most ? v : most;
    }
    nvshmem_barrier_all();
    if (most > d->cap_buf) {
        if (d->buf)
            nvshmem_free(d->buf);
        d->cap_buf = most + most / 4 + 64;
        d->buf = (int64_t *)md_sym_alloc((size_t)d->cap_buf * sizeof(int64_t), "d26 buf");
    }
}

/* The set-up exchange: publish our rows per direction, append each neighbour's rows for us
 * as ghosts. Returns 1 when they would not fit the arrays (nothing is appended then). */
static int setup_exchange(md_par_pe *c, md_error *err)
{
    md_par_d26 *d = c->d26;
    md_pe *pe = &c->pe;
    const int64_t nsend = d->start[d->ndir];
    int64_t *pub = (int64_t *)md_xcalloc((size_t)(HDR + ROW * nsend + 1), sizeof *pub);
    for (int k = 0; k < d->ndir; k++) {
        const int code = d->dir[k].code;
        pub[code] = d->start[k + 1] - d->start[k];
        pub[MD_D26_CODES + code] = d->start[k];
        for (int32_t s = d->start[k]; s < d->start[k + 1]; s++) {
            const int32_t i = d->send[s];
            int64_t *row = pub + HDR + (int64_t)s * ROW;
            row[0] = pe->at.id[i];
            row[1] = pe->at.type[i];
            for (int e = 0; e < 3; e++)
                row[2 + e] = pe->at.x[e][i] + d->dir[k].shift[e];
        }
    }
    md_par_sym_write(c, d->buf, pub, (size_t)(HDR + ROW * nsend) * sizeof *pub);
    free(pub);
    nvshmem_barrier_all();
    int too_many = 0;
    for (int k = 0; k < d->ndir; k++) {
        const int slot = 26 - d->dir[k].code, from = d->dir[k].rank;
        int64_t n, first;
        md_par_sym_read(c, &n, d->buf + slot, sizeof n, from);
        md_par_sym_read(c, &first, d->buf + MD_D26_CODES + slot, sizeof first, from);
        d->atom_offset[k] = pe->at.n;
        d->recv_size[k] = 0;
        if (too_many || pe->at.n + n > c->job->cap) {
            if (!too_many++)
                md_fail(err, "--halo direct26: PE %d would hold more than %d atoms (home and "
                        "ghosts): its ghosts come from both sides of each decomposed "
                        "dimension, which in this box is more than the per-PE arrays "
                        "(the system's atoms + 64) hold; use a larger system, fewer "
                        "domains, or --halo fused", c->me, c->job->cap);
            continue;
        }
        int64_t *rows = (int64_t *)md_xmalloc((size_t)(n * ROW + 1) * sizeof *rows);
        if (n > 0)
            md_par_sym_read(c, rows, d->buf + HDR + first * ROW, (size_t)(n * ROW) * sizeof *rows,
                            from);
        md_atoms_reserve(&pe->at, pe->at.n + (int32_t)n);
        for (int64_t q = 0; q < n; q++) {
            const int64_t *row = rows + q * ROW;
            const int32_t o = pe->at.n++;
            pe->at.id[o] = row[0];
            pe->at.type[o] = (int32_t)row[1];
            pe->at.zone[o] = 1; /* any non-zero zone: ghost-ghost pairs are not listed */
            for (int e = 0; e < 3; e++) {
                pe->at.x[e][o] = row[2 + e];
                pe->at.p[e][o] = 0;
                pe->at.f[e][o] = 0;
                pe->at.img[e][o] = 0;
            }
        }
        d->recv_size[k] = (int32_t)n;
        free(rows);
    }
    nvshmem_barrier_all(); /* every PE has read our rows: buf may hold staging again */
    return too_many != 0;
}

/* Our atom offsets by direction code; each neighbour's offset for us. */
static void exchange_offsets(md_par_pe *c)
{
    md_par_d26 *d = c->d26;
    int64_t off[MD_D26_CODES];
    memset(off, 0, sizeof off);
    for (int k = 0; k < d->ndir; k++)
        off[d->dir[k].code] = d->atom_offset[k];
    md_par_sym_write(c, &d->ctl[CTL_OFFSET], off, sizeof off);
    nvshmem_barrier_all();
    for (int k = 0; k < d->ndir; k++) {
        int64_t v;
        md_par_sym_read(c, &v, &d->ctl[CTL_OFFSET + 26 - d->dir[k].code], sizeof v,
                        d->dir[k].rank);
        d->remote_offset[k] = (int32_t)v;
    }
    nvshmem_barrier_all();
}

/* The send lists of this search to the device: the kernels' index maps. Every search,
 * whether or not the buffer grows: the lists name home atoms by index, and the indices
 * change with every redistribution. */
static void upload_send_lists(md_par_d26 *d)
{
    const int64_t nsend = d->start[d->ndir];
    const bool grow = nsend > d->cap_imap || !d->imap;
    if (grow) {
        MD_CUDA(cudaFree(d->imap));
        d->cap_imap = nsend + nsend / 4 + 16;
        md_dev_alloc((void **)&d->imap, (size_t)d->cap_imap * sizeof(int32_t), "d26 imap");
    }
    if (md_bug(MD_BUG_D26_STALE_SEND_LIST) && !grow)
        return; /* the mistake: copied with a new buffer only, so the maps of an earlier
                 * search stay on the device */
    if (nsend > 0)
        MD_CUDA(cudaMemcpy(d->imap, d->send, (size_t)nsend * sizeof(int32_t),
                           cudaMemcpyHostToDevice));
}

/* The device neighbour table, the index maps and the three pair lists. */
static void device_tables(md_par_pe *c)
{
    md_par_d26 *d = c->d26;
    upload_send_lists(d);
    const bool signal = c->job->opt.transport == MD_TRANSPORT_SIGNAL;
    for (int k = 0; k < d->ndir; k++) {
        const md_d26_dir *dr = &d->dir[k];
        md_d26_nbr *n = &d->hnbr[k];
        memset(n, 0, sizeof *n);
        n->code = dr->code;
        n->slot = 26 - dr->code;
        md_dpulse *m = &n->m;
        m->send_rank = m->recv_rank = dr->rank;
        m->send_size = d->start[k + 1] - d->start[k];
        m->n_indep = m->send_size;
        m->recv_size = d->recv_size[k];
        m->atom_offset = d->atom_offset[k];
        m->remote_offset = d->remote_offset[k];
        for (int e = 0; e < 3; e++)
            m->shift[e] = dr->shift[e];
        m->index_map = d->imap + d->start[k];
        /* The two ends need not agree: each end's writes land in the other's words, and
         * each waits only on its own. */
        m->xport = signal || !nvshmem_ptr(c->xs, dr->rank) ? MD_XPORT_SIGNAL : MD_XPORT_DIRECT;
        if (m->xport == MD_XPORT_SIGNAL) {
            m->xstage = d->buf + 3 * (int64_t)d->start[k];
        } else {
            for (int e = 0; e < 3; e++)
                m->peer_x[e] = (int64_t *)nvshmem_ptr(md_par_x(c, e), dr->rank) +
                               m->remote_offset;
            m->peer_sig_x = (uint64_t *)nvshmem_ptr(&d->sig->x[n->slot], dr->rank);
            n->peer_ack = (uint64_t *)nvshmem_ptr(&d->sig->ack[n->slot], dr->rank);
        }
    }
    MD_CUDA(cudaMemcpy(d->nbr, d->hnbr, MD_D26_DIRS * sizeof *d->nbr, cudaMemcpyHostToDevice));
    md_par_device_lists(c, &c->pe.nonlocal); /* its `own` half */
    md_pairlist other;
    md_par_upload_list(&d->other, &d->ent, &d->jl, &d->cap_ent, &d->cap_jl, &other,
                       "d26 other pair list");
    MD_CUDA(cudaMemcpy(d->list_other, &other, sizeof other, cudaMemcpyHostToDevice));
}

/* --check: ids in the home coordinates, one ghost update, every ghost slot checked (its
 * owner's code minus our shift toward it: the owner's shift toward us). Restores x. */
static int64_t selftest(md_par_pe *c, md_error *err)
{
    md_par_d26 *d = c->d26;
    md_pe *pe = &c->pe;
    int64_t *code = md_par_halo_codes(c);
    int64_t bad = 0;
    for (int k = 0; k < d->ndir; k++)
        for (int32_t s = 0; s < d->recv_size[k]; s++) {
            const int32_t g = d->atom_offset[k] + s;
            for (int e = 0; e < 3; e++) {
                const int64_t want = pe->at.id[g] * 8 + e - d->dir[k].shift[e];
                const int64_t got = code[(size_t)e * pe->at.n + g];
                if (got != want && !bad++)
                    md_fail(err, "direct26 ghost slot %d (atom %lld, direction %d) "
                            "holds code %lld in %c, expected %lld", g,
                            (long long)pe->at.id[g], d->dir[k].code, (long long)got,
                            'x' + e, (long long)want);
            }
        }
    md_par_halo_codes_done(c, code);
    return bad;
}

/* At a search (every kernel done): each word of the last search's directions holds the
 * count of its exchanges: x and cnt the coordinate exchanges, ack the force steps. */
static void check_words(md_par_pe *c)
{
    md_par_d26 *d = c->d26;
    md_d26_sig w;
    MD_CUDA(cudaMemcpy(&w, d->sig, sizeof w, cudaMemcpyDeviceToHost));
    const uint64_t nb = (uint64_t)c->job->opt.halo_blocks;
    const char *hint = "a direct26 signal word does not match the exchange count at a quiet "
                       "point: a signal was lost, sent twice, or a sequence number went "
                       "backwards (kernels/halo_direct26.h); report it with the command line";
    for (int k = 0; k < d->ndir; k++) {
        const int code = d->dir[k].code;
        if (!c->seq_x_stuck) {
            MD_ASSERT_HINT(w.x[code] == c->seq_x, hint);
            MD_ASSERT_HINT(w.cnt[code] == nb * c->seq_x, hint);
        }
        MD_ASSERT_HINT(w.ack[code] == c->seq_f, hint);
    }
}

static int d26_search(md_par_pe *c, md_error *err)
{
    md_pe *pe = &c->pe;
    const md_grid *g = &c->grid;
    if (!md_d26_fits(g)) /* the grid is the same on every PE: all return here */
        return c->me != 0 ? md_fail(err, "another PE failed at the search")
                          : md_fail(err, "--halo direct26: the domains are thinner than the "
                                    "halo depth %.4g σ along a decomposed dimension, so "
                                    "ghosts would come from two domains away; direct26 "
                                    "exchanges with the nearest 26 only: use fewer domains "
                                    "(--dd) or --halo fused", md_pos_to_double(g->rhalo));
    if (!c->d26)
        c->d26 = d26_alloc(c);
    md_par_d26 *d = c->d26;
    check_words(c);
    d->ndir = md_d26_dirs(g, pe->cell, d->dir);
    pe->at.n = pe->n_home;
    md_d26_sends(g, pe->cell, &pe->at, pe->n_home, d->dir, d->ndir, d->start, &d->send,
                 &d->cap_send);
    agree_buffer(c, HDR + ROW * (int64_t)d->start[d->ndir]);
    int failed = setup_exchange(c, err);
    exchange_offsets(c);
    if (!failed) {
        md_d26_region(g, pe, &d->region);
        if (md_pairlist_build(&pe->local, &d->all, &pe->cells, &d->region, &pe->at, pe->at.n,
                              pe->n_home, c->lj.rlist2, err) != 0)
            failed = 1;
        else
            md_d26_split(&d->all, pe->at.id, &pe->nonlocal, &d->other);
    }
    if (md_par_any_failed(c, failed))
        return failed ? -1 : md_fail(err, "another PE failed at the search");
    device_tables(c);
    md_par_upload_state(c);
    if (c->job->opt.check_halo) {
        const int64_t bad = selftest(c, err);
        if (md_par_any_failed(c, bad != 0))
            return bad ? -1 : md_fail(err, "another PE found wrong ghost slots");
    }
    MD_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all(); /* every PE's ghosts and tables are set before the kernels */
    return 0;
}

/* ---- a step ------------------------------------------------------------------------------ */

static md_d26_args d26_args(md_par_pe *c, uint64_t seq, md_trole r)
{
    md_d26_args a;
    memset(&a, 0, sizeof a);
    a.nbr = c->d26->nbr;
    a.nnbr = c->d26->ndir;
    for (int e = 0; e < 3; e++)
        a.x[e] = md_par_x(c, e);
    a.sig = c->d26->sig;
    a.seq = seq;
    a.ack_seq = c->seq_f; /* the last force step: its reads of the ghosts we send are over */
    a.ts = md_par_timer_slot(&c->timer, r);
    return a;
}

/* The ghost update: one kernel, every direction at once. */
static void d26_x(md_par_pe *c, cudaStream_t s)
{
    if (!c->d26 || c->d26->ndir == 0)
        return;
    md_d26_args a = d26_args(c, md_par_next_seq_x(c), MD_TR_HALO_X);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    LAUNCH(md_d26_pack_comm_x, DIM3(nb, c->d26->ndir, 1), DIM3(nt, 1, 1), 0, s, a);
    MD_CUDA(cudaGetLastError()); /* the launch */
}

/* Blocks of per_block threads for n items, as par.c sizes the force kernels. */
static int blocks_for(const md_par_pe *c, int64_t n, int per_block)
{
    const int64_t nb = (n + per_block - 1) / per_block;
    const int64_t most = MD_FORCE_BUILD_DEFAULT == MD_FORCE_THREADS ? 1048576 : c->G;
    return nb < 1 ? 1 : nb > most ? (int)most : (int)nb;
}

/* The `other` home-ghost pairs (energy off) into fo, in the run's force-kernel form. */
static void other_forces(md_par_pe *c, cudaStream_t s)
{
    md_par_d26 *d = c->d26;
    const int32_t cap = c->job->cap;
    md_force_args a;
    memset(&a, 0, sizeof a);
    a.list = d->list_other;
    a.lj = c->lj_d;
    for (int e = 0; e < 3; e++) {
        a.x[e] = md_par_x(c, e);
        a.xd[e] = d->xd + (int64_t)e * cap;
        a.f[e] = d->fo + (int64_t)e * cap;
    }
    a.n_conv = c->pe.at.n;
    a.n_out = c->pe.n_home;
    a.scratch = d->scratch;
    a.acc = d->acc;
    a.nacc = c->G;
    a.energy = 0;
    a.ts = md_par_timer_slot(&c->timer, MD_TR_NONLOCAL);
    if (c->force == MD_FORCE_THREADS) {
        enum { T = 128 };
        const int nb = c->job->opt.force_blocks > 0 ? c->job->opt.force_blocks
                                                    : blocks_for(c, d->other.nent, T);
        LAUNCH(md_nonbonded_prep, DIM3(blocks_for(c, a.n_conv, T), 1, 1), DIM3(T, 1, 1), 0, s,
               a);
        LAUNCH(md_nonbonded_entries, DIM3(nb, 1, 1), DIM3(T, 1, 1), 0, s, a);
    } else {
        LAUNCH_COOP(md_nonbonded, DIM3(c->G, 1, 1), DIM3(1, 1, 1), 0, s, a);
    }
}

/* The acknowledgements of force step seq_f to every neighbour: the ghosts it sent us may be
 * overwritten. */
static void acknowledge(md_par_pe *c, cudaStream_t s)
{
    md_d26_args a = d26_args(c, c->seq_f, MD_TR_HALO_F);
    LAUNCH(md_d26_ack, DIM3(1, c->d26->ndir, 1), DIM3(1, 1, 1), 0, s, a);
}

/* The ghosts' last reader, the `other` half, then the acknowledgement (stream order on s,
 * after the `own` half that par.c launched before). */
static void last_reads_then_ack(md_par_pe *c, cudaStream_t s)
{
    if (md_bug(MD_BUG_D26_ACK_BEFORE_READS)) { /* the mistake: acknowledged after `own` only */
        acknowledge(c, s);
        other_forces(c, s);
    } else {
        other_forces(c, s);
        acknowledge(c, s);
    }
}

/* No forces travel: the `other` pairs, the acknowledgements, the add. */
static void d26_f(md_par_pe *c, cudaStream_t s)
{
    md_par_d26 *d = c->d26;
    if (!d || d->ndir == 0)
        return;
    ++c->seq_f;
    last_reads_then_ack(c, s);
    md_d26_add_args add;
    memset(&add, 0, sizeof add);
    add.n = c->pe.n_home;
    for (int e = 0; e < 3; e++) {
        add.fnl[e] = md_par_f(c, e);
        add.fadd[e] = d->fo + (int64_t)e * c->job->cap;
    }
    if (c->force == MD_FORCE_THREADS)
        LAUNCH(md_d26_add_f, DIM3(blocks_for(c, add.n, ADD_THREADS), 1, 1),
               DIM3(ADD_THREADS, 1, 1), 0, s, add);
    else
        LAUNCH(md_d26_add_f, DIM3(c->G, 1, 1), DIM3(1, 1, 1), 0, s, add);
    MD_CUDA(cudaGetLastError()); /* the launches */
}

/* The routes are the neighbour directions of the last search. */
static void d26_routes(const md_par_pe *c, int *direct, int *signal, int *bulk)
{
    const md_par_d26 *d = c->d26;
    if (d == NULL) /* refused before its first search */
        return;
    for (int k = 0; k < d->ndir; k++) {
        *direct += d->hnbr[k].m.xport != MD_XPORT_SIGNAL;
        *signal += d->hnbr[k].m.xport == MD_XPORT_SIGNAL;
        *bulk += d->hnbr[k].m.xport == MD_XPORT_BULK;
    }
}

/* What a step sends: the neighbour table of the last search (par_stats.c counts it). */
static void d26_traffic(const md_par_pe *c, md_step_traffic *t)
{
    md_par_d26_traffic(c->d26->hnbr, c->d26->ndir, t);
}

const md_halo_ops md_halo_direct26 = {"direct26", true, d26_x, d26_f,
                                       d26_search, d26_routes, d26_release, d26_traffic};
