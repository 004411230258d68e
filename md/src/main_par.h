/*
 * main_par.h: bin/shmemu-md's run on the parallel driver (par.h): the same output as the
 * serial driver's (header, thermo lines, drift, 'checksum <16 hex>').
 */
#ifndef MD_MAIN_PAR_H
#define MD_MAIN_PAR_H

#include "options.h"

/* Runs o on sys with PE threads and halo kernels; returns the exit status (0, 1, or 3
 * when --check finds a difference from the serial reference). */
int md_main_parallel(const md_options *o, const md_system *sys);

#endif
