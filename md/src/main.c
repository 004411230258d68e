/*
 * main.c: bin/shmemu-md, the serial driver's command line. Exit status: 0 on success, 1 on a
 * bad request or input (with a message), 3 when --check finds a problem.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "fixed.h"
#include "io.h"
#include "main_par.h"
#include "md_bugs.h"
#include "options.h"
#include "par.h"
#include "params.h"
#include "sim.h"
#include "util.h"
#include "shmemu/pgas.h" /* shmemu_launcher_rank */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_thermo(const md_thermo *t, double etot0)
{
    printf("%8ld %12.8f %14.10f %13.10f %14.10f %12.8f %12.4e %" PRId64 ",%" PRId64 ",%" PRId64
           " %016" PRIx64 "\n",
           t->step, t->temp, t->epot, t->ekin, t->etot, t->press, t->etot - etot0,
           t->momentum[0], t->momentum[1], t->momentum[2], t->checksum);
}

typedef struct check_totals {
    long searches;
    int64_t missed;   /* pairs inside rc that no list held, summed over steps */
    long bad;
} check_totals;

static void run_checks(const md_sim *s, check_totals *ct)
{
    bool search = s->last_search == s->step;
    md_pair_report rep;
    md_error err;
    if (search) {
        ct->searches++;
        md_check_pairs(s, s->lj.rlist2, &rep);
        if (rep.missing || rep.duplicates || rep.beyond || rep.bad_displacement) {
            ct->bad++;
            fprintf(stderr, "shmemu-md: --check: step %ld: pair lists wrong: %" PRId64
                    " pairs within rlist missing, %" PRId64 " duplicated, %" PRId64
                    " beyond rlist, %" PRId64 " at a wrong image (brute force %" PRId64
                    ", listed %" PRId64 ")\n", s->step, rep.missing, rep.duplicates,
                    rep.beyond, rep.bad_displacement, rep.brute, rep.listed);
        }
    } else {
        md_check_pairs(s, s->lj.rc2, &rep);
        ct->missed += rep.missing;
    }
    int64_t halo = md_check_halo(s, search, &err);
    if (halo) {
        ct->bad++;
        fprintf(stderr, "shmemu-md: --check: step %ld: %" PRId64 " halo problems; first: %s\n",
                s->step, halo, err.msg);
    }
}

/* The environment the chosen driver would silently ignore. */
static int check_environment(const md_options *o, md_error *err)
{
    if (o->help || o->list_bugs)
        return 0;
    /* The scheduler (pgas/src/config.c) replays a trace of the PE threads' hand-offs; the
     * serial driver starts no PE threads, so the replay would silently not happen. */
    const char *replay = getenv("SHMEMU_REPLAY");
    if (o->halo == MD_HALO_SERIAL && replay && replay[0])
        return md_fail(err, "SHMEMU_REPLAY=%s: --halo serial runs every PE in one thread and "
                       "schedules no PE threads, so there is nothing to replay; run the "
                       "parallel driver the trace was recorded with (--halo fused, pulse or "
                       "host) or unset SHMEMU_REPLAY", replay);
    /* The same for the deterministic scheduler itself and what it records. */
    static const char *const sched_vars[] = {"SHMEMU_SCHED", "SHMEMU_TRACE_OUT"};
    for (size_t k = 0; k < sizeof sched_vars / sizeof *sched_vars; k++) {
        const char *v = getenv(sched_vars[k]);
        if (o->halo == MD_HALO_SERIAL && v && v[0])
            return md_fail(err, "%s=%s: --halo serial runs every PE in one thread, so the "
                           "deterministic scheduler has no PE threads to schedule or record; "
                           "run a parallel driver (--halo fused, pulse or host) or unset %s",
                           sched_vars[k], v, sched_vars[k]);
    }
    /* --halo mpi needs every PE to be an MPI rank: refused before anything is printed. */
    if (o->halo == MD_HALO_MPI)
        return md_par_mpi_check(err);
    return 0;
}

