/*
 * solve.c: the serial CG of cg/solve.h, the manufactured solution and the checksum.
 *
 * The loop is paper 002's Listing 1 line for line (r, s, t, rho, gamma, alpha, beta), with
 * every DOT through the exact reduction (cg_dot: correctly rounded, order-free) and each
 * AXPY written as one product and one sum per element (no FMA: -ffp-contract=off), the
 * form the emulated GPU solvers must repeat to match it bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg/solve.h"
#include "cg/xsum.h"
#include "util.h"

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t cg_hash(uint64_t seed, uint64_t i)
{
    return mix64(mix64(seed) ^ i);
}

void cg_manufactured(double *xstar, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) /* 53 random bits: exactly a multiple of 2^-53 */
        xstar[i] = (double)(cg_hash(seed, (uint64_t)i) >> 11) * (1.0 / 9007199254740992.0) -
                   0.5;
    double norm = cg_norm2(xstar, (size_t)n);
    if (norm > 0)
        for (int64_t i = 0; i < n; i++)
            xstar[i] /= norm;
}

uint64_t cg_checksum(const double *x, int64_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a offset basis */
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        for (int b = 0; b < 8; b++) {
            h ^= (bits >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull; /* FNV prime */
        }
    }
    return h;
}

void cg_solve_serial(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                     double *history, cg_result *res)
{
    size_t n = (size_t)a->n;
    double *r = cg_xmalloc(n * sizeof *r);
    double *s = cg_xmalloc(n * sizeof *s);
    double *t = cg_xmalloc(n * sizeof *t);
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < n; i++)
        x[i] = 0.0;
    cg_spmv(a, x, t);                          /* r0 <- b - A x0 */
    for (size_t i = 0; i < n; i++)
        r[i] = b[i] - t[i];
    double rho = cg_dot(r, r, n);              /* rho0 <- r0 . r0 */
    res->rho0 = rho;
    memcpy(s, r, n * sizeof *s);               /* s <- r0 */
    const double stop = tol * sqrt(rho);
    if (history)
        history[0] = rho > 0 ? 1.0 : 0.0;
    res->residual = rho > 0 ? 1.0 : 0.0;
    int64_t k = 0;
    res->converged = sqrt(rho) <= stop;
    while (!res->converged && k < max_iter) {
        k++;
        cg_spmv(a, s, t);                      /* t <- A s */
        double gamma = cg_dot(s, t, n);        /* gamma <- s . t */
        if (!(gamma > 0) || !isfinite(gamma)) {
            res->breakdown = 1;
            k--;
            break;
        }
        double alpha = rho / gamma;            /* alpha <- rho_{k-1} / gamma */
        for (size_t i = 0; i < n; i++)
            x[i] = alpha * s[i] + x[i];        /* x_k <- alpha s + x_{k-1} */
        for (size_t i = 0; i < n; i++)
            r[i] = -alpha * t[i] + r[i];       /* r_k <- -alpha t + r_{k-1} */
        double rho_k = cg_dot(r, r, n);        /* rho_k <- r_k . r_k */
        res->residual = sqrt(rho_k) / sqrt(res->rho0);
        if (history)
            history[k] = res->residual;
        if (sqrt(rho_k) <= stop) {             /* converged */
            res->converged = 1;
            break;
        }
        double beta = rho_k / rho;             /* beta <- rho_k / rho_{k-1} */
        for (size_t i = 0; i < n; i++)
            s[i] = beta * s[i] + r[i];         /* s <- beta s + r_k */
        rho = rho_k;
    }
    res->iterations = k;
    free(r);
    free(s);
    free(t);
}
