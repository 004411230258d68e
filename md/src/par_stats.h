/*
 * par_stats.h: what a halo variant sends, per PE and per step: messages and bytes of the
 * coordinate exchange and of the force return (staged variants) or the acknowledgements
 * (direct26). `shmemu-md --halo-stats` prints it; bench/halo_variants.sh tabulates it.
 *
 * How it is counted. Not at the send sites: from the tables the kernels read, exactly. At
 * each search the variant's `traffic` op (par_int.h md_halo_ops) walks the table the step's
 * kernels will use (the device pulse table of fused, pulse and host; direct26's neighbour
 * table) and says what one coordinate exchange and one force exchange send from this PE;
 * par.c adds that once per exchange it issues (the coordinate halo of every step without a
 * search, the force halo of every step). The tests check the sum against the runtime's own
 * calls (tests/test_md_stats.c: every put, put-with-signal and signal operation counted by
 * linker wrappers, per PE, for every variant and decomposition).
 *
 * Not counted: the set-up exchange of a search step (host reads of published rows, every PE
 * from every PE: the search's price, not the step's), the thermo and snapshot sums, and the
 * extra coordinate exchange of --check's halo test.
 *
 * Attribution: each operation counts on the PE that issues it: puts and stores on the
 * sender, and, on the direct path of the staged force return, the owner's loads of its
 * atoms' forces from the peer's halo slots (the holder only stores the signal word).
 *
 * Units.
 *   msgs, put-with-signal routes (MD_XPORT_SIGNAL): one NVSHMEM call that reaches a peer:
 *       nvshmem_putmem_nbi, nvshmem_putmem_signal_nbi, nvshmemx_signal_op, and the host
 *       baseline's nvshmem_putmem. A send of n > 0 atoms is two puts and a put-with-signal
 *       (one per component, the signal with the last); an empty one is the signal op alone.
 *   msgs, direct routes (MD_XPORT_DIRECT, MD_XPORT_BULK): one contiguous range of a peer's
 *       memory written (coordinates) or read (returned forces) with plain stores or loads,
 *       one per component, plus one per signal word stored. A send of n > 0 atoms is three
 *       ranges and the signal store. (The kernels split each range among the route's
 *       halo_blocks blocks; with --bulk-copy a range moves as bulk copies: still one range.)
 *   msgs, --halo mpi: one MPI message (a persistent send started; its three components
 *       travel in one derived datatype); an empty send is no message.
 *   payload: bytes of coordinates or forces, 3 x 8 per atom, whatever the transport.
 *   signal words: 64-bit words written in a peer's signal block (8 bytes each).
 *   barriers: the host baseline's nvshmem_barrier_all, one per pulse and exchange.
 */
#ifndef MD_PAR_STATS_H
#define MD_PAR_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One exchange's traffic from one PE, or a sum of them. */
typedef struct md_traffic {
    int64_t msgs;      /* the transport's unit (above) */
    int64_t payload;   /* bytes of coordinates or forces */
    int64_t signals;   /* signal words written in peers (8 bytes each) */
    int64_t barriers;  /* host baseline only */
} md_traffic;

/* A step's two exchanges: x the coordinates, f the force return (staged) or the
 * acknowledgements (direct26). */
typedef struct md_step_traffic {
    md_traffic x, f;
} md_step_traffic;

/* One PE over a run: the sums over the exchanges it issued, and how many. */
typedef struct md_run_traffic {
    md_step_traffic sum;
    int64_t nx;        /* coordinate exchanges (the steps without a search) */
    int64_t nf;        /* force exchanges (every step, the first one included) */
} md_run_traffic;

/* A send of n atoms' coordinates or forces (three components) to a peer over transport
 * xport (md_xport, kernels/halo.h), with a signal word or without (the host baseline). */
void md_traffic_send(md_traffic *t, int xport, int32_t n, bool signal);
/* The direct path's force return on the owner's side: n atoms' forces loaded from the
 * peer's halo slots. */
void md_traffic_load(md_traffic *t, int32_t n);
void md_traffic_add(md_traffic *sum, const md_traffic *t);

/* Prints per-PE lines and the total of run[npes] as '#' lines (shmemu-md --halo-stats):
 * the mean per exchange of each phase and their sum per step. */
void md_run_traffic_print(FILE *f, const md_run_traffic *run, int npes);

#endif
