/*
 * cg_petsc.c: the baselines of the cg benchmark (bench/cg.sh, `make bench-cg`): PETSc's
 * KSPCG on the very problem bin/shmemu-cg solves, a plain-double CG, and the cost of the
 * exact dot products alone. One method per run, one result line on standard output.
 *
 * The problem is shmemu-cg's, built by the cg library itself (libshmemu_cg.a, one source of
 * truth): the matrix from cg_poisson{1,2,3}d or cg_mtx_read, x* from cg_manufactured (same
 * seed, same bits), b = A x* by cg_spmv (same bits), x0 = 0.
 *
 *   --method petsc         KSPCG, PCNONE, KSP_NORM_NATURAL. With no preconditioner the
 *                          natural norm is sqrt(r.r): the unpreconditioned residual norm,
 *                          by shmemu-cg's expression (the square root of the dot product
 *                          that also gives beta), so two reductions per iteration, as ours.
 *                          (KSPCG's default, KSP_NORM_PRECONDITIONED, is with PCNONE the
 *                          same norm by VecNorm: the cost of petsc-unprec below.)
 *   --method petsc-unprec  KSPCG, PCNONE, KSP_NORM_UNPRECONDITIONED: ||r|| by VecNorm
 *                          (BLAS dnrm2), a third reduction per iteration besides the two
 *                          dot products.
 *     Both: KSPSetTolerances(rtol = --tol, abstol = 0, dtol = 1e300, maxit = --max-iter)
 *     and the default convergence test (KSPConvergedDefault: stop when ||r_k|| <= rtol
 *     ||r_0||, ||r_0|| = ||b|| since the initial guess is zero): shmemu-cg's test.
 *     KSPSetFromOptions is not called, so no options file or PETSC_OPTIONS changes the
 *     method (PETSC_OPTIONS=-log_view still works: it is read by PetscInitialize).
 *   --method serial        cg_solve_serial, the cg library's serial solver: what
 *                          `shmemu-cg --solver serial` runs (the same function, the same
 *                          bits), timed here with the same clocks as the others.
 *   --method plain         paper 002's Listing 1 exactly as cg_solve_serial runs it (the
 *                          same cg_spmv, the same AXPY expressions, the same stop test) but
 *                          with plain double dot products (one running sum in index order).
 *                          NOT bit-reproducible: a benchmark baseline only, never shipped in
 *                          the solver.
 *   --method dots          the exact reductions alone: cg_dot of length n (two per
 *                          iteration of the serial CG) against the plain loop, repeated for
 *                          at least 0.3 s each; ns per term in CPU time.
 *
 * Output (one line): "cg_petsc method=M rows=N nnz=Z iterations=K converged=0|1
 * residual=R error=E true_residual=T seconds=S ms_per_iter=P cpu_ms_per_iter=C checksum=H"
 * (R = the method's ||r_K|| / ||b||, E = ||x - x*||, T = ||b - A x|| / ||b||, S the solve
 * alone, wall clock; C the same in the CPU time of the solving thread, which a shared,
 * oversubscribed machine does not inflate the way it inflates wall time), or for dots
 * "cg_petsc method=dots rows=N exact_ns_per_term=.. plain_ns_per_term=..
 * exact_ms_per_iter=.. plain_ms_per_iter=.. exact_cpu_ms_per_iter=..
 * plain_cpu_ms_per_iter=..". Exit status 0; 1 not converged; 2 bad option, input or PETSc
 * error.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <petscksp.h>

#include "cg/matrix.h"
#include "cg/solve.h"
#include "cg/xsum.h"

typedef enum { M_SERIAL, M_PETSC, M_PETSC_UNPREC, M_PLAIN, M_DOTS } method_t;

typedef struct opts {
    int dim;             /* 1, 2, 3 (generated) or 0 (--matrix) */
    long grid;
    const char *matrix;
    double tol;
    uint64_t seed;
    long max_iter;
    method_t method;
} opts;

