/*
 * par.c: the parallel driver's step loop (par.h), one PE thread each.
 *
 * The step (paper 000 Alg. 2, docs/papers.md) is run_step with forces, one line per
 * launch: update (kick + drift) on the update stream; local forces on the local stream; the
 * coordinate halo, the non-local forces and the force halo on the high-priority non-local
 * stream; the closing kick after both. Each launch function puts its phase's timer marks around its kernels.
 * The halos are the run's variant (md_halo_ops, par_int.h), chosen once by halo_variant.
 *
 * Files, one direction of dependency: par.c (the run, the step, output) calls
 * par_setup.c (search steps: redistribution, pulse table, transports, halo test), the
 * variants par_fused.c, par_pulse.c, par_host.c, par_direct26.c, par_mpi.c (through their
 * md_halo_ops), par_graph.c, par_timing.c and par_stats.c (what the halos send:
 * --halo-stats); the variants and par_setup.c call only par_int.h's inline helpers,
 * par_timing.c, par_stats.c and the kernels (par_setup.c reaches the variant through
 * c->halo); none calls back into par.c.
 *
 * Ordering (why the exchanges need no handshake and signals no reset). Within a PE the
 * streams and events order: update(start) before both force kernels and the coordinate
 * halo; both force paths before update(end). Across PEs, for PE A sending pulse p to B:
 * A's coordinate halo of step n + 1 writes B's halo slots (or puts into them) and B's
 * force halo of step n is read by A (direct) or put into A's fbuf. A packs step n + 1 only
 * after its force halo of step n completed (stream order), which waited for B's force
 * signal of step n, which B sent after its non-local kernel of step n (stream order) had
 * read those halo slots. So B's slots are free when A overwrites them, and B's signal word
 * for step n has been consumed before A can set step n + 1's value. B overwrites its halo
 * forces (the non-local kernel writes them) only after its coordinate halo of step n + 1
 * saw A's signal, which A sent after reading B's forces of step n. Search steps replace
 * the halo exchange with host work between barriers.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_check.h"
#include "fixed.h"
#include "kinetic.h"
#include "md_assert.h"
#include "par_int.h"
#include "par_steps.h"
#include "params.h"
#include "shmemu/pgas.h"
#include "sim.h"
#include "util.h"

void md_par_opts_default(md_par_opts *o)
{
    memset(o, 0, sizeof *o);
    o->halo = MD_HALO_FUSED;
    o->transport = MD_TRANSPORT_AUTO;
    o->halo_blocks = 2;
    o->halo_threads = 32;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- kernels of a step ------------------------------------------------------------------ */

/* The coordinate halo of a step, the run's variant, on the non-local stream. */
static void halo_x(md_par_pe *c)
{
    md_par_timer_mark(&c->timer, MD_PH_HALO_X, 0, c->s_nl);
    c->halo->exchange_x(c, c->s_nl);
    md_par_timer_mark(&c->timer, MD_PH_HALO_X, 1, c->s_nl);
    md_traffic_add(&c->traffic.sum.x, &c->step_traffic.x); /* par_stats.h */
    c->traffic.nx++;
}

/* The force halo of a step, the run's variant, on stream s (the non-local stream). */
static void halo_f(md_par_pe *c, cudaStream_t s)
{
    md_par_timer_mark(&c->timer, MD_PH_HALO_F, 0, c->s_nl);
    c->halo->exchange_f(c, s);
    md_par_timer_mark(&c->timer, MD_PH_HALO_F, 1, c->s_nl);
    md_traffic_add(&c->traffic.sum.f, &c->step_traffic.f);
    c->traffic.nf++;
}

/* par_mpi.c links MPI, so only the programs that run it link it (bin/shmemu-md and the CUDA
 * build: md/md.mk, md/cuda.mk); libshmemu_md.a leaves it out. Weak here: in a program
 * without it (the md tests) these are NULL and md_par_run refuses --halo mpi. */
extern const md_halo_ops md_halo_mpi __attribute__((weak));
int md_par_mpi_check(md_error *err) __attribute__((weak));

/* The variant of --halo (par_int.h md_halo_ops): the one place a kind names its file. */
static const md_halo_ops *halo_variant(md_halo_kind k)
{
    switch (k) {
    case MD_HALO_FUSED:
        return &md_halo_fused;
    case MD_HALO_HOST:
        return &md_halo_host;
    case MD_HALO_DIRECT26: return &md_halo_direct26;
    case MD_HALO_MPI: return &md_halo_mpi;
    default: /* MD_HALO_PULSE (MD_HALO_SERIAL never reaches the parallel driver) */
        return &md_halo_pulse;
    }
}

/* Threads per block of the thread-per-entry force kernels and of the update kernel on that
 * path (a multiple of the warp: md_nonbonded_entries sums its counters per warp). */
enum { MD_FORCE_THREADS_PER_BLOCK = 128, MD_UPDATE_THREADS_PER_BLOCK = 256 };

/* Blocks of per_block threads for n items (the kernels stride, so fewer also cover n). On
 * the CPU build at most G: the emulator's blocks are pthreads with a fiber stack per
 * thread, and a grid of a GPU's size would not fit in memory. */
