/*
 * par_host.c: cg-host, paper 002's Listing 2 (CPU-initiated CG): each PE's host thread
 * launches one kernel per operation (kernels/host.c) on its compute stream and runs the halo
 * on a second stream, as md/src/par_host.c does for the MD app's CPU-initiated baseline.
 *
 * Iteration k (from 1), per PE:
 *   event ev_s on the compute stream (s complete); the halo stream waits for it and packs
 *     the send buffer (cgh_pack);
 *   --reduce sync: the host waits for the halo stream, puts each message into the
 *     receiver's ghosts with nvshmem_putmem_signal (signal sig_recv[me] = k, delivered after
 *     the data; the source is reusable on return), quiets (delivery is promised only by a
 *     quiet: the checking mode, SHMEMU_CHECK_NBI=1, holds the puts back until then), then
 *     waits for each sender's signal >= k;
 *   --reduce stream: the same put-with-signal, quiet and waits are queued on the halo stream
 *     (nvshmemx_putmem_signal_on_stream, nvshmemx_quiet_on_stream,
 *     nvshmemx_signal_wait_until_on_stream), then event
 *     ev_halo; the compute stream waits for ev_halo (the event-based join) before the border
 *     rows;
 *   compute stream: interior SpMV (overlapping the halo), border SpMV, gamma = s.t, alpha,
 *     x and r, rho_k = r.r, the stop test, beta, s.
 * Each dot product: cgh_dot packs every thread's exact accumulator into its slot,
 * cgh_slots_sum sums them into the symmetric partial; then --reduce sync: the host waits for
 * the stream, nvshmem_longlong_sum_reduce of the 137 words over all PEs, unpacks, rounds and
 * takes the scalar step (cg_host_step) itself; --reduce stream:
 * nvshmemx_longlong_sum_reduce_on_stream and a one-thread kernel (cgh_scalar) that rounds and
 * takes the step in device memory; the host queues CG_HOST_BATCH iterations and only then
 * waits to read the stop flag (every kernel does nothing once it is set, so the queued
 * iterations past the stop change nothing).
 *
 * Why no credit signal: a sender's put of iteration k + 1 follows, on its streams, its
 * reduction of rho_k of iteration k, which completes only after every PE has queued and
 * reached its own, hence after the receiver's border SpMV of iteration k has read the
 * ghosts (sync: the host waited for the stream; stream: the reduction is ordered after the
 * SpMV on the same stream). The blocking reductions are the credit here; the halo-loop mode
 * (halo.c), which has none, needs and has the credit.
 */
#include <string.h>

#include "cg/xsum.h"
#include "cg_bugs.h"
#include "kernels/host.h"
#include "par_int.h"
#include "shmemu/kernel.h" /* the emulator's CUDA calls; CUDA and NVSHMEM under nvcc */
#include "shmemu/pgas.h"
#include "util.h"

/* NVSHMEM declares put-with-signal and the signal wait __device__ only, so the CUDA build
 * (cg/cuda.mk) issues --reduce sync's halo on the halo stream as well
 * (nvshmemx_putmem_signal_on_stream, ..._signal_wait_until_on_stream) and the host then
 * waits for that stream: the same "host waits for its halo" step. The CPU build makes the
 * host calls themselves. */
#ifdef __CUDACC__
#define HOST_HALO_ON_STREAM true
#else
#define HOST_HALO_ON_STREAM false
#endif

/* A PE's run: its streams, events and the launch arguments every kernel starts from. */
typedef struct host_pe {
    const cg_par_job *job;
    const cg_part *p;
    int me;
    const cg_sends *snd;
    cudaStream_t cs, hs;       /* compute, halo */
    cudaEvent_t ev_s, ev_halo;
    dim3 grid, block;
    cg_host_args a;            /* a.st, a.history: device memory (the kernels') */
    cg_host_state *st;         /* the host's copy of the state (below) */
    double *history;           /* the host's (job->history on PE 0, else NULL) */
    uint64_t *sig_recv;        /* symmetric, npes */
    long long *total;
} host_pe;

/* The state lives in device memory (a.st), which the kernels read and, with --reduce
 * stream, cgh_scalar writes; the host keeps its copy h->st. --reduce sync: the host takes
 * each step on its copy and uploads it (the legacy-stream copy is ordered for the
 * non-blocking streams by a device synchronize); --reduce stream: the host downloads it
 * after waiting for the compute stream. */
