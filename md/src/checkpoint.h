/*
 * checkpoint.h: exact binary checkpoints of a run, and restarting from them.
 *
 * What a checkpoint holds: the gathered global state (md_system: box, masses, dt, and every
 * atom's id, type, fixed-point position, momentum, force and image flags, ordered by id),
 * the step, and
 * the run parameters that enter the bits (rc, skin, nstlist, dt, shift) plus etot(0) for the
 * drift column. Nothing about the decomposition: a restart may use any --pes/--dd.
 *
 * THE RULE THAT KEEPS BITS EXACT: a checkpoint is taken only at a search step (a multiple of
 * nstlist). At a search step the state of record is a function of the atoms alone:
 * positions were just wrapped into the box, the pair lists and halos were just rebuilt from
 * exactly these positions, and the forces came from those lists. A restart creates a new
 * driver from the stored atoms: creation wraps (a no-op: they are wrapped), searches (the
 * same pairs within rlist, whatever the decomposition) and computes the forces, which must
 * come out equal to the stored ones, bit for bit (checked: a mismatch is an error). Between
 * searches that would not hold: positions drift unwrapped, and the lists belong to the
 * positions of the last search, so wrapping or re-searching at a restart would change the
 * positions or the pair set, hence the checksums. So --checkpoint-every must be a multiple
 * of --nstlist, and the end-of-run checkpoint is written at the run's last search step
 * (a restart repeats at most nstlist - 1 steps).
 *
 * File format, version 2, every field little-endian whatever the machine (doubles as their
 * IEEE-754 bit patterns), so a file moves between machines:
 *
 *   offset  size  field
 *        0     8  magic "SHMUMDCK"
 *        8     4  format version (2; 1 is still read, see below)
 *       12     4  header size in bytes (MD_CKPT_HEADER_BYTES)
 *       16     8  byte-order mark 0x0102030405060708 (decodes to this value or the file is
 *                 not ours / was written wrong)
 *       24     8  atoms                         32   4  atom types
 *       36     4  flags (bit 0: --shift)         40   8  step
 *       48     8  step of the last pair search (== step)
 *       56     8  rc (f64)   64  8 skin (f64)   72  8 dt (f64)   80  8 nstlist
 *       88    24  box edges, position units (3 x i64)
 *      112    24  box origin lo, σ (3 x f64; only for output)
 *      136     8  etot(0) per atom, ε (f64; NaN when unknown)
 *      144     8  payload size in bytes
 *      152     8  CRC-64/XZ of the payload
 *      160     8  CRC-64/XZ of header bytes [0, 160)
 *   payload (blocks, one array after another):
 *      mass[ntypes] f64 · id[n] i64 · type[n] i32 (0-based) · x[3][n] i64 · p[3][n] i64 ·
 *      f[3][n] i64 · img[3][n] i32 (image flags: unwrapped x = x + img·L)
 *
 * 96 bytes per atom: 32 000 atoms take 3.1 MB. Version 1 (written before image flags
 * existed) is the same without the img block (84 bytes per atom); it is still read, with
 * every image flag 0: the unwrapped positions of such a restart start from the wrapped ones
 * at the checkpoint's step.
 *
 * The file is written whole: into a temporary file in the same directory, fsync'ed, renamed
 * over the target, then the directory is fsync'ed; a run killed at any moment leaves the
 * previous checkpoint or the new one, never a mixture. Every write, fsync, close and rename
 * is checked; a failure names the file and the system's reason, removes the temporary file
 * and is not counted as a checkpoint.
 *
 * The reader checks everything, since a file may be damaged or crafted (CRCs are easy to
 * recompute): magic, version, byte order, sizes against the file's length (before any
 * allocation), both CRCs, and the range of every decoded field: step (a search step, at most
 * LONG_MAX/2), flags (bit 0 only), rc, skin, dt (positive, finite), box edges (1 unit to
 * 2^19 σ), box origin (finite), etot(0) (NaN for unknown, else |etot(0)| <= 2^31 ε per
 * atom), masses (positive, finite), ids (positive, increasing), types (in range), positions
 * (inside the box), momenta (|p| <= 2^52 units: (double)p stays exact), forces
 * (|f| <= 2^62: p + f cannot overflow; the restart recomputes them and compares) and image
 * flags (|img| <= 2^30, MD_IMAGE_MAX). Each
 * message names the field and, for per-atom fields, the atom id. It never reads past the
 * buffer.
 */
