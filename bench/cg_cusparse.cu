/*
 * bench/cg_cusparse.cu: the vendor-library anchor of `make gpu-bench-cg` (cg/cuda.mk,
 * scripts/gpu-bench-cg.sh): plain CG (paper 002's Listing 1) on one GPU with cuSPARSE's
 * generic SpMV (cusparseSpMV, CSR, double) and cuBLAS's ddot/daxpy/dscal, on the same matrix,
 * right-hand side (b = A x*, cg_manufactured), start (x0 = 0) and stopping rule
 * (||r_k|| <= tol ||r_0||) as shmemu-cg. Written from NVIDIA's documented cuSPARSE and cuBLAS
 * APIs. Not bit-exact (cuBLAS's dot products round in their own order): it gives the
 * iteration count and the time per iteration a library CG takes, for comparison with the
 * solvers' own.
 *
 *   cg_cusparse (--poisson3d N | --matrix FILE.mtx) [--tol T] [--max-iter N] [--seed S]
 *
 * Prints one line: "cusparse-cg rows R nnz Z iterations K residual RES ms_per_iter T"
 * (the time of the iterations alone, cudaEvent, after one untimed warm-up solve).
 * Exit status: 0 converged, 1 not converged, 2 bad input or a CUDA error.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include "cg/matrix.h"
#include "cg/solve.h"

#define CK(call, what)                                                                        \
    do {                                                                                      \
        if (!(call)) {                                                                        \
            std::fprintf(stderr, "cg_cusparse: %s failed (%s:%d)\n", what, __FILE__,          \
                         __LINE__);                                                           \
            std::exit(2);                                                                     \
        }                                                                                     \
    } while (0)
#define CUDA(x) CK((x) == cudaSuccess, #x)
#define SPARSE(x) CK((x) == CUSPARSE_STATUS_SUCCESS, #x)
#define BLAS(x) CK((x) == CUBLAS_STATUS_SUCCESS, #x)

struct solve_out {
    int64_t iterations;
    double residual;
    float ms;
};

/* Listing 1 on the device; x, r, s, t device vectors of n, b the right-hand side. */
static solve_out cg(cusparseHandle_t sp, cublasHandle_t bl, cusparseSpMatDescr_t A,
                    cusparseDnVecDescr_t vs, cusparseDnVecDescr_t vt, void *buf, int n,
                    const double *b, double *x, double *r, double *s, double *t, double tol,
                    int64_t max_iter)
{
    const double one = 1.0, zero = 0.0;
    CUDA(cudaMemset(x, 0, (size_t)n * sizeof *x));
    CUDA(cudaMemcpy(r, b, (size_t)n * sizeof *r, cudaMemcpyDeviceToDevice)); /* r0 = b - A 0 */
    CUDA(cudaMemcpy(s, r, (size_t)n * sizeof *s, cudaMemcpyDeviceToDevice));
    double rho = 0.0;
    BLAS(cublasDdot(bl, n, r, 1, r, 1, &rho));
    const double rho0 = rho, stop = tol * std::sqrt(rho0);
    cudaEvent_t e0, e1;
    CUDA(cudaEventCreate(&e0));
    CUDA(cudaEventCreate(&e1));
    CUDA(cudaEventRecord(e0, 0));
    int64_t k = 0;
    double rho_k = rho;
    while (std::sqrt(rho_k) > stop && k < max_iter) {
        k++;
        SPARSE(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vs, &zero, vt,
                            CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
        double gamma = 0.0;
        BLAS(cublasDdot(bl, n, s, 1, t, 1, &gamma));
        if (!(gamma > 0)) {
            std::fprintf(stderr, "cg_cusparse: breakdown (s.As <= 0) at iteration %lld\n",
                         (long long)k);
            break;
        }
        const double alpha = rho / gamma, malpha = -alpha;
        BLAS(cublasDaxpy(bl, n, &alpha, s, 1, x, 1));
        BLAS(cublasDaxpy(bl, n, &malpha, t, 1, r, 1));
        BLAS(cublasDdot(bl, n, r, 1, r, 1, &rho_k));
        if (std::sqrt(rho_k) <= stop)
            break;
        const double beta = rho_k / rho;
        BLAS(cublasDscal(bl, n, &beta, s, 1));
        BLAS(cublasDaxpy(bl, n, &one, r, 1, s, 1));
        rho = rho_k;
    }
    CUDA(cudaEventRecord(e1, 0));
    CUDA(cudaEventSynchronize(e1));
    solve_out o;
    o.iterations = k;
    o.residual = rho0 > 0 ? std::sqrt(rho_k) / std::sqrt(rho0) : 0.0;
    CUDA(cudaEventElapsedTime(&o.ms, e0, e1));
    CUDA(cudaEventDestroy(e0));
    CUDA(cudaEventDestroy(e1));
    return o;
}

int main(int argc, char **argv)
{
    long grid = 0;
    const char *file = nullptr;
    double tol = 1e-8;
    long long max_iter = 10000;
    unsigned long long seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--poisson3d"))
            grid = std::strtol(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--matrix"))
            file = argv[i + 1];
        else if (!std::strcmp(argv[i], "--tol"))
            tol = std::strtod(argv[i + 1], nullptr);
        else if (!std::strcmp(argv[i], "--max-iter"))
            max_iter = std::strtoll(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--seed"))
            seed = std::strtoull(argv[i + 1], nullptr, 10);
        else
            argc = -1;
    }
    if (argc < 0 || (grid > 0) == (file != nullptr) || !(tol > 0 && tol < 1) || max_iter < 0) {
        std::fprintf(stderr, "usage: cg_cusparse (--poisson3d N | --matrix FILE.mtx) [--tol T] "
                     "[--max-iter N] [--seed S]\n");
        return 2;
    }
    cg_csr a;
    cg_error err;
    cg_mtx_info info;
    if ((file ? cg_mtx_read(file, &a, &info, &err) : cg_poisson3d(&a, grid, &err)) != 0) {
        std::fprintf(stderr, "cg_cusparse: %s\n", err.msg);
        return 2;
    }
    if (a.nnz > INT32_MAX) {
        std::fprintf(stderr, "cg_cusparse: %lld entries: at most 2^31 - 1 here (32-bit "
                     "indices)\n", (long long)a.nnz);
        return 2;
    }
    const int n = a.n, nnz = (int)a.nnz;
    std::vector<double> xstar((size_t)n), b((size_t)n);
    cg_manufactured(xstar.data(), n, seed);
    cg_spmv(&a, xstar.data(), b.data());
    std::vector<int> rowptr((size_t)n + 1);
    for (int i = 0; i <= n; i++)
        rowptr[(size_t)i] = (int)a.rowptr[i];

    int *drow, *dcol;
    double *dval, *db, *dx, *dr, *ds, *dt;
    CUDA(cudaMalloc(&drow, ((size_t)n + 1) * sizeof *drow));
    CUDA(cudaMalloc(&dcol, (size_t)nnz * sizeof *dcol));
    CUDA(cudaMalloc(&dval, (size_t)nnz * sizeof *dval));
    double **vecs[] = {&db, &dx, &dr, &ds, &dt};
    for (double **v : vecs)
        CUDA(cudaMalloc(v, (size_t)n * sizeof **v));
    CUDA(cudaMemcpy(drow, rowptr.data(), ((size_t)n + 1) * sizeof *drow,
                    cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dcol, a.col, (size_t)nnz * sizeof *dcol, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dval, a.val, (size_t)nnz * sizeof *dval, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(db, b.data(), (size_t)n * sizeof *db, cudaMemcpyHostToDevice));

    cusparseHandle_t sp;
    cublasHandle_t bl;
    SPARSE(cusparseCreate(&sp));
    BLAS(cublasCreate(&bl));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vs, vt;
    SPARSE(cusparseCreateCsr(&A, n, n, nnz, drow, dcol, dval, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    SPARSE(cusparseCreateDnVec(&vs, n, ds, CUDA_R_64F));
    SPARSE(cusparseCreateDnVec(&vt, n, dt, CUDA_R_64F));
    const double one = 1.0, zero = 0.0;
    size_t bytes = 0;
    SPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vs, &zero, vt,
                                   CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    void *buf = nullptr;
    CUDA(cudaMalloc(&buf, bytes ? bytes : 1));

    (void)cg(sp, bl, A, vs, vt, buf, n, db, dx, dr, ds, dt, tol, max_iter); /* warm-up */
    const solve_out o = cg(sp, bl, A, vs, vt, buf, n, db, dx, dr, ds, dt, tol, max_iter);
    std::printf("cusparse-cg rows %d nnz %d iterations %lld residual %.17g ms_per_iter %.6g\n",
                n, nnz, (long long)o.iterations, o.residual,
                o.iterations > 0 ? (double)o.ms / (double)o.iterations : 0.0);

    SPARSE(cusparseDestroyDnVec(vt));
    SPARSE(cusparseDestroyDnVec(vs));
    SPARSE(cusparseDestroySpMat(A));
    BLAS(cublasDestroy(bl));
    SPARSE(cusparseDestroy(sp));
    CUDA(cudaFree(buf));
    for (double **v : vecs)
        CUDA(cudaFree(*v));
    CUDA(cudaFree(dval));
    CUDA(cudaFree(dcol));
    CUDA(cudaFree(drow));
    cg_csr_free(&a);
    return o.residual <= tol ? 0 : 1;
}
