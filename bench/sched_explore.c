/*
 * sched_explore.c: schedules explored per second for one fused halo step of the MD app on
 * 4 PEs in 2D (2x2x1), in one process (docs/sched.md; bench/sched_explore.sh runs it).
 *
 *   sched_explore [SECONDS [STRATEGY [CELLS]]]    (default 10 s, random, 4)
 *
 * Each schedule is one job (md_par_run: 4 PE threads, set-up at step 0, then one step with
 * the fused coordinate and force halo kernels) under the deterministic scheduler with the
 * next seed; its checksum is compared with the free-running run's, as the explorer does. It
 * prints the schedules per second, the decisions and context switches per schedule, and the
 * free-running time of the same job for comparison. Most of a job is set-up (PE and stream
 * threads, every block's fiber stacks, pair lists); so it also times jobs of 1 + 10 steps
 * with the same seeds: the difference is the time of one more fused halo step under the
 * scheduler, i.e. the rate at which step schedules are explored once set up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "par.h"
#include "shmemu/md.h"
#include "shmemu/pgas.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t run_once(const md_system *sys, const md_params *par, const md_ddparams *dd)
{
    md_par_opts o;
    md_par_opts_default(&o);
    o.halo = MD_HALO_FUSED;
    md_par_result res;
    md_error err;
    if (md_par_run(sys, par, dd, &o, NULL, NULL, &res, &err) != 0) {
        fprintf(stderr, "sched_explore: md_par_run: %s\n", err.msg);
        exit(1);
    }
    return res.checksum;
}

int main(int argc, char **argv)
{
    double budget = argc > 1 ? atof(argv[1]) : 10.0;
    const char *strategy = argc > 2 ? argv[2] : "random";
    int cells = argc > 3 ? atoi(argv[3]) : 4;
    md_lattice lat;
    md_lattice_default(&lat);
    lat.cells[0] = lat.cells[1] = lat.cells[2] = cells;
    md_system sys;
    md_error err;
    if (md_system_fcc(&sys, &lat, 0.005, &err) != 0) {
        fprintf(stderr, "sched_explore: %s\n", err.msg);
        return 1;
    }
    md_params par;
    md_params_default(&par);
    par.steps = 1;
    md_ddparams dd;
    md_ddparams_default(&dd);
    dd.pes = 4;
    dd.grid[0] = 2;
    dd.grid[1] = 2;
    dd.grid[2] = 1;
    unsetenv("SHMEMU_SCHED");
    double t0 = now_s();
    uint64_t ref = run_once(&sys, &par, &dd);
    int free_runs = 1;
    while (now_s() - t0 < 1.0) {
        run_once(&sys, &par, &dd);
        free_runs++;
    }
    double free_s = (now_s() - t0) / free_runs;
    setenv("SHMEMU_SCHED", strategy, 1);
    long runs = 0, mismatches = 0;
    uint64_t decisions = 0, switches = 0;
    t0 = now_s();
    while (now_s() - t0 < budget) {
        char seed[32];
        snprintf(seed, sizeof seed, "%ld", runs + 1);
        setenv("SHMEMU_SEED", seed, 1);
        if (run_once(&sys, &par, &dd) != ref)
            mismatches++;
        shmemu_sched_stats st;
        if (shmemu_sched_last_stats(&st) == 0) {
            decisions += st.decisions;
            switches += st.switches;
        }
        runs++;
    }
    double secs = now_s() - t0;
    /* the marginal step: jobs of 11 steps, with seeds 1.. again */
    md_params par11 = par;
    par11.steps = 11;
    long runs11 = 0;
    double t11 = now_s();
    while (runs11 < runs / 4 + 1) {
        char seed[32];
        snprintf(seed, sizeof seed, "%ld", runs11 + 1);
        setenv("SHMEMU_SEED", seed, 1);
        (void)run_once(&sys, &par11, &dd);
        runs11++;
    }
    double per11 = (now_s() - t11) / (double)runs11, per1 = secs / (double)runs;
    double step_s = (per11 - per1) / 10.0;
    printf("sched_explore: %d^3 cells (%d atoms), 4 PEs 2x2x1, fused halo, set-up + 1 step, "
           "strategy %s\n", cells, 4 * cells * cells * cells, strategy);
    printf("  %ld schedules in %.2f s: %.1f schedules/s (%.0f decisions, %.0f switches per "
           "schedule); %ld checksum mismatches\n", runs, secs, (double)runs / secs,
           runs ? (double)decisions / (double)runs : 0.0,
           runs ? (double)switches / (double)runs : 0.0, mismatches);
    printf("  free-running, the same job: %.1f ms (%.1f runs/s)\n", 1e3 * free_s, 1.0 / free_s);
    printf("  one more fused halo step under the scheduler: %.2f ms (%.0f step schedules/s; "
           "jobs of 11 steps: %.1f ms, %ld runs)\n", 1e3 * step_s,
           step_s > 0 ? 1.0 / step_s : 0.0, 1e3 * per11, runs11);
    md_system_free(&sys);
    return mismatches != 0;
}