typedef struct outcome {
    long iterations;
    int converged;
    double rnorm;        /* the method's last residual norm */
    double seconds;      /* wall clock */
    double cpu_seconds;  /* CPU time of the calling thread */
} outcome;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (!p) {
        fprintf(stderr, "cg_petsc: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

static void usage(FILE *f)
{
    fputs("usage: cg_petsc (--poisson1d N | --poisson2d N | --poisson3d N | --matrix FILE.mtx)\n"
          "                [--method serial|petsc|petsc-unprec|plain|dots] [--tol T] [--seed S]\n"
          "                [--max-iter N]\n"
          "The problem of bin/shmemu-cg (same matrix, x*, b, x0 = 0, tolerance); see the\n"
          "comment at the top of bench/cg_petsc.c for the methods.\n", f);
}

static int bad(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "cg_petsc: %s %s: %s\n", opt, val ? val : "(missing)", want);
    usage(stderr);
    return -1;
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.tol = 1e-8, .seed = 1, .max_iter = 10000, .method = M_PETSC};
    int sources = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!v)
            return bad(a, v, "needs a value (or unknown option)");
        i++;
        if (strncmp(a, "--poisson", 9) == 0 && a[9] >= '1' && a[9] <= '3' &&
            strcmp(a + 10, "d") == 0) {
            o->dim = a[9] - '0';
            o->grid = strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || o->grid < 1)
                return bad(a, v, "need a positive integer");
            sources++;
        } else if (strcmp(a, "--matrix") == 0) {
            o->dim = 0;
            o->matrix = v;
            sources++;
        } else if (strcmp(a, "--tol") == 0) {
            o->tol = strtod(v, &end);
            if (*v == '\0' || *end != '\0' || !(o->tol > 0 && o->tol < 1))
                return bad(a, v, "need 0 < T < 1");
        } else if (strcmp(a, "--seed") == 0) {
            unsigned long long s = strtoull(v, &end, 10);
            if (*v == '\0' || *end != '\0' || *v == '-')
                return bad(a, v, "need a non-negative integer");
            o->seed = s;
        } else if (strcmp(a, "--max-iter") == 0) {
            o->max_iter = strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || o->max_iter < 1 || o->max_iter > 100000000)
                return bad(a, v, "need an integer from 1 to 1e8");
        } else if (strcmp(a, "--method") == 0) {
            if (strcmp(v, "serial") == 0)
                o->method = M_SERIAL;
            else if (strcmp(v, "petsc") == 0)
                o->method = M_PETSC;
            else if (strcmp(v, "petsc-unprec") == 0)
                o->method = M_PETSC_UNPREC;
            else if (strcmp(v, "plain") == 0)
                o->method = M_PLAIN;
            else if (strcmp(v, "dots") == 0)
                o->method = M_DOTS;
            else
                return bad(a, v, "need serial, petsc, petsc-unprec, plain or dots");
        } else {
            return bad(a, v, "unknown option");
        }
    }
    if (sources != 1) {
        fprintf(stderr, "cg_petsc: give exactly one of --poisson1d/2d/3d N, --matrix FILE\n");
        usage(stderr);
        return -1;
    }
    return 0;
}

static const char *method_name(method_t m)
{
    return m == M_SERIAL          ? "serial"
           : m == M_PETSC        ? "petsc"
           : m == M_PETSC_UNPREC ? "petsc-unprec"
           : m == M_PLAIN        ? "plain"
                                 : "dots";
}

/* One running sum in index order: what a plain C dot product is (not reproducible across
 * orders or splits). */
