/*
 * csr.c: CSR storage (cg/matrix.h): the Poisson generators, the invariant check and the
 * sparse matrix-vector product.
 *
 * The generators write each row's entries in ascending column order, so the matrices they
 * make hold the invariants of cg/matrix.h by construction (cg_csr_check verifies them in
 * the tests).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg/matrix.h"
#include "util.h"

static void csr_alloc(cg_csr *a, int32_t n, int64_t nnz_max)
{
    a->n = n;
    a->nnz = 0;
    a->rowptr = cg_xmalloc(((size_t)n + 1) * sizeof *a->rowptr);
    a->col = cg_xmalloc((size_t)nnz_max * sizeof *a->col);
    a->val = cg_xmalloc((size_t)nnz_max * sizeof *a->val);
    a->rowptr[0] = 0;
}

static inline void push(cg_csr *a, int64_t c, double v)
{
    a->col[a->nnz] = (int32_t)c;
    a->val[a->nnz] = v;
    a->nnz++;
}

/* The d-dimensional Poisson matrix on an n^d grid: 2d on the diagonal, -1 for each grid
 * neighbour inside the grid. Rows and columns in lexicographic order (x fastest). */
static int poisson(cg_csr *a, long n, int d, const char *opt, cg_error *err)
{
    memset(a, 0, sizeof *a);
    double rows = pow((double)n, d);
    if (n < 1 || rows > CG_MAX_ROWS || rows * (2 * d + 1) > (double)CG_MAX_NNZ)
        return cg_fail(err, "%s %ld: give a grid size from 1 to %ld (at most %d rows)", opt, n,
                       (long)floor(pow((double)CG_MAX_ROWS, 1.0 / d) + 1e-9), CG_MAX_ROWS);
    int64_t nrows = (int64_t)rows;
    csr_alloc(a, (int32_t)nrows, nrows * (2 * d + 1));
    int64_t stride[3] = {1, n, (int64_t)n * n};
    for (int64_t r = 0; r < nrows; r++) {
        int64_t c[3] = {r % n, (r / n) % n, r / stride[2] % n};
        /* ascending column: the far neighbours below, the near ones, the diagonal, ... */
        for (int k = d - 1; k >= 0; k--)
            if (c[k] > 0)
                push(a, r - stride[k], -1.0);
        push(a, r, 2.0 * d);
        for (int k = 0; k < d; k++)
            if (c[k] < n - 1)
                push(a, r + stride[k], -1.0);
        a->rowptr[r + 1] = a->nnz;
    }
    return 0;
}

int cg_poisson1d(cg_csr *a, long n, cg_error *err)
{
    return poisson(a, n, 1, "--poisson1d", err);
}

int cg_poisson2d(cg_csr *a, long n, cg_error *err)
{
    return poisson(a, n, 2, "--poisson2d", err);
}

int cg_poisson3d(cg_csr *a, long n, cg_error *err)
{
    return poisson(a, n, 3, "--poisson3d", err);
}

void cg_csr_free(cg_csr *a)
{
    free(a->rowptr);
    free(a->col);
    free(a->val);
    memset(a, 0, sizeof *a);
}

/* The position of column c in row r, or -1. */
static int64_t find_entry(const cg_csr *a, int32_t r, int32_t c)
{
    int64_t lo = a->rowptr[r], hi = a->rowptr[r + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->col[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->rowptr[r + 1] && a->col[lo] == c ? lo : -1;
}

int cg_csr_check(const cg_csr *a, cg_error *err)
{
    if (a->n < 1)
        return cg_fail(err, "matrix: %d rows; need at least 1", a->n);
    if (a->rowptr[0] != 0 || a->rowptr[a->n] != a->nnz)
        return cg_fail(err, "matrix: row pointers span [%lld, %lld), not [0, %lld)",
                       (long long)a->rowptr[0], (long long)a->rowptr[a->n], (long long)a->nnz);
    for (int32_t r = 0; r < a->n; r++) {
        if (a->rowptr[r + 1] < a->rowptr[r])
            return cg_fail(err, "matrix: row %d: row pointer decreases", r);
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++) {
            int32_t c = a->col[k];
            if (c < 0 || c >= a->n)
                return cg_fail(err, "matrix: row %d: column %d out of [0, %d)", r, c, a->n);
            if (k > a->rowptr[r] && a->col[k - 1] >= c)
                return cg_fail(err, "matrix: row %d: columns not strictly increasing at %d", r,
                               c);
            if (!isfinite(a->val[k]))
                return cg_fail(err, "matrix: row %d column %d: value not finite", r, c);
            int64_t t = find_entry(a, c, r);
            if (t < 0 || a->val[t] != a->val[k])
                return cg_fail(err, "matrix: not symmetric at row %d column %d", r, c);
        }
        int64_t d = find_entry(a, r, r);
        if (d < 0 || !(a->val[d] > 0))
            return cg_fail(err, "matrix: row %d: diagonal entry missing or not positive", r);
    }
    return 0;
}

void cg_spmv(const cg_csr *a, const double *x, double *y)
{
    for (int32_t r = 0; r < a->n; r++) {
        double s = 0.0;
        for (int64_t k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            s += a->val[k] * x[a->col[k]];
        y[r] = s;
    }
}
