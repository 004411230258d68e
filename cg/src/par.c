/*
 * par.c: the host driver of the parallel solvers (cg/par.h): the plan, one PE thread each
 * (shmemu_launch, as md/src/par.c), each PE's buffers, one cooperative launch of the
 * monolithic kernel (kernels/mono.c) and the gathering of x.
 *
 * Per PE: s (with its ghost region), the signal words and the reduction's partial and total
 * are in the symmetric heap, each the same size on every PE (ext_max: the largest n_owned +
 * n_ghost of the plan); everything else is the PE's own memory (the emulator's device
 * memory is host memory). Every PE zeroes its symmetric words, then a barrier: no put or
 * signal can reach a PE before it is ready. After the kernel, each PE writes its owned rows
 * of x at their global indices (disjoint), and PE 0 the result and history; the caller reads
 * them after the job has been joined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg/par.h"
#include "cg/plan.h"
#include "cg/xsum.h"
#include "kernels/mono.h"
#include "shmemu/emu.h"
#include "shmemu/pgas.h"
#include "util.h"

typedef struct cg_par_job {
    const cg_plan *plan;
    const double *b;      /* global order */
    double *x;            /* global order, written by each PE for its rows */
    double tol;
    int64_t max_iter;
    double *history;      /* PE 0's kernel writes it */
    int blocks, threads;
    int32_t ext_max;      /* largest n_owned + n_ghost over the parts */
    cg_result res;        /* PE 0's */
    cg_error *pe_err;     /* one per PE */
} cg_par_job;

/* The flattened send lists of part p (mono.h's form). */
typedef struct sends {
    int *part;
    int32_t *count, *off, *disp, *idx;
    int32_t total;
} sends;

static void sends_make(const cg_part *p, sends *s)
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

static void sends_free(sends *s)
{
    free(s->part);
    free(s->count);
    free(s->off);
    free(s->disp);
    free(s->idx);
}

/* One PE: buffers, the launch, x's rows. Returns 0, or 1 with job->pe_err[me] set. */
static int pe_main(void *arg)
{
    cg_par_job *job = (cg_par_job *)arg;
    nvshmem_init();
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    const cg_part *p = &job->plan->parts[me];
    cg_error *err = &job->pe_err[me];
    int rc = 0;
    /* collective allocations: every PE asks for the same sizes */
    double *s = (double *)nvshmem_malloc((size_t)job->ext_max * sizeof *s);
    uint64_t *sig = (uint64_t *)nvshmem_malloc(2 * (size_t)np * sizeof *sig);
    long long *red = (long long *)nvshmem_malloc(2 * CG_XSUM_WORDS * sizeof *red);
    if (s == NULL || sig == NULL || red == NULL) {
        rc = cg_fail(err, "PE %d: the symmetric heap cannot hold %d values of s: give a "
                     "larger NVSHMEM_SYMMETRIC_SIZE (or more PEs)", me, job->ext_max);
        goto out;
    }
    memset(s, 0, (size_t)job->ext_max * sizeof *s);
    memset(sig, 0, 2 * (size_t)np * sizeof *sig);
    memset(red, 0, 2 * CG_XSUM_WORDS * sizeof *red);
    const size_t n = (size_t)p->n_owned + 1;
    double *b = cg_xmalloc(n * sizeof *b), *x = cg_xcalloc(n, sizeof *x);
    double *r = cg_xcalloc(n, sizeof *r), *t = cg_xcalloc(n, sizeof *t);
    for (int32_t i = 0; i < p->n_owned; i++)
        b[i] = job->b[p->global[i]];
    const size_t nthreads = (size_t)job->blocks * (size_t)job->threads;
    int64_t *slots = cg_xcalloc(nthreads * CG_XSUM_WORDS, sizeof *slots);
    sends snd;
    sends_make(p, &snd);
    double *sendbuf = cg_xcalloc((size_t)snd.total + 1, sizeof *sendbuf);
    int *recv_part = cg_xcalloc((size_t)p->n_recv + 1, sizeof *recv_part);
    for (int k = 0; k < p->n_recv; k++)
        recv_part[k] = p->recv[k].part;
    double scalar = 0.0;
    cg_result res;
    memset(&res, 0, sizeof res);
    nvshmem_barrier_all(); /* every PE's s and signals are zero before any put or signal */

    cg_mono_args a;
    memset(&a, 0, sizeof a);
    a.me = me;
    a.npes = np;
    a.n_owned = p->n_owned;
    a.n_interior = p->n_interior;
    a.rowptr = p->a.rowptr;
    a.col = p->a.col;
    a.val = p->a.val;
    a.b = b;
    a.x = x;
    a.r = r;
    a.t = t;
    a.s = s;
    a.n_send = p->n_send;
    a.send_part = snd.part;
    a.send_count = snd.count;
    a.send_off = snd.off;
    a.send_disp = snd.disp;
    a.send_idx = snd.idx;
    a.sendbuf = sendbuf;
    a.n_recv = p->n_recv;
    a.recv_part = recv_part;
    a.sig_recv = sig;
    a.sig_credit = sig + np;
    a.slots = slots;
    a.partial = red;
    a.total = red + CG_XSUM_WORDS;
    a.scalar = &scalar;
    a.tol = job->tol;
    a.max_iter = job->max_iter;
    a.history = me == 0 ? job->history : NULL;
    a.res = &res;
    LAUNCH_COOP(cg_mono, DIM3(job->blocks, 1, 1), DIM3(job->threads, 1, 1), 0, NULL, a);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        rc = cg_fail(err, "PE %d: the cg-mono kernel (%d blocks of %d threads) failed: %s", me,
                     job->blocks, job->threads, cudaGetErrorString(e));
    } else {
        for (int32_t i = 0; i < p->n_owned; i++) /* rows of different PEs are disjoint */
            job->x[p->global[i]] = x[i];
        if (me == 0)
            job->res = res;
    }
    nvshmem_barrier_all(); /* no PE frees while another may still signal it */
    free(recv_part);
    free(sendbuf);
    sends_free(&snd);
    free(slots);
    free(t);
    free(r);
    free(x);
    free(b);
