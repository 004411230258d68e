/*
 * kernels/halo.h: what the halo, force and update kernels of one PE read (paper 000's
 * Algorithm 1, docs/papers.md): the device pulse table, the communication context, the argument
 * structs. Included by the kernel files (C/C++ common subset, nvcc -x cu) and by the host driver.
 *
 * Memory of a PE (all of it symmetric where a peer touches it):
 *   x[3]      coordinates, [cap] int64 each: home [0, n_home) | pulse 0 | pulse 1 | ...
 *   f[3]      non-local forces, same layout: home atoms and the halo slots whose forces go
 *             back to their owners (the local kernel writes its own array, see par.c)
 *   xstage    put-signal path: per pulse, the packed coordinates [3][send_size]
 *   fbuf      put-signal path: per pulse, the forces returned for index_map [3][send_size]
 *   sig_x[p]  coordinates of pulse p have arrived here (written by recv_rank)
 *   sig_f[p]  forces for pulse p's index_map are ready/arrived here (written by send_rank)
 *   cnt_x/f   last-block election counters, done_f[p]: pulse p's forces are unpacked here
 *
 * Signal values are never reset. Every PE runs the same sequence of coordinate exchanges
 * and of force exchanges, and numbers them (seq, from 1): the fused kernels and the direct
 * path SET the signal to seq, the pulse-by-pulse put-signal path ADDs 1 per exchange (the
 * word then counts exchanges, so it equals seq too); every wait is "== seq". A value can
 * only be overwritten by seq + 1 after the waiter consumed seq: the next exchange's signal
 * is sent only after a chain of waits through the peer's later pulses (par.c, "Ordering").
 * The election counters grow by the pulse's block count per exchange: the block that makes
 * the count a multiple of it is the last one.
 */
#ifndef MD_KERNELS_HALO_H
#define MD_KERNELS_HALO_H

#include <stdint.h>

#include "../force.h"
#include "../pairlist.h"
#include "../md_bugs.h" /* the planted bugs (md_bug(): false in real runs) */
#include "shmemu/kernel.h"
#include "tstamp.h"

#define MD_KMAX_PULSES 6

/* The direct path's bulk copies (--bulk-copy) stage through this many int64 elements of
 * shared memory per block (8 KiB): the most one copy moves. */
#define MD_BULK_SMEM 1024

/* How a pulse's data and signals travel (halo_dev.h: one file per transport). One value per
 * pulse, the same on every PE (par_setup.c chooses it at each search). */
typedef enum md_xport {
    MD_XPORT_DIRECT = 0, /* stores into the peer through nvshmem_ptr (xport_direct.h) */
    MD_XPORT_BULK = 1,   /* the same with bulk copies, --bulk-copy (xport_bulk.h) */
    MD_XPORT_SIGNAL = 2  /* staging buffers and put-with-signal (xport_signal.h) */
} md_xport;

/* One pulse of this PE on the device (PulseData + the resolved remote pointers). */
typedef struct md_dpulse {
    int send_rank, recv_rank;
    int32_t send_size;      /* atoms we send (index_map) and whose forces we get back */
    int32_t recv_size;      /* atoms we receive into [atom_offset, +recv_size) */
    int32_t atom_offset;
    int32_t remote_offset;  /* where our sent atoms land on send_rank (its atom_offset) */
    int32_t n_indep;        /* index_map[0, n_indep): home atoms, packable at once */
    uint32_t dep_mask;      /* bit q: index_map holds atoms received in pulse q */
    int64_t shift[3];
    const int32_t *index_map;
    int32_t xport;          /* md_xport: the transport of this pulse */
    /* direct and bulk: peer memory through nvshmem_ptr (NULL on the signal transport) */
    int64_t *peer_x[3];     /* send_rank's x[d] + remote_offset */
    uint64_t *peer_sig_x;   /* send_rank's sig_x[p] */
    const int64_t *peer_f[3]; /* send_rank's f[d] + remote_offset: our atoms' forces */
    uint64_t *owner_sig_f;  /* recv_rank's sig_f[p]: "the forces you read from me are ready" */
    int32_t bulk_chunk;     /* bulk: elements per bulk copy (tma_st / tma_ld), even,
                             * <= MD_BULK_SMEM; 0 on the other transports */
    /* signal transport (symmetric; the same addresses name the peer's copies) */
    int64_t *xstage;        /* [3 * send_size] packed coordinates */
    int64_t *fbuf;          /* [3 * send_size] forces for index_map, put by send_rank */
} md_dpulse;

