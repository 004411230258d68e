/*
 * outpath.h: which paths a run may write (the --dump and --checkpoint targets).
 *
 * A run writes its outputs by truncating (the dump) or by renaming a temporary file over the
 * target (the checkpoint). Both destroy whatever the path named before, so before anything
 * is written every output is checked against every other path of the run:
 *   - an output that exists must be a regular file (a FIFO would block the dump's open, and
 *     the checkpoint's rename would replace a device node such as /dev/null with a file);
 *   - an output must not be the same file as an input (--data, --restart) or as another
 *     output. "The same file" is decided by identity, not by spelling: st_dev and st_ino
 *     when both exist (hard links, symlinks), else the resolved path (realpath of the
 *     existing directory plus the last component, after following a dangling symlink to
 *     the name it would create), so ./x, x and dir/../x are one file.
 * One allowed alias: --checkpoint may name the --restart file (continue a run in place).
 * The restart file is read whole before the run starts and each checkpoint replaces it
 * atomically, so the file always holds a whole checkpoint.
 */
#ifndef MD_OUTPATH_H
#define MD_OUTPATH_H

#include <stdbool.h>

#include "shmemu/md.h"

/* One path of the run: the option that names it, the path (NULL: not given), whether the
 * run writes it, and the option of the one input it may replace (or NULL). */
typedef struct md_path_use {
    const char *option; /* "--dump", "--data", ... */
    const char *path;
    bool output;
    const char *may_replace; /* "--restart" for --checkpoint, else NULL */
} md_path_use;

/* Checks the paths as above; -1 with a message naming both options and the path. */
int md_outpath_check(const md_path_use *use, int n, md_error *err);

/* One output target: refused when it exists and is not a regular file (a directory, FIFO,
 * socket or device); symlinks are followed. Used again right before each write. */
int md_outpath_check_target(const char *option, const char *path, md_error *err);

#endif
