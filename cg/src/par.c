/*
 * par.c: the host driver of the parallel solvers (cg/par.h): the plan, one PE thread each
 * (shmemu_launch, as md/src/par.c), each PE's buffers, one cooperative launch of the
 * monolithic kernel (kernels/mono.c) and the gathering of x. cg-host's PE is par_host.c's.
 * The halo-only loop (cg_halo_loop_par) runs on the same PE setup: its kernel (mono.c's
 * cg_halo_loop) starts from u0 in s and leaves u in s. The partition is cg/partition.h's
 * (contiguous or METIS); the monolithic kernels' transport is set per message by
 * pe_transport (nvshmem_ptr of each receiver, or put-with-signal).
 *
 * Per PE (cg_pe_bufs, par_int.h, shared with cg-host): s (with its ghost region), the signal
 * words and the reduction's partial and total are in the symmetric heap, each the same size
 * on every PE (ext_max: the largest n_owned + n_ghost of the plan); what the kernels use
 * besides is the PE's device memory (cg_dev_alloc: cudaMalloc, host memory on the emulator),
 * which the host reaches only through cudaMemcpy and cudaMemset, so that the same code runs
 * on a GPU (cg/cuda.mk). Every PE zeroes its symmetric words, then a barrier: no put or
 * signal can reach a PE before it is ready. After the kernel, PE 0 gathers x (every PE's
 * rows, through the symmetric heap: cg_pe_bufs_gather) and copies the result and history
 * from its device; the caller reads them after the job has been joined. Only PE 0 writes
 * the caller's memory: on a GPU, and on the process backend, the other PEs are processes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg/par.h"
#include "cg/partition.h"
#include "cg/plan.h"
#include "cg/xsum.h"
#include "cg_bugs.h"
#include "kernels/mono.h"
#include "kernels/pcg.h"
#include "par_int.h"
#include "shmemu/kernel.h" /* the emulator's CUDA calls; CUDA and NVSHMEM under nvcc */
#include "shmemu/pgas.h"
#include "util.h"

void *cg_dev_alloc(size_t bytes)
{
    void *p = NULL;
    const size_t n = bytes ? bytes : 1;
    if (cudaMalloc(&p, n) != cudaSuccess || cudaMemset(p, 0, n) != cudaSuccess) {
        fprintf(stderr, "shmemu-cg: out of device memory allocating %zu bytes (%s); use a "
                "smaller matrix or more PEs\n", bytes, cudaGetErrorString(cudaGetLastError()));
        exit(2);
    }
    return p;
}

void *cg_dev_copy(const void *host, size_t bytes)
{
    void *p = cg_dev_alloc(bytes);
    if (bytes > 0 && cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "shmemu-cg: copying %zu bytes to the device failed: %s\n", bytes,
                cudaGetErrorString(cudaGetLastError()));
        exit(2);
    }
    return p;
}

void cg_dev_free(void *p)
{
    if (p != NULL)
        cudaFree(p);
}

double cg_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cg_par_report(const char *solver, double seconds, int64_t iters)
{
#ifdef __CUDACC__
    fprintf(stderr, "shmemu-cg: %s on the GPU, PE 0: %lld iterations in %.6f s: %.6g ms per "
            "iteration (the solve alone, launch to completion)\n", solver, (long long)iters,
            seconds, iters > 0 ? 1e3 * seconds / (double)iters : 0.0);
#else
    (void)solver;
    (void)seconds;
    (void)iters;
#endif
}

/* Device copies of a part's send lists (for the kernels), and their release. */
static void sends_dev_make(const cg_sends *h, int n_send, cg_sends *d)
{
    const size_t n = (size_t)n_send + 1;
    d->total = h->total;
    d->part = (int *)cg_dev_copy(h->part, n * sizeof *h->part);
    d->count = (int32_t *)cg_dev_copy(h->count, n * sizeof *h->count);
    d->off = (int32_t *)cg_dev_copy(h->off, n * sizeof *h->off);
    d->disp = (int32_t *)cg_dev_copy(h->disp, n * sizeof *h->disp);
    d->idx = (int32_t *)cg_dev_copy(h->idx, ((size_t)h->total + 1) * sizeof *h->idx);
}

static void sends_dev_free(cg_sends *d)
{
    cg_dev_free(d->part);
    cg_dev_free(d->count);
    cg_dev_free(d->off);
    cg_dev_free(d->disp);
    cg_dev_free(d->idx);
}