static int blocks_for(const md_par_pe *c, int64_t n, int per_block)
{
    const int64_t nb = (n + per_block - 1) / per_block;
    const int64_t most = MD_FORCE_BUILD_DEFAULT == MD_FORCE_THREADS ? 1048576 : c->G;
    return nb < 1 ? 1 : nb > most ? (int)most : (int)nb;
}

static void nonbonded(md_par_pe *c, bool nonlocal, bool energy)
{
    md_force_args a;
    memset(&a, 0, sizeof a);
    a.list = c->lists + (nonlocal ? 1 : 0); /* the device's copies (par_setup.c) */
    a.lj = c->lj_d;
    const int32_t cap = c->job->cap;
    for (int d = 0; d < 3; d++) {
        a.x[d] = md_par_x(c, d);
        a.xd[d] = (nonlocal ? c->xd_nl : c->xd_loc) + (int64_t)d * cap;
        a.f[d] = nonlocal ? md_par_f(c, d) : c->floc + (int64_t)d * cap;
    }
    a.n_conv = nonlocal ? c->pe.at.n : c->pe.n_home;
    a.n_out = a.n_conv;
    a.scratch = c->scratch + (nonlocal ? (int64_t)c->G * 3 * cap : 0);
    a.acc = c->acc + (nonlocal ? c->G : 0);
    a.nacc = c->G;
    a.energy = energy;
    a.ts = md_par_timer_slot(&c->timer, nonlocal ? MD_TR_NONLOCAL : MD_TR_LOCAL);
    cudaStream_t s = nonlocal ? c->s_nl : c->s_loc;
    const md_phase ph = nonlocal ? MD_PH_NONLOCAL : MD_PH_LOCAL;
    md_par_timer_mark(&c->timer, ph, 0, s);
    if (c->force == MD_FORCE_THREADS) { /* a thread per i-entry (nonbonded_threads.c) */
        const int64_t nent = (nonlocal ? c->pe.nonlocal : c->pe.local).nent;
        const int nb = c->job->opt.force_blocks > 0
                           ? c->job->opt.force_blocks
                           : blocks_for(c, nent, MD_FORCE_THREADS_PER_BLOCK);
        const int nb_prep = blocks_for(c, a.n_conv, MD_FORCE_THREADS_PER_BLOCK);
        LAUNCH(md_nonbonded_prep, DIM3(nb_prep, 1, 1), DIM3(MD_FORCE_THREADS_PER_BLOCK, 1, 1), 0,
               s, a);
        LAUNCH(md_nonbonded_entries, DIM3(nb, 1, 1), DIM3(MD_FORCE_THREADS_PER_BLOCK, 1, 1), 0,
               s, a);
    } else {
        LAUNCH_COOP(md_nonbonded, DIM3(c->G, 1, 1), DIM3(1, 1, 1), 0, s, a);
    }
    MD_CUDA(cudaGetLastError()); /* the launches */
    md_par_timer_mark(&c->timer, ph, 1, s);
}

static void update(md_par_pe *c, bool drift_too)
{
    md_update_args a;
    memset(&a, 0, sizeof a);
    a.n_home = c->pe.n_home;
    const int32_t cap = c->job->cap;
    for (int d = 0; d < 3; d++) {
        a.x[d] = md_par_x(c, d);
        a.p[d] = c->ps + (int64_t)d * cap;
        a.floc[d] = c->floc + (int64_t)d * cap;
        a.fnl[d] = md_par_f(c, d);
    }
    a.type = c->type;
    a.drift = c->drift_d;
    a.drift_too = drift_too;
    a.ts = md_par_timer_slot(&c->timer, drift_too ? MD_TR_UPDATE : MD_TR_KICK);
    const md_phase ph = drift_too ? MD_PH_UPDATE : MD_PH_KICK;
    md_par_timer_mark(&c->timer, ph, 0, c->s_upd);
    if (c->force == MD_FORCE_THREADS) /* the GPU's geometry: a thread per atom */
        LAUNCH(md_update, DIM3(blocks_for(c, a.n_home, MD_UPDATE_THREADS_PER_BLOCK), 1, 1),
               DIM3(MD_UPDATE_THREADS_PER_BLOCK, 1, 1), 0, c->s_upd, a);
    else
        LAUNCH(md_update, DIM3(c->G, 1, 1), DIM3(1, 1, 1), 0, c->s_upd, a);
    MD_CUDA(cudaGetLastError()); /* the launch */
    md_par_timer_mark(&c->timer, ph, 1, c->s_upd);
}

/* Forces of the current positions; search: the halo was filled by the set-up exchange. */
static void forces(md_par_pe *c, bool search, bool energy)
{
    MD_CUDA(cudaStreamWaitEvent(c->s_loc, c->ev_upd, 0));
    md_nonlocal_after_update(c);
    nonbonded(c, false, energy);                 /* Local Non-bonded F, local stream */
    MD_CUDA(cudaEventRecord(c->ev_loc, c->s_loc));
    if (!search)
        halo_x(c);                               /* FusedPackCommX, non-local stream */
    nonbonded(c, true, energy);                  /* Non-Local Non-bonded F */
    halo_f(c, md_force_halo_stream(c));
                                                 /* FusedCommUnpackF */
    MD_CUDA(cudaEventRecord(c->ev_nl, c->s_nl));
    MD_CUDA(cudaStreamWaitEvent(c->s_upd, c->ev_loc, 0));
    md_update_after_nonlocal(c);
}

