/*
 * kernels/halo_direct26.h: what the direct (26-neighbour) ghost exchange's kernels read
 * (--halo direct26; HOOMD-blue's exchange, Glaser et al. 2015 §4.3, docs/papers.md). Host
 * side: par_direct26.c; ghost lists: dd_direct26.c; kernels: halo_direct26.c.
 *
 * A PE exchanges ghosts with each neighbour domain at a direction code c = (dx+1) + 3(dy+1)
 * + 9(dz+1), dx, dy, dz in {-1, 0, 1}, not all 0, and 0 along dimensions with one domain:
 * up to 26 (faces, edges, corners). With two domains along a dimension the neighbours at
 * -1 and +1 are the same PE, seen through different periodic images: every direction is its
 * own channel (its own slots and signal words), never merged by rank. The neighbour at c
 * sees us at 26 - c (the opposite direction): that is the word of its signal block that we
 * write, and the one it writes of ours.
 *
 * Per neighbour, the send half is an md_dpulse (halo.h), so the transports' pack functions
 * (halo_dev.h md_pack_x: direct stores into the peer's slots through nvshmem_ptr, or our
 * staging buffer for put-with-signal) apply as they are: send_rank = the neighbour,
 * index_map = our home atoms it gets, shift = the periodic shift of that direction,
 * remote_offset = where they land there; recv_size / atom_offset = the ghosts we get from
 * it. Signal words (symmetric, one block per PE, never reset; values are sequence numbers,
 * every wait is "== seq" as in halo.h):
 *   x[c]    the ghosts from the neighbour at c have arrived (the coordinate exchange's seq)
 *   ack[c]  the neighbour at c has finished reading the ghosts we sent it (the step's
 *           seq_f): we may overwrite its slots (and its x word) again
 *   cnt[c]  last-block election counter of our send to c (local)
 */
#ifndef MD_KERNELS_HALO_DIRECT26_H
#define MD_KERNELS_HALO_DIRECT26_H

#include "halo.h"

#define MD_D26_CODES 27 /* direction codes 0..26; 13 is the PE itself (unused) */
#define MD_D26_MAX 26

typedef struct md_d26_sig {
    uint64_t x[MD_D26_CODES];
    uint64_t ack[MD_D26_CODES];
    uint64_t cnt[MD_D26_CODES];
} md_d26_sig;

/* One neighbour direction of this PE on the device. */
typedef struct md_d26_nbr {
    md_dpulse m;         /* the send half as a pulse (see above); xport DIRECT or SIGNAL */
    int32_t code;        /* our direction code toward the neighbour: our words x, ack, cnt */
    int32_t slot;        /* 26 - code: the neighbour's words for us */
    uint64_t *peer_ack;  /* direct: the neighbour's ack[slot] (nvshmem_ptr); else NULL */
} md_d26_nbr;

/* The ghost update (grid nb x nnbr) and the acknowledgement (grid 1 x nnbr). */
typedef struct md_d26_args {
    const md_d26_nbr *nbr;
    int nnbr;
    int64_t *x[3];       /* this PE's coordinates (symmetric): home | ghosts by direction */
    md_d26_sig *sig;     /* this PE's signal block (symmetric) */
    uint64_t seq;        /* the coordinate exchange's number (>= 1) */
    uint64_t ack_seq;    /* the force step whose reads of our sent ghosts must be over */
    md_tslot *ts;        /* --timing: the role's timestamp slot; NULL: off */
} md_d26_args;

/* fnl[d][i] += fown[d][i] for i < n (grid G x 1, blocks split the atoms). */
typedef struct md_d26_add_args {
    int32_t n;
    int64_t *fnl[3];
    const int64_t *fadd[3];
} md_d26_add_args;

KERNEL_DECL(md_d26_pack_comm_x, md_d26_args);
KERNEL_DECL(md_d26_ack, md_d26_args);
KERNEL_DECL(md_d26_add_f, md_d26_add_args);

#endif