void cg_sends_make(const cg_part *p, cg_sends *s)
{
    size_t n = (size_t)p->n_send + 1;
    s->part = (int *)cg_xcalloc(n, sizeof *s->part);
    s->count = (int32_t *)cg_xcalloc(n, sizeof *s->count);
    s->off = (int32_t *)cg_xcalloc(n, sizeof *s->off);
    s->disp = (int32_t *)cg_xcalloc(n, sizeof *s->disp);
    s->total = 0;
    for (int k = 0; k < p->n_send; k++) {
        s->part[k] = p->send[k].part;
        s->count[k] = p->send[k].count;
        s->disp[k] = p->send[k].disp;
        if (cg_bug(CG_BUG_DISP_OFF_BY_ONE)) /* planted: one before its place */
            s->disp[k]--;
        s->off[k] = s->total;
        s->total += p->send[k].count;
    }
    s->idx = (int32_t *)cg_xcalloc((size_t)s->total + 1, sizeof *s->idx);
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
    const size_t words = (job->pcg ? 2 : 1) * (size_t)CG_XSUM_WORDS; /* per accumulator set */
    bufs->red = (long long *)nvshmem_malloc(2 * words * sizeof *bufs->red);
    if (bufs->s == NULL || bufs->sig == NULL || bufs->red == NULL) {
        cg_pe_finish(bufs);
        return cg_fail(&job->pe_err[me], "PE %d: the symmetric heap cannot hold %d values of "
                       "s: give a larger NVSHMEM_SYMMETRIC_SIZE (or more PEs)", me,
                       job->ext_max);
    }
    cudaMemset(bufs->s, 0, (size_t)job->ext_max * sizeof *bufs->s);
    cudaMemset(bufs->sig, 0, nsig * sizeof *bufs->sig);
    cudaMemset(bufs->red, 0, 2 * words * sizeof *bufs->red);
    const size_t n = (size_t)p->n_owned + 1;
    double *hb = (double *)cg_xcalloc(n, sizeof *hb);
    for (int32_t i = 0; i < p->n_owned; i++)
        hb[i] = job->b[p->global[i]];
    bufs->b = (double *)cg_dev_copy(hb, n * sizeof *hb);
    free(hb);
    bufs->x = (double *)cg_dev_alloc(n * sizeof *bufs->x);
    bufs->r = (double *)cg_dev_alloc(n * sizeof *bufs->r);
    bufs->t = (double *)cg_dev_alloc(n * sizeof *bufs->t);
    if (job->pcg) {
        bufs->pcg_z = (double *)cg_dev_alloc(n * sizeof *bufs->pcg_z);
        bufs->pcg_s = (double *)cg_dev_alloc(n * sizeof *bufs->pcg_s);
        bufs->pcg_p = (double *)cg_dev_alloc(n * sizeof *bufs->pcg_p);
    }
    const size_t nnz = (size_t)p->a.rowptr[p->n_owned];
    bufs->rowptr = (const int64_t *)cg_dev_copy(p->a.rowptr, n * sizeof *p->a.rowptr);
    bufs->col = (const int32_t *)cg_dev_copy(p->a.col, nnz * sizeof *p->a.col);
    bufs->val = (const double *)cg_dev_copy(p->a.val, nnz * sizeof *p->a.val);
    bufs->nslots = (size_t)job->blocks * (size_t)job->threads;
    bufs->slots = (int64_t *)cg_dev_alloc(bufs->nslots * words * sizeof *bufs->slots);
    cg_sends_make(p, &bufs->snd);
    sends_dev_make(&bufs->snd, p->n_send, &bufs->dsnd);
    bufs->sendbuf = (double *)cg_dev_alloc(((size_t)bufs->snd.total + 1) * sizeof *bufs->sendbuf);
    cudaDeviceSynchronize(); /* the zeroes and copies are done (before the barrier, and before
                              * any kernel on a non-blocking stream) */
    nvshmem_barrier_all(); /* every PE's s and signals are zero before any put or signal */
    return 0;
}