/* ---- output: global sums ------------------------------------------------------------------ */

enum { SUM_MOM = 0, SUM_CHECK = 3, SUM_EPOT, SUM_VIR, SUM_INCUT, SUM_CLOSE, SUM_PSQ };

/* After a device synchronize: the home atoms' positions, momenta and total forces into
 * pe->at. */
static void home_state(md_par_pe *c)
{
    md_pe *pe = &c->pe;
    const int32_t cap = c->job->cap, n = pe->n_home;
    const size_t bytes = (size_t)n * sizeof(int64_t);
    int64_t *fl = (int64_t *)md_xmalloc(2 * bytes + 1), *fn = fl + n;
    for (int d = 0; d < 3; d++) {
        MD_CUDA(cudaMemcpy(pe->at.x[d], md_par_x(c, d), bytes, cudaMemcpyDeviceToHost));
        MD_CUDA(cudaMemcpy(pe->at.p[d], c->ps + (int64_t)d * cap, bytes,
                                   cudaMemcpyDeviceToHost));
        MD_CUDA(cudaMemcpy(fl, c->floc + (int64_t)d * cap, bytes, cudaMemcpyDeviceToHost));
        MD_CUDA(cudaMemcpy(fn, md_par_f(c, d), bytes, cudaMemcpyDeviceToHost));
        for (int32_t i = 0; i < n; i++)
            pe->at.f[d][i] = fl[i] + fn[i];
    }
    free(fl);
}

/* Collective, after a device synchronize. Returns -1 on every PE if atoms came too close. */
static int sample(md_par_pe *c, long step, bool energy, md_error *err)
{
    md_pe *pe = &c->pe;
    home_state(c);
    const int nt = c->job->sys->ntypes;
    const int nsum = SUM_PSQ + 2 * nt;
    uint64_t *mine = (uint64_t *)md_xcalloc((size_t)nsum, sizeof *mine);
    md_momentum_accumulate(&pe->at, pe->n_home, mine + SUM_MOM);
    for (int32_t i = 0; i < pe->n_home; i++)
        mine[SUM_CHECK] += md_atom_hash(&pe->at, i);
    for (int k = 0; k < 2 * c->G; k++) { /* acc_h: collect_too_close copied it */
        mine[SUM_EPOT] += (uint64_t)c->acc_h[k].epot;
        mine[SUM_VIR] += (uint64_t)c->acc_h[k].virial;
        mine[SUM_INCUT] += (uint64_t)c->acc_h[k].in_cut;
    }
    mine[SUM_CLOSE] = (uint64_t)c->too_close;
    md_u128 *psq = (md_u128 *)md_xcalloc((size_t)nt, sizeof *psq);
    md_kinetic_accumulate(&pe->at, pe->n_home, psq);
    for (int t = 0; t < nt; t++) {
        mine[SUM_PSQ + 2 * t] = (uint64_t)psq[t];
        mine[SUM_PSQ + 2 * t + 1] = (uint64_t)(psq[t] >> 64);
    }
    md_par_sym_write(c, c->pub, mine, (size_t)nsum * sizeof *mine);
    nvshmem_barrier_all();
    uint64_t *tot = (uint64_t *)md_xcalloc((size_t)nsum, sizeof *tot);
    for (int t = 0; t < nt; t++)
        psq[t] = 0;
    for (int r = 0; r < c->npes; r++) {
        md_par_sym_read(c, mine, c->pub, (size_t)nsum * sizeof *mine, r);
        for (int k = 0; k < SUM_PSQ; k++)
            tot[k] += mine[k];
        for (int t = 0; t < nt; t++)
            psq[t] += ((md_u128)mine[SUM_PSQ + 2 * t + 1] << 64) | mine[SUM_PSQ + 2 * t];
    }
    nvshmem_barrier_all();
    int rc = 0;
    if (tot[SUM_CLOSE] != 0) {
        rc = md_fail(err, "by step %ld: %llu pairs closer than %.2g σ: the force would "
                     "overflow the fixed-point range; the input has overlapping atoms or the "
                     "time step is too large (--dt)", step, (unsigned long long)tot[SUM_CLOSE],
                     MD_R_MIN);
    } else if (c->me == 0) {
        const md_system *sys = c->job->sys;
        md_thermo t;
        memset(&t, 0, sizeof t);
        double ke = md_kinetic_energy(psq, sys->mass, nt, c->job->par.dt);
        double n = (double)sys->atoms.n;
        double vol = md_pos_to_double(sys->box.len[0]) * md_pos_to_double(sys->box.len[1]) *
                     md_pos_to_double(sys->box.len[2]);
        t.step = step;
        t.temp = 2.0 * ke / md_dof(sys->atoms.n);
        t.ekin = ke / n;
        t.has_energy = energy;
        if (energy) {
            t.epot_fx = (int64_t)tot[SUM_EPOT];
            t.virial_fx = (int64_t)tot[SUM_VIR];
            t.epot = md_energy_to_double(t.epot_fx) / n;
            t.etot = t.epot + t.ekin;
            t.press = (2.0 * ke + md_energy_to_double(t.virial_fx)) / (3.0 * vol);
        }
        for (int d = 0; d < 3; d++)
            t.momentum[d] = (int64_t)tot[SUM_MOM + d];
        t.checksum = tot[SUM_CHECK];
        c->job->res.checksum = t.checksum;
        c->job->res.steps = step;
        if (c->job->cb)
            rc = c->job->cb(&t, c->job->cb_ctx);
        if (rc != 0)
            md_fail(err, "stopped by the output callback at step %ld", step);
    }
    free(mine);
    free(tot);
    free(psq);
    return md_par_any_failed(c, rc != 0) ? -1 : 0;
}

