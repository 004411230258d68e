/*
 * cg_bugs.c: cg's catalogue of planted bugs (cg_bugs.h). A constructor registers it with the
 * runtime's switch (shmemu/bugs.h) before SHMEMU_BUG is parsed, so cg's names are valid
 * values of SHMEMU_BUG in shmemu-cg and the cg tests.
 */
#include <stdlib.h>

#include "cg_bugs.h"

static const shmemu_bug_info catalogue[] = {
    {CG_BUG_CREDIT_WAIT_MISSING, "cg-credit-wait-missing",
     "halo send (cg-mono, halo-loop): no wait for the receiver's ready-to-receive credit of "
     "the previous exchange before putting into its ghosts (in cg-mono the blocking "
     "reductions mask it; the halo-only loop, which has none, shows it)",
     "cg/src/kernels/mono.c",
     "SHMEMU_SCHED=random SHMEMU_SEED=1 --poisson2d 12 --solver halo-loop --iters 40 --pes 4"},
    {CG_BUG_QUIET_MISSING, "cg-quiet-missing",
     "halo (cg-mono, halo-loop): no nvshmem_quiet after the grid sync that follows the "
     "put-with-signal: the send buffer is rewritten before the puts are complete (in cg-mono "
     "the next reduction collective completes them in its place; the halo-only loop shows "
     "it in checking mode)",
     "cg/src/kernels/mono.c",
     "SHMEMU_CHECK_NBI=1 --poisson2d 12 --solver halo-loop --iters 40 --pes 4"},
};

const shmemu_bug_info *cg_bugs_catalogue(size_t *n)
{
    *n = sizeof catalogue / sizeof *catalogue;
    return catalogue;
}

__attribute__((constructor(SHMEMU_BUG_REGISTER_PRIORITY))) static void cg_bugs_register(void)
{
    if (shmemu_bug_register(catalogue, sizeof catalogue / sizeof *catalogue) != 0)
        abort(); /* a duplicate name or id: the message is out */
}
