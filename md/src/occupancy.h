/*
 * occupancy.h: --occupancy FILE, the block records of one step as a shmemu event log.
 *
 * The parallel driver's kernels append a record when each block starts and ends, with the
 * SM it ran on and %globaltimer (kernels/tstamp.h; par_timing.c keeps the last step without
 * a pair search, PE 0's device). This file writes them in the event log format of
 * docs/events.md (block_start / block_end events, "kernel" the step's role, "sm" the SM),
 * which bin/shmemu-view draws as the occupancy timeline of paper 003: the fraction of the
 * device's SMs that each role's blocks hold over the step. The same code writes a GPU run's
 * records (the CUDA build: %smid, the device's SM count) and the emulator's (worker slots).
 */
#ifndef MD_OCCUPANCY_H
#define MD_OCCUPANCY_H

#include "par.h"
#include "shmemu/md.h"

/* Writes res's records (res->occ) to path whole (a temporary file, then rename), with npes
 * and halo (the variant's name) in the header. -1 with err on failure (path untouched). */
int md_occupancy_write(const char *path, const md_par_result *res, int npes, const char *halo,
                       md_error *err);

#endif
