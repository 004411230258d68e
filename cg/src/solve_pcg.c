/*
 * solve_pcg.c: the serial pipelined CG of cg/solve.h (cg_solve_pcg_serial), the reference
 * pcg-mono (kernels/pcg.c) must match bit for bit: the same recurrence, with every dot
 * product exact (cg_dot: correctly rounded, order-free) and every vector update written as
 * in the kernel, one product and one sum per element (no FMA: -ffp-contract=off). q = A w is
 * computed before the stop test, as the kernel overlaps it with the reduction; at the last
 * iteration it is not used.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg/solve.h"
#include "cg/xsum.h"
#include "util.h"

void cg_solve_pcg_serial(const cg_csr *a, const double *b, double *x, double tol,
                         int64_t max_iter, double *history, cg_result *res)
{
    size_t n = (size_t)a->n;
    double *r = cg_xmalloc(n * sizeof *r), *w = cg_xmalloc(n * sizeof *w);
    double *q = cg_xmalloc(n * sizeof *q);
    double *z = cg_xcalloc(n, sizeof *z), *s = cg_xcalloc(n, sizeof *s);
    double *p = cg_xcalloc(n, sizeof *p);
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < n; i++)
        x[i] = 0.0;
    /* r0 <- b - A x0 = b: x0 = 0, and every row of A x0 sums to +0 (products +-0 added to
     * 0.0 from +0.0), so b[i] - (+0) = b[i] bit for bit; pcg-mono takes r0 = b, no SpMV */
    for (size_t i = 0; i < n; i++)
        r[i] = b[i];
    cg_spmv(a, r, w);                          /* w0 <- A r0 */
    double gamma0 = 0.0, stop = 0.0, gamma_prev = 0.0, alpha_prev = 0.0;
    int64_t it = 0;
    for (;; it++) {
        double gamma = cg_dot(r, r, n);        /* one reduction: gamma and delta */
        double delta = cg_dot(w, r, n);
        cg_spmv(a, w, q);                      /* q <- A w (overlapped in pcg-mono) */
        if (it == 0) {
            gamma0 = gamma;
            stop = tol * sqrt(gamma0);
            res->rho0 = gamma0;
            res->residual = gamma0 > 0 ? 1.0 : 0.0;
        } else {
            res->residual = sqrt(gamma) / sqrt(gamma0);
        }
        if (history)
            history[it] = res->residual;
        if (sqrt(gamma) <= stop) {
            res->converged = 1;
            break;
        }
        if (it == max_iter)
            break;
        double beta = it > 0 ? gamma / gamma_prev : 0.0;
        double den = it > 0 ? delta - beta * gamma / alpha_prev : delta; /* p.Ap */
        if (!(den > 0) || !isfinite(den)) {
            res->breakdown = 1;
            break;
        }
        double alpha = gamma / den;
        for (size_t i = 0; i < n; i++) {
            z[i] = beta * z[i] + q[i];
            s[i] = beta * s[i] + w[i];
            p[i] = beta * p[i] + r[i];
            x[i] = alpha * p[i] + x[i];
            r[i] = -alpha * s[i] + r[i];
            w[i] = -alpha * z[i] + w[i];
        }
        gamma_prev = gamma;
        alpha_prev = alpha;
    }
    res->iterations = it;
    free(p);
    free(s);
    free(z);
    free(q);
    free(w);
    free(r);
}
