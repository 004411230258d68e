/*
 * cg/par.h: the parallel CG solvers on shmemu's emulated GPUs (paper 002; docs/cg.md).
 *
 * cg_solve_par partitions A (cg/plan.h, contiguous rows) over opt->pes PEs, starts them as
 * threads of one job (shmemu_launch) and runs the chosen solver on each PE's emulated GPU:
 *
 *   CG_SOLVER_MONO  paper 002's Listing 3: one cooperative kernel per PE runs the whole
 *                   solve (cg/src/kernels/mono.c): grid syncs, the halo by
 *                   nvshmemx_double_put_signal_nbi_block with a "received" and a
 *                   "ready-to-receive" (credit) signal, and every dot product reduced
 *                   exactly with a device-side nvshmemx_longlong_sum_reduce_block of the
 *                   packed accumulators (cg/xsum.h).
 *
 * Contract (docs/design.md D3): the iteration count, the residual history and x are bit for
 * bit those of cg_solve_serial on the same (A, b, tol, max_iter), whatever the PE count,
 * block count, threads per block and schedule. x and history are in global row order, as
 * cg_solve_serial's.
 */
#ifndef CG_PAR_H
#define CG_PAR_H

#include <stdint.h>

#include "cg/matrix.h"
#include "cg/solve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cg_solver { CG_SOLVER_SERIAL = 0, CG_SOLVER_MONO } cg_solver;

/* Largest PE count, blocks per PE and threads per block cg_solve_par accepts. */
#define CG_PAR_MAX_PES 64
#define CG_PAR_MAX_BLOCKS 64
#define CG_PAR_MAX_THREADS 1024

typedef struct cg_par_opts {
    cg_solver solver;  /* CG_SOLVER_MONO */
    int pes;           /* PEs (threads of one job), 1 .. min(rows, CG_PAR_MAX_PES) */
    int blocks;        /* blocks of each PE's kernel (0: 2) */
    int threads;       /* threads per block (0: 64) */
} cg_par_opts;

/* Solves A x = b from x = 0 as cg_solve_serial does (same stopping rule, same history
 * slots), on opt->pes PEs. 0, or -1 with err set (bad options, or a PE failed). */
int cg_solve_par(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                 const cg_par_opts *opt, double *history, cg_result *res, cg_error *err);

#ifdef __cplusplus
}
#endif

#endif
