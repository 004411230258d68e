/*
 * par_mpi.c: the CPU-initiated halo through MPI (--halo mpi; docs/papers.md: paper 000
 * Fig. 1, the schedule GROMACS runs with MPI when the GPU does not initiate communication).
 * par_host.c is the same schedule with NVSHMEM host calls; this one moves every byte between
 * PEs with MPI.
 *
 * Per coordinate pulse, in pulse order: the pulse pack kernel (md_pulse_pack_x) packs the
 * pulse's index map, shifted, into its staging buffer xstage ([3][send_size]) on the
 * non-local stream; the host waits for the stream, starts the pulse's two persistent
 * requests, a send of xstage to send_rank and a receive from recv_rank straight into our
 * halo slots (x[d][atom_offset, +recv_size) for d = 0, 1, 2: contiguous per component, one
 * vector datatype of stride cap), and waits for both (MPI_Waitall). Then the pulse has landed
 * here and ours has left, and the next pulse may pack (forwarding: its index map names atoms
 * the earlier pulses brought). Per force pulse, in reverse order: the host waits for the
 * non-local stream (the non-local kernel and the later pulses' unpacks have written our halo
 * slots' forces), starts the send of those slots (the same vector datatype on f) to
 * recv_rank and the receive of our index map's forces into fbuf ([3][send_size]) from
 * send_rank, waits for both, and launches md_host_unpack_f, which adds fbuf to the index
 * map's atoms. The pack and unpack are the staged variants' device code and the adds are
 * integer adds: the bits equal fused's, pulse's and host's.
 *
 * Every byte between PEs goes through MPI: md_par_run sets the put path's transport
 * (MD_XPORT_SIGNAL: the pack writes xstage, nothing is stored through nvshmem_ptr) and
 * refuses --transport direct, and each pulse's transport is checked when its requests are
 * built.
 *
 * Requests. Built per pulse table (the index maps, sizes and offsets change at each search;
 * the buffers do not move: xs, fs, xstage and fbuf are allocated once in par.c) with
 * MPI_Send_init / MPI_Recv_init on a duplicate of the job's communicator, so that no other
 * message of the job can match ours: tag p for the coordinates of pulse p, MD_KMAX_PULSES + p
 * for its forces. An empty message (size 0, the same on both ends: our send_size is
 * send_rank's recv_size) gets no request. They are built at the first exchange after a
 * search (the search's --check halo test runs exchange_x before the search returns);
 * MPI_Send_init and MPI_Recv_init are local calls, so building needs no collective.
 *
 * Why no handshake and no barrier. MPI_Waitall completes our send and our receive of the
 * pulse. Data lands in our memory only through a receive we posted: we start the receive into
 * our halo slots for step n + 1 after waiting for the non-local stream, which held step n's
 * non-local kernel (the slots' reader), and the receive into fbuf[p] after waiting for the
 * non-local stream, which held step n's unpack of pulse p (fbuf's reader). A peer's send
 * that comes earlier waits inside MPI for that receive. The local stream's force kernel
 * runs on meanwhile (it reads home atoms only).
 *
 * Staging (--mpi-staging, md_staging_kind in par.h). An MPI that is not CUDA-aware cannot
 * read or write GPU memory: then the requests are built on two host buffers per pulse, hs
 * ([3][send_size]: coordinates out, forces in) and hr ([3][recv_size]: coordinates in,
 * forces out), page-locked on a GPU, and the host copies with cudaMemcpy: xstage to hs
 * before the coordinate send, hr into the halo slots after the receive (before the next pulse
 * packs), the halo slots' forces to hr before the force send, hs into fbuf after the receive
 * (before the unpack). The streams are idle at each copy (the host has just waited for them,
 * or launches the next kernel after it), and each host buffer is used by one exchange at a
 * time, so the order above is all the synchronization it needs. Either end's choice gives
 * the same type signature (3 n int64), so ends may differ. auto: staged on a GPU when Open MPI
 * says it is not CUDA-aware (MPIX_Query_cuda_support, asked at the first search), never on
 * the CPU build, whose device memory is host memory (on: the same code path, for tests).
 *
 * MPI. The CPU build (SHMEMU_HAVE_MPI: compiled with MPI's flags, md/md.mk) takes the job's
 * communicator from shmemu_mpi_comm() on the MPI backend (shmemu/mpi.h: rank == PE). The
 * CUDA build started by mpirun (SHMEMU_WITH_MPI, md/cuda.mk; md/cuda/launch_mpi.cu) takes
 * MPI_COMM_WORLD (rank == PE). Only the programs link this file (md/md.mk: libshmemu_md.a
 * leaves it out, par.c refers to it weakly), so md's tests do not link MPI. Built without
 * MPI, the variant exists and md_par_mpi_check refuses it before a run starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "md_assert.h"
#include "par_int.h"
#include "shmemu/pgas.h"
#include "util.h"

#if defined(__CUDACC__)
#if defined(SHMEMU_WITH_MPI)
#define MD_HAVE_MPI 1
#include <mpi.h> /* md/cuda/prelude.h included these first, outside extern "C" */
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif
#include "md/cuda/launch.h" /* md_cuda_mpirun_rank (prelude.h included it first) */
#endif
#elif defined(SHMEMU_HAVE_MPI)
#define MD_HAVE_MPI 1
#include "shmemu/mpi.h"
#endif

