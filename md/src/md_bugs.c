/*
 * md_bugs.c: md's catalogue of planted bugs (md_bugs.h) and how md exercises the runtime's.
 *
 * The table below is the catalogue of record for md's plants: name, the mistake, the file
 * of the plant and a configuration of shmemu-md that exercises it. A constructor registers
 * it with the runtime's switch (shmemu/bugs.h) before SHMEMU_BUG is parsed, so md's names
 * are valid values; the runtime's own plants get their shmemu-md configurations here too.
 */
#include <stdlib.h>

#include "md_bugs.h"

/* Configurations (the matrix appends --steps). 2D and 3D grids give pulses that forward
 * atoms received in earlier pulses (dep_mask); 3 domains along x give send_rank !=
 * recv_rank and two pulses along x. */
#define CFG_1D "--cells 4 --pes 3 --dd 3x1x1"
#define CFG_2D "--cells 4 --pes 4 --dd 2x2x1"
#define CFG_2D6 "--cells 4 --pes 6 --dd 3x2x1"
#define CFG_3D "--cells 4 --pes 8 --dd 2x2x2"
#define FUSED_DIRECT " --halo fused --transport direct"
#define FUSED_SIGNAL " --halo fused --transport signal"
#define PULSE_DIRECT " --halo pulse --transport direct"
#define PULSE_SIGNAL " --halo pulse --transport signal"
#define BULK " --bulk-copy on"
#define NBI "SHMEMU_CHECK_NBI=1 "
/* direct26 (its own plants): domains at least the halo deep and each PE's home atoms and
 * ghosts within the per-PE arrays, in the smallest box that fits 3 domains along x. Each
 * PE's two neighbours are different PEs, so one of them can run a step ahead: there the
 * acknowledgement's plants change the checksum under each of PCT's first 4 seeds; on
 * 2x1x1 (one neighbour PE through both directions) under 1 or 2 of 8 schedules. */
#define D26_1D "--cells 6,4,4 --pes 3 --dd 3x1x1 --halo direct26"
#define D26_DIRECT " --transport direct"
#define D26_SIGNAL " --transport signal"

