/*
 * cg/matrix.h: the conjugate-gradient app's sparse matrices (paper 002; docs/cg.md): CSR
 * storage, the Poisson generators, the Matrix Market reader and the sparse matrix-vector
 * product.
 *
 * Invariants of every cg_csr this code returns (generated or read): square, n >= 1,
 * rowptr[0] = 0 and non-decreasing, the columns of each row strictly increasing and in
 * [0, n), every value finite, symmetric (a_ij == a_ji, bit for bit up to the sign of zero),
 * every diagonal entry present and positive. cg_csr_check verifies them.
 *
 * The SpMV sums each row's products in the stored (ascending column) order with plain IEEE
 * operations (no FMA: -ffp-contract=off), so any code that evaluates a row in the same order
 * gets the same bits: the halo plan's local matrices keep that order (cg/plan.h).
 */
#ifndef CG_MATRIX_H
#define CG_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An error as a value (STYLE.md): a message naming what, where and what to do. */
typedef struct cg_error {
    char msg[512];
} cg_error;

/* Compressed sparse rows. Row i's entries are col/val[rowptr[i] .. rowptr[i+1]). */
typedef struct cg_csr {
    int32_t n;        /* rows = columns */
    int64_t nnz;      /* stored entries (both triangles) */
    int64_t *rowptr;  /* n + 1 */
    int32_t *col;     /* nnz, 0-based */
    double *val;      /* nnz */
} cg_csr;

/* Largest generated matrix: rows and entries (keeps indices in int32 and memory sane). */
#define CG_MAX_ROWS 200000000
#define CG_MAX_NNZ 1400000000LL

/* Poisson matrices with Dirichlet boundaries (the boundary values eliminated):
 *   1-D on N points: tridiagonal, 2 on the diagonal, -1 beside it (paper 002's poisson1d);
 *   2-D 5-point on an N x N grid: 4 and -1 (row i + N*j);
 *   3-D 7-point on an N x N x N grid: 6 and -1 (row i + N*j + N*N*k).
 * Each is symmetric positive definite. Return 0, or -1 with err set when N < 1 or the
 * matrix would exceed CG_MAX_ROWS / CG_MAX_NNZ. */
int cg_poisson1d(cg_csr *a, long n, cg_error *err);
int cg_poisson2d(cg_csr *a, long n, cg_error *err);
int cg_poisson3d(cg_csr *a, long n, cg_error *err);

void cg_csr_free(cg_csr *a);
/* Verifies the invariants above; 0, or -1 with err naming the first violation. */
int cg_csr_check(const cg_csr *a, cg_error *err);
/* y = A x (y and x must not overlap). */
void cg_spmv(const cg_csr *a, const double *x, double *y);

/* What a Matrix Market file held (besides the matrix). */
typedef struct cg_mtx_info {
    char field[16];     /* "real", "integer" or "pattern" */
    char symmetry[16];  /* "symmetric" or "general" */
    int64_t entries;    /* entries in the file (the size line's third number) */
} cg_mtx_info;

/* Longest line the reader accepts, in bytes, without its end of line. */
#define CG_MTX_MAX_LINE 1024

/* Parses a Matrix Market file held in buf[0..len) (need not be NUL-terminated; name is used
 * in messages only): `%%MatrixMarket matrix coordinate real|integer|pattern
 * symmetric|general`, comment lines (%), blank lines, a size line "rows cols entries", then
 * the entries "i j [value]" with 1-based indices. A symmetric file holds the lower triangle
 * (i >= j); a general file must be symmetric itself. Pattern entries are 1. Refused, with
 * "NAME:LINE: what; what to do": anything else in the banner (array, complex,
 * skew-symmetric, hermitian), a non-square size, more or fewer entries than announced,
 * indices out of range, malformed or non-finite numbers, duplicate entries (refused, not
 * summed: the file is ambiguous), an entry above the diagonal of a symmetric file, a general
 * file that is not symmetric, a missing or non-positive diagonal entry (not positive
 * definite), empty and truncated files, lines longer than CG_MTX_MAX_LINE, NUL bytes.
 * On success *a holds the matrix with the invariants above. Never reads beyond len. */
int cg_mtx_parse(const char *buf, size_t len, const char *name, cg_csr *a, cg_mtx_info *info,
                 cg_error *err);
/* Reads the file at path whole, then cg_mtx_parse. */
int cg_mtx_read(const char *path, cg_csr *a, cg_mtx_info *info, cg_error *err);

#ifdef __cplusplus
}
#endif

#endif