/* Collective, after a device synchronize: gathers every PE's home atoms on PE 0 (through
 * symmetric memory, as on GPUs: each PE packs its atoms into gat, PE 0 gets them) and
 * hands them, ordered by id, to opt.snapshot. */
static int snapshot(md_par_pe *c, long step, md_error *err)
{
    enum { PER_ATOM = MD_PAR_GATHER_ROW }; /* id, type, x[3], p[3], f[3], img[3] */
    md_pe *pe = &c->pe;
    const int64_t n = pe->n_home;
    home_state(c);
    int64_t *g = (int64_t *)md_xmalloc((size_t)(1 + PER_ATOM * n) * sizeof *g);
    g[0] = n;
    for (int64_t i = 0; i < n; i++) {
        int64_t *a = g + 1 + PER_ATOM * i;
        a[0] = pe->at.id[i];
        a[1] = pe->at.type[i];
        for (int d = 0; d < 3; d++) {
            a[2 + d] = pe->at.x[d][i];
            a[5 + d] = pe->at.p[d][i];
            a[8 + d] = pe->at.f[d][i];
            a[11 + d] = pe->at.img[d][i];
        }
    }
    md_par_sym_write(c, c->gat, g, (size_t)(1 + PER_ATOM * n) * sizeof *g);
    free(g);
    nvshmem_barrier_all();
    int rc = 0;
    if (c->me == 0) {
        const md_system *sys = c->job->sys;
        md_system snap;
        memset(&snap, 0, sizeof snap);
        snap.box = sys->box;
        snap.ntypes = sys->ntypes;
        snap.mass = sys->mass;
        snap.dt = sys->dt;
        md_atoms_reserve(&snap.atoms, sys->atoms.n);
        int64_t *buf = (int64_t *)md_xmalloc((size_t)(PER_ATOM * c->job->cap) * sizeof *buf);
        for (int r = 0; r < c->npes && rc == 0; r++) {
            int64_t m;
            md_par_sym_read(c, &m, c->gat, sizeof m, r);
            if (m < 0 || snap.atoms.n + m > sys->atoms.n) {
                rc = md_fail(err, "snapshot at step %ld: PE %d holds %lld atoms, more than "
                             "the system's %d; report it", step, r, (long long)m, sys->atoms.n);
                break;
            }
            md_par_sym_read(c, buf, c->gat + 1, (size_t)(PER_ATOM * m) * sizeof *buf, r);
            for (int64_t i = 0; i < m; i++) {
                const int64_t *a = buf + PER_ATOM * i;
                int32_t k = snap.atoms.n++;
                snap.atoms.id[k] = a[0];
                snap.atoms.type[k] = (int32_t)a[1];
                snap.atoms.zone[k] = 0;
                for (int d = 0; d < 3; d++) {
                    snap.atoms.x[d][k] = a[2 + d];
                    snap.atoms.p[d][k] = a[5 + d];
                    snap.atoms.f[d][k] = a[8 + d];
                    snap.atoms.img[d][k] = (int32_t)a[11 + d];
                }
            }
        }
        free(buf);
        if (rc == 0 && snap.atoms.n != sys->atoms.n)
            rc = md_fail(err, "snapshot at step %ld: the PEs hold %d atoms, the system %d; "
                         "report it", step, snap.atoms.n, sys->atoms.n);
        if (rc == 0) {
            md_atoms_sort_by_id(&snap.atoms);
            rc = c->job->opt.snapshot(&snap, step, c->job->opt.io_ctx, err);
        }
        md_atoms_free(&snap.atoms);
    }
    nvshmem_barrier_all(); /* gat is free again */
    return md_par_any_failed(c, rc != 0) ? -1 : 0;
}

/* After a device synchronize: the force kernels' counters into acc_h, and the sticky
 * count of pairs too close. */
static void collect_too_close(md_par_pe *c)
{
    MD_CUDA(cudaMemcpy(c->acc_h, c->acc, 2 * (size_t)c->G * sizeof *c->acc_h,
                               cudaMemcpyDeviceToHost));
    for (int k = 0; k < 2 * c->G; k++)
        c->too_close += c->acc_h[k].too_close;
}

