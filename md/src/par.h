/*
 * par.h: the parallel driver: every PE of the decomposition is a pgas PE thread with its
 * own md_pe, and every step runs as kernels (paper 000 Alg. 2; docs/papers.md) on the PE's streams:
 *
 *   update stream     md_update (kick + drift)                      -> event upd
 *   local stream      wait upd; Local Non-bonded F                  -> event loc
 *   non-local stream  wait upd; coordinate halo (fused or pulses); Non-Local Non-bonded F;
 *                     force halo (fused or pulses)                  -> event nl
 *   update stream     wait loc, nl; md_update (kick)
 *
 * The host synchronizes only at search steps (redistribution, pulse table set-up, pair
 * lists: par_setup.c) and at output steps (thermo, checksum). md_sim (sim.c) stays the
 * serial reference: every variant must give its checksums at every step.
 */
#ifndef MD_PAR_H
#define MD_PAR_H

#include <stdbool.h>
#include <stdint.h>

#include "par_stats.h"
#include "shmemu/md.h"

/* host: the CPU-initiated baseline (paper 000 Fig. 1): per pulse a pack kernel, the host
 * waits for it, transfers from the host (nvshmem_putmem) and synchronizes the PEs, then an
 * unpack kernel (par_host.c). */
typedef enum {
    MD_HALO_FUSED = 0, MD_HALO_PULSE = 1, MD_HALO_SERIAL = 2, MD_HALO_HOST = 3,
    MD_HALO_DIRECT26 = 4, /* HOOMD-blue's direct exchange with up to 26 neighbours, one
                           * phase, no force return (par_direct26.c) */
    MD_HALO_MPI = 5       /* the host baseline's schedule with MPI persistent requests
                           * (par_mpi.c): MPI backend, or the CUDA build under mpirun */
} md_halo_kind;
typedef enum { MD_TRANSPORT_AUTO = 0, MD_TRANSPORT_DIRECT = 1, MD_TRANSPORT_SIGNAL = 2 } md_transport;
/* The force kernels' form (halo.h), the same bits either way. auto: the pair loop on the CPU
 * build (the emulator's blocks are pthreads, its threads fibers), a thread per i-entry on
 * a GPU. */
typedef enum { MD_FORCE_AUTO = 0, MD_FORCE_LOOP = 1, MD_FORCE_THREADS = 2 } md_force_kind;
/* The direct path's data movement (halo_dev.h): plain stores and loads (off), or bulk copies
 * through shared memory (on: tma_st of the coordinates, tma_ld of the returned forces), the
 * same bits either way. auto: off on the CPU build (the path the race-check matrix
 * measured), on in the CUDA build. Put-with-signal routes are the same either way. */
typedef enum { MD_BULK_AUTO = 0, MD_BULK_OFF = 1, MD_BULK_ON = 2 } md_bulk_kind;
/* --halo mpi's buffers (par_mpi.c): MPI sends and receives device memory itself (off), or
 * host copies of it, cudaMemcpy before each send and after each receive (on: an MPI that is
 * not CUDA-aware), the same bits either way. auto: on in the CUDA build when MPI is not
 * CUDA-aware, off on the CPU build (its device memory is host memory). */
typedef enum { MD_STAGING_AUTO = 0, MD_STAGING_OFF = 1, MD_STAGING_ON = 2 } md_staging_kind;

typedef struct md_par_opts {
    md_halo_kind halo;       /* fused (default), pulse, host, direct26 or mpi */
    md_transport transport;  /* auto: direct where nvshmem_ptr gives the peer, else signal;
                              * halo mpi: signal (every byte through MPI), direct refused */
    int halo_blocks;         /* blocks per pulse of the halo kernels (default 2) */
    int halo_threads;        /* threads per block of the halo kernels (default 32) */
    int force_blocks;        /* blocks of each force kernel (0: loop: cores / PEs, at least
                              * 1; threads: one thread per i-entry) */
    md_force_kind force;     /* the force kernels' form (auto: by build) */
    md_bulk_kind bulk;       /* direct path: bulk copies (auto: by build) */
    md_staging_kind mpi_staging; /* halo mpi: host copies for MPI (auto: by build and MPI) */
    int bulk_chunk;          /* elements per bulk copy: 0 (MD_BULK_SMEM), or even, 2 to
                              * MD_BULK_SMEM (tests: small chunks cross many boundaries) */
    bool graph;              /* CUDA build: each step without a search is captured as a CUDA
                              * graph and launched as one (par_graph.c) */
    int sample_every;        /* output every N steps (0: params.thermo), plus 0 and last */
    bool check_halo;         /* at every search: the id-encoded halo-contents test */
    bool phase_times;        /* per-phase device times (par_timing.c; syncs every step) */
    const char *occupancy;   /* --occupancy FILE: PE 0's block records of the last step
                              * without a search (par_timing.c; syncs every step), or NULL */
    /* A restart: the system passed to md_par_run is the state of this step, which must be
     * a search step (a multiple of nstlist); steps first_step + 1 .. par->steps run and the
     * first output is at first_step. 0: a fresh start. */
    long first_step;
    /* Snapshots of the whole state (dumps, checkpoints: io.h), optional. Every PE calls
     * want at every step from first_step on, so it must depend on the step only; when it
     * returns non-zero the PEs synchronize, gather their home atoms on PE 0 (ordered by id,
     * with the positions, momenta and forces of that step: what md_sim_gather gives) and
     * PE 0 calls snapshot, whose non-zero return (with err) stops the run. PE 0 calls
     * progress after each step is issued (the streams may still be working on it). */
    unsigned (*want)(long step, void *ctx);
    int (*snapshot)(const md_system *snap, long step, void *ctx, md_error *err);
    void (*progress)(long step, void *ctx);
    void *io_ctx;
    /* [dd->pes] or NULL: each PE's halo traffic over the run (par_stats.h), filled at the
     * end (shmemu-md --halo-stats). */
    md_run_traffic *traffic;
} md_par_opts;