/* Per-PE signal and counter words (one symmetric block). */
typedef struct md_dsig {
    uint64_t sig_x[MD_KMAX_PULSES];
    uint64_t sig_f[MD_KMAX_PULSES];
    uint64_t cnt_x[MD_KMAX_PULSES];
    uint64_t cnt_f[MD_KMAX_PULSES];
    uint64_t done_f[MD_KMAX_PULSES];
} md_dsig;

/* Coordinate halo: fused (grid nb x npulse) or one pulse (grid nb x 1, pulse = p). */
typedef struct md_halo_args {
    const md_dpulse *pulses;
    int npulse;
    int pulse;           /* pulse kernels: the pulse; fused: unused */
    int64_t *x[3];       /* this PE's coordinates (symmetric) */
    int64_t *f[3];       /* this PE's non-local forces (symmetric) */
    md_dsig *sig;        /* this PE's signal words (symmetric) */
    uint64_t seq;        /* this exchange's number (>= 1) */
    md_tslot *ts;        /* --timing: the role's timestamp slot (tstamp.h); NULL: off */
} md_halo_args;

KERNEL_DECL(md_fused_pack_comm_x, md_halo_args);
KERNEL_DECL(md_fused_comm_unpack_f, md_halo_args);
KERNEL_DECL(md_pulse_pack_x, md_halo_args);
KERNEL_DECL(md_pulse_comm_x, md_halo_args);
KERNEL_DECL(md_pulse_recv_x, md_halo_args);
KERNEL_DECL(md_pulse_comm_f, md_halo_args);
KERNEL_DECL(md_pulse_unpack_f, md_halo_args);
KERNEL_DECL(md_host_unpack_f, md_halo_args);

/* Non-bonded forces over one pair list, in one of two forms with the same bits (integer
 * sums). md_nonbonded (the pair loop, nonbonded.c): cooperative, G blocks of one thread:
 * block b computes its share of the i-entries into scratch[b] (f itself when G == 1), grid
 * sync, then block b writes f[i] = sum over blocks for its share of atoms [0, n_out).
 * md_nonbonded_prep then md_nonbonded_entries (nonbonded_threads.c): a thread per i-entry,
 * integer atomics into f; acc[0] takes the counters, acc[1, nacc) are cleared. */
typedef struct md_force_args {
    const md_pairlist *list;
    const md_lj *lj;
    const int64_t *x[3];
    double *xd[3];        /* [n_conv] scratch: positions in σ (exact) */
    int32_t n_conv;       /* atoms the list touches: converted */
    int32_t n_out;        /* atoms whose force is written */
    int64_t *f[3];        /* output, written (not accumulated) */
    int64_t *scratch;     /* [G][3][n_conv] (G > 1) */
    md_force_acc *acc;    /* [G] per block, overwritten */
    int nacc;             /* entries of acc (the threads form clears them all) */
    int energy;
    md_tslot *ts;         /* --timing: the role's timestamp slot (tstamp.h); NULL: off */
} md_force_args;

KERNEL_DECL(md_nonbonded, md_force_args);
KERNEL_DECL(md_nonbonded_prep, md_force_args);
KERNEL_DECL(md_nonbonded_entries, md_force_args);

/* Velocity Verlet on home atoms; each block a contiguous chunk of atoms, its threads
 * striding over the chunk (G blocks of one thread on the CPU, many threads on a GPU). */
typedef struct md_update_args {
    int32_t n_home;
    int64_t *x[3];
    int64_t *p[3];
    const int64_t *floc[3];
    const int64_t *fnl[3];
    const int32_t *type;
    const double *drift;  /* [ntypes] dt²/(2m) */
    int drift_too;        /* 1: kick then drift (step start); 0: kick only (step end) */
    md_tslot *ts;         /* --timing: the role's timestamp slot (tstamp.h); NULL: off */
} md_update_args;

KERNEL_DECL(md_update, md_update_args);

#endif