void cg_pe_bufs_gather(cg_par_job *job, const cg_pe_bufs *bufs, const double *v)
{
    const size_t bytes = (size_t)bufs->p->n_owned * sizeof *v;
    if (v != bufs->s)
        cudaMemcpy(bufs->s, v, bytes, cudaMemcpyDeviceToDevice);
    cudaDeviceSynchronize();
    nvshmem_barrier_all(); /* every PE's rows are in its s */
    if (bufs->me != 0)
        return;
    double *h = (double *)cg_xcalloc((size_t)job->ext_max + 1, sizeof *h);
    for (int q = 0; q < bufs->np; q++) { /* PE 0's own rows first: its s is the bounce */
        const cg_part *pq = &job->plan->parts[q];
        const size_t bq = (size_t)pq->n_owned * sizeof *h;
        if (q > 0) /* PE q's s into PE 0's (host-initiated, symmetric to symmetric) */
            nvshmem_getmem(bufs->s, bufs->s, bq, q);
        cudaMemcpy(h, bufs->s, bq, cudaMemcpyDeviceToHost);
        for (int32_t i = 0; i < pq->n_owned; i++) /* rows of different PEs are disjoint */
            job->x[pq->global[i]] = h[i];
    }
    free(h);
}

void cg_pe_finish(cg_pe_bufs *bufs)
{
    if (bufs->b != NULL) { /* made whole */
        nvshmem_barrier_all(); /* no PE frees while another may still signal it */
        cg_dev_free(bufs->peer_sig);
        cg_dev_free(bufs->peer);
        cg_dev_free(bufs->sendbuf);
        sends_dev_free(&bufs->dsnd);
        cg_sends_free(&bufs->snd);
        cg_dev_free(bufs->slots);
        cg_dev_free((void *)bufs->val);
        cg_dev_free((void *)bufs->col);
        cg_dev_free((void *)bufs->rowptr);
        cg_dev_free(bufs->pcg_p);
        cg_dev_free(bufs->pcg_s);
        cg_dev_free(bufs->pcg_z);
        cg_dev_free(bufs->t);
        cg_dev_free(bufs->r);
        cg_dev_free(bufs->x);
        cg_dev_free(bufs->b);
    }
    nvshmem_free(bufs->red);
    nvshmem_free(bufs->sig);
    nvshmem_free(bufs->s);
    nvshmem_finalize();
}

/* The transport of each of this PE's messages (cg/par.h, cg_transport): on direct and auto,
 * nvshmem_ptr of the receiver's s + disp and of its "received" word, kept in bufs->peer and
 * peer_sig for the kernel (NULL: put-with-signal). Collective: the PEs sum their counts of
 * direct, put-with-signal and unreachable messages, so that --transport direct with a
 * receiver nvshmem_ptr does not reach fails on every PE (none is left waiting for a
 * signal), and PE 0 records the counts. 0, or -1 with job->pe_err[me] set. */
