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
     "cg/src/kernels/halo.h",
     "SHMEMU_SCHED=random SHMEMU_SEED=1 --poisson2d 12 --solver halo-loop --iters 40 --pes 4"},
    {CG_BUG_QUIET_MISSING, "cg-quiet-missing",
     "halo (cg-mono, halo-loop): no nvshmem_quiet after the grid sync that follows the "
     "put-with-signal: the send buffer is rewritten before the puts are complete (in cg-mono "
     "the next reduction collective completes them in its place; the halo-only loop shows "
     "it in checking mode)",
     "cg/src/kernels/mono.c",
     "SHMEMU_CHECK_NBI=1 --poisson2d 12 --solver halo-loop --iters 40 --pes 4"},
    {CG_BUG_RECV_WAIT_MISSING, "cg-recv-wait-missing",
     "halo receive (cg-mono, halo-loop; cg-host's host waits, par_host.c): no wait for the "
     "sender's \"received\" signal before the border rows read the ghosts",
     "cg/src/kernels/halo.h", "--poisson2d 12 --solver cg-mono --pes 4 --max-iter 100"},
    {CG_BUG_CREDIT_MISSING, "cg-credit-missing",
     "halo (cg-mono, halo-loop): the ready-to-receive credit never returned (mono_credit "
     "sends nothing): every sender waits for it at the second exchange, a hang",
     "cg/src/kernels/halo.h", "--poisson2d 12 --solver cg-mono --pes 4 --max-iter 100"},
    {CG_BUG_SIGNAL_BEFORE_DATA, "cg-signal-before-data",
     "halo send (cg-mono, halo-loop): the \"received\" signal set by a signal_op before a "
     "plain put_nbi of the data, instead of put-with-signal",
     "cg/src/kernels/halo.h", "--poisson2d 12 --solver cg-mono --pes 4 --max-iter 100"},
    {CG_BUG_SIGNAL_RELAXED, "cg-signal-relaxed",
     "halo send (cg-mono, halo-loop): the data put without a signal, then the \"received\" "
     "signal stored into the receiver's word (nvshmem_ptr) with a relaxed store: no release",
     "cg/src/kernels/halo.h",
     "SHMEMU_CHECK_NBI=1 --poisson2d 12 --solver halo-loop --iters 40 --pes 4"},
    {CG_BUG_DISP_OFF_BY_ONE, "cg-disp-off-by-one",
     "halo plan (every solver: par.c's cg_sends_make): each put lands one element before "
     "its place in the receiver's s (over its last owned row or the previous group's last "
     "ghost; the group's first ghost is never written)",
     "cg/src/par.c", "--poisson2d 12 --solver cg-mono --pes 4 --max-iter 100"},
    {CG_BUG_REDUCE_SYNC_MISSING, "cg-reduce-sync-missing",
     "reduction (cg-mono): no grid sync between block 0's rounding of the reduced scalar and "
     "the other blocks' read of it (they may read the previous one)",
     "cg/src/kernels/mono.c", "--poisson2d 12 --solver cg-mono --pes 4 --max-iter 100"},
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
