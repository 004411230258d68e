/*
 * par.c: the host driver of the parallel solvers (cg/par.h): the plan, one PE thread each
 * (shmemu_launch, as md/src/par.c), each PE's buffers, one cooperative launch of the
 * monolithic kernel (kernels/mono.c) and the gathering of x. cg-host's PE is par_host.c's.
 * The halo-only loop (cg_halo_loop_par) runs on the same PE setup: its kernel (mono.c's
 * cg_halo_loop) starts from u0 in s and leaves u in s.
 *
 * Per PE (cg_pe_bufs, par_int.h, shared with cg-host): s (with its ghost region), the signal
 * words and the reduction's partial and total are in the symmetric heap, each the same size
 * on every PE (ext_max: the largest n_owned + n_ghost of the plan); everything else is the
 * PE's own memory (the emulator's device memory is host memory). Every PE zeroes its
 * symmetric words, then a barrier: no put or signal can reach a PE before it is ready.
 * After the kernel, each PE writes its owned rows of x at their global indices (disjoint),
 * and PE 0 the result and history; the caller reads them after the job has been joined.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg/par.h"
#include "cg/plan.h"
#include "cg/xsum.h"
#include "kernels/mono.h"
#include "par_int.h"
#include "shmemu/emu.h"
#include "shmemu/pgas.h"
#include "util.h"

void cg_sends_make(const cg_part *p, cg_sends *s)
{
    size_t n = (size_t)p->n_send + 1;
    s->part = cg_xcalloc(n, sizeof *s->part);
    s->count = cg_xcalloc(n, sizeof *s->count);
    s->off = cg_xcalloc(n, sizeof *s->off);
    s->disp = cg_xcalloc(n, sizeof *s->disp);
    s->total = 0;
    for (int k = 0; k < p->n_send; k++) {
        s->part[k] = p->send[k].part;
        s->count[k] = p->send[k].count;
        s->disp[k] = p->send[k].disp;
        s->off[k] = s->total;
        s->total += p->send[k].count;
    }
    s->idx = cg_xcalloc((size_t)s->total + 1, sizeof *s->idx);
    for (int k = 0; k < p->n_send; k++)
        memcpy(s->idx + s->off[k], p->send[k].idx, (size_t)p->send[k].count * sizeof *s->idx);
}

void cg_sends_free(cg_sends *s)
{
    free(s->part);
    free(s->count);
    free(s->off);
    free(s->disp);
    free(s->idx);
}

int cg_pe_start(cg_par_job *job, size_t nsig, cg_pe_bufs *bufs)
{
    nvshmem_init();
    memset(bufs, 0, sizeof *bufs);
    const int me = nvshmem_my_pe();
    const cg_part *p = &job->plan->parts[me];
    bufs->me = me;
    bufs->np = nvshmem_n_pes();
    bufs->p = p;
    /* collective allocations: every PE asks for the same sizes */
    bufs->s = (double *)nvshmem_malloc((size_t)job->ext_max * sizeof *bufs->s);
    bufs->sig = (uint64_t *)nvshmem_malloc(nsig * sizeof *bufs->sig);
    bufs->red = (long long *)nvshmem_malloc(2 * CG_XSUM_WORDS * sizeof *bufs->red);
    if (bufs->s == NULL || bufs->sig == NULL || bufs->red == NULL) {
        cg_pe_finish(bufs);
        return cg_fail(&job->pe_err[me], "PE %d: the symmetric heap cannot hold %d values of "
                       "s: give a larger NVSHMEM_SYMMETRIC_SIZE (or more PEs)", me,
                       job->ext_max);
    }
    memset(bufs->s, 0, (size_t)job->ext_max * sizeof *bufs->s);
    memset(bufs->sig, 0, nsig * sizeof *bufs->sig);
    memset(bufs->red, 0, 2 * CG_XSUM_WORDS * sizeof *bufs->red);
    const size_t n = (size_t)p->n_owned + 1;
    bufs->b = cg_xmalloc(n * sizeof *bufs->b);
    bufs->x = cg_xcalloc(n, sizeof *bufs->x);
    bufs->r = cg_xcalloc(n, sizeof *bufs->r);
    bufs->t = cg_xcalloc(n, sizeof *bufs->t);
    for (int32_t i = 0; i < p->n_owned; i++)
        bufs->b[i] = job->b[p->global[i]];
    bufs->nslots = (size_t)job->blocks * (size_t)job->threads;
    bufs->slots = cg_xcalloc(bufs->nslots * CG_XSUM_WORDS, sizeof *bufs->slots);
    cg_sends_make(p, &bufs->snd);
    bufs->sendbuf = cg_xcalloc((size_t)bufs->snd.total + 1, sizeof *bufs->sendbuf);
    nvshmem_barrier_all(); /* every PE's s and signals are zero before any put or signal */
    return 0;
}

