/*
 * lammps_data.h: the data file reader's internal entry, for tests: md_lammps_read_run with
 * the input-size bound as a parameter (the public calls use MD_LAMMPS_MAX_BYTES), so a test
 * can exercise the bound on a pipe without writing gigabytes.
 */
#ifndef MD_LAMMPS_DATA_H
#define MD_LAMMPS_DATA_H

#include <stdint.h>

#include "shmemu/md.h"

/* rc <= 0: the run's cut-off is unknown (a cut-off column in Pair Coeffs is refused). */
int md_lammps_read_bounded(const char *path, double dt, double rc, uint64_t max_bytes,
                           md_system *sys, md_error *err);

#endif