out:
    nvshmem_free(red);
    nvshmem_free(sig);
    nvshmem_free(s);
    nvshmem_finalize();
    return rc != 0;
}

int cg_solve_par(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                 const cg_par_opts *opt, double *history, cg_result *res, cg_error *err)
{
    memset(res, 0, sizeof *res);
    if (opt->solver != CG_SOLVER_MONO)
        return cg_fail(err, "cg_solve_par: solver %d: the parallel solver built is cg-mono "
                       "(CG_SOLVER_MONO)", (int)opt->solver);
    int max_pes = a->n < CG_PAR_MAX_PES ? a->n : CG_PAR_MAX_PES;
    if (opt->pes < 1 || opt->pes > max_pes)
        return cg_fail(err, "--pes %d: give 1 to %d (at most one PE per row, and at most %d)",
                       opt->pes, max_pes, CG_PAR_MAX_PES);
    int blocks = opt->blocks ? opt->blocks : 2, threads = opt->threads ? opt->threads : 64;
    if (blocks < 1 || blocks > CG_PAR_MAX_BLOCKS)
        return cg_fail(err, "--blocks %d: give 1 to %d", blocks, CG_PAR_MAX_BLOCKS);
    if (threads < 1 || threads > CG_PAR_MAX_THREADS)
        return cg_fail(err, "--threads %d: give 1 to %d", threads, CG_PAR_MAX_THREADS);
    if (!(tol > 0) || !(tol < 1) || max_iter < 0)
        return cg_fail(err, "cg_solve_par: tol %g, max_iter %lld: give 0 < tol < 1 and "
                       "max_iter >= 0", tol, (long long)max_iter);
    cg_plan plan;
    if (cg_plan_contiguous(a, opt->pes, &plan, err) != 0)
        return -1;
    cg_par_job job;
    memset(&job, 0, sizeof job);
    job.plan = &plan;
    job.b = b;
    job.x = x;
    job.tol = tol;
    job.max_iter = max_iter;
    job.history = history;
    job.blocks = blocks;
    job.threads = threads;
    for (int q = 0; q < plan.nparts; q++) {
        int32_t ext = plan.parts[q].n_owned + plan.parts[q].n_ghost;
        if (ext > job.ext_max)
            job.ext_max = ext;
    }
    job.pe_err = cg_xcalloc((size_t)opt->pes, sizeof *job.pe_err);
    int rc = shmemu_launch(opt->pes, pe_main, &job);
    if (rc != 0) {
        int q = 0;
        while (q < opt->pes - 1 && job.pe_err[q].msg[0] == '\0')
            q++;
        if (job.pe_err[q].msg[0])
            *err = job.pe_err[q];
        else
            cg_fail(err, "the parallel run failed (PE messages above)");
    } else {
        *res = job.res;
    }
    free(job.pe_err);
    cg_plan_free(&plan);
    return rc != 0 ? -1 : 0;
}