/* ---- one PE ------------------------------------------------------------------------------- */

static void pe_setup(md_par_pe *c, md_par_job *job)
{
    memset(c, 0, sizeof *c);
    c->job = job;
    c->me = nvshmem_my_pe();
    c->npes = nvshmem_n_pes();
    md_error e;
    md_lj_init(&c->lj, job->par.rc, job->par.skin, job->par.shift);
    md_grid_setup(&c->grid, job->sys->box.len, &job->dd, c->lj.rlist, &e); /* checked */
    md_pe_init(&c->pe, &c->grid, c->me);
    const md_system *sys = job->sys;
    c->drift = (double *)md_xmalloc((size_t)sys->ntypes * sizeof *c->drift);
    for (int t = 0; t < sys->ntypes; t++)
        c->drift[t] = (job->par.dt * job->par.dt) / (2.0 * sys->mass[t]);
    const size_t cap = (size_t)job->cap;
    const size_t np = (size_t)(c->grid.total_pulses > 0 ? c->grid.total_pulses : 1);
    c->xs = (int64_t *)md_sym_alloc(3 * cap * sizeof(int64_t), "xs");
    c->fs = (int64_t *)md_sym_alloc(3 * cap * sizeof(int64_t), "fs");
    c->sig = (md_dsig *)md_sym_alloc(sizeof(md_dsig), "sig");
    c->xstage = (int64_t *)md_sym_alloc(np * 3 * cap * sizeof(int64_t), "xstage");
    c->fbuf = (int64_t *)md_sym_alloc(np * 3 * cap * sizeof(int64_t), "fbuf");
    const size_t pub_bytes = (1 + MD_PAR_PUB_ROW * cap + 64) * sizeof(int64_t);
    c->pub = (int64_t *)md_sym_alloc(pub_bytes, "pub");
    c->bounce = (int64_t *)md_sym_alloc(pub_bytes, "bounce");
    c->small = (int64_t *)md_sym_alloc(64 * sizeof(int64_t), "small");
    if (job->opt.want) /* collective like every nvshmem_malloc: every PE has the same opt */
        c->gat = (int64_t *)md_sym_alloc((1 + MD_PAR_GATHER_ROW * cap) * sizeof(int64_t),
                                         "gat");
    MD_CUDA(cudaMemset(c->sig, 0, sizeof *c->sig));
    MD_CUDA(cudaMemset(c->xs, 0, 3 * cap * sizeof(int64_t)));
    MD_CUDA(cudaMemset(c->fs, 0, 3 * cap * sizeof(int64_t)));
    int G = job->opt.force_blocks;
    if (G <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        G = (int)(cores / c->npes);
        G = G < 1 ? 1 : G > 16 ? 16 : G;
    }
    c->G = G;
    c->force = job->opt.force != MD_FORCE_AUTO ? job->opt.force : MD_FORCE_BUILD_DEFAULT;
    c->halo = halo_variant(job->opt.halo);
    c->seq_x_stuck = !md_x_seq_advances();
    md_dev_alloc((void **)&c->floc, 3 * cap * sizeof(int64_t), "floc");
    md_dev_alloc((void **)&c->xd_loc, 3 * cap * sizeof(double), "xd_loc");
    md_dev_alloc((void **)&c->xd_nl, 3 * cap * sizeof(double), "xd_nl");
    md_dev_alloc((void **)&c->scratch, (G > 1 ? 2 * (size_t)G * 3 * cap : 1) * sizeof(int64_t),
                 "scratch");
    md_dev_alloc((void **)&c->acc, 2 * (size_t)G * sizeof(md_force_acc), "acc");
    md_dev_alloc((void **)&c->dp, MD_KMAX_PULSES * sizeof(md_dpulse), "dp");
    md_dev_alloc((void **)&c->ps, 3 * cap * sizeof(int64_t), "ps");
    md_dev_alloc((void **)&c->type, cap * sizeof(int32_t), "type");
    md_dev_alloc((void **)&c->drift_d, (size_t)sys->ntypes * sizeof(double), "drift_d");
    MD_CUDA(cudaMemcpy(c->drift_d, c->drift, (size_t)sys->ntypes * sizeof(double),
                               cudaMemcpyHostToDevice));
    md_dev_alloc((void **)&c->lj_d, sizeof(md_lj), "lj_d");
    MD_CUDA(cudaMemcpy(c->lj_d, &c->lj, sizeof(md_lj), cudaMemcpyHostToDevice));
    md_dev_alloc((void **)&c->lists, 2 * sizeof(md_pairlist), "lists");
    md_dev_alloc((void **)&c->imap, MD_KMAX_PULSES * cap * sizeof(int32_t), "imap");
    c->acc_h = (md_force_acc *)md_xcalloc(2 * (size_t)G, sizeof *c->acc_h);
    int lo, hi;
    MD_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    MD_CUDA(cudaStreamCreateWithPriority(&c->s_loc, cudaStreamNonBlocking, lo));
    /* the non-local stream at the high priority */
    MD_CUDA(cudaStreamCreateWithPriority(&c->s_nl, cudaStreamNonBlocking, hi));
    MD_CUDA(cudaStreamCreateWithPriority(&c->s_upd, cudaStreamNonBlocking, lo));
    MD_CUDA(cudaEventCreateWithFlags(&c->ev_upd, cudaEventDisableTiming));
    MD_CUDA(cudaEventCreateWithFlags(&c->ev_loc, cudaEventDisableTiming));
    MD_CUDA(cudaEventCreateWithFlags(&c->ev_nl, cudaEventDisableTiming));
    /* --occupancy: PE 0's device only (the picture is one GPU's) */
    md_par_timer_init(&c->timer, job->opt.phase_times, job->opt.occupancy != NULL && c->me == 0);
    /* Initial distribution: each PE takes its atoms from the input (read by all). */
    for (int32_t i = 0; i < sys->atoms.n; i++) {
        int64_t x[3];
        for (int d = 0; d < 3; d++)
            x[d] = md_wrap(sys->atoms.x[d][i], c->grid.box[d]);
        if (md_grid_owner(&c->grid, x) != c->me)
            continue;
        md_atoms_push(&c->pe.at, &sys->atoms, i);
        int32_t k = c->pe.at.n - 1;
        for (int d = 0; d < 3; d++) { /* wrapped: the image counts the box lengths moved */
            c->pe.at.x[d][k] = x[d];
            c->pe.at.img[d][k] = (int32_t)(sys->atoms.img[d][i] +
                                           md_wrap_count(sys->atoms.x[d][i], c->grid.box[d]));
        }
        c->pe.at.zone[k] = 0;
    }
    c->pe.n_home = c->pe.at.n;
    for (int d = 0; d < 3; d++) { /* the search takes them from there */
        const size_t bytes = (size_t)c->pe.n_home * sizeof(int64_t);
        MD_CUDA(cudaMemcpy(md_par_x(c, d), c->pe.at.x[d], bytes, cudaMemcpyHostToDevice));
        MD_CUDA(cudaMemcpy(c->ps + (int64_t)d * job->cap, c->pe.at.p[d], bytes,
                                   cudaMemcpyHostToDevice));
    }
}

