/*
 * main_par.c: bin/shmemu-md on the parallel driver.
 *
 * --check here: the serial driver runs first with its brute-force oracles (pair lists
 * complete at each search, halo contents) and records its checksum at every step; the
 * parallel run then samples every step, and every checksum must be the same bits; and
 * at every search the parallel run encodes atom ids in the coordinates and checks every
 * halo slot its kernels filled (md_par_opts.check_halo).
 */
#include "main_par.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "checkpoint.h"
#include "fixed.h"
#include "io.h"
#include "occupancy.h"
#include "par.h"
#include "sim.h"
#include "util.h"
#include "shmemu/pgas.h"

typedef struct out_ctx {
    const md_options *o;
    double etot0;
    bool have_etot0;
    long etot0_step;     /* the step etot0 belongs to: 0, or the restart's first step */
    md_thermo last;
    const uint64_t *ref; /* --check: serial checksums per step */
    long mismatches;
    md_io io;            /* dumps, checkpoints, progress */
    long first;          /* 0, or the restart's step */
    bool restart;
    uint64_t restart_sum; /* the checkpoint's state checksum: the first sample must match */
    bool restart_bad;
} out_ctx;

static void print_thermo(const md_thermo *t, double etot0)
{
    printf("%8ld %12.8f %14.10f %13.10f %14.10f %12.8f %12.4e %" PRId64 ",%" PRId64 ",%" PRId64
           " %016" PRIx64 "\n",
           t->step, t->temp, t->epot, t->ekin, t->etot, t->press, t->etot - etot0,
           t->momentum[0], t->momentum[1], t->momentum[2], t->checksum);
}

static int on_sample(const md_thermo *t, void *ctx)
{
    out_ctx *c = ctx;
    if (!c->have_etot0) {
        c->etot0 = t->etot;
        c->etot0_step = t->step;
        c->have_etot0 = true;
    }
    if (c->restart && t->step == c->first && t->checksum != c->restart_sum) {
        /* The parallel driver's search and forces must rebuild the state of record. */
        fprintf(stderr, "shmemu-md: restart from step %ld: the state after setting up has "
                "checksum %016" PRIx64 ", the checkpoint %016" PRIx64 ": the restart would not "
                "reproduce the run's bits (a changed force field, or a bug: report it)\n",
                c->first, t->checksum, c->restart_sum);
        c->restart_bad = true;
        return 1;
    }
    if (c->ref && t->checksum != c->ref[t->step]) {
        if (!c->mismatches++)
            fprintf(stderr, "shmemu-md: --check: step %ld: checksum %016" PRIx64 " differs "
                    "from the serial driver's %016" PRIx64 "\n", t->step, t->checksum,
                    c->ref[t->step]);
    }
    const md_params *par = &c->o->par;
    bool out = t->step == 0 || t->step == par->steps ||
               (par->thermo > 0 && t->step % par->thermo == 0);
    if (out) {
        print_thermo(t, c->etot0);
        c->last = *t;
    }
    return 0;
}

static unsigned io_want(long step, void *ctx)
{
    const out_ctx *c = ctx;
    return md_io_wants(&c->io, step);
}

static int io_snapshot(const md_system *snap, long step, void *ctx, md_error *err)
{
    out_ctx *c = ctx;
    return md_io_snapshot(&c->io, snap, step, c->etot0, err);
}

static void io_progress(long step, void *ctx)
{
    out_ctx *c = ctx;
    md_io_progress(&c->io, step);
}

/* The serial reference with its oracles (from --restart's checkpoint when given):
 * checksums of steps first..steps, indexed by step. */
static uint64_t *serial_reference(const md_options *o, const md_system *sys, long *bad)
{
    md_error err;
    double etot0;
    md_sim *s = md_io_create_sim(&o->io, sys, &o->par, &o->dd, &etot0, &err);
    if (!s) {
        fprintf(stderr, "shmemu-md: --check: serial reference: %s\n", err.msg);
        return NULL;
    }
    uint64_t *ref = md_xcalloc((size_t)(o->par.steps + 1), sizeof *ref);
    const long first = md_sim_steps_done(s);
    ref[first] = md_sim_checksum(s);
    for (long k = first + 1; k <= o->par.steps; k++) {
        if (md_sim_step(s, false, &err) != 0) {
            fprintf(stderr, "shmemu-md: --check: serial reference: %s\n", err.msg);
            free(ref);
            md_sim_destroy(s);
            return NULL;
        }
        ref[k] = md_sim_checksum(s);
        bool search = s->last_search == s->step;
        md_pair_report rep;
        if (search) {
            md_check_pairs(s, s->lj.rlist2, &rep);
            if (rep.missing || rep.duplicates || rep.beyond || rep.bad_displacement) {
                (*bad)++;
                fprintf(stderr, "shmemu-md: --check: step %ld: serial pair lists wrong\n", k);
            }
        }
        int64_t h = md_check_halo(s, search, &err);
        if (h) {
            (*bad)++;
            fprintf(stderr, "shmemu-md: --check: step %ld: %" PRId64 " serial halo problems; "
                    "first: %s\n", k, h, err.msg);
        }
    }
    md_sim_destroy(s);
    return ref;
}

