/*
 * dump.h: trajectory frames in extended XYZ or LAMMPS dump format.
 *
 * A frame is written from a gathered snapshot (md_system, atoms ordered by global id, as
 * md_sim_gather gives it), so the output does not depend on the decomposition or on how
 * the driver stores its atoms. Positions are wrapped into the box and written as
 * lo + x·2^-32 σ, with the image flags (LAMMPS's ix iy iz: the unwrapped position is
 * x + i·L; a position that drifted out of the box since the last search counts its wrap
 * here); velocities as p · (dt/2)·2^-32 / m. Numbers are printed with %.17g: a
 * reader gets back the exact doubles, and from them the exact fixed-point state (positions
 * always; momenta while |p| < 2^52 units, i.e. |v| up to ~10^6 σ/τ at dt = 0.005).
 *
 *   extended XYZ (.xyz, .extxyz): per frame
 *     N
 *     Lattice="Lx 0 0 0 Ly 0 0 0 Lz" Origin="xlo ylo zlo" Properties=species:S:1:pos:R:3:
 *       vel:R:3:id:I:1:type:I:1:image:I:3 Time=t Step=n pbc="T T T"   (one line)
 *     <element> x y z vx vy vz id type ix iy iz         (N lines; type 1-based)
 *   The species column holds an element symbol, because ASE, OVITO and VMD take species
 *   as elements (ASE fails on anything else): LAMMPS type 1..6 -> Ar Ne Kr Xe He Rn (the
 *   noble gases, the Lennard-Jones classics), types 7.. -> the other elements in order of
 *   atomic number (H Li Be B C N O F Na ...), repeating after 118 types. The symbol is a
 *   label only (masses and units stay the run's); the exact LAMMPS type is the type column.
 *   LAMMPS dump (.lammpstrj, .dump): per frame
 *     ITEM: TIMESTEP / n / ITEM: NUMBER OF ATOMS / N / ITEM: BOX BOUNDS pp pp pp /
 *     xlo xhi / ylo yhi / zlo zhi / ITEM: ATOMS id type x y z ix iy iz vx vy vz / N lines
 *     (LAMMPS's dump custom names for these columns)
 *
 * Crash safety: each frame is formatted in memory and handed to the kernel with one
 * write() when it is complete, so a run that dies leaves every earlier frame whole and at
 * most the last one cut short (only when the write itself is interrupted, e.g. a full
 * disk). Frames are not fsync'ed (a power loss can lose the recent ones): checkpoints are
 * the durable state.
 */
#ifndef MD_DUMP_H
#define MD_DUMP_H

#include <stddef.h>

#include "shmemu/md.h"

typedef enum md_dump_format { MD_DUMP_XYZ, MD_DUMP_LAMMPS } md_dump_format;

typedef struct md_dump {
    int fd;        /* open for writing; -1 when closed */
    char *path;
    md_dump_format fmt;
    long frames;   /* frames written */
} md_dump;

/* "xyz" or "lammps". */
int md_dump_format_parse(const char *name, md_dump_format *fmt, md_error *err);
/* From the file name: .xyz/.extxyz, or .lammpstrj/.dump; -1 naming --dump-format else. */
int md_dump_format_from_path(const char *path, md_dump_format *fmt, md_error *err);

/* Creates (truncates) path. */
int md_dump_open(md_dump *d, const char *path, md_dump_format fmt, md_error *err);
/* Appends one frame of sys at step (time step * sys->dt). */
int md_dump_frame(md_dump *d, const md_system *sys, long step, md_error *err);
/* The element symbol the extended XYZ dump writes for LAMMPS type (1-based), see above. */
const char *md_dump_species(int type);
/* Formats one frame into a malloc'ed NUL-terminated string (what md_dump_frame writes). */
char *md_dump_format_frame(const md_system *sys, long step, md_dump_format fmt, size_t *len);
int md_dump_close(md_dump *d, md_error *err);

#endif