static void pe_teardown(md_par_pe *c)
{
    MD_CUDA(cudaDeviceSynchronize());
    nvshmem_barrier_all(); /* no peer reads or writes our memory any more */
    MD_CUDA(cudaStreamDestroy(c->s_loc));
    MD_CUDA(cudaStreamDestroy(c->s_nl));
    MD_CUDA(cudaStreamDestroy(c->s_upd));
    MD_CUDA(cudaEventDestroy(c->ev_upd));
    MD_CUDA(cudaEventDestroy(c->ev_loc));
    MD_CUDA(cudaEventDestroy(c->ev_nl));
    md_par_timer_free(&c->timer);
    md_par_graph_free(c);
    if (c->halo->release != NULL)
        c->halo->release(c);
    MD_CUDA(cudaFree(c->floc));
    MD_CUDA(cudaFree(c->xd_loc));
    MD_CUDA(cudaFree(c->xd_nl));
    MD_CUDA(cudaFree(c->scratch));
    MD_CUDA(cudaFree(c->acc));
    MD_CUDA(cudaFree(c->dp));
    MD_CUDA(cudaFree(c->ps));
    MD_CUDA(cudaFree(c->type));
    MD_CUDA(cudaFree(c->drift_d));
    MD_CUDA(cudaFree(c->lj_d));
    MD_CUDA(cudaFree(c->lists));
    MD_CUDA(cudaFree(c->imap));
    for (int k = 0; k < 2; k++) {
        MD_CUDA(cudaFree(c->ent[k]));
        MD_CUDA(cudaFree(c->jlist[k]));
    }
    free(c->acc_h);
    nvshmem_free(c->xs);
    nvshmem_free(c->fs);
    nvshmem_free(c->sig);
    nvshmem_free(c->xstage);
    nvshmem_free(c->fbuf);
    nvshmem_free(c->pub);
    nvshmem_free(c->bounce);
    nvshmem_free(c->small);
    if (c->gat)
        nvshmem_free(c->gat);
    free(c->drift);
    md_pe_free(&c->pe);
    md_grid_free(&c->grid);
}

static bool output_step(const md_par_job *job, long step)
{
    int every = job->opt.sample_every > 0 ? job->opt.sample_every : job->par.thermo;
    return step == job->opt.first_step || step == job->par.steps ||
           (every > 0 && step % every == 0);
}

static bool snapshot_step(const md_par_job *job, long step)
{
    return job->opt.want && job->opt.want(step, job->opt.io_ctx) != 0;
}

/* One step (paper 000 Alg. 2), one line per launch; a search step puts the host's pair
 * search between the drift and the forces. energy: the force kernels sum energies too.
 * graph: the step is captured and launched as one CUDA graph. -1 with err on failure. */