#ifndef MD_CHECKPOINT_H
#define MD_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shmemu/md.h"

#define MD_CKPT_VERSION 2
#define MD_CKPT_HEADER_BYTES 168

typedef struct md_checkpoint {
    md_system sys;    /* box, masses, dt, atoms by id with x, p, f, img (p in sys.dt's unit) */
    long step;        /* step of the state: a search step */
    long last_search; /* == step */
    double rc, skin;  /* σ */
    int nstlist;
    bool shift;
    double etot0;     /* etot per atom at step 0 (NaN: unknown) */
} md_checkpoint;

/* CRC-64/XZ (ECMA-182 polynomial, reflected, init and xorout all ones); check value of
 * "123456789" is 0x995dc9bbdf1939fa. crc: 0 to start, or a previous result to continue. */
uint64_t md_crc64(uint64_t crc, const void *buf, size_t len);

/* Takes the checkpoint of a running simulation (gathers its state). The current step must
 * be a search step (steps_done % nstlist == 0); -1 with a message otherwise. */
int md_checkpoint_capture(const md_sim *sim, const md_params *par, double etot0,
                          md_checkpoint *ck, md_error *err);
/* The same from a gathered snapshot of any driver, without copying: ck->sys shares snap's
 * arrays, so do not md_checkpoint_free it. */
int md_checkpoint_view(const md_system *snap, long step, const md_params *par, double etot0,
                       md_checkpoint *ck, md_error *err);
void md_checkpoint_free(md_checkpoint *ck);
/* The state checksum of the stored atoms: what md_sim_checksum (and every driver) prints
 * at the checkpoint's step. A driver that restarts by itself compares its first checksum
 * with this one. */
uint64_t md_checkpoint_state_checksum(const md_checkpoint *ck);

/* Serialises to a malloc'ed buffer (*out, *len). */
void md_checkpoint_encode(const md_checkpoint *ck, unsigned char **out, size_t *len);
/* Parses a buffer; name is used in messages. Fills ck (free with md_checkpoint_free). */
int md_checkpoint_decode(const unsigned char *buf, size_t len, const char *name,
                         md_checkpoint *ck, md_error *err);

/* Writes whole (temporary file, fsync, rename, fsync of the directory). */
int md_checkpoint_write(const char *path, const md_checkpoint *ck, md_error *err);
int md_checkpoint_read(const char *path, md_checkpoint *ck, md_error *err);
/* Checks at start-up that path can be written (a regular file or none: outpath.h; creates
 * and removes a temporary file in its directory), so a run does not fail at its first
 * checkpoint. */
int md_checkpoint_probe(const char *path, md_error *err);
/* Removes the temporary files "<path>.tmp.<pid>" that killed runs left next to path: only
 * names of exactly that form (decimal pid, as the writer makes them), only regular files,
 * and only when the process pid no longer exists (kill(pid, 0) fails with ESRCH), so a run
 * writing the same path now is left alone. Each removal is reported on log (may be NULL).
 * Returns how many were removed, or -1 with a message when one cannot be removed. */
int md_checkpoint_clean_stale(const char *path, FILE *log, md_error *err);

/* Checks that this run's parameters and system agree with the checkpoint: rc, skin,
 * nstlist, dt, shift, and (when sys is not NULL: the system this command line describes)
 * atom count, atom types, masses, box and atom ids. The message names the field, both
 * values and the option to change. */
int md_checkpoint_match(const md_checkpoint *ck, const md_params *par, const md_system *sys,
                        const char *name, md_error *err);

/* Creates a driver from the checkpoint on the decomposition dd, sets its step, and checks
 * that the recomputed forces equal the stored ones bit for bit. par must match
 * (md_checkpoint_match); par->steps is the last step of the whole run. */
md_sim *md_checkpoint_restart(const md_checkpoint *ck, const md_params *par,
                              const md_ddparams *dd, md_error *err);

#endif