int main(int argc, char **argv)
{
    /* Started by mpirun with every PE an MPI rank (shmemu_launcher_rank; main_par.c): rank 0
     * speaks for the run, the other ranks print nothing on stdout, and the errors that every
     * rank would print alike (usage, environment, input) only rank 0 prints. */
    const bool quiet = shmemu_launcher_rank() != 0;
    if (quiet && freopen("/dev/null", "w", stdout) == NULL) {
        fprintf(stderr, "shmemu-md: rank %d: cannot send stdout to /dev/null\n",
                shmemu_launcher_rank());
        return 1;
    }
    md_options o;
    md_error err;
    if (md_options_parse(argc, argv, &o, &err) != 0 ||
        (!o.help && !o.list_bugs && md_params_check(&o.par, NULL, &err) != 0)) {
        /* A usage error: the specific error first, then where to look. */
        if (!quiet)
            fprintf(stderr, "shmemu-md: %s\nshmemu-md: see shmemu-md --help for the options\n",
                    err.msg);
        return 1;
    }
    if (check_environment(&o, &err) != 0) {
        if (!quiet)
            fprintf(stderr, "shmemu-md: %s\n", err.msg);
        return 1;
    }
    if (o.help) {
        md_options_usage(stdout);
        return 0;
    }
    if (o.list_bugs) { /* the planted-bug catalogue (the other options are not run) */
        md_bugs_print(stdout);
        return 0;
    }
    md_system sys;
    int rc = o.data ? md_lammps_read_run(o.data, &o.par, &sys, &err)
                    : md_system_fcc(&sys, &o.lat, o.par.dt, &err);
    if (rc == 0 && md_params_check(&o.par, &sys, &err) != 0) { /* the system's limits */
        md_system_free(&sys);
        rc = -1;
    }
    if (rc != 0) {
        if (!quiet)
            fprintf(stderr, "shmemu-md: %s\n", err.msg);
        return 1;
    }
    if (o.halo == MD_HALO_SERIAL && quiet) { /* no job: rank 0 runs it and writes its files */
        md_system_free(&sys);
        return 0;
    }
    if (o.halo != MD_HALO_SERIAL) { /* the parallel driver: PE threads and kernels */
        int st = md_main_parallel(&o, &sys);
        md_system_free(&sys);
        return st;
    }
    double t0 = now_s();
    double etot0_restart; /* io: from --restart's checkpoint, else NaN */
    md_sim *s = md_io_create_sim(&o.io, &sys, &o.par, &o.dd, &etot0_restart, &err); /* io */
    if (!s) {
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        md_system_free(&sys);
        return 1;
    }
    double t_setup = now_s() - t0;
    int grid[3], pulses[3];
    md_sim_grid(s, grid, pulses);
    printf("# shmemu-md: %d atoms, box %.6f x %.6f x %.6f sigma, %s\n", sys.atoms.n,
           md_pos_to_double(sys.box.len[0]), md_pos_to_double(sys.box.len[1]),
           md_pos_to_double(sys.box.len[2]), o.data ? o.data : "fcc lattice");
    printf("# rc %g skin %g nstlist %d dt %g steps %ld shift %s\n", o.par.rc, o.par.skin,
           o.par.nstlist, o.par.dt, o.par.steps, o.par.shift ? "yes" : "no");
    printf("# decomposition %dx%dx%d (%d PEs, simulated serially), pulses x %d y %d z %d, "
           "order %c%c%c\n", grid[0], grid[1], grid[2], o.dd.pes, pulses[0], pulses[1],
           pulses[2], "xyz"[o.dd.order[0]], "xyz"[o.dd.order[1]], "xyz"[o.dd.order[2]]);
    md_io io; /* io: dumps, checkpoints, progress (io.h) */
    if (md_io_start(&io, &o.io, &o.par, s, stdout, &err) != 0) {
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        md_sim_destroy(s);
        md_system_free(&sys);
        return 1;
    }
    printf("#   step         temp           epot          ekin           etot        press "
           "       drift momentum checksum\n");
    md_thermo th;
    md_sim_thermo(s, &th);
    const double etot0 = isnan(etot0_restart) ? th.etot : etot0_restart; /* io */
    print_thermo(&th, etot0);
    check_totals ct = {0, 0, 0};
    if (o.check)
        run_checks(s, &ct);
    double t1 = now_s();
    int status = 0;
    const long first = md_sim_steps_done(s); /* io: 0, or the checkpoint's step */
    for (long step = first + 1; step <= o.par.steps; step++) {
        bool out = step == o.par.steps || (o.par.thermo > 0 && step % o.par.thermo == 0);
        if (md_sim_step(s, out, &err) != 0) {
            fprintf(stderr, "shmemu-md: %s\n", err.msg);
            status = 1;
            break;
        }
        if (o.check)
            run_checks(s, &ct);
        if (out) {
            md_sim_thermo(s, &th);
            print_thermo(&th, etot0);
        }
        if (md_io_after_step(&io, s, etot0, &err) != 0) { /* io */
            fprintf(stderr, "shmemu-md: %s\n", err.msg);
            status = 1;
            break;
        }
    }
    if (md_io_finish(&io, &err) != 0 && status == 0) { /* io */
        fprintf(stderr, "shmemu-md: %s\n", err.msg);
        status = 1;
    }
    double t_run = now_s() - t1;
    long done = md_sim_steps_done(s);
    if (o.check) {
        printf("# check: %ld searches, %s; %" PRId64 " pairs within rc missed between "
               "searches\n", ct.searches, ct.bad ? "PROBLEMS (see stderr)" : "lists and halos "
               "exact", ct.missed);
        if (ct.bad && status == 0)
            status = 3;
    }
    if (done > 0 && th.has_energy) {
        double tau = (double)done * o.par.dt;
        printf("# energy drift %.6e per atom over %.6g tau: %.6e per atom per tau\n",
               th.etot - etot0, tau, (th.etot - etot0) / tau);
    }
    if (done > first)
        fprintf(stderr, "shmemu-md: %ld steps in %.3f s (setup %.3f s): %.4g atom-steps/s\n",
                done - first, t_run, t_setup, (double)sys.atoms.n * (double)(done - first) / t_run);
    printf("checksum %016" PRIx64 "\n", md_sim_checksum(s));
    md_sim_destroy(s);
    md_system_free(&sys);
    return status;
}