static int run_step(md_par_pe *c, long step, bool search, bool energy, bool graph,
                    md_error *err)
{
    md_par_timer_reset(&c->timer, c->s_upd);     /* --timing: empty the stamps */
    md_par_timer_mark(&c->timer, MD_PH_STEP, 0, c->s_upd);
    if (graph)
        md_par_graph_begin(c);
    update(c, true);                             /* kick + drift, update stream */
    MD_CUDA(cudaEventRecord(c->ev_upd, c->s_upd));
    if (search) {                                /* host work: search steps only */
        MD_CUDA(cudaDeviceSynchronize());
        collect_too_close(c);
        if (md_par_search(c, err) != 0)
            return -1;
    }
    forces(c, search, energy);                   /* local | halo x, non-local, halo f */
    update(c, false);                            /* kick, update stream */
    if (graph && md_par_graph_launch(c, err) != 0)
        return -1;
    md_par_timer_mark(&c->timer, MD_PH_STEP, 1, c->s_upd);
    md_par_timer_step(&c->timer, !search, step); /* --timing: sync, add up */
    return 0;
}

/* Step first_step: the search and the forces of the starting positions, its output. */
static int start(md_par_pe *c, md_error *err)
{
    const md_par_job *job = c->job;
    if (md_par_search(c, err) != 0)
        return -1;
    MD_CUDA(cudaEventRecord(c->ev_upd, c->s_upd));
    forces(c, true, true);
    MD_CUDA(cudaDeviceSynchronize());
    collect_too_close(c);
    if (sample(c, job->opt.first_step, true, err) != 0)
        return -1;
    return snapshot_step(job, job->opt.first_step) ? snapshot(c, job->opt.first_step, err) : 0;
}

/* After a step: thermo output (out) and a snapshot (snap), host work on those steps only. */
static int output(md_par_pe *c, long step, bool out, bool snap, md_error *err)
{
    int rc = 0;
    if (out || snap) {
        MD_CUDA(cudaDeviceSynchronize());
        collect_too_close(c);
    }
    if (out)
        rc = sample(c, step, true, err);
    if (snap && rc == 0)
        rc = snapshot(c, step, err);
    return rc;
}

/* PE 0 fills the job's result: times (t0 start, t1 after step first_step, t2 end), the
 * phase and device times, graph counts, the pulses' transports, the error. */
static void results(md_par_pe *c, double t0, double t1, double t2, int rc, const md_error *err)
{
    md_par_job *job = c->job;
    if (c->me != 0)
        return;
    job->res.seconds = t2 - t1;
    job->res.setup_seconds = t1 - t0;
    job->res.halo_checks = c->halo_checks;
    for (int ph = 0; ph < MD_NPHASE; ph++)
        job->res.phase_ms[ph] = c->timer.ms[ph];
    job->res.timed_steps = c->timer.steps;
    for (int k = 0; k < MD_NDT; k++)
        job->res.dtime_ms[k] = 1e-6 * c->timer.dev_ns[k];
    if (c->timer.log != NULL) { /* --occupancy: the records go to the caller */
        job->res.occ = c->timer.rec_h;
        job->res.occ_n = c->timer.rec_n;
        job->res.occ_total = c->timer.rec_total;
        job->res.occ_step = c->timer.rec_step;
        job->res.occ_sms = c->timer.sms;
        job->res.occ_gpu = c->timer.gpu;
        c->timer.rec_h = NULL;
    }
    job->res.graph_launches = c->graph_launches;
    job->res.graph_builds = c->graph_builds;
    if (c->halo->count_routes != NULL)
        c->halo->count_routes(c, &job->res.direct_pulses, &job->res.signal_pulses,
                              &job->res.bulk_pulses);
    else
        for (int p = 0; p < c->grid.total_pulses; p++) {
            job->res.direct_pulses += c->hdp[p].xport != MD_XPORT_SIGNAL;
            job->res.signal_pulses += c->hdp[p].xport == MD_XPORT_SIGNAL;
            job->res.bulk_pulses += c->hdp[p].xport == MD_XPORT_BULK;
        }
    if (rc != 0)
        job->err = *err;
}

/* One PE: set-up, step first_step, the steps, results, teardown. */
static int pe_main(void *arg)
{
    md_par_job *job = (md_par_job *)arg;
    nvshmem_init();
    md_assert_set_pe(nvshmem_my_pe()); /* the PE that MD_ASSERT and MD_CUDA reports name */
    md_par_pe *c = (md_par_pe *)md_xcalloc(1, sizeof *c);
    const double t0 = now_s();
    pe_setup(c, job);
    md_error err;
    memset(&err, 0, sizeof err);
    int rc = start(c, &err);
    const double t1 = now_s();
    for (long step = job->opt.first_step + 1; rc == 0 && step <= job->par.steps; step++) {
        const bool out = output_step(job, step);
        const bool snap = snapshot_step(job, step);
        const bool search = step % job->par.nstlist == 0;
        const bool graph = job->opt.graph && !search; /* --graph: the step as one graph */
        if ((rc = run_step(c, step, search, out, graph, &err)) != 0)
            break;
        rc = output(c, step, out, snap, &err);
        if (c->me == 0 && job->opt.progress)
            job->opt.progress(step, job->opt.io_ctx);
    }
    const double t2 = now_s();
    if (job->opt.traffic) /* collective: every PE has the same opt */
        md_par_traffic_gather(c);
    results(c, t0, t1, t2, rc, &err);
    if (rc != 0 && c->me != 0 && err.msg[0] && strcmp(err.msg, "another PE failed at the search"))
        fprintf(stderr, "shmemu-md: PE %d: %s\n", c->me, err.msg);
    pe_teardown(c);
    free(c);
    nvshmem_finalize();
    return rc != 0;
}