static int pe_transport(cg_par_job *job, cg_pe_bufs *bufs)
{
    const cg_part *p = bufs->p;
    /* built on the host, then copied to the device for the kernel; the counts go through
     * red (symmetric device memory), free before the kernel */
    double **peer = (double **)cg_xcalloc((size_t)p->n_send + 1, sizeof *peer);
    uint64_t **peer_sig = (uint64_t **)cg_xcalloc((size_t)p->n_send + 1, sizeof *peer_sig);
    long long mine[3] = {0, 0, 0}, all[3];
    int far = -1; /* a receiver nvshmem_ptr does not reach */
    for (int k = 0; k < p->n_send; k++) {
        const int to = bufs->snd.part[k];
        if (job->transport != CG_TRANSPORT_SIGNAL) {
            peer[k] = (double *)nvshmem_ptr(bufs->s + bufs->snd.disp[k], to);
            peer_sig[k] = (uint64_t *)nvshmem_ptr(bufs->sig + bufs->me, to);
            if (peer[k] == NULL || peer_sig[k] == NULL) {
                peer[k] = NULL;
                peer_sig[k] = NULL;
                far = to;
            }
        }
        mine[peer[k] ? 0 : 1]++;
    }
    bufs->peer = (double **)cg_dev_copy(peer, ((size_t)p->n_send + 1) * sizeof *peer);
    bufs->peer_sig = (uint64_t **)cg_dev_copy(peer_sig,
                                              ((size_t)p->n_send + 1) * sizeof *peer_sig);
    free(peer_sig);
    free(peer);
    mine[2] = job->transport == CG_TRANSPORT_DIRECT && far >= 0;
    cudaMemcpy(bufs->red, mine, sizeof mine, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    nvshmem_longlong_sum_reduce(NVSHMEM_TEAM_WORLD, bufs->red + 3, bufs->red, 3);
    cudaMemcpy(all, bufs->red + 3, sizeof all, cudaMemcpyDeviceToHost);
    const long long direct = all[0], signal = all[1], refused = all[2];
    cudaMemset(bufs->red, 0, 6 * sizeof *bufs->red);
    cudaDeviceSynchronize();
    if (bufs->me == 0) {
        job->direct_msgs = direct;
        job->signal_msgs = signal;
    }
    if (refused == 0)
        return 0;
    if (far >= 0)
        return cg_fail(&job->pe_err[bufs->me], "--transport direct: PE %d cannot address PE "
                       "%d's memory (nvshmem_ptr gives NULL): give --transport signal or auto",
                       bufs->me, far);
    return cg_fail(&job->pe_err[bufs->me], "--transport direct: %lld PEs cannot address a "
                   "receiver's memory (nvshmem_ptr gives NULL): give --transport signal or "
                   "auto", refused);
}

/* One PE of cg-mono or the halo-only loop: buffers, the launch, x's (or u's) rows. Returns
 * 0, or 1 with job->pe_err[me] set. */
static int pe_main(void *arg)
{
    cg_par_job *job = (cg_par_job *)arg;
    cg_pe_bufs B;
    if (cg_pe_start(job, 2 * (size_t)job->plan->nparts, &B) != 0)
        return 1;
    if (pe_transport(job, &B) != 0) {
        cg_pe_finish(&B);
        return 1;
    }
    int rc = 0;
    const int me = B.me;
    const cg_part *p = B.p;
    int *hrecv = (int *)cg_xcalloc((size_t)p->n_recv + 1, sizeof *hrecv);
    for (int k = 0; k < p->n_recv; k++)
        hrecv[k] = p->recv[k].part;
    int *recv_part = (int *)cg_dev_copy(hrecv, ((size_t)p->n_recv + 1) * sizeof *hrecv);
    free(hrecv);
    /* what the kernel writes for the host: device memory, copied back by PE 0 */
    double *scalar = (double *)cg_dev_alloc(2 * sizeof *scalar); /* pcg-mono rounds two */
    cg_result res, *dres = (cg_result *)cg_dev_alloc(sizeof *dres);
    memset(&res, 0, sizeof res);
    const bool hist = me == 0 && job->history != NULL;
    double *dhist = hist ? (double *)cg_dev_alloc(((size_t)job->max_iter + 1) * sizeof *dhist)
                         : NULL;
    cudaDeviceSynchronize();

    cg_mono_args a;
    memset(&a, 0, sizeof a);
    a.me = me;
    a.npes = B.np;
    a.n_owned = p->n_owned;
    a.n_interior = p->n_interior;
    a.rowptr = B.rowptr;
    a.col = B.col;
    a.val = B.val;
    a.b = B.b;
    a.x = B.x;
    a.r = B.r;
    a.t = B.t;
    a.s = B.s;
    a.n_send = p->n_send;
    a.send_part = B.dsnd.part;
    a.send_count = B.dsnd.count;
    a.send_off = B.dsnd.off;
    a.send_disp = B.dsnd.disp;
    a.send_idx = B.dsnd.idx;
    a.sendbuf = B.sendbuf;
    a.send_peer = B.peer;
    a.send_peer_sig = B.peer_sig;
    a.n_recv = p->n_recv;
    a.recv_part = recv_part;
    a.sig_recv = B.sig;
    a.sig_credit = B.sig + B.np;
    a.slots = B.slots;
    a.partial = B.red;
    a.total = B.red + (job->pcg ? 2 : 1) * CG_XSUM_WORDS;
    a.scalar = scalar;
    a.tol = job->tol;
    a.max_iter = job->max_iter;
    a.history = dhist;
    a.res = dres;
    a.omega = job->omega;
    const double t0 = cg_wall_s();
    if (job->halo_loop) { /* s starts as u0 (b); the kernel leaves u in s */
        cudaMemcpy(B.s, B.b, (size_t)p->n_owned * sizeof *B.s, cudaMemcpyDeviceToDevice);
        LAUNCH_COOP(cg_halo_loop, DIM3(job->blocks, 1, 1), DIM3(job->threads, 1, 1), 0, NULL,
                    a);
    } else if (job->pcg) { /* cg-mono's block with w in s's place (kernels/pcg.h) */
        cg_pcg_args pa;
        memset(&pa, 0, sizeof pa);
        pa.m = a;
        pa.z = B.pcg_z;
        pa.s = B.pcg_s;
        pa.p = B.pcg_p;
        LAUNCH_COOP(cg_pcg, DIM3(job->blocks, 1, 1), DIM3(job->threads, 1, 1), 0, NULL, pa);
    } else {
        LAUNCH_COOP(cg_mono, DIM3(job->blocks, 1, 1), DIM3(job->threads, 1, 1), 0, NULL, a);
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    const double t1 = cg_wall_s();
    if (e != cudaSuccess) {
        rc = cg_fail(&job->pe_err[me], "PE %d: the %s kernel (%d blocks of %d threads) "
                     "failed: %s", me,
                     job->halo_loop ? "halo-loop" : job->pcg ? "pcg-mono" : "cg-mono",
                     job->blocks, job->threads, cudaGetErrorString(e));
    } else if (me == 0) {
        cudaMemcpy(&res, dres, sizeof res, cudaMemcpyDeviceToHost);
        job->res = res;
        if (hist && !job->halo_loop)
            cudaMemcpy(job->history, dhist, ((size_t)res.iterations + 1) * sizeof *dhist,
                       cudaMemcpyDeviceToHost);
        if (!job->halo_loop)
            cg_par_report(job->pcg ? "pcg-mono" : "cg-mono", t1 - t0, res.iterations);
    }
    cg_pe_bufs_gather(job, &B, job->halo_loop ? B.s : B.x); /* collective: also on failure */
    cg_dev_free(dhist);
    cg_dev_free(dres);
    cg_dev_free(scalar);
    cg_dev_free(recv_part);
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
    if (opt->transport != CG_TRANSPORT_SIGNAL && opt->transport != CG_TRANSPORT_DIRECT &&
        opt->transport != CG_TRANSPORT_AUTO)
        return cg_fail(err, "transport %d: give CG_TRANSPORT_SIGNAL, CG_TRANSPORT_DIRECT or "
                       "CG_TRANSPORT_AUTO", (int)opt->transport);
    job->transport = opt->transport;
    cg_plan plan;
    if (cg_plan_partitioned(a, opt->pes, opt->partition, &plan, err) != 0)
        return -1;
    job->plan = &plan;
    job->blocks = blocks;
    job->threads = threads;
    for (int q = 0; q < plan.nparts; q++) {
        int32_t ext = plan.parts[q].n_owned + plan.parts[q].n_ghost;
        if (ext > job->ext_max)
            job->ext_max = ext;
    }
    job->pe_err = (cg_error *)cg_xcalloc((size_t)opt->pes, sizeof *job->pe_err);
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
    if (rc == 0 && opt->info != NULL) {
        opt->info->direct_msgs = job->direct_msgs;
        opt->info->signal_msgs = job->signal_msgs;
        opt->info->halo_values = cg_plan_halo_values(&plan);
    }
    job->plan = NULL;
    cg_plan_free(&plan);
    return rc != 0 ? -1 : 0;
}

int cg_solve_par(const cg_csr *a, const double *b, double *x, double tol, int64_t max_iter,
                 const cg_par_opts *opt, double *history, cg_result *res, cg_error *err)
{
    memset(res, 0, sizeof *res);
    if (opt->solver != CG_SOLVER_MONO && opt->solver != CG_SOLVER_HOST &&
        opt->solver != CG_SOLVER_PCG_MONO)
        return cg_fail(err, "cg_solve_par: solver %d: the parallel solvers built are cg-mono "
                       "(CG_SOLVER_MONO), cg-host (CG_SOLVER_HOST) and pcg-mono "
                       "(CG_SOLVER_PCG_MONO)", (int)opt->solver);
    if (opt->reduce != CG_REDUCE_SYNC && opt->reduce != CG_REDUCE_STREAM)
        return cg_fail(err, "cg_solve_par: reduce %d: give CG_REDUCE_SYNC or CG_REDUCE_STREAM",
                       (int)opt->reduce);
    if (opt->solver == CG_SOLVER_HOST && opt->transport != CG_TRANSPORT_SIGNAL)
        return cg_fail(err, "--transport: cg-host's halo is put by each PE's host thread with "
                       "its signal (nvshmem_putmem_signal); the transports are cg-mono's and "
                       "the halo-only loop's: leave --transport out with cg-host");
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
    job.pcg = opt->solver == CG_SOLVER_PCG_MONO;
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
    double *t = (double *)cg_xcalloc((size_t)a->n + 1, sizeof *t);
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