#define S "md/src/kernels/halo_steps.h"
#define D26 "md/src/kernels/halo_direct26.c"
static const shmemu_bug_info catalogue[] = {
    {MD_BUG_X_DEP_WAIT_MISSING, "x-dep-wait-missing",
     "FusedPackCommX: no acquire-wait on the earlier pulses whose atoms the pulse forwards "
     "(dep_mask)", S, CFG_2D FUSED_DIRECT},
    {MD_BUG_X_DEP_WAIT_RELAXED, "x-dep-wait-relaxed",
     "FusedPackCommX: the wait on an earlier pulse polls with a relaxed load, not acquire",
     S, CFG_2D FUSED_DIRECT},
    {MD_BUG_X_DEP_WAIT_LAST_ONLY, "x-dep-wait-last-only",
     "FusedPackCommX: waits only for the latest earlier pulse in dep_mask, not for all",
     S, CFG_3D FUSED_DIRECT},
    {MD_BUG_X_SYNC_AFTER_DEP_WAIT_MISSING, "x-sync-after-dep-wait-missing",
     "FusedPackCommX: no __syncthreads after thread 0's dependency wait: the other threads "
     "pack forwarded atoms without its acquire", S, CFG_2D FUSED_DIRECT},
    {MD_BUG_X_ELECT_BARRIER_MISSING, "x-elect-barrier-missing",
     "FusedPackCommX: no block barrier before the last-block election: thread 0 signals "
     "before its block's other threads packed", S, CFG_2D FUSED_DIRECT},
    {MD_BUG_X_RECV_WAIT_MISSING, "x-recv-wait-missing",
     "coordinate receive: no wait for the pulse's incoming coordinates (FusedPackCommX's "
     "block 0, the pulse receive kernel): the non-local force kernel reads halo slots still "
     "being written", S,
     CFG_1D FUSED_DIRECT},
    {MD_BUG_X_NOTIFY_RELAXED, "x-notify-relaxed",
     "direct path: the coordinate signal is a relaxed store where a system-scope release "
     "was needed", S, CFG_1D FUSED_DIRECT},
    {MD_BUG_F_NOTIFY_RELAXED, "f-notify-relaxed",
     "direct path: the force signal is a relaxed store where a system-scope release was "
     "needed", S, CFG_2D6 FUSED_DIRECT},
    {MD_BUG_X_SIGNAL_BEFORE_DATA, "x-signal-before-data",
     "put path: the coordinate signal is sent (nvshmemx_signal_op) before the data is put",
     S, CFG_2D PULSE_SIGNAL},
    {MD_BUG_X_FENCE_MISSING, "x-fence-missing",
     "put path: no nvshmem_fence between the two plain puts and the put-with-signal to the "
     "same PE", S, NBI CFG_2D FUSED_SIGNAL},
    {MD_BUG_X_QUIET_MISSING, "x-quiet-missing",
     "put path: no nvshmem_quiet before the staging buffer is reused (next step's pack)",
     S, NBI CFG_2D PULSE_SIGNAL},
    {MD_BUG_X_PUT_WRONG_PE, "x-put-wrong-pe",
     "put path: the coordinates and their signal go to recv_rank instead of send_rank",
     S, CFG_2D6 FUSED_SIGNAL},
    {MD_BUG_ELECT_RELAXED, "elect-relaxed",
     "last-block election: the counter is incremented relaxed, not acq_rel: the last block "
     "does not acquire the other blocks' writes", S, CFG_2D FUSED_DIRECT},
    {MD_BUG_F_UNPACK_PLAIN_ADD, "f-unpack-plain-add",
     "force unpack: returned forces are added with a plain load and store instead of an "
     "atomic add (pulses share atoms)", S, CFG_2D FUSED_DIRECT},
    {MD_BUG_F_UNPACK_NEGATED, "f-unpack-negated",
     "force unpack: the returned forces are subtracted (Newton's third law applied a second "
     "time: a halo slot already holds the force on the owner's atom)", S,
     CFG_2D FUSED_DIRECT},
    {MD_BUG_BULK_SYNC_MISSING, "bulk-sync-missing",
     "direct path with bulk copies: no __syncthreads between the block's gather into shared "
     "memory and thread 0's tma_st: the copy reads entries other threads have not written",
     S, CFG_2D FUSED_DIRECT BULK},
    {MD_BUG_F_DEPMGMT_WAIT_MISSING, "f-depmgmt-wait-missing",
     "FusedCommUnpackF (DEP_MGMT): a forwarded slot's forces are sent without waiting for "
     "the later pulses' unpack (done_f)", S, CFG_2D FUSED_DIRECT},
    {MD_BUG_F_UNPACK_SYNC_MISSING, "f-unpack-sync-missing",
     "force unpack (pulse and fused kernels): no __syncthreads after thread 0's signal wait: "
     "the other threads read the returned forces without its acquire", S,
     CFG_2D PULSE_SIGNAL},
    {MD_BUG_X_DEP_OFFSET_OFF_BY_ONE, "x-dep-offset-off-by-one",
     "pulse table: depOffset (n_indep) one too large: the first forwarded atom is packed "
     "before the wait for its pulse", "md/src/par_steps.h", CFG_2D FUSED_DIRECT},
    {MD_BUG_COORD_SHIFT_SIGN, "coord-shift-sign",
     "pulse table: the periodic coordShift has the wrong sign", "md/src/par_steps.h",
     "--cells 4 --pes 2 --dd 2x1x1" FUSED_DIRECT},
    {MD_BUG_X_SEQ_NOT_INCREMENTED, "x-seq-not-incremented",
     "driver: the coordinate signal value is reused across steps (not incremented): every "
     "wait after the first passes at once", "md/src/par_steps.h", CFG_2D FUSED_DIRECT},
    {MD_BUG_F_SENT_BEFORE_NONLOCAL, "f-sent-before-nonlocal",
     "driver: the force halo runs on the local stream, so the forces go back before the "
     "non-local force kernel finished", "md/src/par_steps.h", CFG_2D PULSE_DIRECT},
    {MD_BUG_UPDATE_NO_WAIT_NONLOCAL, "update-no-wait-nonlocal",
     "driver: the closing kick does not wait for the non-local stream (force halo)",
     "md/src/par_steps.h", CFG_2D FUSED_SIGNAL},
    {MD_BUG_NONLOCAL_NO_WAIT_UPDATE, "nonlocal-no-wait-update",
     "driver: the non-local stream does not wait for the drift: the coordinate halo packs "
     "positions while they are updated", "md/src/par_steps.h", CFG_3D FUSED_DIRECT},
    {MD_BUG_D26_ACK_WAIT_MISSING, "d26-ack-wait-missing",
     "direct26 ghost update: no wait for the neighbour's acknowledgement before overwriting "
     "its ghost slots: its force kernels of the last step may still be reading them", D26,
     D26_1D D26_DIRECT},
    {MD_BUG_D26_ACK_RELAXED, "d26-ack-relaxed",
     "direct26, direct path: the acknowledgement is a relaxed store where a system-scope "
     "release was needed: the neighbour's next stores into our ghost slots are not ordered "
     "after our reads of them", D26, D26_1D D26_DIRECT},
    {MD_BUG_D26_ACK_BEFORE_READS, "d26-ack-before-reads",
     "direct26 force step: the acknowledgement is launched before the `other` half's force "
     "kernel, the last reader of the ghosts", "md/src/par_direct26.c", D26_1D D26_DIRECT},
    {MD_BUG_D26_GHOST_WAIT_RELAXED, "d26-ghost-wait-relaxed",
     "direct26 ghost update: the wait for a neighbour's ghosts polls with a relaxed load, "
     "not acquire", D26, D26_1D D26_DIRECT},
    {MD_BUG_D26_GHOST_SEQ_BEHIND, "d26-ghost-seq-behind",
     "direct26 ghost update: waits for the previous exchange's signal value (seq - 1): "
     "passes at once on the old ghosts, or never once the new ones have come", D26,
     D26_1D D26_SIGNAL},
    {MD_BUG_D26_STALE_SEND_LIST, "d26-stale-send-list",
     "direct26 search: the rebuilt send lists are copied to the device only when their "
     "buffer grows: the kernels pack the atoms at an earlier search's indices",
     "md/src/par_direct26.c", D26_1D D26_DIRECT " --nstlist 2"},
};
#undef S
#undef D26

