/*
 * main.c: bin/shmemu-cg, the CG app's command line (options.c) around the serial solver and
 * the parallel ones (cg/par.h: --solver cg-mono, cg-host, --pes N), pipelined CG (--solver
 * pcg-mono on the PEs, pcg-serial its one-core reference), and the halo-only loop
 * (--solver halo-loop, halo-serial: not CG; the credit wait's test).
 * Standard output is deterministic (header, result line, checksum last); time and the
 * FLOP/byte model's rates go to standard error. Exit status: 0 converged, 1 not converged
 * or breakdown, 2 bad option or input.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg/matrix.h"
#include "cg/par.h"
#include "cg/partition.h"
#include "cg/solve.h"
#include "cg/xsum.h"
#include "cg_bugs.h"
#include "options.h"
#include "util.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int load(const cg_options *o, cg_csr *a, char *what, size_t size, cg_error *err)
{
    static const char *const dims[] = {"", "", "poisson1d", "poisson2d", "poisson3d"};
    switch (o->source) {
    case CG_SRC_MTX: {
        cg_mtx_info info;
        snprintf(what, size, "%s", o->matrix);
        if (cg_mtx_read(o->matrix, a, &info, err) != 0)
            return -1;
        size_t l = strlen(what);
        snprintf(what + l, size - l, " (%s %s)", info.field, info.symmetry);
        return 0;
    }
    case CG_SRC_P1:
    case CG_SRC_P2:
    case CG_SRC_P3:
        snprintf(what, size, "%s %ld", dims[o->source], o->grid);
        return o->source == CG_SRC_P1   ? cg_poisson1d(a, o->grid, err)
               : o->source == CG_SRC_P2 ? cg_poisson2d(a, o->grid, err)
                                        : cg_poisson3d(a, o->grid, err);
    case CG_SRC_NONE:
        break;
    }
    return cg_fail(err, "no matrix given");
}

static const char *transport_name(cg_transport t)
{
    return t == CG_TRANSPORT_DIRECT ? "direct" : t == CG_TRANSPORT_AUTO ? "auto" : "signal";
}

/* Standard error: how the halo messages travelled and the halo's size (as md reports its
 * pulses' routes): what --transport auto chose is read here, not on standard output, whose
 * bytes do not depend on the machine. */
static void print_transport(const cg_options *o, const cg_par_info *info)
{
    if (o->solver == CG_SOLVER_HOST) {
        fprintf(stderr, "shmemu-cg: partition %s: %" PRId64 " ghost values per exchange; "
                "halo put by the host with its signal\n", cg_partition_name(o->partition),
                info->halo_values);
        return;
    }
    fprintf(stderr, "shmemu-cg: partition %s: %" PRId64 " ghost values per exchange; "
            "transport %s: %" PRId64 " messages direct (nvshmem_ptr stores), %" PRId64
            " put-with-signal per exchange\n", cg_partition_name(o->partition),
            info->halo_values, transport_name(o->transport), info->direct_msgs,
            info->signal_msgs);
}

/* --solver halo-loop / halo-serial: the halo-only loop from u0 = x* (cg/par.h); prints its
 * lines and the checksum of u. Returns the exit status. */
static int halo_loop(const cg_options *o, const cg_csr *a, const char *what)
{
    size_t n = (size_t)a->n;
    double *u0 = cg_xmalloc(n * sizeof *u0), *u = cg_xmalloc(n * sizeof *u);
    cg_manufactured(u0, a->n, o->seed);
    const double omega = cg_halo_omega(a);
    const bool serial = o->solver == CG_SOLVER_HALO_SERIAL;
    printf("# shmemu-cg: matrix %s: %d rows, %" PRId64 " entries\n", what, a->n, a->nnz);
    if (serial)
        printf("# solver halo-serial, pes 1, seed %" PRIu64 ", iters %lld, omega %.17g\n",
               o->seed, o->iters, omega);
    else
        printf("# solver halo-loop, pes %d, partition %s, transport %s, seed %" PRIu64 ", "
               "iters %lld, omega %.17g\n", o->pes, cg_partition_name(o->partition),
               transport_name(o->transport), o->seed, o->iters, omega);
    double t0 = now_s();
    int status = 0;
    if (serial) {
        memcpy(u, u0, n * sizeof *u);
        cg_halo_loop_serial(a, u, o->iters, omega);
    } else {
        cg_par_info info;
        cg_par_opts po = {.solver = o->solver, .pes = o->pes, .blocks = o->blocks,
                          .threads = o->threads, .reduce = CG_REDUCE_SYNC,
                          .partition = o->partition, .transport = o->transport, .info = &info};
        cg_error err;
        if (cg_halo_loop_par(a, u0, u, o->iters, omega, &po, &err) != 0) {
            fprintf(stderr, "shmemu-cg: %s\n", err.msg);
            status = 2;
        } else {
            print_transport(o, &info);
        }
    }
    double t = now_s() - t0;
    if (status == 0) {
        fprintf(stderr, "shmemu-cg: %lld halo-loop iterations in %.6f s: %.6g ms per "
                "iteration\n", o->iters, t, o->iters > 0 ? 1e3 * t / (double)o->iters : 0.0);
        printf("halo-loop iterations %lld norm %.17g\n", o->iters, cg_norm2(u, n));
        printf("checksum %016" PRIx64 "\n", cg_checksum(u, a->n));
    }
    free(u);
    free(u0);
    return status;
}