/* --restart: the checkpoint's state replaces the command line's system (which it must
 * match). Returns 0, or 1 with a message. */
static int restart_state(const md_options *o, const md_system *sys, md_checkpoint *ck,
                         out_ctx *ctx)
{
    md_error err;
    if (md_checkpoint_read(o->io.restart, ck, &err) != 0 ||
        md_checkpoint_match(ck, &o->par, sys, o->io.restart, &err) != 0) {
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        return 1;
    }
    ctx->restart = true;
    ctx->first = ck->step;
    ctx->restart_sum = md_checkpoint_state_checksum(ck);
    if (!isnan(ck->etot0)) {
        ctx->etot0 = ck->etot0;
        ctx->have_etot0 = true;
    }
    return 0;
}

int md_main_parallel(const md_options *o, const md_system *sys_in)
{
    /* Started by mpirun with every PE an MPI rank, every rank runs this and rank r runs PE r;
     * rank 0 (PE 0 gathers the results) speaks for the run. The others print nothing
     * (main.c sends their stdout to /dev/null), write no file (md_io_start_quiet: the same
     * snapshot schedule, which every PE must share) and skip the serial reference of --check;
     * their PEs' errors still reach stderr, and they exit with the job's status. */
    const bool quiet = shmemu_launcher_rank() != 0;
    out_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.o = o;
    md_checkpoint ck;
    memset(&ck, 0, sizeof ck);
    if (o->io.restart && restart_state(o, sys_in, &ck, &ctx) != 0) {
        md_checkpoint_free(&ck);
        return 1;
    }
    const md_system *sys = o->io.restart ? &ck.sys : sys_in;
    long bad = 0;
    uint64_t *ref = NULL;
    if (o->check && !quiet && !(ref = serial_reference(o, sys_in, &bad))) {
        md_checkpoint_free(&ck);
        return 1;
    }
    md_par_opts po;
    md_par_opts_default(&po);
    po.halo = o->halo;
    po.transport = o->transport;
    po.check_halo = o->check;
    po.phase_times = o->timing;
    po.occupancy = o->io.occupancy;
    po.force = o->force;
    po.bulk = o->bulk;
    po.mpi_staging = o->mpi_staging;
    po.graph = o->graph;
    po.sample_every = o->check ? 1 : 0;
    po.first_step = ctx.first;
    po.want = io_want;
    po.snapshot = io_snapshot;
    po.progress = io_progress;
    po.io_ctx = &ctx;
    ctx.ref = ref;
    md_par_result res;
    md_error err;
    /* The header first: the grid is known before the run (md_par_run checks it again). */
    md_lj lj;
    md_lj_init(&lj, o->par.rc, o->par.skin, o->par.shift);
    md_grid g;
    if (md_grid_setup(&g, sys->box.len, &o->dd, lj.rlist, &err) != 0) {
        md_grid_free(&g);
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        free(ref);
        md_checkpoint_free(&ck);
        return 1;
    }
    printf("# shmemu-md: %d atoms, box %.6f x %.6f x %.6f sigma, %s\n", sys->atoms.n,
           md_pos_to_double(sys->box.len[0]), md_pos_to_double(sys->box.len[1]),
           md_pos_to_double(sys->box.len[2]), o->data ? o->data : "fcc lattice");
    printf("# rc %g skin %g nstlist %d dt %g steps %ld shift %s\n", o->par.rc, o->par.skin,
           o->par.nstlist, o->par.dt, o->par.steps, o->par.shift ? "yes" : "no");
    static const char *halo_name[] = {"fused", "pulse", "serial", "host", "direct26", "mpi"};
    static const char *tr_name[] = {"auto", "direct", "signal"};
    const char *backend = shmemu_backend_name();
    const char *pe_kind = strcmp(backend, "process") == 0 ? "processes"
                          : strcmp(backend, "mpi") == 0   ? "MPI ranks"
                                                          : "threads";
    /* --halo mpi: every byte through MPI, whatever --transport says (par_mpi.c) */
    const char *transport = o->halo == MD_HALO_MPI ? "mpi" : tr_name[o->transport];
    printf("# decomposition %dx%dx%d (%d PE %s, halo %s, transport %s), pulses x %d y %d "
           "z %d, order %c%c%c\n", g.n[0], g.n[1], g.n[2], o->dd.pes, pe_kind, halo_name[o->halo],
           transport, g.npulse[0], g.npulse[1], g.npulse[2],
           "xyz"[o->dd.order[0]], "xyz"[o->dd.order[1]], "xyz"[o->dd.order[2]]);
    md_grid_free(&g);
    if (quiet)
        md_io_start_quiet(&ctx.io, &o->io, &o->par, ctx.first);
    else if (md_io_start_at(&ctx.io, &o->io, &o->par, ctx.first, stdout, &err) != 0) {
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        md_io_finish(&ctx.io, &err);
        free(ref);
        md_checkpoint_free(&ck);
        return 1;
    }
    printf("#   step         temp           epot          ekin           etot        press "
           "       drift momentum checksum\n");
    fflush(stdout);
    int status = 0;
    if (o->halo_stats)
        po.traffic = md_xcalloc((size_t)o->dd.pes, sizeof *po.traffic);
    if (md_par_run(sys, &o->par, &o->dd, &po, on_sample, &ctx, &res, &err) != 0) {
        fflush(stdout);
        if (!ctx.restart_bad && !quiet) /* else on_sample said why, or its PE did */
            fprintf(stderr, "shmemu-md: %s\n", err.msg);
        status = 1;
    }
    if (md_io_finish(&ctx.io, &err) != 0 && status == 0) {
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        status = 1;
    }
    if (po.occupancy != NULL && res.occ != NULL && status == 0 &&
        md_occupancy_write(po.occupancy, &res, o->dd.pes, halo_name[o->halo], &err) != 0) {
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        status = 1;
    }
    free(res.occ);
    res.occ = NULL;
    if (quiet) { /* rank 0 reports the run */
        free(po.traffic);
        free(ref);
        md_checkpoint_free(&ck);
        return status;
    }
    if (o->check) {
        printf("# check: serial reference %s; parallel checksums %s at every step; %" PRId64
               " halo slots id-checked\n", bad ? "PROBLEMS (see stderr)" : "lists and halos exact",
               ctx.mismatches ? "DIFFER (see stderr)" : "identical", res.halo_checks);
        if ((bad || ctx.mismatches) && status == 0)
            status = 3;
    }
    long done = res.steps - ctx.first;
    if (done > 0 && ctx.last.has_energy) {
        double tau = (double)(res.steps - ctx.etot0_step) * o->par.dt;
        printf("# energy drift %.6e per atom over %.6g tau: %.6e per atom per tau\n",
               ctx.last.etot - ctx.etot0, tau, (ctx.last.etot - ctx.etot0) / tau);
    }
    if (done > 0)
        fprintf(stderr, "shmemu-md: %ld steps in %.3f s (setup %.3f s): %.4g atom-steps/s "
                "(%d PE %s, halo %s; %d pulse routes direct, %d put-signal on PE 0; %d "
                "with bulk copies)\n",
                done, res.seconds, res.setup_seconds,
                (double)sys->atoms.n * (double)done / res.seconds, o->dd.pes, pe_kind,
                halo_name[o->halo], res.direct_pulses, res.signal_pulses, res.bulk_pulses);
    if (o->graph && status == 0)
        fprintf(stderr, "shmemu-md: --graph: %ld steps launched as CUDA graphs on PE 0 (%ld "
                "instantiations, the rest updated in place)\n", res.graph_launches,
                res.graph_builds);
    if (o->timing && res.timed_steps > 0) {
        /* Primary: the device intervals of paper 000 §6.3 (docs/papers.md) from the kernels' own
         * stamps; then the per-phase CUDA events (which include launch gaps and host work). */
        fprintf(stderr, "shmemu-md: --timing device: PE 0, us per step over %ld steps without "
                "a search, from %%globaltimer per-block timestamps:", res.timed_steps);
        for (int k = 0; k < MD_NDT; k++)
            fprintf(stderr, " %s %.2f", md_par_dtime_name[k],
                    1e3 * res.dtime_ms[k] / (double)res.timed_steps);
        fprintf(stderr, "\n");
        fprintf(stderr, "shmemu-md: --timing: PE 0, ms per step over %ld steps without a "
                "search:", res.timed_steps);
        for (int ph = 0; ph < MD_NPHASE; ph++)
            fprintf(stderr, " %s %.4f", md_par_phase_name[ph],
                    res.phase_ms[ph] / (double)res.timed_steps);
        fprintf(stderr, "\n");
    }
    if (po.traffic && status != 1)
        md_run_traffic_print(stdout, po.traffic, o->dd.pes);
    if (status != 1)
        printf("checksum %016" PRIx64 "\n", res.checksum);
    free(po.traffic);
    free(ref);
    md_checkpoint_free(&ck);
    return status;
}