#ifdef MD_HAVE_MPI

/* One PE's persistent requests for the current pulse table. */
typedef struct md_par_mpi {
    MPI_Comm comm;                       /* a duplicate of the job's communicator */
    bool stale;                          /* the pulse table changed since the build */
    bool staging;                        /* MPI gets host copies (hs, hr), not device memory */
    int64_t *hs[MD_KMAX_PULSES];         /* staging: [3][send_size] coordinates out, forces in */
    int64_t *hr[MD_KMAX_PULSES];         /* staging: [3][recv_size] coordinates in, forces out */
    int64_t cap_hs[MD_KMAX_PULSES], cap_hr[MD_KMAX_PULSES]; /* their int64 capacities */
    int nx[MD_KMAX_PULSES], nf[MD_KMAX_PULSES]; /* requests per pulse (0 to 2) */
    MPI_Request x[MD_KMAX_PULSES][2];    /* coordinates: send xstage, receive into slots */
    MPI_Request f[MD_KMAX_PULSES][2];    /* forces: send from slots, receive into fbuf */
    /* The halo slots' side: three blocks of recv_size at stride cap in x or f (a vector),
     * or, staged, recv_size int64 (three of them); the index map's side: send_size int64,
     * one component (three of them). MPI_DATATYPE_NULL where the size is 0. */
    MPI_Datatype slot_type[MD_KMAX_PULSES];
    MPI_Datatype map_type[MD_KMAX_PULSES];
} md_par_mpi;

enum { TAG_X = 0, TAG_F = MD_KMAX_PULSES };

/* An MPI call that failed (the communicator returns errors): name it and the PE, and end
 * the whole job (MPI_Abort), since the other ranks would wait for this one forever. */
static void mpi_check_(int rc, const char *call, const char *file, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(rc, text, &n) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", rc);
    fprintf(stderr, "shmemu-md: PE %d: %s failed: %s (%s:%d)\n", md_assert_pe(), call, text,
            file, line);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2); /* MPI_Abort does not return */
}

#define MD_MPI(call) mpi_check_((call), #call, __FILE__, __LINE__)

/* The job's communicator (rank == PE), or MPI_COMM_NULL with err when this PE is not an MPI
 * rank of the job. */
static MPI_Comm job_comm(md_error *err)
{
#if defined(__CUDACC__)
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        md_fail(err, "--halo mpi: MPI is not initialized on this PE: start the CUDA build "
                "with mpirun -np N shmemu-md --pes N ...");
        return MPI_COMM_NULL;
    }
    return MPI_COMM_WORLD;
#else
    if (!shmemu_mpi_job()) {
        md_fail(err, "--halo mpi: this PE does not run on the MPI backend: start it with "
                "mpirun -np N shmemu-md --pes N ... (or SHMEMU_BACKEND=mpi)");
        return MPI_COMM_NULL;
    }
    return shmemu_mpi_comm();
#endif
}

/* Whether MPI takes device memory: the emulator's is host memory; on a GPU, a CUDA-aware
 * Open MPI's (MPIX_Query_cuda_support, where it was built with the extension). */