void md_par_opts_default(md_par_opts *o);

/* The phases of a step that opt.phase_times measures (par_timing.c), and their names. */
typedef enum {
    MD_PH_UPDATE = 0, MD_PH_LOCAL, MD_PH_HALO_X, MD_PH_NONLOCAL, MD_PH_HALO_F, MD_PH_KICK,
    MD_PH_STEP, MD_NPHASE
} md_phase;
extern const char *const md_par_phase_name[MD_NPHASE];

/* The device intervals of a step that opt.phase_times takes from the kernels' per-block
 * %globaltimer stamps (paper 000 §6.3; kernels/tstamp.h, par_timing.c), per step:
 *   local       start to end of the Local Non-bonded F kernel(s)
 *   nonlocal    start of the first non-local kernel (the coordinate halo's first pack; the
 *               non-local force kernel when there is no halo) to the end of the last
 *               (the force halo's last unpack)
 *   nonoverlap  end of the local force kernel (or the non-local start, if later) to the end
 *               of the non-local work, 0 when the non-local work ends first: what the
 *               local work did not hide (so never more than nonlocal)
 *   step        the first block start of the step to its last block end, any kernel */
typedef enum { MD_DT_LOCAL = 0, MD_DT_NONLOCAL, MD_DT_NONOVERLAP, MD_DT_STEP, MD_NDT } md_dtime;
extern const char *const md_par_dtime_name[MD_NDT];

/* Called on PE 0 at every output step with the global sums (the same md_thermo that
 * md_sim_thermo gives). Non-zero stops the run (the value is returned). */
typedef int (*md_par_sample_fn)(const md_thermo *t, void *ctx);

typedef struct md_par_result {
    long steps;              /* the last step done (first_step + steps done) */
    uint64_t checksum;       /* at the last step */
    double seconds;          /* the step loop, PE 0's wall time */
    double setup_seconds;
    int grid[3], pulses[3];
    int64_t halo_checks;     /* halo slots verified by check_halo */
    int direct_pulses;       /* pulses (direct26: neighbour directions) on the direct path
                                (PE 0) */
    int signal_pulses;
    int bulk_pulses;         /* of the direct ones, those with bulk copies (PE 0) */
    double phase_ms[MD_NPHASE]; /* opt.phase_times: PE 0's device ms per phase, summed */
    long timed_steps;        /* the steps summed (search steps are not) */
    double dtime_ms[MD_NDT]; /* opt.phase_times: PE 0's device intervals, ms, summed over
                              * the timed steps */
    /* opt.occupancy: PE 0's block records of step occ_step (-1: no step without a search
     * ran), occ_n of occ_total appended (the rest dropped), the device's SM count (0: not
     * known: the emulator without SHMEMU_EMU_SMS); occ is the caller's to free. */
    struct md_blockrec *occ;
    unsigned long long occ_n, occ_total;
    long occ_step;
    int occ_sms;
    bool occ_gpu;            /* the records come from a GPU (else the emulator) */
    long graph_launches;     /* opt.graph: steps launched as a graph (PE 0) */
    long graph_builds;       /* opt.graph: instantiations (the rest were updates) */
} md_par_result;

/* --halo mpi (par_mpi.c): 0 when this process can run it (the CPU build on the MPI
 * backend, SHMEMU_BACKEND=mpi or started by mpirun; the CUDA build started by mpirun, built
 * with MPI); else -1 with err saying how to start it. md_par_run calls it before any PE
 * starts; shmemu-md before it prints anything. */
int md_par_mpi_check(md_error *err);

/* Runs sys (the state of step opt->first_step) to step par->steps on dd->pes PE threads.
 * Returns 0, or -1 with err. */
int md_par_run(const md_system *sys, const md_params *par, const md_ddparams *dd,
               const md_par_opts *opt, md_par_sample_fn cb, void *cb_ctx, md_par_result *res,
               md_error *err);

#endif
