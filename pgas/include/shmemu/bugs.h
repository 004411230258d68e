/*
 * shmemu/bugs.h: the catalogue of planted protocol bugs.
 *
 * Each entry is one realistic mistake a developer of the signalling protocol (docs/papers.md:
 * paper 000's halo exchange, NVSHMEM's put-with-signal, fences and waits) could make, planted in
 * the MD kernels, the MD driver or the pgas runtime behind a check of the form
 *
 *     if (shmemu_bug(SHMEMU_BUG_X_NOTIFY_RELAXED)) ...the mistake...; else ...correct code...
 *
 * At most one bug is active in a process. It is chosen by the environment variable
 * SHMEMU_BUG=<name>, read once, before main() runs (so before any PE thread starts): an
 * unknown name prints the catalogue's names and exits with status 2. Without SHMEMU_BUG the
 * check is one load of a word that never changes and one compare, predicted not taken:
 * correct code runs unchanged, bit for bit.
 *
 * The catalogue is what scripts/detection-matrix.sh runs: every bug under every checker
 * (helgrind, DRD, ThreadSanitizer, the checksum against the 1-PE reference), with the
 * shmemu-md arguments of its entry (the configuration that exercises it).
 * `shmemu-md --list-bugs` prints it. docs/detection-matrix.md is the result.
 *
 * Under nvcc (the kernels' CUDA build), or with -DSHMEMU_NO_BUGS, every check is the
 * constant false and the plants compile away (SHMEMU_BUG is then still parsed, and ignored).
 */
#ifndef SHMEMU_BUGS_H
#define SHMEMU_BUGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bugs, in catalogue order. SHMEMU_BUG_NONE (0) is correct code. */
typedef enum shmemu_bug_id {
    SHMEMU_BUG_NONE = 0,
    /* FusedPackCommX (md/src/kernels/halo_fused_x.c) */
    SHMEMU_BUG_X_DEP_WAIT_MISSING,
    SHMEMU_BUG_X_DEP_WAIT_RELAXED,
    SHMEMU_BUG_X_DEP_WAIT_LAST_ONLY,
    SHMEMU_BUG_X_SYNC_AFTER_DEP_WAIT_MISSING,
    SHMEMU_BUG_X_ELECT_BARRIER_MISSING,
    SHMEMU_BUG_X_RECV_WAIT_MISSING,
    /* the shared device functions (md/src/kernels/halo_dev.h) */
    SHMEMU_BUG_X_NOTIFY_RELAXED,
    SHMEMU_BUG_F_NOTIFY_RELAXED,
    SHMEMU_BUG_X_SIGNAL_BEFORE_DATA,
    SHMEMU_BUG_X_FENCE_MISSING,
    SHMEMU_BUG_X_QUIET_MISSING,
    SHMEMU_BUG_X_PUT_WRONG_PE,
    SHMEMU_BUG_ELECT_RELAXED,
    SHMEMU_BUG_F_UNPACK_PLAIN_ADD,
    SHMEMU_BUG_F_UNPACK_NEGATED,
    SHMEMU_BUG_BULK_SYNC_MISSING,
    /* FusedCommUnpackF and the pulse kernels */
    SHMEMU_BUG_F_DEPMGMT_WAIT_MISSING,
    SHMEMU_BUG_F_UNPACK_SYNC_MISSING,
    /* the driver (md/src/par.c, md/src/par_setup.c) */
    SHMEMU_BUG_X_DEP_OFFSET_OFF_BY_ONE,
    SHMEMU_BUG_COORD_SHIFT_SIGN,
    SHMEMU_BUG_X_SEQ_NOT_INCREMENTED,
    SHMEMU_BUG_F_SENT_BEFORE_NONLOCAL,
    SHMEMU_BUG_UPDATE_NO_WAIT_NONLOCAL,
    SHMEMU_BUG_NONLOCAL_NO_WAIT_UPDATE,
    /* the pgas runtime (pgas/src) */
    SHMEMU_BUG_RT_SIGNAL_NO_RELEASE,
    SHMEMU_BUG_RT_WAIT_NO_ACQUIRE,
    SHMEMU_BUG_RT_PUT_SIGNAL_ORDER,
    SHMEMU_BUG_RT_QUIET_NOOP,
    SHMEMU_BUG_RT_FENCE_NOOP,
    SHMEMU_BUG_RT_BARRIER_NO_HB,
    SHMEMU_BUG_COUNT
} shmemu_bug_id;

/* One catalogue entry. */
typedef struct shmemu_bug_info {
    shmemu_bug_id id;
    const char *name;   /* what SHMEMU_BUG takes: lower case, words joined by '-' */
    const char *what;   /* the mistake, in one line */
    const char *file;   /* the source file of the plant (it holds shmemu_bug(<enum>)) */
    const char *config; /* how to exercise it: optional VAR=value words, then shmemu-md
                           arguments (the matrix adds --steps) */
} shmemu_bug_info;

/* The active bug; written once before main() (or by shmemu_bug_select), read-only after. */
extern int shmemu_bug_active_;

#if defined(__CUDACC__) || defined(SHMEMU_NO_BUGS)
#define shmemu_bug(id) ((void)(id), false)
#else
/* True when `id` is the active bug: the plant site's check. */
static inline bool shmemu_bug(shmemu_bug_id id)
{
    return __builtin_expect(shmemu_bug_active_ == (int)id, 0);
}
#endif

/* The catalogue: entries for SHMEMU_BUG_NONE + 1 .. SHMEMU_BUG_COUNT - 1, in order. */
const shmemu_bug_info *shmemu_bug_catalogue(size_t *count);

/* The entry of a name, or NULL. */
const shmemu_bug_info *shmemu_bug_by_name(const char *name);

/* Parses a SHMEMU_BUG value: NULL or "" is SHMEMU_BUG_NONE, a catalogue name its bug.
 * Returns 0, or -1 with a message in msg (naming the value and listing the names). */
int shmemu_bug_parse(const char *value, shmemu_bug_id *out, char *msg, size_t msg_size);

/* The active bug (SHMEMU_BUG_NONE when correct code runs). */
shmemu_bug_id shmemu_bug_active(void);

/* Makes `id` the active bug. For tests: call only while no PE thread runs (it is a plain
 * write that the threads started afterwards read). */
void shmemu_bug_select(shmemu_bug_id id);

/* Prints the catalogue: one line per bug, "name  file  what", then its configuration. */
void shmemu_bug_print(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
