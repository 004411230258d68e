/*
 * test_md_util.h: helpers shared by the md suites (test_md_*.c): small systems, runs, and
 * the valgrind scale-down. Header-only, so that each suite stays one file to build.
 */
#ifndef TEST_MD_UTIL_H
#define TEST_MD_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <valgrind/valgrind.h>

#include "fixed.h"
#include "options.h"
#include "rng.h"
#include "shmemu/md.h"
#include "sim.h"
#include "util.h"

static inline bool md_test_valgrind(void) { return RUNNING_ON_VALGRIND != 0; }

/* n natively, max(1, n / div) under valgrind. */
static inline int md_test_scaled(int n, int div)
{
    if (!md_test_valgrind())
        return n;
    return n / div > 0 ? n / div : 1;
}

static inline void md_test_fcc(md_system *sys, int cx, int cy, int cz, double temp,
                               uint64_t seed, double dt)
{
    md_lattice lat;
    md_lattice_default(&lat);
    lat.cells[0] = cx;
    lat.cells[1] = cy;
    lat.cells[2] = cz;
    lat.temperature = temp;
    lat.seed = seed;
    md_error err;
    int rc = md_system_fcc(sys, &lat, dt, &err);
    if (rc != 0)
        fail_msg("md_system_fcc: %s", err.msg);
}

/* Moves every atom by a uniform random amount in [-amp, amp) σ per component (wrapped),
 * deterministic in seed. */
static inline void md_test_jiggle(md_system *sys, double amp, uint64_t seed)
{
    md_atoms *a = &sys->atoms;
    for (int32_t i = 0; i < a->n; i++)
        for (int d = 0; d < 3; d++) {
            double u = md_uniform_centered(md_hash3(seed, (uint64_t)a->id[i], (uint64_t)d + 7));
            a->x[d][i] = md_wrap(a->x[d][i] + md_pos_from_double(2.0 * amp * u), sys->box.len[d]);
        }
}

/* An explicit nx x ny x nz grid, pulses in x-y-z order when xyz_order (else z-y-x). */
static inline md_ddparams md_test_ddparams(int nx, int ny, int nz, bool xyz_order)
{
    md_ddparams dd;
    md_ddparams_default(&dd);
    dd.pes = nx * ny * nz;
    dd.grid[0] = nx;
    dd.grid[1] = ny;
    dd.grid[2] = nz;
    if (xyz_order) {
        dd.order[0] = 0;
        dd.order[1] = 1;
        dd.order[2] = 2;
    }
    return dd;
}

static inline md_sim *md_test_sim(const md_system *sys, const md_params *par, int nx, int ny,
                                  int nz, bool xyz_order)
{
    md_ddparams dd = md_test_ddparams(nx, ny, nz, xyz_order);
    md_error err;
    md_sim *s = md_sim_create(sys, par, &dd, &err);
    if (!s)
        fail_msg("md_sim_create %dx%dx%d: %s", nx, ny, nz, err.msg);
    return s;
}

static inline void md_test_step(md_sim *s, bool energy)
{
    md_error err;
    if (md_sim_step(s, energy, &err) != 0)
        fail_msg("md_sim_step: %s", err.msg);
}

/* The serial driver's checksums of steps 0..par->steps (1 PE): the reference every
 * parallel run must equal at every step. */
static inline void md_test_serial_checksums(const md_system *sys, const md_params *par,
                                            uint64_t *out)
{
    md_sim *s = md_test_sim(sys, par, 1, 1, 1, false);
    out[0] = md_sim_checksum(s);
    for (long k = 1; k <= par->steps; k++) {
        md_test_step(s, false);
        out[k] = md_sim_checksum(s);
    }
    md_sim_destroy(s);
}

/* Parses a space-separated command line as shmemu-md's options (argv[0] "shmemu-md"). */
static inline int md_test_parse_line(md_options *o, md_error *err, const char *line)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", line);
    char *argv[32];
    int argc = 0;
    argv[argc++] = "shmemu-md";
    for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return md_options_parse(argc, argv, o, err);
}

#ifdef MD_TEST_DATA_DIR /* md.mk defines it for the test_md_* suites */
/* bin/shmemu-md of this build: <build>/bin for BUILD=build-*, bin/ for the plain build.
 * False when neither exists. */
static inline bool md_test_find_program(char *out, size_t size)
{
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, size, "%s/../bin/shmemu-md", exe);
            if (access(out, X_OK) == 0)
                return true;
        }
    }
    snprintf(out, size, "%s/../../bin/shmemu-md", MD_TEST_DATA_DIR);
    return access(out, X_OK) == 0;
}
#endif

/* Asserts that haystack contains needle, printing both when not. */
static inline void md_test_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        fail_msg("expected '%s' in message: %s", needle, haystack);
}

#endif
