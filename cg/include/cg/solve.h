/*
 * cg/solve.h: the serial conjugate-gradient solver (paper 002, Listing 1, with the
 * reproducible reductions of cg/xsum.h), the manufactured problem it solves, and the
 * checksum of a solution.
 *
 * The problem: x* has entries drawn from a counter-based generator (entry i is a hash of
 * (seed, i), so it does not depend on how the rows are split over PEs), scaled to unit
 * 2-norm; b = A x*; x0 = 0. Convergence when ||r_k|| <= tol ||r_0|| (Listing 1, line 14;
 * r_0 = b since x0 = 0), with ||.|| from the exact reduction. Every dot product and norm is
 * exact and rounded once, and every vector update is one IEEE operation per element in a
 * fixed order, so the whole iteration history is a function of (A, seed, tol) alone.
 */
#ifndef CG_SOLVE_H
#define CG_SOLVE_H

#include <stdint.h>

#include "cg/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A 64-bit hash of (seed, i): SplitMix64's finalizer (Steele, Lea, Flood 2014) applied
 * twice; portable (no rand()), the same on every platform. */
uint64_t cg_hash(uint64_t seed, uint64_t i);
/* x*[0..n): entry i uniform in [-0.5, 0.5) from cg_hash(seed, i), then divided by the
 * vector's 2-norm (cg_norm2), so ||x*|| = 1 up to one rounding per entry. */
void cg_manufactured(double *xstar, int64_t n, uint64_t seed);
/* FNV-1a (64-bit) over the little-endian bytes of x[0..n)'s bit patterns, in index order:
 * equal checksums for equal bits (-0.0 and 0.0 differ). */
uint64_t cg_checksum(const double *x, int64_t n);

typedef struct cg_result {
    int64_t iterations;    /* k when it stopped */
    int converged;         /* 1 when ||r_k|| <= tol ||r_0|| */
    double rho0;           /* r_0 . r_0 */
    double residual;       /* ||r_k|| / ||r_0||, the recurrence's residual */
    int breakdown;         /* 1 when s.As <= 0 (A not positive definite) or not finite */
} cg_result;

/* Serial CG on A x = b from x = 0 (x[0..n) is overwritten). Stops when ||r_k|| <= tol
 * ||r_0||, after max_iter iterations, or on a breakdown. history, when not NULL, receives
 * ||r_k|| / ||r_0|| for k = 0..iterations (max_iter + 1 slots). b = 0 gives x = 0 at k = 0. */
void cg_solve_serial(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                     double *history, cg_result *res);

/* Pipelined CG (Ghysels and Vanroose 2014, unpreconditioned; docs/cg.md, "The pipelined
 * solver pcg-mono") on one core: the recurrence pcg-mono (cg/par.h, CG_SOLVER_PCG_MONO) runs
 * on the PEs, every dot product exact (cg_dot) and every vector update one product and one
 * sum per element in the same written form, so pcg-mono matches it bit for bit. From x = 0:
 * r = b (= b - A x, bit for bit), w = A r, z = s = p = 0; iteration i: gamma = r.r, delta = w.r, q = A w; stop
 * when sqrt(gamma) <= tol sqrt(gamma_0) (converged, i iterations) or i = max_iter; beta =
 * gamma / gamma_prev (0 at i = 0), den = delta - beta * gamma / alpha_prev (delta at
 * i = 0); den <= 0 or not finite is a breakdown (A not positive definite: res->breakdown,
 * i iterations); alpha = gamma / den; z = beta z + q, s = beta s + w, p = beta p + r,
 * x = alpha p + x, r = -alpha s + r, w = -alpha z + w. res->rho0 = gamma_0, history and
 * res->residual as cg_solve_serial's (sqrt(gamma_i) / sqrt(gamma_0)). */
void cg_solve_pcg_serial(const cg_csr *a, const double *b, double *x, double tol,
                         int64_t max_iter, double *history, cg_result *res);

#ifdef __cplusplus
}
#endif

#endif
