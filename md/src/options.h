/*
 * options.h: the command line of bin/shmemu-md, parsed into plain structs (testable).
 */
#ifndef MD_OPTIONS_H
#define MD_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "io.h"
#include "par.h"
#include "shmemu/md.h"

typedef struct md_options {
    md_params par;
    md_lattice lat;
    md_ddparams dd;
    const char *data;   /* --data FILE, or NULL for the lattice */
    bool lattice_given; /* any of --cells --density --temperature --seed */
    bool help;
    bool list_bugs;     /* --list-bugs: print the planted-bug catalogue and exit */
    bool check;         /* --check: brute-force pair and halo oracles every step */
    bool timing;        /* --timing: per-phase device times (parallel driver) */
    bool halo_stats;    /* --halo-stats: messages and bytes per step (par_stats.h) */
    md_io_options io;   /* --dump --checkpoint --restart --progress ... (io.h) */
    md_halo_kind halo;  /* --halo fused|pulse|host|mpi|direct26|serial (par.h; default fused) */
    md_transport transport; /* --transport direct|signal|auto (default auto) */
    md_force_kind force;    /* --force-kernel loop|threads|auto (default auto) */
    md_bulk_kind bulk;      /* --bulk-copy on|off|auto (default auto) */
    md_staging_kind mpi_staging; /* --mpi-staging on|off|auto (default auto; --halo mpi) */
    bool graph;             /* --graph: CUDA graph per step (CUDA build) */
} md_options;

/* Most PEs (threads of this process) that --pes or --dd may ask for. */
#define MD_OPTIONS_MAX_PES 4096

/* Fills o from argv (defaults first). Returns -1 with a message naming the option. */
int md_options_parse(int argc, char **argv, md_options *o, md_error *err);
void md_options_usage(FILE *f);

#endif