static void host_state_upload(host_pe *h)
{
    cudaMemcpy(h->a.st, h->st, sizeof *h->st, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
}

static void host_state_download(host_pe *h)
{
    cudaMemcpy(h->st, h->a.st, sizeof *h->st, cudaMemcpyDeviceToHost);
}

/* The exact dot product u.v over all PEs, rounded, and the scalar step `which`. */
static void host_dot(host_pe *h, const double *u, const double *v, int which)
{
    cg_host_args a = h->a;
    a.u = u;
    a.v = v;
    LAUNCH(cgh_dot, h->grid, h->block, 0, h->cs, a);
    LAUNCH(cgh_slots_sum, h->grid, h->block, 0, h->cs, a);
    a.which = which;
    if (h->job->reduce == CG_REDUCE_STREAM) {
        nvshmemx_longlong_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, h->total, a.partial,
                                               CG_XSUM_WORDS, h->cs);
        LAUNCH(cgh_scalar, DIM3(1, 1, 1), DIM3(1, 1, 1), 0, h->cs, a);
        return;
    }
    cudaStreamSynchronize(h->cs);
    nvshmem_longlong_sum_reduce(NVSHMEM_TEAM_WORLD, h->total, a.partial, CG_XSUM_WORDS);
    int64_t words[CG_XSUM_WORDS];
    cudaMemcpy(words, h->total, sizeof words, cudaMemcpyDeviceToHost);
    cg_xsum s;
    cg_xsum_unpack(&s, words);
    cg_host_step(h->st, which, cg_xsum_round(&s), a.tol, h->history);
    host_state_upload(h);
}

/* Message m's put with its "received" signal k: from the host, or queued on the halo
 * stream (on_stream). */
static void host_put(const host_pe *h, int m, uint64_t k, bool on_stream)
{
    double *dest = h->a.s + h->snd->disp[m];
    const double *src = h->a.sendbuf + h->snd->off[m];
    const size_t bytes = (size_t)h->snd->count[m] * sizeof(double);
#ifndef __CUDACC__
    if (!on_stream) {
        nvshmem_putmem_signal(dest, src, bytes, &h->sig_recv[h->me], k, NVSHMEM_SIGNAL_SET,
                              h->snd->part[m]);
        return;
    }
#endif
    (void)on_stream;
    nvshmemx_putmem_signal_on_stream(dest, src, bytes, &h->sig_recv[h->me], k,
                                     NVSHMEM_SIGNAL_SET, h->snd->part[m], h->hs);
}

/* The wait for sender part's "received" signal >= k: by the host, or on the halo stream. */
static void host_wait(const host_pe *h, int part, uint64_t k, bool on_stream)
{
    uint64_t *sig = &h->sig_recv[part];
#ifndef __CUDACC__
    if (!on_stream) {
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, k);
        return;
    }
#endif
    (void)on_stream;
    nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_GE, k, h->hs);
}

/* Listing 2's halo of iteration k and the SpMV t = A s around it. */
static void host_spmv(host_pe *h, uint64_t k)
{
    const cg_part *p = h->p;
    cg_host_args a = h->a;
    cudaEventRecord(h->ev_s, h->cs);
    cudaStreamWaitEvent(h->hs, h->ev_s, 0);
    LAUNCH(cgh_pack, h->grid, h->block, 0, h->hs, a);
    a.lo = 0;
    a.hi = p->n_interior;
    LAUNCH(cgh_spmv, h->grid, h->block, 0, h->cs, a);
    const bool on_stream = h->job->reduce == CG_REDUCE_STREAM || HOST_HALO_ON_STREAM;
    if (!on_stream)
        cudaStreamSynchronize(h->hs);
    for (int m = 0; m < p->n_send; m++)
        host_put(h, m, k, on_stream);
    if (on_stream) /* delivered (NVSHMEM promises it only after a quiet) */
        nvshmemx_quiet_on_stream(h->hs);
    else
        nvshmem_quiet();
    for (int g = 0; g < p->n_recv && !cg_bug(CG_BUG_RECV_WAIT_MISSING); g++) /* planted */
        host_wait(h, p->recv[g].part, k, on_stream);
    if (on_stream) {
        cudaEventRecord(h->ev_halo, h->hs);
        cudaStreamWaitEvent(h->cs, h->ev_halo, 0); /* the join: ghosts in place */
        if (h->job->reduce == CG_REDUCE_SYNC) /* the CUDA build's sync: the host waits */
            cudaStreamSynchronize(h->hs);
    }
    a.lo = p->n_interior;
    a.hi = p->n_owned;
    LAUNCH(cgh_spmv, h->grid, h->block, 0, h->cs, a);
}