static double plain_dot(const double *x, const double *y, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* cg_solve_serial's loop (cg/src/solve.c) with plain_dot for cg_dot: the same SpMV, AXPY
 * expressions and stop test. A benchmark baseline, not bit-reproducible. */
static void solve_plain(const cg_csr *a, const double *b, double *x, double tol, long max_iter,
                        outcome *out)
{
    size_t n = (size_t)a->n;
    double *r = xmalloc(n * sizeof *r), *s = xmalloc(n * sizeof *s), *t = xmalloc(n * sizeof *t);
    double t0 = now_s(), c0 = cpu_s();
    for (size_t i = 0; i < n; i++)
        x[i] = 0.0;
    cg_spmv(a, x, t);
    for (size_t i = 0; i < n; i++)
        r[i] = b[i] - t[i];
    double rho = plain_dot(r, r, n);
    memcpy(s, r, n * sizeof *s);
    const double stop = tol * sqrt(rho);
    long k = 0;
    out->converged = sqrt(rho) <= stop;
    out->rnorm = sqrt(rho);
    while (!out->converged && k < max_iter) {
        k++;
        cg_spmv(a, s, t);
        double gamma = plain_dot(s, t, n);
        if (!(gamma > 0) || !isfinite(gamma)) {
            k--;
            break;
        }
        double alpha = rho / gamma;
        for (size_t i = 0; i < n; i++)
            x[i] = alpha * s[i] + x[i];
        for (size_t i = 0; i < n; i++)
            r[i] = -alpha * t[i] + r[i];
        double rho_k = plain_dot(r, r, n);
        out->rnorm = sqrt(rho_k);
        if (sqrt(rho_k) <= stop) {
            out->converged = 1;
            break;
        }
        double beta = rho_k / rho;
        for (size_t i = 0; i < n; i++)
            s[i] = beta * s[i] + r[i];
        rho = rho_k;
    }
    out->seconds = now_s() - t0;
    out->cpu_seconds = cpu_s() - c0;
    out->iterations = k;
    free(r);
    free(s);
    free(t);
}

/* KSPCG with PCNONE on A (CSR arrays handed to PETSc as they are, indices converted to
 * PetscInt), b; x receives the solution. */
static PetscErrorCode solve_petsc(const cg_csr *a, const double *b, double *x, const opts *o,
                                  outcome *out)
{
    PetscInt n = a->n;
    PetscInt *ia, *ja;
    Mat A;
    Vec B, X;
    KSP ksp;
    PC pc;
    KSPConvergedReason reason;
    PetscInt its;
    PetscReal rnorm;
    const PetscScalar *xa;

    PetscFunctionBeginUser;
    PetscCall(PetscMalloc2(n + 1, &ia, a->nnz, &ja));
    for (PetscInt i = 0; i <= n; i++)
        ia[i] = (PetscInt)a->rowptr[i];
    for (int64_t k = 0; k < a->nnz; k++)
        ja[k] = a->col[k];
    /* The values are not copied: PETSc uses the arrays as they are until MatDestroy. */
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, ia, ja, a->val, &A));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, b, &B));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, x, &X));
    PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCNONE));
    PetscCall(KSPSetNormType(ksp, o->method == M_PETSC ? KSP_NORM_NATURAL
                                                       : KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
    PetscCall(KSPSetTolerances(ksp, o->tol, 0.0, 1e300, (PetscInt)o->max_iter));
    PetscCall(KSPSetUp(ksp));
    double t0 = now_s(), c0 = cpu_s();
    PetscCall(KSPSolve(ksp, B, X));
    out->seconds = now_s() - t0;
    out->cpu_seconds = cpu_s() - c0;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    out->iterations = its;
    out->converged = reason > 0;
    out->rnorm = rnorm;
    /* X wraps x; reading through PETSc makes sure any pending state is in x. */
    PetscCall(VecGetArrayRead(X, &xa));
    if (xa != x)
        memcpy(x, xa, (size_t)n * sizeof *x);
    PetscCall(VecRestoreArrayRead(X, &xa));
    if (reason <= 0)
        fprintf(stderr, "cg_petsc: KSP stopped with reason %s after %" PetscInt_FMT
                " iterations\n", KSPConvergedReasons[reason], its);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&X));
    PetscCall(VecDestroy(&B));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFree2(ia, ja));
    PetscFunctionReturn(0);
}

/* Where the timed dot products go, so that none is optimized away. */
static volatile double dot_sink;

/* Seconds per call of f over vectors of length n, wall and CPU (*cpu): repeated until 0.3 s
 * of wall time have passed. */
static double time_dot(double (*f)(const double *, const double *, size_t), const double *u,
                       const double *v, size_t n, double *cpu)
{
    long reps = 0;
    double t0 = now_s(), c0 = cpu_s(), t;
    do {
        dot_sink = f(u, v, n);
        reps++;
        t = now_s() - t0;
    } while (t < 0.3);
    *cpu = (cpu_s() - c0) / (double)reps;
    return t / (double)reps;
}

