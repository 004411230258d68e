/*
 * cg_bugs.h: the CG app's planted protocol bugs (the mechanism: shmemu/bugs.h, as md's
 * md_bugs.h). A plant sits in the step it breaks: `if (cg_bug(CG_BUG_X)) ...the mistake...;
 * else ...the step...`. cg_bugs.c holds the catalogue (name, the mistake, the plant's file,
 * the shmemu-cg run that exercises it) and registers it before main();
 * `shmemu-cg --list-bugs` prints it, SHMEMU_BUG=<name> selects one.
 *
 * Under nvcc every cg_bug() is the constant false: the CUDA build is the correct code.
 */
#ifndef CG_BUGS_H
#define CG_BUGS_H

#include <stddef.h>

#include "shmemu/bugs.h"

/* cg's bugs, in catalogue order. Ids from SHMEMU_BUG_CLIENT_FIRST + 512, apart from md's
 * (a process links one app, but distinct ids keep the catalogues mergeable). */
typedef enum cg_bug_id {
    /* the halo (kernels/halo.h: cg-mono, the halo-only loop, pcg-mono), the quiet and
     * cg-mono's reduction (kernels/mono.c), the put displacements (par.c) */
    CG_BUG_CREDIT_WAIT_MISSING = SHMEMU_BUG_CLIENT_FIRST + 512,
    CG_BUG_QUIET_MISSING,
    CG_BUG_RECV_WAIT_MISSING,    /* also cg-host's host waits (par_host.c) */
    CG_BUG_CREDIT_MISSING,
    CG_BUG_SIGNAL_BEFORE_DATA,
    CG_BUG_SIGNAL_RELAXED,
    CG_BUG_DISP_OFF_BY_ONE,      /* par.c's cg_sends_make: every solver's puts */
    CG_BUG_REDUCE_SYNC_MISSING,
    CG_BUG_END
} cg_bug_id;

#define cg_bug(id) shmemu_bug(id)

/* The catalogue (n entries). */
const shmemu_bug_info *cg_bugs_catalogue(size_t *n);

#endif