void cg_pe_bufs_gather(cg_par_job *job, const cg_pe_bufs *bufs, const double *v)
{
    for (int32_t i = 0; i < bufs->p->n_owned; i++) /* rows of different PEs are disjoint */
        job->x[bufs->p->global[i]] = v[i];
}

void cg_pe_finish(cg_pe_bufs *bufs)
{
    if (bufs->b != NULL) { /* made whole */
        nvshmem_barrier_all(); /* no PE frees while another may still signal it */
        free(bufs->sendbuf);
        cg_sends_free(&bufs->snd);
        free(bufs->slots);
        free(bufs->t);
        free(bufs->r);
        free(bufs->x);
        free(bufs->b);
    }
    nvshmem_free(bufs->red);
    nvshmem_free(bufs->sig);
    nvshmem_free(bufs->s);
    nvshmem_finalize();
}

/* One PE of cg-mono or the halo-only loop: buffers, the launch, x's (or u's) rows. Returns
 * 0, or 1 with job->pe_err[me] set. */
static int pe_main(void *arg)
{
    cg_par_job *job = (cg_par_job *)arg;
    cg_pe_bufs B;
    if (cg_pe_start(job, 2 * (size_t)job->plan->nparts, &B) != 0)
        return 1;
    int rc = 0;
    const int me = B.me;
    const cg_part *p = B.p;
    int *recv_part = cg_xcalloc((size_t)p->n_recv + 1, sizeof *recv_part);
    for (int k = 0; k < p->n_recv; k++)
        recv_part[k] = p->recv[k].part;
    double scalar = 0.0;
    cg_result res;
    memset(&res, 0, sizeof res);

    cg_mono_args a;
    memset(&a, 0, sizeof a);
    a.me = me;
    a.npes = B.np;
    a.n_owned = p->n_owned;
    a.n_interior = p->n_interior;
    a.rowptr = p->a.rowptr;
    a.col = p->a.col;
    a.val = p->a.val;
    a.b = B.b;
    a.x = B.x;
    a.r = B.r;
    a.t = B.t;
    a.s = B.s;
    a.n_send = p->n_send;
    a.send_part = B.snd.part;
    a.send_count = B.snd.count;
    a.send_off = B.snd.off;
    a.send_disp = B.snd.disp;
    a.send_idx = B.snd.idx;
    a.sendbuf = B.sendbuf;
    a.n_recv = p->n_recv;
    a.recv_part = recv_part;
    a.sig_recv = B.sig;
    a.sig_credit = B.sig + B.np;
    a.slots = B.slots;
    a.partial = B.red;
    a.total = B.red + CG_XSUM_WORDS;
    a.scalar = &scalar;
    a.tol = job->tol;
    a.max_iter = job->max_iter;
    a.history = me == 0 ? job->history : NULL;
    a.res = &res;
    a.omega = job->omega;
    if (job->halo_loop) { /* s starts as u0 (b); the kernel leaves u in s */
        for (int32_t i = 0; i < p->n_owned; i++)
            B.s[i] = B.b[i];
        LAUNCH_COOP(cg_halo_loop, DIM3(job->blocks, 1, 1), DIM3(job->threads, 1, 1), 0, NULL,
                    a);
    } else {
        LAUNCH_COOP(cg_mono, DIM3(job->blocks, 1, 1), DIM3(job->threads, 1, 1), 0, NULL, a);
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        rc = cg_fail(&job->pe_err[me], "PE %d: the %s kernel (%d blocks of %d threads) "
                     "failed: %s", me, job->halo_loop ? "halo-loop" : "cg-mono", job->blocks,
                     job->threads, cudaGetErrorString(e));
    } else {
        cg_pe_bufs_gather(job, &B, job->halo_loop ? B.s : B.x);
        if (me == 0)
            job->res = res;
    }
    free(recv_part);
    cg_pe_finish(&B);
    return rc != 0;
}

/* The checks every parallel run shares, the plan, the PE threads and their errors: job has
 * everything else set; its plan, ext_max, blocks, threads and pe_err are set here. */
