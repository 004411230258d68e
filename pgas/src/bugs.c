/*
 * bugs.c: the catalogue of planted protocol bugs (shmemu/bugs.h) and its switch.
 *
 * The table below is the catalogue of record: name, the mistake, the file of the plant and
 * a configuration of bin/shmemu-md that exercises it. The plant sites test
 * shmemu_bug_active_, which a constructor sets from SHMEMU_BUG before main() runs, so that
 * every thread reads a word written before it was created (no race, no lock, no cost
 * beyond a load and a compare).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu/bugs.h"

int shmemu_bug_active_ = SHMEMU_BUG_NONE;

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

#define K "md/src/kernels/"
static const shmemu_bug_info catalogue[] = {
    {SHMEMU_BUG_X_DEP_WAIT_MISSING, "x-dep-wait-missing",
     "FusedPackCommX: no acquire-wait on the earlier pulses whose atoms the pulse forwards "
     "(dep_mask)", K "halo_fused_x.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_X_DEP_WAIT_RELAXED, "x-dep-wait-relaxed",
     "FusedPackCommX: the wait on an earlier pulse polls with a relaxed load, not acquire",
     K "halo_fused_x.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_X_DEP_WAIT_LAST_ONLY, "x-dep-wait-last-only",
     "FusedPackCommX: waits only for the latest earlier pulse in dep_mask, not for all",
     K "halo_fused_x.c", CFG_3D FUSED_DIRECT},
    {SHMEMU_BUG_X_SYNC_AFTER_DEP_WAIT_MISSING, "x-sync-after-dep-wait-missing",
     "FusedPackCommX: no __syncthreads after thread 0's dependency wait: the other threads "
     "pack forwarded atoms without its acquire", K "halo_fused_x.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_X_ELECT_BARRIER_MISSING, "x-elect-barrier-missing",
     "FusedPackCommX: no block barrier before the last-block election: thread 0 signals "
     "before its block's other threads packed", K "halo_fused_x.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_X_RECV_WAIT_MISSING, "x-recv-wait-missing",
     "FusedPackCommX: block 0 does not wait for the pulse's incoming coordinates: the "
     "non-local force kernel reads halo slots still being written", K "halo_fused_x.c",
     CFG_1D FUSED_DIRECT},
    {SHMEMU_BUG_X_NOTIFY_RELAXED, "x-notify-relaxed",
     "direct path: the coordinate signal is a relaxed store where a system-scope release "
     "was needed", K "halo_dev.h", CFG_1D FUSED_DIRECT},
    {SHMEMU_BUG_F_NOTIFY_RELAXED, "f-notify-relaxed",
     "direct path: the force signal is a relaxed store where a system-scope release was "
     "needed", K "halo_dev.h", CFG_2D6 FUSED_DIRECT},
    {SHMEMU_BUG_X_SIGNAL_BEFORE_DATA, "x-signal-before-data",
     "put path: the coordinate signal is sent (nvshmemx_signal_op) before the data is put",
     K "halo_dev.h", CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_X_FENCE_MISSING, "x-fence-missing",
     "put path: no nvshmem_fence between the two plain puts and the put-with-signal to the "
     "same PE", K "halo_dev.h", NBI CFG_2D FUSED_SIGNAL},
    {SHMEMU_BUG_X_QUIET_MISSING, "x-quiet-missing",
     "put path: no nvshmem_quiet before the staging buffer is reused (next step's pack)",
     K "halo_dev.h", NBI CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_X_PUT_WRONG_PE, "x-put-wrong-pe",
     "put path: the coordinates and their signal go to recv_rank instead of send_rank",
     K "halo_dev.h", CFG_2D6 FUSED_SIGNAL},
    {SHMEMU_BUG_ELECT_RELAXED, "elect-relaxed",
     "last-block election: the counter is incremented relaxed, not acq_rel: the last block "
     "does not acquire the other blocks' writes", K "halo_dev.h", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_F_UNPACK_PLAIN_ADD, "f-unpack-plain-add",
     "force unpack: returned forces are added with a plain load and store instead of an "
     "atomic add (pulses share atoms)", K "halo_dev.h", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_F_UNPACK_NEGATED, "f-unpack-negated",
     "force unpack: the returned forces are subtracted (Newton's third law applied a second "
     "time: a halo slot already holds the force on the owner's atom)", K "halo_dev.h",
     CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_BULK_SYNC_MISSING, "bulk-sync-missing",
     "direct path with bulk copies: no __syncthreads between the block's gather into shared "
     "memory and thread 0's tma_st: the copy reads entries other threads have not written",
     K "halo_dev.h", CFG_2D FUSED_DIRECT BULK},
    {SHMEMU_BUG_F_DEPMGMT_WAIT_MISSING, "f-depmgmt-wait-missing",
     "FusedCommUnpackF (DEP_MGMT): a forwarded slot's forces are sent without waiting for "
     "the later pulses' unpack (done_f)", K "halo_fused_f.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_F_UNPACK_SYNC_MISSING, "f-unpack-sync-missing",
     "pulse unpack kernel: no __syncthreads after thread 0's signal wait: the other "
     "threads read the returned forces without its acquire", K "halo_pulse.c",
     CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_X_DEP_OFFSET_OFF_BY_ONE, "x-dep-offset-off-by-one",
     "pulse table: depOffset (n_indep) one too large: the first forwarded atom is packed "
     "before the wait for its pulse", "md/src/par_setup.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_COORD_SHIFT_SIGN, "coord-shift-sign",
     "pulse table: the periodic coordShift has the wrong sign", "md/src/par_setup.c",
     "--cells 4 --pes 2 --dd 2x1x1" FUSED_DIRECT},
    {SHMEMU_BUG_X_SEQ_NOT_INCREMENTED, "x-seq-not-incremented",
     "driver: the coordinate signal value is reused across steps (not incremented): every "
     "wait after the first passes at once", "md/src/par.c", CFG_2D FUSED_DIRECT},
    {SHMEMU_BUG_F_SENT_BEFORE_NONLOCAL, "f-sent-before-nonlocal",
     "driver: the force halo runs on the local stream, so the forces go back before the "
     "non-local force kernel finished", "md/src/par.c", CFG_2D PULSE_DIRECT},
    {SHMEMU_BUG_UPDATE_NO_WAIT_NONLOCAL, "update-no-wait-nonlocal",
     "driver: the closing kick does not wait for the non-local stream (force halo)",
     "md/src/par.c", CFG_2D FUSED_SIGNAL},
    {SHMEMU_BUG_NONLOCAL_NO_WAIT_UPDATE, "nonlocal-no-wait-update",
     "driver: the non-local stream does not wait for the drift: the coordinate halo packs "
     "positions while they are updated", "md/src/par.c", CFG_3D FUSED_DIRECT},
    {SHMEMU_BUG_RT_SIGNAL_NO_RELEASE, "rt-signal-no-release",
     "runtime: a signal update (put-with-signal, signal op) is a relaxed RMW without the "
     "release", "pgas/src/signal.c", CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_RT_WAIT_NO_ACQUIRE, "rt-wait-no-acquire",
     "runtime: nvshmem_signal_wait_until returns without the acquire", "pgas/src/signal.c",
     CFG_3D FUSED_DIRECT},
    {SHMEMU_BUG_RT_PUT_SIGNAL_ORDER, "rt-put-signal-order",
     "runtime: put-with-signal sets the signal before it copies the data",
     "pgas/src/delivery.c", CFG_2D FUSED_SIGNAL},
    {SHMEMU_BUG_RT_QUIET_NOOP, "rt-quiet-noop",
     "runtime: nvshmem_quiet returns without completing the queued non-blocking puts",
     "pgas/src/delivery.c", NBI CFG_2D PULSE_SIGNAL},
    {SHMEMU_BUG_RT_FENCE_NOOP, "rt-fence-noop",
     "runtime: nvshmem_fence does not order the puts before it before those after it",
     "pgas/src/delivery.c", NBI CFG_2D FUSED_SIGNAL},
    {SHMEMU_BUG_RT_BARRIER_NO_HB, "rt-barrier-no-hb",
     "runtime: the barrier's arrivals and departure carry no happens-before (no "
     "annotation; the counter's atomics only)", "pgas/src/barrier.c", CFG_2D FUSED_DIRECT},
};
#undef K

_Static_assert(sizeof catalogue / sizeof *catalogue == SHMEMU_BUG_COUNT - 1,
               "one catalogue entry per shmemu_bug_id");

const shmemu_bug_info *shmemu_bug_catalogue(size_t *count)
{
    *count = sizeof catalogue / sizeof *catalogue;
    return catalogue;
}

const shmemu_bug_info *shmemu_bug_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof catalogue / sizeof *catalogue; i++)
        if (strcmp(catalogue[i].name, name) == 0)
            return &catalogue[i];
    return NULL;
}

int shmemu_bug_parse(const char *value, shmemu_bug_id *out, char *msg, size_t msg_size)
{
    *out = SHMEMU_BUG_NONE;
    if (value == NULL || value[0] == '\0')
        return 0;
    const shmemu_bug_info *b = shmemu_bug_by_name(value);
    if (b != NULL) {
        *out = b->id;
        return 0;
    }
    size_t used = 0;
    int n = snprintf(msg, msg_size, "SHMEMU_BUG=%s is not a planted bug; unset it, or use "
                     "one of (shmemu-md --list-bugs describes them):", value);
    used = n > 0 ? (size_t)n : 0;
    for (size_t i = 0; i < sizeof catalogue / sizeof *catalogue && used < msg_size; i++) {
        n = snprintf(msg + used, msg_size - used, " %s", catalogue[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
    return -1;
}

shmemu_bug_id shmemu_bug_active(void) { return (shmemu_bug_id)shmemu_bug_active_; }

void shmemu_bug_select(shmemu_bug_id id) { shmemu_bug_active_ = (int)id; }

void shmemu_bug_print(FILE *out)
{
    for (size_t i = 0; i < sizeof catalogue / sizeof *catalogue; i++) {
        const shmemu_bug_info *b = &catalogue[i];
        fprintf(out, "%-30s %-30s %s\n%-30s config: %s\n", b->name, b->file, b->what, "",
                b->config);
    }
}

/* Before main(): SHMEMU_BUG, once. A bad name stops the program here, before it does
 * anything that the user would mistake for a checked run. */
__attribute__((constructor)) static void bugs_from_env(void)
{
    char msg[2048];
    shmemu_bug_id id;
    if (shmemu_bug_parse(getenv("SHMEMU_BUG"), &id, msg, sizeof msg) != 0) {
        fprintf(stderr, "shmemu: %s\n", msg);
        exit(2);
    }
    shmemu_bug_active_ = (int)id;
}