int md_par_run(const md_system *sys, const md_params *par, const md_ddparams *dd,
               const md_par_opts *opt, md_par_sample_fn cb, void *cb_ctx, md_par_result *res,
               md_error *err)
{
    memset(res, 0, sizeof *res);
    if (sys->atoms.n < 1)
        return md_fail(err, "the system has no atoms");
    if (md_params_check(par, sys, err) != 0) /* params.h: the one check of every driver */
        return -1;
    /* Everything a PE could refuse is checked here once, by the serial driver's set-up
     * (parameters, grid) on a dry grid. */
    md_lj lj;
    md_lj_init(&lj, par->rc, par->skin, par->shift);
    md_grid g;
    if (md_grid_setup(&g, sys->box.len, dd, lj.rlist, err) != 0) {
        md_grid_free(&g);
        return -1;
    }
    for (int d = 0; d < 3; d++) {
        res->grid[d] = g.n[d];
        res->pulses[d] = g.npulse[d];
    }
    md_grid_free(&g);
    if (opt->first_step < 0 || opt->first_step > par->steps ||
        opt->first_step % par->nstlist != 0)
        return md_fail(err, "the run cannot start at step %ld: it must be a search step (a "
                       "multiple of --nstlist %d) no later than --steps %ld", opt->first_step,
                       par->nstlist, par->steps);
    if (opt->graph && !md_par_graph_available())
        return md_fail(err, "--graph: CUDA graphs exist in the CUDA build only (make cuda); "
                       "this is the CPU emulator's build: leave out --graph");
    if (opt->graph && !halo_variant(opt->halo)->graph_ok)
        return md_fail(err, "--graph with --halo %s: that halo waits for the GPU on the host "
                       "inside a step, which a CUDA graph cannot hold; use fused or pulse",
                       halo_variant(opt->halo)->name);
    if (opt->bulk_chunk != 0 &&
        (opt->bulk_chunk < 2 || opt->bulk_chunk > MD_BULK_SMEM || opt->bulk_chunk % 2 != 0))
        return md_fail(err, "md_par_opts: bulk_chunk %d: a bulk copy moves whole 16-byte "
                       "units: give 0 (%d) or an even count from 2 to %d", opt->bulk_chunk,
                       MD_BULK_SMEM, MD_BULK_SMEM);
    if (opt->want && !opt->snapshot)
        return md_fail(err, "md_par_opts: want is set without snapshot");
    if (opt->halo == MD_HALO_MPI && opt->transport == MD_TRANSPORT_DIRECT)
        return md_fail(err, "--halo mpi with --transport direct: the MPI baseline moves every "
                       "byte through MPI, never by stores into a peer; leave out --transport "
                       "(or give signal)");
    if (opt->halo == MD_HALO_MPI && (&md_halo_mpi == NULL || md_par_mpi_check == NULL))
        return md_fail(err, "--halo mpi: this program was linked without md/src/par_mpi.c "
                       "(only shmemu-md has it); run it with shmemu-md");
    if (opt->halo == MD_HALO_MPI && md_par_mpi_check(err) != 0)
        return -1;
    md_par_job *job = (md_par_job *)md_xcalloc(1, sizeof *job);
    md_system copy = *sys;
    md_atoms_clone(&copy.atoms, &sys->atoms);
    md_system_set_dt(&copy, par->dt);
    job->sys = &copy;
    job->par = *par;
    job->dd = *dd;
    job->opt = *opt;
    if (job->opt.halo_blocks < 1)
        job->opt.halo_blocks = 1;
    if (job->opt.halo_threads < 1)
        job->opt.halo_threads = 1;
    if (job->opt.halo == MD_HALO_MPI) /* the put path's staging: the pack into xstage, no */
        job->opt.transport = MD_TRANSPORT_SIGNAL; /* nvshmem_ptr (par_mpi.c) */
    job->cb = cb;
    job->cb_ctx = cb_ctx;
    job->cap = sys->atoms.n + 64;
    int rc = shmemu_launch(dd->pes, pe_main, job);
    int grid[3], pulses[3];
    memcpy(grid, res->grid, sizeof grid);
    memcpy(pulses, res->pulses, sizeof pulses);
    *res = job->res;
    memcpy(res->grid, grid, sizeof grid);
    memcpy(res->pulses, pulses, sizeof pulses);
    if (rc != 0) {
        if (job->err.msg[0])
            *err = job->err;
        else
            md_fail(err, "the parallel run failed (PE messages above)");
    }
    md_atoms_free(&copy.atoms);
    free(job);
    return rc != 0 ? -1 : 0;
}