_Static_assert(sizeof catalogue / sizeof *catalogue ==
                   MD_BUG_END - MD_BUG_X_DEP_WAIT_MISSING,
               "one catalogue entry per md_bug_id");

/* The runs that exercise the runtime's plants (pgas/src/ordering.c): the halo protocol is
 * the only one in the tree that depends on the weakened operation. */
static const struct {
    int id;
    const char *config;
} runtime_configs[] = {
    {SHMEMU_BUG_RT_SIGNAL_NO_RELEASE, CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_RT_WAIT_NO_ACQUIRE, CFG_3D FUSED_DIRECT},
    {SHMEMU_BUG_RT_PUT_SIGNAL_ORDER, CFG_2D FUSED_SIGNAL},
    {SHMEMU_BUG_RT_QUIET_NOOP, NBI CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_RT_FENCE_NOOP, NBI CFG_2D FUSED_SIGNAL},
    {SHMEMU_BUG_RT_BARRIER_NO_HB, CFG_2D FUSED_DIRECT},
};

const shmemu_bug_info *md_bugs_catalogue(size_t *n)
{
    *n = sizeof catalogue / sizeof *catalogue;
    return catalogue;
}

void md_bugs_print(FILE *out) { shmemu_bug_print(out); }

__attribute__((constructor(SHMEMU_BUG_REGISTER_PRIORITY))) static void md_bugs_register(void)
{
    if (shmemu_bug_register(catalogue, sizeof catalogue / sizeof *catalogue) != 0)
        abort(); /* a duplicate name or id: the message is out; nothing can run checked */
    for (size_t i = 0; i < sizeof runtime_configs / sizeof *runtime_configs; i++)
        if (shmemu_bug_set_config(runtime_configs[i].id, runtime_configs[i].config) != 0)
            abort();
}