/* Paper 002 §4.1.4: for m rows and z nonzeros, SpMV 2z FLOP and 20(z+m) bytes; DOT 2m FLOP,
 * 16m bytes; NRM2 2m, 8m; AXPY 2m, 24m. k iterations of Listing 1: k+1 SpMV, k DOT,
 * k+1 NRM2 and 3k AXPY. Pipelined CG (pcg): k+2 SpMV (w0 = A r0, and q at each of the k+1
 * reductions; r0 = b needs none), k+1 DOT (delta = w.r), k+1 NRM2 (gamma = r.r), 6k AXPY. */
static void model(int64_t m, int64_t z, int64_t k, bool pcg, double seconds)
{
    double md = (double)m, zd = (double)z, kd = (double)k;
    const int64_t nspmv = pcg ? k + 2 : k + 1, ndot = pcg ? k + 1 : k, nnrm2 = k + 1;
    const int64_t naxpy = pcg ? 6 * k : 3 * k;
    double flop = (double)nspmv * 2 * zd + (double)ndot * 2 * md + (double)nnrm2 * 2 * md +
                  (double)naxpy * 2 * md;
    double bytes = (double)nspmv * 20 * (zd + md) + (double)ndot * 16 * md +
                   (double)nnrm2 * 8 * md + (double)naxpy * 24 * md;
    fprintf(stderr, "shmemu-cg: %" PRId64 " iterations in %.6f s: %.6g ms per iteration\n", k,
            seconds, k > 0 ? 1e3 * seconds / kd : 0.0);
    fprintf(stderr, "shmemu-cg: model (paper 002 4.1.4; %" PRId64 " SpMV, %" PRId64 " DOT, %"
            PRId64 " NRM2, %" PRId64 " AXPY): %.4g GFLOP, %.4g GB: %.4g GFLOP/s, %.4g GB/s\n",
            nspmv, ndot, nnrm2, naxpy, flop * 1e-9, bytes * 1e-9,
            seconds > 0 ? flop * 1e-9 / seconds : 0.0,
            seconds > 0 ? bytes * 1e-9 / seconds : 0.0);
}

