/*
 * md_bugs.h: the MD app's planted protocol bugs (the mechanism: shmemu/bugs.h).
 *
 * Each is one realistic mistake in paper 000's halo exchange (docs/papers.md) or in the
 * driver around it. A plant lives inside the named step it breaks: the kernels
 * (md/src/kernels/) call the protocol's steps (kernels/halo_steps.h), each step holds
 * `if (md_bug(MD_BUG_X)) ...the mistake...; else ...the step...`, so the kernels read like
 * the paper's algorithms and the mistakes sit in one file; the driver's steps (its streams,
 * exchange numbers and pulse table) do the same in par_steps.h, and the direct exchange
 * (--halo direct26) keeps its own steps' plants beside its kernels (halo_direct26.c) and
 * its search and force halo (par_direct26.c). md_bugs.c holds the
 * catalogue (name, the mistake, the plant's file, the shmemu-md run that exercises it) and registers it with the runtime's before main();
 * it also names the runs that exercise the runtime's own plants (SHMEMU_BUG_RT_*).
 * `shmemu-md --list-bugs` prints both, SHMEMU_BUG=<name> selects one.
 *
 * Under nvcc every md_bug() is the constant false: the CUDA build is the correct code.
 */
#ifndef MD_BUGS_H
#define MD_BUGS_H

#include <stdio.h>

#include "shmemu/bugs.h"

/* md's bugs, in catalogue order (ids from the runtime's SHMEMU_BUG_CLIENT_FIRST). */
typedef enum md_bug_id {
    /* the coordinate halo's steps (FusedPackCommX, the pulse kernels) */
    MD_BUG_X_DEP_WAIT_MISSING = SHMEMU_BUG_CLIENT_FIRST,
    MD_BUG_X_DEP_WAIT_RELAXED,
    MD_BUG_X_DEP_WAIT_LAST_ONLY,
    MD_BUG_X_SYNC_AFTER_DEP_WAIT_MISSING,
    MD_BUG_X_ELECT_BARRIER_MISSING,
    MD_BUG_X_RECV_WAIT_MISSING,
    /* the transports' steps */
    MD_BUG_X_NOTIFY_RELAXED,
    MD_BUG_F_NOTIFY_RELAXED,
    MD_BUG_X_SIGNAL_BEFORE_DATA,
    MD_BUG_X_FENCE_MISSING,
    MD_BUG_X_QUIET_MISSING,
    MD_BUG_X_PUT_WRONG_PE,
    MD_BUG_ELECT_RELAXED,
    MD_BUG_F_UNPACK_PLAIN_ADD,
    MD_BUG_F_UNPACK_NEGATED,
    MD_BUG_BULK_SYNC_MISSING,
    /* the force halo's steps (FusedCommUnpackF, the pulse kernels) */
    MD_BUG_F_DEPMGMT_WAIT_MISSING,
    MD_BUG_F_UNPACK_SYNC_MISSING,
    /* the driver's steps (par_steps.h: par.c's streams, par_setup.c's pulse table) */
    MD_BUG_X_DEP_OFFSET_OFF_BY_ONE,
    MD_BUG_COORD_SHIFT_SIGN,
    MD_BUG_X_SEQ_NOT_INCREMENTED,
    MD_BUG_F_SENT_BEFORE_NONLOCAL,
    MD_BUG_UPDATE_NO_WAIT_NONLOCAL,
    MD_BUG_NONLOCAL_NO_WAIT_UPDATE,
    /* direct26's steps (kernels/halo_direct26.c, par_direct26.c) */
    MD_BUG_D26_ACK_WAIT_MISSING,
    MD_BUG_D26_ACK_RELAXED,
    MD_BUG_D26_ACK_BEFORE_READS,
    MD_BUG_D26_GHOST_WAIT_RELAXED,
    MD_BUG_D26_GHOST_SEQ_BEHIND,
    MD_BUG_D26_STALE_SEND_LIST,
    MD_BUG_END /* one past md's */
} md_bug_id;

/* True when `id` is the active bug: a plant's check (false under nvcc). */
#define md_bug(id) shmemu_bug(id)

/* md's catalogue: n entries, ids MD_BUG_X_DEP_WAIT_MISSING .. MD_BUG_END - 1 in order. */
const shmemu_bug_info *md_bugs_catalogue(size_t *n);

/* Prints every planted bug, md's and the runtime's (shmemu-md --list-bugs). */
void md_bugs_print(FILE *out);

#endif
