/*
 * io.h: the run's input and output besides the thermo lines: restart, trajectory dumps,
 * checkpoints and the progress line, behind a few calls that bin/shmemu-md makes (main.c,
 * in a marked block) and that work with any driver that has md_sim_gather and
 * md_sim_steps_done.
 *
 * Schedule, for a run that starts at step s0 (0, or the checkpoint's step) and ends at
 * step --steps:
 *   dump        every step that is a multiple of --dump-every, s0 included
 *   checkpoint  every multiple of --checkpoint-every after s0, and at the run's last search
 *               step (the largest multiple of --nstlist <= --steps) when that is after s0;
 *               --checkpoint-every must be a multiple of --nstlist (checkpoint.h says why)
 *   progress    a line on standard error at most every 5 s (progress.h)
 * A restarted run writes a new dump file, starting with the frame of its first step when
 * that step is a multiple of --dump-every.
 */
#ifndef MD_IO_H
#define MD_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "dump.h"
#include "progress.h"
#include "shmemu/md.h"

typedef struct md_io_options {
    const char *dump;        /* --dump FILE, or NULL */
    long dump_every;         /* --dump-every N (default 100) */
    const char *dump_format; /* --dump-format xyz|lammps, or NULL: from the file name */
    const char *checkpoint;  /* --checkpoint FILE, or NULL */
    long checkpoint_every;   /* --checkpoint-every N; 0 (default): at the end only */
    const char *restart;     /* --restart FILE, or NULL */
    const char *occupancy;   /* --occupancy FILE: PE 0's per-block records (par_timing.c), or NULL */
    const char *data;        /* --data FILE (an input; set by the option parser), or NULL */
    int progress;            /* --progress 1, --no-progress 0, -1: when stderr is a tty */
    bool dump_every_given, checkpoint_every_given;
} md_io_options;

void md_io_options_default(md_io_options *o);
/* The options this module parses: 1 takes a value, 2 is a flag, 0 not ours. */
int md_io_option_kind(const char *name);
int md_io_option_parse(md_io_options *o, const char *name, const char *val, md_error *err);
/* After all options: checks the combinations (needs the run parameters), and the output
 * paths against the inputs and each other, before anything is written (outpath.h). */
int md_io_options_check(const md_io_options *o, const md_params *par, md_error *err);

typedef struct md_io {
    md_io_options opt;
    md_params par;
    md_dump dump;
    bool dumping;
    md_dump_format fmt;
    md_progress prog;
    long first;              /* step the run started at */
    long final_search;       /* last search step of the run */
    long checkpoints;        /* written */
    double checkpoint_s;     /* seconds spent writing them */
    bool quiet;              /* md_io_start_quiet: the schedule only, nothing written */
} md_io;

/* The driver for this run: from --restart (checked against par and against sys, the system
 * the command line describes) or fresh from sys. *etot0 gets the checkpoint's etot(0), or
 * NaN for a fresh start. */
md_sim *md_io_create_sim(const md_io_options *o, const md_system *sys, const md_params *par,
                         const md_ddparams *dd, double *etot0, md_error *err);
/* Opens the dump (and checks the checkpoint path) before the first step; writes the first
 * frame when due; prints "# ..." lines about the output to out. */
int md_io_start(md_io *io, const md_io_options *o, const md_params *par, const md_sim *s,
                FILE *out, md_error *err);
/* The same for a driver that makes its own snapshots (the parallel one): the run starts
 * at step first; the frame of that step, when due, comes through md_io_snapshot. */
int md_io_start_at(md_io *io, const md_io_options *o, const md_params *par, long first,
                   FILE *out, md_error *err);
/* The schedule alone, for a process that writes nothing while another writes the run's
 * output (an MPI rank other than 0: shmemu_launcher_rank): md_io_wants answers as after
 * md_io_start_at, so every PE asks for the same snapshots; nothing is opened, removed or
 * printed; md_io_snapshot refuses, md_io_progress and md_io_finish do nothing. */
void md_io_start_quiet(md_io *io, const md_io_options *o, const md_params *par, long first);
/* After each step of the serial driver: dump, checkpoint, progress, as due (the three
 * calls below, with md_sim_gather for the snapshot). */
int md_io_after_step(md_io *io, const md_sim *s, double etot0, md_error *err);

/* The same for any driver. md_io_wants says what is due at a step (0: nothing, so no
 * gather is needed); md_io_snapshot writes it from a gathered state (atoms ordered by id,
 * with positions, momenta and forces of that step: what md_sim_gather gives); the
 * progress line is separate, as it needs no state. */
#define MD_IO_DUMP 1u
#define MD_IO_CHECKPOINT 2u
unsigned md_io_wants(const md_io *io, long step);
int md_io_snapshot(md_io *io, const md_system *snap, long step, double etot0, md_error *err);
void md_io_progress(md_io *io, long step);
int md_io_finish(md_io *io, md_error *err);

#endif