static int par_run(const cg_csr *a, const cg_par_opts *opt, int (*pe)(void *), cg_par_job *job,
                   cg_error *err)
{
    int max_pes = a->n < CG_PAR_MAX_PES ? a->n : CG_PAR_MAX_PES;
    if (opt->pes < 1 || opt->pes > max_pes)
        return cg_fail(err, "--pes %d: give 1 to %d (at most one PE per row, and at most %d)",
                       opt->pes, max_pes, CG_PAR_MAX_PES);
    int blocks = opt->blocks ? opt->blocks : 2, threads = opt->threads ? opt->threads : 64;
    if (blocks < 1 || blocks > CG_PAR_MAX_BLOCKS)
        return cg_fail(err, "--blocks %d: give 1 to %d", blocks, CG_PAR_MAX_BLOCKS);
    if (threads < 1 || threads > CG_PAR_MAX_THREADS)
        return cg_fail(err, "--threads %d: give 1 to %d", threads, CG_PAR_MAX_THREADS);
    cg_plan plan;
    if (cg_plan_contiguous(a, opt->pes, &plan, err) != 0)
        return -1;
    job->plan = &plan;
    job->blocks = blocks;
    job->threads = threads;
    for (int q = 0; q < plan.nparts; q++) {
        int32_t ext = plan.parts[q].n_owned + plan.parts[q].n_ghost;
        if (ext > job->ext_max)
            job->ext_max = ext;
    }
    job->pe_err = cg_xcalloc((size_t)opt->pes, sizeof *job->pe_err);
    int rc = shmemu_launch(opt->pes, pe, job);
    if (rc != 0) {
        int q = 0;
        while (q < opt->pes - 1 && job->pe_err[q].msg[0] == '\0')
            q++;
        if (job->pe_err[q].msg[0])
            *err = job->pe_err[q];
        else
            cg_fail(err, "the parallel run failed (PE messages above)");
    }
    free(job->pe_err);
    job->pe_err = NULL;
    job->plan = NULL;
    cg_plan_free(&plan);
    return rc != 0 ? -1 : 0;
}

int cg_solve_par(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                 const cg_par_opts *opt, double *history, cg_result *res, cg_error *err)
{
    memset(res, 0, sizeof *res);
    if (opt->solver != CG_SOLVER_MONO && opt->solver != CG_SOLVER_HOST)
        return cg_fail(err, "cg_solve_par: solver %d: the parallel solvers built are cg-mono "
                       "(CG_SOLVER_MONO) and cg-host (CG_SOLVER_HOST)", (int)opt->solver);
    if (opt->reduce != CG_REDUCE_SYNC && opt->reduce != CG_REDUCE_STREAM)
        return cg_fail(err, "cg_solve_par: reduce %d: give CG_REDUCE_SYNC or CG_REDUCE_STREAM",
                       (int)opt->reduce);
    if (!(tol > 0) || !(tol < 1) || max_iter < 0)
        return cg_fail(err, "cg_solve_par: tol %g, max_iter %lld: give 0 < tol < 1 and "
                       "max_iter >= 0", tol, (long long)max_iter);
    cg_par_job job;
    memset(&job, 0, sizeof job);
    job.b = b;
    job.x = x;
    job.tol = tol;
    job.max_iter = max_iter;
    job.history = history;
    job.reduce = opt->reduce;
    if (par_run(a, opt, opt->solver == CG_SOLVER_HOST ? cg_par_host_pe : pe_main, &job, err))
        return -1;
    *res = job.res;
    return 0;
}

double cg_halo_omega(const cg_csr *a)
{
    double max = 0.0;
    for (int32_t i = 0; i < a->n; i++) {
        double sum = 0.0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            sum += fabs(a->val[k]);
        if (sum > max)
            max = sum;
    }
    int e = 0;
    (void)frexp(max, &e); /* max < 2^e */
    return max > 0 && isfinite(max) ? ldexp(1.0, -e) : 1.0;
}

void cg_halo_loop_serial(const cg_csr *a, double *u, int64_t iters, double omega)
{
    double *t = cg_xcalloc((size_t)a->n + 1, sizeof *t);
    for (int64_t k = 0; k < iters; k++) {
        cg_spmv(a, u, t);
        for (int32_t i = 0; i < a->n; i++)
            u[i] = -omega * t[i] + u[i];
    }
    free(t);
}

int cg_halo_loop_par(const cg_csr *a, const double *u0, double *u, int64_t iters, double omega,
                     const cg_par_opts *opt, cg_error *err)
{
    if (iters < 0 || !isfinite(omega))
        return cg_fail(err, "cg_halo_loop_par: iters %lld, omega %g: give iters >= 0 and a "
                       "finite omega", (long long)iters, omega);
    cg_par_job job;
    memset(&job, 0, sizeof job);
    job.b = u0;
    job.x = u;
    job.max_iter = iters;
    job.omega = omega;
    job.halo_loop = true;
    return par_run(a, opt, pe_main, &job, err);
}