static bool mpi_takes_device_memory(void)
{
#if !defined(__CUDACC__)
    return true;
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

/* --mpi-staging resolved: host copies (true) or the device buffers themselves. */
static int choose_staging(const md_par_pe *c, bool *staging, md_error *err)
{
    const md_staging_kind k = c->job->opt.mpi_staging;
    const bool device_ok = mpi_takes_device_memory();
    *staging = k == MD_STAGING_ON || (k == MD_STAGING_AUTO && !device_ok);
    if (k == MD_STAGING_OFF && !device_ok)
        return md_fail(err, "--mpi-staging off: this MPI does not take GPU memory (it is not "
                       "CUDA-aware: ompi_info | grep -i cuda); leave out --mpi-staging (auto "
                       "stages through host copies) or use a CUDA-aware MPI");
    return 0;
}

/* Page-locked on a GPU (cudaMemcpy to and from it returns when the copy is done). */
static int64_t *host_alloc(int64_t n)
{
#if defined(__CUDACC__)
    void *p = NULL;
    const cudaError_t e = cudaMallocHost(&p, (size_t)n * sizeof(int64_t));
    if (e != cudaSuccess)
        md_alloc_fail(false, "--halo mpi staging", (size_t)n * sizeof(int64_t),
                      cudaGetErrorString(e));
    return (int64_t *)p;
#else
    return (int64_t *)md_xmalloc((size_t)n * sizeof(int64_t));
#endif
}

static void host_free(int64_t *p)
{
#if defined(__CUDACC__)
    MD_CUDA(cudaFreeHost(p));
#else
    free(p);
#endif
}

/* buf[p] holds at least n int64 (grown, contents dropped: the requests are rebuilt). */
static void host_reserve(int64_t **buf, int64_t *cap, int64_t n)
{
    if (n <= *cap)
        return;
    host_free(*buf);
    *cap = n + n / 4 + 64;
    *buf = host_alloc(*cap);
}

/* Collective, at the first search: the duplicate communicator, checked against the job. */
static int mpi_start(md_par_pe *c, md_error *err)
{
    int failed = 0;
    bool staging = false;
    MPI_Comm job = job_comm(err);
    if (job == MPI_COMM_NULL)
        failed = -1;
    else if (choose_staging(c, &staging, err) != 0)
        failed = -1;
    if (failed == 0) {
        int rank = -1, size = -1;
        MPI_Comm_rank(job, &rank);
        MPI_Comm_size(job, &size);
        if (rank != c->me || size != c->npes)
            failed = md_fail(err, "--halo mpi: PE %d of %d is MPI rank %d of %d; start it with "
                             "mpirun -np %d and --pes %d", c->me, c->npes, rank, size,
                             c->npes, c->npes);
    }
    if (md_par_any_failed(c, failed != 0)) /* collective: nobody dups alone */
        return failed ? -1 : md_fail(err, "another PE could not start --halo mpi");
    md_par_mpi *st = (md_par_mpi *)md_xcalloc(1, sizeof *st);
    MD_MPI(MPI_Comm_dup(job, &st->comm));
    MD_MPI(MPI_Comm_set_errhandler(st->comm, MPI_ERRORS_RETURN));
    for (int p = 0; p < MD_KMAX_PULSES; p++)
        st->slot_type[p] = st->map_type[p] = MPI_DATATYPE_NULL;
    st->stale = true;
    st->staging = staging;
    c->mpi = st;
    return 0;
}

static void free_requests(md_par_mpi *st)
{
    for (int p = 0; p < MD_KMAX_PULSES; p++) {
        for (int k = 0; k < st->nx[p]; k++)
            MD_MPI(MPI_Request_free(&st->x[p][k]));
        for (int k = 0; k < st->nf[p]; k++)
            MD_MPI(MPI_Request_free(&st->f[p][k]));
        st->nx[p] = st->nf[p] = 0;
        if (st->slot_type[p] != MPI_DATATYPE_NULL)
            MD_MPI(MPI_Type_free(&st->slot_type[p]));
        if (st->map_type[p] != MPI_DATATYPE_NULL)
            MD_MPI(MPI_Type_free(&st->map_type[p]));
    }
}

/* The persistent requests of the current pulse table (hdp). Without staging, on the
 * device buffers: xstage and fbuf ([3][send_size]: three of a contiguous type) and our halo
 * slots in x and f (one vector type: three blocks of recv_size at stride cap). With staging,
 * on hs and hr ([3][n] each): the same type signature, 3 n int64, so that both ends match
 * whatever each chose. */
static void build_requests(md_par_pe *c, md_par_mpi *st)
{
    free_requests(st);
    const int cap = c->job->cap;
    for (int p = 0; p < c->grid.total_pulses; p++) {
        const md_dpulse *m = &c->hdp[p];
        MD_ASSERT_HINT(m->xport == MD_XPORT_SIGNAL,
                       "--halo mpi needs the put path's staging (md_par_run sets the "
                       "transport): a pulse would store into its peer through nvshmem_ptr");
        if (m->send_size > 0) { /* coordinates out of xstage, forces back into fbuf */
            void *out = m->xstage, *in = m->fbuf;
            if (st->staging) {
                host_reserve(&st->hs[p], &st->cap_hs[p], 3 * (int64_t)m->send_size);
                out = in = st->hs[p];
            }
            MD_MPI(MPI_Type_contiguous(m->send_size, MPI_INT64_T, &st->map_type[p]));
            MD_MPI(MPI_Type_commit(&st->map_type[p]));
            MD_MPI(MPI_Send_init(out, 3, st->map_type[p], m->send_rank, TAG_X + p, st->comm,
                                 &st->x[p][st->nx[p]++]));
            MD_MPI(MPI_Recv_init(in, 3, st->map_type[p], m->send_rank, TAG_F + p, st->comm,
                                 &st->f[p][st->nf[p]++]));
        }
        if (m->recv_size > 0) { /* coordinates into our halo slots, their forces back */
            void *xin = md_par_x(c, 0) + m->atom_offset, *fout = md_par_f(c, 0) + m->atom_offset;
            int count = 1;
            if (st->staging) {
                host_reserve(&st->hr[p], &st->cap_hr[p], 3 * (int64_t)m->recv_size);
                xin = fout = st->hr[p];
                count = 3;
                MD_MPI(MPI_Type_contiguous(m->recv_size, MPI_INT64_T, &st->slot_type[p]));
            } else {
                MD_MPI(MPI_Type_vector(3, m->recv_size, cap, MPI_INT64_T, &st->slot_type[p]));
            }
            MD_MPI(MPI_Type_commit(&st->slot_type[p]));
            MD_MPI(MPI_Recv_init(xin, count, st->slot_type[p], m->recv_rank, TAG_X + p, st->comm,
                                 &st->x[p][st->nx[p]++]));
            MD_MPI(MPI_Send_init(fout, count, st->slot_type[p], m->recv_rank, TAG_F + p, st->comm,
                                 &st->f[p][st->nf[p]++]));
        }
    }
    st->stale = false;
}

/* Staging: n int64 per component between the device's three arrays a[d] + off and the host's
 * [3][n] buffer h (to_host: device to host). The streams are idle where it is called. */
static void stage_copy(int64_t *h, int64_t *const a[3], int32_t off, int32_t n, bool to_host)
{
    const size_t bytes = (size_t)n * sizeof(int64_t);
    for (int d = 0; d < 3 && n > 0; d++) {
        if (to_host)
            MD_CUDA(cudaMemcpy(h + (int64_t)d * n, a[d] + off, bytes, cudaMemcpyDeviceToHost));
        else
            MD_CUDA(cudaMemcpy(a[d] + off, h + (int64_t)d * n, bytes, cudaMemcpyHostToDevice));
    }
}

/* The requests of the current pulse table, built if a search replaced it. */
static md_par_mpi *requests(md_par_pe *c)
{
    md_par_mpi *st = c->mpi;
    MD_ASSERT(st != NULL); /* mpi_search made it before any exchange */
    if (st->stale)
        build_requests(c, st);
    return st;
}

/* Starts n persistent requests and waits for all of them. */
static void start_wait(int n, MPI_Request *r)
{
    if (n == 0)
        return;
    MD_MPI(MPI_Startall(n, r));
    MD_MPI(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
}

static void mpi_x(md_par_pe *c, cudaStream_t s)
{
    md_par_mpi *st = requests(c);
    const int np = c->grid.total_pulses;
    md_halo_args a = md_par_halo_args(c, 0, MD_TR_HALO_X);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    for (int p = 0; p < np; p++) { /* pulse order: z, y, x (or the --dim-order) */
        a.pulse = p;
        LAUNCH(md_pulse_pack_x, DIM3(nb, 1, 1), DIM3(nt, 1, 1), 0, s, a); /* into xstage */
        MD_CUDA(cudaGetLastError()); /* the launch */
        MD_CUDA(cudaStreamSynchronize(s));
        const md_dpulse *m = &c->hdp[p];
        if (st->staging && m->send_size > 0) /* xstage is [3][send_size]: one copy */
            MD_CUDA(cudaMemcpy(st->hs[p], m->xstage, 3 * (size_t)m->send_size * sizeof(int64_t),
                               cudaMemcpyDeviceToHost));
        start_wait(st->nx[p], st->x[p]);
        if (st->staging) /* into our halo slots before the next pack reads them */
            stage_copy(st->hr[p], a.x, m->atom_offset, m->recv_size, false);
    }
}

/* On the non-local stream whatever s is, as the host baseline (par_host.c). */
static void mpi_f(md_par_pe *c, cudaStream_t s)
{
    (void)s;
    md_par_mpi *st = requests(c);
    const int np = c->grid.total_pulses;
    md_halo_args a = md_par_halo_args(c, 0, MD_TR_HALO_F);
    const int nb = c->job->opt.halo_blocks, nt = c->job->opt.halo_threads;
    for (int p = np - 1; p >= 0; p--) { /* reverse pulse order */
        a.pulse = p;
        MD_CUDA(cudaStreamSynchronize(c->s_nl)); /* our slots' forces are final */
        const md_dpulse *m = &c->hdp[p];
        if (st->staging)
            stage_copy(st->hr[p], a.f, m->atom_offset, m->recv_size, true);
        start_wait(st->nf[p], st->f[p]);
        if (st->staging && m->send_size > 0)
            MD_CUDA(cudaMemcpy(m->fbuf, st->hs[p], 3 * (size_t)m->send_size * sizeof(int64_t),
                               cudaMemcpyHostToDevice));
        LAUNCH(md_host_unpack_f, DIM3(nb, 1, 1), DIM3(nt, 1, 1), 0, c->s_nl, a); /* fbuf */
        MD_CUDA(cudaGetLastError()); /* the launch */
    }
}

/* The staged search; the requests are rebuilt at the next exchange. */
static int mpi_search(md_par_pe *c, md_error *err)
{
    if (c->mpi == NULL && mpi_start(c, err) != 0)
        return -1;
    c->mpi->stale = true;
    return md_par_pulse_search(c, err);
}

/* Collective (MPI_Comm_free), at teardown: no exchange is in flight (every Waitall
 * returned). */
static void mpi_release(md_par_pe *c)
{
    md_par_mpi *st = c->mpi;
    if (st == NULL)
        return;
    free_requests(st);
    for (int p = 0; p < MD_KMAX_PULSES; p++) {
        host_free(st->hs[p]);
        host_free(st->hr[p]);
    }
    MD_MPI(MPI_Comm_free(&st->comm));
    free(st);
    c->mpi = NULL;
}

int md_par_mpi_check(md_error *err)
{
#if defined(__CUDACC__)
    if (md_cuda_mpirun_rank() < 0)
        return md_fail(err, "--halo mpi: every PE must be an MPI rank: start it with "
                       "mpirun -np N %s --pes N ...", md_cuda_prog());
#else
    if (strcmp(shmemu_backend_name(), "mpi") != 0)
        return md_fail(err, "--halo mpi: every PE must be an MPI rank, but this job runs on "
                       "the %s backend: start it with mpirun -np N shmemu-md --pes N ... (or "
                       "SHMEMU_BACKEND=mpi)", shmemu_backend_name());
#endif
    (void)err;
    return 0;
}

#else /* built without MPI: md_par_mpi_check refuses the variant before any PE starts */

static void mpi_x(md_par_pe *c, cudaStream_t s)
{
    (void)c;
    (void)s;
    MD_ASSERT_HINT(0, "--halo mpi ran in a build without MPI; md_par_mpi_check refuses it");
}

static void mpi_f(md_par_pe *c, cudaStream_t s) { mpi_x(c, s); }

static int mpi_search(md_par_pe *c, md_error *err)
{
    mpi_x(c, NULL);
    (void)err;
    return -1;
}

static void mpi_release(md_par_pe *c) { (void)c; }

int md_par_mpi_check(md_error *err)
{
#if defined(__CUDACC__)
    return md_fail(err, "--halo mpi: this CUDA build has no MPI (mpicxx was not found when "
                   "it was built): install Open MPI (Debian: apt-get install libopenmpi-dev) "
                   "and rebuild, or use another --halo");
#else
    return md_fail(err, "--halo mpi: shmemu-md was built without MPI (mpicc was not found "
                   "when it was built): install Open MPI (Debian: apt-get install "
                   "libopenmpi-dev openmpi-bin) and rebuild, or use another --halo");
#endif
}

#endif

/* A step with host waits inside cannot be a CUDA graph. */
const md_halo_ops md_halo_mpi = {"mpi", false, mpi_x, mpi_f, mpi_search, NULL, mpi_release,
                                  md_par_mpi_traffic};