static int dots(const cg_csr *a, const double *xstar, const double *b)
{
    size_t n = (size_t)a->n;
    /* b . x*: the problem's own vectors (the exponents a solve starts from) */
    double ce, cp;
    double te = time_dot(cg_dot, b, xstar, n, &ce);
    double tp = time_dot(plain_dot, b, xstar, n, &cp);
    printf("cg_petsc method=dots rows=%d nnz=%" PRId64 " exact_ns_per_term=%.4g "
           "plain_ns_per_term=%.4g exact_ms_per_iter=%.6g plain_ms_per_iter=%.6g "
           "exact_cpu_ms_per_iter=%.6g plain_cpu_ms_per_iter=%.6g\n",
           a->n, a->nnz, 1e9 * ce / (double)n, 1e9 * cp / (double)n, 2e3 * te, 2e3 * tp,
           2e3 * ce, 2e3 * cp);
    return 0;
}

int main(int argc, char **argv)
{
    opts o;
    if (parse(argc, argv, &o) != 0)
        return 2;
    cg_csr a;
    cg_error err;
    cg_mtx_info info;
    int rc = o.dim == 1   ? cg_poisson1d(&a, o.grid, &err)
             : o.dim == 2 ? cg_poisson2d(&a, o.grid, &err)
             : o.dim == 3 ? cg_poisson3d(&a, o.grid, &err)
                          : cg_mtx_read(o.matrix, &a, &info, &err);
    if (rc != 0) {
        fprintf(stderr, "cg_petsc: %s\n", err.msg);
        return 2;
    }
    size_t n = (size_t)a.n;
    double *xstar = xmalloc(n * sizeof *xstar), *b = xmalloc(n * sizeof *b);
    double *x = xmalloc(n * sizeof *x), *w = xmalloc(n * sizeof *w);
    cg_manufactured(xstar, a.n, o.seed);
    cg_spmv(&a, xstar, b);
    if (o.method == M_DOTS) {
        rc = dots(&a, xstar, b);
    } else {
        outcome out = {0};
        if (o.method == M_SERIAL) {
            cg_result res;
            double t0 = now_s(), c0 = cpu_s();
            cg_solve_serial(&a, b, x, o.tol, o.max_iter, NULL, &res);
            out = (outcome){res.iterations, res.converged, res.residual * cg_norm2(b, n),
                            now_s() - t0, cpu_s() - c0};
        } else if (o.method == M_PLAIN) {
            solve_plain(&a, b, x, o.tol, o.max_iter, &out);
        } else {
            /* Only the program's name: PETSc would read our --options as its own. */
            int pargc = 1;
            char **pargv = argv;
            if (PetscInitialize(&pargc, &pargv, NULL, NULL) != 0) {
                fprintf(stderr, "cg_petsc: PetscInitialize failed\n");
                return 2;
            }
            if (solve_petsc(&a, b, x, &o, &out) != 0 || PetscFinalize() != 0) {
                fprintf(stderr, "cg_petsc: PETSc failed (message above)\n");
                return 2;
            }
        }
        double bnorm = cg_norm2(b, n);
        for (size_t i = 0; i < n; i++)
            w[i] = x[i] - xstar[i];
        double error = cg_norm2(w, n);
        cg_spmv(&a, x, w);
        for (size_t i = 0; i < n; i++)
            w[i] = b[i] - w[i];
        double true_res = bnorm > 0 ? cg_norm2(w, n) / bnorm : 0.0;
        printf("cg_petsc method=%s rows=%d nnz=%" PRId64 " iterations=%ld converged=%d "
               "residual=%.17g error=%.17g true_residual=%.17g seconds=%.6f "
               "ms_per_iter=%.6g cpu_ms_per_iter=%.6g checksum=%016" PRIx64 "\n",
               method_name(o.method), a.n, a.nnz, out.iterations, out.converged,
               bnorm > 0 ? out.rnorm / bnorm : 0.0, error, true_res, out.seconds,
               out.iterations > 0 ? 1e3 * out.seconds / (double)out.iterations : 0.0,
               out.iterations > 0 ? 1e3 * out.cpu_seconds / (double)out.iterations : 0.0,
               cg_checksum(x, a.n));
        rc = out.converged ? 0 : 1;
    }
    free(w);
    free(x);
    free(b);
    free(xstar);
    cg_csr_free(&a);
    return rc;
}