/* The solve on this PE; the caller checks cudaGetLastError. */
static void host_solve(host_pe *h)
{
    const cg_par_job *job = h->job;
    cg_host_args a = h->a;
    const cg_host_state *st = h->st;
    /* r0 <- b - A x0 with x0 = 0 (s, zero with its ghosts, stands for x0); s <- r0 */
    a.lo = 0;
    a.hi = h->p->n_owned;
    LAUNCH(cgh_spmv, h->grid, h->block, 0, h->cs, a);
    LAUNCH(cgh_init, h->grid, h->block, 0, h->cs, a);
    host_dot(h, a.r, a.r, CG_HOST_RHO0);
    int64_t queued = 0;
    for (;;) {
        cudaStreamSynchronize(h->cs); /* --reduce sync: already idle */
        if (job->reduce == CG_REDUCE_STREAM)
            host_state_download(h);
        if (st->done || queued >= job->max_iter)
            break;
        int64_t n = job->reduce == CG_REDUCE_STREAM ? CG_HOST_BATCH : 1;
        if (n > job->max_iter - queued)
            n = job->max_iter - queued;
        for (int64_t j = 0; j < n; j++) {
            queued++;
            host_spmv(h, (uint64_t)queued);
            host_dot(h, a.s, a.t, CG_HOST_GAMMA);
            if (job->reduce == CG_REDUCE_SYNC && st->done)
                break;
            LAUNCH(cgh_update, h->grid, h->block, 0, h->cs, a);
            host_dot(h, a.r, a.r, CG_HOST_RHO);
            if (job->reduce == CG_REDUCE_SYNC && st->done)
                break;
            LAUNCH(cgh_direction, h->grid, h->block, 0, h->cs, a);
        }
    }
    cudaStreamSynchronize(h->hs);
}

int cg_par_host_pe(void *arg)
{
    cg_par_job *job = (cg_par_job *)arg;
    cg_pe_bufs B;
    if (cg_pe_start(job, (size_t)job->plan->nparts, &B) != 0)
        return 1;
    int rc = 0;
    const int me = B.me;
    const cg_part *p = B.p;
    host_pe h;
    memset(&h, 0, sizeof h);
    h.job = job;
    h.p = p;
    h.me = me;
    h.snd = &B.snd;
    h.grid = DIM3(job->blocks, 1, 1);
    h.block = DIM3(job->threads, 1, 1);
    h.sig_recv = B.sig;
    h.total = B.red + CG_XSUM_WORDS;
    cg_host_state st;
    memset(&st, 0, sizeof st);
    h.st = &st;
    h.history = me == 0 ? job->history : NULL;
    /* --reduce stream: cgh_scalar writes the history on the device; PE 0 copies it back */
    const bool dev_hist = h.history != NULL && job->reduce == CG_REDUCE_STREAM;
    double *dhist =
        dev_hist ? (double *)cg_dev_alloc(((size_t)job->max_iter + 1) * sizeof *dhist) : NULL;
    cg_host_args *a = &h.a;
    a->n_owned = p->n_owned;
    a->rowptr = B.rowptr;
    a->col = B.col;
    a->val = B.val;
    a->b = B.b;
    a->x = B.x;
    a->r = B.r;
    a->t = B.t;
    a->s = B.s;
    a->send_total = B.snd.total;
    a->send_idx = B.dsnd.idx;
    a->sendbuf = B.sendbuf;
    a->slots = B.slots;
    a->nslots = (int64_t)B.nslots;
    a->block_threads = job->threads; /* cgh_dot runs on h.grid x h.block */
    a->partial = B.red;
    a->total = B.red + CG_XSUM_WORDS;
    a->st = (cg_host_state *)cg_dev_alloc(sizeof *a->st); /* zero, as st */
    a->tol = job->tol;
    a->history = dhist;
    cudaDeviceSynchronize();
    const double t0 = cg_wall_s();
    cudaError_t e = cudaStreamCreateWithFlags(&h.cs, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&h.hs, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&h.ev_s, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&h.ev_halo, cudaEventDisableTiming);
    if (e == cudaSuccess) { /* (creation fails only when the emulator cannot start a thread) */
        host_solve(&h);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    const double t1 = cg_wall_s();
    if (e != cudaSuccess) {
        rc = cg_fail(&job->pe_err[me], "PE %d: cg-host's kernels (%d blocks of %d threads) "
                     "failed: %s", me, job->blocks, job->threads, cudaGetErrorString(e));
    } else if (me == 0) {
        job->res.iterations = st.k;
        job->res.converged = st.converged != 0;
        job->res.breakdown = st.breakdown != 0;
        job->res.rho0 = st.rho0;
        job->res.residual = st.residual;
        if (dev_hist)
            cudaMemcpy(job->history, dhist, ((size_t)st.k + 1) * sizeof *dhist,
                       cudaMemcpyDeviceToHost);
        cg_par_report(job->reduce == CG_REDUCE_STREAM ? "cg-host --reduce stream"
                                                      : "cg-host --reduce sync",
                      t1 - t0, st.k);
    }
    cg_pe_bufs_gather(job, &B, B.x); /* collective: also on failure */
    cg_dev_free(a->st);
    cg_dev_free(dhist);
    if (h.ev_halo)
        cudaEventDestroy(h.ev_halo);
    if (h.ev_s)
        cudaEventDestroy(h.ev_s);
    if (h.hs)
        cudaStreamDestroy(h.hs);
    if (h.cs)
        cudaStreamDestroy(h.cs);
    cg_pe_finish(&B);
    return rc != 0;
}
