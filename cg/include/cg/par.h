/*
 * cg/par.h: the parallel CG solvers on shmemu's emulated GPUs (paper 002; docs/cg.md).
 *
 * cg_solve_par partitions A (cg/partition.h: contiguous rows or METIS; cg/plan.h) over
 * opt->pes PEs, starts them as threads of one job (shmemu_launch) and runs the chosen
 * solver on each PE's emulated GPU:
 *
 *   CG_SOLVER_MONO  paper 002's Listing 3: one cooperative kernel per PE runs the whole
 *                   solve (cg/src/kernels/mono.c): grid syncs, the halo by
 *                   nvshmemx_double_put_signal_nbi_block with a "received" and a
 *                   "ready-to-receive" (credit) signal, and every dot product reduced
 *                   exactly with a device-side nvshmemx_longlong_sum_reduce_block of the
 *                   packed accumulators (cg/xsum.h).
 *   CG_SOLVER_HOST  paper 002's Listing 2 (CPU-initiated): each PE's host thread launches one
 *                   kernel per operation (cg/src/kernels/host.c); the halo is packed by a
 *                   kernel on a second stream and put with its signal by the host (--reduce
 *                   sync) or by stream-ordered calls joined to the SpMV's stream by an event
 *                   (--reduce stream); the same exact reductions, from the host or on the
 *                   stream (cg_reduce).
 *   CG_SOLVER_PCG_MONO pipelined CG (Ghysels and Vanroose 2014) in one cooperative kernel
 *                   per PE (cg/src/kernels/pcg.c): cg-mono's halo code on w = A r, and ONE
 *                   reduction per iteration (gamma = r.r and delta = w.r, both exact, in one
 *                   nvshmemx_longlong_sum_reduce_block) overlapping the halo and q = A w.
 *                   A different recurrence: its contract is with cg_solve_pcg_serial
 *                   (cg/solve.h), not cg_solve_serial.
 *
 * Contract (docs/design.md D3): the iteration count, the residual history and x are bit for
 * bit those of cg_solve_serial on the same (A, b, tol, max_iter), whatever the PE count,
 * block count, threads per block, partition, transport and schedule. x and history are in
 * global row order, as cg_solve_serial's (each PE writes its rows at their global indices).
 */
#ifndef CG_PAR_H
#define CG_PAR_H

#include <stdint.h>

#include "cg/matrix.h"
#include "cg/partition.h"
#include "cg/solve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CG_SOLVER_HALO_LOOP and CG_SOLVER_HALO_SERIAL are the halo-only loop's (cg_halo_loop_par,
 * cg_halo_loop_serial below), not CG solvers: the command line's --solver names them. */
typedef enum cg_solver {
    CG_SOLVER_SERIAL = 0,
    CG_SOLVER_MONO,
    CG_SOLVER_HOST,
    CG_SOLVER_HALO_LOOP,
    CG_SOLVER_HALO_SERIAL,
    CG_SOLVER_PCG_MONO,   /* pipelined CG on the PEs (cg_solve_par) */
    CG_SOLVER_PCG_SERIAL  /* its one-core form (cg_solve_pcg_serial; --solver pcg-serial) */
} cg_solver;

/* cg-host's reductions: the host waits for the partial accumulators and reduces them with a
 * host collective (sync, "MPI-like"), or every reduction is queued on the stream
 * (nvshmemx_longlong_sum_reduce_on_stream) and rounded by a kernel, and the host waits only
 * every CG_HOST_BATCH iterations to read the stop test (stream, "NCCL-like"). */
typedef enum cg_reduce { CG_REDUCE_SYNC = 0, CG_REDUCE_STREAM } cg_reduce;

/* Iterations cg-host --reduce stream queues between two host waits. */
#define CG_HOST_BATCH 8

/* Largest PE count, blocks per PE and threads per block cg_solve_par accepts. */
#define CG_PAR_MAX_PES 64
#define CG_PAR_MAX_BLOCKS 64
#define CG_PAR_MAX_THREADS 1024

/* How the monolithic kernels' halo messages travel (--transport; kernels/halo.h,
 * mono_send): put-with-signal (nvshmemx_double_put_signal_nbi_block, paper 002's Listing 3,
 * the default), direct stores into the receiver's ghosts through nvshmem_ptr and a
 * system-scope release store of its "received" signal (refused when nvshmem_ptr does not
 * reach some receiver), or auto: direct for each message whose receiver nvshmem_ptr reaches,
 * put-with-signal for the others. The bits are the same on every transport. cg-host's host
 * puts are put-with-signal always. */
typedef enum cg_transport {
    CG_TRANSPORT_SIGNAL = 0,
    CG_TRANSPORT_DIRECT,
    CG_TRANSPORT_AUTO
} cg_transport;

/* What a parallel run did (cg_par_opts.info): its halo messages per exchange, all PEs
 * together, by transport, and the ghost values each exchange moves (cg_plan_halo_values). */
typedef struct cg_par_info {
    int64_t direct_msgs, signal_msgs;
    int64_t halo_values;
} cg_par_info;

typedef struct cg_par_opts {
    cg_solver solver;  /* CG_SOLVER_MONO or CG_SOLVER_HOST */
    int pes;           /* PEs (threads of one job), 1 .. min(rows, CG_PAR_MAX_PES) */
    int blocks;        /* blocks of each PE's kernel (0: 2) */
    int threads;       /* threads per block (0: 64) */
    cg_reduce reduce;  /* cg-host's reductions (cg-mono: CG_REDUCE_SYNC) */
    cg_partition partition; /* the rows' split (cg/partition.h; default contiguous) */
    cg_transport transport; /* cg-mono's and the halo-only loop's halo (default signal) */
    cg_par_info *info; /* NULL, or filled after a successful run */
} cg_par_opts;

/* Solves A x = b from x = 0 as cg_solve_serial does (same stopping rule, same history
 * slots), on opt->pes PEs; with CG_SOLVER_PCG_MONO as cg_solve_pcg_serial does. 0, or -1
 * with err set (bad options, or a PE failed). */
int cg_solve_par(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                 const cg_par_opts *opt, double *history, cg_result *res, cg_error *err);

/* The halo-only loop (docs/cg.md): iters times u <- u - omega (A u) from u0, where each PE
 * exchanges its halo exactly as cg-mono does (put-with-signal, "received" and credit
 * signals, the quiet) but no reduction separates the exchanges, so nothing but the credit
 * keeps a sender from overwriting ghosts its receiver still reads. On opt->pes PEs with
 * opt->blocks x opt->threads, opt->partition and opt->transport (opt->solver and
 * opt->reduce are not read); u in global order, bit for bit cg_halo_loop_serial's. 0, or
 * -1 with err set. */
int cg_halo_loop_par(const cg_csr *a, const double *u0, double *u, int64_t iters, double omega,
                     const cg_par_opts *opt, cg_error *err);

/* The same loop on one core, in place: t = A u (cg_spmv), then u[i] = -omega t[i] + u[i]. */
void cg_halo_loop_serial(const cg_csr *a, double *u, int64_t iters, double omega);

/* The loop's step: 2^-e for the smallest e with max_i sum_j |a_ij| < 2^e, so that for a
 * symmetric positive semi-definite A (eigenvalues within [0, that row sum]: Gershgorin) the
 * iteration is a contraction and u stays finite; 1 for a zero matrix. */
double cg_halo_omega(const cg_csr *a);

#ifdef __cplusplus
}
#endif

#endif