int main(int argc, char **argv)
{
    cg_options o;
    cg_error err;
    if (cg_options_parse(argc, argv, &o, &err) != 0) {
        fprintf(stderr, "shmemu-cg: %s\nshmemu-cg: see shmemu-cg --help for the options\n",
                err.msg);
        return 2;
    }
    if (o.help) {
        cg_options_usage(stdout);
        return 0;
    }
    if (o.list_bugs) {
        size_t nb;
        (void)cg_bugs_catalogue(&nb); /* links cg's catalogue (its constructor registers it) */
        shmemu_bug_print(stdout);
        return 0;
    }
    cg_csr a;
    char what[600];
    if (load(&o, &a, what, sizeof what, &err) != 0) {
        fprintf(stderr, "shmemu-cg: %s\n", err.msg);
        return 2;
    }
    if (o.solver == CG_SOLVER_HALO_LOOP || o.solver == CG_SOLVER_HALO_SERIAL) {
        int status = halo_loop(&o, &a, what);
        cg_csr_free(&a);
        return status;
    }
    size_t n = (size_t)a.n;
    double *xstar = cg_xmalloc(n * sizeof *xstar);
    double *b = cg_xmalloc(n * sizeof *b);
    double *x = cg_xmalloc(n * sizeof *x);
    double *hist = o.history ? cg_xmalloc(((size_t)o.max_iter + 1) * sizeof *hist) : NULL;
    cg_manufactured(xstar, a.n, o.seed);
    cg_spmv(&a, xstar, b);
    printf("# shmemu-cg: matrix %s: %d rows, %" PRId64 " entries\n", what, a.n, a.nnz);
    if (o.solver == CG_SOLVER_SERIAL)
        printf("# solver serial, seed %" PRIu64 ", tol %g, max-iter %lld\n", o.seed, o.tol,
               o.max_iter);
    else if (o.solver == CG_SOLVER_MONO || o.solver == CG_SOLVER_PCG_MONO)
        printf("# solver %s, pes %d, partition %s, transport %s, seed %" PRIu64 ", tol %g, "
               "max-iter %lld\n", o.solver == CG_SOLVER_MONO ? "cg-mono" : "pcg-mono", o.pes,
               cg_partition_name(o.partition), transport_name(o.transport), o.seed, o.tol,
               o.max_iter);
    else if (o.solver == CG_SOLVER_PCG_SERIAL)
        printf("# solver pcg-serial, seed %" PRIu64 ", tol %g, max-iter %lld\n", o.seed, o.tol,
               o.max_iter);
    else
        printf("# solver cg-host, reduce %s, pes %d, partition %s, seed %" PRIu64 ", tol %g, "
               "max-iter %lld\n", o.reduce == CG_REDUCE_STREAM ? "stream" : "sync", o.pes,
               cg_partition_name(o.partition), o.seed, o.tol, o.max_iter);
    cg_result res;
    double t0 = now_s();
    if (o.solver == CG_SOLVER_SERIAL) {
        cg_solve_serial(&a, b, x, o.tol, o.max_iter, hist, &res);
    } else if (o.solver == CG_SOLVER_PCG_SERIAL) {
        cg_solve_pcg_serial(&a, b, x, o.tol, o.max_iter, hist, &res);
    } else {
        cg_par_info info;
        cg_par_opts po = {.solver = o.solver, .pes = o.pes, .blocks = o.blocks,
                          .threads = o.threads, .reduce = o.reduce,
                          .partition = o.partition, .transport = o.transport, .info = &info};
        if (cg_solve_par(&a, b, x, o.tol, o.max_iter, &po, hist, &res, &err) != 0) {
            fprintf(stderr, "shmemu-cg: %s\n", err.msg);
            free(hist);
            free(x);
            free(b);
            free(xstar);
            cg_csr_free(&a);
            return 2;
        }
        print_transport(&o, &info);
    }
    double t_solve = now_s() - t0;
    if (hist)
        for (int64_t k = 0; k <= res.iterations; k++)
            printf("residual %" PRId64 " %.17g\n", k, hist[k]);
    for (size_t i = 0; i < n; i++) /* xstar <- x - x* (x* is not needed any more) */
        xstar[i] = x[i] - xstar[i];
    double error = cg_norm2(xstar, n);
    cg_spmv(&a, x, xstar); /* the true residual ||b - A x|| / ||b|| */
    for (size_t i = 0; i < n; i++)
        xstar[i] = b[i] - xstar[i];
    double bnorm = cg_norm2(b, n);
    double true_res = bnorm > 0 ? cg_norm2(xstar, n) / bnorm : 0.0;
    printf("iterations %" PRId64 " residual %.17g error %.17g\n", res.iterations, res.residual,
           error);
    printf("# true residual ||b - A x|| / ||b|| = %.17g\n", true_res);
    const bool pcg = o.solver == CG_SOLVER_PCG_MONO || o.solver == CG_SOLVER_PCG_SERIAL;
    model(a.n, a.nnz, res.iterations, pcg, t_solve);
    int status = 0;
    if (res.breakdown) {
        fprintf(stderr, "shmemu-cg: breakdown at iteration %" PRId64 ": %s <= 0, so the "
                "matrix is not positive definite; CG needs a symmetric positive definite "
                "matrix\n", res.iterations + 1,
                pcg ? "p.Ap (pipelined: delta - beta gamma / alpha)" : "s.As");
        status = 1;
    } else if (!res.converged) {
        fprintf(stderr, "shmemu-cg: not converged: residual %.6g after %" PRId64 " iterations "
                "(tol %g); give a larger --max-iter or a larger --tol\n", res.residual,
                res.iterations, o.tol);
        status = 1;
    }
    printf("checksum %016" PRIx64 "\n", cg_checksum(x, a.n));
    free(hist);
    free(x);
    free(b);
    free(xstar);
    cg_csr_free(&a);
    return status;
}
